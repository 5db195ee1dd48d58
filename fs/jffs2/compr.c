/* compr.c -- node data compression, as Linux's fs/jffs2/compr_zlib.c,
 * compr_rtime.c and compr_lzo.c write and read it.  A node whose data
 * does not shrink is stored uncompressed (JFFS2_COMPR_NONE), as JFFS2 does.
 * Decompression is bounds-checked throughout: foreign images are input. */
#include "jffs.h"

#include <errno.h>
#include <lzo/lzo1x.h>
#include <string.h>
#include <zlib.h>

const char *jffs_compr_name(int c)
{
    switch (c) {
    case JFFS_COMPR_NONE: return "none";
    case JFFS_COMPR_ZERO: return "zero";
    case JFFS_COMPR_RTIME: return "rtime";
    case JFFS_COMPR_ZLIB: return "zlib";
    case JFFS_COMPR_LZO: return "lzo";
    default: return NULL;
    }
}

int jffs_compr_parse(const char *s)
{
    static const int pick[] = {JFFS_COMPR_NONE, JFFS_COMPR_ZLIB, JFFS_COMPR_RTIME, JFFS_COMPR_LZO};
    for (size_t i = 0; i < sizeof pick / sizeof pick[0]; i++)
        if (!strcmp(s, jffs_compr_name(pick[i])))
            return pick[i];
    return -EINVAL;
}

/* ---- rtime: each byte, then how many of the bytes after it repeat what
 * followed that byte's previous occurrence (compr_rtime.c) ------------- */
static uint32_t rtime_compress(const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap)
{
    uint16_t positions[256] = {0};
    uint32_t pos = 0, outpos = 0;
    while (pos < len) {
        if (outpos + 2 > cap)
            return 0;
        uint8_t value = in[pos];
        out[outpos++] = in[pos++];
        uint32_t backpos = positions[value], runlen = 0;
        positions[value] = (uint16_t)pos;
        while (backpos < pos && pos < len && in[pos] == in[backpos++] && runlen < 255) {
            pos++;
            runlen++;
        }
        out[outpos++] = (uint8_t)runlen;
    }
    return outpos < len ? outpos : 0;
}

static int rtime_decompress(const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen)
{
    uint16_t positions[256] = {0};
    uint32_t pos = 0, outpos = 0;
    while (outpos < dlen) {
        if (pos + 2 > clen)
            return -EINVAL;
        uint8_t value = in[pos++];
        uint32_t repeat = in[pos++], backoffs = positions[value];
        out[outpos++] = value;
        positions[value] = (uint16_t)outpos;
        if (repeat > dlen - outpos)
            return -EINVAL;
        while (repeat--) /* may overlap its own output: byte by byte */
            out[outpos++] = out[backoffs++];
    }
    return 0;
}

/* ---- zlib: a zlib stream (deflate level 3, as Linux) ------------------ */
static uint32_t zlib_compress(const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap)
{
    uLongf n = cap;
    if (compress2(out, &n, in, len, 3) != Z_OK || n >= len)
        return 0;
    return (uint32_t)n;
}

/* As Linux: a plain deflate header without a preset dictionary is skipped
 * and the raw stream inflated (the Adler-32 is not checked; the node's
 * data CRC already was). */
static int zlib_decompress(const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    int wbits = MAX_WBITS;
    s.next_in = (Bytef *)(uintptr_t)in;
    s.avail_in = clen;
    if (clen >= 2 && (in[0] & 0x0f) == Z_DEFLATED && !(((in[0] << 8) + in[1]) % 31) &&
        !(in[1] & 0x20)) {
        wbits = -((in[0] >> 4) + 8);
        if (wbits < -MAX_WBITS)
            return -EINVAL;
        s.next_in += 2;
        s.avail_in -= 2;
    }
    s.next_out = out;
    s.avail_out = dlen;
    if (inflateInit2(&s, wbits) != Z_OK)
        return -EINVAL;
    int rc = inflate(&s, Z_FINISH);
    uLong got = s.total_out;
    inflateEnd(&s);
    return rc == Z_STREAM_END && got == dlen ? 0 : -EINVAL; /* all of it, no more */
}

/* ---- lzo: LZO1X-1, read with lzo1x_decompress_safe (compr_lzo.c) ------ */
static _Thread_local lzo_align_t lzo_wrk[(LZO1X_1_MEM_COMPRESS + sizeof(lzo_align_t) - 1) /
                                         sizeof(lzo_align_t)];

static uint32_t lzo_compress(const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap)
{
    lzo_uint n = cap;
    if (cap < len + len / 16 + 64 + 3 || lzo_init() != LZO_E_OK ||
        lzo1x_1_compress(in, len, out, &n, lzo_wrk) != LZO_E_OK || n >= len)
        return 0;
    return (uint32_t)n;
}

static int lzo_decompress(const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen)
{
    lzo_uint n = dlen;
    if (lzo_init() != LZO_E_OK)
        return -EINVAL;
    int rc = lzo1x_decompress_safe(in, clen, out, &n, NULL);
    return rc == LZO_E_OK && n == dlen ? 0 : -EINVAL;
}

uint32_t jffs_compress(int compr, const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap)
{
    if (!len)
        return 0;
    switch (compr) {
    case JFFS_COMPR_RTIME: return rtime_compress(in, len, out, cap);
    case JFFS_COMPR_ZLIB: return zlib_compress(in, len, out, cap);
    case JFFS_COMPR_LZO: return lzo_compress(in, len, out, cap);
    default: return 0;
    }
}

int jffs_decompress(int compr, const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen)
{
    switch (compr) {
    case JFFS_COMPR_NONE:
        if (clen != dlen)
            return -EINVAL;
        memcpy(out, in, dlen);
        return 0;
    case JFFS_COMPR_ZERO: memset(out, 0, dlen); return 0;
    case JFFS_COMPR_RTIME: return rtime_decompress(in, clen, out, dlen);
    case JFFS_COMPR_ZLIB: return zlib_decompress(in, clen, out, dlen);
    case JFFS_COMPR_LZO: return lzo_decompress(in, clen, out, dlen);
    default: return -EINVAL; /* rubin, dynrubin, copy: not written by Linux */
    }
}

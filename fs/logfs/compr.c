/*
 * compr.c -- compression of data-block payloads (FORMAT.md 9.1a): zlib as
 * Linux LogFS used it, and LZO1X-1 as JFFS2 and UBIFS offer it.  A payload
 * is stored compressed only when that makes it shorter; a damaged stream
 * is an unreadable object (-EIO), never a crash: both decoders are the
 * bounds-checked ones.
 */
#include "format.h"

#include <errno.h>
#include <lzo/lzo1x.h>
#include <zlib.h>

const char *lfs_compr_name(unsigned method)
{
    static const char *const names[LFS_COMPR_METHODS] = {"none", "zlib", "lzo"};
    return method < LFS_COMPR_METHODS ? names[method] : NULL;
}

/* zlib: level 3, as Linux LogFS (and JFFS2) deflate */
static uint32_t zlib_pack(const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap)
{
    uLongf n = cap;
    if (compress2(out, &n, in, len, 3) != Z_OK || n >= len)
        return 0;
    return (uint32_t)n;
}

/* The whole stream, to exactly dlen bytes, nothing after it. */
static int zlib_unpack(const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    s.next_in = (Bytef *)(uintptr_t)in;
    s.avail_in = clen;
    s.next_out = out;
    s.avail_out = dlen;
    if (inflateInit(&s) != Z_OK)
        return -ENOMEM;
    int rc = inflate(&s, Z_FINISH);
    int ok = rc == Z_STREAM_END && s.total_out == dlen && s.avail_in == 0;
    inflateEnd(&s);
    return ok ? 0 : -EIO;
}

/* LZO's work memory: one per thread (runs may go in parallel) */
static _Thread_local lzo_align_t lfs_lzo_wrk[(LZO1X_1_MEM_COMPRESS + sizeof(lzo_align_t) - 1) /
                                             sizeof(lzo_align_t)];

static uint32_t lzo_pack(const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap)
{
    lzo_uint n = cap;
    if (cap < LFS_COMPR_BOUND(len) || lzo_init() != LZO_E_OK ||
        lzo1x_1_compress(in, len, out, &n, lfs_lzo_wrk) != LZO_E_OK || n >= len)
        return 0;
    return (uint32_t)n;
}

static int lzo_unpack(const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen)
{
    lzo_uint n = dlen;
    if (lzo_init() != LZO_E_OK)
        return -EIO;
    int rc = lzo1x_decompress_safe(in, clen, out, &n, NULL);
    return rc == LZO_E_OK && n == dlen ? 0 : -EIO;
}

uint32_t lfs_compress(unsigned method, const uint8_t *in, uint32_t len, uint8_t *out,
                      uint32_t cap)
{
    if (!len)
        return 0;
    switch (method) {
    case LFS_COMPR_ZLIB: return zlib_pack(in, len, out, cap);
    case LFS_COMPR_LZO: return lzo_pack(in, len, out, cap);
    default: return 0;
    }
}

int lfs_decompress(unsigned method, const uint8_t *in, uint32_t clen, uint8_t *out,
                   uint32_t dlen)
{
    switch (method) {
    case LFS_COMPR_ZLIB: return zlib_unpack(in, clen, out, dlen);
    case LFS_COMPR_LZO: return lzo_unpack(in, clen, out, dlen);
    default: return -EIO;
    }
}

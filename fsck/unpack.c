/* unpack.c -- decompressing a data block's payload (FORMAT.md 9.1a): a
 * zlib stream (RFC 1950) or LZO1X, each to exactly the header's
 * decompressed length; a damaged stream is an error to report, never a
 * crash (both decoders check their bounds). */
#include "fsck_int.h"

#include <lzo/lzo1x.h>
#include <zlib.h>

const char *fk_compr_name(unsigned method)
{
    return method == FK_COMPR_ZLIB ? "zlib" : method == FK_COMPR_LZO ? "lzo" : "none";
}

static int fk_inflate(const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    s.next_in = (Bytef *)(uintptr_t)in;
    s.avail_in = clen;
    s.next_out = out;
    s.avail_out = dlen;
    if (inflateInit(&s) != Z_OK)
        return -1;
    int rc = inflate(&s, Z_FINISH);
    int ok = rc == Z_STREAM_END && s.total_out == dlen && s.avail_in == 0;
    inflateEnd(&s);
    return ok ? 0 : -1;
}

static int fk_unlzo(const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen)
{
    lzo_uint n = dlen;
    if (lzo_init() != LZO_E_OK)
        return -1;
    return lzo1x_decompress_safe(in, clen, out, &n, NULL) == LZO_E_OK && n == dlen ? 0 : -1;
}

int fk_unpack(unsigned method, const uint8_t *in, uint32_t clen, uint8_t *out,
              uint32_t dlen)
{
    switch (method) {
    case FK_COMPR_ZLIB: return fk_inflate(in, clen, out, dlen);
    case FK_COMPR_LZO: return fk_unlzo(in, clen, out, dlen);
    default: return -1;
    }
}

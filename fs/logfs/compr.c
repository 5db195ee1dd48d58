/*
 * compr.c -- compression of data-block payloads (FORMAT.md 9.1a): zlib as
 * Linux LogFS used it, and LZO1X-1 as JFFS2 and UBIFS offer it.  A payload
 * is stored compressed only when that makes it shorter; a damaged stream
 * is an unreadable object (-EIO), never a crash: both decoders are the
 * bounds-checked ones.
 */
#include "format.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <lzo/lzo1x.h>
#include <zlib.h>

const char *lfs_compr_name(unsigned method)
{
    static const char *const names[LFS_COMPR_METHODS] = {"none", "zlib", "lzo"};
    return method < LFS_COMPR_METHODS ? names[method] : NULL;
}

struct lfs_packer {
    unsigned method;
    z_stream z;           /* zlib: initialised once, reset per block */
    lzo_align_t *wrk;     /* lzo: LZO1X_1_MEM_COMPRESS bytes */
    size_t bytes;         /* held, for the fs's memory count */
};

/* zlib's allocations, counted; each behind a header that keeps its size
 * and the alignment malloc gives */
union pk_hdr { size_t n; max_align_t align; };

static voidpf pk_zalloc(voidpf opaque, uInt items, uInt size)
{
    struct lfs_packer *pk = opaque;
    size_t n = (size_t)items * size;
    union pk_hdr *h = malloc(sizeof *h + n);
    if (!h)
        return Z_NULL;
    h->n = n;
    pk->bytes += n;
    return h + 1;
}

static void pk_zfree(voidpf opaque, voidpf p)
{
    struct lfs_packer *pk = opaque;
    union pk_hdr *h = (union pk_hdr *)p - 1;
    pk->bytes -= h->n;
    free(h);
}

size_t lfs_packer_bytes(const struct lfs_packer *pk)
{
    return pk ? sizeof *pk + pk->bytes : 0;
}

struct lfs_packer *lfs_packer_new(unsigned method)
{
    struct lfs_packer *pk = calloc(1, sizeof *pk);
    if (!pk)
        return NULL;
    pk->method = method;
    pk->z.zalloc = pk_zalloc;
    pk->z.zfree = pk_zfree;
    pk->z.opaque = pk;
    int ok = 0;
    if (method == LFS_COMPR_ZLIB) /* level 3, as Linux LogFS (and JFFS2) deflate */
        ok = deflateInit(&pk->z, 3) == Z_OK;
    else if (method == LFS_COMPR_LZO)
        ok = lzo_init() == LZO_E_OK && (pk->wrk = malloc(LZO1X_1_MEM_COMPRESS)) != NULL;
    if (pk->wrk)
        pk->bytes += LZO1X_1_MEM_COMPRESS;
    if (!ok) {
        free(pk);
        return NULL;
    }
    return pk;
}

void lfs_packer_free(struct lfs_packer *pk)
{
    if (!pk)
        return;
    if (pk->method == LFS_COMPR_ZLIB)
        deflateEnd(&pk->z);
    free(pk->wrk);
    free(pk);
}

/* A whole zlib stream (header, deflate, Adler-32) per block. */
static uint32_t zlib_pack(struct lfs_packer *pk, const uint8_t *in, uint32_t len,
                          uint8_t *out, uint32_t cap)
{
    z_stream *z = &pk->z;
    if (deflateReset(z) != Z_OK)
        return 0;
    z->next_in = (Bytef *)(uintptr_t)in;
    z->avail_in = len;
    z->next_out = out;
    z->avail_out = cap < len ? cap : len; /* no room to grow: it must shrink */
    if (deflate(z, Z_FINISH) != Z_STREAM_END || z->total_out >= len)
        return 0;
    return (uint32_t)z->total_out;
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

static uint32_t lzo_pack(struct lfs_packer *pk, const uint8_t *in, uint32_t len,
                         uint8_t *out, uint32_t cap)
{
    lzo_uint n = cap;
    if (cap < LFS_COMPR_BOUND(len) ||
        lzo1x_1_compress(in, len, out, &n, pk->wrk) != LZO_E_OK || n >= len)
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

uint32_t lfs_compress(struct lfs_packer *pk, const uint8_t *in, uint32_t len, uint8_t *out,
                      uint32_t cap)
{
    if (!len || !pk)
        return 0;
    switch (pk->method) {
    case LFS_COMPR_ZLIB: return zlib_pack(pk, in, len, out, cap);
    case LFS_COMPR_LZO: return lzo_pack(pk, in, len, out, cap);
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

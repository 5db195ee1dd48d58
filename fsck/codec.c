/* codec.c -- fsck's own encoders and decoders of the fixed-size
 * records: inode (FORMAT.md 9.4), object header (8), anchor (6.1). */
#include "fsck_int.h"

void fk_inode_decode(const uint8_t *b, struct fk_inode *in, uint32_t ib)
{
    in->mode = le32_get(b);
    in->uid = le32_get(b + 4);
    in->gid = le32_get(b + 8);
    in->nlink = le32_get(b + 12);
    in->size = le64_get(b + 16);
    in->atime = (int64_t)le64_get(b + 24);
    in->mtime = (int64_t)le64_get(b + 32);
    in->ctime = (int64_t)le64_get(b + 40);
    in->flags = le32_get(b + 48);
    in->height = b[52];
    memcpy(in->resv, b + 53, 3);
    in->generation = le64_get(b + 56);
    for (unsigned i = 0; i < FK_NDIRECT; i++)
        in->direct[i] = le64_get(b + 64 + 8 * i);
    in->indirect = le64_get(b + 192);
    in->ino = le64_get(b + 200);
    in->rdev = ib >= FK_INODE_BYTES ? le64_get(b + 208) : 0;
    in->xattr = ib >= FK_INODE_BYTES ? le64_get(b + 216) : 0;
    in->blocks = ib >= FK_INODE_BYTES ? le64_get(b + 224) : 0;
    in->resv2_zero = ib >= FK_INODE_BYTES ? (uint8_t)fk_all(b + 232, 24, 0) : 1;
}

void fk_inode_encode(const struct fk_inode *in, uint8_t *b, uint32_t ib)
{
    memset(b, 0, ib);
    le32_put(b, in->mode);
    le32_put(b + 4, in->uid);
    le32_put(b + 8, in->gid);
    le32_put(b + 12, in->nlink);
    le64_put(b + 16, in->size);
    le64_put(b + 24, (uint64_t)in->atime);
    le64_put(b + 32, (uint64_t)in->mtime);
    le64_put(b + 40, (uint64_t)in->ctime);
    le32_put(b + 48, in->flags);
    b[52] = in->height;
    memcpy(b + 53, in->resv, 3);
    le64_put(b + 56, in->generation);
    for (unsigned i = 0; i < FK_NDIRECT; i++)
        le64_put(b + 64 + 8 * i, in->direct[i]);
    le64_put(b + 192, in->indirect);
    le64_put(b + 200, in->ino);
    if (ib >= FK_INODE_BYTES) {
        le64_put(b + 208, in->rdev);
        le64_put(b + 216, in->xattr);
        le64_put(b + 224, in->blocks); /* zero before version 6 */
    }
}

int fk_obj_decode(const uint8_t *h, struct fk_obj *o)
{
    uint32_t w = le32_get(h);
    if ((w & 0xffffff) != FK_OBJ_MAGIC)
        return -1;
    if (le32_get(h + 44) != fk_crc(h, 44))
        return -2;
    o->type = (uint8_t)(w >> 24);
    o->level = h[4];
    o->compr = h[5];
    o->resv = le16_get(h + 6);
    o->len = le32_get(h + 8);
    o->pcrc = le32_get(h + 12);
    o->ino = le64_get(h + 16);
    o->bix = le64_get(h + 24);
    o->seq = le64_get(h + 32);
    o->raw_len = le32_get(h + 40);
    if (o->type < FK_DATA || o->type > FK_INODE || o->level > FK_MAX_HEIGHT ||
        o->len > FK_MAX_OBJ_LEN)
        return -3;
    return 0;
}

void fk_obj_encode(const struct fk_obj *o, uint8_t *h)
{
    memset(h, 0, FK_HDR);
    le32_put(h, FK_OBJ_MAGIC | (uint32_t)o->type << 24);
    h[4] = o->level;
    h[5] = o->compr;
    le32_put(h + 8, o->len);
    le32_put(h + 12, o->pcrc);
    le64_put(h + 16, o->ino);
    le64_put(h + 24, o->bix);
    le64_put(h + 32, o->seq);
    le32_put(h + 40, o->raw_len);
    le32_put(h + 44, fk_crc(h, 44));
}

/* The CRC of the record with bytes 16..19 taken as zero. */
static uint32_t anchor_crc(const uint8_t *b, uint32_t ab)
{
    static const uint8_t zero[4];
    uint32_t c = flashlab_crc32(0, b, 16);
    c = flashlab_crc32(c, zero, 4);
    return flashlab_crc32(c, b + 20, ab - 20);
}

int fk_anchor_decode(const uint8_t *b, struct fk_anchor *a, uint32_t ib)
{
    uint32_t ab = FK_ANCHOR_BYTES_OF(ib), d = 2 * (ib - FK_INODE_BYTES_V3);
    if (le32_get(b) != FK_ANCHOR_MAGIC || le32_get(b + 4) != ab ||
        le32_get(b + 16) != anchor_crc(b, ab))
        return -1;
    memset(a, 0, sizeof *a);
    a->seq = le64_get(b + 8);
    a->flags = le32_get(b + 20);
    a->seg_clock = le64_get(b + 24);
    fk_inode_decode(b + 32, &a->inodefile, ib);
    fk_inode_decode(b + 32 + ib, &a->segfile, ib);
    a->next_ino = le64_get(b + d + 448);
    a->live_bytes = le64_get(b + d + 456);
    a->free_segments = le64_get(b + d + 464);
    a->host_bytes_written = le64_get(b + d + 472);
    for (unsigned i = 0; i < FK_NAREAS; i++) {
        a->area[i].seg = le32_get(b + d + 480 + 8 * i);
        a->area[i].off = le32_get(b + d + 484 + 8 * i);
    }
    a->npool = le32_get(b + d + 592);
    for (unsigned i = 0; i < FK_POOL_MAX; i++) {
        a->pool[i].seg = le32_get(b + d + 596 + 8 * i);
        a->pool[i].erases = le32_get(b + d + 600 + 8 * i);
    }
    a->norphans = le32_get(b + d + 852);
    for (unsigned i = 0; i < FK_ORPHAN_MAX; i++)
        a->orphans[i] = le64_get(b + d + 856 + 8 * i);
    if ((a->flags & ~(FK_ANCHOR_CLEAN | FK_ANCHOR_ORPHAN_SCAN)) ||
        a->inodefile.height > FK_MAX_HEIGHT || a->segfile.height > FK_MAX_HEIGHT ||
        a->npool > FK_POOL_MAX || a->norphans > FK_ORPHAN_MAX)
        return -1;
    return 0;
}

void fk_anchor_encode(const struct fk_anchor *a, uint8_t *b, uint32_t ib)
{
    uint32_t ab = FK_ANCHOR_BYTES_OF(ib), d = 2 * (ib - FK_INODE_BYTES_V3);
    memset(b, 0, ab);
    le32_put(b, FK_ANCHOR_MAGIC);
    le32_put(b + 4, ab);
    le64_put(b + 8, a->seq);
    le32_put(b + 20, a->flags);
    le64_put(b + 24, a->seg_clock);
    fk_inode_encode(&a->inodefile, b + 32, ib);
    fk_inode_encode(&a->segfile, b + 32 + ib, ib);
    le64_put(b + d + 448, a->next_ino);
    le64_put(b + d + 456, a->live_bytes);
    le64_put(b + d + 464, a->free_segments);
    le64_put(b + d + 472, a->host_bytes_written);
    for (unsigned i = 0; i < FK_NAREAS; i++) {
        le32_put(b + d + 480 + 8 * i, a->area[i].seg);
        le32_put(b + d + 484 + 8 * i, a->area[i].off);
    }
    le32_put(b + d + 592, a->npool);
    for (unsigned i = 0; i < a->npool && i < FK_POOL_MAX; i++) {
        le32_put(b + d + 596 + 8 * i, a->pool[i].seg);
        le32_put(b + d + 600 + 8 * i, a->pool[i].erases);
    }
    le32_put(b + d + 852, a->norphans);
    for (unsigned i = 0; i < a->norphans && i < FK_ORPHAN_MAX; i++)
        le64_put(b + d + 856 + 8 * i, a->orphans[i]);
    le32_put(b + 16, anchor_crc(b, ab));
}

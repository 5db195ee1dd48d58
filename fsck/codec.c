/* codec.c -- fsck's own encoders and decoders of the fixed-size
 * records: inode (FORMAT.md 9.4), object header (8), anchor (6.1). */
#include "fsck_int.h"

void fk_inode_decode(const uint8_t *b, struct fk_inode *in)
{
    in->mode = fk_get32(b);
    in->uid = fk_get32(b + 4);
    in->gid = fk_get32(b + 8);
    in->nlink = fk_get32(b + 12);
    in->size = fk_get64(b + 16);
    in->atime = (int64_t)fk_get64(b + 24);
    in->mtime = (int64_t)fk_get64(b + 32);
    in->ctime = (int64_t)fk_get64(b + 40);
    in->flags = fk_get32(b + 48);
    in->height = b[52];
    memcpy(in->resv, b + 53, 3);
    in->generation = fk_get64(b + 56);
    for (unsigned i = 0; i < FK_NDIRECT; i++)
        in->direct[i] = fk_get64(b + 64 + 8 * i);
    in->indirect = fk_get64(b + 192);
    in->ino = fk_get64(b + 200);
}

void fk_inode_encode(const struct fk_inode *in, uint8_t *b)
{
    fk_put32(b, in->mode);
    fk_put32(b + 4, in->uid);
    fk_put32(b + 8, in->gid);
    fk_put32(b + 12, in->nlink);
    fk_put64(b + 16, in->size);
    fk_put64(b + 24, (uint64_t)in->atime);
    fk_put64(b + 32, (uint64_t)in->mtime);
    fk_put64(b + 40, (uint64_t)in->ctime);
    fk_put32(b + 48, in->flags);
    b[52] = in->height;
    memcpy(b + 53, in->resv, 3);
    fk_put64(b + 56, in->generation);
    for (unsigned i = 0; i < FK_NDIRECT; i++)
        fk_put64(b + 64 + 8 * i, in->direct[i]);
    fk_put64(b + 192, in->indirect);
    fk_put64(b + 200, in->ino);
}

int fk_obj_decode(const uint8_t *h, struct fk_obj *o)
{
    uint32_t w = fk_get32(h);
    if ((w & 0xffffff) != FK_OBJ_MAGIC)
        return -1;
    if (fk_get32(h + 44) != fk_crc(h, 44))
        return -2;
    o->type = (uint8_t)(w >> 24);
    o->level = h[4];
    o->flags = h[5];
    o->resv = (uint16_t)(h[6] | h[7] << 8);
    o->len = fk_get32(h + 8);
    o->pcrc = fk_get32(h + 12);
    o->ino = fk_get64(h + 16);
    o->bix = fk_get64(h + 24);
    o->seq = fk_get64(h + 32);
    o->resv2 = fk_get32(h + 40);
    if (o->type < FK_DATA || o->type > FK_INODE || o->level > FK_MAX_HEIGHT ||
        o->len > FK_MAX_OBJ_LEN)
        return -3;
    return 0;
}

void fk_obj_encode(const struct fk_obj *o, uint8_t *h)
{
    memset(h, 0, FK_HDR);
    fk_put32(h, FK_OBJ_MAGIC | (uint32_t)o->type << 24);
    h[4] = o->level;
    fk_put32(h + 8, o->len);
    fk_put32(h + 12, o->pcrc);
    fk_put64(h + 16, o->ino);
    fk_put64(h + 24, o->bix);
    fk_put64(h + 32, o->seq);
    fk_put32(h + 44, fk_crc(h, 44));
}

/* The CRC of the record with bytes 16..19 taken as zero. */
static uint32_t anchor_crc(const uint8_t *b)
{
    static const uint8_t zero[4];
    uint32_t c = flashlab_crc32(0, b, 16);
    c = flashlab_crc32(c, zero, 4);
    return flashlab_crc32(c, b + 20, FK_ANCHOR_BYTES - 20);
}

int fk_anchor_decode(const uint8_t *b, struct fk_anchor *a)
{
    if (fk_get32(b) != FK_ANCHOR_MAGIC || fk_get32(b + 4) != FK_ANCHOR_BYTES ||
        fk_get32(b + 16) != anchor_crc(b))
        return -1;
    memset(a, 0, sizeof *a);
    a->seq = fk_get64(b + 8);
    a->flags = fk_get32(b + 20);
    a->seg_clock = fk_get64(b + 24);
    fk_inode_decode(b + 32, &a->inodefile);
    fk_inode_decode(b + 240, &a->segfile);
    a->next_ino = fk_get64(b + 448);
    a->live_bytes = fk_get64(b + 456);
    a->free_segments = fk_get64(b + 464);
    a->host_bytes_written = fk_get64(b + 472);
    for (unsigned i = 0; i < FK_NAREAS; i++) {
        a->area[i].seg = fk_get32(b + 480 + 8 * i);
        a->area[i].off = fk_get32(b + 484 + 8 * i);
    }
    a->npool = fk_get32(b + 592);
    for (unsigned i = 0; i < FK_POOL_MAX; i++) {
        a->pool[i].seg = fk_get32(b + 596 + 8 * i);
        a->pool[i].erases = fk_get32(b + 600 + 8 * i);
    }
    a->norphans = fk_get32(b + 852);
    for (unsigned i = 0; i < FK_ORPHAN_MAX; i++)
        a->orphans[i] = fk_get64(b + 856 + 8 * i);
    if ((a->flags & ~(FK_ANCHOR_CLEAN | FK_ANCHOR_ORPHAN_SCAN)) ||
        a->inodefile.height > FK_MAX_HEIGHT || a->segfile.height > FK_MAX_HEIGHT ||
        a->npool > FK_POOL_MAX || a->norphans > FK_ORPHAN_MAX)
        return -1;
    return 0;
}

void fk_anchor_encode(const struct fk_anchor *a, uint8_t *b)
{
    memset(b, 0, FK_ANCHOR_BYTES);
    fk_put32(b, FK_ANCHOR_MAGIC);
    fk_put32(b + 4, FK_ANCHOR_BYTES);
    fk_put64(b + 8, a->seq);
    fk_put32(b + 20, a->flags);
    fk_put64(b + 24, a->seg_clock);
    fk_inode_encode(&a->inodefile, b + 32);
    fk_inode_encode(&a->segfile, b + 240);
    fk_put64(b + 448, a->next_ino);
    fk_put64(b + 456, a->live_bytes);
    fk_put64(b + 464, a->free_segments);
    fk_put64(b + 472, a->host_bytes_written);
    for (unsigned i = 0; i < FK_NAREAS; i++) {
        fk_put32(b + 480 + 8 * i, a->area[i].seg);
        fk_put32(b + 484 + 8 * i, a->area[i].off);
    }
    fk_put32(b + 592, a->npool);
    for (unsigned i = 0; i < a->npool && i < FK_POOL_MAX; i++) {
        fk_put32(b + 596 + 8 * i, a->pool[i].seg);
        fk_put32(b + 600 + 8 * i, a->pool[i].erases);
    }
    fk_put32(b + 852, a->norphans);
    for (unsigned i = 0; i < a->norphans && i < FK_ORPHAN_MAX; i++)
        fk_put64(b + 856 + 8 * i, a->orphans[i]);
    fk_put32(b + 16, anchor_crc(b));
}

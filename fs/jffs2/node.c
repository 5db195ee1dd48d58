/* node.c -- the node codec: byte layout, header/node/name CRCs. */
#include "jffs.h"
#include "crc32.h"

#include <errno.h>
#include <string.h>

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
void jffs_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
uint32_t jffs_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put64(uint8_t *p, uint64_t v)
{
    jffs_put32(p, (uint32_t)v);
    jffs_put32(p + 4, (uint32_t)(v >> 32));
}
static uint64_t get64(const uint8_t *p)
{
    return jffs_get32(p) | (uint64_t)jffs_get32(p + 4) << 32;
}

/* the 12-byte common header: magic, type, total length, header CRC */
static void put_hdr(uint8_t *p, uint16_t type, uint32_t totlen)
{
    put16(p, JFFS_MAGIC);
    put16(p + 2, type);
    jffs_put32(p + 4, totlen);
    jffs_put32(p + 8, flashlab_crc32(0, p, 8));
}

int jffs_decode_hdr(const uint8_t *p, int trusted, uint16_t *type, uint32_t *totlen)
{
    if (get16(p) != JFFS_MAGIC || (!trusted && jffs_get32(p + 8) != flashlab_crc32(0, p, 8)))
        return -EINVAL;
    *type = get16(p + 2);
    *totlen = jffs_get32(p + 4);
    return 0;
}

void jffs_encode_inode(uint8_t *b, const struct jffs_raw_inode *ri, const void *data)
{
    uint32_t dlen = ri->flags & JFFS_F_HOLE ? 0 : ri->dsize;
    put_hdr(b, JFFS_T_INODE, JFFS_INODE_HDR + dlen);
    jffs_put32(b + 12, ri->ino);
    jffs_put32(b + 16, ri->flags);
    put64(b + 20, ri->version);
    jffs_put32(b + 28, ri->mode);
    jffs_put32(b + 32, ri->uid);
    jffs_put32(b + 36, ri->gid);
    put64(b + 40, ri->isize);
    put64(b + 48, (uint64_t)ri->atime);
    put64(b + 56, (uint64_t)ri->mtime);
    put64(b + 64, (uint64_t)ri->ctime);
    put64(b + 72, ri->doff);
    jffs_put32(b + 80, ri->dsize);
    jffs_put32(b + 84, dlen ? flashlab_crc32(0, data, dlen) : 0);
    jffs_put32(b + 88, flashlab_crc32(0, b, 88));
    if (dlen)
        memcpy(b + JFFS_INODE_HDR, data, dlen);
}

int jffs_decode_inode(const uint8_t *b, int trusted, struct jffs_raw_inode *ri)
{
    if (!trusted && jffs_get32(b + 88) != flashlab_crc32(0, b, 88))
        return -EINVAL;
    ri->ino = jffs_get32(b + 12);
    ri->flags = jffs_get32(b + 16);
    ri->version = get64(b + 20);
    ri->mode = jffs_get32(b + 28);
    ri->uid = jffs_get32(b + 32);
    ri->gid = jffs_get32(b + 36);
    ri->isize = get64(b + 40);
    ri->atime = (int64_t)get64(b + 48);
    ri->mtime = (int64_t)get64(b + 56);
    ri->ctime = (int64_t)get64(b + 64);
    ri->doff = get64(b + 72);
    ri->dsize = jffs_get32(b + 80);
    ri->dcrc = jffs_get32(b + 84);
    uint32_t dlen = ri->flags & JFFS_F_HOLE ? 0 : ri->dsize;
    if (jffs_get32(b + 4) != JFFS_INODE_HDR + dlen || dlen > JFFS_DATA_MAX || !ri->ino)
        return -EINVAL;
    return 0;
}

uint32_t jffs_encode_dirent(uint8_t *b, const struct jffs_raw_dirent *rd)
{
    uint32_t len = JFFS_DIRENT_HDR + rd->nsize;
    put_hdr(b, JFFS_T_DIRENT, len);
    jffs_put32(b + 12, rd->pino);
    jffs_put32(b + 16, rd->ino);
    put64(b + 20, rd->version);
    put64(b + 28, (uint64_t)rd->mctime);
    b[36] = rd->type;
    b[37] = rd->nsize;
    b[38] = b[39] = 0;
    jffs_put32(b + 40, flashlab_crc32(0, rd->name, rd->nsize));
    jffs_put32(b + 44, flashlab_crc32(0, b, 44));
    memcpy(b + JFFS_DIRENT_HDR, rd->name, rd->nsize);
    return len;
}

int jffs_decode_dirent(const uint8_t *b, uint32_t avail, int trusted,
                       struct jffs_raw_dirent *rd)
{
    if (avail < JFFS_DIRENT_HDR || (!trusted && jffs_get32(b + 44) != flashlab_crc32(0, b, 44)))
        return -EINVAL;
    rd->pino = jffs_get32(b + 12);
    rd->ino = jffs_get32(b + 16);
    rd->version = get64(b + 20);
    rd->mctime = (int64_t)get64(b + 28);
    rd->type = b[36];
    rd->nsize = b[37];
    rd->name_crc = jffs_get32(b + 40);
    if (!rd->nsize || jffs_get32(b + 4) != JFFS_DIRENT_HDR + rd->nsize ||
        avail < JFFS_DIRENT_HDR + rd->nsize)
        return -EINVAL;
    memcpy(rd->name, b + JFFS_DIRENT_HDR, rd->nsize);
    rd->name[rd->nsize] = 0;
    if (memchr(rd->name, 0, rd->nsize) || memchr(rd->name, '/', rd->nsize))
        return -EINVAL;
    if (!trusted && rd->name_crc != flashlab_crc32(0, rd->name, rd->nsize))
        return -EINVAL;
    return 0;
}

uint32_t jffs_fixed_len(const uint8_t *p)
{
    return get16(p + 2) == JFFS_T_INODE ? JFFS_INODE_HDR : JFFS_DIRENT_HDR + p[37];
}

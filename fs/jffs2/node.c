/* node.c -- the node codec: byte layout, header/node/name CRCs. */
#include "jffs.h"
#include "crc32.h"

#include <errno.h>
#include <string.h>

/* the 12-byte common header: magic, type, total length, header CRC */
static void put_hdr(uint8_t *p, uint16_t type, uint32_t totlen)
{
    le16_put(p, JFFS_MAGIC);
    le16_put(p + 2, type);
    le32_put(p + 4, totlen);
    le32_put(p + 8, flashlab_crc32(0, p, 8));
}

int jffs_decode_hdr(const uint8_t *p, int trusted, uint16_t *type, uint32_t *totlen)
{
    if (le16_get(p) != JFFS_MAGIC || (!trusted && le32_get(p + 8) != flashlab_crc32(0, p, 8)))
        return -EINVAL;
    *type = le16_get(p + 2);
    *totlen = le32_get(p + 4);
    return 0;
}

void jffs_encode_inode(uint8_t *b, const struct jffs_raw_inode *ri, const void *data)
{
    uint32_t dlen = ri->flags & JFFS_F_HOLE ? 0 : ri->dsize;
    put_hdr(b, JFFS_T_INODE, JFFS_INODE_HDR + dlen);
    le32_put(b + 12, ri->ino);
    le32_put(b + 16, ri->flags);
    le64_put(b + 20, ri->version);
    le32_put(b + 28, ri->mode);
    le32_put(b + 32, ri->uid);
    le32_put(b + 36, ri->gid);
    le64_put(b + 40, ri->isize);
    le64_put(b + 48, (uint64_t)ri->atime);
    le64_put(b + 56, (uint64_t)ri->mtime);
    le64_put(b + 64, (uint64_t)ri->ctime);
    le64_put(b + 72, ri->doff);
    le32_put(b + 80, ri->dsize);
    le32_put(b + 84, dlen ? flashlab_crc32(0, data, dlen) : 0);
    le32_put(b + 88, flashlab_crc32(0, b, 88));
    if (dlen)
        memcpy(b + JFFS_INODE_HDR, data, dlen);
}

int jffs_decode_inode(const uint8_t *b, int trusted, struct jffs_raw_inode *ri)
{
    if (!trusted && le32_get(b + 88) != flashlab_crc32(0, b, 88))
        return -EINVAL;
    ri->ino = le32_get(b + 12);
    ri->flags = le32_get(b + 16);
    ri->version = le64_get(b + 20);
    ri->mode = le32_get(b + 28);
    ri->uid = le32_get(b + 32);
    ri->gid = le32_get(b + 36);
    ri->isize = le64_get(b + 40);
    ri->atime = (int64_t)le64_get(b + 48);
    ri->mtime = (int64_t)le64_get(b + 56);
    ri->ctime = (int64_t)le64_get(b + 64);
    ri->doff = le64_get(b + 72);
    ri->dsize = le32_get(b + 80);
    ri->dcrc = le32_get(b + 84);
    uint32_t dlen = ri->flags & JFFS_F_HOLE ? 0 : ri->dsize;
    if (le32_get(b + 4) != JFFS_INODE_HDR + dlen || dlen > JFFS_DATA_MAX || !ri->ino)
        return -EINVAL;
    return 0;
}

uint32_t jffs_encode_dirent(uint8_t *b, const struct jffs_raw_dirent *rd)
{
    uint32_t len = JFFS_DIRENT_HDR + rd->nsize;
    put_hdr(b, JFFS_T_DIRENT, len);
    le32_put(b + 12, rd->pino);
    le32_put(b + 16, rd->ino);
    le64_put(b + 20, rd->version);
    le64_put(b + 28, (uint64_t)rd->mctime);
    b[36] = rd->type;
    b[37] = rd->nsize;
    b[38] = b[39] = 0;
    le32_put(b + 40, flashlab_crc32(0, rd->name, rd->nsize));
    le32_put(b + 44, flashlab_crc32(0, b, 44));
    memcpy(b + JFFS_DIRENT_HDR, rd->name, rd->nsize);
    return len;
}

int jffs_decode_dirent(const uint8_t *b, uint32_t avail, int trusted,
                       struct jffs_raw_dirent *rd)
{
    if (avail < JFFS_DIRENT_HDR || (!trusted && le32_get(b + 44) != flashlab_crc32(0, b, 44)))
        return -EINVAL;
    rd->pino = le32_get(b + 12);
    rd->ino = le32_get(b + 16);
    rd->version = le64_get(b + 20);
    rd->mctime = (int64_t)le64_get(b + 28);
    rd->type = b[36];
    rd->nsize = b[37];
    rd->name_crc = le32_get(b + 40);
    if (!rd->nsize || le32_get(b + 4) != JFFS_DIRENT_HDR + rd->nsize ||
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
    return le16_get(p + 2) == JFFS_T_INODE ? JFFS_INODE_HDR : JFFS_DIRENT_HDR + p[37];
}

/* node.c -- the node codec: Linux's struct jffs2_raw_inode and
 * jffs2_raw_dirent byte for byte, with their header, node and name CRCs. */
#include "jffs.h"
#include "crc32.h"

#include <errno.h>
#include <string.h>

/* Linux's crc32(0, p, n) is crc32_le with no pre- or post-inversion;
 * zlib's (flashlab_crc32) inverts both ends. */
uint32_t jffs_crc(const void *p, size_t n)
{
    return ~flashlab_crc32(0xffffffffu, p, n);
}

/* the 12-byte common header: magic, type, total length, header CRC */
static void put_hdr(uint8_t *p, uint16_t type, uint32_t totlen)
{
    le16_put(p, JFFS_MAGIC);
    le16_put(p + 2, type);
    le32_put(p + 4, totlen);
    le32_put(p + 8, jffs_crc(p, 8));
}

int jffs_decode_hdr(const uint8_t *p, int trusted, uint16_t *type, uint32_t *totlen)
{
    if (le16_get(p) != JFFS_MAGIC || (!trusted && le32_get(p + 8) != jffs_crc(p, 8)))
        return -EINVAL;
    *type = le16_get(p + 2);
    *totlen = le32_get(p + 4);
    return 0;
}

void jffs_cleanmarker(uint8_t out[JFFS_CLEANMARKER_LEN])
{
    le16_put(out, JFFS_MAGIC);
    le16_put(out + 2, JFFS_T_CLEANMARKER);
    le32_put(out + 4, JFFS_CLEANMARKER_LEN);
}

/* ns in RAM, whole seconds (u32) on flash */
static uint32_t secs(int64_t ns)
{
    return ns <= 0 ? 0 : (uint32_t)(ns / JFFS_NS);
}

void jffs_encode_inode(uint8_t *b, const struct jffs_raw_inode *ri, const void *cdata)
{
    put_hdr(b, JFFS_T_INODE, JFFS_INODE_HDR + ri->csize);
    le32_put(b + 12, ri->ino);
    le32_put(b + 16, ri->version);
    le32_put(b + 20, ri->mode);
    le16_put(b + 24, ri->uid);
    le16_put(b + 26, ri->gid);
    le32_put(b + 28, ri->isize);
    le32_put(b + 32, secs(ri->atime));
    le32_put(b + 36, secs(ri->mtime));
    le32_put(b + 40, secs(ri->ctime));
    le32_put(b + 44, ri->doff);
    le32_put(b + 48, ri->csize);
    le32_put(b + 52, ri->dsize);
    b[56] = ri->compr;
    b[57] = ri->usercompr;
    le16_put(b + 58, ri->flags);
    le32_put(b + 60, jffs_crc(cdata, ri->csize));
    le32_put(b + 64, jffs_crc(b, 60));
    if (ri->csize)
        memcpy(b + JFFS_INODE_HDR, cdata, ri->csize);
}

int jffs_decode_inode(const uint8_t *b, int trusted, struct jffs_raw_inode *ri)
{
    if (!trusted && le32_get(b + 64) != jffs_crc(b, 60))
        return -EINVAL;
    ri->ino = le32_get(b + 12);
    ri->version = le32_get(b + 16);
    ri->mode = le32_get(b + 20);
    ri->uid = le16_get(b + 24);
    ri->gid = le16_get(b + 26);
    ri->isize = le32_get(b + 28);
    ri->atime = (int64_t)le32_get(b + 32) * JFFS_NS;
    ri->mtime = (int64_t)le32_get(b + 36) * JFFS_NS;
    ri->ctime = (int64_t)le32_get(b + 40) * JFFS_NS;
    ri->doff = le32_get(b + 44);
    ri->csize = le32_get(b + 48);
    ri->dsize = le32_get(b + 52);
    ri->compr = b[56];
    ri->usercompr = b[57];
    ri->flags = le16_get(b + 58);
    ri->dcrc = le32_get(b + 60);
    /* a ZERO node (a hole) carries no data whatever its dsize */
    uint32_t clen = ri->compr == JFFS_COMPR_ZERO ? 0 : ri->csize;
    if (le32_get(b + 4) != JFFS_INODE_HDR + clen || !ri->ino || ri->ino >= JFFS_INO_MAX ||
        (ri->compr != JFFS_COMPR_ZERO && (ri->dsize > JFFS_DATA_MAX || clen > JFFS_CDATA_MAX)) ||
        (ri->compr == JFFS_COMPR_NONE && clen != ri->dsize) ||
        (uint64_t)ri->doff + ri->dsize > 0xffffffffull)
        return -EINVAL;
    return 0;
}

uint32_t jffs_encode_dirent(uint8_t *b, const struct jffs_raw_dirent *rd)
{
    uint32_t len = JFFS_DIRENT_HDR + rd->nsize;
    put_hdr(b, JFFS_T_DIRENT, len);
    le32_put(b + 12, rd->pino);
    le32_put(b + 16, rd->version);
    le32_put(b + 20, rd->ino);
    le32_put(b + 24, secs(rd->mctime));
    b[28] = rd->nsize;
    b[29] = rd->type;
    b[30] = b[31] = 0;
    le32_put(b + 32, jffs_crc(b, 32));
    le32_put(b + 36, jffs_crc(rd->name, rd->nsize));
    memcpy(b + JFFS_DIRENT_HDR, rd->name, rd->nsize);
    return len;
}

int jffs_decode_dirent(const uint8_t *b, uint32_t avail, int trusted,
                       struct jffs_raw_dirent *rd)
{
    if (avail < JFFS_DIRENT_HDR || (!trusted && le32_get(b + 32) != jffs_crc(b, 32)))
        return -EINVAL;
    rd->pino = le32_get(b + 12);
    rd->version = le32_get(b + 16);
    rd->ino = le32_get(b + 20);
    rd->mctime = (int64_t)le32_get(b + 24) * JFFS_NS;
    rd->nsize = b[28];
    rd->type = b[29];
    rd->name_crc = le32_get(b + 36);
    if (!rd->nsize || le32_get(b + 4) != JFFS_DIRENT_HDR + rd->nsize ||
        avail < JFFS_DIRENT_HDR + rd->nsize || !rd->pino || rd->pino >= JFFS_INO_MAX ||
        rd->ino >= JFFS_INO_MAX)
        return -EINVAL;
    memcpy(rd->name, b + JFFS_DIRENT_HDR, rd->nsize);
    rd->name[rd->nsize] = 0;
    if (memchr(rd->name, 0, rd->nsize) || memchr(rd->name, '/', rd->nsize) ||
        !strcmp(rd->name, ".") || !strcmp(rd->name, ".."))
        return -EINVAL;
    if (!trusted && rd->name_crc != jffs_crc(rd->name, rd->nsize))
        return -EINVAL;
    return 0;
}

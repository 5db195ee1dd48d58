/* codec.c -- encode and decode the fixed-size on-flash records. */
#include "format.h"
#include "crc32.h"

#include <errno.h>
#include <string.h>

uint32_t lfs_crc(const void *buf, size_t len)
{
    return flashlab_crc32(0, buf, len);
}

/* All n bytes equal v: the first is v and every byte equals the next,
 * which memcmp checks with vector compares.  The cleaner checks every
 * padded page tail with it (commits leave pages of higher tree levels
 * mostly padding: 3.5 KiB a call on 4 KiB pages), the commit every
 * indirect block it writes; byte by byte, each was about 5 % of the
 * steady state, and eight bytes at a time still 2-5 %. */
int lfs_all_bytes(const uint8_t *p, uint32_t n, uint8_t v)
{
    return !n || (p[0] == v && !memcmp(p, p + 1, n - 1));
}

int lfs_errno(int nrc)
{
    switch (nrc) {
    case NAND_OK: return 0;
    case NAND_E_NOMEM: return -ENOMEM;
    case NAND_E_POWER: return -EIO;
    case NAND_E_INVAL:
    case NAND_E_ADDR: return -EINVAL;
    default: return -EIO;
    }
}

int lfs_flash_rc(int nrc)
{
    if (nrc == NAND_E_PROGRAM_FAIL || nrc == NAND_E_ERASE_FAIL)
        return LFS_E_RETIRE;
    return lfs_errno(nrc);
}

/* ---- object header ------------------------------------------------------
 *  0 u32 magic "OBJ" | type << 24   4 u8 level   5 u8 compression
 *  6 u16 reserved (0)  8 u32 payload length  12 u32 payload CRC
 * 16 u64 inode  24 u64 block index  32 u64 commit sequence
 * 40 u32 decompressed length (0 if raw)  44 u32 CRC of bytes 0..43
 * Format 4 wrote bytes 5 and 40..43 as zero: its objects are raw. */

void lfs_obj_encode(const struct lfs_obj *o, uint8_t out[LFS_OBJ_HDR])
{
    memset(out, 0, LFS_OBJ_HDR);
    le32_put(out, LFS_OBJ_MAGIC | (uint32_t)o->type << 24);
    out[4] = o->level;
    out[5] = o->compr;
    le32_put(out + 8, o->len);
    le32_put(out + 12, o->payload_crc);
    le64_put(out + 16, o->ino);
    le64_put(out + 24, o->bix);
    le64_put(out + 32, o->seq);
    le32_put(out + 40, o->compr ? o->raw_len : 0);
    le32_put(out + 44, lfs_crc(out, 44));
}

int lfs_obj_decode(const uint8_t in[LFS_OBJ_HDR], struct lfs_obj *o)
{
    uint32_t w = le32_get(in);
    if ((w & 0xffffff) != LFS_OBJ_MAGIC || le32_get(in + 44) != lfs_crc(in, 44))
        return -EINVAL;
    o->type = (uint8_t)(w >> 24);
    o->level = in[4];
    o->compr = in[5];
    o->len = le32_get(in + 8);
    o->payload_crc = le32_get(in + 12);
    o->ino = le64_get(in + 16);
    o->bix = le64_get(in + 24);
    o->seq = le64_get(in + 32);
    o->raw_len = o->compr ? le32_get(in + 40) : 0;
    if (o->type < LFS_OBJ_DATA || o->type > LFS_OBJ_INODE ||
        o->level > LFS_MAX_HEIGHT || o->len > 0xffff - LFS_OBJ_HDR)
        return -EINVAL;
    /* only data blocks are compressed, by a known method */
    if (o->compr >= LFS_COMPR_METHODS || (o->compr && o->type != LFS_OBJ_DATA))
        return -EINVAL;
    return 0;
}

/* ---- inode ----------------------------------------------------------------
 *  0 u32 mode  4 u32 uid  8 u32 gid  12 u32 nlink  16 u64 size
 * 24 i64 atime  32 i64 mtime  40 i64 ctime (ns)  48 u32 flags  52 u8 height
 * 53..55 zero  56 u64 generation  64 u64 direct[16]  192 u64 indirect
 * 200 u64 inode number  -- format 3 ends here (208 bytes) --
 * 208 u64 rdev  216 u64 xattr inode  224 u64 blocks (format 6; zero
 * before)  232..255 zero */

uint32_t lfs_inode_encode(const struct lfs_inode *in, uint8_t *out, uint32_t version)
{
    uint32_t n = version == 3 ? LFS_INODE_BYTES_V3 : LFS_INODE_BYTES;
    memset(out, 0, n);
    le32_put(out, in->mode);
    le32_put(out + 4, in->uid);
    le32_put(out + 8, in->gid);
    le32_put(out + 12, in->nlink);
    le64_put(out + 16, in->size);
    le64_put(out + 24, (uint64_t)in->atime);
    le64_put(out + 32, (uint64_t)in->mtime);
    le64_put(out + 40, (uint64_t)in->ctime);
    le32_put(out + 48, in->flags);
    out[52] = in->height;
    le64_put(out + 56, in->generation);
    for (unsigned i = 0; i < LFS_NDIRECT; i++)
        le64_put(out + 64 + 8 * i, in->direct[i]);
    le64_put(out + 192, in->indirect);
    le64_put(out + 200, in->ino);
    if (n > LFS_INODE_BYTES_V3) {
        le64_put(out + 208, in->rdev);
        le64_put(out + 216, in->xattr);
    }
    if (version >= LFS_PREALLOC_VERSION)
        le64_put(out + 224, in->blocks);
    return n;
}

int lfs_inode_decode(const uint8_t *buf, uint32_t len, struct lfs_inode *in)
{
    if (len < LFS_INODE_BYTES_V3)
        return -EINVAL;
    in->mode = le32_get(buf);
    in->uid = le32_get(buf + 4);
    in->gid = le32_get(buf + 8);
    in->nlink = le32_get(buf + 12);
    in->size = le64_get(buf + 16);
    in->atime = (int64_t)le64_get(buf + 24);
    in->mtime = (int64_t)le64_get(buf + 32);
    in->ctime = (int64_t)le64_get(buf + 40);
    in->flags = le32_get(buf + 48);
    in->height = buf[52];
    in->generation = le64_get(buf + 56);
    for (unsigned i = 0; i < LFS_NDIRECT; i++)
        in->direct[i] = le64_get(buf + 64 + 8 * i);
    in->indirect = le64_get(buf + 192);
    in->ino = le64_get(buf + 200);
    in->rdev = len >= LFS_INODE_BYTES ? le64_get(buf + 208) : 0;
    in->xattr = len >= LFS_INODE_BYTES ? le64_get(buf + 216) : 0;
    in->blocks = len >= LFS_INODE_BYTES ? le64_get(buf + 224) : 0; /* zero before format 6 */
    uint32_t known = LFS_INODE_XATTRS | LFS_INODE_ATTRS;
    return in->height > LFS_MAX_HEIGHT || (in->flags & ~known) ? -EINVAL : 0;
}

/* ---- superblock -------------------------------------------------------------
 *  0 magic[8]  8 u32 read version  12 u32 write version  16 u32 block size
 * 20 u32 page size  24 u32 pages per block  28 u32 anchor count
 * 32 u64 erase blocks  40 u32 reserve segments  44 u32 backup block
 * 48 u32 anchor blocks[16]  112 u64 fs id  120 u32 data segments
 * 124 u32 compression (format 5; zero before)  128..251 zero  252 u32 CRC */

void lfs_super_encode(const struct lfs_super *sb, uint8_t out[LFS_SB_SIZE])
{
    memset(out, 0, LFS_SB_SIZE);
    memcpy(out, LFS_SB_MAGIC, 8);
    le32_put(out + 8, sb->read_version);
    le32_put(out + 12, sb->write_version);
    le32_put(out + 16, sb->block_size);
    le32_put(out + 20, sb->page_size);
    le32_put(out + 24, sb->pages_per_block);
    le32_put(out + 28, sb->anchor_count);
    le64_put(out + 32, sb->nblocks);
    le32_put(out + 40, sb->reserve_segments);
    le32_put(out + 44, sb->backup_block);
    for (unsigned i = 0; i < LFS_MAX_ANCHOR_BLOCKS; i++)
        le32_put(out + 48 + 4 * i, sb->anchor_blocks[i]);
    le64_put(out + 112, sb->fs_id);
    le32_put(out + 120, sb->segments);
    if (sb->read_version >= LFS_COMPR_VERSION)
        le32_put(out + 124, sb->compress);
    le32_put(out + 252, lfs_crc(out, 252));
}

int lfs_super_decode(const uint8_t in[LFS_SB_SIZE], struct lfs_super *sb)
{
    if (memcmp(in, LFS_SB_MAGIC, 8) || le32_get(in + 252) != lfs_crc(in, 252))
        return -EINVAL;
    sb->read_version = le32_get(in + 8);
    sb->write_version = le32_get(in + 12);
    sb->block_size = le32_get(in + 16);
    sb->page_size = le32_get(in + 20);
    sb->pages_per_block = le32_get(in + 24);
    sb->anchor_count = le32_get(in + 28);
    sb->nblocks = le64_get(in + 32);
    sb->reserve_segments = le32_get(in + 40);
    sb->backup_block = le32_get(in + 44);
    for (unsigned i = 0; i < LFS_MAX_ANCHOR_BLOCKS; i++)
        sb->anchor_blocks[i] = le32_get(in + 48 + 4 * i);
    sb->fs_id = le64_get(in + 112);
    sb->segments = le32_get(in + 120);
    sb->compress = sb->read_version >= LFS_COMPR_VERSION ? le32_get(in + 124) : LFS_COMPR_NONE;
    if (sb->read_version < LFS_OLDEST_READ_VERSION || sb->read_version > LFS_READ_VERSION)
        return -EPROTO;
    if (sb->compress >= LFS_COMPR_METHODS)
        return -EINVAL;
    if (sb->anchor_count == 0 || sb->anchor_count > LFS_MAX_ANCHOR_BLOCKS ||
        (sb->read_version >= 4 && sb->anchor_count % 2))
        return -EINVAL; /* format 4's ring is two mirrors */
    /* formats 4 and 5 are written as they are (no compression in 4, no
     * preallocation in either); format 3 is read, never written */
    if ((sb->read_version == LFS_PLAIN_VERSION || sb->read_version == LFS_COMPR_VERSION) &&
        sb->write_version == sb->read_version)
        return 0;
    return sb->read_version != LFS_READ_VERSION ||
           sb->write_version != LFS_WRITE_VERSION ? -EROFS : 0;
}

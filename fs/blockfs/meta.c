/*
 * meta.c -- the inode table, the bitmap and the superblock, held
 * whole in RAM and written back block by block at the end of every call
 * that changed them (synchronous metadata, as FAT or ext2 -o sync).  That
 * write is what wears the metadata erase blocks: each goes through the
 * read-modify-erase-write of its erase block.
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <string.h>

int bf_valid_block(const struct blockfs *fs, uint32_t b)
{
    return b >= fs->data_start && b < fs->nblocks;
}

static void bit_set(struct blockfs *fs, uint32_t b, int v)
{
    if (v)
        fs->bitmap[b / 8] |= (uint8_t)(1u << (b % 8));
    else
        fs->bitmap[b / 8] &= (uint8_t)~(1u << (b % 8));
    fs->bdirty[b / 8 / fs->bs] = 1;
    fs->sbdirty = 1;
}

static int bit_get(const struct blockfs *fs, uint32_t b)
{
    return fs->bitmap[b / 8] >> (b % 8) & 1;
}

/* First fit from the bottom: no wear leveling, on purpose. */
int bf_balloc(struct blockfs *fs, uint32_t *out)
{
    if (!fs->sb.free_blocks)
        return -ENOSPC;
    uint32_t b = fs->bscan < fs->data_start ? fs->data_start : fs->bscan;
    while (b < fs->nblocks && bit_get(fs, b))
        b++;
    if (b >= fs->nblocks)
        return -ENOSPC;
    bit_set(fs, b, 1);
    fs->bscan = b + 1;
    fs->sb.free_blocks--;
    *out = b;
    return 0;
}

void bf_bfree(struct blockfs *fs, uint32_t b)
{
    if (!bf_valid_block(fs, b) || !bit_get(fs, b))
        return; /* a corrupt pointer: leave the bitmap alone */
    bit_set(fs, b, 0);
    fs->sb.free_blocks++;
    if (b < fs->bscan)
        fs->bscan = b;
}

void bf_idirty(struct blockfs *fs, uint32_t ino)
{
    fs->idirty[(uint64_t)ino * sizeof(struct bf_inode) / fs->bs] = 1;
}

int bf_ialloc(struct blockfs *fs, uint32_t mode, uint32_t *out)
{
    for (uint32_t i = BF_ROOT + 1; i < fs->sb.inodes; i++) {
        if (fs->itab[i].mode)
            continue;
        struct bf_inode *in = &fs->itab[i];
        memset(in, 0, sizeof *in);
        in->mode = mode;
        in->atime = in->mtime = in->ctime = bf_now(fs);
        fs->sb.free_inodes--;
        fs->sbdirty = 1;
        bf_idirty(fs, i);
        *out = i;
        return 0;
    }
    return -ENOSPC;
}

int bf_ifree(struct blockfs *fs, uint32_t ino)
{
    int rc = bf_free_range(fs, ino, 0, UINT64_MAX);
    memset(&fs->itab[ino], 0, sizeof fs->itab[ino]);
    fs->sb.free_inodes++;
    fs->sbdirty = 1;
    bf_idirty(fs, ino);
    return rc;
}

/* An inode with no names and no open fds goes away. */
int bf_release(struct blockfs *fs, uint32_t ino)
{
    struct bf_inode *in = &fs->itab[ino];
    if (in->mode && !in->nlink && !fs->opens[ino])
        return bf_ifree(fs, ino);
    return 0;
}

/* Superblock first, then the table, then the bitmap: three erase blocks
 * rewritten for one allocation. */
int bf_meta_flush(struct blockfs *fs)
{
    int rc = 0;
    if (bf_failed(fs))
        return -EIO;
    if (fs->sbdirty) {
        /* block 0: the superblock, then zeros */
        memset(fs->scratch, 0, fs->bs);
        memcpy(fs->scratch, &fs->sb, sizeof fs->sb);
        if ((rc = bf_write_block(fs, 0, fs->scratch)))
            return rc;
        fs->sbdirty = 0;
    }
    for (uint32_t i = 0; i < fs->inode_blocks; i++) {
        if (!fs->idirty[i])
            continue;
        if ((rc = bf_write_block(fs, fs->inode_start + i, (uint8_t *)fs->itab + (size_t)i * fs->bs)))
            return rc;
        fs->idirty[i] = 0;
    }
    for (uint32_t i = 0; i < fs->bitmap_blocks; i++) {
        if (!fs->bdirty[i])
            continue;
        if ((rc = bf_write_block(fs, fs->bitmap_start + i, fs->bitmap + (size_t)i * fs->bs)))
            return rc;
        fs->bdirty[i] = 0;
    }
    return 0;
}

/* The end of every call that may have changed metadata. */
int bf_op_end(struct blockfs *fs, int rc)
{
    int frc = bf_meta_flush(fs);
    return rc < 0 ? rc : frc ? frc : rc;
}

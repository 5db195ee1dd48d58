/*
 * mount.c -- mount reads the superblock, the whole inode table and
 * the whole bitmap (small, fixed size), checks every page's CRC, and frees
 * inodes left without a name by a crash (open-unlinked files).  Unmount
 * closes what is open, syncs and frees.
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void fs_free(struct blockfs *fs)
{
    free(fs->itab);
    free(fs->bitmap);
    free(fs->idirty);
    free(fs->bdirty);
    free(fs->opens);
    fs_fdtab_free(&fs->fds);
    free(fs->scratch);
    free(fs);
}

static int read_region(struct blockfs *fs, uint32_t start, uint32_t n, uint8_t *dst)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = bf_read_block(fs, start + i, dst + (size_t)i * fs->bs);
        if (rc)
            return rc;
    }
    return 0;
}

/* An inode that the code could trip over: a bad type, pointers off the
 * data region, a directory larger than the device. */
static int inode_sane(const struct blockfs *fs, const struct bf_inode *in)
{
    uint32_t t = in->mode & S_IFMT;
    if (t != S_IFREG && t != S_IFDIR && t != S_IFLNK)
        return 0;
    for (uint32_t i = 0; i < BF_NDIRECT; i++)
        if (in->direct[i] && !bf_valid_block(fs, in->direct[i]))
            return 0;
    if ((in->ind && !bf_valid_block(fs, in->ind)) || (in->dind && !bf_valid_block(fs, in->dind)))
        return 0;
    if (t == S_IFDIR && ((uint64_t)in->slots > (uint64_t)fs->nblocks * fs->epb ||
                         in->size > in->slots || in->parent >= fs->sb.inodes))
        return 0;
    return 1;
}

int bf_read_super(struct blockfs *fs)
{
    uint8_t *page = malloc(fs->ps);
    if (!page)
        return -ENOMEM;
    int rc = blk_read(fs->bd, 0, 1, page);
    if (!rc) {
        memcpy(&fs->sb, page, sizeof fs->sb);
        if (memcmp(fs->sb.magic, BF_MAGIC, 8) || fs->sb.version != BF_VERSION)
            rc = -EINVAL; /* not a blockfs */
    }
    free(page);
    if (rc)
        return rc;
    struct bf_super want;
    rc = bf_layout(fs->ps, fs->ppb, fs->nebs, fs->sb.block_size, fs->sb.inodes, &want);
    if (rc || want.n_ebs != fs->sb.n_ebs || want.page_size != fs->sb.page_size ||
        want.pages_per_block != fs->sb.pages_per_block || want.data_eb != fs->sb.data_eb ||
        fs->sb.root != BF_ROOT)
        return -EINVAL; /* another device, or a corrupt superblock */
    return 0;
}

static int load(struct blockfs *fs)
{
    int rc = bf_read_super(fs);
    if (rc)
        return rc;
    bf_geometry(fs);
    fs->itab = calloc(fs->inode_blocks, fs->bs);
    fs->bitmap = calloc(fs->bitmap_blocks, fs->bs);
    fs->idirty = calloc(fs->inode_blocks, 1);
    fs->bdirty = calloc(fs->bitmap_blocks, 1);
    fs->opens = calloc(fs->sb.inodes, sizeof *fs->opens);
    fs->scratch = malloc(fs->bs);
    if (!fs->itab || !fs->bitmap || !fs->idirty || !fs->bdirty || !fs->opens || !fs->scratch)
        return -ENOMEM;
    if ((rc = read_region(fs, fs->inode_start, fs->inode_blocks, (uint8_t *)fs->itab)) ||
        (rc = read_region(fs, fs->bitmap_start, fs->bitmap_blocks, fs->bitmap)))
        return rc;
    /* the counts are the bitmap's and the table's, whatever the
     * superblock says after a crash */
    uint32_t used = 0, free_blocks = 0;
    for (uint32_t b = fs->data_start; b < fs->nblocks; b++)
        free_blocks += !(fs->bitmap[b / 8] >> (b % 8) & 1);
    if (!S_ISDIR(fs->itab[BF_ROOT].mode))
        return -EIO;
    for (uint32_t i = 1; i < fs->sb.inodes; i++) {
        if (!fs->itab[i].mode)
            continue;
        if (!inode_sane(fs, &fs->itab[i]))
            return -EIO;
        used++;
    }
    fs->work.nodes_indexed = used;
    fs->sb.free_blocks = free_blocks;
    fs->sb.free_inodes = fs->sb.inodes - 1 - used;
    return 0;
}

int bf_mount(nand_dev *dev, const char *options, void **out)
{
    struct bf_opts o;
    int rc = bf_parse_opts(options, &o, 1); /* block_size, inodes: mkfs only */
    if (rc)
        return rc;
    struct blockfs *fs = calloc(1, sizeof *fs);
    if (!fs)
        return -ENOMEM;
    fs->cache = o.cache;
    if ((rc = bf_dev_open(dev, &o, 0, fs))) {
        free(fs);
        return rc;
    }
    rc = load(fs);
    if (rc && o.dev == BF_DEV_ANY && blk_ftl_probe(dev) == 1) {
        /* no blockfs on the raw pages, but an FTL: blockfs on it? (probed
         * only now, so that a mount on the in-place map reads as before) */
        blk_close(fs->bd);
        o.dev = BF_DEV_FTL;
        rc = bf_dev_open(dev, &o, 0, fs);
        if (rc) {
            free(fs);
            return rc;
        }
        rc = load(fs);
    }
    struct blk_stats st;
    blk_get_stats(fs->bd, &st);
    fs->work.bytes_checksummed = st.bytes_checksummed;
    blk_reset_stats(fs->bd);
    /* crash leftovers: inodes with no name (unlinked while open) */
    for (uint32_t i = BF_ROOT + 1; !rc && i < fs->sb.inodes; i++)
        if (fs->itab[i].mode && !fs->itab[i].nlink)
            bf_ifree(fs, i);
    if (!rc)
        rc = bf_op_end(fs, 0);
    if (rc) {
        blk_close(fs->bd);
        fs_free(fs);
        return rc;
    }
    *out = fs;
    return 0;
}

int bf_sync(void *vfs)
{
    struct blockfs *fs = vfs;
    int rc = bf_meta_flush(fs);
    return rc ? rc : bf_cache_flush(fs);
}

int bf_unmount(void *vfs)
{
    struct blockfs *fs = vfs;
    for (int fd = fs_fd_next(&fs->fds, 0); fd >= 0; fd = fs_fd_next(&fs->fds, fd + 1))
        bf_close(fs, fd);
    int rc = bf_failed(fs) ? -EIO : bf_sync(fs);
    int crc = blk_close(fs->bd);
    rc = rc ? rc : crc;
    fs_free(fs);
    return rc;
}

uint64_t bf_mem_bytes(void *vfs)
{
    struct blockfs *fs = vfs;
    return sizeof *fs + (uint64_t)fs->inode_blocks * fs->bs +
           (uint64_t)fs->bitmap_blocks * fs->bs + fs->inode_blocks + fs->bitmap_blocks +
           (uint64_t)fs->sb.inodes * sizeof *fs->opens + fs_fdtab_bytes(&fs->fds) +
           blk_mem_bytes(fs->bd) + fs->bs;
}

void bf_mount_work(void *vfs, struct fsapi_mount_work *w)
{
    *w = ((struct blockfs *)vfs)->work;
}

void blockfs_get_layout(void *vfs, struct blockfs_layout *l)
{
    struct blockfs *fs = vfs;
    l->block_size = fs->bs;
    l->blocks_per_eb = fs->bpe;
    l->pages_per_block = fs->ppfb;
    l->inodes = fs->sb.inodes;
    l->n_ebs = fs->sb.n_ebs;
    l->inode_eb = fs->sb.inode_eb;
    l->inode_ebs = fs->sb.inode_ebs;
    l->bitmap_eb = fs->sb.bitmap_eb;
    l->bitmap_ebs = fs->sb.bitmap_ebs;
    l->data_eb = fs->sb.data_eb;
}

void blockfs_get_stats(void *vfs, struct blockfs_stats *st)
{
    struct blockfs *fs = vfs;
    struct blk_stats b;
    blk_get_stats(fs->bd, &b);
    st->write_backs = b.erases;
    st->eb_loads = b.blocks_loaded;
    st->block_writes = fs->block_writes;
    st->pages_lost = b.pages_lost;
    st->pages_corrupt = b.pages_corrupt;
}

const char *blockfs_block_role(void *vfs, uint32_t eb)
{
    struct blockfs *fs = vfs;
    return eb == 0 ? "superblock"
         : eb < fs->sb.bitmap_eb ? "inodes"
         : eb < fs->sb.data_eb ? "bitmap"
         : eb < fs->sb.n_ebs ? "data" : "unused";
}

/*
 * blkio.c -- blockfs on its block device (blk/blk.h): an fs block is
 * block_size / sector consecutive sectors.  On the in-place map (the
 * default) a sector is a page and the device holds one erase block dirty
 * until another is written or a flush; with cache=0 every block write is
 * flushed at once.  On the FTL the fs's "erase blocks" (its layout's
 * alignment unit) are the device's erase-block size in logical sectors.
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <string.h>

int bf_dev_open(nand_dev *dev, const struct bf_opts *o, int mkfs, struct blockfs *fs)
{
    char err[256];
    int rc;
    fs->dev = dev;
    if (o->dev == BF_DEV_FTL) {
        if (mkfs && (rc = blk_ftl_format(dev, o->dev_opts, err, sizeof err)))
            return rc;
        rc = blk_ftl_open(dev, o->dev_opts, &fs->bd, err, sizeof err);
    } else {
        rc = blk_inplace_open(dev, o->dev_opts, &fs->bd, err, sizeof err);
    }
    if (rc)
        return rc;
    const struct nand_config *c = nand_get_config(dev);
    uint64_t ebytes = (uint64_t)c->geo.page_size * c->geo.pages_per_block;
    fs->ps = blk_sector_size(fs->bd);
    fs->ppb = (uint32_t)(ebytes / fs->ps);
    fs->nebs = blk_sectors(fs->bd) / fs->ppb;
    return 0;
}

int bf_failed(const struct blockfs *fs)
{
    return blk_write_failed(fs->bd);
}

/* Blocks in use always hold written sectors: one the device cannot
 * return (erased or torn on the in-place map) is data lost, -EIO. */
int bf_read_block(struct blockfs *fs, uint32_t blk, void *buf)
{
    if (blk >= fs->nblocks)
        return -EIO;
    uint32_t n = fs->bs / fs->ps;
    return blk_read(fs->bd, (uint64_t)blk * n, n, buf);
}

int bf_write_block(struct blockfs *fs, uint32_t blk, const void *buf)
{
    if (bf_failed(fs) || blk >= fs->nblocks)
        return -EIO;
    uint32_t n = fs->bs / fs->ps;
    int rc = blk_write(fs->bd, (uint64_t)blk * n, n, buf);
    if (rc)
        return rc;
    fs->block_writes++;
    return fs->cache ? 0 : bf_cache_flush(fs);
}

int bf_cache_flush(struct blockfs *fs)
{
    return blk_flush(fs->bd);
}

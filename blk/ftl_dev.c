/* ftl_dev.c -- the FTL as a block device: blk.h's calls on a struct
 * ftl_dev (the I/O itself is ftl_io.c's). */
#include "ftl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct ftl_dev *ftl_of(blk_dev *b)
{
    return (struct ftl_dev *)b;
}

static const struct ftl_dev *cftl_of(const blk_dev *b)
{
    return (const struct ftl_dev *)b;
}

static uint32_t dev_sector_size(const blk_dev *b)
{
    return cftl_of(b)->ss;
}

static uint64_t dev_sectors(const blk_dev *b)
{
    return cftl_of(b)->sb.sectors;
}

int ftl_read_host(struct ftl_dev *d, uint64_t first, uint32_t count, void *buf)
{
    for (uint64_t s = first; d->damaged && s - first < count && s < d->sb.sectors; s++)
        if (d->damaged[s / 8] >> (s % 8) & 1)
            return -EIO;
    return ftl_read(d, first, count, buf);
}

static int dev_read(blk_dev *b, uint64_t first, uint32_t count, void *buf)
{
    struct ftl_dev *d = ftl_of(b);
    return d->cache ? ftl_cache_read(d, first, count, buf) : ftl_read_host(d, first, count, buf);
}

static int dev_write(blk_dev *b, uint64_t first, uint32_t count, const void *buf)
{
    struct ftl_dev *d = ftl_of(b);
    return d->cache ? ftl_cache_write(d, first, count, buf) : ftl_write(d, first, count, buf);
}

static int dev_trim(blk_dev *b, uint64_t first, uint64_t count)
{
    struct ftl_dev *d = ftl_of(b);
    return d->cache ? ftl_cache_trim(d, first, count) : ftl_trim(d, first, count);
}

static int dev_flush(blk_dev *b)
{
    struct ftl_dev *d = ftl_of(b);
    return d->cache ? ftl_cache_flush(d) : ftl_flush(d);
}

static void dev_get_stats(const blk_dev *b, struct blk_stats *st)
{
    const struct ftl_dev *d = cftl_of(b);
    *st = d->st;
    st->free_blocks = st->bad_blocks = 0;
    for (uint32_t p = 0; p < d->nplanes; p++)
        st->free_blocks += d->plane[p].nfree;
    for (uint32_t k = 0; k < d->nblocks; k++)
        st->bad_blocks += d->blk[k].state == FTL_B_BAD;
}

static void dev_reset_stats(blk_dev *b)
{
    struct ftl_dev *d = ftl_of(b);
    uint64_t mount = d->st.mount_pages_read;
    memset(&d->st, 0, sizeof d->st);
    d->st.mount_pages_read = mount;
}

static void dev_set_gc_observer(blk_dev *b, blk_gc_observer fn, void *ctx)
{
    struct ftl_dev *d = ftl_of(b);
    d->gc_fn = fn;
    d->gc_ctx = ctx;
}

static const char *dev_gc_policy(const blk_dev *b)
{
    return cftl_of(b)->o.policy->name;
}

static uint64_t dev_mem_bytes(const blk_dev *b)
{
    const struct ftl_dev *d = cftl_of(b);
    return sizeof *d + d->sb.sectors * (sizeof *d->l2p + sizeof *d->stale) +
           (d->damaged ? (d->sb.sectors + 7) / 8 : 0) +
           d->nslots * sizeof *d->p2l + d->nblocks * (sizeof *d->blk + sizeof(uint32_t)) +
           d->nplanes * (sizeof *d->plane + 2ull * (d->ps + d->oob)) + d->ps + d->oob +
           ftl_cache_mem_bytes(d);
}

static const char *dev_block_role(const blk_dev *b, uint32_t k)
{
    const struct ftl_dev *d = cftl_of(b);
    if (k >= d->nblocks)
        return NULL;
    static const char *const roles[] = {"free", "data", "data", "bad", "superblock"};
    return roles[d->blk[k].state];
}

/* a failed program or erase retires the block: the FTL goes on writing */
static int dev_write_failed(const blk_dev *b)
{
    (void)b;
    return 0;
}

static int dev_close(blk_dev *b)
{
    struct ftl_dev *d = ftl_of(b);
    int rc = nand_is_powered(d->dev) ? dev_flush(b) : 0;
    ftl_dev_free(d);
    return rc;
}

void ftl_dev_free(struct ftl_dev *d)
{
    ftl_cache_free(d);
    free(d->damaged);
    ftl_free(d);
}

static const struct blk_ops ftl_ops = {
    .sector_size = dev_sector_size, .sectors = dev_sectors, .read = dev_read,
    .write = dev_write, .trim = dev_trim, .flush = dev_flush, .get_stats = dev_get_stats,
    .reset_stats = dev_reset_stats, .set_gc_observer = dev_set_gc_observer,
    .gc_policy = dev_gc_policy, .mem_bytes = dev_mem_bytes, .block_role = dev_block_role,
    .write_failed = dev_write_failed, .close = dev_close,
};

blk_dev *ftl_dev_init(struct ftl_dev *d)
{
    d->base.ops = &ftl_ops;
    d->base.kind = "ftl";
    return &d->base;
}

/* blk.c -- blk.h's calls on any block device: each goes to the device's
 * own (blkdev.h). */
#include "blkdev.h"

const char *blk_kind(const blk_dev *d)
{
    return d->kind;
}

uint32_t blk_sector_size(const blk_dev *d)
{
    return d->ops->sector_size(d);
}

uint64_t blk_sectors(const blk_dev *d)
{
    return d->ops->sectors(d);
}

int blk_read(blk_dev *d, uint64_t first, uint32_t count, void *buf)
{
    return d->ops->read(d, first, count, buf);
}

int blk_write(blk_dev *d, uint64_t first, uint32_t count, const void *buf)
{
    return d->ops->write(d, first, count, buf);
}

int blk_trim(blk_dev *d, uint64_t first, uint64_t count)
{
    return d->ops->trim(d, first, count);
}

int blk_flush(blk_dev *d)
{
    return d->ops->flush(d);
}

void blk_get_stats(const blk_dev *d, struct blk_stats *st)
{
    d->ops->get_stats(d, st);
}

void blk_reset_stats(blk_dev *d)
{
    d->ops->reset_stats(d);
}

void blk_set_gc_observer(blk_dev *d, blk_gc_observer fn, void *ctx)
{
    d->ops->set_gc_observer(d, fn, ctx);
}

const char *blk_gc_policy(const blk_dev *d)
{
    return d->ops->gc_policy(d);
}

uint64_t blk_mem_bytes(const blk_dev *d)
{
    return d->ops->mem_bytes(d);
}

const char *blk_block_role(const blk_dev *d, uint32_t b)
{
    return d->ops->block_role(d, b);
}

int blk_write_failed(const blk_dev *d)
{
    return d->ops->write_failed(d);
}

int blk_close(blk_dev *d)
{
    return d->ops->close(d);
}

/*
 * blkdev.h -- what every block device of blk/ is to blk/blk.c: a table of
 * its calls, which blk.h's blk_* functions dispatch through.  A device's
 * own struct starts with a struct blk_dev, so a blk_dev * is a pointer to
 * it (internal to blk/).
 */
#ifndef FLASHLAB_BLKDEV_H
#define FLASHLAB_BLKDEV_H

#include "blk.h"

struct blk_ops {
    uint32_t (*sector_size)(const blk_dev *d);
    uint64_t (*sectors)(const blk_dev *d);
    int (*read)(blk_dev *d, uint64_t first, uint32_t count, void *buf);
    int (*write)(blk_dev *d, uint64_t first, uint32_t count, const void *buf);
    int (*trim)(blk_dev *d, uint64_t first, uint64_t count);
    int (*flush)(blk_dev *d);
    void (*get_stats)(const blk_dev *d, struct blk_stats *st);
    void (*reset_stats)(blk_dev *d);
    void (*set_gc_observer)(blk_dev *d, blk_gc_observer fn, void *ctx);
    const char *(*gc_policy)(const blk_dev *d);
    uint64_t (*mem_bytes)(const blk_dev *d);
    const char *(*block_role)(const blk_dev *d, uint32_t b);
    int (*write_failed)(const blk_dev *d);
    int (*close)(blk_dev *d);
};

struct blk_dev {
    const struct blk_ops *ops;
    const char *kind;          /* "ftl", "inplace" */
};

#endif

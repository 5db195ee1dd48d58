/* api_gc.c -- the cleaner's public calls: background cleaning while the
 * host is idle, the idle-time scrubber, and the observer of victims. */
#include "ops.h"

void logfs_set_gc_observer(logfs *fs, fs_gc_observer fn, void *ctx)
{
    fs->gc.observer = fn;
    fs->gc.observer_ctx = ctx;
}

/* one victim per round, so that the budget is kept to within one
 * victim's cleaning time */
static int idle_clean(struct logfs *fs, uint64_t ns)
{
    nand_time_t end = nand_now(fs->dev) + ns;
    int rc = 0;
    while (!rc && !fs->readonly && !fs->failed && nand_now(fs->dev) < end &&
           fs->an.free_segments < fs->reserve + fs->gc.idle_free) {
        uint64_t before = fs->an.free_segments;
        rc = lfs_gc(fs, (uint32_t)before + 1, fs->g.seg_bytes / 2);
        if (fs->an.free_segments <= before)
            break; /* nothing half-empty left to clean */
    }
    if (nand_now(fs->dev) < end)
        nand_advance(fs->dev, end - nand_now(fs->dev));
    return rc;
}

int logfs_idle(logfs *fs, uint64_t ns)
{
    lfs_op_begin(fs, LFS_OP_BACKGROUND); /* no host call's latency */
    int rc = lfs_scrub_pending(fs); /* what reads scheduled goes first */
    rc = rc < 0 ? rc : idle_clean(fs, ns);
    return (int)lfs_op_end_ro(fs, rc);
}

int logfs_scrub(logfs *fs, uint64_t budget)
{
    lfs_op_begin(fs, LFS_OP_BACKGROUND);
    return (int)lfs_op_end_ro(fs, lfs_scrub_scan(fs, budget));
}

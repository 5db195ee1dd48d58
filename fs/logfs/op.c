/* op.c -- what every public call does at its beginning and its end
 * (ops.h): latency accounting, and after calls that write the commit
 * past the dirty limit, cleaning ahead of need, wear leveling and
 * scrubbing. */
#include "ops.h"

#include <string.h>

void lfs_op_begin(struct logfs *fs, int kind)
{
    struct lfs_ops *o = lfs_ops_of(fs);
    o->op_kind = kind;
    o->op_t0 = nand_now(fs->dev);
}

static void record(struct logfs *fs)
{
    struct lfs_ops *o = lfs_ops_of(fs);
    if (o->op_kind < 0)
        return;
    fs_lat_record(&o->lat[o->op_kind], nand_now(fs->dev) - o->op_t0);
    o->op_kind = -1;
}

/* The memory bound: the node cache keeps cache_bytes of clean nodes, and
 * in-memory inodes get the same budget. */
static void trim(struct logfs *fs)
{
    lfs_cache_trim(fs);
    lfs_inode_trim(fs, fs->cache.max_bytes / sizeof(struct lfs_imem) + 16);
}

/* After a call that changed nothing on flash's behalf: no commit, no
 * cleaning (a stat must not write), only the cache bound. */
int64_t lfs_op_end_ro(struct logfs *fs, int64_t rc)
{
    trim(fs);
    record(fs);
    return rc;
}

int64_t lfs_op_end(struct logfs *fs, int64_t rc)
{
    int crc = 0;
    if (fs->cache.dirty_bytes > fs->dirty_limit && !fs->failed)
        crc = lfs_commit(fs);
    /* clean ahead of need, cheaply: half-empty victims only, so that a
     * device near its fill level does not clean on every call */
    if (!crc && !fs->failed && !fs->readonly &&
        fs->an.free_segments < fs->reserve + lfs_gc_of(fs)->free_min)
        crc = lfs_gc(fs, fs->reserve + lfs_gc_of(fs)->free_min, fs->g.seg_bytes / 2);
    if (!crc && !fs->failed && !fs->readonly)
        crc = lfs_wear_level(fs);
    /* segments reads scheduled for scrubbing, superblock and ring
     * refreshes (none when it is off) */
    if (!crc && (fs->scrub.nqueue || fs->scrub.super_due || fs->scrub.ring_due)) {
        int src = lfs_scrub_pending(fs);
        crc = src < 0 ? src : 0;
    }
    trim(fs);
    record(fs);
    return rc < 0 ? rc : crc ? crc : rc;
}

int logfs_get_latency(const logfs *fs, int kind, struct fs_latency *out)
{
    if (kind < 0 || kind >= LOGFS_OP_KINDS)
        return -EINVAL;
    fs_lat_get(&lfs_ops_of_const(fs)->lat[kind], out);
    return 0;
}

void logfs_reset_latency(logfs *fs)
{
    memset(lfs_ops_of(fs)->lat, 0, sizeof lfs_ops_of(fs)->lat);
}

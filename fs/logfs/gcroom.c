/*
 * gcroom.c -- how many victims one cleaning commit may take when free
 * space is tight.
 *
 * Every commit rewrites the indirect blocks above each block it writes.
 * Under random overwrites a commit of the cleaner's copies rewrites about
 * every indirect block of the file, a fixed cost per commit, while a
 * victim at high utilisation frees only a few blocks: a batch of two or
 * three victims then uses as many segments as it frees.  F2FS's
 * foreground cleaner meets the same cost with the same answer: it cleans
 * victims without a checkpoint until enough sections are free, then
 * checkpoints once.  Here, when the writers are stopped and eight
 * batches in a row freed nothing (lfs_gc), a tight batch takes as many
 * victims as its commit needs to gain the missing segments, while an
 * upper bound on the segments that commit opens stays within the free
 * ones, less a margin for what the bound leaves out (a page that fails to
 * program, an indirect block new since the last commit).  Test builds
 * check each tight commit against the bound (LFS_GCROOM_CHECK).
 *
 * The bound: file data (the dirty blocks and the copies, each with its
 * header) from where the data areas stand; every other area rewrites at
 * most what it holds live -- moving a block adds no indirect block, it
 * rewrites those above it -- and the segment file once more for its own
 * rounds (commit.c).  Each area's bytes start where its open segment
 * stands (a full one when none is open), a page of padding per flush
 * and the tail an object cannot cross per segment.
 */
#include "tree.h"

#include <string.h>

/* segments opened when `bytes` go to area a (open at a->off of its
 * segment, or none), objects at most obj bytes */
static uint64_t area_segments(const struct logfs *fs, const struct lfs_areaw *a,
                              uint64_t bytes, uint32_t obj)
{
    if (!bytes)
        return 0;
    uint64_t ps = fs->g.page_size, sb = fs->g.seg_bytes;
    bytes += ps * (1 + fs->g.pair_span); /* the flush's padding and skipped pages */
    uint64_t room = a->seg ? sb - a->off : 0;
    if (bytes <= room)
        return 0;
    uint64_t per = sb - (obj - 1); /* an object never crosses a segment */
    return (bytes - room + per - 1) / per;
}

int lfs_gc_room_start(struct logfs *fs, struct lfs_gc_room *r)
{
    uint64_t live[LFS_NAREAS] = {0};
    uint32_t obj = fs->g.block_size + LFS_OBJ_HDR;
    int rc = lfs_segtab_build(fs);
    if (rc)
        return rc;
    for (uint32_t s = 0; s < fs->g.nblocks; s++) {
        const struct lfs_segent *e = &fs->segtab.e[s];
        if (e->state != LFS_SEG_USED && e->state != LFS_SEG_BAD)
            continue;
        uint32_t l = e->live;
        if (e->area == LFS_AREA_SEGFILE && (rc = lfs_sflive_get(fs, s, &l)))
            return rc;
        if (e->area < LFS_NAREAS)
            live[e->area] += l;
    }
    live[LFS_AREA_SEGFILE] *= 2;
    r->meta_segments = 0;
    for (unsigned a = 0; a < LFS_NAREAS; a++)
        if (a != LFS_AREA_DATA && a != LFS_AREA_MOVED)
            r->meta_segments += area_segments(fs, &fs->area[a], live[a], obj);
    return 0;
}

uint64_t lfs_gc_room_need(struct logfs *fs, const struct lfs_gc_room *r, uint64_t extra)
{
    uint32_t bs = fs->g.block_size, obj = bs + LFS_OBJ_HDR;
    /* every dirty node (the host's and the copies so far) as a whole
     * object, and the next victim's live objects */
    uint64_t data = fs->cache.dirty_bytes / bs * obj + extra;
    uint64_t need = r->meta_segments + area_segments(fs, &fs->area[LFS_AREA_DATA], data, obj);
    /* data split between lanes, or copies kept apart from fresh data:
     * each further open segment adds at most its tail and a flush */
    return need + 2 * ((fs->parallel > 1 ? fs->parallel - 1 : 0) + !!lfs_gc_of(fs)->separate);
}

int lfs_gc_room_fits(struct logfs *fs, const struct lfs_gc_room *r, uint64_t extra)
{
    return lfs_gc_room_need(fs, r, extra) + LFS_GC_ROOM_MARGIN <= fs->an.free_segments;
}

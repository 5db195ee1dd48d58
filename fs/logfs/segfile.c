/*
 * segfile.c -- the segment file: erase count, state, area and live bytes of
 * every segment, read block by block through the node cache so that mount
 * reads none of it.  Entries of segments that were never touched are holes
 * and read as zero: free, never erased.
 *
 * Segment life: the anchor's free pool feeds allocation (lowest erase count
 * first, erased when taken); a segment whose last live object is replaced
 * becomes free in the segment file at the next commit and joins the pool
 * only after that commit's anchor is on flash, because until then the old
 * tree still points into it.  Objects of the segment file itself are not
 * counted here (writing them would change the counts again): sflive.c
 * keeps their counts in RAM.
 */
#include "storage.h"

#include <errno.h>

static uint32_t per_block(const struct logfs *fs)
{
    return fs->g.block_size / LFS_SEGENT_BYTES;
}

static int entry_node(struct logfs *fs, uint32_t seg, int create,
                      struct lfs_node **n)
{
    if (seg >= fs->g.nblocks)
        return -EINVAL;
    int rc = fs->tree->get(fs, &fs->an.segfile, 0, seg / per_block(fs), create, n);
    if (rc == -EIO && !fs->readonly && nand_is_powered(fs->dev)) {
        /* no segment's state can be trusted to change any more: the file
         * system goes read-only (reads need no segment file); the call
         * that met it gets EIO, later changes EROFS (docs/logfs-design.md) */
        fs->readonly = 1;
        fs->ctr.segfile_unreadable++;
    }
    if (!rc && *n && create)
        (*n)->len = fs->g.block_size;
    return rc;
}

int lfs_seg_get(struct logfs *fs, uint32_t seg, struct lfs_segent *e)
{
    if (fs->segtab.e && seg < fs->g.nblocks) {
        *e = fs->segtab.e[seg];
        return 0;
    }
    struct lfs_node *n;
    int rc = entry_node(fs, seg, 0, &n);
    memset(e, 0, sizeof *e);
    if (rc || !n)
        return rc;
    const uint8_t *p = n->data + (seg % per_block(fs)) * LFS_SEGENT_BYTES;
    e->erases = le32_get(p);
    e->live = le32_get(p + 4);
    e->state = p[8];
    e->area = p[9];
    e->stamp = le32_get(p + 12);
    return 0;
}

int lfs_seg_put(struct logfs *fs, uint32_t seg, const struct lfs_segent *e)
{
    struct lfs_node *n;
    int rc = entry_node(fs, seg, 1, &n);
    if (rc)
        return rc;
    uint8_t *p = n->data + (seg % per_block(fs)) * LFS_SEGENT_BYTES;
    memset(p, 0, LFS_SEGENT_BYTES);
    le32_put(p, e->erases);
    le32_put(p + 4, e->live);
    p[8] = e->state;
    p[9] = e->area;
    le32_put(p + 12, e->stamp);
    lfs_node_dirty(fs, n);
    if (fs->segtab.e)
        fs->segtab.e[seg] = *e;
    lfs_gcidx_update(fs, seg);
    return 0;
}

int lfs_seg_is_open(const struct logfs *fs, uint32_t seg)
{
    for (unsigned i = 0; i < LFS_NAREAS; i++)
        if (fs->area[i].seg == seg)
            return 1;
    return lfs_lane_has(fs, seg);
}

int lfs_seg_pending(const struct logfs *fs, uint32_t seg)
{
    if (fs->segtab.flags)
        return (fs->segtab.flags[seg] & LFS_SEGT_FREED) != 0;
    for (uint32_t i = 0; i < fs->nfreed; i++)
        if (fs->freed[i] == seg)
            return 1;
    return 0;
}

/* Note that seg holds nothing live any more: the next commit frees it
 * (unless it is open, when the cleaner will find it empty later). */
int lfs_seg_freed_add(struct logfs *fs, uint32_t seg)
{
    if (lfs_seg_is_open(fs, seg) || lfs_seg_pending(fs, seg))
        return 0;
    if (fs->nfreed == fs->freed_cap) {
        uint32_t cap = fs->freed_cap ? fs->freed_cap * 2 : 64;
        uint32_t *v = lfs_alloc(fs, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        if (fs->nfreed)
            memcpy(v, fs->freed, fs->nfreed * sizeof *v);
        lfs_free(fs, fs->freed, fs->freed_cap * sizeof *v);
        fs->freed = v;
        fs->freed_cap = cap;
    }
    fs->freed[fs->nfreed++] = seg;
    if (fs->segtab.flags)
        fs->segtab.flags[seg] |= LFS_SEGT_FREED;
    lfs_gcidx_update(fs, seg);
    return 0;
}

/* Count an object's bytes in (add) or out of its segment.  A
 * preallocated block (address 0) is in no segment: only live_bytes counts
 * it, keeping room for its later write. */
int lfs_seg_account(struct logfs *fs, lfs_ptr p, int add)
{
    uint32_t seg = lfs_seg_of(fs, p), len = lfs_ptr_len(p);
    int pre = lfs_ptr_at_zero(p);
    struct lfs_segent e;
    int rc = pre ? 0 : lfs_seg_get(fs, seg, &e);
    if (rc)
        return rc;
    if (add)
        fs->an.live_bytes += len;
    else
        fs->an.live_bytes -= fs->an.live_bytes >= len ? len : fs->an.live_bytes;
    if (pre)
        return 0;
    e.live = add ? e.live + len : e.live >= len ? e.live - len : 0;
    if (!add && e.live == 0 && e.state == LFS_SEG_USED &&
        e.area != LFS_AREA_SEGFILE && (rc = lfs_seg_freed_add(fs, seg)))
        return rc;
    return lfs_seg_put(fs, seg, &e);
}

/* Superblock, backup and anchor blocks, or past the device: never a
 * segment to allocate, whatever a (damaged) pool or segment file says. */
static int not_a_segment(const struct logfs *fs, uint32_t seg)
{
    if (seg == 0 || seg >= fs->g.nblocks || seg == fs->sb.backup_block)
        return 1;
    for (uint32_t i = 0; i < fs->ring.count; i++)
        if (fs->ring.blocks[i] == seg)
            return 1;
    return 0;
}

/* The pool entry with the most erases. */
static uint32_t pool_worst(const struct lfs_anchor *a)
{
    uint32_t w = 0;
    for (uint32_t i = 1; i < a->npool; i++)
        if (a->pool[i].erases > a->pool[w].erases)
            w = i;
    return w;
}

/* Refill the (empty) pool from the segment table (built from all of the
 * segment file on first need: only when the pool runs dry, never at
 * mount).  With wear leveling the pool gets the least-worn free segments,
 * else the first ones in segment order.  One pass, and the worst entry is
 * found again only when it is replaced: a refill costs O(segments), which
 * matters on devices of hundreds of thousands of segments. */
static int pool_refill(struct logfs *fs)
{
    struct lfs_anchor *a = &fs->an;
    int rc = lfs_segtab_build(fs);
    if (rc)
        return rc;
    uint32_t worst = 0;
    for (uint32_t i = 0; i < fs->g.nblocks; i++) {
        uint32_t s = lfs_seg_scan_order(fs, i);
        const struct lfs_segent *e = &fs->segtab.e[s];
        if (e->state != LFS_SEG_FREE || lfs_seg_is_open(fs, s) || lfs_seg_pending(fs, s) ||
            not_a_segment(fs, s))
            continue;
        if (a->npool < LFS_POOL_MAX) {
            a->pool[a->npool++] = (struct lfs_free_seg){s, e->erases};
            if (a->npool == LFS_POOL_MAX)
                worst = pool_worst(a);
        } else if (fs->wear_leveling == LOGFS_WL_NONE) {
            break;
        } else if (e->erases < a->pool[worst].erases) {
            a->pool[worst] = (struct lfs_free_seg){s, e->erases};
            worst = pool_worst(a);
        }
    }
    return a->npool ? 0 : -ENOSPC;
}

/* Take the next segment out of the pool: the least worn (dynamic wear
 * leveling), or the oldest entry when wear leveling is off. */
static uint32_t pool_take(struct logfs *fs)
{
    struct lfs_anchor *a = &fs->an;
    uint32_t best = 0;
    for (uint32_t i = 1; fs->wear_leveling != LOGFS_WL_NONE && i < a->npool; i++)
        if (a->pool[i].erases < a->pool[best].erases)
            best = i;
    best = lfs_pool_pick(fs, a->pool, a->npool, best);
    uint32_t seg = a->pool[best].seg;
    memmove(&a->pool[best], &a->pool[best + 1], (a->npool - best - 1) * sizeof a->pool[0]);
    a->npool--;
    return seg;
}

int lfs_seg_alloc(struct logfs *fs, unsigned area, uint32_t *out)
{
    struct lfs_anchor *a = &fs->an;
    for (;;) {
        int rc;
        if (!a->npool && (rc = pool_refill(fs)))
            return rc;
        uint32_t seg = pool_take(fs);
        struct lfs_segent e;
        if (not_a_segment(fs, seg))
            continue; /* a damaged pool entry: erasing it would destroy the sb */
        if ((rc = lfs_seg_get(fs, seg, &e)))
            return rc;
        if (e.state != LFS_SEG_FREE)
            continue; /* likewise: the segment file says it is in use */
        e.erases++;
        e.live = 0;
        e.area = (uint8_t)area;
        rc = lfs_flash_erase(fs, seg);
        fs->ctr.erases++;
        if (rc == LFS_E_RETIRE) {
            nand_mark_bad(fs->dev, seg);
            e.state = LFS_SEG_BAD;
            if (a->free_segments) /* it was counted free in the pool */
                a->free_segments--;
            if ((rc = lfs_seg_put(fs, seg, &e)))
                return rc;
            continue;
        }
        if (rc)
            return rc;
        e.state = LFS_SEG_USED;
        e.stamp = (uint32_t)++a->seg_clock;
        if (a->free_segments)
            a->free_segments--;
        if ((rc = lfs_seg_put(fs, seg, &e)))
            return rc;
        *out = seg;
        return 0;
    }
}

/* Record the segments this commit emptied as free, those not recorded yet
 * (writing the segment file can empty more of its own segments). */
int lfs_seg_mark_freed(struct logfs *fs)
{
    for (uint32_t i = fs->nmarked; i < fs->nfreed; i++, fs->nmarked++) {
        struct lfs_segent e;
        int rc = lfs_seg_get(fs, fs->freed[i], &e);
        if (rc)
            return rc;
        e.state = LFS_SEG_FREE;
        e.live = 0;
        if ((rc = lfs_seg_put(fs, fs->freed[i], &e)))
            return rc;
    }
    return 0;
}

/* The anchor is on flash: the emptied segments (already counted free in
 * it) may be reused. */
void lfs_seg_commit_done(struct logfs *fs)
{
    struct lfs_anchor *a = &fs->an;
    for (uint32_t i = 0; i < fs->nfreed; i++) {
        struct lfs_segent e;
        if (a->npool < LFS_POOL_MAX && !lfs_seg_get(fs, fs->freed[i], &e))
            a->pool[a->npool++] = (struct lfs_free_seg){fs->freed[i], e.erases};
        if (fs->segtab.flags)
            fs->segtab.flags[fs->freed[i]] &= (uint8_t)~LFS_SEGT_FREED;
        lfs_gcidx_update(fs, fs->freed[i]);
    }
    fs->nfreed = fs->nmarked = 0;
}

/*
 * gcidx.c -- the greedy cleaner's index: a tournament tree over the
 * segment table, so that the emptiest candidate is found in O(1) and kept
 * in O(log segments) per change, instead of a scan of every segment per
 * victim (512k segments on a 64 GiB part).
 *
 * A leaf per segment holds it when it is a candidate exactly as gc.c's
 * collect() takes one -- used or retired (bad) and holding something,
 * closed, neither freed nor picked -- with its live bytes (the RAM count
 * of sflive.c for segment-file segments); every inner node holds the
 * winner of its two children: fewer live bytes, ties to the lower segment
 * number, which is the left child's.  The root is then what gcp_min_live
 * returns on collect()'s list (in segment order, ties to the lowest index),
 * victim for victim.
 *
 * Built on the first greedy pick (by the same pass as collect(), so that
 * it reads what collect() would have read), then kept current by every
 * change of what the leaf depends on: lfs_seg_put, the freed and picked
 * flags, areas opening and closing segments, sflive counts.  A change
 * that would need the segment file's counts before they exist drops the
 * index; the next pick builds it again.
 */
#include "storage.h"

#include <errno.h>

#define NONE UINT32_MAX

static int candidate(struct logfs *fs, uint32_t s, uint32_t *live)
{
    const struct lfs_segent *e = &fs->segtab.e[s];
    if ((e->state != LFS_SEG_USED && e->state != LFS_SEG_BAD) || fs->segtab.flags[s] ||
        lfs_seg_is_open(fs, s))
        return 0;
    *live = e->live;
    return 1;
}

static uint32_t winner(const struct lfs_gcidx *x, uint32_t a, uint32_t b)
{
    if (a == NONE)
        return b;
    if (b == NONE)
        return a;
    return x->live[b] < x->live[a] ? b : a; /* a < b: ties stay left */
}

/* Set segment s's leaf (NONE: no candidate) and replay its matches. */
static void set_leaf(struct lfs_gcidx *x, uint32_t s, uint32_t id, uint32_t live)
{
    uint32_t i = x->leaves + s;
    int key_changed = id != NONE && x->live[s] != live;
    if (x->win[i] == id && !key_changed)
        return;
    if (id != NONE)
        x->live[s] = live;
    x->win[i] = id;
    for (i >>= 1; i; i >>= 1) {
        uint32_t w = winner(x, x->win[2 * i], x->win[2 * i + 1]);
        /* unchanged winner that is not s: nothing above depends on s */
        if (w == x->win[i] && w != s)
            break;
        x->win[i] = w;
    }
}

void lfs_gcidx_update(struct logfs *fs, uint32_t s)
{
    struct lfs_gcidx *x = &fs->gcidx;
    if (!x->win || s >= fs->g.nblocks)
        return;
    uint32_t live;
    if (!candidate(fs, s, &live)) {
        set_leaf(x, s, NONE, 0);
        return;
    }
    if (fs->segtab.e[s].area == LFS_AREA_SEGFILE) {
        if (!fs->sflive.built) { /* its count would cost reads: later */
            lfs_gcidx_free(fs);
            return;
        }
        (void)lfs_sflive_get(fs, s, &live); /* built: cannot fail */
    }
    if (fs->segtab.e[s].state == LFS_SEG_BAD && live == 0)
        set_leaf(x, s, NONE, 0);
    else
        set_leaf(x, s, s, live);
}

static int build(struct logfs *fs)
{
    struct lfs_gcidx *x = &fs->gcidx;
    int rc = lfs_segtab_build(fs);
    if (rc)
        return rc;
    uint32_t n = (uint32_t)fs->g.nblocks, leaves = 1;
    while (leaves < n)
        leaves *= 2;
    x->win = lfs_alloc(fs, (size_t)2 * leaves * sizeof *x->win);
    x->live = lfs_alloc(fs, (size_t)n * sizeof *x->live);
    x->leaves = leaves;
    if (!x->win || !x->live) {
        lfs_gcidx_free(fs);
        return -ENOMEM;
    }
    memset(x->win, 0xff, (size_t)2 * leaves * sizeof *x->win);
    /* collect()'s pass: the same segments, the same sflive reads */
    for (uint32_t s = 0; s < n; s++) {
        uint32_t live;
        if (!candidate(fs, s, &live))
            continue;
        if (fs->segtab.e[s].area == LFS_AREA_SEGFILE && (rc = lfs_sflive_get(fs, s, &live))) {
            lfs_gcidx_free(fs);
            return rc;
        }
        if (fs->segtab.e[s].state == LFS_SEG_BAD && live == 0)
            continue;
        x->win[leaves + s] = s;
        x->live[s] = live;
    }
    for (uint32_t i = leaves - 1; i; i--)
        x->win[i] = winner(x, x->win[2 * i], x->win[2 * i + 1]);
    return 0;
}

int lfs_gcidx_min(struct logfs *fs, uint32_t *seg, uint32_t *live)
{
    struct lfs_gcidx *x = &fs->gcidx;
    int rc = x->win ? 0 : build(fs);
    if (rc)
        return rc;
    uint32_t w = x->win[1];
    if (w == NONE)
        return -ENOSPC;
    *seg = w;
    *live = x->live[w];
    return 0;
}

uint64_t lfs_gcidx_diff(const struct logfs *fs, const struct gc_seg *c, size_t n)
{
    const struct lfs_gcidx *x = &fs->gcidx;
    if (!x->win)
        return 0;
    uint64_t bad = 0;
    size_t k = 0;
    for (uint32_t s = 0; s < fs->g.nblocks; s++) {
        int in_list = k < n && c[k].id == s;
        if (x->win[x->leaves + s] != (in_list ? s : NONE) ||
            (in_list && x->live[s] != c[k].live))
            bad++;
        k += in_list;
    }
    return bad;
}

void lfs_gcidx_free(struct logfs *fs)
{
    struct lfs_gcidx *x = &fs->gcidx;
    lfs_free(fs, x->win, (size_t)2 * x->leaves * sizeof *x->win);
    lfs_free(fs, x->live, (size_t)fs->g.nblocks * sizeof *x->live);
    x->win = x->live = NULL;
    x->leaves = 0;
}

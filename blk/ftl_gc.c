/*
 * ftl_gc.c -- garbage collection, one plane at a time: when a plane's
 * free blocks fall under the threshold, a gc/ policy picks a victim among
 * its closed blocks, the victim's valid sectors move to the plane's GC
 * frontier, and the victim is erased.  Static wear leveling takes the
 * least-erased closed block as a victim instead when the plane's erase
 * counts spread more than wl_threshold.  A block that fails a program or
 * an erase is retired: its valid sectors move, and it is marked bad.
 */
#include "ftl.h"

#include <errno.h>
#include <stdlib.h>

/* Move every valid slot of b out, then erase b (or mark it bad when
 * retire is set or the erase fails). */
static int clean(struct ftl_dev *d, uint32_t b, int retire)
{
    uint32_t plane = ftl_plane_of_block(d, b);
    struct ftl_plane *pl = &d->plane[plane];
    struct ftl_front *to = d->o.hotcold ? &pl->gc : &pl->host;
    struct ftl_block *fb = &d->blk[b];
    for (uint32_t p = 0; p < fb->wp && fb->valid; p++) {
        int read = 0;
        for (uint32_t s = 0; s < d->spp; s++) {
            uint32_t slot = ftl_slot(d, b, p, s), lsn = d->p2l[slot];
            if (lsn == FTL_NONE || (d->l2p[lsn & ~FTL_TOMB] & ~FTL_TOMB) != slot)
                continue;
            uint32_t sec = lsn & ~FTL_TOMB;
            if (lsn & FTL_TOMB) {
                /* a trim no older copy can contradict any more: forget it */
                if (!d->stale[sec]) {
                    d->blk[b].valid--;
                    d->l2p[sec] = FTL_NONE;
                    continue;
                }
                int rc = ftl_front_add(d, plane, to, lsn, NULL, 1);
                if (rc)
                    return rc;
                continue;
            }
            if (d->damaged && d->damaged[sec / 8] >> (sec % 8) & 1) {
                /* its bytes are garbage: zeros and the flag, which every
                 * later mount reads as "damaged" (docs/ftl.md) */
                int rc = ftl_front_add(d, plane, to, lsn | FTL_DAMAGED, NULL, 1);
                if (rc)
                    return rc;
                d->st.sectors_moved++;
                continue;
            }
            if (!read) {
                int rc = nand_read(d->dev, b, p, d->pbuf, NULL, NULL);
                if (rc == NAND_E_POWER)
                    return -EIO;
                read = 1; /* an uncorrectable page moves as read: its loss is the medium's */
            }
            int rc = ftl_front_add(d, plane, to, lsn, d->pbuf + (size_t)s * d->ss, 1);
            if (rc)
                return rc;
            d->st.sectors_moved++;
        }
    }
    int rc = ftl_front_commit(d, plane, to, 1);
    if (rc)
        return rc;
    /* nothing may be erased before the copies are on flash and beyond
     * the reach of a torn paired program: newer copies of its sectors
     * live in this plane's frontiers (a sector stays in its plane) */
    nand_wait(d->dev);
    if (!nand_is_powered(d->dev))
        return -EIO;
    if (pl->host.block >= 0)
        ftl_settle(d, (uint32_t)pl->host.block);
    if (pl->gc.block >= 0)
        ftl_settle(d, (uint32_t)pl->gc.block);
    if (!retire) {
        rc = nand_erase(d->dev, b, NULL);
        if (rc == NAND_E_POWER)
            return -EIO;
        d->st.erases++;
        fb->erases++;
        retire = rc != NAND_OK;
    }
    for (uint32_t slot = ftl_slot(d, b, 0, 0); slot < ftl_slot(d, b + 1, 0, 0); slot++) {
        uint32_t lsn = d->p2l[slot];
        if (lsn != FTL_NONE) {
            uint32_t sec = lsn & ~FTL_TOMB;
            if (d->stale[sec] && d->stale[sec] != UINT16_MAX)
                d->stale[sec]--;
            d->p2l[slot] = FTL_NONE;
        }
    }
    fb->valid = 0;
    if (retire) {
        nand_mark_bad(d->dev, b);
        fb->state = FTL_B_BAD;
        d->st.grown_bad++;
        pl->good--;
        return 0;
    }
    fb->wp = fb->settled = 0;
    ftl_put_free(d, b);
    return 0;
}

int ftl_retire(struct ftl_dev *d, uint32_t b)
{
    d->blk[b].state = FTL_B_CLOSED;
    return clean(d, b, 1);
}

static void report(struct ftl_dev *d, uint32_t b, uint32_t live, uint64_t t0, int wl)
{
    uint64_t t1 = nand_now(d->dev);
    d->st.gc_time_ns += t1 - t0;
    if (d->gc_fn) {
        struct blk_gc_event ev = {t0, b, live * d->ss, t1 - t0, d->o.policy->name, wl};
        d->gc_fn(d->gc_ctx, &ev);
    }
}

int ftl_clean_block(struct ftl_dev *d, uint32_t b, int wl)
{
    uint64_t t0 = nand_now(d->dev);
    uint32_t live = d->blk[b].valid;
    int rc = clean(d, b, 0);
    d->st.gc_rounds++;
    d->st.wl_moves += wl != 0;
    if (!rc)
        report(d, b, live, t0, wl);
    return rc;
}

/* The victim of one round among the plane's closed blocks, or -1. */
static int64_t pick(struct ftl_dev *d, uint32_t plane, struct gc_seg *c, int allow_wl, int *wl)
{
    size_t n = 0;
    uint32_t emin = UINT32_MAX, emax = 0;
    size_t coldest = 0;
    uint32_t die = plane / d->ppd, pin = plane % d->ppd;
    for (uint32_t i = 0; i < d->bpp; i++) {
        uint32_t b = die * d->ppd * d->bpp + i * d->ppd + pin;
        const struct ftl_block *fb = &d->blk[b];
        if (fb->state == FTL_B_FREE || fb->state == FTL_B_OPEN || fb->state == FTL_B_CLOSED)
            emax = fb->erases > emax ? fb->erases : emax;
        if (fb->state != FTL_B_CLOSED)
            continue;
        if (fb->erases < emin)
            emin = fb->erases, coldest = n;
        c[n++] = (struct gc_seg){b, fb->valid, d->ppb * d->spp, fb->stamp, fb->erases};
    }
    if (!n)
        return -1;
    *wl = allow_wl && d->o.wl_threshold && emax - emin > d->o.wl_threshold;
    if (*wl)
        return c[coldest].id;
    struct gc_ctx ctx = {d->seq, d->o.seed ^ plane, d->plane[plane].gc_round_seed++,
                         d->o.gc_window, d->o.gc_choices};
    return c[d->o.policy->pick(&ctx, c, n)].id;
}

int ftl_gc_plane(struct ftl_dev *d, uint32_t plane)
{
    struct ftl_plane *pl = &d->plane[plane];
    if (d->in_gc)
        return 0;
    d->in_gc = 1;
    struct gc_seg *c = malloc(sizeof *c * d->bpp);
    int rc = c ? 0 : -ENOMEM, wl_done = 0;
    for (int rounds = 0; !rc && pl->nfree < d->gc_threshold && rounds < (int)d->bpp; rounds++) {
        int wl = 0;
        int64_t v = pick(d, plane, c, !wl_done, &wl); /* one WL move per trigger */
        if (v < 0)
            break;
        wl_done |= wl;
        rc = ftl_clean_block(d, (uint32_t)v, wl);
    }
    free(c);
    d->in_gc = 0;
    return rc;
}

/*
 * ftl_alloc.c -- where the FTL puts a sector: per-plane pools of free
 * blocks (the least-erased one first: dynamic wear leveling), the open
 * blocks ("frontiers") that host writes and GC moves fill page by page,
 * the two maps (sector -> slot, slot -> sector), and the pages skipped on
 * paired-page parts so that a torn program never reaches flushed data.
 */
#include "ftl.h"

#include <errno.h>
#include <string.h>

int ftl_errno(int nand_rc)
{
    switch (nand_rc) {
    case NAND_OK: return 0;
    case NAND_E_NOMEM: return -ENOMEM;
    case NAND_E_INVAL: return -EINVAL;
    default: return -EIO;
    }
}

uint32_t ftl_plane_of_block(const struct ftl_dev *d, uint32_t b)
{
    uint32_t die = b / (d->ppd * d->bpp);
    return die * d->ppd + b % d->ppd;
}

void ftl_put_free(struct ftl_dev *d, uint32_t b)
{
    struct ftl_plane *pl = &d->plane[ftl_plane_of_block(d, b)];
    d->blk[b].state = FTL_B_FREE;
    pl->free[pl->nfree++] = b;
}

/* The least-erased free block of plane, erased (a block left free by a
 * mount may still hold stale pages).  A block whose erase fails is
 * retired and the next one tried. */
int ftl_take_free(struct ftl_dev *d, uint32_t plane, uint32_t *out)
{
    struct ftl_plane *pl = &d->plane[plane];
    while (pl->nfree) {
        uint32_t best = 0;
        for (uint32_t i = 1; i < pl->nfree; i++)
            if (d->blk[pl->free[i]].erases < d->blk[pl->free[best]].erases)
                best = i;
        uint32_t b = pl->free[best];
        pl->free[best] = pl->free[--pl->nfree];
        struct ftl_block *fb = &d->blk[b];
        if (fb->wp) { /* holds pages from before a mount: erase it now */
            nand_wait(d->dev);
            int rc = nand_erase(d->dev, b, NULL);
            if (rc == NAND_E_POWER)
                return -EIO;
            d->st.erases++;
            fb->erases++;
            if (rc) {
                nand_mark_bad(d->dev, b);
                fb->state = FTL_B_BAD;
                d->st.grown_bad++;
                pl->good--;
                continue;
            }
        }
        fb->state = FTL_B_OPEN;
        fb->wp = fb->settled = 0;
        fb->valid = 0;
        *out = b;
        return 0;
    }
    return -ENOSPC;
}

/* Pages p of a part with pairing distance D are upper when (p / D) is
 * odd; an upper page's torn program damages page p - D.  Skipping to the
 * next lower group with no programmed partner leaves every programmed
 * lower page with its upper page either programmed or never to be. */
int ftl_settle(struct ftl_dev *d, uint32_t b)
{
    uint32_t dist = nand_get_config(d->dev)->pair_distance;
    struct ftl_block *fb = &d->blk[b];
    if (!dist || !d->o.pair_safe || fb->wp == fb->settled || fb->wp >= d->ppb)
        return 0;
    uint32_t g = fb->wp / dist, o = fb->wp % dist, to;
    if (g % 2 == 0)
        to = o ? (g + 2) * dist : fb->wp;
    else
        to = (g + 1) * dist;
    if (to > d->ppb)
        to = d->ppb;
    d->st.pages_pad += to - fb->wp;
    fb->wp = fb->settled = to;
    return 0;
}

int ftl_front_page(struct ftl_dev *d, uint32_t plane, struct ftl_front *f, uint32_t *b,
                   uint32_t *p)
{
    if (f->block >= 0 && d->blk[f->block].wp >= d->ppb) {
        d->blk[f->block].state = FTL_B_CLOSED;
        f->block = -1;
    }
    if (f->block < 0) {
        uint32_t nb;
        int rc = ftl_take_free(d, plane, &nb);
        if (rc)
            return rc;
        f->block = nb;
    }
    *b = (uint32_t)f->block;
    *p = d->blk[f->block].wp;
    return 0;
}

void ftl_map(struct ftl_dev *d, uint32_t lsn, uint32_t slot)
{
    uint32_t sec = lsn & ~FTL_TOMB, old = d->l2p[sec];
    if (old != FTL_NONE) {
        d->blk[ftl_slot_block(d, old & ~FTL_TOMB)].valid--;
        if (d->stale[sec] != UINT16_MAX)
            d->stale[sec]++;
    }
    d->l2p[sec] = slot == FTL_NONE ? FTL_NONE : slot | (lsn & FTL_TOMB);
    if (slot != FTL_NONE) {
        d->p2l[slot] = lsn;
        d->blk[ftl_slot_block(d, slot)].valid++;
    }
}

/* The staged page could not go to page p of block b: close b, open a
 * fresh block and point the staged sectors at its next page. */
static int restage(struct ftl_dev *d, uint32_t plane, struct ftl_front *f, uint32_t b,
                   uint32_t p)
{
    d->blk[b].wp = d->ppb;
    d->blk[b].state = FTL_B_CLOSED;
    f->block = -1;
    uint32_t nb, np;
    int rc = ftl_front_page(d, plane, f, &nb, &np);
    if (rc)
        return rc;
    for (uint32_t s = 0; s < f->staged; s++) {
        uint32_t sec = f->lsn[s] & FTL_SECTOR_MASK, old = ftl_slot(d, b, p, s);
        if ((d->l2p[sec] & ~FTL_TOMB) == old) {
            d->blk[b].valid--;
            d->l2p[sec] = FTL_NONE;
            ftl_map(d, f->lsn[s] & ~FTL_DAMAGED, ftl_slot(d, nb, np, s));
        }
        d->p2l[old] = FTL_NONE;
    }
    return 0;
}

/* Program the staged page.  A program that fails retires the block and
 * programs the page again in a fresh one; a page the mount took for
 * erased and was not (a program torn before any bit moved) closes its
 * block, which GC erases later. */
int ftl_front_commit(struct ftl_dev *d, uint32_t plane, struct ftl_front *f, int is_gc)
{
    if (!f->staged)
        return 0;
    for (;;) {
        uint32_t b = (uint32_t)f->block, p = d->blk[b].wp;
        struct ftl_oob o = {.seq = d->seq++, .erases = d->blk[b].erases};
        for (uint32_t s = 0; s < d->spp; s++)
            o.lsn[s] = s < f->staged ? f->lsn[s] : FTL_NONE;
        if (f->staged < d->spp)
            memset(f->buf + (size_t)f->staged * d->ss, 0, (size_t)(d->spp - f->staged) * d->ss);
        /* the spare right after the data: the device stores the page
         * from this one buffer without copying it first (nand.h) */
        uint8_t *spare = f->buf + d->ps;
        ftl_oob_encode(spare, d->oob, d->spp, &o, f->buf, d->ps);
        struct nand_op op = {.kind = NAND_OP_PROGRAM, .block = b, .page = p,
                             .data = f->buf, .oob = spare};
        int rc = nand_submit(d->dev, &op);
        if (rc == NAND_OK) {
            d->blk[b].wp = p + 1;
            d->blk[b].stamp = o.seq;
            if (is_gc)
                d->st.pages_gc++;
            else
                d->st.pages_host++;
            f->staged = 0;
            return 0;
        }
        if (rc != NAND_E_PROGRAM_FAIL && rc != NAND_E_NOT_ERASED && rc != NAND_E_ORDER)
            return ftl_errno(rc);
        if ((rc = restage(d, plane, f, b, p)))
            return rc;
        if (op.status == NAND_E_PROGRAM_FAIL && (rc = ftl_retire(d, b)))
            return rc;
    }
}

int ftl_front_add(struct ftl_dev *d, uint32_t plane, struct ftl_front *f, uint32_t lsn,
                  const void *data, int is_gc)
{
    uint32_t b, p;
    int rc = ftl_front_page(d, plane, f, &b, &p);
    if (rc)
        return rc;
    uint8_t *dst = f->buf + (size_t)f->staged * d->ss;
    if (data)
        memcpy(dst, data, d->ss);
    else
        memset(dst, 0, d->ss);
    f->lsn[f->staged] = lsn;
    ftl_map(d, lsn & ~FTL_DAMAGED, ftl_slot(d, b, p, f->staged));
    if (++f->staged == d->spp)
        return ftl_front_commit(d, plane, f, is_gc);
    return 0;
}

int ftl_read_slot(struct ftl_dev *d, uint32_t slot, void *buf)
{
    uint32_t b = ftl_slot_block(d, slot), p = ftl_slot_page(d, slot), s = slot % d->spp;
    struct ftl_plane *pl = &d->plane[ftl_plane_of_block(d, b)];
    struct ftl_front *fr[2] = {&pl->host, &pl->gc};
    for (int i = 0; i < 2; i++)
        if (fr[i]->block == (int64_t)b && fr[i]->staged > s && d->blk[b].wp == p) {
            memcpy(buf, fr[i]->buf + (size_t)s * d->ss, d->ss);
            return 0;
        }
    int rc = d->spp == 1 ? nand_read(d->dev, b, p, buf, NULL, NULL)
                         : nand_read_col(d->dev, b, p, s * d->ss, buf, d->ss, NULL);
    return ftl_errno(rc);
}

/*
 * inflight.c -- queued programs and erases whose array time has not ended.
 *
 * nand_submit applies an operation's effect at once, so that the rules,
 * later reads and statistics all see it, and records here what the block
 * held before.  When the power fails at instant `at`, each recorded
 * operation is judged by its schedule: ended by `at`, it stays; started
 * after `at`, it is undone (it never happened); under way at `at`, it is
 * undone and then torn after the fraction of its array time that elapsed,
 * as a synchronous one would be.  Records end when the clock passes them.
 *
 * Operations on one block run on one die in submission order, so undoing
 * in reverse submission order restores each block's earliest state, and at
 * most one operation per die is under way at an instant.
 */
#include "nand_internal.h"

#include <stdlib.h>
#include <string.h>

struct inflight {
    enum nand_op_kind kind;
    nand_block_t b;
    nand_page_t p;
    nand_time_t array_start, array_end;
    uint32_t bytes;          /* program: bytes moved (statistics) */
    int status;              /* what the submit returned */
    struct bstate bs;        /* the block before */
    struct slot sl;          /* program: page p before (pg referenced) */
    struct bpages *bp;       /* erase: the block's pages before (referenced) */
    struct pbuf *want;       /* program: what the page came to hold */
};

static void drop(nand_dev *dev, struct inflight *e)
{
    sim_pbuf_unref(dev, e->sl.pg);
    sim_pbuf_unref(dev, e->want);
    sim_bpages_unref(dev, e->bp);
}

void sim_inflight_clear(nand_dev *dev)
{
    for (uint32_t i = 0; i < dev->nfl; i++)
        drop(dev, &dev->fl[i]);
    dev->nfl = 0;
}

void sim_inflight_free(nand_dev *dev)
{
    sim_inflight_clear(dev);
    free(dev->fl);
    dev->fl = NULL;
    dev->flcap = 0;
}

/* Records whose array time ended are final.  Only the oldest are looked
 * at (a cut judges the rest by their times anyway): O(1) per call. */
void sim_inflight_retire(nand_dev *dev)
{
    if (!dev->nfl)
        return;
    if (dev->now >= dev->queue_end) {
        sim_inflight_clear(dev);
        return;
    }
    uint32_t k = 0;
    while (k < dev->nfl && dev->fl[k].array_end <= dev->now)
        drop(dev, &dev->fl[k++]);
    if (k) {
        memmove(dev->fl, dev->fl + k, (dev->nfl - k) * sizeof *dev->fl);
        dev->nfl -= k;
    }
}

struct inflight *sim_inflight_begin(nand_dev *dev, enum nand_op_kind kind,
                                nand_block_t b, nand_page_t p,
                                const struct sched *s)
{
    if (dev->nfl == dev->flcap) {
        uint32_t cap = dev->flcap ? dev->flcap * 2 : 64;
        struct inflight *fl = realloc(dev->fl, cap * sizeof *fl);
        if (!fl)
            return NULL;
        dev->fl = fl;
        dev->flcap = cap;
    }
    struct inflight *e = &dev->fl[dev->nfl++];
    memset(e, 0, sizeof *e);
    e->status = 1; /* not applied (yet): no statistics to take back */
    e->kind = kind;
    e->b = b;
    e->p = p;
    e->array_start = s->array_start;
    e->array_end = s->array_end;
    e->bs = dev->bs[b];
    if (kind == NAND_OP_ERASE) {
        e->bp = dev->bp[b];
        if (e->bp)
            e->bp->refs++;
    } else if (dev->bp[b]) {
        e->sl = dev->bp[b]->slot[p];
        if (e->sl.pg)
            sim_pbuf_ref(e->sl.pg);
    }
    return e;
}

void sim_inflight_done(nand_dev *dev, struct inflight *e, uint32_t bytes, int status)
{
    e->bytes = bytes;
    e->status = status;
    if (e->kind == NAND_OP_PROGRAM && status == NAND_OK) {
        e->want = dev->bp[e->b]->slot[e->p].pg;
        sim_pbuf_ref(e->want);
    }
}

/* Put the block back as it was before e. */
static void undo(nand_dev *dev, struct inflight *e)
{
    if (e->kind == NAND_OP_ERASE) {
        sim_bpages_unref(dev, dev->bp[e->b]);
        dev->bp[e->b] = e->bp;
        e->bp = NULL;
        dev_touch(dev, e->b);
        if (e->status == NAND_OK)
            dev->st.erases--;
        else if (e->status == NAND_E_ERASE_FAIL)
            dev->st.erase_fails--;
    } else {
        struct bpages *bp = sim_bpages_own_page(dev, e->b, e->p);
        if (bp) {
            sim_pbuf_unref(dev, bp->slot[e->p].pg);
            bp->slot[e->p] = e->sl;
            e->sl.pg = NULL;
        }
        if (e->status == NAND_OK) {
            dev->st.programs--;
            dev->st.bytes_written -= e->bytes;
        } else if (e->status == NAND_E_PROGRAM_FAIL) {
            dev->st.program_fails--;
        }
    }
    dev->bs[e->b] = e->bs;
}

/* e, undone, is torn after fraction frac of its array time. */
static void tear(nand_dev *dev, struct inflight *e, double frac)
{
    if (e->kind == NAND_OP_ERASE) {
        if (dev->bs[e->b].flags & BF_FACTORY_BAD)
            return;
        dev->bs[e->b].pe++;
        sim_damage_erase(dev, e->b, frac);
        sim_biterr_block_wear(dev, e->b);
        dev->st.torn_erases++;
        return;
    }
    if (!e->want)
        return; /* a failed program: its garbage was undone, none is new */
    struct bpages *bp = sim_bpages_own_page(dev, e->b, e->p);
    uint8_t *want = malloc(dev->page_bytes);
    if (!bp || !want) {
        free(want);
        return;
    }
    sim_pbuf_copy(dev, e->want, 0, dev->page_bytes, want);
    struct slot *sl = &bp->slot[e->p];
    sl->nprog++;
    sl->prog_time = e->array_end;
    if (e->p + 1 > dev->bs[e->b].next_page)
        dev->bs[e->b].next_page = e->p + 1;
    sim_damage_program(dev, e->b, e->p, want, pbuf_view(dev, sl->pg), frac, sl);
    free(want);
    int upper;
    nand_page_t lower = sim_page_pair_lower(dev, e->p, &upper);
    if (upper)
        sim_damage_paired(dev, e->b, lower);
    dev->st.torn_programs++;
}

void sim_inflight_cut(nand_dev *dev, nand_time_t at)
{
    for (uint32_t i = dev->nfl; i-- > 0;)
        if (dev->fl[i].array_end > at)
            undo(dev, &dev->fl[i]);
    for (uint32_t i = 0; i < dev->nfl; i++) {
        struct inflight *e = &dev->fl[i];
        if (e->array_end > at && e->array_start < at)
            tear(dev, e, (double)(at - e->array_start) /
                         (double)(e->array_end - e->array_start));
    }
    sim_inflight_clear(dev);
}

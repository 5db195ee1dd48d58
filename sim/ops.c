/*
 * ops.c -- read, program, erase and the bad-block marker: the NAND rules,
 * wear-out failures and power cuts in the middle of an operation.
 */
#include "nand_internal.h"
#include "rng.h"

#include <string.h>

/* ---- power ------------------------------------------------------------- */

/* Queued operations still under way at `at` are torn, those not yet
 * started never happen (inflight.c). */
void sim_power_fail(nand_dev *dev, nand_time_t at)
{
    sim_inflight_cut(dev, at);
    if (dev->queue_end > at) /* what was queued after it never runs */
        dev->queue_end = at;
    dev->powered = 0;
    dev->cut = CUT_NONE;
    dev->st.power_cuts++;
}

/* Fails once the power is off, or when the armed cut time has passed. */
static int check_power(nand_dev *dev)
{
    if (dev->powered && dev->cut == CUT_TIME && dev->now >= dev->cut_time)
        sim_power_fail(dev, dev->cut_time);
    if (dev->powered)
        sim_inflight_retire(dev);
    return dev->powered ? NAND_OK : NAND_E_POWER;
}

enum cut_outcome { RUN_FULL, TEAR, NOT_STARTED };

/* Decide whether the state-changing operation scheduled as s is cut, and
 * after what fraction of its array time.  A queued one is not judged by
 * a cut time here: the host goes on submitting until the clock reaches
 * the cut, which then judges everything in flight (inflight.c). */
static enum cut_outcome cut_decide(nand_dev *dev, const struct nand_op *op,
                                   const struct sched *s, int queued,
                                   double *frac)
{
    dev->st.state_ops++;
    switch (dev->cut) {
    case CUT_TIME:
        if (queued)
            return RUN_FULL;
        if (dev->cut_time >= s->array_end)
            return RUN_FULL;
        if (dev->cut_time <= s->array_start)
            return NOT_STARTED;
        *frac = (double)(dev->cut_time - s->array_start) /
                (double)(s->array_end - s->array_start);
        return TEAR;
    case CUT_OPS:
        if (dev->cut_ops_left) {
            dev->cut_ops_left--;
            return RUN_FULL;
        }
        *frac = dev->cut_frac >= 0 ? dev->cut_frac
              : rng_unit(rng_key(dev->cfg.seed, RNG_TEAR_FRAC, dev->st.state_ops,
                                 0, 0, 0));
        return TEAR;
    case CUT_CALLBACK:
        *frac = 0.5;
        if (dev->cut_fn(dev->cut_ctx, op, frac)) {
            if (*frac < 0) *frac = 0;
            if (*frac > 1) *frac = 1;
            return TEAR;
        }
        return RUN_FULL;
    case CUT_NONE:
    default:
        return RUN_FULL;
    }
}

/* The operation was cut: the clock stops at the cut, the power is off. */
static int cut_now(nand_dev *dev, const struct sched *s, double frac)
{
    nand_time_t at = s->array_start +
                     (nand_time_t)(frac * (double)(s->array_end - s->array_start));
    if (dev->cut == CUT_TIME)
        at = dev->cut_time;
    if (at > dev->now)
        dev->now = at;
    sim_power_fail(dev, at);
    return NAND_E_POWER;
}

static void finish_op(nand_dev *dev, const struct sched *s, int queued,
                      struct nand_result *res)
{
    if (queued) {
        if (s->done > dev->queue_end)
            dev->queue_end = s->done;
    } else {
        dev->now = s->done;
    }
    if (res) {
        res->start = s->start;
        res->done = s->done;
    }
}

static int bad_addr(nand_dev *dev, nand_block_t b, nand_page_t p,
                    uint32_t col, uint32_t len)
{
    if (b >= dev->nblocks || p >= dev->cfg.geo.pages_per_block ||
        col > dev->page_bytes || len > dev->page_bytes - col) {
        dev->st.violations_addr++;
        return 1;
    }
    return 0;
}

static struct slot *slot_of(nand_dev *dev, nand_block_t b, nand_page_t p)
{
    return dev->bp[b] ? &dev->bp[b]->slot[p] : NULL;
}

/* ---- read ---------------------------------------------------------------- */

/* How many pages ahead a read starts loading a page's header. */
#define READ_AHEAD 2

/* view (may be NULL): lend the stored bytes of the single segment
 * instead of copying them where no bit error reaches them (nand_read_view). */
static int do_read(nand_dev *dev, nand_block_t b, nand_page_t p,
                   struct seg *segs, int nseg, int raw, int queued,
                   const void **view, struct nand_result *res)
{
    int rc = check_power(dev);
    if (rc)
        return rc;
    uint32_t bytes = 0;
    /* the page address is checked even when no bytes move */
    if (bad_addr(dev, b, p, 0, 0))
        return NAND_E_ADDR;
    for (int i = 0; i < nseg; i++) {
        if (bad_addr(dev, b, p, segs[i].col, segs[i].len))
            return NAND_E_ADDR;
        bytes += segs[i].len;
    }
    /* the page's slot and the block's state are cache misses on a large
     * device: start them before the schedule's work */
    if (dev->bp[b])
        __builtin_prefetch(&dev->bp[b]->slot[p], 0, 3);
    __builtin_prefetch(&dev->bs[b], 1, 3);
    struct sched s;
    if ((rc = sim_sched_op(dev, NAND_OP_READ, b, p, bytes, &s)))
        return rc;
    if (dev->cut == CUT_TIME && dev->cut_time < s.done) {
        dev->now = dev->cut_time > dev->now ? dev->cut_time : dev->now;
        sim_power_fail(dev, dev->cut_time);
        return NAND_E_POWER;
    }
    finish_op(dev, &s, queued, res);

    const struct slot *sl = slot_of(dev, b, p);
    const struct pbuf *pg = sl ? sl->pg : NULL;
    if (pg)
        __builtin_prefetch(pg, 0, 3);
    /* a block is often read page after page (a cleaner's victim, a
     * mount's scan): the header of the page after next, a cache miss
     * its read would wait for, is started now */
    if (sl && p + READ_AHEAD < dev->cfg.geo.pages_per_block && sl[READ_AHEAD].pg)
        __builtin_prefetch(sl[READ_AHEAD].pg, 0, 3);
    dev->bs[b].reads++;
    dev->st.reads++;
    dev->st.bytes_read += bytes;
    const uint8_t *lent = NULL; /* the stored bytes, not copied (yet) */
    if (!pg || !pg->clen) {
        const uint8_t *src = pg ? pg->bytes : dev->ff;
        if (view)
            lent = src;
        else
            for (int i = 0; i < nseg; i++)
                memcpy(segs[i].buf, src + segs[i].col, segs[i].len);
    } else {
        for (int i = 0; i < nseg; i++)
            sim_pbuf_copy(dev, pg, segs[i].col, segs[i].len, segs[i].buf);
    }
    if (view)
        *view = lent ? lent + segs[0].col : segs[0].buf;
    if (!pg)
        return NAND_OK; /* erased pages read clean */
    uint32_t corrected = 0, rawerr = 0, maxcw = 0;
    int copied = 0;
    rc = sim_biterr_apply(dev, b, p, sl, segs, nseg, raw, lent, &copied,
                          &corrected, &rawerr, &maxcw);
    if (copied) /* a bit error reached the caller: the flipped copy */
        *view = segs[0].buf;
    if (rc == NAND_E_ECC)
        dev->st.uncorrectable_reads++;
    if (res) {
        res->corrected_bits = corrected;
        res->raw_bit_errors = rawerr;
        res->max_cw_bits = maxcw;
    }
    return rc;
}

static int page_segs(nand_dev *dev, void *data, void *oob, struct seg *segs)
{
    int n = 0;
    if (data)
        segs[n++] = (struct seg){0, dev->cfg.geo.page_size, data};
    if (oob)
        segs[n++] = (struct seg){dev->cfg.geo.page_size, dev->cfg.geo.oob_size, oob};
    return n;
}

static void clear_res(struct nand_result *res)
{
    if (res)
        memset(res, 0, sizeof *res);
}

int nand_read(nand_dev *dev, nand_block_t b, nand_page_t p, void *data,
              void *oob, struct nand_result *res)
{
    struct seg segs[2];
    clear_res(res);
    return do_read(dev, b, p, segs, page_segs(dev, data, oob, segs), 0, 0, NULL, res);
}

int nand_read_raw(nand_dev *dev, nand_block_t b, nand_page_t p, void *data,
                  void *oob, struct nand_result *res)
{
    struct seg segs[2];
    clear_res(res);
    return do_read(dev, b, p, segs, page_segs(dev, data, oob, segs), 1, 0, NULL, res);
}

int nand_read_view(nand_dev *dev, nand_block_t b, nand_page_t p, void *buf,
                   const void **data, struct nand_result *res)
{
    struct seg seg = {0, dev->cfg.geo.page_size, buf};
    clear_res(res);
    *data = buf;
    return do_read(dev, b, p, &seg, 1, 0, 0, data, res);
}

int nand_read_col(nand_dev *dev, nand_block_t b, nand_page_t p, uint32_t col,
                  void *buf, uint32_t len, struct nand_result *res)
{
    struct seg seg = {col, len, buf};
    clear_res(res);
    return do_read(dev, b, p, &seg, 1, 0, 0, NULL, res);
}

/* ---- program ------------------------------------------------------------- */

/* The NAND rules, in the order a careful driver would hit them. */
static int check_program_rules(nand_dev *dev, nand_block_t b, nand_page_t p)
{
    const struct slot *sl = slot_of(dev, b, p);
    uint32_t nprog = sl ? sl->nprog : 0;
    if (nprog >= dev->cfg.nop) {
        if (dev->cfg.nop == 1) {
            dev->st.violations_not_erased++;
            return NAND_E_NOT_ERASED;
        }
        dev->st.violations_nop++;
        return NAND_E_NOP;
    }
    if (p + 1 < dev->bs[b].next_page) {
        dev->st.violations_order++;
        return NAND_E_ORDER;
    }
    return NAND_OK;
}

/* How many bytes from column 0 on segs give without a gap. */
static uint32_t segs_prefix(const struct seg *segs, int nseg)
{
    uint32_t at = 0;
    for (int i = 0; i < nseg && segs[i].col == at; i++)
        at += segs[i].len;
    return at;
}

/* Slot p of block b now holds a program's result: count it. */
static void mark_programmed(nand_dev *dev, nand_block_t b, nand_page_t p, struct slot *sl,
                            const struct sched *s)
{
    sl->nprog++;
    sl->prog_time = s->done;
    if (p + 1 > dev->bs[b].next_page)
        dev->bs[b].next_page = p + 1;
}

/* The program took (its slot holds the stored page): account and end it. */
static int program_took(nand_dev *dev, uint32_t bytes, struct inflight *fl,
                        const struct sched *s, int queued, struct nand_result *res)
{
    dev->st.programs++;
    dev->st.bytes_written += bytes;
    if (fl)
        sim_inflight_done(dev, fl, bytes, NAND_OK);
    finish_op(dev, s, queued, res);
    return NAND_OK;
}

/* take (may be NULL): the caller's page buffer, whose data segs[0] is,
 * stored as it is where the program goes through in full on an erased
 * page (*took set); the caller frees it otherwise (nand_program_buffer). */
static int do_program(nand_dev *dev, nand_block_t b, nand_page_t p,
                      const struct seg *segs, int nseg, int queued,
                      struct pbuf *take, int *took, struct nand_result *res)
{
    int rc = check_power(dev);
    if (rc)
        return rc;
    uint32_t bytes = 0;
    if (bad_addr(dev, b, p, 0, 0))
        return NAND_E_ADDR;
    for (int i = 0; i < nseg; i++) {
        if (bad_addr(dev, b, p, segs[i].col, segs[i].len))
            return NAND_E_ADDR;
        bytes += segs[i].len;
    }
    if ((rc = check_program_rules(dev, b, p)))
        return rc;

    struct sched s;
    if ((rc = sim_sched_op(dev, NAND_OP_PROGRAM, b, p, bytes, &s)))
        return rc;
    struct nand_op op = {.kind = NAND_OP_PROGRAM, .block = b, .page = p};
    double frac = 1.0;
    enum cut_outcome cut = cut_decide(dev, &op, &s, queued, &frac);
    if (cut == NOT_STARTED)
        return cut_now(dev, &s, 0.0);
    struct inflight *fl = NULL;
    if (queued && cut == RUN_FULL &&
        !(fl = sim_inflight_begin(dev, NAND_OP_PROGRAM, b, p, &s)))
        return NAND_E_NOMEM;

    struct bpages *bp = sim_bpages_own_page(dev, b, p); /* slot p (damage: more) */
    if (!bp)
        return NAND_E_NOMEM;
    struct slot *sl = &bp->slot[p];
    if (take && !sl->pg && cut == RUN_FULL && !sim_wear_fails(dev, b, p, NAND_OP_PROGRAM)) {
        /* the spare was not given: it stays erased */
        memset(take->bytes + dev->cfg.geo.page_size, 0xff, dev->cfg.geo.oob_size);
        mark_programmed(dev, b, p, sl, &s);
        sl->pg = sim_pbuf_intern(dev, take);
        *took = 1;
        return program_took(dev, bytes, fl, &s, queued, res);
    }
    /* the common case: a whole page from one buffer of the caller's onto
     * an erased page, programmed in full: stored straight from that
     * buffer (with compress, encoded from it without a copy first) */
    if (!sl->pg && cut == RUN_FULL && segs_prefix(segs, nseg) == dev->page_bytes &&
        (nseg == 1 || segs[1].buf == segs[0].buf + segs[0].len) &&
        !sim_wear_fails(dev, b, p, NAND_OP_PROGRAM)) {
        struct pbuf *whole = sim_pbuf_from(dev, segs[0].buf);
        if (!whole)
            return NAND_E_NOMEM;
        mark_programmed(dev, b, p, sl, &s);
        sl->pg = sim_pbuf_share(dev, whole);
        return program_took(dev, bytes, fl, &s, queued, res);
    }
    struct pbuf *pg = sim_pbuf_new_uninit(dev);
    if (!pg)
        return NAND_E_NOMEM;
    const uint8_t *before = pbuf_view(dev, sl->pg);
    /* programming can only clear bits: the result is old AND new; on an
     * erased page only bytes the segments do not give from column 0 on
     * need the erased 0xFF first */
    uint32_t given = sl->pg ? 0 : segs_prefix(segs, nseg);
    if (sl->pg)
        memcpy(pg->bytes, before, dev->page_bytes);
    else if (given < dev->page_bytes)
        memset(pg->bytes + given, 0xff, dev->page_bytes - given);
    for (int i = 0; i < nseg; i++) {
        uint8_t *dst = pg->bytes + segs[i].col;
        if (sl->pg)
            for (uint32_t j = 0; j < segs[i].len; j++)
                dst[j] &= segs[i].buf[j];
        else
            memcpy(dst, segs[i].buf, segs[i].len);
    }
    mark_programmed(dev, b, p, sl, &s);

    int upper;
    nand_page_t lower = sim_page_pair_lower(dev, p, &upper);
    if (cut == TEAR || sim_wear_fails(dev, b, p, NAND_OP_PROGRAM)) {
        if (cut != TEAR)
            frac = rng_unit(rng_key(dev->cfg.seed, RNG_TEAR_FRAC, b, p,
                                    dev->bs[b].pe, 1));
        sim_damage_program(dev, b, p, pg->bytes, before, frac, sl);
        sim_pbuf_unref(dev, pg);
        if (upper)
            sim_damage_paired(dev, b, lower);
        if (cut == TEAR) {
            dev->st.torn_programs++;
            return cut_now(dev, &s, frac);
        }
        dev->bs[b].flags |= BF_GROWN_BAD;
        dev->st.program_fails++;
        if (fl)
            sim_inflight_done(dev, fl, bytes, NAND_E_PROGRAM_FAIL);
        finish_op(dev, &s, queued, res);
        return NAND_E_PROGRAM_FAIL;
    }
    sim_pbuf_unref(dev, sl->pg);
    sl->pg = sim_pbuf_intern(dev, pg);
    return program_took(dev, bytes, fl, &s, queued, res);
}

int nand_program(nand_dev *dev, nand_block_t b, nand_page_t p,
                 const void *data, const void *oob, struct nand_result *res)
{
    struct seg segs[2];
    clear_res(res);
    int n = page_segs(dev, (void *)data, (void *)oob, segs);
    return do_program(dev, b, p, segs, n, 0, NULL, NULL, res);
}

/* The page buffers of nand_page_buffer are the store's own. */
static struct pbuf *pbuf_of(void *buf)
{
    return (struct pbuf *)((uint8_t *)buf - offsetof(struct pbuf, bytes));
}

void *nand_page_buffer(nand_dev *dev)
{
    struct pbuf *pg = sim_pbuf_new_uninit(dev);
    return pg ? pg->bytes : NULL;
}

void nand_page_buffer_free(nand_dev *dev, void *buf)
{
    if (buf)
        sim_pbuf_unref(dev, pbuf_of(buf));
}

int nand_program_buffer(nand_dev *dev, nand_block_t b, nand_page_t p, void *buf,
                        struct nand_result *res)
{
    struct seg seg = {0, dev->cfg.geo.page_size, buf};
    int took = 0;
    clear_res(res);
    int rc = do_program(dev, b, p, &seg, 1, 0, pbuf_of(buf), &took, res);
    if (!took)
        nand_page_buffer_free(dev, buf);
    return rc;
}

int nand_program_col(nand_dev *dev, nand_block_t b, nand_page_t p,
                     uint32_t col, const void *buf, uint32_t len,
                     struct nand_result *res)
{
    struct seg seg = {col, len, (uint8_t *)buf};
    clear_res(res);
    return do_program(dev, b, p, &seg, 1, 0, NULL, NULL, res);
}

/* ---- erase --------------------------------------------------------------- */

static int do_erase(nand_dev *dev, nand_block_t b, int queued,
                    struct nand_result *res)
{
    int rc = check_power(dev);
    if (rc)
        return rc;
    if (bad_addr(dev, b, 0, 0, 0))
        return NAND_E_ADDR;
    struct sched s;
    if ((rc = sim_sched_op(dev, NAND_OP_ERASE, b, 0, 0, &s)))
        return rc;
    struct nand_op op = {.kind = NAND_OP_ERASE, .block = b};
    double frac = 1.0;
    enum cut_outcome cut = cut_decide(dev, &op, &s, queued, &frac);
    if (cut == NOT_STARTED)
        return cut_now(dev, &s, 0.0);
    struct inflight *fl = NULL;
    if (queued && cut == RUN_FULL &&
        !(fl = sim_inflight_begin(dev, NAND_OP_ERASE, b, 0, &s)))
        return NAND_E_NOMEM;

    struct bstate *bs = &dev->bs[b];
    if (bs->flags & BF_FACTORY_BAD) { /* fails and keeps its marker */
        dev->st.erase_fails++;
        if (cut == TEAR)
            return cut_now(dev, &s, frac);
        if (fl)
            sim_inflight_done(dev, fl, 0, NAND_E_ERASE_FAIL);
        finish_op(dev, &s, queued, res);
        return NAND_E_ERASE_FAIL;
    }
    bs->pe++;
    if (cut == TEAR || sim_wear_fails(dev, b, 0, NAND_OP_ERASE)) {
        if (cut != TEAR)
            frac = rng_unit(rng_key(dev->cfg.seed, RNG_TEAR_FRAC, b, 0, bs->pe, 2));
        sim_damage_erase(dev, b, frac);
        sim_biterr_block_wear(dev, b);
        if (cut == TEAR) {
            dev->st.torn_erases++;
            return cut_now(dev, &s, frac);
        }
        bs->flags |= BF_GROWN_BAD;
        dev->st.erase_fails++;
        if (fl)
            sim_inflight_done(dev, fl, 0, NAND_E_ERASE_FAIL);
        finish_op(dev, &s, queued, res);
        return NAND_E_ERASE_FAIL;
    }
    sim_bpages_unref(dev, dev->bp[b]);
    dev->bp[b] = NULL;
    dev_touch(dev, b);
    bs->reads = 0;
    bs->next_page = 0;
    bs->flags &= ~(uint32_t)(BF_ERASE_TORN | BF_MARKED_BAD);
    sim_biterr_block_wear(dev, b);
    dev->st.erases++;
    if (fl)
        sim_inflight_done(dev, fl, 0, NAND_OK);
    finish_op(dev, &s, queued, res);
    return NAND_OK;
}

int nand_erase(nand_dev *dev, nand_block_t b, struct nand_result *res)
{
    clear_res(res);
    return do_erase(dev, b, 0, res);
}

/* ---- bad-block marker ---------------------------------------------------- */

int nand_is_bad(nand_dev *dev, nand_block_t b)
{
    uint8_t mark = 0xff;
    struct seg seg = {dev->cfg.geo.page_size, 1, &mark};
    int rc = do_read(dev, b, 0, &seg, 1, 1, 0, NULL, NULL);
    if (rc < 0 && rc != NAND_E_ECC)
        return rc;
    /* The marker is one byte of many zero bits: a stray flip cannot hide
     * it, so compare against "mostly programmed" rather than exactly. */
    return __builtin_popcount(mark) < 4;
}

/* Write the marker regardless of the page rules, as Linux's raw OOB write
 * does; only the first spare byte of page 0 changes. */
int nand_mark_bad(nand_dev *dev, nand_block_t b)
{
    int rc = check_power(dev);
    if (rc)
        return rc;
    if (bad_addr(dev, b, 0, 0, 0))
        return NAND_E_ADDR;
    struct sched s;
    if ((rc = sim_sched_op(dev, NAND_OP_PROGRAM, b, 0, 1, &s)))
        return rc;
    struct nand_op op = {.kind = NAND_OP_PROGRAM, .block = b};
    double frac = 1.0;
    enum cut_outcome cut = cut_decide(dev, &op, &s, 0, &frac);
    if (cut == NOT_STARTED || (cut == TEAR && frac < 0.5))
        return cut_now(dev, &s, cut == TEAR ? frac : 0.0);
    struct bpages *bp = sim_bpages_own(dev, b);
    struct pbuf *pg = sim_pbuf_new(dev);
    if (!bp || !pg) {
        sim_pbuf_unref(dev, pg);
        return NAND_E_NOMEM;
    }
    struct slot *sl = &bp->slot[0];
    if (sl->pg)
        sim_pbuf_copy(dev, sl->pg, 0, dev->page_bytes, pg->bytes);
    pg->bytes[dev->cfg.geo.page_size] = 0x00;
    sim_pbuf_unref(dev, sl->pg);
    sl->pg = sim_pbuf_intern(dev, pg);
    dev->bs[b].flags |= BF_MARKED_BAD;
    if (cut == TEAR)
        return cut_now(dev, &s, frac);
    finish_op(dev, &s, 0, NULL);
    return NAND_OK;
}

/* ---- queue ----------------------------------------------------------------- */

int nand_submit(nand_dev *dev, struct nand_op *op)
{
    struct seg segs[2];
    int n;
    clear_res(&op->res);
    switch (op->kind) {
    case NAND_OP_READ:
        n = page_segs(dev, op->data, op->oob, segs);
        op->status = do_read(dev, op->block, op->page, segs, n, 0, 1, NULL, &op->res);
        break;
    case NAND_OP_PROGRAM:
        n = page_segs(dev, op->data, op->oob, segs);
        op->status = do_program(dev, op->block, op->page, segs, n, 1, NULL, NULL, &op->res);
        break;
    case NAND_OP_ERASE:
        op->status = do_erase(dev, op->block, 1, &op->res);
        break;
    default:
        op->status = NAND_E_INVAL;
    }
    return op->status;
}

/* The clock runs to the end of the queue, or stops at an armed cut time
 * before it, which then judges every queued operation in flight. */
nand_time_t nand_wait(nand_dev *dev)
{
    nand_time_t end = dev->queue_end;
    if (dev->powered && dev->cut == CUT_TIME && dev->cut_time < end)
        end = dev->cut_time > dev->now ? dev->cut_time : dev->now;
    if (end > dev->now)
        dev->now = end;
    check_power(dev);
    return dev->now;
}

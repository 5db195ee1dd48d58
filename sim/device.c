/* device.c -- creating and closing a device, its clock, power and stats. */
#include "nand_internal.h"
#include "rng.h"

#include <stdlib.h>
#include <string.h>

/* Allocate a device for a finished config, every block erased and fresh. */
int sim_dev_alloc(const struct nand_config *cfg, nand_dev **out)
{
    nand_dev *dev = calloc(1, sizeof *dev);
    if (!dev)
        return NAND_E_NOMEM;
    dev->cfg = *cfg;
    dev->nblocks = nand_blocks(cfg);
    dev->ndies = nand_dies(cfg);
    dev->cw_per_page = cfg->geo.page_size / cfg->ecc.codeword_bytes;
    dev->page_bytes = cfg->geo.page_size + cfg->geo.oob_size;
    dev->clim = (dev->page_bytes - 1) / 2;
    dev->powered = 1;
    dev->ff = malloc(dev->page_bytes);
    dev->scratch = malloc(dev->page_bytes);
    dev->enc = malloc(dev->clim + 1);
    int rc = dev->ff && dev->scratch && dev->enc ? sim_store_init(dev) : NAND_E_NOMEM;
    if (rc) {
        nand_close(dev);
        return rc;
    }
    memset(dev->ff, 0xff, dev->page_bytes);
    *out = dev;
    return NAND_OK;
}

int nand_create(const struct nand_config *cfg_in, nand_dev **out)
{
    struct nand_config cfg = *cfg_in;
    int rc = nand_config_finish(&cfg, NULL, 0);
    if (rc)
        return rc;
    nand_dev *dev;
    if ((rc = sim_dev_alloc(&cfg, &dev)))
        return rc;

    /* Factory bad blocks carry the vendor's marker: page 0 all zeros,
     * so its first spare byte is non-0xFF.  Block 0 is guaranteed good.
     * They share one page buffer. */
    struct pbuf *marked = NULL;
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        dev->bs[b].pe = cfg.initial_pe;
        sim_block_reset_wear(dev, (nand_block_t)b);
        double u = rng_unit(rng_key(cfg.seed, RNG_FACTORY_BAD, b, 0, 0, 0));
        if (b == 0 || u >= cfg.factory_bad_fraction)
            continue;
        if (!marked) {
            if (!(marked = sim_pbuf_new(dev)))
                goto nomem;
            memset(marked->bytes, 0, dev->page_bytes);
            marked = sim_pbuf_compact(dev, marked);
        }
        struct bpages *bp = sim_bpages_own(dev, (nand_block_t)b);
        if (!bp)
            goto nomem;
        sim_pbuf_ref(marked);
        bp->slot[0].pg = marked;
        bp->slot[0].nprog = (uint8_t)cfg.nop;
        dev->bs[b].next_page = 1;
        dev->bs[b].flags |= BF_FACTORY_BAD | BF_MARKED_BAD;
    }
    sim_pbuf_unref(dev, marked);
    *out = dev;
    return NAND_OK;
nomem:
    sim_pbuf_unref(dev, marked);
    nand_close(dev);
    return NAND_E_NOMEM;
}

void nand_close(nand_dev *dev)
{
    if (!dev)
        return;
    sim_store_free(dev);
    sim_journal_detach(dev);
    nand_unlock_image(dev->lock); /* after the caller's last save */
    free(dev->ff);
    free(dev->scratch);
    free(dev->enc);
    free(dev);
}

const struct nand_config *nand_get_config(const nand_dev *dev)
{
    return &dev->cfg;
}

/* ---- clock and power ---------------------------------------------------- */

nand_time_t nand_now(const nand_dev *dev)
{
    return dev->now;
}

void nand_advance(nand_dev *dev, nand_time_t ns)
{
    dev->now += ns;
    if (dev->powered && dev->cut == CUT_TIME && dev->now >= dev->cut_time) {
        dev->now = dev->cut_time > dev->now - ns ? dev->cut_time : dev->now;
        sim_power_fail(dev, dev->cut_time);
    }
}

void nand_cut_at_time(nand_dev *dev, nand_time_t t)
{
    dev->cut = CUT_TIME;
    dev->cut_time = t;
}

void nand_cut_after_ops(nand_dev *dev, uint64_t n, double frac)
{
    dev->cut = CUT_OPS;
    dev->cut_ops_left = n;
    dev->cut_frac = frac > 1 ? 1 : frac;
}

void nand_cut_callback(nand_dev *dev, nand_cut_fn fn, void *ctx)
{
    dev->cut = fn ? CUT_CALLBACK : CUT_NONE;
    dev->cut_fn = fn;
    dev->cut_ctx = ctx;
}

void nand_cut_disarm(nand_dev *dev)
{
    dev->cut = CUT_NONE;
}

void nand_power_cut(nand_dev *dev)
{
    if (!dev->powered)
        return;
    sim_power_fail(dev, dev->now);
}

int nand_is_powered(const nand_dev *dev)
{
    return dev->powered;
}

/* Power returns: whatever was in flight is gone, every die is idle now. */
void nand_power_on(nand_dev *dev)
{
    if (dev->queue_end > dev->now && dev->powered)
        dev->now = dev->queue_end;
    for (uint64_t d = 0; d < dev->ndies; d++)
        if (dev->die_free[d] > dev->now)
            dev->die_free[d] = dev->now;
    dev->queue_end = dev->now;
    sim_bus_reset(dev);
    dev->powered = 1;
    dev->cut = CUT_NONE;
}

/* ---- wear and statistics ----------------------------------------------- */

int nand_block_info(const nand_dev *dev, nand_block_t b,
                    struct nand_block_info *info)
{
    if (b >= dev->nblocks)
        return NAND_E_ADDR;
    const struct bstate *s = &dev->bs[b];
    info->pe_cycles = s->pe;
    double e = s->endurance * dev->cfg.endurance_scale; /* saturate, never UB */
    info->endurance = e >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)e;
    info->reads_since_erase = s->reads;
    info->pages_programmed = s->next_page;
    info->factory_bad = !!(s->flags & BF_FACTORY_BAD);
    info->grown_bad = !!(s->flags & BF_GROWN_BAD);
    info->marked_bad = !!(s->flags & BF_MARKED_BAD);
    info->erase_torn = !!(s->flags & BF_ERASE_TORN);
    return NAND_OK;
}

int nand_set_wear(nand_dev *dev, nand_block_t b, uint64_t pe_cycles)
{
    if (b >= dev->nblocks)
        return NAND_E_ADDR;
    dev->bs[b].pe = pe_cycles;
    sim_biterr_block_wear(dev, b);
    return NAND_OK;
}

void nand_get_stats(const nand_dev *dev, struct nand_stats *st)
{
    *st = dev->st;
}

/* Zero the operation counters; what the device holds stays counted. */
void nand_reset_stats(nand_dev *dev)
{
    uint64_t pages = dev->st.pages_stored, bytes = dev->st.bytes_stored;
    memset(&dev->st, 0, sizeof dev->st);
    dev->st.pages_stored = pages;
    dev->st.bytes_stored = bytes;
}

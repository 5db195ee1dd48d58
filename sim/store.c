/*
 * store.c -- sparse copy-on-write page storage, dedup and snapshots.
 * See nand_internal.h for the three levels of sharing.
 */
#include "nand_internal.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- page buffers ------------------------------------------------------ */

struct pbuf *pbuf_new(nand_dev *dev)
{
    struct pbuf *pg = pbuf_new_uninit(dev);
    if (pg)
        memset(pg->bytes, 0xff, dev->page_bytes);
    return pg;
}

struct pbuf *pbuf_new_uninit(nand_dev *dev)
{
    struct pbuf *pg = malloc(sizeof *pg + dev->page_bytes);
    if (!pg)
        return NULL;
    pg->refs = 1;
    pg->in_dedup = 0;
    pg->hash = 0;
    pg->dnext = NULL;
    dev->st.pages_stored++;
    dev->st.bytes_stored += dev->page_bytes;
    return pg;
}

void pbuf_ref(struct pbuf *pg)
{
    if (pg)
        pg->refs++;
}

static uint64_t content_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0x84222325cbf29ce4ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return rng_mix(h);
}

static void dedup_remove(nand_dev *dev, struct pbuf *pg)
{
    struct pbuf **pp = &dev->dtab[pg->hash & (dev->dtab_size - 1)];
    while (*pp && *pp != pg)
        pp = &(*pp)->dnext;
    if (*pp) {
        *pp = pg->dnext;
        dev->dtab_count--;
    }
}

void pbuf_unref(nand_dev *dev, struct pbuf *pg)
{
    if (!pg || --pg->refs)
        return;
    if (pg->in_dedup)
        dedup_remove(dev, pg);
    dev->st.pages_stored--;
    dev->st.bytes_stored -= dev->page_bytes;
    free(pg);
}

static int dedup_grow(nand_dev *dev)
{
    uint64_t nsize = dev->dtab_size ? dev->dtab_size * 2 : 1024;
    struct pbuf **nt = calloc(nsize, sizeof *nt);
    if (!nt)
        return -1;
    for (uint64_t i = 0; i < dev->dtab_size; i++) {
        struct pbuf *pg = dev->dtab[i];
        while (pg) {
            struct pbuf *next = pg->dnext;
            pg->dnext = nt[pg->hash & (nsize - 1)];
            nt[pg->hash & (nsize - 1)] = pg;
            pg = next;
        }
    }
    free(dev->dtab);
    dev->dtab = nt;
    dev->dtab_size = nsize;
    return 0;
}

/* With dedup on, return an existing buffer equal to pg (dropping pg) or
 * register pg; without dedup, return pg unchanged. */
struct pbuf *pbuf_intern(nand_dev *dev, struct pbuf *pg)
{
    if (!dev->cfg.dedup || !pg)
        return pg;
    if (dev->dtab_count >= dev->dtab_size && dedup_grow(dev))
        return pg; /* no memory for the table: store the page unshared */
    pg->hash = content_hash(pg->bytes, dev->page_bytes);
    struct pbuf **head = &dev->dtab[pg->hash & (dev->dtab_size - 1)];
    for (struct pbuf *q = *head; q; q = q->dnext) {
        if (q->hash == pg->hash &&
            !memcmp(q->bytes, pg->bytes, dev->page_bytes)) {
            q->refs++;
            pbuf_unref(dev, pg);
            return q;
        }
    }
    pg->in_dedup = 1;
    pg->dnext = *head;
    *head = pg;
    dev->dtab_count++;
    return pg;
}

/* ---- block page tables ------------------------------------------------- */

static size_t bpages_size(const nand_dev *dev)
{
    return sizeof(struct bpages) +
           (size_t)dev->cfg.geo.pages_per_block * sizeof(struct slot);
}

void bpages_unref(nand_dev *dev, struct bpages *bp)
{
    if (!bp || --bp->refs)
        return;
    for (uint32_t p = 0; p < dev->cfg.geo.pages_per_block; p++)
        pbuf_unref(dev, bp->slot[p].pg);
    free(bp);
}

/* The block's page table, private to the device so it may be written:
 * allocated if the block held nothing, copied if a snapshot shares it. */
struct bpages *bpages_own(nand_dev *dev, nand_block_t b)
{
    struct bpages *bp = dev->bp[b];
    if (bp && bp->refs == 1)
        return bp;
    struct bpages *nb = malloc(bpages_size(dev));
    if (!nb)
        return NULL;
    if (bp) {
        memcpy(nb, bp, bpages_size(dev));
        for (uint32_t p = 0; p < dev->cfg.geo.pages_per_block; p++)
            pbuf_ref(nb->slot[p].pg);
        bp->refs--;
    } else {
        memset(nb, 0, bpages_size(dev));
    }
    nb->refs = 1;
    dev->bp[b] = nb;
    return nb;
}

/* ---- per-block wear ---------------------------------------------------- */

/* The block's endurance drawn around the rated value (normal, clipped):
 * a pure function of the configuration and the block number. */
double block_drawn_endurance(const nand_dev *dev, nand_block_t b)
{
    const struct nand_config *c = &dev->cfg;
    double z = 0.0;
    if (c->endurance_sigma > 0) {
        double u1 = rng_unit(rng_key(c->seed, RNG_ENDURANCE, b, 0, 0, 0));
        double u2 = rng_unit(rng_key(c->seed, RNG_ENDURANCE, b, 1, 0, 0));
        z = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
    }
    double e = (double)c->endurance * (1.0 + c->endurance_sigma * z);
    return e < 1.0 ? 1.0 : e;
}

void block_reset_wear(nand_dev *dev, nand_block_t b)
{
    dev->bs[b].endurance = block_drawn_endurance(dev, b);
    biterr_block_wear(dev, b);
}

/* MLC/TLC page pairing: the rule is nand_page_is_upper's (config.c). */
uint32_t page_pair_lower(const nand_dev *dev, nand_page_t p, int *is_upper)
{
    nand_page_t lower;
    *is_upper = nand_page_is_upper(&dev->cfg, p, &lower);
    return lower;
}

/* ---- device storage lifetime ------------------------------------------- */

int store_init(nand_dev *dev)
{
    dev->bs = calloc(dev->nblocks, sizeof *dev->bs);
    dev->bp = calloc(dev->nblocks, sizeof *dev->bp);
    dev->die_free = calloc(dev->ndies, sizeof *dev->die_free);
    dev->bus = calloc(dev->cfg.geo.channels, sizeof *dev->bus);
    if (!dev->bs || !dev->bp || !dev->die_free || !dev->bus)
        return NAND_E_NOMEM;
    return NAND_OK;
}

void store_free(nand_dev *dev)
{
    if (dev->bp)
        for (uint64_t b = 0; b < dev->nblocks; b++)
            bpages_unref(dev, dev->bp[b]);
    free(dev->bp);
    free(dev->bs);
    free(dev->die_free);
    bus_free_all(dev);
    free(dev->dtab);
}

/* ---- snapshots --------------------------------------------------------- */

int nand_snapshot_take(nand_dev *dev, nand_snapshot **out)
{
    nand_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return NAND_E_NOMEM;
    s->nblocks = dev->nblocks;
    s->owner = dev;
    s->bs = malloc(dev->nblocks * sizeof *s->bs);
    s->bp = malloc(dev->nblocks * sizeof *s->bp);
    s->die_free = malloc(dev->ndies * sizeof *s->die_free);
    if (!s->bs || !s->bp || !s->die_free) {
        nand_snapshot_free(s);
        return NAND_E_NOMEM;
    }
    memcpy(s->bs, dev->bs, dev->nblocks * sizeof *s->bs);
    memcpy(s->bp, dev->bp, dev->nblocks * sizeof *s->bp);
    for (uint64_t b = 0; b < dev->nblocks; b++)
        if (s->bp[b])
            s->bp[b]->refs++;
    memcpy(s->die_free, dev->die_free, dev->ndies * sizeof *s->die_free);
    s->now = dev->now;
    s->queue_end = dev->queue_end;
    s->st = dev->st;
    *out = s;
    return NAND_OK;
}

/* Return the device to the snapshot's state, powered on, no cut armed. */
int nand_snapshot_restore(nand_dev *dev, const nand_snapshot *s)
{
    if (!s || s->owner != dev || s->nblocks != dev->nblocks)
        return NAND_E_INVAL;
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        if (s->bp[b])
            s->bp[b]->refs++;
        bpages_unref(dev, dev->bp[b]);
        dev->bp[b] = s->bp[b];
    }
    memcpy(dev->bs, s->bs, dev->nblocks * sizeof *s->bs);
    memcpy(dev->die_free, s->die_free, dev->ndies * sizeof *s->die_free);
    /* A snapshot is taken between operations: transfers reserved on the
     * bus belong to operations that have already taken effect. */
    bus_reset(dev);
    dev->now = s->now;
    dev->queue_end = s->queue_end;
    /* storage counters describe what is held now, not what the snapshot
     * held; they were recomputed by the unrefs above */
    uint64_t pages = dev->st.pages_stored, bytes = dev->st.bytes_stored;
    dev->st = s->st;
    dev->st.pages_stored = pages;
    dev->st.bytes_stored = bytes;
    dev->powered = 1;
    dev->cut = CUT_NONE;
    return NAND_OK;
}

void nand_snapshot_free(nand_snapshot *s)
{
    if (!s)
        return;
    if (s->bp)
        for (uint64_t b = 0; b < s->nblocks; b++)
            bpages_unref(s->owner, s->bp[b]);
    free(s->bp);
    free(s->bs);
    free(s->die_free);
    free(s);
}

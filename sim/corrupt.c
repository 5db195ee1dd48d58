/*
 * corrupt.c -- damage injection: media faults and failing firmware put
 * into the stored state on purpose (nand_corrupt, docs/simulator.md).
 *
 * Every mode maps onto state the simulator already keeps, so damage is
 * saved and loaded like anything else and needs no special case on the
 * read path: page contents (SILENT, WIPE, TEAR, BAD's marker), the
 * damaged-codeword mask (UNCORRECTABLE, TEAR), block flags (BAD), the
 * clock and read counts (AGE).  Only FLIP/BEYOND add state: a slot's weak
 * cells (weak_cw, weak_bits), raw bit errors every read of the page sees
 * on top of the sampled ones (biterr.c), which the image stores in a
 * section of its own (image.c).
 */
#include "nand_internal.h"
#include "rng.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {
    [NAND_CORRUPT_FLIP] = "flip",
    [NAND_CORRUPT_BEYOND] = "beyond",
    [NAND_CORRUPT_UNCORRECTABLE] = "uncorrectable",
    [NAND_CORRUPT_WIPE] = "wipe",
    [NAND_CORRUPT_TEAR] = "tear",
    [NAND_CORRUPT_BAD] = "bad",
    [NAND_CORRUPT_AGE] = "age",
    [NAND_CORRUPT_SILENT] = "silent",
};
#define NMODES (sizeof mode_names / sizeof mode_names[0])

int nand_corrupt_mode_parse(const char *name)
{
    for (size_t i = 1; name && i < NMODES; i++)
        if (!strcmp(name, mode_names[i]))
            return (int)i;
    return 0;
}

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* A copy of the slot's page in a fresh buffer the caller owns. */
static struct pbuf *page_copy(nand_dev *dev, const struct slot *sl)
{
    struct pbuf *pg = sim_pbuf_new_uninit(dev);
    if (pg)
        sim_pbuf_copy(dev, sl->pg, 0, dev->page_bytes, pg->bytes);
    return pg;
}

static void slot_store(nand_dev *dev, struct slot *sl, struct pbuf *pg)
{
    sim_pbuf_unref(dev, sl->pg);
    sl->pg = sim_pbuf_intern(dev, pg);
}

/* FLIP and BEYOND: weak cells in one codeword (the one holding byte
 * `offset`, or one drawn from the seed among the data codewords). */
static void weak_cells(nand_dev *dev, const struct nand_corrupt *c,
                       struct slot *sl)
{
    uint32_t t = dev->cfg.ecc.correct_bits, bits = c->bits ? c->bits : 1;
    if (c->mode == NAND_CORRUPT_BEYOND && bits <= t)
        bits = t + 1;
    uint32_t cs, cl, cw;
    if (c->offset || !dev->cw_per_page)
        cw = sim_codeword_of(dev, c->offset, &cs, &cl);
    else
        cw = sim_codeword_of(dev, (uint32_t)(rng_key(c->seed, RNG_CORRUPT, c->block,
                                           c->page, 1, 0) % dev->cw_per_page) *
                            dev->cfg.ecc.codeword_bytes, &cs, &cl);
    if (bits > cl * 8)
        bits = cl * 8;
    if (bits > 0xffff)
        bits = 0xffff;
    sl->weak_cw = (uint8_t)cw;
    sl->weak_bits = (uint16_t)bits;
}

/* SILENT: `bits` distinct bits of [offset, offset + length) change in the
 * stored page, so every read returns them and ECC has nothing to fix. */
static int silent(nand_dev *dev, const struct nand_corrupt *c, struct slot *sl,
                  char *err, size_t errlen)
{
    uint32_t end = c->offset < dev->cfg.geo.page_size ? dev->cfg.geo.page_size
                                                      : dev->page_bytes;
    uint32_t len = c->length ? c->length : end - c->offset;
    if (c->offset >= dev->page_bytes || len > dev->page_bytes - c->offset)
        return fail(err, errlen, NAND_E_ADDR,
                    "block %u page %u: bytes %u..%u are outside the %u-byte page",
                    c->block, c->page, c->offset, c->offset + len,
                    dev->page_bytes);
    uint64_t nbits = (uint64_t)len * 8;
    uint32_t bits = c->bits ? c->bits : 1;
    if (bits > nbits)
        bits = (uint32_t)nbits;
    struct pbuf *pg = page_copy(dev, sl);
    uint8_t *seen = calloc((size_t)len, 1); /* bits already changed */
    if (!pg || !seen) {
        sim_pbuf_unref(dev, pg);
        free(seen);
        return NAND_E_NOMEM;
    }
    for (uint64_t j = 0, draw = 0; j < bits; draw++) {
        uint64_t bit = rng_key(c->seed, RNG_CORRUPT, c->block, c->page, 2,
                               draw) % nbits;
        uint8_t m = (uint8_t)(1u << (bit & 7));
        if (seen[bit >> 3] & m)
            continue;
        seen[bit >> 3] |= m;
        pg->bytes[c->offset + (bit >> 3)] ^= m;
        j++;
    }
    free(seen);
    slot_store(dev, sl, pg);
    return NAND_OK;
}

/* TEAR: the page as a program of its content cut after frac of tPROG
 * leaves it (damage.c), from the erased state. */
static int tear(nand_dev *dev, const struct nand_corrupt *c, struct slot *sl)
{
    double frac = c->frac;
    if (frac < 0)
        frac = rng_unit(rng_key(c->seed, RNG_CORRUPT, c->block, c->page, 3, 0));
    uint8_t *want = malloc(dev->page_bytes);
    if (!want)
        return NAND_E_NOMEM;
    sim_pbuf_copy(dev, sl->pg, 0, dev->page_bytes, want);
    sim_damage_program(dev, c->block, c->page, want, dev->ff, frac, sl);
    free(want);
    return NAND_OK;
}

/* BAD: the marker as nand_mark_bad writes it, the grown-bad flag, and
 * from now on every program and erase of the block fails (damage.c). */
static int mark_grown_bad(nand_dev *dev, nand_block_t b)
{
    struct bpages *bp = sim_bpages_own(dev, b);
    struct pbuf *pg = bp ? sim_pbuf_new(dev) : NULL;
    if (!pg)
        return NAND_E_NOMEM;
    struct slot *sl = &bp->slot[0];
    if (sl->pg)
        sim_pbuf_copy(dev, sl->pg, 0, dev->page_bytes, pg->bytes);
    pg->bytes[dev->cfg.geo.page_size] = 0x00;
    slot_store(dev, sl, pg);
    dev->bs[b].flags |= BF_GROWN_BAD | BF_MARKED_BAD | BF_FAILING;
    return NAND_OK;
}

static int age(nand_dev *dev, const struct nand_corrupt *c, char *err,
               size_t errlen)
{
    if (!c->all_blocks && c->block >= dev->nblocks)
        return fail(err, errlen, NAND_E_ADDR,
                    "block %u is out of range (the device has %llu blocks)",
                    c->block, (unsigned long long)dev->nblocks);
    dev->now += c->age_ns; /* as nand_advance, but no cut can fire */
    for (uint64_t b = 0; c->reads && b < dev->nblocks; b++)
        if (c->all_blocks || b == c->block)
            dev->bs[b].reads += c->reads;
    return NAND_OK;
}

int nand_corrupt(nand_dev *dev, const struct nand_corrupt *c, char *err,
                 size_t errlen)
{
    if (!dev || !c || c->mode < NAND_CORRUPT_FLIP ||
        (size_t)c->mode >= NMODES)
        return fail(err, errlen, NAND_E_INVAL, "unknown damage mode");
    if (c->mode == NAND_CORRUPT_AGE)
        return age(dev, c, err, errlen);
    if (c->block >= dev->nblocks)
        return fail(err, errlen, NAND_E_ADDR,
                    "block %u is out of range (the device has %llu blocks)",
                    c->block, (unsigned long long)dev->nblocks);
    if (c->mode == NAND_CORRUPT_BAD)
        return mark_grown_bad(dev, c->block);
    if (c->page >= dev->cfg.geo.pages_per_block)
        return fail(err, errlen, NAND_E_ADDR,
                    "page %u is out of range (blocks have %u pages)", c->page,
                    dev->cfg.geo.pages_per_block);
    if ((c->mode == NAND_CORRUPT_FLIP || c->mode == NAND_CORRUPT_BEYOND) &&
        c->offset >= dev->page_bytes)
        return fail(err, errlen, NAND_E_ADDR,
                    "block %u page %u: byte %u is outside the %u-byte page",
                    c->block, c->page, c->offset, dev->page_bytes);
    const struct slot *cur = dev->bp[c->block] ? &dev->bp[c->block]->slot[c->page]
                                               : NULL;
    if (!cur || !cur->pg) {
        if (c->mode == NAND_CORRUPT_WIPE)
            return NAND_OK; /* already erased */
        return fail(err, errlen, NAND_E_INVAL,
                    "block %u page %u is erased: nothing to damage", c->block,
                    c->page);
    }
    struct bpages *bp = sim_bpages_own(dev, c->block);
    if (!bp)
        return NAND_E_NOMEM;
    struct slot *sl = &bp->slot[c->page];
    switch (c->mode) {
    case NAND_CORRUPT_FLIP:
    case NAND_CORRUPT_BEYOND:
        weak_cells(dev, c, sl);
        return NAND_OK;
    case NAND_CORRUPT_UNCORRECTABLE:
        sl->damaged = dev->cw_per_page + 1 >= 64 ? ~0ull
                    : (1ull << (dev->cw_per_page + 1)) - 1;
        return NAND_OK;
    case NAND_CORRUPT_WIPE:
        sim_pbuf_unref(dev, sl->pg);
        sl->pg = NULL;
        sl->damaged = 0;
        sl->weak_bits = 0;
        sl->weak_cw = 0;
        return NAND_OK;
    case NAND_CORRUPT_TEAR:
        return tear(dev, c, sl);
    case NAND_CORRUPT_SILENT:
        return silent(dev, c, sl, err, errlen);
    default:
        return fail(err, errlen, NAND_E_INVAL, "unknown damage mode");
    }
}

uint64_t sim_corrupt_weak_pages(const nand_dev *dev)
{
    uint64_t n = 0;
    for (uint64_t b = 0; b < dev->nblocks; b++)
        for (uint32_t p = 0; dev->bp[b] && p < dev->cfg.geo.pages_per_block; p++)
            n += dev->bp[b]->slot[p].weak_bits != 0;
    return n;
}

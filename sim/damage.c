/*
 * damage.c -- what interrupted and failed operations leave behind.
 *
 * An interrupted program has moved each of its 1->0 bits with probability
 * equal to the fraction of tPROG that elapsed; an interrupted erase has
 * moved each 0->1 bit with the fraction of tBERS.  The result is then seen
 * through ECC, codeword by codeword: within t bits of the intended content
 * it reads as that content (ECC corrects it), within t bits of the content
 * before the operation it reads as that, and otherwise the codeword is
 * marked damaged and every read of it is uncorrectable -- the way a real
 * controller sees a torn page, including one that looks almost erased.
 */
#include "nand_internal.h"
#include "rng.h"

#include <math.h>
#include <string.h>

static uint32_t popcount_diff(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < n; i++)
        d += (uint32_t)__builtin_popcount(a[i] ^ b[i]);
    return d;
}

/* Resolve torn bytes `res` codeword by codeword against the two contents
 * ECC could recover; returns the damaged-codeword mask. */
static uint64_t settle(nand_dev *dev, uint8_t *res, const uint8_t *a,
                       const uint8_t *b)
{
    uint32_t t = dev->cfg.ecc.correct_bits;
    uint64_t mask = 0;
    for (uint32_t off = 0; off < dev->page_bytes;) {
        uint32_t cs, cl, cw = sim_codeword_of(dev, off, &cs, &cl);
        off = cs + cl;
        if (popcount_diff(res + cs, a + cs, cl) <= t)
            memcpy(res + cs, a + cs, cl);
        else if (popcount_diff(res + cs, b + cs, cl) <= t)
            memcpy(res + cs, b + cs, cl);
        else
            mask |= 1ull << cw;
    }
    return mask;
}

/* Per byte, a mask of the bits that moved: bit j moved if its 8-bit draw
 * is below frac * 256. */
static uint8_t moved_bits(uint64_t r, unsigned thresh)
{
    uint8_t m = 0;
    for (int j = 0; j < 8; j++)
        if (((r >> (8 * j)) & 0xff) < thresh)
            m |= (uint8_t)(1u << j);
    return m;
}

static unsigned frac_thresh(double frac)
{
    if (frac <= 0)
        return 0;
    if (frac >= 1)
        return 256;
    return (unsigned)(frac * 256.0);
}

void sim_damage_program(nand_dev *dev, nand_block_t b, nand_page_t p,
                    const uint8_t *intended, const uint8_t *before,
                    double frac, struct slot *sl)
{
    struct pbuf *pg = sim_pbuf_new(dev);
    if (!pg)
        return; /* out of memory: the page stays as it was */
    unsigned th = frac_thresh(frac);
    uint64_t salt = dev->st.state_ops;
    for (uint32_t i = 0; i < dev->page_bytes; i++) {
        uint8_t want = (uint8_t)(before[i] & ~intended[i]); /* 1->0 bits */
        uint8_t done = want ? moved_bits(rng_key(dev->cfg.seed, RNG_TEAR, b,
                                                 p, salt, i), th) & want : 0;
        pg->bytes[i] = (uint8_t)(before[i] & ~done);
    }
    sl->damaged |= settle(dev, pg->bytes, intended, before);
    sim_pbuf_unref(dev, sl->pg);
    sl->pg = sim_pbuf_compact(dev, pg);
}

/* Turn each 0 bit of the stored page to 1 with probability q. */
static void spoil_page(nand_dev *dev, nand_block_t b, nand_page_t p,
                       struct slot *sl, unsigned th, uint32_t domain,
                       const uint8_t *alt)
{
    if (!sl->pg)
        return;
    struct pbuf *pg = sim_pbuf_new(dev);
    if (!pg)
        return;
    uint64_t salt = dev->st.state_ops;
    const uint8_t *old = pbuf_view(dev, sl->pg);
    for (uint32_t i = 0; i < dev->page_bytes; i++) {
        uint8_t zeros = (uint8_t)~old[i];
        uint8_t m = zeros ? moved_bits(rng_key(dev->cfg.seed, domain, b, p,
                                               salt, i), th) & zeros : 0;
        pg->bytes[i] = (uint8_t)(old[i] | m);
    }
    sl->damaged |= settle(dev, pg->bytes, old, alt);
    sim_pbuf_unref(dev, sl->pg);
    sl->pg = sim_pbuf_compact(dev, pg);
}

void sim_damage_erase(nand_dev *dev, nand_block_t b, double frac)
{
    struct bpages *bp = sim_bpages_own(dev, b);
    if (!bp)
        return;
    unsigned th = frac_thresh(frac);
    for (uint32_t p = 0; p < dev->cfg.geo.pages_per_block; p++) {
        struct slot *sl = &bp->slot[p];
        spoil_page(dev, b, p, sl, th, RNG_TEAR, dev->ff);
        /* cells neither erased nor programmed: not safely programmable */
        sl->nprog = (uint8_t)dev->cfg.nop;
    }
    dev->bs[b].flags |= BF_ERASE_TORN;
    dev->bs[b].next_page = dev->cfg.geo.pages_per_block;
}

/* An interrupted upper-page program disturbs the cells it shares with its
 * lower page: about one bit in sixteen of the lower page moves. */
void sim_damage_paired(nand_dev *dev, nand_block_t b, nand_page_t lower)
{
    struct bpages *bp = sim_bpages_own(dev, b);
    if (!bp || !bp->slot[lower].pg)
        return;
    spoil_page(dev, b, lower, &bp->slot[lower], 16, RNG_PAIRED, dev->ff);
    dev->st.paired_corruptions++;
}

/* Past its endurance a block's program and erase fail with a probability
 * that rises with the excess wear: 1 - exp(-excess / (5% of endurance)).
 * Factory-bad blocks, and blocks nand_corrupt made bad, always fail. */
int sim_wear_fails(nand_dev *dev, nand_block_t b, nand_page_t p, uint32_t what)
{
    const struct bstate *s = &dev->bs[b];
    if (s->flags & (BF_FACTORY_BAD | BF_FAILING))
        return 1;
    double excess = (double)s->pe / dev->cfg.endurance_scale - s->endurance;
    if (excess <= 0)
        return 0;
    double prob = 1.0 - exp(-excess / (0.05 * s->endurance));
    double u = rng_unit(rng_key(dev->cfg.seed, RNG_WEAR_FAIL, b, p, s->pe, what));
    return u < prob;
}

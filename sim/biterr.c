/*
 * biterr.c -- raw bit errors and the ECC model.
 *
 * RBER = eps + alpha*PE^k + beta*PE^m*t^n + gamma*PE^p*R^q per bit, with PE
 * the block's effective wear (P/E / endurance_scale), t hours since the page
 * was programmed, R reads of the block since erase.  The PE factors change
 * only at erase, so they are kept per block (bstate.wear_*).
 *
 * For each ECC codeword touched by a read the number of flipped bits is
 * sampled from Poisson(n * RBER) by inverting its CDF at one uniform drawn
 * from the counter-based generator: the cost does not grow with the number
 * of bits, and a slightly larger rate gives the same or a larger count for
 * the same draw.  A codeword with at most t flips is corrected (the caller
 * sees clean data, the count is reported); with more, the flips are applied
 * to the caller's buffer and the read is uncorrectable.  Stored data never
 * changes on a read.  Erased pages read clean.
 */
#include "nand_internal.h"
#include "rng.h"

#include <math.h>
#include <string.h>

#define NS_PER_HOUR 3.6e12

/* The PE-dependent factors of the wear, retention and disturb terms: they
 * change only at erase, so a device keeps them per block. */
static void wear_factors(const struct nand_rber_model *m, double pe, double w[3])
{
    w[0] = pe > 0 ? m->alpha * pow(pe, m->k) : 0.0;
    w[1] = pe > 0 ? m->beta * pow(pe, m->m) : 0.0;
    w[2] = pe > 0 ? m->gamma * pow(pe, m->p) : 0.0;
}

/* The rate from those factors, the page's age and the block's reads. */
static double rate(const struct nand_rber_model *m, const double w[3],
                   double hours, double reads)
{
    double r = m->eps + w[0];
    if (w[1] > 0 && hours > 0)
        r += w[1] * pow(hours, m->n);
    if (w[2] > 0 && reads > 0)
        r += w[2] * pow(reads, m->q);
    return r < 0.5 ? r : 0.5;
}

double nand_rber(const struct nand_rber_model *m, double pe, double hours,
                 double reads)
{
    double w[3];
    wear_factors(m, pe, w);
    return rate(m, w, hours, reads);
}

void sim_biterr_block_wear(nand_dev *dev, nand_block_t b)
{
    struct bstate *s = &dev->bs[b];
    double w[3];
    wear_factors(&dev->cfg.rber, (double)s->pe / dev->cfg.endurance_scale, w);
    s->wear_a = w[0];
    s->wear_b = w[1];
    s->wear_g = w[2];
}

double sim_biterr_rber(const nand_dev *dev, nand_block_t b, const struct slot *sl)
{
    const struct bstate *s = &dev->bs[b];
    const double w[3] = {s->wear_a, s->wear_b, s->wear_g};
    double hours = dev->now > sl->prog_time
                       ? (double)(dev->now - sl->prog_time) / NS_PER_HOUR : 0.0;
    return rate(&dev->cfg.rber, w, hours, (double)s->reads);
}

uint32_t sim_codeword_of(const nand_dev *dev, uint32_t off, uint32_t *start,
               uint32_t *len)
{
    uint32_t cwb = dev->cfg.ecc.codeword_bytes;
    if (off >= dev->cfg.geo.page_size) {
        *start = dev->cfg.geo.page_size;
        *len = dev->cfg.geo.oob_size;
        return dev->cw_per_page;
    }
    uint32_t i = off / cwb;
    *start = i * cwb;
    *len = cwb;
    return i;
}

/* Poisson(lam) at the quantile u (normal approximation for large lam);
 * p0 = exp(-lam), computed once per page by the caller. */
static uint32_t poisson_quantile(double lam, double p0, double u, uint64_t h2,
                                 uint32_t nmax)
{
    double k;
    if (u < p0)
        return 0; /* the common case */
    if (lam > 200.0) {
        double u2 = rng_unit(h2);
        double z = sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * u2);
        k = floor(lam + sqrt(lam) * z + 0.5);
        if (k < 0)
            k = 0;
    } else {
        double pk = p0, cdf = pk;
        uint32_t n = 0;
        while (u > cdf && n < nmax) {
            n++;
            pk *= lam / n;
            cdf += pk;
            if (pk < 1e-300)
                break;
        }
        k = n;
    }
    return k > nmax ? nmax : (uint32_t)k;
}

/* Flip bit `bit` of the page byte space wherever a segment holds it. */
static void flip(const struct seg *segs, int nseg, uint32_t bit)
{
    uint32_t off = bit >> 3;
    for (int i = 0; i < nseg; i++)
        if (off >= segs[i].col && off < segs[i].col + segs[i].len)
            segs[i].buf[off - segs[i].col] ^= (uint8_t)(1u << (bit & 7));
}

/* Flip k distinct bits of the codeword [start, start+len) bytes. */
static void flip_cw(const nand_dev *dev, nand_block_t b, nand_page_t p,
                    uint64_t key, uint32_t start, uint32_t len, uint32_t k,
                    const struct seg *segs, int nseg)
{
    uint32_t nbits = len * 8, seen[64], nseen = 0;
    uint64_t draw = 0;
    for (uint32_t j = 0; j < k; j++) {
        uint32_t pos;
        int dup;
        do { /* reject repeats while we can remember them */
            pos = (uint32_t)(rng_key(dev->cfg.seed, RNG_BITERR_POS, b, p, key,
                                     draw++) % nbits);
            dup = 0;
            for (uint32_t i = 0; i < nseen; i++)
                dup |= seen[i] == pos;
        } while (dup);
        if (nseen < 64)
            seen[nseen++] = pos;
        flip(segs, nseg, start * 8 + pos);
    }
}

/* The bytes a lent read did not copy, now that a flip must reach them. */
static void copy_unread(const uint8_t *unread, int *copied, const struct seg *segs,
                        int nseg)
{
    if (!unread || *copied)
        return;
    for (int i = 0; i < nseg; i++)
        memcpy(segs[i].buf, unread + segs[i].col, segs[i].len);
    *copied = 1;
}

int sim_biterr_apply(nand_dev *dev, nand_block_t b, nand_page_t p,
                 const struct slot *sl, const struct seg *segs, int nseg,
                 int raw, const uint8_t *unread, int *copied,
                 uint32_t *corrected, uint32_t *raw_errs, uint32_t *max_cw)
{
    const struct bstate *s = &dev->bs[b];
    uint32_t t = dev->cfg.ecc.correct_bits;
    double rber = sim_biterr_rber(dev, b, sl);
    /* the Poisson mean and P(0) for data and spare codewords */
    double lam[2] = {rber * dev->cfg.ecc.codeword_bytes * 8,
                     rber * dev->cfg.geo.oob_size * 8};
    double p0[2] = {exp(-lam[0]), -1.0}; /* the spare's when it is read */
    int failed = 0;
    uint32_t last = ~0u;
    uint64_t count_key = rng_key_prefix(dev->cfg.seed, RNG_BITERR_COUNT, b, p, s->pe);

    for (int i = 0; i < nseg; i++) {
        if (!segs[i].len)
            continue;
        uint32_t off = segs[i].col, end = segs[i].col + segs[i].len;
        while (off < end) {
            uint32_t cs, cl, cw = sim_codeword_of(dev, off, &cs, &cl);
            off = cs + cl;
            if (cw == last || !cl)
                continue; /* a codeword is decoded once per read */
            last = cw;
            uint64_t key = s->reads * 64 + cw;
            uint64_t h = rng_key_last(count_key, key);
            int spare = cw == dev->cw_per_page;
            if (spare && p0[1] < 0)
                p0[1] = exp(-lam[1]);
            uint32_t k = poisson_quantile(lam[spare], p0[spare], rng_unit(h),
                                          rng_mix(h), cl * 8);
            int damaged = (sl->damaged >> cw) & 1;
            int ecc = t && !raw; /* without ECC nothing is detected */
            uint32_t weak = sl->weak_bits && sl->weak_cw == cw ? sl->weak_bits : 0;
            k += weak;
            *raw_errs += k;
            if (ecc && k <= t && !damaged) {
                *corrected += k;
                if (k > *max_cw)
                    *max_cw = k;
                continue;
            }
            if (k)
                copy_unread(unread, copied, segs, nseg);
            /* positions keyed by h, which covers the P/E count too, so
             * that a new cycle does not repeat the last one's flips */
            /* weak cells are the same bits on every read */
            if (weak)
                flip_cw(dev, b, p, rng_key(dev->cfg.seed, RNG_CORRUPT, b, p,
                                           cw, 0), cs, cl, weak, segs, nseg);
            flip_cw(dev, b, p, h, cs, cl, k - weak, segs, nseg);
            if (ecc) {
                failed = 1;
                dev->st.ecc_failures++;
            }
        }
    }
    if (!raw)
        dev->st.bits_corrected += *corrected;
    return failed ? NAND_E_ECC : NAND_OK;
}

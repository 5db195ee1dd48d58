/* config.c -- device configuration: defaults, validation, derived sizes. */
#include "nand_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * Default bit-error model, that of the SLC presets: the power-law form of
 * docs/references.md section 2 with the exponents of the published 72-layer
 * TLC fit, and magnitudes that put the RBER at 100K P/E and ten years at
 * 5.0e-10, below the 6.97e-10 at which the data sheet's 1-bit ECC per 512 B
 * meets a UBER of 1e-15 (an ECC-implied bound, not a measurement:
 * docs/references.md section 2.4).
 */
static const struct nand_rber_model slc_rber = {
    .eps = 2.5e-13, .alpha = 1.4e-20, .k = 2.05, .beta = 1.08e-13, .m = 0.14,
    .n = 0.54, .gamma = 1.6e-20, .p = 0.33, .q = 1.71,
};

void nand_config_init(struct nand_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->name, sizeof cfg->name, "custom");
    snprintf(cfg->source, sizeof cfg->source, "%s",
             "Samsung K9F4G08U0A data sheet (timing, endurance, ECC); "
             "bit errors: below its ECC rating (docs/references.md section 2.4)");
    cfg->geo.channels = 1;
    cfg->geo.dies_per_channel = 1;
    cfg->geo.planes_per_die = 1;
    cfg->cell = NAND_SLC;
    cfg->nop = 1;
    /* 2007-era SLC large-page part (Samsung K9F4G08U0 class) */
    cfg->timing.t_r_ns = 25000;
    cfg->timing.t_prog_ns = 200000;
    cfg->timing.t_bers_ns = 1500000;
    cfg->timing.t_cycle_ns = 25;
    cfg->timing.bus_bytes = 1;
    cfg->timing.addr_cycles = 5;
    cfg->endurance = 100000;
    cfg->endurance_sigma = 0.0;
    cfg->endurance_scale = 1.0;
    cfg->rber = slc_rber;
    cfg->ecc.codeword_bytes = 512;
    cfg->ecc.correct_bits = 1;
    cfg->seed = 1;
}

static int fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return NAND_E_INVAL;
}

int nand_config_finish(struct nand_config *cfg, char *err, size_t errlen)
{
    struct nand_geometry *g = &cfg->geo;
    struct nand_timing *t = &cfg->timing;

    if (!g->channels) g->channels = 1;
    if (!g->dies_per_channel) g->dies_per_channel = 1;
    if (!g->planes_per_die) g->planes_per_die = 1;
    if (!cfg->cell) cfg->cell = NAND_SLC;
    if (!cfg->nop) cfg->nop = 1;
    if (!t->bus_bytes) t->bus_bytes = 1;
    if (!t->addr_cycles) t->addr_cycles = 5;
    if (!t->t_r_upper_ns) t->t_r_upper_ns = t->t_r_ns;
    if (!t->t_prog_upper_ns) t->t_prog_upper_ns = t->t_prog_ns;
    if (cfg->endurance_scale == 0.0) cfg->endurance_scale = 1.0;
    if (!cfg->ecc.codeword_bytes) cfg->ecc.codeword_bytes = g->page_size;

    if (!g->blocks_per_plane || !g->pages_per_block || !g->page_size)
        return fail(err, errlen,
                    "geometry needs blocks_per_plane, pages_per_block and page_size");
    if (g->pages_per_block > 65536)
        return fail(err, errlen, "pages_per_block must be at most 65536");
    if (g->page_size > (1u << 20) || g->oob_size > (1u << 16))
        return fail(err, errlen, "page_size or oob_size is implausibly large");
    if (g->oob_size < 1)
        return fail(err, errlen, "oob_size must be at least 1 (bad-block marker)");
    if (cfg->cell < NAND_SLC || cfg->cell > NAND_TLC)
        return fail(err, errlen, "cell must be slc, mlc or tlc");
    if (cfg->nop > 255)
        return fail(err, errlen, "nop must be at most 255");
    if (cfg->pair_distance >= g->pages_per_block)
        return fail(err, errlen, "pair_distance must be below pages_per_block");
    if (cfg->ecc.codeword_bytes > g->page_size ||
        g->page_size % cfg->ecc.codeword_bytes)
        return fail(err, errlen, "ecc codeword_bytes must divide page_size");
    if (g->page_size / cfg->ecc.codeword_bytes > 63)
        return fail(err, errlen, "at most 63 ECC codewords per page");
    if (!cfg->endurance)
        return fail(err, errlen, "endurance must be positive");
    /* written so that NaN fails every range check */
    if (!(cfg->endurance_sigma >= 0 && cfg->endurance_sigma <= 1))
        return fail(err, errlen, "endurance_sigma must be in [0, 1]");
    if (!(cfg->endurance_scale > 0 && cfg->endurance_scale <= 1e6))
        return fail(err, errlen, "endurance_scale must be positive");
    if (!(cfg->factory_bad_fraction >= 0 && cfg->factory_bad_fraction < 0.5))
        return fail(err, errlen, "factory_bad_fraction must be in [0, 0.5)");
    const struct nand_rber_model *r = &cfg->rber;
    if (!(r->eps >= 0 && r->alpha >= 0 && r->beta >= 0 && r->gamma >= 0 &&
          r->eps < 0.5 && isfinite(r->alpha) && isfinite(r->beta) &&
          isfinite(r->gamma)))
        return fail(err, errlen, "bit error model coefficients must be >= 0");
    if (!(isfinite(r->k) && isfinite(r->m) && isfinite(r->n) &&
          isfinite(r->p) && isfinite(r->q)))
        return fail(err, errlen, "bit error model exponents must be finite");
    /* multiplied step by step: four 32-bit factors can wrap 64 bits */
    uint64_t blocks = cfg->geo.channels;
    const uint32_t f[] = {cfg->geo.dies_per_channel, cfg->geo.planes_per_die,
                          cfg->geo.blocks_per_plane};
    for (int i = 0; i < 3; i++)
        if (__builtin_mul_overflow(blocks, (uint64_t)f[i], &blocks) || blocks > (1ull << 31))
            return fail(err, errlen, "too many blocks");
    return NAND_OK;
}

uint64_t nand_dies(const struct nand_config *cfg)
{
    return (uint64_t)cfg->geo.channels * cfg->geo.dies_per_channel;
}

uint64_t nand_blocks(const struct nand_config *cfg)
{
    return nand_dies(cfg) * cfg->geo.planes_per_die * cfg->geo.blocks_per_plane;
}

uint64_t nand_capacity_bytes(const struct nand_config *cfg)
{
    return nand_blocks(cfg) * cfg->geo.pages_per_block * cfg->geo.page_size;
}

/* With distance d, pages come in runs of d lower pages followed by d upper
 * pages; upper page p shares cells with p - d. */
int nand_page_is_upper(const struct nand_config *cfg, nand_page_t p,
                       nand_page_t *lower)
{
    uint32_t d = cfg->pair_distance;
    int upper = d && cfg->cell != NAND_SLC && (p / d) % 2 == 1;
    if (lower)
        *lower = upper ? p - d : p;
    return upper;
}

const char *nand_strerror(int err)
{
    switch (err) {
    case NAND_OK: return "success";
    case NAND_E_INVAL: return "invalid argument";
    case NAND_E_ADDR: return "address out of range";
    case NAND_E_NOT_ERASED: return "page not erased";
    case NAND_E_ORDER: return "page programmed out of order";
    case NAND_E_NOP: return "too many partial programs";
    case NAND_E_PROGRAM_FAIL: return "program failed";
    case NAND_E_ERASE_FAIL: return "erase failed";
    case NAND_E_ECC: return "uncorrectable ECC error";
    case NAND_E_POWER: return "power is off";
    case NAND_E_NOMEM: return "out of memory";
    case NAND_E_IO: return "I/O error on image file";
    case NAND_E_CORRUPT: return "corrupt image file";
    case NAND_E_BUSY: return "queue full";
    case NAND_E_LOCKED: return "image in use by another writer";
    }
    return "unknown error";
}

/*
 * gc_model.h -- write amplification of the cleaner's victim policies: the
 * analytical models (Desnoyers, SYSTOR 2012) and a page-level harness that
 * runs the fs/gcp_*.c modules on an idealised page-mapped log, so that the
 * policies can be checked against the models before LogFS is.
 *
 * Symbols as in docs/references.md section 3: T physical pages the
 * cleaner can use, U logical pages, alpha = T/U, spare factor
 * Sf = (T-U)/T (so alpha = 1/(1-Sf)), Np pages per block,
 * A = flash page writes / host page writes.
 */
#ifndef FLASHLAB_GC_MODEL_H
#define FLASHLAB_GC_MODEL_H

#include "gc_policy.h"

#include <stdint.h>

/* ---- models (uniform random page overwrites) ---- */
/* 1/(1-sf): the alpha of a spare factor. */
double gc_model_alpha(double sf);
/* FIFO/LRU, eq. 4: v = exp(-alpha(1-v)), A = 1/(1-v).  INFINITY for
 * alpha <= 1, NAN for NAN. */
double gc_model_fifo_wa(double alpha);
/* Greedy, eq. 12: k = 1 + 1/(2 np), A = A_fifo(k alpha)/k.  NAN if np = 0. */
double gc_model_greedy_wa(double alpha, unsigned np);
/* LRU with a fraction r of the writes to a fraction f of the data, one
 * log: A = 1 + r/(e^((r/f) alpha/A) - 1) + (1-r)/(e^(((1-r)/(1-f)) alpha/A) - 1).
 * NAN unless 0 < f < 1 and 0 <= r <= 1; INFINITY for alpha <= 1. */
double gc_model_hotcold_lru_wa(double alpha, double r, double f);

/* ---- the page-level harness ----
 *
 * N blocks of Np pages, U logical pages overwritten at random.  Each write
 * stream (host, or hot and cold host, plus cleaner copies when separated)
 * has one open block written in order.  The cleaner keeps R block-sizes of
 * pages unwritten -- free blocks plus the room left in the open blocks --
 * and cleans one victim each time that would be crossed, so every victim is
 * picked when exactly (N - R) Np pages are written.  R = streams + 1, the
 * least that always leaves a free block for whichever stream needs one.
 *
 * T (gc_harness_log_pages) = (N - R) Np: the reserve (the spare block
 * plus the unwritten room of the open blocks) is excluded, because the
 * cleaner cannot fill it with data.  This is the log length of Desnoyers'
 * model: each cleaning cycle writes a victim's copies and then exactly as
 * many host pages as it freed, Np pages in all, so with one stream every
 * block is [copies of one victim | host pages], and a copied page sees the
 * host writes of exactly T/Np cycles before it is cleaned again, as the
 * model's page sees those of T writes.  A host-written page sees those of
 * its own block before it fewer: under half a block, a bias of ~+0.3% in A
 * at 300 blocks.  Counting one block more or less moves A by ~3.6% at
 * Sf 0.05 with 500 blocks, which is why this is spelled out.
 */
struct gc_harness_cfg {
    uint32_t blocks;      /* N, reserve included */
    uint32_t np;          /* pages per block, >= 2 */
    uint32_t logical;     /* U; 0: from spare via gc_harness_logical() */
    double spare;         /* Sf, used when logical is 0 */
    double hot_writes;    /* r: share of the writes that go to the hot set */
    double hot_data;      /* f: share of the logical pages that are hot;
                             r and f both 0 (or r = f): uniform */
    int sep_gc;           /* cleaner copies to their own open block */
    int sep_hot;          /* hot and cold host writes to separate open blocks;
                             without sep_gc a copy goes where a host write of
                             the same page would */
    uint64_t seed;        /* the workload's random writes */
    uint64_t policy_seed; /* gc_ctx.seed for random policies; 0 = seed */
    double warm;          /* random host writes before measuring, times U
                             (after writing each page once); 0 = 4 */
    double measure;       /* host writes measured, times U; 0 = 8 */
    uint32_t window;      /* passed to the policy in gc_ctx (0 = its default) */
    uint32_t choices;     /* likewise */
};

struct gc_harness_result {
    double alpha;        /* T/U with T = gc_harness_log_pages() */
    uint64_t host;       /* host page writes in the measuring window */
    uint64_t copies;     /* cleaner page copies in the window */
    uint64_t erases;     /* blocks erased in the window */
    double wa;           /* (host + copies) / host */
    uint32_t erase_min;  /* per-block erase counts over the whole run */
    uint32_t erase_max;
    double erase_mean;
};

/* R: blocks' worth of pages kept unwritten (1 + number of open blocks). */
uint32_t gc_harness_reserve(const struct gc_harness_cfg *cfg);
/* T: (N - R) Np, see above. */
double gc_harness_log_pages(const struct gc_harness_cfg *cfg);
/* U = round(T (1 - sf)). */
uint32_t gc_harness_logical(const struct gc_harness_cfg *cfg, double sf);
/* Run policy p on cfg.  0 on success; -1 for a bad configuration, no
 * memory, or a cleaner that stops making progress. */
int gc_harness_run(const struct gc_harness_cfg *cfg, const struct gc_policy *p,
                   struct gc_harness_result *out);

#endif

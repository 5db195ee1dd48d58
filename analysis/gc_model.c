/*
 * gc_model.c -- the write-amplification models of Desnoyers (SYSTOR 2012)
 * and the page-level harness that runs the cleaner's policy modules against
 * them.  See gc_model.h for the accounting of T.
 */
#include "gc_model.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- models ---- */

double gc_model_alpha(double sf)
{
    return 1.0 / (1.0 - sf);
}

double gc_model_fifo_wa(double alpha)
{
    if (isnan(alpha))
        return NAN;
    if (alpha <= 1.0)
        return INFINITY;
    /* In w = 1 - v: h(w) = 1 - e^(-alpha w) - w is > 0 on (0, w*) and < 0
     * on (w*, 1]; expm1 keeps w* exact when alpha is near 1. */
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 200 && hi - lo > 1e-16; i++) {
        double w = 0.5 * (lo + hi);
        if (-expm1(-alpha * w) - w > 0)
            lo = w;
        else
            hi = w;
    }
    return 1.0 / (0.5 * (lo + hi));
}

double gc_model_greedy_wa(double alpha, unsigned np)
{
    if (!np)
        return NAN;
    double k = 1.0 + 1.0 / (2.0 * np);
    return gc_model_fifo_wa(k * alpha) / k;
}

/* Copies per host write of one class: r/(e^((r/f) alpha/A) - 1); as r -> 0
 * the class is static and copied once a cycle, f A / alpha. */
static double hc_term(double r, double f, double alpha, double a)
{
    if (r <= 0)
        return f * a / alpha;
    return r / expm1(r / f * alpha / a);
}

double gc_model_hotcold_lru_wa(double alpha, double r, double f)
{
    if (isnan(alpha) || !(f > 0 && f < 1) || !(r >= 0 && r <= 1))
        return NAN;
    if (alpha <= 1.0)
        return INFINITY;
    /* F(A) = rhs(A) - A falls strictly (rhs' <= 1/alpha < 1), F(1) >= 0, and
     * rhs(A) <= 1 + A/alpha puts the root below alpha/(alpha-1) + 1. */
    double lo = 1.0, hi = alpha / (alpha - 1.0) + 1.0;
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
        double a = 0.5 * (lo + hi);
        double rhs = 1.0 + hc_term(r, f, alpha, a) + hc_term(1 - r, 1 - f, alpha, a);
        if (rhs > a)
            lo = a;
        else
            hi = a;
    }
    return 0.5 * (lo + hi);
}

/* ---- harness ---- */

#define NONE UINT32_MAX
enum { B_FREE, B_OPEN, B_CLOSED };

struct hs {
    const struct gc_harness_cfg *cfg;
    const struct gc_policy *pol;
    uint32_t n, np, u, r, hot; /* hot: logical pages [0, hot) are hot */
    double rw;                  /* share of writes to the hot set */
    uint32_t *map, *rev, *valid, *wptr, *erase, *freeq;
    uint64_t *stamp;
    uint8_t *state;
    struct gc_seg *cand;
    uint32_t fhead, fcount, open[3];
    uint64_t free_pages; /* free blocks * np + room in the open blocks */
    uint64_t clock, round, host, copies, erases;
    int failed;
};

static unsigned streams(const struct gc_harness_cfg *c)
{
    return 1u + (c->sep_hot != 0) + (c->sep_gc != 0);
}

uint32_t gc_harness_reserve(const struct gc_harness_cfg *cfg)
{
    return streams(cfg) + 1;
}

double gc_harness_log_pages(const struct gc_harness_cfg *cfg)
{
    uint32_t r = gc_harness_reserve(cfg);
    if (cfg->blocks <= r || cfg->np < 2)
        return 0;
    return (double)(cfg->blocks - r) * cfg->np;
}

uint32_t gc_harness_logical(const struct gc_harness_cfg *cfg, double sf)
{
    return (uint32_t)lround(gc_harness_log_pages(cfg) * (1.0 - sf));
}

static unsigned host_stream(const struct hs *h, uint32_t l)
{
    return h->cfg->sep_hot && h->hot && l >= h->hot; /* 0 hot (or all), 1 cold */
}

static unsigned copy_stream(const struct hs *h, uint32_t l)
{
    return h->cfg->sep_gc ? 1u + (h->cfg->sep_hot != 0) : host_stream(h, l);
}

static void pop_block(struct hs *h, unsigned s)
{
    if (!h->fcount) { /* cannot happen with R = streams + 1 */
        h->failed = 1;
        return;
    }
    uint32_t b = h->freeq[h->fhead];
    h->fhead = (h->fhead + 1) % h->n;
    h->fcount--;
    h->state[b] = B_OPEN;
    h->wptr[b] = 0;
    h->stamp[b] = h->clock++;
    h->open[s] = b;
}

static void place(struct hs *h, unsigned s, uint32_t l)
{
    uint32_t b = h->open[s];
    if (b == NONE || h->wptr[b] == h->np) {
        if (b != NONE)
            h->state[b] = B_CLOSED;
        pop_block(h, s);
        if (h->failed)
            return;
        b = h->open[s];
    }
    uint32_t p = b * h->np + h->wptr[b]++;
    h->rev[p] = l;
    h->map[l] = p;
    h->valid[b]++;
    h->free_pages--;
}

static void clean_one(struct hs *h)
{
    size_t n = 0;
    for (uint32_t b = 0; b < h->n; b++)
        if (h->state[b] == B_CLOSED)
            h->cand[n++] = (struct gc_seg){ b, h->valid[b], h->np, h->stamp[b], h->erase[b] };
    uint64_t seed = h->cfg->policy_seed ? h->cfg->policy_seed : h->cfg->seed;
    struct gc_ctx ctx = { h->clock, seed, h->round, h->cfg->window, h->cfg->choices };
    size_t i = n ? h->pol->pick(&ctx, h->cand, n) : n;
    if (i >= n) {
        h->failed = 1;
        return;
    }
    uint32_t v = h->cand[i].id;
    for (uint32_t j = 0; j < h->np && !h->failed; j++) {
        uint32_t l = h->rev[v * h->np + j];
        if (l == NONE)
            continue;
        h->rev[v * h->np + j] = NONE;
        h->valid[v]--;
        place(h, copy_stream(h, l), l);
        h->copies++;
    }
    h->erase[v]++;
    h->erases++;
    h->round++;
    h->state[v] = B_FREE;
    h->freeq[(h->fhead + h->fcount++) % h->n] = v;
    h->free_pages += h->np;
}

static void host_write(struct hs *h, uint32_t l)
{
    if (h->map[l] != NONE) { /* the old copy dies as the write arrives */
        h->rev[h->map[l]] = NONE;
        h->valid[h->map[l] / h->np]--;
        h->map[l] = NONE;
    }
    /* Clean at the moment the log reaches (N - R) Np pages; a victim with
     * no dead page frees nothing, so give up after many in a row. */
    for (uint64_t k = 0; h->free_pages <= (uint64_t)h->r * h->np && !h->failed; k++) {
        if (k > 8 * (uint64_t)h->n) {
            h->failed = 1;
            return;
        }
        clean_one(h);
    }
    place(h, host_stream(h, l), l);
    h->host++;
}

static uint32_t random_page(const struct hs *h, uint64_t k)
{
    uint64_t x = rng_key(h->cfg->seed, RNG_GC_HARNESS, k, 0, 0, 0);
    if (!h->hot)
        return (uint32_t)(x % h->u);
    uint64_t y = rng_key(h->cfg->seed, RNG_GC_HARNESS, k, 1, 0, 0);
    if (rng_unit(x) < h->rw)
        return (uint32_t)(y % h->hot);
    return h->hot + (uint32_t)(y % (h->u - h->hot));
}

static int setup(struct hs *h, const struct gc_harness_cfg *cfg, const struct gc_policy *p)
{
    memset(h, 0, sizeof *h);
    h->cfg = cfg;
    h->pol = p;
    h->n = cfg->blocks;
    h->np = cfg->np;
    h->r = gc_harness_reserve(cfg);
    h->u = cfg->logical ? cfg->logical : gc_harness_logical(cfg, cfg->spare);
    /* Some closed block must hold a dead page, or no policy can progress. */
    if (!p || !p->pick || h->np < 2 || h->n < h->r + streams(cfg) + 2 ||
        h->n > UINT32_MAX / h->np || !h->u ||
        (uint64_t)h->u >= (uint64_t)(h->n - h->r - streams(cfg)) * h->np)
        return -1;
    double r = cfg->hot_writes, f = cfg->hot_data;
    if (r < 0 || r > 1 || f < 0 || f >= 1 || (f == 0) != (r == 0))
        return -1;
    if (f > 0 && r != f) {
        double hot = round(f * h->u);
        h->hot = hot < 1 ? 1 : hot > h->u - 1 ? h->u - 1 : (uint32_t)hot;
        h->rw = r;
    }
    size_t pages = (size_t)h->n * h->np;
    h->map = malloc(h->u * sizeof *h->map);
    h->rev = malloc(pages * sizeof *h->rev);
    h->valid = calloc(h->n, sizeof *h->valid);
    h->wptr = calloc(h->n, sizeof *h->wptr);
    h->erase = calloc(h->n, sizeof *h->erase);
    h->freeq = malloc(h->n * sizeof *h->freeq);
    h->stamp = calloc(h->n, sizeof *h->stamp);
    h->state = calloc(h->n, sizeof *h->state);
    h->cand = malloc(h->n * sizeof *h->cand);
    if (!h->map || !h->rev || !h->valid || !h->wptr || !h->erase || !h->freeq ||
        !h->stamp || !h->state || !h->cand)
        return -1;
    memset(h->map, 0xff, h->u * sizeof *h->map);
    memset(h->rev, 0xff, pages * sizeof *h->rev);
    for (uint32_t b = 0; b < h->n; b++)
        h->freeq[b] = b;
    h->fcount = h->n;
    h->free_pages = pages;
    for (unsigned s = 0; s < 3; s++)
        h->open[s] = NONE;
    return 0;
}

static void teardown(struct hs *h)
{
    free(h->map);
    free(h->rev);
    free(h->valid);
    free(h->wptr);
    free(h->erase);
    free(h->freeq);
    free(h->stamp);
    free(h->state);
    free(h->cand);
}

int gc_harness_run(const struct gc_harness_cfg *cfg, const struct gc_policy *p,
                   struct gc_harness_result *out)
{
    struct hs h;
    memset(out, 0, sizeof *out);
    if (!cfg || setup(&h, cfg, p)) {
        if (cfg)
            teardown(&h);
        return -1;
    }
    uint64_t warm = (uint64_t)llround((cfg->warm > 0 ? cfg->warm : 4) * h.u);
    uint64_t meas = (uint64_t)llround((cfg->measure > 0 ? cfg->measure : 8) * h.u);
    if (!meas)
        meas = 1;
    for (uint32_t l = 0; l < h.u && !h.failed; l++)
        host_write(&h, l);
    uint64_t k = 0;
    for (; k < warm && !h.failed; k++)
        host_write(&h, random_page(&h, k));
    uint64_t host0 = h.host, copies0 = h.copies, erases0 = h.erases;
    for (; k < warm + meas && !h.failed; k++)
        host_write(&h, random_page(&h, k));
    int rc = h.failed ? -1 : 0;
    if (!rc) {
        out->alpha = gc_harness_log_pages(cfg) / h.u;
        out->host = h.host - host0;
        out->copies = h.copies - copies0;
        out->erases = h.erases - erases0;
        out->wa = (double)(out->host + out->copies) / (double)out->host;
        uint64_t sum = 0;
        out->erase_min = UINT32_MAX;
        for (uint32_t b = 0; b < h.n; b++) {
            sum += h.erase[b];
            out->erase_min = h.erase[b] < out->erase_min ? h.erase[b] : out->erase_min;
            out->erase_max = h.erase[b] > out->erase_max ? h.erase[b] : out->erase_max;
        }
        out->erase_mean = (double)sum / h.n;
    }
    teardown(&h);
    return rc;
}

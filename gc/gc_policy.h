/*
 * gc_policy.h -- the cleaner's victim-selection policies.
 *
 * A policy sees only a list of cleanable segments (closed, not open, not
 * already being freed) and returns the one to clean.  It knows nothing of
 * LogFS, so the same modules run inside the file system and inside the
 * page-level validation harness (analysis/gc_model.c), where their write
 * amplification is checked against the analytical models.
 *
 * Adding a policy: one file NAME.c (as greedy.c) defining a
 * `const struct gc_policy gcp_NAME`, plus its entry in registry.c.
 */
#ifndef FLASHLAB_GC_POLICY_H
#define FLASHLAB_GC_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* One cleanable segment, as the caller sees it. */
struct gc_seg {
    uint32_t id;      /* the caller's segment number */
    uint32_t live;    /* live units (bytes or pages) */
    uint32_t size;    /* capacity in the same unit; live <= size */
    uint64_t stamp;   /* age stamp of its data: larger = younger (same
                         clock as gc_ctx.now; e.g. host units written) */
    uint32_t erases;  /* program/erase cycles of its block */
};

/* What a policy may use besides the candidates. */
struct gc_ctx {
    uint64_t now;       /* current value of the stamp clock */
    uint64_t seed;      /* random policies draw from rng_key(seed, ..., round) */
    uint64_t round;     /* how many victims were picked before this one */
    uint32_t window;    /* windowed greedy: the W oldest candidates (0 = 64) */
    uint32_t choices;   /* d-choices: d random candidates (0 = 8) */
};

struct gc_policy {
    const char *name;     /* as given in options and YAML: "greedy", ... */
    const char *summary;  /* one line for --help */
    /* Index into c[0..n) of the victim; n >= 1.  Must be deterministic in
     * (ctx, c, n); ties go to the lowest index. */
    size_t (*pick)(const struct gc_ctx *ctx, const struct gc_seg *c, size_t n);
    int seeded;           /* 1: picks draw from the seed (gcp_random) */
};

/* ---- helpers for policy modules ---- */
/* now - stamp + 1: at least 1, so that ratios stay finite. */
uint64_t gcp_age(const struct gc_ctx *ctx, const struct gc_seg *s);
/* The k-th random 64-bit value of this pick. */
uint64_t gcp_random(const struct gc_ctx *ctx, uint64_t k);
/* Fewest live among c[idx[0..n)] (idx NULL: c[0..n)), ties to the lowest index. */
size_t gcp_min_live(const struct gc_seg *c, const size_t *idx, size_t n);
/* The smallest stamp, ties to the lowest index. */
size_t gcp_oldest(const struct gc_seg *c, size_t n);

/* The policy called name, or NULL. */
const struct gc_policy *gc_policy_find(const char *name);
/* The i-th registered policy (for listing), or NULL past the end. */
const struct gc_policy *gc_policy_at(size_t i);

#endif

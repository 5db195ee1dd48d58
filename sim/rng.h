/*
 * rng.h -- a counter-based random generator.
 *
 * Every random choice in the simulator is a pure function of the seed and
 * of what it decides (a domain tag and the block, page, P/E count, read
 * count, ...).  Nothing consumes a shared stream, so the bit errors a page
 * shows do not depend on the order of unrelated operations, and a replay
 * after a power cut sees the same physics as the original run.
 */
#ifndef FLASHLAB_SIM_RNG_H
#define FLASHLAB_SIM_RNG_H

#include <stdint.h>

enum rng_domain {
    RNG_FACTORY_BAD = 1,
    RNG_ENDURANCE,
    RNG_BITERR_COUNT,
    RNG_BITERR_POS,
    RNG_WEAR_FAIL,
    RNG_TEAR,
    RNG_TEAR_FRAC,
    RNG_PAIRED,
    RNG_GC_POLICY, /* the cleaner's random choices (fs/gcp_*.c) */
    RNG_GC_HARNESS, /* the page-level harness's workload (analysis/gc_model.c) */
    RNG_WORKLOAD, /* workload generators (workloads/wl_*.c) */
    RNG_POWERCUT, /* power-cut campaigns: points, instants (experiment/powercut.c) */
    RNG_CORRUPT, /* damage injection (sim/corrupt.c) */
    RNG_FAULTS, /* media-fault campaigns: locations (experiment/faults.c) */
};

/* The splitmix64 finaliser: a bijective 64-bit mixer with good avalanche. */
static inline uint64_t rng_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* rng_key in two steps, for many keys that share the first three
 * counters (the codewords of one page): the prefix, then the last one. */
static inline uint64_t rng_key_prefix(uint64_t seed, uint32_t domain, uint64_t a,
                                      uint64_t b, uint64_t c)
{
    uint64_t h = rng_mix(seed ^ (0x9e3779b97f4a7c15ULL * (domain + 1)));
    h = rng_mix(h ^ a);
    h = rng_mix(h + b);
    return rng_mix(h ^ c);
}

static inline uint64_t rng_key_last(uint64_t prefix, uint64_t d)
{
    return rng_mix(prefix + d);
}

/* A 64-bit value keyed by seed, domain and four counters. */
static inline uint64_t rng_key(uint64_t seed, uint32_t domain, uint64_t a,
                               uint64_t b, uint64_t c, uint64_t d)
{
    return rng_key_last(rng_key_prefix(seed, domain, a, b, c), d);
}

/* Uniform in [0, 1) from 53 bits of h. */
static inline double rng_unit(uint64_t h)
{
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

#endif

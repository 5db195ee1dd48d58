/*
 * sim_testutil.h -- small helpers shared by the tests/test_sim_*.c programs:
 * a small device configuration built in code (no YAML presets), a
 * deterministic pattern generator, bit counting, and reading and writing
 * whole files (images).
 */
#ifndef FLASHLAB_SIM_TESTUTIL_H
#define FLASHLAB_SIM_TESTUTIL_H

#include "nand.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 2 dies on one channel, 64 blocks per plane, 16 pages of 2048+64 bytes,
 * 512-byte ECC codewords, and a bit error model that never flips a bit,
 * so that rule and timing tests are exact. */
static inline void tu_small_config(struct nand_config *c)
{
    nand_config_init(c);
    c->geo.channels = 1;
    c->geo.dies_per_channel = 2;
    c->geo.planes_per_die = 1;
    c->geo.blocks_per_plane = 64;
    c->geo.pages_per_block = 16;
    c->geo.page_size = 2048;
    c->geo.oob_size = 64;
    memset(&c->rber, 0, sizeof c->rber);
    c->ecc.codeword_bytes = 512;
    c->ecc.correct_bits = 4;
    c->seed = 12345;
}

/* splitmix64: a deterministic pattern, independent of the simulator's. */
static inline uint64_t tu_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline void tu_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *p = buf;
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(tu_next(&s) >> 56);
}

/* Number of bits in which a and b differ. */
static inline uint32_t tu_bitdiff(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += (uint32_t)__builtin_popcount((unsigned)(x[i] ^ y[i]));
    return d;
}

static inline int tu_all(const void *buf, size_t n, uint8_t v)
{
    const uint8_t *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/* The page geometry of tu_small_config. */
#define PS 2048u
#define OS 64u
#define PB (PS + OS)

/* A device for config c, or NULL. */
static inline nand_dev *mk(const struct nand_config *c)
{
    nand_dev *d = NULL;
    if (nand_create(c, &d) != NAND_OK)
        return NULL;
    return d;
}

static inline nand_dev *mk_small(void)
{
    struct nand_config c;
    tu_small_config(&c);
    return mk(&c);
}

/* A whole file (malloc'd, *n bytes), or NULL. */
static inline uint8_t *tu_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)sz + 1);
    if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *n = (size_t)sz;
    return buf;
}

/* Write buf as the whole file; 0 or -1. */
static inline int tu_spit(const char *path, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(buf, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* The size of the file at path, or -1. */
static inline long long tu_file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) ? -1 : (long long)sb.st_size;
}

#endif

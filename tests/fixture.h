/*
 * fixture.h -- what every C test includes: the harness (test.h), a scratch
 * directory (tmpdir.h), and the shared helpers below:
 *
 *   - a NAND device built in code from a few options with defaults
 *     (struct fx_dev, fx_config, fx_device, FX_DEVICE), and the small
 *     device the simulator tests use (fx_small_config, fx_small_dev);
 *   - a deterministic pattern generator (fx_next, fx_fill), bit counting
 *     (fx_bitdiff, fx_all);
 *   - reading and writing whole files (fx_slurp, fx_spit, fx_file_size).
 */
#ifndef FLASHLAB_FIXTURE_H
#define FLASHLAB_FIXTURE_H

#include "nand.h"
#include "test.h"
#include "tmpdir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- devices -------------------------------------------------------------- */

/* A device's options.  Every field left 0 keeps its default: one die of
 * 64 blocks of 16 pages of 2048+64 bytes, and otherwise nand_config_init's
 * values (an SLC part with its bit error model, 1-bit ECC per 512 bytes,
 * 100000 P/E cycles, no factory bad blocks).  seed is used as given. */
struct fx_dev {
    uint32_t blocks;      /* blocks per plane (64) */
    uint32_t pages;       /* pages per block (16) */
    uint32_t page_size;   /* data bytes per page (2048) */
    uint32_t oob_size;    /* spare bytes per page (64) */
    uint32_t dies;        /* dies on the one channel (1) */
    uint64_t seed;        /* the device's seed */
    double bad;           /* factory bad block fraction (0) */
    int quiet;            /* 1: a bit error model that never flips a bit */
    uint32_t ecc_bytes;   /* ECC codeword bytes (nand_config_init's) */
    uint32_t ecc_bits;    /* bits corrected per codeword (nand_config_init's) */
    uint64_t endurance;   /* rated P/E cycles (nand_config_init's) */
    uint32_t pair;        /* > 0: MLC, upper page p pairs with p - pair */
};

/* The configuration of device options o. */
static inline void fx_config(struct nand_config *c, const struct fx_dev *o)
{
    nand_config_init(c);
    c->geo.dies_per_channel = o->dies ? o->dies : 1;
    c->geo.blocks_per_plane = o->blocks ? o->blocks : 64;
    c->geo.pages_per_block = o->pages ? o->pages : 16;
    c->geo.page_size = o->page_size ? o->page_size : 2048;
    c->geo.oob_size = o->oob_size ? o->oob_size : 64;
    if (o->quiet)
        memset(&c->rber, 0, sizeof c->rber);
    if (o->ecc_bytes)
        c->ecc.codeword_bytes = o->ecc_bytes;
    if (o->ecc_bits)
        c->ecc.correct_bits = o->ecc_bits;
    if (o->endurance)
        c->endurance = o->endurance;
    if (o->pair) {
        c->cell = NAND_MLC;
        c->pair_distance = o->pair;
    }
    c->factory_bad_fraction = o->bad;
    c->seed = o->seed;
}

/* A device for config c, or NULL. */
static inline nand_dev *fx_create(const struct nand_config *c)
{
    nand_dev *d = NULL;
    if (nand_create(c, &d) != NAND_OK)
        return NULL;
    return d;
}

/* A device with options o, or NULL. */
static inline nand_dev *fx_device(const struct fx_dev *o)
{
    struct nand_config c;
    fx_config(&c, o);
    return fx_create(&c);
}

/* FX_DEVICE(.blocks = 128, .seed = 7): a device, or NULL. */
#define FX_DEVICE(...) fx_device(&(struct fx_dev){__VA_ARGS__})

/* The simulator tests' device: 2 dies on one channel, 64 blocks per plane,
 * 16 pages of 2048+64 bytes, 4-bit ECC per 512-byte codeword, and a bit
 * error model that never flips a bit, so that rule and timing tests are
 * exact. */
static inline void fx_small_config(struct nand_config *c)
{
    fx_config(c, &(struct fx_dev){.dies = 2, .quiet = 1, .ecc_bytes = 512, .ecc_bits = 4,
                                  .seed = 12345});
}

/* The page geometry of fx_small_config (and of the default device). */
#define PS 2048u
#define OS 64u
#define PB (PS + OS)

static inline nand_dev *fx_small_dev(void)
{
    struct nand_config c;
    fx_small_config(&c);
    return fx_create(&c);
}

/* ---- patterns --------------------------------------------------------------- */

/* splitmix64: a deterministic pattern, independent of the simulator's. */
static inline uint64_t fx_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline void fx_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *p = buf;
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(fx_next(&s) >> 56);
}

/* Number of bits in which a and b differ. */
static inline uint32_t fx_bitdiff(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += (uint32_t)__builtin_popcount((unsigned)(x[i] ^ y[i]));
    return d;
}

static inline int fx_all(const void *buf, size_t n, uint8_t v)
{
    const uint8_t *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/* ---- files ------------------------------------------------------------------ */

/* A whole file (malloc'd, *n bytes), or NULL. */
static inline uint8_t *fx_slurp(const char *path, size_t *n)
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
static inline int fx_spit(const char *path, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(buf, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* The size of the file at path, or -1. */
static inline long long fx_file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) ? -1 : (long long)sb.st_size;
}

#endif

/*
 * options.c -- LogFS options by name, as mount -o lists, the YAML `fs:`
 * section and the CLI give them: one table, so that every front end
 * accepts the same keys with the same checks, and mkfs checks a struct
 * against the same ranges (logfs_options_check).
 */
#include "logfs.h"
#include "gc_policy.h"
#include "lfs_format.h"
#include "epoch.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum kind { U32, BYTES, U64, BOOL, POLICY, WL, EPOCH, COMPR, CLOCK, FRAC };

struct opt {
    const char *key;
    enum kind kind;
    size_t off, size; /* of the field in struct logfs_options */
    uint64_t min, max; /* FRAC: in millionths */
    const char *help;
};

#define F(field) offsetof(struct logfs_options, field), sizeof(((struct logfs_options *)0)->field)
static const struct opt table[] = {
    {"block_size", BYTES, F(block_size), 512, 32768, "fs block, a power of two (4096; mkfs)"},
    {"anchor_blocks", U32, F(anchor_blocks), 2, LFS_MAX_ANCHOR_BLOCKS,
     "erase blocks of the anchor ring, even: two mirrors (4; mkfs)"},
    {"reserve", U32, F(reserve_segments), 1, UINT32_MAX, "segments kept for the cleaner (8; mkfs)"},
    {"cache", BYTES, F(cache_bytes), 4096, UINT64_MAX, "node cache bound (4M, or 1/256 of the device if more)"},
    {"dirty", BYTES, F(dirty_bytes), 4096, UINT64_MAX, "commit when this much is dirty (1M; less if the device cannot spare it)"},
    {"readonly", BOOL, F(readonly), 0, 1, "mount without writing (0)"},
    {"gc_policy", POLICY, F(gc_policy), 0, 0, "victim selection (greedy)"},
    {"gc_window", U32, F(gc_window), 1, UINT32_MAX, "window: the W oldest segments (64)"},
    {"gc_choices", U32, F(gc_choices), 1, UINT32_MAX, "d-choices: d random segments (8)"},
    {"gc_seed", U64, F(gc_seed), 0, UINT64_MAX, "seed of the random policies (1)"},
    {"gc_free_min", U32, F(gc_free_min), 1, UINT32_MAX, "clean ahead below reserve + this (4)"},
    {"gc_idle_free", U32, F(gc_idle_free), 1, UINT32_MAX, "idle cleaning up to reserve + this (16)"},
    {"gc_separate", BOOL, F(gc_separate), 0, 1, "cleaner's copies to their own segments (0)"},
    {"wear_leveling", WL, F(wear_leveling), 0, 0, "none, dynamic or static (dynamic)"},
    {"wl_threshold", U32, F(wl_threshold), 1, UINT32_MAX, "static: erase gap that moves cold data (100)"},
    {"scrub_threshold", U32, F(scrub_threshold), 0, UINT32_MAX,
     "move a segment's data when a read corrects this many bits in a codeword (0: off)"},
    {"parallel", U32, F(parallel), 1, 1024,
     "data segments open on different dies, programmed at once (1)"},
    {"epoch", EPOCH, F(epoch_ns), 0, 0,
     "timestamps: simulated time plus this date, YYYY-MM-DD[THH:MM:SS[Z]] or seconds (1970)"},
    {"clock", CLOCK, F(clock), 0, 0,
     "timestamps from sim (the simulated clock plus epoch) or host (the host's real time) (sim)"},
    {"compress", COMPR, F(compress), 0, 0,
     "file data blocks: none, zlib or lzo (mkfs records it; a mount may override; none)"},
    {"max_utilisation", FRAC, F(max_utilisation), 50000, 990000,
     "live data / capacity the cleaner can use that writers may reach, 0.05..0.99 "
     "(unset: 85% of the cleanable segments' bytes)"},
};
#define NOPTS (sizeof table / sizeof table[0])

/* The one range check of a number for key t: 0, or -EINVAL with a
 * message naming the key (shown: the value as given). */
static int range_error(const struct opt *t, const char *shown, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: '%s' is not a number in %llu..%llu", t->key, shown,
             (unsigned long long)t->min, (unsigned long long)t->max);
    return -EINVAL;
}

static int check_num(const struct opt *t, uint64_t v, const char *shown, char *err,
                     size_t errlen)
{
    if (v < t->min || v > t->max || (t->size < sizeof(uint64_t) && v > UINT32_MAX))
        return range_error(t, shown, err, errlen);
    if (t->off == offsetof(struct logfs_options, block_size) && (v & (v - 1))) {
        snprintf(err, errlen, "block_size: %s is not a power of two", shown);
        return -EINVAL;
    }
    if (t->off == offsetof(struct logfs_options, anchor_blocks) && (v & 1)) {
        snprintf(err, errlen, "anchor_blocks: %s is odd; the ring is two mirrors of "
                 "the same number of blocks", shown);
        return -EINVAL;
    }
    return 0;
}

/* A fraction in t's range (millionths), for FRAC. */
static int check_frac(const struct opt *t, double v, const char *shown, char *err, size_t errlen)
{
    if (!(v * 1e6 >= (double)t->min && v * 1e6 <= (double)t->max)) {
        snprintf(err, errlen, "%s: '%s' is not a fraction in %g..%g", t->key, shown,
                 (double)t->min / 1e6, (double)t->max / 1e6);
        return -EINVAL;
    }
    return 0;
}

uint32_t logfs_blocks_per_segment(uint64_t seg_bytes, uint32_t block_size)
{
    return (uint32_t)(seg_bytes / (block_size + LFS_OBJ_HDR));
}

int logfs_utilisation_fits(double u, uint64_t seg_bytes, uint32_t block_size, char *err,
                           size_t errlen)
{
    uint32_t seg_blocks = logfs_blocks_per_segment(seg_bytes, block_size);
    if ((1.0 - u) * seg_blocks >= 1.0)
        return 0;
    snprintf(err, errlen, "max_utilisation %g cannot run on segments of %u fs blocks: "
             "the cleaner's worst victim would free %.2f blocks, under the one it needs to "
             "make progress; use at most %.3f here", u, seg_blocks, (1.0 - u) * seg_blocks,
             seg_blocks ? floor((1.0 - 1.0 / seg_blocks) * 1000) / 1000 : 0.0); /* not above */
    return -EINVAL;
}

/* A number with an optional K/M/G (binary) suffix for BYTES. */
static int parse_num(const char *s, int suffix, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno)
        return -1;
    unsigned shift = 0;
    if (suffix && *end) {
        const char *units = "KMG";
        const char *u = strchr(units, *end & ~0x20);
        if (!u || (end[1] && strcasecmp(end + 1, "iB") && strcasecmp(end + 1, "B")))
            return -1;
        shift = 10u * (unsigned)(u - units + 1);
        end += strlen(end);
    }
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int64_t logfs_host_clock(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int logfs_option_set(struct logfs_options *o, const char *key, const char *value,
                     char *err, size_t errlen)
{
    const struct opt *t = NULL;
    for (size_t i = 0; i < NOPTS && !t; i++)
        if (!strcmp(table[i].key, key))
            t = &table[i];
    if (!t) {
        snprintf(err, errlen, "unknown option '%s'", key);
        return -EINVAL;
    }
    void *p = (char *)o + t->off;
    uint64_t v;
    switch (t->kind) {
    case POLICY: {
        const struct gc_policy *gp = gc_policy_find(value);
        if (!gp) {
            snprintf(err, errlen, "gc_policy: unknown policy '%s'", value);
            return -EINVAL;
        }
        *(const char **)p = gp->name; /* static: outlives value */
        return 0;
    }
    case WL:
        if (!strcmp(value, "none"))
            *(int *)p = LOGFS_WL_NONE;
        else if (!strcmp(value, "dynamic"))
            *(int *)p = LOGFS_WL_DYNAMIC;
        else if (!strcmp(value, "static"))
            *(int *)p = LOGFS_WL_STATIC;
        else {
            snprintf(err, errlen, "wear_leveling: '%s' is not none, dynamic or static", value);
            return -EINVAL;
        }
        return 0;
    case COMPR: {
        static const char *const names[] = {"none", "zlib", "lzo"};
        for (int i = 0; i < 3; i++)
            if (!strcmp(value, names[i])) {
                *(int *)p = LOGFS_COMPRESS_NONE + i;
                return 0;
            }
        snprintf(err, errlen, "compress: '%s' is not none, zlib or lzo", value);
        return -EINVAL;
    }
    case FRAC: {
        char *end;
        errno = 0;
        double d = strtod(value, &end);
        if (errno || !*value || *end) {
            snprintf(err, errlen, "%s: '%s' is not a number", key, value);
            return -EINVAL;
        }
        int rc = check_frac(t, d, value, err, errlen);
        if (!rc)
            *(double *)p = d;
        return rc;
    }
    case CLOCK:
        if (strcmp(value, "sim") && strcmp(value, "host")) {
            snprintf(err, errlen, "clock: '%s' is not sim or host", value);
            return -EINVAL;
        }
        o->clock = strcmp(value, "host") ? NULL : logfs_host_clock;
        return 0;
    case EPOCH:
        if (sim_epoch_parse(value, (int64_t *)p)) {
            snprintf(err, errlen, "epoch: '%s' is not YYYY-MM-DD[THH:MM:SS[Z]] (1970..2199) "
                     "or seconds since 1970", value);
            return -EINVAL;
        }
        return 0;
    case BOOL:
        if (!strcmp(value, "1") || !strcmp(value, "true") || !strcmp(value, "yes"))
            *(int *)p = 1;
        else if (!strcmp(value, "0") || !strcmp(value, "false") || !strcmp(value, "no"))
            *(int *)p = 0;
        else {
            snprintf(err, errlen, "%s: '%s' is not a boolean", key, value);
            return -EINVAL;
        }
        return 0;
    default: {
        int rc = parse_num(value, t->kind == BYTES, &v) ? range_error(t, value, err, errlen)
                                                        : check_num(t, v, value, err, errlen);
        if (rc)
            return rc;
        if (t->size == sizeof(uint64_t))
            *(uint64_t *)p = v;
        else
            *(uint32_t *)p = (uint32_t)v;
        return 0;
    }
    }
}

int logfs_options_parse(struct logfs_options *o, const char *list, char *err,
                        size_t errlen)
{
    while (list && *list) {
        size_t n = strcspn(list, ",");
        char item[256];
        if (n >= sizeof item) {
            snprintf(err, errlen, "option too long: %.32s...", list);
            return -EINVAL;
        }
        memcpy(item, list, n);
        item[n] = 0;
        list += n + (list[n] == ',');
        if (!n)
            continue;
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, errlen, "'%s' is not KEY=VALUE", item);
            return -EINVAL;
        }
        *eq = 0;
        int rc = logfs_option_set(o, item, eq + 1, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

int logfs_options_check(const struct logfs_options *o, char *err, size_t errlen)
{
    for (size_t i = 0; i < NOPTS; i++) {
        const struct opt *t = &table[i];
        const void *p = (const char *)o + t->off;
        if (t->kind == POLICY) {
            const char *name = *(const char *const *)p;
            if (name && !gc_policy_find(name)) {
                snprintf(err, errlen, "gc_policy: unknown policy '%s'", name);
                return -EINVAL;
            }
            continue;
        }
        if (t->kind == WL) {
            int wl = *(const int *)p;
            if (wl != LOGFS_WL_DYNAMIC && wl != LOGFS_WL_NONE && wl != LOGFS_WL_STATIC) {
                snprintf(err, errlen, "wear_leveling: %d is not none, dynamic or static", wl);
                return -EINVAL;
            }
            continue;
        }
        if (t->kind == COMPR) {
            int c = *(const int *)p;
            if (c && (c < LOGFS_COMPRESS_NONE || c > LOGFS_COMPRESS_LZO)) {
                snprintf(err, errlen, "compress: %d is not none, zlib or lzo", c);
                return -EINVAL;
            }
            continue;
        }
        if (t->kind == FRAC) {
            double d = *(const double *)p;
            char shown[32];
            snprintf(shown, sizeof shown, "%g", d);
            int rc = d != 0 ? check_frac(t, d, shown, err, errlen) : 0; /* 0: the default */
            if (rc)
                return rc;
            continue;
        }
        if (t->kind == BOOL || t->kind == EPOCH || t->kind == CLOCK)
            continue; /* any int: zero or not; any time; any clock */
        uint64_t v = t->size == sizeof(uint64_t) ? *(const uint64_t *)p : *(const uint32_t *)p;
        char shown[24];
        snprintf(shown, sizeof shown, "%llu", (unsigned long long)v);
        int rc = v ? check_num(t, v, shown, err, errlen) : 0; /* 0: the default */
        if (rc)
            return rc;
    }
    return 0;
}

const char *logfs_option_help(unsigned i, const char **help)
{
    if (i >= NOPTS)
        return NULL;
    if (help)
        *help = table[i].help;
    return table[i].key;
}

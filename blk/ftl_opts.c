/*
 * ftl_opts.c -- the FTL's options: "key=value,..." (blk_ftl_option_help
 * is the one list of them).
 */
#include "ftl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[][2] = {
    {"sector", "logical sector (mapping unit): 4K, 8K, ... or page; divides the page "
               "(4K, or the page if smaller; format)"},
    {"op", "over-provisioning: the share of the flash not exposed, 0 < op < 1 (0.07, or "
           "what GC needs on a small device; format)"},
    {"gc_policy", "GC victim policy of gc/: greedy, cost-benefit, d-choices, ... (greedy)"},
    {"gc_choices", "d-choices: random candidates per pick (8)"},
    {"gc_window", "windowed greedy: oldest candidates looked at (64)"},
    {"gc_threshold", "GC a plane when its free blocks fall under this share (0.05)"},
    {"hotcold", "1: GC moves go to a block of their own, apart from host writes (1)"},
    {"wl", "static wear leveling: move a cold block when erase counts spread more "
           "than this (0 off; 1000)"},
    {"pair_safe", "1: on paired-page parts, skip pages at flush and before an erase so a "
                  "torn program cannot reach flushed data (1)"},
    {"seed", "seed of the GC policy's random choices (1)"},
    {"cache", "write cache in RAM, K, M or G: overwrites there never reach flash; a "
              "flush writes it back, a power cut loses it (0: none)"},
};
#define NKEYS (sizeof keys / sizeof keys[0])

const char *blk_ftl_option_help(unsigned i, const char **help)
{
    if (i >= NKEYS)
        return NULL;
    if (help)
        *help = keys[i][1];
    return keys[i][0];
}

void ftl_opts_default(struct ftl_opts *o)
{
    memset(o, 0, sizeof *o);
    o->op = 0.07;
    o->policy = gc_policy_find("greedy");
    o->gc_threshold = 0.05;
    o->hotcold = 1;
    o->wl_threshold = 1000;
    o->pair_safe = 1;
    o->seed = 1;
}

#define VAL_MAX 32
/* v[0..n) as a C string in buf[VAL_MAX]; -1 when empty or too long */
static int val_str(const char *v, size_t n, char *buf)
{
    if (!n || n >= VAL_MAX)
        return -1;
    memcpy(buf, v, n);
    buf[n] = 0;
    return 0;
}

/* a number with an optional K, M or G (powers of 1024) */
static int size_val(const char *v, size_t n, uint64_t *out)
{
    char buf[VAL_MAX];
    if (val_str(v, n, buf))
        return -1;
    char *end;
    unsigned long long x = strtoull(buf, &end, 10);
    if (end == buf)
        return -1;
    int sh = 0;
    if (*end == 'K' || *end == 'k')
        sh = 10, end++;
    else if (*end == 'M' || *end == 'm')
        sh = 20, end++;
    else if (*end == 'G' || *end == 'g')
        sh = 30, end++;
    if (*end || x > (UINT64_MAX >> sh))
        return -1;
    *out = (uint64_t)x << sh;
    return 0;
}

static int real_val(const char *v, size_t n, double *out)
{
    char buf[VAL_MAX];
    if (val_str(v, n, buf))
        return -1;
    char *end;
    *out = strtod(buf, &end);
    return *end || end == buf ? -1 : 0;
}

static int is_key(const char *k, size_t kl, const char *name)
{
    return kl == strlen(name) && !memcmp(k, name, kl);
}

static int one(const char *k, size_t kl, const char *v, size_t vl, struct ftl_opts *o)
{
    uint64_t u;
    double r;
    if (is_key(k, kl, "sector")) {
        if (vl == 4 && !memcmp(v, "page", 4))
            o->sector = UINT32_MAX; /* resolved against the device */
        else if (size_val(v, vl, &u) || u < 512 || u > (1u << 20) || (u & (u - 1)))
            return -1;
        else
            o->sector = (uint32_t)u;
    } else if (is_key(k, kl, "op")) {
        if (real_val(v, vl, &r) || !(r > 0 && r < 1))
            return -1;
        o->op = r;
        o->op_set = 1;
    } else if (is_key(k, kl, "gc_policy")) {
        char name[VAL_MAX];
        if (val_str(v, vl, name) || !(o->policy = gc_policy_find(name)))
            return -1;
    } else if (is_key(k, kl, "gc_threshold")) {
        if (real_val(v, vl, &r) || !(r > 0 && r < 0.5))
            return -1;
        o->gc_threshold = r;
    } else {
        if (size_val(v, vl, &u) || u > UINT32_MAX)
            return -1;
        if (is_key(k, kl, "gc_choices") && u >= 1)
            o->gc_choices = (uint32_t)u;
        else if (is_key(k, kl, "gc_window") && u >= 1)
            o->gc_window = (uint32_t)u;
        else if (is_key(k, kl, "hotcold") && u <= 1)
            o->hotcold = (int)u;
        else if (is_key(k, kl, "wl"))
            o->wl_threshold = (uint32_t)u;
        else if (is_key(k, kl, "pair_safe") && u <= 1)
            o->pair_safe = (int)u;
        else if (is_key(k, kl, "seed"))
            o->seed = u;
        else if (is_key(k, kl, "cache"))
            o->cache_bytes = u;
        else
            return -1;
    }
    return 0;
}

int ftl_opts_parse(const char *s, struct ftl_opts *o)
{
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        if (n) {
            const char *eq = memchr(s, '=', n);
            if (!eq || one(s, (size_t)(eq - s), eq + 1, n - (size_t)(eq - s) - 1, o))
                return -EINVAL;
        }
        s = end ? end + 1 : s + n;
    }
    return 0;
}

int blk_ftl_check_options(const char *options, char *err, size_t errlen)
{
    struct ftl_opts o;
    ftl_opts_default(&o);
    int rc = ftl_opts_parse(options, &o);
    if (rc && err && errlen)
        snprintf(err, errlen, "ftl: bad option in \"%s\"", options);
    return rc;
}

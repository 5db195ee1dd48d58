/*
 * lathist.c -- host-operation latency in simulated time: one log-linear
 * histogram per operation kind (16 sub-buckets per power of two, so a
 * percentile is within 1/16 of the true value), plus exact count, sum and
 * maximum.  Fixed size, no allocation, so recording costs nothing.
 */
#include "fscommon.h"


static unsigned bucket_of(uint64_t v)
{
    if (v < 16)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* 4..63 */
    return 16 + (e - 4) * 16 + (unsigned)((v >> (e - 4)) & 15);
}

/* The largest value in bucket b: what a percentile reports. */
static uint64_t bucket_top(unsigned b)
{
    if (b < 16)
        return b;
    unsigned e = (b - 16) / 16 + 4, sub = (b - 16) % 16;
    return ((16ull + sub + 1) << (e - 4)) - 1;
}

void fs_lat_record(struct fs_lathist *h, uint64_t ns)
{
    h->n[bucket_of(ns)]++;
    h->count++;
    h->sum += ns;
    if (ns > h->max)
        h->max = ns;
}

/* The smallest bucket top with at least q of the samples at or below it. */
static uint64_t quantile(const struct fs_lathist *h, double q)
{
    uint64_t want = (uint64_t)(q * (double)h->count + 0.999999), seen = 0;
    for (unsigned b = 0; b < FS_LAT_BUCKETS; b++)
        if ((seen += h->n[b]) >= want && seen)
            return bucket_top(b) < h->max ? bucket_top(b) : h->max;
    return h->max;
}

void fs_lat_get(const struct fs_lathist *h, struct fs_latency *out)
{
    *out = (struct fs_latency){
        .count = h->count, .max_ns = h->max,
        .mean_ns = h->count ? (double)h->sum / (double)h->count : 0,
    };
    if (h->count) {
        out->p50_ns = quantile(h, 0.50);
        out->p99_ns = quantile(h, 0.99);
        out->p999_ns = quantile(h, 0.999);
    }
}

/*
 * wl_spec.c -- workload specs: the defaults of each kind, request-size
 * distributions, and workload_create/next/free, which hand the work to the
 * family of the kind (wl_block.c, wl_churn.c, wl_trace.c).
 */
#include "workload.h"
#include "rng.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB 1024ull

static const struct {
    const char *kind;
    const struct wl_family *family;
} kinds[] = {
    {"uniform", &wl_block_family},    {"sequential", &wl_block_family},
    {"zipf", &wl_block_family},       {"hotcold", &wl_block_family},
    {"churn", &wl_churn_family},      {"mailserver", &wl_churn_family},
    {"fileserver", &wl_churn_family}, {"rootfs", &wl_churn_family},
    {"trace", &wl_trace_family},
};

const char *wl_kind_name(size_t i)
{
    return i < sizeof kinds / sizeof kinds[0] ? kinds[i].kind : NULL;
}

const char *wl_kind_family(const char *kind)
{
    for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kinds[i].kind, kind))
            return kinds[i].family == &wl_block_family   ? "block"
                   : kinds[i].family == &wl_churn_family ? "churn"
                                                         : "trace";
    return NULL;
}

static const struct wl_family *family_of(const char *kind)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kinds[i].kind, kind))
            return kinds[i].family;
    return NULL;
}

static struct wl_sizes uniform(uint64_t min, uint64_t max)
{
    return (struct wl_sizes){.min = min, .max = max};
}

static void set_mix(struct wl_spec *s, double cr, double ap, double ow, double de,
                    double rn, double rd, double st)
{
    s->op_create = cr, s->op_append = ap, s->op_overwrite = ow, s->op_delete = de;
    s->op_rename = rn, s->op_read = rd, s->op_stat = st;
}

int wl_spec_init(struct wl_spec *s, const char *kind)
{
    memset(s, 0, sizeof *s);
    if (!kind || !family_of(kind) || strlen(kind) >= sizeof s->kind)
        return -EINVAL;
    strcpy(s->kind, kind);
    s->files = 1;
    s->fill = 0.5;
    s->working_set = 1;
    s->align = 4096;
    s->req = uniform(4096, 4096);
    s->theta = 0.99;
    s->hot_writes = 0.9, s->hot_data = 0.1;
    s->dirs = 8;
    s->max_files = 1000;
    s->file_size = uniform(1 * KiB, 64 * KiB);
    s->prealloc = 0.5;
    set_mix(s, 0.25, 0.15, 0.15, 0.25, 0.10, 0.05, 0.05);
    s->trace_format = TRACE_AUTO;
    if (!strcmp(kind, "churn")) {
        s->req = uniform(1 * KiB, 16 * KiB); /* appends and overwrites */
    } else if (!strcmp(kind, "mailserver")) {
        /* filebench varmail: 1000 files of mean 16 KiB in one directory;
         * per loop delete, create+append+fsync, append+fsync, read x2 */
        s->dirs = 1;
        s->prealloc = 0.8;
        s->file_size = uniform(1 * KiB, 31 * KiB);
        s->req = uniform(1 * KiB, 31 * KiB);
        s->fsync_every = 1;
        set_mix(s, 1, 1, 0, 1, 0, 2, 0);
    } else if (!strcmp(kind, "fileserver")) {
        /* filebench fileserver: 10000 files of mean 128 KiB, 20 per
         * directory (dirwidth 20: 500 directories); per loop create+write
         * whole, append 16 KiB, read whole, delete, stat */
        s->dirs = 500;
        s->max_files = 10000;
        s->prealloc = 0.8;
        s->file_size = uniform(4 * KiB, 252 * KiB);
        s->req = uniform(1 * KiB, 31 * KiB);
        set_mix(s, 1, 1, 0, 1, 0, 1, 1);
    } else if (!strcmp(kind, "rootfs")) {
        /* a root file system: setup fills `fill` of the free space with
         * files of a skewed size mix (median 12 KiB, mean ~100 KiB, as
         * metadata studies find on desktops), spread over 256 directories;
         * the workload proper only reads and stats them */
        static const uint64_t sz[] = {700, 3000, 12 * KiB, 48 * KiB, 200 * KiB, 900 * KiB,
                                      3584 * KiB};
        static const double wt[] = {20, 25, 25, 15, 10, 4, 1};
        s->dirs = 256;
        s->max_files = 400000;
        s->prealloc = 1;
        s->file_size.n = sizeof sz / sizeof sz[0];
        for (uint32_t i = 0; i < s->file_size.n; i++)
            s->file_size.size[i] = sz[i], s->file_size.weight[i] = wt[i];
        s->req = uniform(4 * KiB, 4 * KiB);
        set_mix(s, 0, 0, 0, 0, 0, 1, 1);
    }
    return 0;
}

uint64_t wl_sizes_max(const struct wl_sizes *d)
{
    uint64_t m = d->n ? 0 : d->max > d->min ? d->max : d->min;
    for (uint32_t i = 0; i < d->n && i < WL_MAX_SIZES; i++)
        m = d->size[i] > m ? d->size[i] : m;
    return m;
}

uint64_t wl_sizes_draw(const struct wl_sizes *d, uint64_t gran, uint64_t h)
{
    if (d->n) {
        double total = 0, u;
        for (uint32_t i = 0; i < d->n; i++)
            total += d->weight[i];
        u = rng_unit(h) * total;
        for (uint32_t i = 0; i < d->n; i++)
            if ((u -= d->weight[i]) < 0)
                return d->size[i];
        return d->size[d->n - 1]; /* u rounded to total */
    }
    gran = gran ? gran : 1;
    uint64_t lo = (d->min + gran - 1) / gran * gran, hi = d->max / gran * gran;
    if (d->max <= d->min || lo > hi)
        return d->min;
    return lo + gran * (h % ((hi - lo) / gran + 1));
}

int wl_sizes_check(const struct wl_sizes *d, const char *what, char *err, size_t errlen)
{
    if (d->n > WL_MAX_SIZES)
        return wl_fail(err, errlen, -EINVAL, "%s: more than %d sizes", what, WL_MAX_SIZES);
    double total = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        if (!d->size[i] || !(d->weight[i] >= 0))
            return wl_fail(err, errlen, -EINVAL, "%s: size %u is 0 or its weight < 0",
                           what, i);
        total += d->weight[i];
    }
    if (d->n && !(total > 0 && total < 1e300))
        return wl_fail(err, errlen, -EINVAL, "%s: the weights add up to %g", what, total);
    if (!d->n && !d->min)
        return wl_fail(err, errlen, -EINVAL, "%s: size 0", what);
    return 0;
}

int wl_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

struct workload {
    const struct wl_family *f;
    void *st;
    int in_setup;
};

int workload_create(const struct wl_spec *spec, uint64_t seed, const struct fsapi_fs *fs,
                    struct workload **out, char *err, size_t errlen)
{
    *out = NULL;
    const struct wl_family *f = family_of(spec->kind);
    if (!f)
        return wl_fail(err, errlen, -EINVAL, "unknown workload kind \"%.32s\"", spec->kind);
    struct workload *w = calloc(1, sizeof *w);
    if (!w)
        return wl_fail(err, errlen, -ENOMEM, "out of memory");
    w->f = f;
    w->in_setup = 1;
    int rc = f->create(spec, seed, fs, &w->st, err, errlen);
    if (rc) {
        free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int workload_next(struct workload *w, struct trace_rec *op, char *err, size_t errlen)
{
    memset(op, 0, sizeof *op);
    return w->f->next(w->st, op, &w->in_setup, err, errlen);
}

int workload_in_setup(const struct workload *w)
{
    return w->in_setup;
}

int workload_files(const struct workload *w,
                   int (*fn)(void *ctx, const char *path, uint64_t size), void *ctx)
{
    return w->f->files(w->st, fn, ctx);
}

void workload_free(struct workload *w)
{
    if (!w)
        return;
    w->f->free(w->st);
    free(w);
}

/*
 * wl_block.c -- the block-level kinds: uniform, sequential, zipf, hotcold.
 * The data is `files` files /data/fN of fbytes each, seen as one array of
 * nblk blocks of `align` bytes; each op picks a block by the kind's law.
 * Reads and punches pick their blocks the same way as writes.
 */
#include "workload.h"
#include "rng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETUP_IO (64u << 10)

enum { K_UNIFORM, K_SEQUENTIAL, K_ZIPF, K_HOTCOLD };
enum { ST_MKDIR, ST_CREATE, ST_FILL, ST_SYNC, ST_RUN }; /* setup steps, then the run */
enum { D_OP = 1, D_SIZE, D_POS, D_HOT }; /* what a random draw decides */

/* Zipf over ranks 1..n by rejection-inversion (Hormann & Derflinger 1996,
 * as in Apache Commons' sampler): O(1) memory and expected time, exact for
 * every theta > 0, theta = 1 included. */
struct zipf {
    double theta, hx1, hn, s;
    uint64_t n;
};

static double helper1(double x) /* log1p(x) / x */
{
    return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - x * 0.25));
}

static double helper2(double x) /* expm1(x) / x */
{
    return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + x * 0.25));
}

static double z_hint(const struct zipf *z, double x) /* integral of x^-theta */
{
    double lx = log(x);
    return helper2((1 - z->theta) * lx) * lx;
}

static double z_hinv(const struct zipf *z, double x)
{
    double t = x * (1 - z->theta);
    return exp(helper1(t < -1 ? -1 : t) * x);
}

static void zipf_init(struct zipf *z, uint64_t n, double theta)
{
    z->theta = theta;
    z->n = n;
    z->hx1 = z_hint(z, 1.5) - 1;
    z->hn = z_hint(z, (double)n + 0.5);
    z->s = 2 - z_hinv(z, z_hint(z, 2.5) - exp(-theta * log(2.0)));
}

/* A rank in 1..n; draw i of the loop uses rng_key(.., i). */
static uint64_t zipf_draw(const struct zipf *z, uint64_t seed, uint64_t opno)
{
    for (uint64_t i = 0;; i++) {
        double u = z->hn + rng_unit(rng_key(seed, RNG_WORKLOAD, opno, D_POS, i, 0)) *
                               (z->hx1 - z->hn);
        double x = z_hinv(z, u);
        double kd = floor(x + 0.5);
        uint64_t k = kd < 1 ? 1 : kd > (double)z->n ? z->n : (uint64_t)kd;
        double hk = exp(-z->theta * log((double)k)); /* k^-theta */
        if ((double)k - x <= z->s || u >= z_hint(z, (double)k + 0.5) - hk)
            return k;
    }
}

/* A seeded bijection of [0, n): a 4-round Feistel network on 2*half bits,
 * cycle-walked until the value falls inside (at most 4n values, so a few
 * steps on average). */
static uint64_t permute(uint64_t seed, uint64_t n, uint64_t x)
{
    unsigned half = 1;
    while (half < 32 && (1ull << (2 * half)) < n)
        half++;
    uint64_t mask = (1ull << half) - 1;
    do {
        uint64_t l = x >> half, r = x & mask;
        for (unsigned k = 0; k < 4; k++) {
            uint64_t t = l ^ (rng_key(seed, RNG_WORKLOAD, 0, 0xfe15, k, r) & mask);
            l = r, r = t;
        }
        x = l << half | r;
    } while (x >= n);
    return x;
}

struct blk {
    struct wl_spec s;
    uint64_t seed;
    int kind, step;
    uint64_t fbytes, nblk_file, nblk, nhot;
    uint64_t fill_end;         /* setup writes each file up to here */
    int disk;                  /* a block device: the one file /disk */
    struct zipf z;
    uint32_t sfile;            /* setup: the file being filled */
    uint64_t soff;
    uint64_t n, writes;        /* ops drawn, writes drawn */
    uint32_t cur_file[3];      /* sequential: a cursor per op kind */
    uint64_t cur_off[3];
    int pend_fsync, pend_sync; /* to emit after the op just returned */
    uint32_t last_file;
    char path[48];
};

static const char *fpath(struct blk *b, uint32_t f)
{
    if (b->disk)
        return "/disk";
    snprintf(b->path, sizeof b->path, "/data/f%u", f);
    return b->path;
}

static int blk_create(const struct wl_spec *s, uint64_t seed, const struct fsapi_fs *fs,
                      void **state, char *err, size_t errlen)
{
    static const char *names[] = {"uniform", "sequential", "zipf", "hotcold"};
    int kind = -1, rc;
    for (int i = 0; i < 4; i++)
        if (!strcmp(s->kind, names[i]))
            kind = i;
    if (kind < 0 || !s->files || !s->align)
        return wl_fail(err, errlen, -EINVAL, "%s: files and align must be > 0", s->kind);
    if ((rc = wl_sizes_check(&s->req, "req", err, errlen)))
        return rc;
    if (!(s->read_fraction >= 0 && s->discard_fraction >= 0 &&
          s->read_fraction + s->discard_fraction <= 1))
        return wl_fail(err, errlen, -EINVAL, "read_fraction + discard_fraction > 1");
    if (kind == K_ZIPF && !(s->theta > 0 && s->theta < 1e6))
        return wl_fail(err, errlen, -EINVAL, "zipf: theta %g not in (0, 1e6)", s->theta);
    if (kind == K_HOTCOLD && !(s->hot_data > 0 && s->hot_data < 1 && s->hot_writes >= 0 &&
                               s->hot_writes <= 1))
        return wl_fail(err, errlen, -EINVAL, "hotcold: hot_data not in (0, 1) or "
                       "hot_writes not in [0, 1]");
    if (!(s->working_set > 0 && s->working_set <= 1))
        return wl_fail(err, errlen, -EINVAL, "working_set %g not in (0, 1]", s->working_set);
    int disk = (fs->api->features & FSAPI_F_ONE_FILE) != 0;
    uint64_t fbytes = s->file_bytes;
    if (disk) { /* the device's logical space; fill is preconditioning */
        struct fs_stat st;
        if ((rc = fs->api->stat(fs->fs, "/disk", &st)))
            return wl_fail(err, errlen, rc, "stat /disk: %s", strerror(-rc));
        if (s->files != 1 || s->file_bytes)
            return wl_fail(err, errlen, -EINVAL, "%s on %s: one file, /disk, of the "
                           "device's size (files: 1, no file_bytes)", s->kind, fs->api->name);
        if (!(s->fill >= 0 && s->fill <= 1))
            return wl_fail(err, errlen, -EINVAL, "fill %g not in [0, 1]", s->fill);
        fbytes = st.size / s->align * s->align;
    } else if (!fbytes && s->utilisation > 0) {
        uint64_t live, cap;
        if (!(s->utilisation < 1))
            return wl_fail(err, errlen, -EINVAL, "utilisation %g not in (0, 1)", s->utilisation);
        if (fsapi_counter(fs, "live_bytes", &live) || fsapi_counter(fs, "cleanable_bytes", &cap))
            return wl_fail(err, errlen, -EINVAL, "utilisation: %s does not report the capacity "
                           "its cleaner can use; size the data with fill", fs->api->name);
        /* live bytes grow by the data and the fs's overhead on it (LogFS:
         * object headers, the tree), where the kind says how much */
        uint64_t ppm = 0;
        fsapi_counter(fs, "data_overhead_ppm", &ppm);
        double want = (s->utilisation * (double)cap - (double)live) / (1 + (double)ppm / 1e6);
        fbytes = want > 0 ? (uint64_t)want / s->files / s->align * s->align : 0;
    } else if (!fbytes) {
        struct fs_statfs st;
        if (!(s->fill > 0 && s->fill <= 1))
            return wl_fail(err, errlen, -EINVAL, "fill %g not in (0, 1]", s->fill);
        if ((rc = fs->api->statfs(fs->fs, &st)))
            return wl_fail(err, errlen, rc, "statfs: %s", strerror(-rc));
        fbytes = (uint64_t)(s->fill * (double)st.free_bytes) / s->files / s->align * s->align;
    }
    uint64_t maxreq = wl_sizes_max(&s->req);
    if (fbytes < s->align || fbytes < maxreq)
        return wl_fail(err, errlen, -ENOSPC, "%s: files of %llu bytes cannot hold a "
                       "request of %llu", s->kind, (unsigned long long)fbytes,
                       (unsigned long long)maxreq);
    struct blk *b = calloc(1, sizeof *b);
    if (!b)
        return wl_fail(err, errlen, -ENOMEM, "out of memory");
    b->s = *s;
    b->seed = seed;
    b->kind = kind;
    b->fbytes = fbytes;
    b->disk = disk;
    b->fill_end = disk ? (uint64_t)(s->fill * (double)fbytes) / s->align * s->align : fbytes;
    if (disk && !b->fill_end)
        b->step = ST_RUN; /* from empty */
    else if (disk)
        b->step = ST_CREATE;
    /* requests address the first working_set of each file's blocks */
    b->nblk_file = (uint64_t)(s->working_set * (double)(fbytes / s->align));
    b->nblk_file = b->nblk_file ? b->nblk_file : 1;
    b->nblk = b->nblk_file * s->files;
    double hot = floor(s->hot_data * (double)b->nblk + 0.5); /* 1..nblk-1 */
    b->nhot = hot < 1 ? 1 : hot >= (double)b->nblk ? b->nblk - 1 : (uint64_t)hot;
    if (kind == K_HOTCOLD && b->nblk < 2) {
        free(b);
        return wl_fail(err, errlen, -EINVAL, "hotcold: needs at least 2 blocks");
    }
    if (kind == K_ZIPF)
        zipf_init(&b->z, b->nblk, s->theta);
    *state = b;
    return 0;
}

/* The setup ops: mkdir /data, then per file create and 64 KiB writes, a
 * sync at the end.  1 with *op filled, 0 when setup is over. */
static int setup_next(struct blk *b, struct trace_rec *op)
{
    switch (b->step) {
    case ST_MKDIR:
        op->op = TRACE_MKDIR, op->path = "/data", op->mode = 0755;
        b->step = ST_CREATE;
        return 1;
    case ST_CREATE:
        op->op = TRACE_CREATE, op->path = fpath(b, b->sfile), op->mode = 0644;
        op->flags = TRACE_F_WRITE | TRACE_F_CREAT | (b->disk ? 0 : TRACE_F_TRUNC);
        b->soff = 0;
        b->step = ST_FILL;
        return 1;
    case ST_FILL:
        op->op = TRACE_WRITE, op->path = fpath(b, b->sfile), op->offset = b->soff;
        op->length = b->fill_end - b->soff < SETUP_IO ? b->fill_end - b->soff : SETUP_IO;
        b->soff += op->length;
        if (b->soff == b->fill_end)
            b->step = ++b->sfile < b->s.files ? ST_CREATE : ST_SYNC;
        return 1;
    case ST_SYNC:
        op->op = TRACE_SYNC;
        b->step = ST_RUN;
        return 1;
    }
    return 0;
}

/* The block a random op lands on: D_POS draws of op number n. */
static uint64_t pick_block(struct blk *b, uint64_t n)
{
    uint64_t h = rng_key(b->seed, RNG_WORKLOAD, n, D_POS, 0, 0);
    switch (b->kind) {
    case K_ZIPF:
        return permute(b->seed, b->nblk, zipf_draw(&b->z, b->seed, n) - 1);
    case K_HOTCOLD: {
        int hot = rng_unit(rng_key(b->seed, RNG_WORKLOAD, n, D_HOT, 0, 0)) < b->s.hot_writes;
        uint64_t r = hot ? h % b->nhot : b->nhot + h % (b->nblk - b->nhot);
        return permute(b->seed, b->nblk, r);
    }
    }
    return h % b->nblk;
}

static int blk_next(void *state, struct trace_rec *op, int *in_setup, char *err,
                    size_t errlen)
{
    (void)err, (void)errlen;
    struct blk *b = state;
    if ((*in_setup = setup_next(b, op)))
        return 1;
    if (b->pend_fsync) { /* after every fsync_every-th write: that file */
        b->pend_fsync = 0;
        op->op = TRACE_FSYNC, op->path = fpath(b, b->last_file);
        return 1;
    }
    if (b->pend_sync) {
        b->pend_sync = 0;
        op->op = TRACE_SYNC;
        return 1;
    }
    uint64_t n = b->n++;
    double u = rng_unit(rng_key(b->seed, RNG_WORKLOAD, n, D_OP, 0, 0));
    op->op = u < b->s.read_fraction ? TRACE_READ
           : u < b->s.read_fraction + b->s.discard_fraction ? TRACE_DISCARD : TRACE_WRITE;
    op->length = wl_sizes_draw(&b->s.req, b->s.align,
                               rng_key(b->seed, RNG_WORKLOAD, n, D_SIZE, 0, 0));
    uint32_t file;
    uint64_t off;
    if (b->kind == K_SEQUENTIAL) { /* on through the files, wrapping */
        int c = op->op == TRACE_WRITE ? 0 : op->op == TRACE_READ ? 1 : 2;
        if (b->cur_off[c] + op->length > b->nblk_file * b->s.align) {
            b->cur_off[c] = 0;
            b->cur_file[c] = (b->cur_file[c] + 1) % b->s.files;
        }
        file = b->cur_file[c], off = b->cur_off[c];
        b->cur_off[c] += (op->length + b->s.align - 1) / b->s.align * b->s.align;
    } else {
        uint64_t blk = pick_block(b, n);
        file = (uint32_t)(blk / b->nblk_file);
        off = blk % b->nblk_file * b->s.align;
        if (off + op->length > b->fbytes) /* the last aligned place it fits */
            off = (b->fbytes - op->length) / b->s.align * b->s.align;
    }
    op->offset = off;
    op->path = fpath(b, file);
    if (op->op == TRACE_WRITE) {
        b->last_file = file;
        b->pend_fsync = b->s.fsync_every && ++b->writes % b->s.fsync_every == 0;
    }
    b->pend_sync = b->s.sync_every && b->n % b->s.sync_every == 0;
    return 1;
}

static int blk_files(const void *state, int (*fn)(void *, const char *, uint64_t), void *ctx)
{
    const struct blk *b = state;
    /* the files exist once their create has been handed out */
    uint32_t made = b->step >= ST_SYNC ? b->s.files : b->sfile + (b->step == ST_FILL);
    int rc = 0;
    char p[48];
    if (b->disk) /* /disk is always there, at its size */
        return fn(ctx, "/disk", b->fbytes);
    for (uint32_t f = 0; f < made && !rc; f++) {
        snprintf(p, sizeof p, "/data/f%u", f);
        rc = fn(ctx, p, f == b->sfile && b->step == ST_FILL ? b->soff : b->fbytes);
    }
    return rc;
}

static void blk_free(void *state)
{
    free(state);
}

const struct wl_family wl_block_family = {blk_create, blk_next, blk_files, blk_free};

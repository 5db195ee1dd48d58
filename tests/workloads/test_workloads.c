/*
 * test_workloads.c -- the workload generators and the executor.  Every
 * kind runs its setup and a few thousand ops on a small simulated device
 * with no failing op and the fs ending as the generator's model says; the
 * same seed gives the same ops, another seed others.  The laws are checked
 * on generated (not applied) ops, with the tolerances stated at each test.
 * Traces (MSR, blkparse, fs-op) are written to a temporary directory and
 * replayed: offsets wrap and clip, discards punch, contents match.
 */
#include "fsdigest.h"
#include "logfs/logfs.h"
#include "rng.h"
#include "fixture.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char dir[] = "/tmp/flashlab-wl-XXXXXX";

struct env {
    nand_dev *d;
    logfs *fs;
    struct fsapi_fs m; /* fs through the table, as the runner has it */
    struct wl_exec *x;
};

/* 128 blocks of 32 pages of 2 KiB: 8 MiB, as in test_lfs_gc.c */
static int env_open(struct env *e)
{
    struct logfs_options o = {.reserve_segments = 4, .dirty_bytes = 256 << 10};
    memset(e, 0, sizeof *e);
    e->d = FX_DEVICE(.blocks = 128, .pages = 32, .endurance = 1000000, .seed = 5);
    if (!e->d || logfs_mkfs(e->d, &o) || logfs_mount(e->d, &o, &e->fs))
        return -1;
    e->m = (struct fsapi_fs){fsapi_find("logfs"), e->fs};
    return wl_exec_create(&e->m, &e->x);
}

static void env_close(struct env *e)
{
    wl_exec_free(e->x);
    if (e->fs)
        CHECK_EQ_INT(logfs_unmount(e->fs), 0);
    nand_close(e->d);
}

static uint64_t mixin(uint64_t h, uint64_t v)
{
    return rng_mix(h ^ rng_mix(v + 0x9e3779b97f4a7c15ull));
}

static uint64_t hash_rec(uint64_t h, const struct trace_rec *r)
{
    h = mixin(mixin(mixin(h, r->op), r->offset), r->length);
    h = mixin(mixin(mixin(h, r->flags), r->mode), r->size);
    for (const char *p = r->path ? r->path : ""; *p; p++)
        h = mixin(h, (unsigned char)*p);
    for (const char *p = r->path2 ? r->path2 : ""; *p; p++)
        h = mixin(h, (unsigned char)*p + 256);
    return h;
}

/* Run setup and nops ops of s, applying them if apply (each must succeed);
 * see() is shown each op first.  Returns the hash of all records; *keep
 * (if given) gets the workload, NULL if it could not be made. */
typedef void see_fn(void *ctx, const struct trace_rec *op, int setup, struct env *e);
static uint64_t run(struct env *e, const struct wl_spec *s, uint64_t seed, uint64_t nops,
                    int apply, see_fn *see, void *ctx, struct workload **keep)
{
    struct workload *w;
    char err[512] = "";
    int rc = workload_create(s, seed, &e->m, &w, err, sizeof err);
    if (keep)
        *keep = NULL;
    if (rc) {
        fprintf(stderr, "%s: workload_create: %d %s\n", s->kind, rc, err);
        CHECK(0);
        return 0;
    }
    uint64_t h = 1, done = 0;
    struct trace_rec op;
    while (done < nops && (rc = workload_next(w, &op, err, sizeof err)) > 0) {
        int setup = workload_in_setup(w);
        done += !setup;
        h = hash_rec(h, &op);
        if (see)
            see(ctx, &op, setup, e);
        if (!apply)
            continue;
        wl_exec_set_setup(e->x, setup);
        int64_t res = wl_exec_apply(e->x, &op, NULL);
        if (res < 0) {
            fprintf(stderr, "%s: op %d %s (offset %llu length %llu) failed: %lld\n", s->kind,
                    op.op, op.path ? op.path : "-", (unsigned long long)op.offset,
                    (unsigned long long)op.length, (long long)res);
            CHECK(0);
            break;
        }
    }
    CHECK(rc >= 0);
    if (keep)
        *keep = w;
    else
        workload_free(w);
    return h;
}

static int stat_matches(void *ctx, const char *path, uint64_t size)
{
    struct fs_stat st = {0};
    int rc = logfs_stat(ctx, path, &st);
    if (rc || st.size != size) {
        fprintf(stderr, "%s: stat %d, size %llu, model %llu\n", path, rc,
                (unsigned long long)st.size, (unsigned long long)size);
        test_failed_now = 1;
    }
    return 0;
}

TEST(spec_defaults_and_bad_specs)
{
    struct wl_spec s;
    const char *k[] = {"uniform", "sequential", "zipf", "hotcold", "churn",
                       "mailserver", "fileserver", "trace"};
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(wl_spec_init(&s, k[i]), 0);
        CHECK(!strcmp(s.kind, k[i]) && s.align == 4096 && s.fill == 0.5);
    }
    CHECK_EQ_INT(wl_spec_init(&s, "no-such-kind"), -EINVAL);
    wl_spec_init(&s, "mailserver");
    CHECK(s.dirs == 1 && s.fsync_every == 1 && s.op_read == 2 && s.op_overwrite == 0);
    wl_spec_init(&s, "fileserver");
    CHECK(s.dirs == 500 && s.max_files == 10000 && s.op_stat == 1);
    struct env e;
    REQUIRE(env_open(&e) == 0);
    struct workload *w = NULL;
    char err[256] = "";
    wl_spec_init(&s, "uniform");
    s.read_fraction = 0.7, s.discard_fraction = 0.5;
    CHECK_EQ_INT(workload_create(&s, 1, &e.m, &w, err, sizeof err), -EINVAL);
    CHECK(w == NULL && strstr(err, "read_fraction"));
    wl_spec_init(&s, "zipf");
    s.file_bytes = 4096, s.req.min = s.req.max = 8192;
    CHECK_EQ_INT(workload_create(&s, 1, &e.m, &w, err, sizeof err), -ENOSPC);
    env_close(&e);
}

/* Every kind on the 8 MiB device: setup + 4000 ops, none failing, the
 * files as the model says; same seed same hash, seed + 1 another. */
TEST(every_kind_runs_clean_and_deterministic)
{
    const char *k[] = {"uniform", "sequential", "zipf", "hotcold", "churn",
                       "mailserver", "fileserver"};
    for (int i = 0; i < 7; i++) {
        struct wl_spec s;
        wl_spec_init(&s, k[i]);
        s.files = 3, s.read_fraction = 0.2, s.discard_fraction = 0.1;
        s.fsync_every = i < 4 ? 16 : s.fsync_every, s.sync_every = 200;
        s.max_files = i == 6 ? 60 : 100;
        s.dirs = i == 6 ? 5 : s.dirs;
        struct env e;
        struct workload *w;
        REQUIRE(env_open(&e) == 0);
        uint64_t h1 = run(&e, &s, 42, 4000, 1, NULL, NULL, &w);
        REQUIRE(w);
        workload_files(w, stat_matches, e.fs);
        workload_free(w);
        env_close(&e);
        REQUIRE(env_open(&e) == 0);
        uint64_t h2 = run(&e, &s, 42, 4000, 0, NULL, NULL, NULL);
        uint64_t h3 = run(&e, &s, 43, 4000, 0, NULL, NULL, NULL);
        env_close(&e);
        if (h1 != h2 || h1 == h3)
            fprintf(stderr, "%s: hashes %llx %llx %llx\n", k[i], (unsigned long long)h1,
                    (unsigned long long)h2, (unsigned long long)h3);
        CHECK(h1 == h2 && h1 != h3);
    }
}

/* ---- the laws, on generated ops ----------------------------------- */

struct blocks {
    uint64_t fbytes, nblk_file; /* per file */
    uint32_t *count;            /* writes per global block */
    uint64_t writes, reads, discards, ops, bad;
};

static void see_block(void *ctx, const struct trace_rec *op, int setup, struct env *e)
{
    (void)e;
    struct blocks *b = ctx;
    if (setup || op->op == TRACE_FSYNC || op->op == TRACE_SYNC)
        return;
    unsigned f = 0;
    b->ops++;
    if (!op->path || sscanf(op->path, "/data/f%u", &f) != 1 || op->offset % 4096 ||
        op->offset + op->length > b->fbytes)
        b->bad++;
    b->reads += op->op == TRACE_READ;
    b->discards += op->op == TRACE_DISCARD;
    if (op->op == TRACE_WRITE && b->count && !b->bad)
        b->count[f * b->nblk_file + op->offset / 4096]++;
    b->writes += op->op == TRACE_WRITE;
}

/* Generate n ops of s over files of fbytes; counts per block. */
static void gen_blocks(struct wl_spec *s, uint64_t fbytes, uint64_t n, struct blocks *b)
{
    struct env e;
    memset(b, 0, sizeof *b);
    s->file_bytes = b->fbytes = fbytes;
    b->nblk_file = fbytes / 4096;
    b->count = calloc(b->nblk_file * s->files, sizeof *b->count);
    if (env_open(&e) == 0)
        run(&e, s, 7, n, 0, see_block, b, NULL);
    env_close(&e);
    CHECK_EQ_INT(b->bad, 0);
}

static int desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The share of the writes that the top k blocks (by count) took. */
static double top_share(struct blocks *b, uint64_t nblk, uint64_t k)
{
    uint32_t *c = malloc(nblk * sizeof *c);
    memcpy(c, b->count, nblk * sizeof *c);
    qsort(c, nblk, sizeof *c, desc);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < k; i++)
        sum += c[i];
    free(c);
    return (double)sum / (double)b->writes;
}

/* 4 files of 1 MiB = 1024 blocks in 64 buckets, 128k writes: chi-square
 * (63 degrees of freedom, mean 63, sd 11) below 120, p ~ 1e-5 for a
 * uniform law; each file within 1/4 +- 0.01. */
TEST(uniform_is_uniform)
{
    struct wl_spec s;
    struct blocks b;
    wl_spec_init(&s, "uniform");
    s.files = 4;
    gen_blocks(&s, 1 << 20, 128000, &b);
    double chi = 0, exp = (double)b.writes / 64;
    for (int k = 0; k < 64; k++) {
        uint64_t n = 0;
        for (int i = 0; i < 16; i++)
            n += b.count[k * 16 + i];
        chi += ((double)n - exp) * ((double)n - exp) / exp;
    }
    if (getenv("WL_DEBUG"))
        fprintf(stderr, "chi2 %.1f\n", chi);
    CHECK(chi < 120);
    for (int f = 0; f < 4; f++) {
        uint64_t n = 0;
        for (int i = 0; i < 256; i++)
            n += b.count[f * 256 + i];
        CHECK_NEAR((double)n / (double)b.writes, 0.25, 0.01);
    }
    free(b.count);
}

struct syncs {
    uint64_t data_ops, writes_since, bad, fsyncs, syncs, sizes[17];
    char last[64];
};

static void see_syncs(void *ctx, const struct trace_rec *op, int setup, struct env *e)
{
    (void)e;
    struct syncs *y = ctx;
    if (setup)
        return;
    if (op->op == TRACE_FSYNC) { /* exactly after the 7th write, of its file */
        y->bad += y->writes_since != 7 || strcmp(op->path, y->last);
        y->writes_since = 0, y->fsyncs++;
    } else if (op->op == TRACE_SYNC) {
        y->bad += y->data_ops % 50 != 0, y->syncs++;
    } else {
        y->bad += y->data_ops && y->data_ops % 50 == 0 && y->syncs != y->data_ops / 50;
        y->data_ops++;
        y->bad += op->length % 4096 || op->length < 4096 || op->length > 65536;
        y->sizes[op->length / 4096]++;
        if (op->op == TRACE_WRITE)
            snprintf(y->last, sizeof y->last, "%s", op->path), y->writes_since++;
    }
}

/* read 0.3 and discard 0.1 of 100k ops within +-0.02 (the sd is 0.0015);
 * an fsync after exactly every 7th write, a sync after every 50 ops; the
 * 16 request sizes of 4..64 KiB each 1/16 +- 0.01. */
TEST(fractions_fsync_and_sync)
{
    struct wl_spec s;
    struct blocks b;
    wl_spec_init(&s, "uniform");
    s.read_fraction = 0.3, s.discard_fraction = 0.1;
    s.req.min = 4096, s.req.max = 65536;
    gen_blocks(&s, 8 << 20, 100000, &b);
    CHECK_NEAR((double)b.reads / (double)b.ops, 0.3, 0.02);
    CHECK_NEAR((double)b.discards / (double)b.ops, 0.1, 0.02);
    free(b.count);
    struct syncs y = {0};
    struct env e;
    s.fsync_every = 7, s.sync_every = 50, s.file_bytes = 8 << 20;
    REQUIRE(env_open(&e) == 0);
    run(&e, &s, 9, 20000, 0, see_syncs, &y, NULL);
    env_close(&e);
    CHECK_EQ_INT(y.bad, 0);
    CHECK(y.fsyncs > 1000 && y.syncs == y.data_ops / 50);
    for (int i = 1; i <= 16; i++)
        CHECK_NEAR((double)y.sizes[i] / (double)y.data_ops, 1.0 / 16, 0.01);
}

struct seq {
    uint64_t i, bad;
};

static void see_seq(void *ctx, const struct trace_rec *op, int setup, struct env *e)
{
    (void)e;
    struct seq *q = ctx;
    if (setup)
        return;
    char want[32];
    uint64_t k = q->i++ % 48; /* 3 files of 16 blocks */
    snprintf(want, sizeof want, "/data/f%u", (unsigned)(k / 16));
    q->bad += op->op != TRACE_WRITE || strcmp(op->path, want) || op->offset != k % 16 * 4096;
}

TEST(sequential_goes_through_the_files)
{
    struct wl_spec s;
    struct seq q = {0};
    struct env e;
    wl_spec_init(&s, "sequential");
    s.files = 3, s.file_bytes = 16 * 4096;
    REQUIRE(env_open(&e) == 0);
    run(&e, &s, 1, 200, 1, see_seq, &q, NULL);
    env_close(&e);
    CHECK_EQ_INT(q.bad, 0);
    CHECK_EQ_INT(q.i, 200);
}

/* 2048 blocks, hot_data 0.2 (410 blocks), hot_writes 0.8, 100k writes: the
 * 410 most written blocks take 0.8 +- 0.03 of the writes (a hot block gets
 * ~195 writes, a cold one ~12: the top 410 are the hot set), and they are
 * spread: 0.5 +- 0.1 of them in the first half of the blocks. */
TEST(hotcold_share)
{
    struct wl_spec s;
    struct blocks b;
    wl_spec_init(&s, "hotcold");
    s.files = 2, s.hot_data = 0.2, s.hot_writes = 0.8;
    gen_blocks(&s, 4 << 20, 100000, &b);
    CHECK_NEAR(top_share(&b, 2048, 410), 0.8, 0.03);
    uint32_t *c = malloc(2048 * sizeof *c);
    memcpy(c, b.count, 2048 * sizeof *c);
    qsort(c, 2048, sizeof *c, desc);
    uint64_t first = 0;
    for (int i = 0; i < 1024; i++)
        first += b.count[i] >= c[409];
    CHECK_NEAR((double)first / 410, 0.5, 0.1);
    free(c);
    free(b.count);
}

/* sum of k^-theta for k = 1..n: exact to 1e6, then the midpoint integral. */
static double harmonic(uint64_t n, double theta)
{
    double h = 0;
    uint64_t m = n < 1000000 ? n : 1000000;
    for (uint64_t k = m; k >= 1; k--)
        h += pow((double)k, -theta);
    if (n > m)
        h += fabs(theta - 1) < 1e-12 ? log(((double)n + 0.5) / ((double)m + 0.5))
             : (pow((double)n + 0.5, 1 - theta) - pow((double)m + 0.5, 1 - theta)) /
                   (1 - theta);
    return h;
}

/* 10240 blocks, 300k writes: the top 1% (102 blocks) take H(102)/H(10240)
 * of the writes, +- 0.01, for theta 0.5, 0.99, 1 and 1.3; the hot blocks
 * are spread (0.5 +- 0.15 of the top 102 in the first half). */
TEST(zipf_top_share)
{
    const double th[] = {0.5, 0.99, 1.0, 1.3};
    for (int t = 0; t < 4; t++) {
        struct wl_spec s;
        struct blocks b;
        wl_spec_init(&s, "zipf");
        s.theta = th[t];
        gen_blocks(&s, 10240 * 4096ull, 300000, &b);
        double want = harmonic(102, th[t]) / harmonic(10240, th[t]);
        double got = top_share(&b, 10240, 102);
        if (getenv("WL_DEBUG") || fabs(got - want) > 0.01)
            fprintf(stderr, "theta %g: top 1%% share %.4f, Zipf law %.4f\n", th[t], got, want);
        CHECK_NEAR(got, want, 0.01);
        uint32_t *c = malloc(10240 * sizeof *c);
        memcpy(c, b.count, 10240 * sizeof *c);
        qsort(c, 10240, sizeof *c, desc);
        uint64_t first = 0, top = 0;
        for (int i = 0; i < 10240; i++)
            if (b.count[i] >= c[101])
                top++, first += i < 5120;
        CHECK_NEAR((double)first / (double)top, 0.5, 0.15);
        free(c);
        free(b.count);
    }
}

struct hottest {
    uint64_t *off;
    uint64_t n;
};

static void see_off(void *ctx, const struct trace_rec *op, int setup, struct env *e)
{
    (void)e;
    struct hottest *h = ctx;
    if (!setup && op->op == TRACE_WRITE)
        h->off[h->n++] = op->offset;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 2^24 blocks (a 64 GiB file, not applied): the hottest block takes
 * 1/H(2^24) of 100k writes, within 10% (that is ~13 sd). */
TEST(zipf_millions_of_blocks)
{
    struct wl_spec s;
    struct env e;
    struct hottest h = {calloc(100000, sizeof(uint64_t)), 0};
    wl_spec_init(&s, "zipf");
    s.file_bytes = 4096ull << 24;
    REQUIRE(env_open(&e) == 0);
    run(&e, &s, 3, 100000, 0, see_off, &h, NULL);
    env_close(&e);
    qsort(h.off, h.n, sizeof *h.off, cmp_u64);
    uint64_t best = 0, k = 0;
    for (uint64_t i = 0; i < h.n; i = k) {
        for (k = i; k < h.n && h.off[k] == h.off[i]; k++)
            ;
        best = k - i > best ? k - i : best;
    }
    double want = 1 / harmonic(1ull << 24, 0.99);
    CHECK_NEAR((double)best / (double)h.n, want, want * 0.1);
    free(h.off);
}

/* ---- churn: the test's own model of the ops ------------------------ */

#define MAXF 256
struct cmodel {
    char path[MAXF][64];
    uint64_t size[MAXF];
    uint32_t n, max, fsync_after;
    uint64_t bad, peak, writes;
    char want_fsync[64]; /* mailserver: the fsync due next */
};

static int cfind(const struct cmodel *m, const char *p)
{
    for (uint32_t i = 0; p && i < m->n; i++)
        if (!strcmp(m->path[i], p))
            return (int)i;
    return -1;
}

static void see_churn(void *ctx, const struct trace_rec *op, int setup, struct env *e)
{
    (void)e;
    struct cmodel *m = ctx;
    int i = cfind(m, op->path);
    if (m->want_fsync[0]) { /* nothing may come between a write and its fsync */
        m->bad += op->op != TRACE_FSYNC || strcmp(op->path, m->want_fsync);
        m->want_fsync[0] = 0;
        return;
    }
    switch ((int)op->op) {
    case TRACE_CREATE:
        if (i >= 0 || m->n == MAXF) {
            m->bad++;
            break;
        }
        snprintf(m->path[m->n], 64, "%s", op->path);
        m->size[m->n++] = 0;
        break;
    case TRACE_WRITE:
        if (i < 0 || op->offset > m->size[i]) { /* no holes either */
            m->bad++;
            break;
        }
        if (op->offset + op->length > m->size[i])
            m->size[i] = op->offset + op->length;
        if (!setup && m->fsync_after)
            snprintf(m->want_fsync, 64, "%s", op->path);
        m->writes += !setup;
        break;
    case TRACE_READ:
        m->bad += i < 0 || op->offset || op->length != m->size[i];
        break;
    case TRACE_UNLINK:
        if (i < 0) {
            m->bad++;
            break;
        }
        m->n--;
        memcpy(m->path[i], m->path[m->n], 64);
        m->size[i] = m->size[m->n];
        break;
    case TRACE_RENAME:
        if (i < 0 || cfind(m, op->path2) >= 0) {
            m->bad++;
            break;
        }
        snprintf(m->path[i], 64, "%s", op->path2);
        break;
    case (int)WL_OP_STAT:
        m->bad += i < 0;
        break;
    case TRACE_FSYNC:
        m->bad += m->fsync_after || i < 0;
        break;
    case TRACE_MKDIR:
        m->bad += !setup;
        break;
    case TRACE_SYNC:
        break;
    default:
        m->bad++;
    }
    m->peak = m->n > m->peak ? m->n : m->peak;
}

struct files_ck {
    const struct cmodel *m;
    uint32_t n, bad;
};

static int same_as_model(void *ctx, const char *path, uint64_t size)
{
    struct files_ck *k = ctx;
    int i = cfind(k->m, path);
    k->n++;
    k->bad += i < 0 || k->m->size[i] != size;
    return 0;
}

/* Applied: no op fails, never more than max_files live, every op names a
 * file that exists (and a create one that does not); at the end the
 * generator's model, the test's and the fs (sizes, directory entries)
 * agree.  mailserver: an fsync right after every write. */
TEST(churn_matches_its_model)
{
    const char *k[] = {"churn", "mailserver", "fileserver"};
    const uint32_t maxf[] = {40, 100, 60};
    for (int t = 0; t < 3; t++) {
        struct wl_spec s;
        wl_spec_init(&s, k[t]);
        s.max_files = maxf[t];
        s.dirs = t == 2 ? 3 : s.dirs;
        struct cmodel *m = calloc(1, sizeof *m);
        m->max = maxf[t];
        m->fsync_after = s.fsync_every == 1;
        struct env e;
        struct workload *w;
        REQUIRE(env_open(&e) == 0);
        run(&e, &s, 11, 2500, 1, see_churn, m, &w);
        REQUIRE(w);
        CHECK_EQ_INT(m->bad, 0);
        CHECK(m->peak <= m->max && m->peak > m->max / 4 && m->writes > 100);
        struct files_ck ck = {m, 0, 0};
        workload_files(w, same_as_model, &ck);
        CHECK_EQ_INT(ck.bad, 0);
        CHECK_EQ_INT(ck.n, m->n);
        workload_files(w, stat_matches, e.fs);
        uint64_t entries = 0;
        for (uint32_t d = 0; d < s.dirs; d++) {
            char p[32];
            struct fs_stat st;
            snprintf(p, sizeof p, "/churn/d%u", d);
            CHECK_EQ_INT(logfs_stat(e.fs, p, &st), 0);
            entries += st.size;
        }
        CHECK_EQ_INT(entries, m->n);
        fprintf(stderr, "%s: %u files live at the end, %llu at most, %llu writes\n", k[t],
                m->n, (unsigned long long)m->peak, (unsigned long long)m->writes);
        workload_free(w);
        env_close(&e);
        free(m);
    }
}

/* ---- the executor ------------------------------------------------ */

static int64_t ap(struct env *e, enum trace_op o, const char *path, const char *path2,
                  uint64_t off, uint64_t len)
{
    struct trace_rec r = {.op = o, .path = path, .path2 = path2, .offset = off,
                          .length = len, .mode = 0644, .flags = TRACE_F_WRITE};
    return wl_exec_apply(e->x, &r, NULL);
}

/* Setup mode makes parents and accepts existing directories; outside it
 * the fs's answer comes back.  The fd cache follows renames and unlinks,
 * and 100 files (more than it holds) stay writable. */
TEST(exec_setup_mode_and_fd_cache)
{
    struct env e;
    REQUIRE(env_open(&e) == 0);
    CHECK_EQ_INT(ap(&e, TRACE_CREATE, "/a/b/c", NULL, 0, 0), -ENOENT);
    wl_exec_set_setup(e.x, 1);
    CHECK_EQ_INT(ap(&e, TRACE_CREATE, "/a/b/c", NULL, 0, 0), 0);
    CHECK_EQ_INT(ap(&e, TRACE_MKDIR, "/a/b", NULL, 0, 0), 0);
    CHECK_EQ_INT(ap(&e, TRACE_MKDIR, "/x/y", NULL, 0, 0), 0);
    wl_exec_set_setup(e.x, 0);
    CHECK_EQ_INT(ap(&e, TRACE_MKDIR, "/a/b", NULL, 0, 0), -EEXIST);
    CHECK_EQ_INT(ap(&e, TRACE_WRITE, NULL, NULL, 0, 4096), -EINVAL); /* a block record */
    CHECK_EQ_INT(ap(&e, TRACE_WRITE, "/a/b/c", NULL, 0, 5000), 5000);
    CHECK_EQ_INT(ap(&e, TRACE_RENAME, "/a/b", "/a/d", 0, 0), 0);
    CHECK_EQ_INT(ap(&e, TRACE_WRITE, "/a/d/c", NULL, 5000, 1000), 1000);
    CHECK_EQ_INT(ap(&e, TRACE_WRITE, "/a/b/c", NULL, 0, 10), -ENOENT);
    CHECK_EQ_INT(ap(&e, TRACE_READ, "/a/d/c", NULL, 0, 9000), 6000);
    CHECK_EQ_INT(ap(&e, WL_OP_STAT, "/a/d/c", NULL, 0, 0), 0);
    CHECK_EQ_INT(ap(&e, TRACE_UNLINK, "/a/d/c", NULL, 0, 0), 0);
    CHECK_EQ_INT(ap(&e, WL_OP_STAT, "/a/d/c", NULL, 0, 0), -ENOENT);
    CHECK_EQ_INT(ap(&e, TRACE_OPEN, "/a", NULL, 0, 0), -EISDIR); /* flags w */
    char p[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 100; i++) {
            snprintf(p, sizeof p, "/x/f%d", i);
            CHECK_EQ_INT(ap(&e, round ? TRACE_WRITE : TRACE_CREATE, p, NULL, 0, 100),
                         round ? 100 : 0);
        }
    CHECK_EQ_INT(ap(&e, TRACE_FSYNC, "/x/f0", NULL, 0, 0), 0);
    env_close(&e);
}

/* A second and third workload on the same fs: churn moves to /churn2, a
 * block kind's setup (in setup mode) takes its /data again. */
TEST(workloads_on_an_aged_fs)
{
    const char *k[] = {"uniform", "churn", "churn", "uniform"};
    struct env e;
    REQUIRE(env_open(&e) == 0);
    for (int i = 0; i < 4; i++) {
        struct wl_spec s;
        wl_spec_init(&s, k[i]);
        s.fill = 0.2, s.max_files = 30;
        run(&e, &s, (uint64_t)i, 500, 1, NULL, NULL, NULL);
    }
    CHECK_EQ_INT(logfs_stat(e.fs, "/churn2/d7", &(struct fs_stat){0}), 0);
    env_close(&e);
}

/* ---- the executor's payload and trace replay ----------------------- */

TEST(payload_is_fresh_and_nonzero)
{
    struct env e;
    REQUIRE(env_open(&e) == 0);
    static uint8_t a[100000], b[100000], c[100000];
    wl_exec_payload(e.x, 5, 1000, a, sizeof a);
    wl_exec_payload(e.x, 5, 1000, b, sizeof b);
    wl_exec_payload(e.x, 6, 1000, c, sizeof c);
    CHECK(!memcmp(a, b, sizeof a) && memcmp(a, c, sizeof a));
    CHECK(memchr(a, 0, sizeof a) == NULL);
    wl_exec_payload(e.x, 5, 1000 + 70000, b, 100); /* any piece is the same bytes */
    CHECK(!memcmp(a + 70000, b, 100));
    CHECK(memcmp(a, a + 65536, 1000)); /* chunks rotate apart */
    env_close(&e);
}

/* Content-light payloads: one nonzero byte value per 64 KiB chunk, still
 * new with every write. */
TEST(content_light_payload)
{
    struct env e;
    REQUIRE(env_open(&e) == 0);
    static uint8_t a[3 * 65536], b[3 * 65536];
    wl_exec_set_content_light(e.x, 1);
    wl_exec_payload(e.x, 5, 0, a, sizeof a);
    wl_exec_payload(e.x, 6, 0, b, sizeof b);
    int runs_ok = 1, differ = 0;
    for (size_t i = 0; i < sizeof a; i++) {
        runs_ok &= a[i] && a[i] == a[i / 65536 * 65536];
        differ |= a[i] != b[i];
    }
    CHECK(runs_ok);
    CHECK(differ);
    CHECK(a[0] != a[65536] || a[65536] != a[2 * 65536]); /* chunks differ */
    env_close(&e);
}

/* Compressible payloads: zlib stores about 1 - c of each 4 KiB, at any
 * offset and length of the write (a piece is the same bytes as the
 * whole); 0 keeps today's payload byte for byte; never a zero byte. */
TEST(compressible_payload)
{
    struct env e;
    REQUIRE(env_open(&e) == 0);
    static uint8_t plain[65536], a[65536], b[65536], z[70000];
    wl_exec_payload(e.x, 9, 4096, plain, sizeof plain);
    static const double shares[] = {0, 0.5, 0.9};
    for (unsigned k = 0; k < 3; k++) {
        wl_exec_set_compressible(e.x, shares[k]);
        wl_exec_payload(e.x, 9, 4096, a, sizeof a);
        wl_exec_payload(e.x, 9, 4096 + 5000, b, 3000);
        CHECK(!memcmp(a + 5000, b, 3000));
        CHECK(memchr(a, 0, sizeof a) == NULL);
        if (shares[k] == 0)
            CHECK(!memcmp(a, plain, sizeof a));
        uLongf n = sizeof z;
        REQUIRE(compress2(z, &n, a, sizeof a, 3) == Z_OK);
        double ratio = (double)n / sizeof a;
        CHECK(ratio > 1 - shares[k] - 0.05 && ratio < 1 - shares[k] + 0.05);
    }
    env_close(&e);
}

/* The same workload on every fs of the table leaves the same visible
 * state: the executor drives them all alike, and each does what it is
 * asked (the model-based test checks each call; this, the whole). */
TEST(one_workload_every_fs_same_state)
{
    uint64_t want = 0;
    for (size_t i = 0; fsapi_at(i); i++) {
        const struct fsapi *api = fsapi_at(i);
        if (api->features & FSAPI_F_ONE_FILE)
            continue; /* churn makes files: a block device has one */
        /* no factory bad blocks: blockfs wants its metadata blocks good */
        nand_dev *d = FX_DEVICE(.blocks = 256, .pages = 32, .seed = 5);
        struct fsapi_fs m = {api, NULL};
        REQUIRE(d != NULL);
        REQUIRE(api->mkfs(d, NULL) == 0);
        REQUIRE(api->mount(d, NULL, &m.fs) == 0);
        struct wl_spec s;
        REQUIRE(wl_spec_init(&s, "churn") == 0);
        s.fill = 0.3, s.max_files = 60, s.sync_every = 20;
        struct workload *w;
        struct wl_exec *x;
        char err[256];
        REQUIRE(workload_create(&s, 11, &m, &w, err, sizeof err) == 0);
        REQUIRE(wl_exec_create(&m, &x) == 0);
        struct trace_rec op;
        int ok = 1;
        for (int n = 0; n < 1500 && ok && workload_next(w, &op, err, sizeof err) > 0; n++) {
            wl_exec_set_setup(x, workload_in_setup(w));
            ok = wl_exec_apply(x, &op, NULL) >= 0;
        }
        CHECK(ok);
        wl_exec_free(x);
        workload_free(w);
        uint64_t dg;
        REQUIRE(wl_fs_digest(&m, &dg, NULL) == 0);
        fprintf(stderr, "%-14s digest %016llx\n", api->name, (unsigned long long)dg);
        if (i == 0)
            want = dg;
        CHECK(dg == want);
        /* and after a remount */
        REQUIRE(api->unmount(m.fs) == 0);
        REQUIRE(api->mount(d, NULL, &m.fs) == 0);
        REQUIRE(wl_fs_digest(&m, &dg, NULL) == 0);
        CHECK(dg == want);
        REQUIRE(api->unmount(m.fs) == 0);
        nand_close(d);
    }
}

static const char *put(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    return path;
}

/* What a replay should leave in each file: the bytes of every write and
 * zeros for punches, as the executor made them. */
#define IMG (4 << 20)
struct image {
    char path[4][32];
    uint8_t *data[4];
    uint64_t size[4];
    int n;
    struct trace_rec ops[64]; /* the workload ops (not setup), paths dropped */
    char opath[64][32];
    int nops;
};

static void see_image(void *ctx, const struct trace_rec *op, int setup, struct env *e)
{
    struct image *m = ctx;
    if (!setup && m->nops < 64) {
        m->ops[m->nops] = *op;
        snprintf(m->opath[m->nops++], 32, "%s", op->path ? op->path : "");
    }
    int i = 0;
    while (op->path && i < m->n && strcmp(m->path[i], op->path))
        i++;
    if (!op->path || (i == m->n && op->op != TRACE_CREATE))
        return;
    if (i == m->n) {
        snprintf(m->path[m->n], 32, "%s", op->path);
        m->data[m->n++] = calloc(1, IMG);
    }
    uint64_t end = op->offset + op->length;
    if (op->op == TRACE_WRITE)
        wl_exec_payload(e->x, wl_exec_seq(e->x), op->offset, m->data[i] + op->offset, op->length);
    if (op->op == TRACE_DISCARD)
        memset(m->data[i] + op->offset, 0, op->length);
    if (op->op == TRACE_WRITE && end > m->size[i])
        m->size[i] = end;
    if (op->op == TRACE_RENAME)
        snprintf(m->path[i], 32, "%s", op->path2);
    if (op->op == TRACE_UNLINK)
        m->path[i][0] = 0;
    if (op->op == TRACE_TRUNCATE) {
        if (op->size < m->size[i])
            memset(m->data[i] + op->size, 0, m->size[i] - op->size);
        m->size[i] = op->size;
    }
}

/* Each live file of the image reads back as the image says. */
static void check_image(struct env *e, struct image *m)
{
    static uint8_t buf[IMG];
    for (int i = 0; i < m->n; i++) {
        if (!m->path[i][0])
            continue;
        struct fs_stat st;
        CHECK_EQ_INT(logfs_stat(e->fs, m->path[i], &st), 0);
        CHECK_EQ_INT(st.size, m->size[i]);
        int fd = logfs_open(e->fs, m->path[i], O_RDONLY, 0);
        CHECK_EQ_INT(logfs_pread(e->fs, fd, buf, m->size[i], 0), (int64_t)m->size[i]);
        CHECK(!memcmp(buf, m->data[i], m->size[i]));
        logfs_close(e->fs, fd);
    }
    for (int i = 0; i < m->n; i++)
        free(m->data[i]);
}

static void replay(const char *path, uint64_t disk_bytes, struct image *m, struct env *e)
{
    struct wl_spec s;
    wl_spec_init(&s, "trace");
    snprintf(s.trace_path, sizeof s.trace_path, "%s", path);
    s.trace_disk_bytes = disk_bytes;
    memset(m, 0, sizeof *m);
    run(e, &s, 1, 1000, 1, see_image, m, NULL);
}

#define OPIS(m, i, o, p, off, len)                                                     \
    CHECK((m).ops[i].op == (o) && !strcmp((m).opath[i], p) && (m).ops[i].offset == (off) && \
          (m).ops[i].length == (len))

/* Disks 0 and 3 of 256 KiB: offset 1052672 wraps to 4096, a 16 KiB write
 * at 252 KiB is clipped to 4 KiB, offset 1000 aligns down to 0. */
TEST(trace_msr_wraps_and_clips)
{
    const char *p = put("a.csv", "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
                        "128166372003061629,src1,0,Write,0,8192,41286\n"
                        "128166372003061639,src1,3,Write,4096,4096,100\n"
                        "128166372003061649,src1,0,Write,1052672,4096,100\n"
                        "128166372003061659,src1,0,Write,258048,16384,100\n"
                        "128166372003061669,src1,0,Read,1000,4096,100\n"
                        "128166372003061679,src1,3,Write,5000,100,100\n");
    struct env e;
    struct image m;
    REQUIRE(env_open(&e) == 0);
    replay(p, 256 << 10, &m, &e);
    REQUIRE(m.nops == 6 && m.n == 2);
    OPIS(m, 0, TRACE_WRITE, "/disk0", 0, 8192);
    OPIS(m, 1, TRACE_WRITE, "/disk3", 4096, 4096);
    OPIS(m, 2, TRACE_WRITE, "/disk0", 4096, 4096);
    OPIS(m, 3, TRACE_WRITE, "/disk0", 258048, 4096);
    OPIS(m, 4, TRACE_READ, "/disk0", 0, 4096);
    OPIS(m, 5, TRACE_WRITE, "/disk3", 4096, 100);
    CHECK(m.size[0] == 256 << 10 && m.size[1] == 256 << 10);
    check_image(&e, &m);
    env_close(&e);
}

/* Two devices, disk size from fill (half the free space / 2); a discard
 * punches, a data-less flush syncs, sector 1024 wraps. */
TEST(trace_blkparse_punches_and_syncs)
{
    const char *p = put("b.txt", "  8,0    0        1     0.000000000   100  Q   W 0 + 16 [app]\n"
                        "  8,0    0        2     0.000001000   100  Q   D 8 + 8 [app]\n"
                        "  8,0    0        3     0.000002000   100  Q FWS [kworker]\n"
                        "  8,16   1        4     0.000003000   100  Q   W 1024 + 8 [app]\n");
    struct env e;
    struct image m;
    REQUIRE(env_open(&e) == 0);
    struct fs_statfs st;
    REQUIRE(logfs_statfs(e.fs, &st) == 0);
    uint64_t want = (uint64_t)(0.5 * (double)st.free_bytes) / 2 / 4096 * 4096;
    REQUIRE(want <= IMG && want > 524288);
    struct wl_spec s;
    wl_spec_init(&s, "trace");
    snprintf(s.trace_path, sizeof s.trace_path, "%s", p);
    struct image *mm = &m;
    memset(mm, 0, sizeof m);
    run(&e, &s, 1, 1000, 1, see_image, mm, NULL);
    REQUIRE(m.nops == 4);
    OPIS(m, 0, TRACE_WRITE, "/disk0", 0, 8192);
    OPIS(m, 1, TRACE_DISCARD, "/disk0", 4096, 4096);
    CHECK(m.ops[2].op == TRACE_SYNC && !m.ops[2].path);
    OPIS(m, 3, TRACE_WRITE, "/disk1", 524288, 4096);
    for (int i = 0; i < 2; i++) {
        struct fs_stat fst;
        CHECK_EQ_INT(logfs_stat(e.fs, i ? "/disk1" : "/disk0", &fst), 0);
        CHECK_EQ_INT(fst.size, want);
    }
    uint8_t buf[8192];
    int fd = logfs_open(e.fs, "/disk0", O_RDONLY, 0);
    CHECK_EQ_INT(logfs_pread(e.fs, fd, buf, 8192, 0), 8192);
    static const uint8_t zero[4096];
    CHECK(memcmp(buf, zero, 4096) && !memcmp(buf + 4096, zero, 4096));
    logfs_close(e.fs, fd);
    check_image(&e, &m);
    env_close(&e);
}

TEST(trace_fsop_replays)
{
    const char *p = put("c.fst", "flashlab-fstrace 1\n"
                        "0 mkdir /d 0755\n"
                        "1 create /d/a w 0644\n"
                        "2 write /d/a 0 10000\n"
                        "3 write /d/a 20000 5000\n"
                        "4 punch /d/a 0 4096\n"
                        "5 rename /d/a /d/b\n"
                        "6 create /d/c w 0644\n"
                        "7 write /d/c 0 3000\n"
                        "8 truncate /d/c 1000\n"
                        "9 fsync /d/b\n"
                        "10 create /d/e w 0644\n"
                        "11 write /d/e 0 7000\n"
                        "12 truncate /d/e 5000\n"
                        "13 unlink /d/c\n"
                        "14 sync\n"
                        "15 read /d/b 0 25000\n");
    struct env e;
    struct image m;
    REQUIRE(env_open(&e) == 0);
    replay(p, 0, &m, &e);
    CHECK_EQ_INT(m.nops, 16);
    CHECK_EQ_INT(logfs_stat(e.fs, "/d/a", &(struct fs_stat){0}), -ENOENT);
    CHECK_EQ_INT(logfs_stat(e.fs, "/d/c", &(struct fs_stat){0}), -ENOENT);
    CHECK(m.size[0] == 25000 && m.size[2] == 5000);
    check_image(&e, &m);
    env_close(&e);
}

/* An exchange swaps the names, and an open file keeps following its
 * own: the write to /a after it goes to the file /a now names. */
TEST(trace_exchange_replays)
{
    static const struct trace_rec ops[] = {
        {.op = TRACE_CREATE, .path = "/a", .flags = TRACE_F_WRITE, .mode = 0644},
        {.op = TRACE_WRITE, .path = "/a", .length = 100},
        {.op = TRACE_CREATE, .path = "/b", .flags = TRACE_F_WRITE, .mode = 0644},
        {.op = TRACE_WRITE, .path = "/b", .length = 300},
        {.op = TRACE_EXCHANGE, .path = "/a", .path2 = "/b"},
        {.op = TRACE_WRITE, .path = "/a", .offset = 1000, .length = 10},
        {.op = TRACE_CLOSE, .path = "/a"},
        {.op = TRACE_CLOSE, .path = "/b"},
    };
    struct env e;
    REQUIRE(env_open(&e) == 0);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        CHECK(wl_exec_apply(e.x, &ops[i], NULL) >= 0);
    struct fs_stat a, b;
    REQUIRE(logfs_stat(e.fs, "/a", &a) == 0 && logfs_stat(e.fs, "/b", &b) == 0);
    CHECK_EQ_INT(a.size, 1010);
    CHECK_EQ_INT(b.size, 100);
    CHECK_EQ_INT(wl_exec_apply(e.x, &(struct trace_rec){.op = TRACE_EXCHANGE, .path = "/a"},
                               NULL), -EINVAL);
    env_close(&e);
}

/* fallocate mode 0 and KEEP_SIZE as a recording mount writes them:
 * applied on one fs, written with trace_write_fsop, read back and replayed
 * on a fresh one, both end with the same files, sizes and st_blocks: the
 * size grown to 48 KiB by mode 0 only, 8 preallocated blocks counted
 * beyond the 2 written (less 1 punched), zeros where nothing was written. */
TEST(trace_allocate_round_trip)
{
    static const struct trace_rec ops[] = {
        {.op = TRACE_CREATE, .path = "/f", .flags = TRACE_F_WRITE, .mode = 0644},
        {.op = TRACE_WRITE, .path = "/f", .length = 8192},
        {.op = TRACE_ALLOCATE_KEEP, .path = "/f", .offset = 16384, .length = 16384},
        {.op = TRACE_ALLOCATE, .path = "/f", .offset = 40960, .length = 8192},
        {.op = TRACE_PUNCH, .path = "/f", .offset = 0, .length = 4096},
        {.op = TRACE_ALLOCATE_KEEP, .path = "/f", .offset = 65536, .length = 4096},
        {.op = TRACE_CLOSE, .path = "/f"},
    };
    const size_t n = sizeof ops / sizeof ops[0];
    const char *path = put("alloc.fst", "");
    FILE *f = fopen(path, "w");
    REQUIRE(f && trace_write_fsop_header(f) == 0);
    struct env a, b;
    REQUIRE(env_open(&a) == 0 && env_open(&b) == 0);
    for (size_t i = 0; i < n; i++) {
        CHECK(wl_exec_apply(a.x, &ops[i], NULL) >= 0);
        CHECK_EQ_INT(trace_write_fsop(f, &ops[i]), 0);
    }
    CHECK_EQ_INT(fclose(f), 0);
    struct trace_reader *r;
    struct trace_error err;
    struct trace_rec rec;
    size_t got = 0;
    REQUIRE(trace_open(path, TRACE_FSOP, &r, &err) == 0);
    int rc;
    while ((rc = trace_next(r, &rec, &err)) > 0) {
        CHECK(got < n && rec.op == ops[got].op && rec.offset == ops[got].offset &&
              rec.length == ops[got].length);
        CHECK(wl_exec_apply(b.x, &rec, NULL) >= 0);
        got++;
    }
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(got, n);
    trace_close(r);
    struct fs_stat sa, sb;
    REQUIRE(logfs_stat(a.fs, "/f", &sa) == 0 && logfs_stat(b.fs, "/f", &sb) == 0);
    CHECK_EQ_INT(sa.size, 49152);
    CHECK_EQ_INT(sa.blocks, (1 + 4 + 2 + 1) * 8); /* 4 KiB blocks, 512-byte units */
    CHECK_EQ_INT(sb.size, sa.size);
    CHECK_EQ_INT(sb.blocks, sa.blocks);
    uint64_t da, db;
    CHECK(wl_fs_digest(&a.m, &da, NULL) == 0 && wl_fs_digest(&b.m, &db, NULL) == 0);
    CHECK(da == db);
    env_close(&a);
    env_close(&b);
    unlink(path);
}

static void see_write_fsop(void *ctx, const struct trace_rec *op, int setup, struct env *e)
{
    (void)setup, (void)e;
    CHECK_EQ_INT(trace_write_fsop(ctx, op), 0);
}

/* A generated workload (setup included) written as an fs-op trace replays
 * as the same records. */
TEST(generated_ops_round_trip_as_fsop_trace)
{
    struct wl_spec s;
    struct env e;
    wl_spec_init(&s, "hotcold");
    s.files = 2, s.discard_fraction = 0.1, s.read_fraction = 0.2, s.fsync_every = 5;
    s.sync_every = 30, s.file_bytes = 256 << 10;
    const char *path = put("gen.fst", "");
    FILE *f = fopen(path, "w");
    REQUIRE(f && trace_write_fsop_header(f) == 0);
    REQUIRE(env_open(&e) == 0);
    uint64_t h1 = run(&e, &s, 5, 400, 0, see_write_fsop, f, NULL);
    CHECK_EQ_INT(fclose(f), 0);
    struct wl_spec t;
    wl_spec_init(&t, "trace");
    snprintf(t.trace_path, sizeof t.trace_path, "%s", path);
    uint64_t h2 = run(&e, &t, 0, UINT64_MAX, 1, NULL, NULL, NULL);
    CHECK(h1 == h2);
    env_close(&e);
    unlink(path);
}

/* A bad line is -EINVAL with "FILE:3: ..."; the replay then goes on. */
TEST(trace_bad_line_names_it)
{
    const char *p = put("bad.csv", "128166372003061629,src1,0,Write,0,4096,1\n"
                        "128166372003061630,src1,0,Write,8192,4096,1\n"
                        "128166372003061631,src1,0,Write,12x,4096,1\n"
                        "128166372003061632,src1,0,Read,0,4096,1\n");
    struct env e;
    REQUIRE(env_open(&e) == 0);
    struct wl_spec s;
    wl_spec_init(&s, "trace");
    snprintf(s.trace_path, sizeof s.trace_path, "%s", p);
    s.trace_disk_bytes = 1 << 20;
    struct workload *w;
    char err[512], want[600];
    REQUIRE(workload_create(&s, 1, &e.m, &w, err, sizeof err) == 0);
    struct trace_rec op;
    int rc, n = 0;
    while ((rc = workload_next(w, &op, err, sizeof err)) > 0)
        n += !workload_in_setup(w);
    CHECK_EQ_INT(rc, -EINVAL);
    CHECK_EQ_INT(n, 2);
    snprintf(want, sizeof want, "%s:3: ", p);
    CHECK(!strncmp(err, want, strlen(want)) && strstr(err, "Offset"));
    CHECK_EQ_INT(workload_next(w, &op, err, sizeof err), 1);
    CHECK(op.op == TRACE_READ && op.offset == 0);
    CHECK_EQ_INT(workload_next(w, &op, err, sizeof err), 0);
    workload_free(w);
    s.trace_skip_bad = 1; /* passed over instead */
    REQUIRE(workload_create(&s, 1, &e.m, &w, err, sizeof err) == 0);
    n = 0;
    while ((rc = workload_next(w, &op, err, sizeof err)) > 0)
        n += !workload_in_setup(w);
    CHECK(rc == 0 && n == 3);
    workload_free(w);
    strcpy(s.trace_path, "/nonexistent/x.csv");
    CHECK_EQ_INT(workload_create(&s, 1, &e.m, &w, err, sizeof err), -ENOENT);
    CHECK(strstr(err, "/nonexistent/x.csv: ") != NULL);
    env_close(&e);
    unlink(put("a.csv", "")), unlink(put("b.txt", "")), unlink(put("c.fst", ""));
    unlink(put("bad.csv", ""));
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(spec_defaults_and_bad_specs);
    RUN(every_kind_runs_clean_and_deterministic);
    RUN(uniform_is_uniform);
    RUN(fractions_fsync_and_sync);
    RUN(sequential_goes_through_the_files);
    RUN(hotcold_share);
    RUN(zipf_top_share);
    RUN(zipf_millions_of_blocks);
    RUN(churn_matches_its_model);
    RUN(exec_setup_mode_and_fd_cache);
    RUN(workloads_on_an_aged_fs);
    RUN(payload_is_fresh_and_nonzero);
    RUN(content_light_payload);
    RUN(compressible_payload);
    RUN(one_workload_every_fs_same_state);
    RUN(trace_msr_wraps_and_clips);
    RUN(trace_blkparse_punches_and_syncs);
    RUN(trace_fsop_replays);
    RUN(trace_exchange_replays);
    RUN(trace_allocate_round_trip);
    RUN(generated_ops_round_trip_as_fsop_trace);
    RUN(trace_bad_line_names_it);
    rmdir(dir);
    return test_summary("test_workloads");
}

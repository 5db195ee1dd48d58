/*
 * test_plot.c -- the data series of every plot kind (analysis/plot_data.c)
 * from a results database written with analysis/results.h: the series are
 * there, with the values inserted (exactly), CDFs are monotone and end at
 * 1, the model curves are gc_model_*; filters, grouping, the data table
 * and the errors for missing files, foreign files and missing rows.
 * mount-size also on a database of its own (means over runs, the series
 * and their order) and through its gnuplot script (log-log, dashed lines
 * after a power cut).  A sweep of its own (3 swept keys, 3 seeds): series
 * named by the keys that differ, seeds averaged (mean, standard deviation,
 * n) in the series and the table, panels, unknown keys, the script's
 * palette, error bars, bands and panels.
 */
#include "gc_model.h"
#include "plot.h"
#include "results.h"
#include "plot_steady.h"
#include "fixture.h"
#include "plot_kv.h"
#include "plot_test.h"

#include <sqlite3.h>
#include <unistd.h>

/* ---- the fixture ------------------------------------------------------------ */

#define NB 8 /* blocks per erase snapshot */

struct fx_run {
    const char *params;
    enum results_status status;
    int nsamples;    /* wa of sample k: wa0 + k / 4 */
    double wa0;
    int erase;       /* has erase snapshots */
    const char *stop;     /* kv stop_reason, or NULL */
    double lifetime;      /* kv lifetime_host_bytes, or 0 */
};

/* Runs 1..6 of experiment "wa-sweep" (ids in this order). */
static const struct fx_run fx[] = {
    {"{\"fs\":{\"gc_policy\":\"greedy\"},\"utilisation\":0.9}", RESULTS_COMPLETE, 3, 2.5, 1,
     NULL, 1e12},
    {"{\"fs\":{\"gc_policy\":\"greedy\"},\"utilisation\":0.8}", RESULTS_COMPLETE, 4, 1.5, 1,
     "budget", 0},
    {"{\"fs\":{\"gc_policy\":\"fifo\"},\"utilisation\":0.8}", RESULTS_COMPLETE, 2, 2.0, 1,
     "wear-out", 0},
    {"{\"fs\":{\"gc_policy\":\"fifo\"},\"workload\":{\"fill\":0.7}}", RESULTS_COMPLETE, 2,
     1.25, 0, NULL, 0},
    {"{\"fs\":{\"gc_policy\":\"cost-benefit\"},\"utilisation\":0.85}", RESULTS_FAILED, 2,
     9.0, 0, "wear-out", 0},
    {"{\"note\":\"no policy\"}", RESULTS_COMPLETE, 1, 1.0, 0, NULL, 0},
};
#define NFX (sizeof fx / sizeof *fx)

static const char *const fs_kinds[] = {"jffs2-scan", "logfs", "yaffs"};
static const int64_t dev_sizes[] = {(int64_t)16 << 20, (int64_t)64 << 20, (int64_t)256 << 20,
                                    (int64_t)1 << 30};

/* Erase count of block b at snapshot seq of run i (1-based). */
static uint32_t fx_erase(int i, int seq, uint32_t b)
{
    return (uint32_t)(seq * 10 + i + (b % 3)); /* the last snapshot: 10 + i + b%3 */
}

static int64_t fx_host(int k) { return (int64_t)(k + 1) << 30; }
static int64_t fx_time(int k) { return (int64_t)(k + 1) * 1000000007; }
static int64_t fx_lat(int kind, int size) { return (int64_t)(kind + 1) * 1000000 * (size + 1); }

static int make_db(const char *path)
{
    char err[512];
    struct results *r;
    int64_t exp, exp2, id;
    int bad = 0;
    if (results_open(path, &r, err, sizeof err)) {
        fprintf(stderr, "  %s\n", err);
        return -1;
    }
    bad |= results_begin_experiment(r, "wa-sweep", "sweep.yaml", "runs: 6\n", NULL, &exp);
    for (size_t i = 0; i < NFX; i++) {
        bad |= results_begin_run(r, exp, (int64_t)i, fx[i].params, 1 + i, NULL, &id);
        bad |= plot_kv_uniform(r, id);
        /* First a sample without WA (no host bytes yet: NaN is stored as
         * NULL), which the WA plots leave out. */
        struct results_sample s0 = {.seq = 0, .wa = NAN};
        bad |= results_add_sample(r, id, &s0);
        for (int k = 0; k < fx[i].nsamples; k++) {
            struct results_sample s = {.seq = k + 1, .sim_time_ns = fx_time(k),
                                       .host_bytes = fx_host(k), .wa = fx[i].wa0 + k / 4.0};
            bad |= results_add_sample(r, id, &s);
        }
        for (int seq = 0; fx[i].erase && seq < 2; seq++) {
            uint32_t c[NB];
            for (uint32_t b = 0; b < NB; b++)
                c[b] = fx_erase((int)i + 1, seq, b);
            bad |= results_add_erase_counts(r, id, seq, c, NB);
        }
        if (fx[i].stop)
            bad |= results_set_kv_text(r, id, "stop_reason", fx[i].stop);
        if (fx[i].lifetime)
            bad |= results_set_kv(r, id, "lifetime_host_bytes", fx[i].lifetime);
        bad |= results_end_run(r, id, fx[i].status, NULL);
    }
    bad |= results_begin_experiment(r, "mount", NULL, "mount: 1\n", NULL, &exp2);
    bad |= results_begin_run(r, exp2, 0, "{\"what\":\"mount\"}", 9, NULL, &id);
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 4; s++) {
            struct results_mount m = {.fs_kind = fs_kinds[k], .device_bytes = dev_sizes[s],
                                      .clean = 1, .sim_latency_ns = fx_lat(k, s)};
            bad |= results_add_mount(r, id, &m);
        }
    /* Two more logfs mounts at 16 MiB: the plot shows their mean. */
    struct results_mount m2 = {.fs_kind = "logfs", .device_bytes = dev_sizes[0], .clean = 1,
                               .sim_latency_ns = fx_lat(1, 0) + 3000};
    bad |= results_add_mount(r, id, &m2);
    m2.sim_latency_ns = fx_lat(1, 0) + 6000;
    bad |= results_add_mount(r, id, &m2);
    /* After a power cut: its own series.  Zero latency: not drawable. */
    struct results_mount cut = {.fs_kind = "logfs", .device_bytes = dev_sizes[1], .clean = 0,
                                .sim_latency_ns = 77777777};
    bad |= results_add_mount(r, id, &cut);
    cut.sim_latency_ns = 0;
    bad |= results_add_mount(r, id, &cut);
    bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
    if (bad)
        fprintf(stderr, "  fixture: %s\n", results_error(r));
    bad |= plot_fixture_steady(results_db(r));
    bad |= results_close(r);
    return bad ? -1 : 0;
}

static sqlite3 *db;

static const struct plot_series *series(const struct plot *p, const char *name)
{
    const struct plot_series *s = plot_find_series(p, name);
    if (!s)
        fprintf(stderr, "  no series '%s'\n", name);
    return s;
}

/* ---- the kinds ----------------------------------------------------------------- */

TEST(erase_hist_is_the_last_snapshot)
{
    struct plot p = {0};
    struct plot_filter f = {0};
    REQUIRE(plot_erase_hist(db, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 3);
    CHECK(p.bin_width == 1);
    /* Named by the keys that differ between the runs drawn (1-3). */
    const char *names[] = {"greedy, utilisation=0.9", "greedy, utilisation=0.8",
                           "fifo, utilisation=0.8"};
    for (int i = 0; i < 3; i++) {
        const struct plot_series *s = series(&p, names[i]);
        if (!s)
            continue;
        /* Common bins 11..15 (runs 1-3, last snapshot 10 + run + b%3). */
        CHECK_EQ_INT(s->n, 5);
        for (size_t j = 0; j < s->n; j++) {
            double x = 11 + (double)j, want = 0;
            for (uint32_t b = 0; b < NB; b++)
                want += fx_erase(i + 1, 1, b) == x;
            CHECK(s->pts[j].x == x);
            CHECK(s->pts[j].y == want);
        }
    }
    plot_free(&p);
}

TEST(erase_cdf_is_monotone_and_ends_at_one)
{
    struct plot p = {0};
    struct plot_filter f = {0};
    REQUIRE(plot_erase_cdf(db, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 3);
    for (size_t i = 0; i < p.nseries; i++) {
        const struct plot_series *s = &p.series[i];
        REQUIRE(s->n == 3); /* three distinct counts per run */
        for (size_t j = 1; j < s->n; j++)
            CHECK(s->pts[j].x > s->pts[j - 1].x && s->pts[j].y >= s->pts[j - 1].y);
        CHECK(s->pts[s->n - 1].y == 1.0);
        /* b%3 = 0 for 3 of the 8 blocks */
        CHECK(s->pts[0].y == 3.0 / 8 && s->pts[0].x == 11 + (double)i);
    }
    plot_free(&p);
}

TEST(erase_hist_bins_a_wide_range)
{
    /* A run of its own with counts 0..999: at most 60 bins, all counted. */
    const char *path = tmp_path("wide.db");
    char err[512];
    struct results *r;
    int64_t e, id;
    uint32_t c[1000];
    REQUIRE(results_open(path, &r, err, sizeof err) == 0);
    for (uint32_t b = 0; b < 1000; b++)
        c[b] = b;
    CHECK(results_begin_experiment(r, "w", NULL, "", NULL, &e) == 0);
    CHECK(results_begin_run(r, e, 0, "{}", 1, NULL, &id) == 0);
    CHECK(results_add_erase_counts(r, id, 0, c, 1000) == 0);
    CHECK(plot_fixture_steady(results_db(r)) == 0);
    CHECK(results_close(r) == 0);
    sqlite3 *w;
    REQUIRE(plot_open_db(path, &w, err, sizeof err) == 0);
    struct plot p = {0};
    struct plot_filter f = {0};
    CHECK(plot_erase_hist(w, &f, &p) == 0);
    sqlite3_close(w);
    REQUIRE(p.nseries == 1);
    const struct plot_series *s = series(&p, "run 1");
    REQUIRE(s);
    CHECK(p.bin_width == 17); /* ceil(1000 / 60) */
    CHECK_EQ_INT(s->n, 59);
    double total = 0;
    for (size_t j = 0; j < s->n; j++) {
        CHECK(s->pts[j].x == 17.0 * (double)j);
        CHECK(s->pts[j].y == (j < 58 ? 17 : 1000 - 58 * 17));
        total += s->pts[j].y;
    }
    CHECK(total == 1000);
    plot_free(&p);
}

TEST(wa_util_groups_by_policy_with_models)
{
    struct plot p = {0};
    struct plot_filter f = {0};
    REQUIRE(plot_wa_util(db, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 4); /* greedy, fifo, 2 models; failed and no-util runs out */
    const struct plot_series *g = series(&p, "greedy"), *fi = series(&p, "fifo");
    REQUIRE(g && fi);
    REQUIRE(g->n == 2 && fi->n == 2);
    /* sorted by utilisation; y = the last sample's WA */
    CHECK(g->pts[0].x == 0.8 && g->pts[0].y == 1.5 + 3 / 4.0);
    CHECK(g->pts[1].x == 0.9 && g->pts[1].y == 2.5 + 2 / 4.0);
    CHECK(fi->pts[0].x == 0.7 && fi->pts[0].y == 1.25 + 1 / 4.0); /* workload.fill */
    CHECK(fi->pts[1].x == 0.8 && fi->pts[1].y == 2.0 + 1 / 4.0);
    CHECK(!plot_find_series(&p, "cost-benefit"));
    const struct plot_series *gm = series(&p, "greedy model (uniform random, Np=64)");
    const struct plot_series *fm = series(&p, "FIFO/LRW model (uniform random)");
    REQUIRE(gm && fm);
    CHECK_EQ_INT(gm->n, PLOT_MODEL_POINTS);
    CHECK_EQ_INT(fm->n, PLOT_MODEL_POINTS);
    CHECK(gm->style == PLOT_DASHED && fm->style == PLOT_DASHED);
    CHECK(gm->pts[0].x == 0.5 && gm->pts[gm->n - 1].x == 0.95);
    for (size_t j = 0; j < gm->n; j++) {
        double u = gm->pts[j].x;
        CHECK(gm->pts[j].y == gc_model_greedy_wa(gc_model_alpha(1 - u), 64));
        CHECK(fm->pts[j].x == u && fm->pts[j].y == gc_model_fifo_wa(gc_model_alpha(1 - u)));
        CHECK(j == 0 || u > gm->pts[j - 1].x);
    }
    plot_free(&p);
    f.np = 16;
    REQUIRE(plot_wa_util(db, &f, &p) == 0);
    gm = series(&p, "greedy model (uniform random, Np=16)");
    REQUIRE(gm);
    CHECK(gm->pts[3].y == gc_model_greedy_wa(gc_model_alpha(1 - gm->pts[3].x), 16));
    plot_free(&p);
}

TEST(wa_time_per_run)
{
    struct plot p = {0};
    struct plot_filter f = {.experiment = "wa-sweep"};
    REQUIRE(plot_wa_time(db, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, NFX);
    const char *names[NFX] = {"greedy, utilisation=0.9", "greedy, utilisation=0.8",
                              "fifo, utilisation=0.8", "fifo, fill=0.7",
                              "cost-benefit, utilisation=0.85", "no policy"};
    for (size_t i = 0; i < NFX; i++) {
        const struct plot_series *s = series(&p, names[i]);
        if (!s)
            continue;
        CHECK_EQ_INT(s->n, fx[i].nsamples);
        for (size_t k = 0; k < s->n; k++)
            CHECK(s->pts[k].x == (double)fx_host((int)k) &&
                  s->pts[k].y == fx[i].wa0 + (double)k / 4.0);
    }
    CHECK(p.xdiv == 1073741824.0);
    plot_free(&p);
    f.x_time = 1;
    f.run_id = 2;
    REQUIRE(plot_wa_time(db, &f, &p) == 0);
    REQUIRE(p.nseries == 1);
    CHECK(!strcmp(p.series[0].name, "greedy")); /* alone: nothing differs, the policy */
    CHECK_EQ_INT(p.series[0].n, 4);
    CHECK(p.series[0].pts[3].x == (double)fx_time(3));
    CHECK(p.xdiv == 1e9);
    plot_free(&p);
}

TEST(mount_size_per_fs_kind)
{
    struct plot p = {0};
    struct plot_filter f = {0};
    REQUIRE(plot_mount_size(db, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 4);
    CHECK(p.logx && p.logy);
    for (int k = 0; k < 3; k++) {
        const struct plot_series *s = series(&p, fs_kinds[k]);
        if (!s)
            continue;
        CHECK_EQ_INT(s->n, 4);
        for (int z = 0; z < 4 && (size_t)z < s->n; z++) {
            double want = (double)fx_lat(k, z);
            if (k == 1 && z == 0)
                want += 3000; /* the mean of +0, +3000, +6000 */
            CHECK(s->pts[z].x == (double)dev_sizes[z]);
            CHECK(s->pts[z].y == want);
        }
    }
    const struct plot_series *cut = series(&p, "logfs (after power cut)");
    REQUIRE(cut);
    CHECK_EQ_INT(cut->n, 1);
    CHECK(cut->pts[0].x == (double)dev_sizes[1] && cut->pts[0].y == 77777777);
    plot_free(&p);
}

/* ---- mount-size: four file systems over device sizes, several runs ---------- */

/* Experiment "mount-latency" in a database of its own: runs 1..3 each mount
 * every kind at every size, written in this (unsorted) order; the plot
 * sorts the series by fs_kind and the points by size. */
static const char *const ms_kinds[] = {"logfs", "jffs2-scan", "jffs2-summary", "blockfs"};
static const int64_t ms_sizes[] = {(int64_t)1 << 30, (int64_t)64 << 20, (int64_t)4 << 30,
                                   (int64_t)256 << 20};
#define MS_KINDS 4
#define MS_SIZES 4
#define MS_RUNS 3

/* The clean mounts' mean latency of a kind at a size: logfs about constant,
 * the scans and blockfs growing with the size (integers, so means are exact). */
static int64_t ms_mean(int kind, int64_t size)
{
    switch (kind) {
    case 0: return 2600000 + size / (1 << 20);
    case 1: return size / 46 * 2;
    case 2: return size / 490 * 2;
    default: return 5000000 + size / 4096 * 2;
    }
}

/* Run r (0..2) is 1000 ns below, at, or above the mean. */
static int64_t ms_lat(int kind, int64_t size, int r)
{
    return ms_mean(kind, size) + (r - 1) * 1000;
}

/* After a power cut: logfs at every size in run 0 only, jffs2-summary at
 * 64 MiB and 1 GiB in runs 0 and 1 (mean: the midpoint). */
static int64_t ms_cut(int kind, int64_t size, int r)
{
    if (kind == 0 && r == 0)
        return 3 * ms_mean(0, size);
    if (kind == 2 && r < 2 && (size == ms_sizes[0] || size == ms_sizes[1]))
        return 5 * ms_mean(2, size) + r * 4000;
    return 0;
}

static int make_mount_db(const char *path, int64_t *run_ids)
{
    char err[512];
    struct results *r;
    int64_t exp;
    unlink(path); /* each test makes it afresh */
    if (results_open(path, &r, err, sizeof err)) {
        fprintf(stderr, "  %s\n", err);
        return -1;
    }
    int bad = results_begin_experiment(r, "mount-latency", NULL, "mount: sizes\n", NULL, &exp);
    for (int run = 0; run < MS_RUNS; run++) {
        bad |= results_begin_run(r, exp, run, "{\"what\":\"mount\"}", 1 + (uint64_t)run, NULL,
                                 &run_ids[run]);
        for (int z = 0; z < MS_SIZES; z++)
            for (int k = 0; k < MS_KINDS; k++) {
                /* The fill differs between runs: the mean is over all fills. */
                struct results_mount m = {.fs_kind = ms_kinds[k], .device_bytes = ms_sizes[z],
                                          .fill_fraction = 0.3 * (run + 1), .clean = 1,
                                          .sim_latency_ns = ms_lat(k, ms_sizes[z], run)};
                bad |= results_add_mount(r, run_ids[run], &m);
                if ((m.sim_latency_ns = ms_cut(k, ms_sizes[z], run))) {
                    m.clean = 0;
                    bad |= results_add_mount(r, run_ids[run], &m);
                }
            }
        /* Not drawable on log axes: left out. */
        struct results_mount zero = {.fs_kind = "blockfs", .device_bytes = 0, .clean = 1,
                                     .sim_latency_ns = 1000};
        bad |= results_add_mount(r, run_ids[run], &zero);
        zero = (struct results_mount){.fs_kind = "blockfs", .device_bytes = (int64_t)8 << 20,
                                      .clean = 0, .sim_latency_ns = 0};
        bad |= results_add_mount(r, run_ids[run], &zero);
        bad |= results_end_run(r, run_ids[run], RESULTS_COMPLETE, NULL);
    }
    if (bad)
        fprintf(stderr, "  mount fixture: %s\n", results_error(r));
    bad |= plot_fixture_steady(results_db(r));
    bad |= results_close(r);
    return bad ? -1 : 0;
}

static sqlite3 *open_mount_db(int64_t *run_ids)
{
    char err[512];
    sqlite3 *m = NULL;
    const char *path = tmp_path("mount-sizes.db");
    if (make_mount_db(path, run_ids) || plot_open_db(path, &m, err, sizeof err)) {
        fprintf(stderr, "  mount fixture failed: %s\n", m ? "" : err);
        return NULL;
    }
    return m;
}

static const int64_t ms_asc[] = {(int64_t)64 << 20, (int64_t)256 << 20, (int64_t)1 << 30,
                                 (int64_t)4 << 30};

/* What series s should hold at size: run >= 0, that run's clean latency;
 * else the mean of the clean (cut 0) or power-cut (cut 1) mounts. */
static double ms_want(int kind, int64_t size, int cut, int run)
{
    if (run >= 0)
        return (double)ms_lat(kind, size, run);
    if (!cut)
        return (double)ms_mean(kind, size);
    return kind == 0 ? (double)ms_cut(0, size, 0) : (double)(5 * ms_mean(2, size) + 2000);
}

/* Series s has one point per size of sizes[0..n), in that (ascending) order. */
static void check_sizes(const struct plot_series *s, const int64_t *sizes, size_t n, int kind,
                        int cut, int run)
{
    CHECK_EQ_INT(s->n, n);
    for (size_t j = 0; j < s->n && j < n; j++) {
        double want = ms_want(kind, sizes[j], cut, run);
        CHECK(s->pts[j].x == (double)sizes[j]);
        if (s->pts[j].y != want)
            fprintf(stderr, "  %s at %lld: %.17g, expected %.17g\n", s->name,
                    (long long)sizes[j], s->pts[j].y, want);
        CHECK(s->pts[j].y == want);
    }
}

TEST(mount_size_means_series_and_order)
{
    int64_t ids[MS_RUNS];
    sqlite3 *m = open_mount_db(ids);
    REQUIRE(m);
    struct plot p = {0};
    struct plot_filter f = {.experiment = "mount-latency"};
    REQUIRE(plot_mount_size(m, &f, &p) == 0);
    /* x: bytes drawn as MiB; y: ns drawn as ms; both axes logarithmic. */
    CHECK(p.kind == PLOT_MOUNT_SIZE && p.logx && p.logy);
    CHECK(p.xdiv == 1048576.0 && p.ydiv == 1e6);
    /* Sorted by fs_kind, each clean series before its power-cut one, which
     * exists only where there are such mounts; one colour per fs_kind. */
    static const char *const names[] = {"blockfs", "jffs2-scan", "jffs2-summary",
                                        "jffs2-summary (after power cut)", "logfs",
                                        "logfs (after power cut)"};
    static const unsigned colours[] = {1, 2, 3, 3, 4, 4};
    REQUIRE(p.nseries == 6);
    for (size_t i = 0; i < 6; i++) {
        CHECK(!strcmp(p.series[i].name, names[i]));
        CHECK(p.series[i].style == (strstr(names[i], "power cut") ? PLOT_DASHED_POINTS
                                                                  : PLOT_LINESPOINTS));
        CHECK_EQ_INT(p.series[i].colour, colours[i]);
    }
    /* Clean: the mean of the three runs at each size. */
    check_sizes(&p.series[0], ms_asc, 4, 3, 0, -1);
    check_sizes(&p.series[1], ms_asc, 4, 1, 0, -1);
    check_sizes(&p.series[2], ms_asc, 4, 2, 0, -1);
    check_sizes(&p.series[4], ms_asc, 4, 0, 0, -1);
    /* After a power cut: logfs from one run; jffs2-summary the mean of two,
     * at 64 MiB and 1 GiB only. */
    static const int64_t cut_sizes[] = {(int64_t)64 << 20, (int64_t)1 << 30};
    check_sizes(&p.series[5], ms_asc, 4, 0, 1, -1);
    check_sizes(&p.series[3], cut_sizes, 2, 2, 1, -1);
    CHECK(plot_find_series(&p, "blockfs (after power cut)") == NULL); /* latency 0 only */
    plot_free(&p);

    /* One run: its own values, not the mean, and no power-cut jffs2-summary. */
    f = (struct plot_filter){.run_id = ids[2]};
    REQUIRE(plot_mount_size(m, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 4);
    for (int k = 0; k < MS_KINDS; k++) {
        const struct plot_series *s = series(&p, ms_kinds[k]);
        if (s)
            check_sizes(s, ms_asc, 4, k, 0, 2);
    }
    plot_free(&p);
    f.run_id = ids[0];
    REQUIRE(plot_mount_size(m, &f, &p) == 0);
    const struct plot_series *s = series(&p, "jffs2-summary (after power cut)");
    REQUIRE(s && s->n == 2);
    CHECK(s->pts[0].y == (double)(5 * ms_mean(2, (int64_t)64 << 20)));
    plot_free(&p);
    sqlite3_close(m);
}

/* The script as plot_render would hand it to gnuplot. */

TEST(mount_size_script_is_log_log)
{
    int64_t ids[MS_RUNS];
    sqlite3 *m = open_mount_db(ids);
    REQUIRE(m);
    struct plot p = {0};
    struct plot_filter f = {0};
    REQUIRE(plot_mount_size(m, &f, &p) == 0);
    sqlite3_close(m);
    char *gp = plot_test_script(&p);
    REQUIRE(gp);
    CHECK(strstr(gp, "\nset logscale x\n") != NULL);
    CHECK(strstr(gp, "\nset logscale y\n") != NULL);
    CHECK(strstr(gp, "set xlabel 'device size'") != NULL);
    /* The sizes named at every power of two from 64 MiB to 4 GiB (x in MiB). */
    CHECK(strstr(gp, "\nset xtics ('64 MiB' 64, '128 MiB' 128, '256 MiB' 256, '512 MiB' 512, "
                     "'1 GiB' 1024, '2 GiB' 2048, '4 GiB' 4096)\n") != NULL);
    /* y from a decade at or below the fastest mount (jffs2-summary at
     * 64 MiB, 0.27 ms) to high enough that the top 35% (the key's 6 lines
     * and its box) are above the slowest (jffs2-scan at 4 GiB, 187 ms). */
    const char *yr = strstr(gp, "\nset yrange [");
    double ylo = 0, yhi = 0;
    REQUIRE(yr && sscanf(yr, "\nset yrange [%lf:%lf]", &ylo, &yhi) == 2);
    double fast = (double)ms_mean(2, (int64_t)64 << 20) / 1e6;
    double slow = (double)ms_mean(1, (int64_t)4 << 30) / 1e6;
    CHECK(ylo == 0.1 && ylo < fast);
    CHECK((log10(yhi) - log10(slow)) / (log10(yhi) - log10(ylo)) >= 0.35);
    CHECK(strstr(gp, "set ylabel 'mount latency (ms, simulated)'") != NULL);
    /* Bytes to MiB and ns to ms in the using clause; the raw values in the
     * data blocks (4 GiB of blockfs, the first series). */
    CHECK(strstr(gp, "$D0 using ($1/1048576 + 0):($2/1000000) with linespoints lc 1 ") != NULL);
    char line[96];
    snprintf(line, sizeof line, "\n%lld %lld\nEOD\n", (long long)4 << 30,
             (long long)ms_mean(3, (int64_t)4 << 30));
    CHECK(strstr(gp, line) != NULL);
    /* The power-cut series: dashed, in the colour of its fs_kind. */
    CHECK(strstr(gp, "with linespoints lc 3 pt 7 ps 1.5 title 'jffs2-summary'") != NULL);
    CHECK(strstr(gp, "with linespoints dt 2 lc 3 pt 7 ps 1.5 title "
                     "'jffs2-summary (after power cut)'") != NULL);
    CHECK(strstr(gp, "with linespoints dt 2 lc 4 pt 8 ps 1.5 title "
                     "'logfs (after power cut)'") != NULL);
    free(gp);

    /* A kind on linear axes has no log scale. */
    struct plot lin = {0};
    REQUIRE(plot_wa_time(db, &f, &lin) == 0);
    gp = plot_test_script(&lin);
    plot_free(&lin);
    REQUIRE(gp);
    CHECK(strstr(gp, "logscale") == NULL);
    free(gp);

    /* Drawn by gnuplot, when it is installed: an SVG with dashed lines. */
    char err[512];
    const char *svg = tmp_path("mount-size.svg");
    int rc = plot_render(&p, svg, PLOT_SVG, err, sizeof err);
    plot_free(&p);
    if (rc && (strstr(err, "cannot run") || strstr(err, "no terminal for SVG")))
        SKIP("no gnuplot with an svg terminal: the SVG is not drawn");
    REQUIRE(rc == 0);
    FILE *fp = fopen(svg, "r");
    REQUIRE(fp);
    static char img[1 << 20];
    size_t got = fread(img, 1, sizeof img - 1, fp);
    fclose(fp);
    img[got] = 0;
    CHECK(strstr(img, "<svg") != NULL);
    CHECK(strstr(img, "stroke-dasharray") != NULL);
    CHECK(strstr(img, "jffs2-summary (after power cut)") != NULL);
}

TEST(mount_size_without_mounts_says_so)
{
    /* Runs with samples but an empty mounts table. */
    char err[512];
    struct results *r;
    int64_t e, id;
    const char *path = tmp_path("nomounts.db");
    REQUIRE(results_open(path, &r, err, sizeof err) == 0);
    CHECK(results_begin_experiment(r, "wa", NULL, "", NULL, &e) == 0);
    CHECK(results_begin_run(r, e, 0, "{}", 1, NULL, &id) == 0);
    struct results_sample smp = {.seq = 0, .host_bytes = 1 << 20, .wa = 1.5};
    CHECK(results_add_sample(r, id, &smp) == 0);
    CHECK(results_end_run(r, id, RESULTS_COMPLETE, NULL) == 0);
    CHECK(plot_fixture_steady(results_db(r)) == 0);
    CHECK(results_close(r) == 0);
    sqlite3 *m;
    REQUIRE(plot_open_db(path, &m, err, sizeof err) == 0);
    static const char want[] = "no mounts rows in the database (with device_bytes and "
                               "sim_latency_ns > 0): run a mount experiment";
    struct plot p = {0};
    struct plot_filter f = {0};
    CHECK(plot_mount_size(m, &f, &p) == -1);
    CHECK(!strcmp(p.err, want));
    CHECK_EQ_INT(p.nseries, 0);
    /* Nothing is drawn from it (gnuplot never runs). */
    CHECK(plot_render(&p, tmp_path("none.svg"), PLOT_SVG, err, sizeof err) == -1);
    CHECK(strstr(err, "nothing to draw") != NULL);
    CHECK(access(tmp_path("none.svg"), F_OK) != 0);
    plot_free(&p);
    /* Through plot_build, and for one run: the same, scoped. */
    CHECK(plot_build(m, PLOT_MOUNT_SIZE, &f, &p) == -1);
    CHECK(!strcmp(p.err, want));
    plot_free(&p);
    f.run_id = id;
    CHECK(plot_mount_size(m, &f, &p) == -1);
    CHECK(strstr(p.err, "no mounts rows for the selected runs") != NULL);
    plot_free(&p);
    sqlite3_close(m);
}

TEST(lifetime_from_kv_or_wear_out)
{
    struct plot p = {0};
    struct plot_filter f = {.by = "fs.gc_policy"};
    REQUIRE(plot_lifetime(db, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 2); /* run 2 stopped on budget; run 5 failed */
    const struct plot_series *g = series(&p, "greedy"), *fi = series(&p, "fifo");
    REQUIRE(g && fi);
    REQUIRE(g->n == 1 && fi->n == 1);
    CHECK(g->pts[0].x == 1 && g->pts[0].y == 1e12);
    CHECK(fi->pts[0].x == 2 && fi->pts[0].y == (double)fx_host(1));
    CHECK(g->style == PLOT_BARS);
    plot_free(&p);
}

/* ---- sweeps: names from the swept keys, seeds averaged, panels ------------------ */

/* Experiment "sweep" in a database of its own, as `flashlab run` stores a
 * sweep: params with the swept values and a "sweep" object naming them, 3
 * policies x 2 wear-leveling modes x 2 fills x 3 seeds (36 runs).  Seed s
 * (1..3) is 1 below, at or 1 above the setting's value sw_base(), so every
 * setting has mean sw_base() and standard deviation exactly 1. */
static const char *const sw_pol[] = {"greedy", "fifo", "cost-benefit"};
static const char *const sw_wl[] = {"dynamic", "static"};
static const double sw_fill[] = {0.6, 0.8};
#define SW_SAMPLES 3
#define SW_NB 4

static double sw_base(int p, int w, int fi) { return 2 + p + 0.25 * w + 0.5 * fi; }

static sqlite3 *open_sweep_db(void)
{
    char err[512], params[512];
    struct results *r;
    int64_t exp, id;
    const char *path = tmp_path("sweep.db");
    unlink(path);
    if (results_open(path, &r, err, sizeof err))
        return NULL;
    int bad = results_begin_experiment(r, "sweep", NULL, "sweep: 3x2x2\n", NULL, &exp), i = 0;
    for (int p = 0; p < 3; p++)
        for (int w = 0; w < 2; w++)
            for (int fi = 0; fi < 2; fi++)
                for (int seed = 1; seed <= 3; seed++, i++) {
                    snprintf(params, sizeof params,
                             "{\"fs\":{\"reserve\":4,\"gc_policy\":\"%s\",\"wear_leveling\":"
                             "\"%s\"},\"workload\":{\"fill\":%g},\"seed\":%d,\"repetition\":0,"
                             "\"sweep\":{\"fs.gc_policy\":\"%s\",\"fs.wear_leveling\":\"%s\","
                             "\"workload.fill\":%g}}", sw_pol[p], sw_wl[w], sw_fill[fi], seed,
                             sw_pol[p], sw_wl[w], sw_fill[fi]);
                    bad |= results_begin_run(r, exp, i, params, (uint64_t)seed, NULL, &id);
                    bad |= plot_kv_uniform(r, id);
                    double off = seed - 2;
                    for (int k = 0; k < SW_SAMPLES; k++) {
                        struct results_sample s = {.seq = k, .sim_time_ns = fx_time(k),
                                                   .host_bytes = fx_host(k),
                                                   .wa = sw_base(p, w, fi) + off + k / 4.0};
                        bad |= results_add_sample(r, id, &s);
                    }
                    /* All SW_NB blocks at 10 + seed erases. */
                    uint32_t c[SW_NB] = {10 + (uint32_t)seed, 10 + (uint32_t)seed,
                                         10 + (uint32_t)seed, 10 + (uint32_t)seed};
                    bad |= results_add_erase_counts(r, id, 0, c, SW_NB);
                    bad |= results_set_kv(r, id, "lifetime_host_bytes", 1e9 * (p + 1) + off);
                    bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
                }
    bad |= plot_fixture_steady(results_db(r));
    bad |= results_close(r);
    sqlite3 *db2 = NULL;
    if (bad || plot_open_db(path, &db2, err, sizeof err))
        return NULL;
    return db2;
}

/* Every point of s: y == mean(k), sd == sd, n == n. */
static void check_mean(const struct plot_series *s, size_t npts, double x0, double dx,
                       double y0, double dy, double sd, unsigned n)
{
    CHECK_EQ_INT(s->n, npts);
    for (size_t j = 0; j < s->n && j < npts; j++) {
        CHECK_NEAR(s->pts[j].x, x0 + dx * (double)j, 1e-12);
        CHECK(s->pts[j].y == y0 + dy * (double)j);
        CHECK(s->pts[j].sd == sd);
        CHECK_EQ_INT(s->pts[j].n, n);
    }
}

TEST(plot_series_named_by_swept_keys_seeds_averaged)
{
    sqlite3 *w = open_sweep_db();
    REQUIRE(w);
    struct plot p = {0};
    struct plot_filter f = {0};
    /* wa-util: fill is the x, so policy and wear leveling name the series. */
    REQUIRE(plot_wa_util(w, &f, &p) == 0);
    CHECK(p.spread && p.npanels == 0);
    REQUIRE(p.key_title && !strcmp(p.key_title, "gc_policy, wear_leveling"));
    CHECK_EQ_INT(p.nseries, 6 + 2);
    for (int pi = 0; pi < 3; pi++)
        for (int wi = 0; wi < 2; wi++) {
            char name[64];
            snprintf(name, sizeof name, "%s, %s", sw_pol[pi], sw_wl[wi]);
            const struct plot_series *s = series(&p, name);
            if (!s)
                continue;
            /* x: the fills; y: the mean of 3 seeds' last WA; sd 1 */
            check_mean(s, 2, 0.6, 0.2, sw_base(pi, wi, 0) + 0.5, 0.5, 1, 3);
            /* colour by policy, dash by wear leveling */
            CHECK_EQ_INT(s->colour, pi + 1);
            CHECK_EQ_INT(s->dash, wi + 1);
        }
    const struct plot_series *gm = series(&p, "greedy model (uniform random, Np=64)");
    REQUIRE(gm);
    CHECK(gm->pts[0].n == 0 && gm->pts[0].sd == 0);
    plot_free(&p);

    /* wa-time: 12 settings > 8: panels by fill (2 values; as few as wear
     * leveling, but the last), the others naming the series. */
    REQUIRE(plot_wa_time(w, &f, &p) == 0);
    CHECK_EQ_INT(p.npanels, 2);
    REQUIRE(p.facet && !strcmp(p.facet, "fill"));
    CHECK(!strcmp(p.panels[0], "fill=0.6") && !strcmp(p.panels[1], "fill=0.8"));
    CHECK_EQ_INT(p.nseries, 12);
    const struct plot_series *s = series(&p, "fifo, static, fill=0.8");
    REQUIRE(s && s->legend && !strcmp(s->legend, "fifo, static"));
    CHECK_EQ_INT(s->panel, 1);
    check_mean(s, SW_SAMPLES, (double)fx_host(0), (double)fx_host(0), sw_base(1, 1, 1), 0.25,
               1, 3);
    plot_free(&p);

    /* --facet none: 12 series on one plot, every (colour, dash) different. */
    f.facet = "none";
    REQUIRE(plot_wa_time(w, &f, &p) == 0);
    CHECK_EQ_INT(p.npanels, 0);
    CHECK_EQ_INT(p.nseries, 12);
    REQUIRE(series(&p, "cost-benefit, dynamic, fill=0.6"));
    for (size_t i = 0; i < p.nseries; i++)
        for (size_t j = 0; j < i; j++)
            CHECK(p.series[i].colour != p.series[j].colour ||
                  p.series[i].dash != p.series[j].dash);
    plot_free(&p);

    /* --facet fs.gc_policy --by fs.wear_leveling: 3 panels of 2 series,
     * each the mean of 2 fills x 3 seeds. */
    f = (struct plot_filter){.facet = "fs.gc_policy", .by = "fs.wear_leveling"};
    REQUIRE(plot_wa_time(w, &f, &p) == 0);
    CHECK_EQ_INT(p.npanels, 3);
    s = series(&p, "static, gc_policy=fifo");
    REQUIRE(s);
    CHECK_EQ_INT(s->pts[0].n, 6);
    CHECK_NEAR(s->pts[0].y, (sw_base(1, 1, 0) + sw_base(1, 1, 1)) / 2, 1e-12);
    plot_free(&p);
    sqlite3_close(w);
}

TEST(plot_wear_kinds_average_seeds)
{
    sqlite3 *w = open_sweep_db();
    REQUIRE(w);
    struct plot p = {0};
    struct plot_filter f = {.by = "fs.gc_policy,fs.wear_leveling,workload.fill", .facet = "none"};
    /* erase-hist: seed s has all 4 blocks at 10 + s; bins 11..13. */
    REQUIRE(plot_erase_hist(w, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 12);
    const struct plot_series *s = series(&p, "greedy, static, fill=0.8");
    REQUIRE(s && s->n == 3);
    double sd = sqrt(((4 - 4 / 3.0) * (4 - 4 / 3.0) + 2 * (4 / 3.0) * (4 / 3.0)) / 2);
    for (size_t j = 0; j < 3; j++) {
        CHECK(s->pts[j].x == 11 + (double)j);
        CHECK_NEAR(s->pts[j].y, 4 / 3.0, 1e-12);
        CHECK_NEAR(s->pts[j].sd, sd, 1e-12);
        CHECK_EQ_INT(s->pts[j].n, 3);
    }
    plot_free(&p);
    /* erase-cdf: the mean of the seeds' step functions: 1/3, 2/3, 1. */
    REQUIRE(plot_erase_cdf(w, &f, &p) == 0);
    s = series(&p, "fifo, dynamic, fill=0.6");
    REQUIRE(s && s->n == 3);
    CHECK_NEAR(s->pts[0].y, 1 / 3.0, 1e-12);
    CHECK_NEAR(s->pts[1].y, 2 / 3.0, 1e-12);
    CHECK(s->pts[2].y == 1 && s->pts[2].sd == 0);
    CHECK_NEAR(s->pts[1].sd, sqrt((2 * (1 / 3.0) * (1 / 3.0) + (2 / 3.0) * (2 / 3.0)) / 2),
               1e-12);
    plot_free(&p);
    /* lifetime: a bar per setting, its runs as points. */
    f = (struct plot_filter){0};
    REQUIRE(plot_lifetime(w, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 12); /* no panels for bars */
    s = series(&p, "cost-benefit, dynamic, fill=0.8");
    REQUIRE(s && s->n == 3);
    CHECK(s->pts[0].y == 3e9 - 1 && s->pts[2].y == 3e9 + 1);
    plot_free(&p);
    sqlite3_close(w);
}

TEST(plot_table_has_mean_sd_and_n)
{
    sqlite3 *w = open_sweep_db();
    REQUIRE(w);
    struct plot p = {0};
    struct plot_filter f = {0};
    char err[512], line[256];
    REQUIRE(plot_wa_util(w, &f, &p) == 0);
    sqlite3_close(w);
    const char *path = tmp_path("sweep.dat");
    REQUIRE(plot_write_data(&p, path, err, sizeof err) == 0);
    plot_free(&p);
    FILE *fp = fopen(path, "r");
    REQUIRE(fp);
    int rows = 0, header = 0, found = 0, models = 0;
    while (fgets(line, sizeof line, fp)) {
        if (!strcmp(line, "# series\tx\ty\tsd\tn\n"))
            header++;
        if (line[0] == '#')
            continue;
        rows++;
        char name[64];
        double x, y, sd;
        unsigned n;
        REQUIRE(sscanf(line, "%63[^\t]\t%lf\t%lf\t%lf\t%u", name, &x, &y, &sd, &n) == 5);
        if (!strcmp(name, "cost-benefit, static") && x == 0.8 && y == sw_base(2, 1, 1) + 0.5 &&
            sd == 1 && n == 3)
            found++;
        models += n == 0 && sd == 0;
    }
    fclose(fp);
    CHECK_EQ_INT(header, 1);
    CHECK_EQ_INT(rows, 6 * 2 + 2 * PLOT_MODEL_POINTS);
    CHECK_EQ_INT(found, 1);
    CHECK_EQ_INT(models, 2 * PLOT_MODEL_POINTS);
}

TEST(plot_unknown_keys_are_usage_errors)
{
    sqlite3 *w = open_sweep_db();
    REQUIRE(w);
    struct plot p = {0};
    struct plot_filter f = {.by = "fs.gc_policy,fs.gc_polcy"};
    CHECK(plot_wa_util(w, &f, &p) == -1);
    CHECK(p.usage == 1);
    CHECK(strstr(p.err, "unknown --by key 'fs.gc_polcy'; the runs drawn have: fs.reserve, "
                        "fs.gc_policy, fs.wear_leveling, workload.fill") != NULL);
    plot_free(&p);
    f = (struct plot_filter){.facet = "workload.fil"};
    CHECK(plot_erase_cdf(w, &f, &p) == -1);
    CHECK(p.usage == 1 && strstr(p.err, "unknown --facet key 'workload.fil'") != NULL);
    plot_free(&p);
    f = (struct plot_filter){.by = "fs.gc_policy,"};
    CHECK(plot_wa_time(w, &f, &p) == -1);
    CHECK(p.usage == 1 && strstr(p.err, "bad --by path") != NULL);
    plot_free(&p);
    /* A key that leads to values is known; so is one some runs lack. */
    f = (struct plot_filter){.by = "fs"};
    CHECK(plot_wa_time(w, &f, &p) == 0);
    plot_free(&p);
    /* No rows: that error first, not a usage error. */
    f = (struct plot_filter){.by = "nope", .experiment = "other"};
    CHECK(plot_wa_time(w, &f, &p) == -1);
    CHECK(p.usage == 0 && strstr(p.err, "no samples rows") != NULL);
    plot_free(&p);
    sqlite3_close(w);
}

TEST(plot_script_palette_spread_and_panels)
{
    sqlite3 *w = open_sweep_db();
    REQUIRE(w);
    struct plot p = {0};
    struct plot_filter f = {0};
    REQUIRE(plot_wa_util(w, &f, &p) == 0);
    char *gp = plot_test_script(&p);
    plot_free(&p);
    REQUIRE(gp);
    CHECK(strstr(gp, "\nset linetype 1 lc rgb '#E69F00'") != NULL);
    CHECK(strstr(gp, "\nset linetype 9 lc rgb '#E69F00'") != NULL);
    CHECK(strstr(gp, "set key inside left top") != NULL); /* wa-util: the models' long names */
    CHECK(strstr(gp, "set key title 'gc_policy, wear_leveling' . \"\\n\" . "
                     "'(mean of seeds, bar ± 1 sd)'") != NULL);
    CHECK(strstr(gp, "with yerrorlines lc 2 pt 8 ps 1.5 dt 2 title 'fifo, static'") != NULL);
    free(gp);
    REQUIRE(plot_wa_time(w, &f, &p) == 0);
    gp = plot_test_script(&p);
    plot_free(&p);
    sqlite3_close(w);
    REQUIRE(gp);
    CHECK(strstr(gp, "set multiplot title 'Write amplification over the run, by fill "
                     "(mean of seeds, band ± 1 sd)'") != NULL);
    CHECK(strstr(gp, "set title 'fill=0.8'") != NULL);
    CHECK(strstr(gp, "with filledcurves lc 1 fs transparent solid 0.2") != NULL);
    CHECK(strstr(gp, "NaN with lines lc 3 dt 2 title 'cost-benefit, static'") != NULL);
    CHECK(strstr(gp, "unset multiplot") != NULL);
    free(gp);
}

/* ---- selection, grouping, the table ------------------------------------------- */

TEST(by_key_and_filters)
{
    struct plot p = {0};
    struct plot_filter f = {.by = "utilisation"};
    REQUIRE(plot_wa_util(db, &f, &p) == 0);
    /* groups by utilisation: 0.9, 0.8 (runs 2, 3), and run 4 has none */
    const struct plot_series *s8 = series(&p, "0.8"), *s9 = series(&p, "0.9");
    const struct plot_series *r4 = series(&p, "run 4");
    REQUIRE(s8 && s9 && r4);
    /* runs 2 and 3 at 0.8: one point, their mean */
    CHECK_EQ_INT(s8->n, 1);
    CHECK(s8->pts[0].n == 2 && s8->pts[0].y == ((1.5 + 3 / 4.0) + (2.0 + 1 / 4.0)) / 2);
    CHECK_EQ_INT(s9->n, 1);
    CHECK(r4->pts[0].x == 0.7);
    plot_free(&p);

    f = (struct plot_filter){.by = "$.fs.gc_policy", .run_id = 3};
    REQUIRE(plot_erase_cdf(db, &f, &p) == 0);
    CHECK_EQ_INT(p.nseries, 1);
    CHECK(series(&p, "fifo") != NULL);
    plot_free(&p);

    f = (struct plot_filter){.experiment = "mount"};
    CHECK(plot_erase_hist(db, &f, &p) == -1);
    CHECK(strstr(p.err, "no erase_counts rows for the selected runs") != NULL);
    plot_free(&p);
    CHECK(plot_mount_size(db, &f, &p) == 0);
    plot_free(&p);
    f.experiment = "wa-sweep";
    CHECK(plot_mount_size(db, &f, &p) == -1);
    CHECK(strstr(p.err, "no mounts rows") != NULL);
    plot_free(&p);

    f = (struct plot_filter){.by = "a..b"};
    CHECK(plot_wa_time(db, &f, &p) == -1);
    CHECK(strstr(p.err, "bad --by path 'a..b'") != NULL);
    plot_free(&p);
    const char *bad[] = {"", ".", "a.", "a[", "a[]", "a[x]", "a[#-]", "$x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char path[64];
        CHECK(plot_by_path(bad[i], path, sizeof path) == -1);
    }
    const char *good[] = {"a", "fs.gc_policy", "$.a", "a[0]", "a[#-1].b", "a[#]", "\"q q\""};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char path[64];
        CHECK(plot_by_path(good[i], path, sizeof path) == 0);
    }
    plot_free(&p);
}

TEST(build_dispatches_and_kinds_have_names)
{
    for (int k = 0; k < PLOT_KIND_COUNT; k++) {
        CHECK_EQ_INT(plot_kind_find(plot_kind_name((enum plot_kind)k)), k);
        CHECK(strlen(plot_kind_help((enum plot_kind)k)) > 10);
        CHECK(strlen(plot_kind_needs((enum plot_kind)k)) > 5);
        struct plot p = {0};
        struct plot_filter f = {0};
        CHECK(plot_build(db, (enum plot_kind)k, &f, &p) == 0);
        CHECK(p.kind == (enum plot_kind)k && p.nseries > 0 && p.xlabel && p.ylabel);
        plot_free(&p);
    }
    CHECK_EQ_INT(plot_kind_find("erase-histogram"), -1);
    CHECK_EQ_INT(plot_format_from_path("a.png"), PLOT_PNG);
    CHECK_EQ_INT(plot_format_from_path("dir.x/A.SVG"), PLOT_SVG);
    CHECK_EQ_INT(plot_format_from_path("a.pdf"), PLOT_PDF);
    CHECK_EQ_INT(plot_format_from_path("a.jpg"), -1);
    CHECK_EQ_INT(plot_format_from_path("png"), -1);
    CHECK_EQ_INT(plot_format_from_path("a.png/b"), -1);
}

TEST(data_table_has_every_point)
{
    struct plot p = {0};
    struct plot_filter f = {0};
    char err[512], line[256];
    REQUIRE(plot_mount_size(db, &f, &p) == 0);
    const char *path = tmp_path("mount.dat");
    REQUIRE(plot_write_data(&p, path, err, sizeof err) == 0);
    FILE *fp = fopen(path, "r");
    REQUIRE(fp);
    int rows = 0, found = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#')
            continue;
        rows++;
        char name[64];
        double x, y;
        if (sscanf(line, "%63[^\t]\t%lf\t%lf", name, &x, &y) == 3 && !strcmp(name, "yaffs") &&
            x == (double)dev_sizes[3] && y == (double)fx_lat(2, 3))
            found++;
    }
    fclose(fp);
    CHECK_EQ_INT(rows, 3 * 4 + 1);
    CHECK_EQ_INT(found, 1);
    CHECK(plot_write_data(&p, tmp_path("nodir/x.dat"), err, sizeof err) == -1);
    CHECK(strstr(err, "nodir/x.dat") != NULL);
    plot_free(&p);
}

/* ---- errors ------------------------------------------------------------------------ */

TEST(bad_files_and_empty_databases)
{
    char err[512];
    sqlite3 *x = (sqlite3 *)1;
    CHECK(plot_open_db(tmp_path("missing.db"), &x, err, sizeof err) == -1);
    CHECK(x == NULL && strstr(err, "No such file") != NULL);
    CHECK(access(tmp_path("missing.db"), F_OK) != 0); /* not created */

    FILE *fp = fopen(tmp_path("text.db"), "w");
    REQUIRE(fp);
    fputs("this is not a database, just some text that is long enough\n", fp);
    fclose(fp);
    CHECK(plot_open_db(tmp_path("text.db"), &x, err, sizeof err) == -1);
    CHECK(strstr(err, "not a database") != NULL);

    fp = fopen(tmp_path("empty.db"), "w");
    REQUIRE(fp);
    fclose(fp);
    CHECK(plot_open_db(tmp_path("empty.db"), &x, err, sizeof err) == -1);
    CHECK(strstr(err, "not a flashlab results database (no 'experiments' table)") != NULL);

    /* A results file with no rows: every kind says what is missing. */
    struct results *r;
    REQUIRE(results_open(tmp_path("norows.db"), &r, err, sizeof err) == 0);
    plot_fixture_steady(results_db(r));
    results_close(r);
    REQUIRE(plot_open_db(tmp_path("norows.db"), &x, err, sizeof err) == 0);
    static const char *const want[PLOT_KIND_COUNT] = {
        "no erase_counts rows in the database: run an experiment with erase snapshots",
        "no erase_counts rows in the database", "no complete runs with a measured utilisation",
        "no samples rows", "no mounts rows", "no wear-out lifetimes"};
    for (int k = 0; k < PLOT_KIND_COUNT; k++) {
        struct plot p = {0};
        struct plot_filter f = {0};
        CHECK(plot_build(x, (enum plot_kind)k, &f, &p) == -1);
        if (!strstr(p.err, want[k]))
            fprintf(stderr, "  %s: %s\n", plot_kind_name((enum plot_kind)k), p.err);
        CHECK(strstr(p.err, want[k]) != NULL);
        plot_free(&p);
    }
    sqlite3_close(x);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (plot_test_open("plot", "results.db", make_db, &db))
        return 1;
    RUN(erase_hist_is_the_last_snapshot);
    RUN(erase_cdf_is_monotone_and_ends_at_one);
    RUN(erase_hist_bins_a_wide_range);
    RUN(wa_util_groups_by_policy_with_models);
    RUN(wa_time_per_run);
    RUN(mount_size_per_fs_kind);
    RUN(mount_size_means_series_and_order);
    RUN(mount_size_script_is_log_log);
    RUN(mount_size_without_mounts_says_so);
    RUN(lifetime_from_kv_or_wear_out);
    RUN(by_key_and_filters);
    RUN(build_dispatches_and_kinds_have_names);
    RUN(data_table_has_every_point);
    RUN(bad_files_and_empty_databases);
    RUN(plot_series_named_by_swept_keys_seeds_averaged);
    RUN(plot_wear_kinds_average_seeds);
    RUN(plot_table_has_mean_sd_and_n);
    RUN(plot_unknown_keys_are_usage_errors);
    RUN(plot_script_palette_spread_and_panels);
    sqlite3_close(db);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

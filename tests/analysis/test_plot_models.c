/*
 * test_plot_models.c -- the figures say what they are of (analysis/
 * plot_models.c, plot_about.c): wa-util draws the uniform random models
 * (greedy with the runs' Np, FIFO/LRW) only beside uniform runs, the LRW
 * hot/cold model with the runs' split only beside hot/cold ones, none
 * beside other workloads, each named by its assumptions, in the series
 * and in the --data table; every kind's title names the runs' workloads
 * and devices; lifetime titles say how much wear was accelerated, and only
 * when it was.
 */
#include "gc_model.h"
#include "plot.h"
#include "results.h"
#include "plot_steady.h"
#include "fixture.h"
#include "plot_test.h"

#include <sqlite3.h>

static sqlite3 *db;

/* One experiment's runs: params (%g: the fill), and kv as the runner
 * writes them (NULL / 0: not recorded, as in older databases). */
struct fx_exp {
    const char *name, *params;
    const char *workload, *device;
    double hot_writes, hot_data, np, scale;
};

static const struct fx_exp fx[] = {
    {"uni", "{\"device\":\"devices/test-64m.yaml\",\"fs\":{\"gc_policy\":\"greedy\"},"
            "\"workload\":{\"kind\":\"uniform\",\"fill\":%g}}",
     "uniform", "test-64m", 0, 0, 32, 0.0005},
    /* the split from kv (the resolved one), not params' */
    {"hc", "{\"device\":\"devices/nand-2g.yaml\",\"fs\":{\"gc_policy\":\"greedy\"},"
           "\"workload\":{\"kind\":\"hotcold\",\"hot_writes\":0.5,\"fill\":%g}}",
     "hotcold", "nand-2g", 0.8, 0.2, 32, 1},
    /* an older database: nothing in kv, the device's file in params */
    {"old", "{\"device\":{\"file\":\"configs/devices/old-part.yaml\"},"
            "\"fs\":{\"gc_policy\":\"greedy\"},\"workload\":{\"kind\":\"uniform\",\"fill\":%g}}",
     NULL, NULL, 0, 0, 0, 0},
    {"zipf", "{\"device\":\"devices/test-64m.yaml\",\"fs\":{\"gc_policy\":\"greedy\"},"
             "\"workload\":{\"kind\":\"zipf\",\"theta\":0.8,\"fill\":%g}}",
     "zipf", "test-64m", 0, 0, 32, 1},
};
#define NFX (sizeof fx / sizeof *fx)

static int make_db(const char *path)
{
    char err[512], params[512];
    struct results *r;
    int64_t exp, id;
    if (results_open(path, &r, err, sizeof err))
        return -1;
    int bad = 0;
    for (size_t e = 0; e < NFX; e++) {
        bad |= results_begin_experiment(r, fx[e].name, NULL, fx[e].name, NULL, &exp);
        for (int k = 0; k < 2; k++) {
            snprintf(params, sizeof params, fx[e].params, 0.6 + 0.2 * k);
            bad |= results_begin_run(r, exp, k, params, 1, NULL, &id);
            struct results_sample s = {.seq = 0, .host_bytes = 1 << 30, .wa = 1.5 + k};
            bad |= results_add_sample(r, id, &s);
            uint32_t c[4] = {1, 2, 3, 4};
            bad |= results_add_erase_counts(r, id, 0, c, 4);
            struct results_mount m = {.fs_kind = "logfs", .device_bytes = 64 << 20,
                                      .clean = 1, .sim_latency_ns = 1000000};
            bad |= results_add_mount(r, id, &m);
            if (fx[e].workload)
                bad |= results_set_kv_text(r, id, "workload", fx[e].workload);
            if (fx[e].device)
                bad |= results_set_kv_text(r, id, "device", fx[e].device);
            if (fx[e].hot_writes)
                bad |= results_set_kv(r, id, "hot_writes", fx[e].hot_writes) |
                       results_set_kv(r, id, "hot_data", fx[e].hot_data);
            if (fx[e].np)
                bad |= results_set_kv(r, id, "erase_block_bytes", 131072) |
                       results_set_kv(r, id, "fs_block_bytes", 131072 / fx[e].np);
            if (fx[e].scale)
                bad |= results_set_kv(r, id, "endurance_scale", fx[e].scale);
            bad |= results_set_kv(r, id, "lifetime_host_bytes", 1e9 * (k + 1));
            bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
        }
    }
    bad |= plot_fixture_steady(results_db(r));
    bad |= results_close(r);
    return bad ? -1 : 0;
}

static int build(enum plot_kind kind, const char *experiment, unsigned np, struct plot *p)
{
    struct plot_filter f = {.experiment = experiment, .np = np};
    int rc = plot_build(db, kind, &f, p);
    if (rc)
        fprintf(stderr, "  %s: %s\n", plot_kind_name(kind), p->err);
    return rc;
}

/* How many series have needle in their names. */
static size_t named(const struct plot *p, const char *needle)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nseries; i++)
        n += strstr(p->series[i].name, needle) != NULL;
    return n;
}

/* The --data table of p, whole (the caller frees). */
static char *table_of(const struct plot *p)
{
    char err[512];
    const char *path = tmp_path("t.dat");
    if (plot_write_data(p, path, err, sizeof err))
        return NULL;
    size_t n;
    uint8_t *b = fx_slurp(path, &n);
    if (b)
        b[n] = 0; /* fx_slurp leaves room for it */
    return (char *)b;
}

/* The table's rows of series name. */
static size_t rows_of(const char *table, const char *name)
{
    size_t n = 0, len = strlen(name);
    for (const char *l = table; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
        n += !strncmp(l, name, len) && l[len] == '\t';
    return n;
}


TEST(uniform_runs_get_the_uniform_models_with_their_np)
{
    struct plot p = {0};
    REQUIRE(build(PLOT_WA_UTIL, "uni", 0, &p) == 0);
    const struct plot_series *g = plot_find_series(&p, "greedy model (uniform random, Np=32)");
    const struct plot_series *fi = plot_find_series(&p, "FIFO/LRW model (uniform random)");
    REQUIRE(g && fi);
    CHECK_EQ_INT(p.nseries, 3); /* greedy's runs and the two models */
    CHECK_EQ_INT(named(&p, "hot/cold"), 0);
    CHECK_EQ_INT(g->n, PLOT_MODEL_POINTS);
    for (size_t j = 0; j < g->n; j++) {
        double a = gc_model_alpha(1 - g->pts[j].x);
        CHECK(g->pts[j].y == gc_model_greedy_wa(a, 32) && g->pts[j].n == 0);
        CHECK(fi->pts[j].y == gc_model_fifo_wa(a));
    }
    CHECK(!p.notes);
    char *t = table_of(&p);
    REQUIRE(t);
    CHECK_EQ_INT(rows_of(t, "greedy model (uniform random, Np=32)"), PLOT_MODEL_POINTS);
    CHECK_EQ_INT(rows_of(t, "FIFO/LRW model (uniform random)"), PLOT_MODEL_POINTS);
    CHECK_EQ_INT(rows_of(t, "greedy"), 2);
    free(t);
    /* panels: in the narrow key column the assumptions get a line (an
     * entry without a sample) of their own */
    struct plot_filter f = {.experiment = "uni", .facet = "workload.fill"};
    REQUIRE(plot_build(db, PLOT_WA_UTIL, &f, &p) == 0 && p.npanels == 2);
    char *gp = plot_test_script(&p);
    REQUIRE(gp);
    CHECK(strstr(gp, "title 'greedy model', \\\n  NaN with lines lt nodraw title "
                     "'(uniform random, Np=32)'") != NULL);
    free(gp);
    plot_free(&p);
}

TEST(hotcold_runs_get_the_hotcold_model_only)
{
    struct plot p = {0};
    REQUIRE(build(PLOT_WA_UTIL, "hc", 0, &p) == 0);
    CHECK_EQ_INT(named(&p, "uniform"), 0);
    CHECK_EQ_INT(named(&p, "greedy model"), 0);
    const struct plot_series *h = plot_find_series(&p, "FIFO/LRW model (hot/cold 80/20, one log)");
    REQUIRE(h);
    CHECK_EQ_INT(p.nseries, 2);
    for (size_t j = 0; j < h->n; j++)
        CHECK(h->pts[j].y == gc_model_hotcold_lru_wa(gc_model_alpha(1 - h->pts[j].x), 0.8, 0.2));
    REQUIRE(p.notes && strstr(p.notes, "no greedy model for hot/cold 80/20"));
    char *t = table_of(&p);
    REQUIRE(t);
    CHECK(!strstr(t, "uniform random"));
    CHECK_EQ_INT(rows_of(t, "FIFO/LRW model (hot/cold 80/20, one log)"), h->n);
    CHECK(strstr(t, "\n# no greedy model for hot/cold 80/20") != NULL);
    free(t);
    plot_free(&p);
}

TEST(unrecorded_geometry_and_other_workloads_get_no_made_up_model)
{
    struct plot p = {0};
    /* no geometry recorded: no greedy model, unless --np gives Np */
    REQUIRE(build(PLOT_WA_UTIL, "old", 0, &p) == 0);
    CHECK_EQ_INT(named(&p, "greedy model"), 0);
    CHECK(plot_find_series(&p, "FIFO/LRW model (uniform random)") != NULL);
    CHECK(p.notes && strstr(p.notes, "--np"));
    REQUIRE(build(PLOT_WA_UTIL, "old", 16, &p) == 0);
    const struct plot_series *g = plot_find_series(&p, "greedy model (uniform random, Np=16)");
    REQUIRE(g);
    CHECK(g->pts[1].y == gc_model_greedy_wa(gc_model_alpha(1 - g->pts[1].x), 16));
    /* zipf: no model at all, and a note why */
    REQUIRE(build(PLOT_WA_UTIL, "zipf", 0, &p) == 0);
    CHECK_EQ_INT(p.nseries, 1);
    CHECK(p.notes && strstr(p.notes, "no model for workload 'zipf'"));
    /* all of them: each workload's models, once */
    REQUIRE(build(PLOT_WA_UTIL, NULL, 0, &p) == 0);
    CHECK_EQ_INT(named(&p, "greedy model (uniform random, Np=32)"), 1);
    CHECK_EQ_INT(named(&p, "FIFO/LRW model (uniform random)"), 1);
    CHECK_EQ_INT(named(&p, "hot/cold 80/20"), 1);
    plot_free(&p);
}

TEST(every_title_names_the_workload_and_the_device)
{
    static const struct {
        const char *exp, *want;
    } cases[] = {
        {"uni", "workload: uniform random; device: test-64m"},
        {"hc", "workload: hotcold 80/20; device: nand-2g"},
        {"old", "workload: uniform random; device: old-part"},
        {"zipf", "workload: zipf theta=0.8; device: test-64m"},
        {NULL, "workloads: uniform random, hotcold 80/20, zipf theta=0.8; devices: test-64m, "
               "nand-2g, old-part"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int k = 0; k < PLOT_KIND_COUNT; k++) {
            struct plot p = {0};
            REQUIRE(build((enum plot_kind)k, cases[c].exp, 0, &p) == 0);
            int good = p.subtitle && !strncmp(p.subtitle, cases[c].want, strlen(cases[c].want));
            if (!good)
                fprintf(stderr, "  %s, %s: '%s'\n", cases[c].exp ? cases[c].exp : "all",
                        plot_kind_name((enum plot_kind)k), p.subtitle ? p.subtitle : "(none)");
            CHECK(good);
            char *t = table_of(&p), *gp = plot_test_script(&p);
            REQUIRE(t && gp);
            const char *second = strchr(t, '\n');
            CHECK(second && !strncmp(second + 1, "# ", 2) &&
                  !strncmp(second + 3, cases[c].want, strlen(cases[c].want)));
            /* in the figure's title, a long one a part ("; ") per line */
            char want[256];
            snprintf(want, sizeof want, "%s", cases[c].want);
            for (char *part = strtok(want, ";"); part; part = strtok(NULL, ";"))
                CHECK(strstr(gp, part + (*part == ' ')) != NULL);
            CHECK(strstr(gp, " . \"\\n\" . 'workload") != NULL);
            free(t);
            free(gp);
            plot_free(&p);
        }
}

TEST(lifetime_titles_say_when_wear_was_accelerated)
{
    static const char accel[] = "wear accelerated 2000x (endurance_scale 0.0005)";
    struct plot p = {0};
    REQUIRE(build(PLOT_LIFETIME, "uni", 0, &p) == 0);
    CHECK(p.subtitle && strstr(p.subtitle, accel));
    char *t = table_of(&p), *gp = plot_test_script(&p);
    REQUIRE(t && gp);
    CHECK(strstr(t, accel) != NULL);
    CHECK(strstr(gp, accel) != NULL);
    free(t);
    free(gp);
    /* scale 1, or not recorded: nothing to say */
    REQUIRE(build(PLOT_LIFETIME, "hc", 0, &p) == 0);
    CHECK(p.subtitle && !strstr(p.subtitle, "accelerated"));
    REQUIRE(build(PLOT_LIFETIME, "old", 0, &p) == 0);
    CHECK(p.subtitle && !strstr(p.subtitle, "accelerated"));
    /* accelerated and real runs together: both said */
    REQUIRE(build(PLOT_LIFETIME, NULL, 0, &p) == 0);
    CHECK(p.subtitle && strstr(p.subtitle, accel) && strstr(p.subtitle, "not on some runs"));
    /* only lifetime figures */
    REQUIRE(build(PLOT_WA_UTIL, "uni", 0, &p) == 0);
    CHECK(p.subtitle && !strstr(p.subtitle, "accelerated"));
    plot_free(&p);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (plot_test_open("plotmodels", "results.db", make_db, &db))
        return 1;
    RUN(uniform_runs_get_the_uniform_models_with_their_np);
    RUN(hotcold_runs_get_the_hotcold_model_only);
    RUN(unrecorded_geometry_and_other_workloads_get_no_made_up_model);
    RUN(every_title_names_the_workload_and_the_device);
    RUN(lifetime_titles_say_when_wear_was_accelerated);
    sqlite3_close(db);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

/*
 * test_plot_means.c -- the means and standard deviations the plots draw,
 * checked against a reference computed here, on the files they are drawn
 * from: the --data table (plot_write_data) and the gnuplot script's data
 * blocks (plot_write_script).  The database is a sweep of 3 policies x 3
 * fills with 2 to 4 seeds per setting, whose runs have irregular
 * (pseudo-random) WAs, sample counts, host bytes and erase counts, so that
 * no value comes out round by chance.  Also the series names (the swept
 * keys that differ, never a run number), what the key says the spread is,
 * wa-util's y range and models in panels, and 12 series of one key drawn
 * in 12 distinct colour and dash pairs.
 */
#include "plot.h"
#include "results.h"
#include "plot_steady.h"
#include "fixture.h"
#include "plot_kv.h"
#include "plot_test.h"

#include <math.h>
#include <sqlite3.h>
#include <unistd.h>

#define NPOL 3
#define NFILL 3
#define MAXSEEDS 4
#define MAXSAMP 5
#define NB 16 /* blocks per erase snapshot */

static const char *const pol[NPOL] = {"greedy", "fifo", "cost-benefit"};
static const char *const fill_s[NFILL] = {"0.5", "0.7", "0.9"};
static const double fill[NFILL] = {0.5, 0.7, 0.9};

/* What each run wrote: the reference's input. */
struct run {
    int nsamp;
    double host[MAXSAMP], wa[MAXSAMP];
    uint32_t erases[NB];
};
static struct run runs[NPOL][NFILL][MAXSEEDS];
static int nseeds(int p, int f) { return 2 + (p + 2 * f) % 3; } /* 2..4 */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double unit(void) { return (double)(next() >> 11) / 9007199254740992.0; }

static sqlite3 *db;

static int make_db(const char *path)
{
    char err[512], params[512];
    struct results *r;
    int64_t exp, id;
    if (results_open(path, &r, err, sizeof err))
        return -1;
    int bad = results_begin_experiment(r, "irregular", NULL, "x\n", NULL, &exp), i = 0;
    for (int p = 0; p < NPOL; p++)
        for (int f = 0; f < NFILL; f++)
            for (int s = 0; s < nseeds(p, f); s++, i++) {
                struct run *u = &runs[p][f][s];
                snprintf(params, sizeof params,
                         "{\"fs\":{\"gc_policy\":\"%s\"},\"workload\":{\"fill\":%s},"
                         "\"seed\":%d,\"sweep\":{\"fs.gc_policy\":\"%s\",\"workload.fill\":%s}}",
                         pol[p], fill_s[f], s + 1, pol[p], fill_s[f]);
                bad |= results_begin_run(r, exp, i, params, (uint64_t)s + 1, NULL, &id);
                bad |= plot_kv_uniform(r, id);
                u->nsamp = 3 + (int)(next() % 3);
                for (int k = 0; k < u->nsamp; k++) {
                    u->host[k] = (double)(((int64_t)k + 1) << 30) + (double)(next() % 1000003);
                    u->wa[k] = 1 + 4 * fill[f] * unit() + k * unit();
                    struct results_sample smp = {.seq = k, .host_bytes = (int64_t)u->host[k],
                                                 .wa = u->wa[k]};
                    bad |= results_add_sample(r, id, &smp);
                }
                for (int b = 0; b < NB; b++)
                    u->erases[b] = 10 + (uint32_t)(next() % 30);
                bad |= results_add_erase_counts(r, id, 0, u->erases, NB);
                bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
            }
    bad |= plot_fixture_steady(results_db(r));
    bad |= results_close(r);
    return bad ? -1 : 0;
}

/* ---- the reference: Welford's running mean and variance, not the plot
 * code's two passes -------------------------------------------------------- */

struct stat_acc {
    unsigned n;
    double mean, m2;
};
static void acc_add(struct stat_acc *a, double v)
{
    a->n++;
    double d = v - a->mean;
    a->mean += d / a->n;
    a->m2 += d * (v - a->mean);
}
static double acc_sd(const struct stat_acc *a) { return a->n > 1 ? sqrt(a->m2 / (a->n - 1)) : 0; }

/* ---- the files the plots are drawn from ------------------------------------- */

#define MAXROWS 4096
struct row {
    char name[64];
    double x, y, sd;
    unsigned n;
};
static struct row rows[MAXROWS];
static size_t nrows;

/* The --data table of p, read back; its header must have sd and n. */
static int read_table(const struct plot *p)
{
    char err[512], line[256];
    const char *path = tmp_path("t.dat");
    if (plot_write_data(p, path, err, sizeof err))
        return -1;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    int header = 0;
    nrows = 0;
    while (fgets(line, sizeof line, fp) && nrows < MAXROWS) {
        header |= !strcmp(line, "# series\tx\ty\tsd\tn\n");
        if (line[0] == '#')
            continue;
        struct row *r = &rows[nrows++];
        if (sscanf(line, "%63[^\t]\t%lf\t%lf\t%lf\t%u", r->name, &r->x, &r->y, &r->sd, &r->n) !=
            5)
            header = 0;
    }
    fclose(fp);
    return header ? 0 : -1;
}

/* The k-th row of series name in the table, or NULL. */
static const struct row *row_k(const char *name, size_t k)
{
    for (size_t i = 0; i < nrows; i++)
        if (!strcmp(rows[i].name, name) && k-- == 0)
            return &rows[i];
    return NULL;
}

static size_t rows_of(const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < nrows; i++)
        n += !strcmp(rows[i].name, name);
    return n;
}

/* Relative closeness: the plot code sums in another order. */
static int close_to(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1, fabs(b)); }

/* One point against the reference, with what it is in a failure. */
static void check_point(const char *what, const struct row *r, double x,
                        const struct stat_acc *a)
{
    if (!r) {
        fprintf(stderr, "  %s: no row\n", what);
        CHECK(r != NULL);
        return;
    }
    int good = close_to(r->x, x) && close_to(r->y, a->mean) && close_to(r->sd, acc_sd(a)) &&
               r->n == a->n;
    if (!good)
        fprintf(stderr, "  %s: row x %.17g y %.17g sd %.17g n %u; reference x %.17g y %.17g "
                "sd %.17g n %u\n", what, r->x, r->y, r->sd, r->n, x, a->mean, acc_sd(a), a->n);
    CHECK(good);
}

static void name_of(char *out, size_t n, int p, int f)
{
    snprintf(out, n, "%s, fill=%s", pol[p], fill_s[f]);
}

/* ---- the kinds ------------------------------------------------------------------- */

TEST(wa_util_means_and_sds)
{
    struct plot p = {0};
    struct plot_filter f = {0};
    REQUIRE(plot_wa_util(db, &f, &p) == 0);
    REQUIRE(read_table(&p) == 0);
    /* fill is the x: the policies name the series, plus the two models */
    CHECK_EQ_INT(p.nseries, NPOL + 2);
    REQUIRE(p.key_title && !strcmp(p.key_title, "gc_policy"));
    for (int q = 0; q < NPOL; q++) {
        CHECK_EQ_INT(rows_of(pol[q]), NFILL);
        for (int fi = 0; fi < NFILL; fi++) {
            struct stat_acc a = {0};
            for (int s = 0; s < nseeds(q, fi); s++)
                acc_add(&a, runs[q][fi][s].wa[runs[q][fi][s].nsamp - 1]);
            char what[64];
            name_of(what, sizeof what, q, fi);
            check_point(what, row_k(pol[q], (size_t)fi), fill[fi], &a);
        }
    }
    /* The script's data block of each series holds the same x, mean, sd. */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    REQUIRE(fp);
    plot_write_script(fp, &p, "set terminal svg");
    fclose(fp);
    for (size_t i = 0; i < p.nseries; i++) {
        const struct plot_series *s = &p.series[i];
        if (s->style == PLOT_DASHED)
            continue; /* the models: no spread */
        char head[32];
        snprintf(head, sizeof head, "$D%zu << EOD\n", i);
        const char *at = strstr(buf, head);
        REQUIRE(at);
        at += strlen(head);
        for (size_t j = 0; j < s->n; j++) {
            double x, y, sd;
            int used = 0;
            REQUIRE(sscanf(at, "%lf %lf %lf\n%n", &x, &y, &sd, &used) == 3 && used > 0);
            const struct row *r = row_k(s->name, j);
            REQUIRE(r);
            CHECK(x == r->x && y == r->y && sd == r->sd); /* both read back exactly */
            at += used;
        }
        CHECK(!strncmp(at, "EOD\n", 4));
    }
    CHECK(strstr(buf, "set key title 'gc_policy' . \"\\n\" . '(mean of seeds, bar ± 1 sd)'"));
    /* The models blow up towards u = 1: the y axis stops at 1.6 times the
     * highest mean + sd, so that they do not squash the measurements. */
    double top = 0, model = 0;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].n)
            top = fmax(top, rows[i].y + rows[i].sd);
        else
            model = fmax(model, rows[i].y);
    REQUIRE(model > 1.6 * top);
    char want[64];
    snprintf(want, sizeof want, "\nset yrange [1:%.17g]\n", 1.6 * top);
    CHECK(strstr(buf, want) != NULL);
    free(buf);
    plot_free(&p);
}

TEST(wa_time_means_and_sds_of_the_kth_samples)
{
    struct plot p = {0};
    struct plot_filter f = {.facet = "none"};
    REQUIRE(plot_wa_time(db, &f, &p) == 0);
    REQUIRE(read_table(&p) == 0);
    CHECK_EQ_INT(p.nseries, NPOL * NFILL);
    REQUIRE(p.key_title && !strcmp(p.key_title, "gc_policy, fill"));
    for (int q = 0; q < NPOL; q++)
        for (int fi = 0; fi < NFILL; fi++) {
            char name[64];
            name_of(name, sizeof name, q, fi);
            int most = 0;
            for (int s = 0; s < nseeds(q, fi); s++)
                most = runs[q][fi][s].nsamp > most ? runs[q][fi][s].nsamp : most;
            CHECK_EQ_INT(rows_of(name), most);
            for (int k = 0; k < most; k++) {
                /* the k-th samples of the seeds that have one */
                struct stat_acc a = {0}, x = {0};
                for (int s = 0; s < nseeds(q, fi); s++)
                    if (k < runs[q][fi][s].nsamp) {
                        acc_add(&a, runs[q][fi][s].wa[k]);
                        acc_add(&x, runs[q][fi][s].host[k]);
                    }
                char what[96];
                snprintf(what, sizeof what, "%s, sample %d", name, k);
                check_point(what, row_k(name, (size_t)k), x.mean, &a);
            }
        }
    plot_free(&p);
}

/* The blocks of run u with erase count x (hist), or at most x (cdf). */
static double blocks_at(const struct run *u, double x, int cumulative)
{
    int n = 0;
    for (int b = 0; b < NB; b++)
        n += cumulative ? u->erases[b] <= x : u->erases[b] == x;
    return n;
}

TEST(erase_hist_and_cdf_means_and_sds)
{
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int q = 0; q < NPOL; q++)
        for (int fi = 0; fi < NFILL; fi++)
            for (int s = 0; s < nseeds(q, fi); s++)
                for (int b = 0; b < NB; b++) {
                    lo = runs[q][fi][s].erases[b] < lo ? runs[q][fi][s].erases[b] : lo;
                    hi = runs[q][fi][s].erases[b] > hi ? runs[q][fi][s].erases[b] : hi;
                }
    struct plot p = {0};
    struct plot_filter f = {.facet = "none"};
    /* erase-hist: every count from the lowest to the highest is a bin
     * (they span under 60), each the seeds' mean number of blocks */
    REQUIRE(plot_erase_hist(db, &f, &p) == 0);
    REQUIRE(read_table(&p) == 0);
    CHECK(p.bin_width == 1);
    for (int q = 0; q < NPOL; q++)
        for (int fi = 0; fi < NFILL; fi++) {
            char name[64];
            name_of(name, sizeof name, q, fi);
            CHECK_EQ_INT(rows_of(name), hi - lo + 1);
            for (uint32_t x = lo; x <= hi; x++) {
                struct stat_acc a = {0};
                for (int s = 0; s < nseeds(q, fi); s++)
                    acc_add(&a, blocks_at(&runs[q][fi][s], x, 0));
                char what[96];
                snprintf(what, sizeof what, "hist %s at %u", name, x);
                check_point(what, row_k(name, x - lo), x, &a);
            }
        }
    plot_free(&p);
    /* erase-cdf: at every count some seed of the setting has, the seeds'
     * mean fraction of blocks with at most that many erases */
    REQUIRE(plot_erase_cdf(db, &f, &p) == 0);
    REQUIRE(read_table(&p) == 0);
    for (int q = 0; q < NPOL; q++)
        for (int fi = 0; fi < NFILL; fi++) {
            char name[64];
            name_of(name, sizeof name, q, fi);
            size_t k = 0;
            for (uint32_t x = lo; x <= hi; x++) {
                int some = 0;
                for (int s = 0; s < nseeds(q, fi); s++)
                    some |= blocks_at(&runs[q][fi][s], x, 0) > 0;
                if (!some)
                    continue;
                struct stat_acc a = {0};
                for (int s = 0; s < nseeds(q, fi); s++)
                    acc_add(&a, blocks_at(&runs[q][fi][s], x, 1) / NB);
                char what[96];
                snprintf(what, sizeof what, "cdf %s at %u", name, x);
                check_point(what, row_k(name, k++), x, &a);
            }
            CHECK_EQ_INT(rows_of(name), k);
            const struct row *last = row_k(name, k - 1);
            CHECK(last && last->y == 1 && last->sd == 0);
        }
    plot_free(&p);
}

TEST(series_never_named_by_run)
{
    /* Automatic panels (9 settings > 8): by fill, the last of the keys with
     * the fewest values; every name from the keys, in the key once. */
    struct plot p = {0};
    struct plot_filter f = {0};
    REQUIRE(plot_erase_cdf(db, &f, &p) == 0);
    REQUIRE(p.facet && !strcmp(p.facet, "fill"));
    CHECK_EQ_INT(p.npanels, NFILL);
    for (size_t i = 0; i < p.nseries; i++) {
        CHECK(strncmp(p.series[i].name, "run ", 4) != 0);
        CHECK(p.series[i].legend && strstr(p.series[i].name, p.series[i].legend) ==
                                        p.series[i].name);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    REQUIRE(fp);
    plot_write_script(fp, &p, "set terminal svg");
    fclose(fp);
    /* the key column says what the bands are, as the title does */
    const char *col = strstr(buf, "set key inside");
    REQUIRE(col);
    CHECK(strstr(col, "set key title 'gc_policy' . \"\\n\" . '(bands: ± 1 sd)'"));
    CHECK(strstr(buf, "set multiplot title 'Wear: CDF of the blocks'' erase counts, "
                      "by fill (mean of seeds, band ± 1 sd)'"));
    for (int q = 0; q < NPOL; q++) {
        char entry[64];
        snprintf(entry, sizeof entry, "title '%s'", pol[q]);
        const char *a = strstr(buf, entry);
        CHECK(a && !strstr(a + 1, entry)); /* once: one entry per name */
    }
    free(buf);
    plot_free(&p);
    /* wa-util in a panel per policy: the models beside every panel's runs */
    f.facet = "fs.gc_policy";
    REQUIRE(plot_wa_util(db, &f, &p) == 0);
    CHECK_EQ_INT(p.npanels, NPOL);
    fp = open_memstream(&buf, &len);
    REQUIRE(fp);
    plot_write_script(fp, &p, "set terminal svg");
    fclose(fp);
    for (size_t i = 0; i < p.nseries; i++) {
        char use[32];
        snprintf(use, sizeof use, "$D%zu using", i);
        int drawn = 0;
        for (const char *a = buf; (a = strstr(a, use)); a++)
            drawn++;
        if (p.series[i].style == PLOT_DASHED) {
            CHECK(p.series[i].panel == PLOT_ALL_PANELS);
            CHECK_EQ_INT(drawn, NPOL);
        } else {
            CHECK(p.series[i].panel < NPOL);
            CHECK_EQ_INT(drawn, 1);
        }
    }
    free(buf);
    plot_free(&p);
    /* --by fs.gc_policy: the fills (and seeds) of a policy averaged together */
    f.by = "fs.gc_policy";
    f.facet = "none";
    REQUIRE(plot_wa_util(db, &f, &p) == 0);
    const struct plot_series *g = plot_find_series(&p, "greedy");
    REQUIRE(g);
    CHECK_EQ_INT(g->n, NFILL);
    plot_free(&p);
}

TEST(twelve_series_are_distinct)
{
    /* One swept key with 12 values, one run each, on one plot: every
     * series differs from the others in colour or dash (Okabe-Ito's 8
     * colours solid, then dashed). */
    char err[512], params[128];
    struct results *r;
    int64_t exp, id;
    const char *path = tmp_path("twelve.db");
    REQUIRE(results_open(path, &r, err, sizeof err) == 0);
    int bad = results_begin_experiment(r, "twelve", NULL, "x\n", NULL, &exp);
    for (int i = 1; i <= 12; i++) {
        snprintf(params, sizeof params, "{\"x\":%d,\"sweep\":{\"x\":%d}}", i, i);
        bad |= results_begin_run(r, exp, i, params, 1, NULL, &id);
        struct results_sample smp = {.seq = 0, .host_bytes = 1 << 30, .wa = 1 + i / 10.0};
        bad |= results_add_sample(r, id, &smp);
        bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
    }
    bad |= plot_fixture_steady(results_db(r));
    bad |= results_close(r);
    REQUIRE(!bad);
    sqlite3 *t;
    REQUIRE(plot_open_db(path, &t, err, sizeof err) == 0);
    struct plot p = {0};
    struct plot_filter f = {.facet = "none"};
    REQUIRE(plot_wa_time(t, &f, &p) == 0);
    sqlite3_close(t);
    CHECK_EQ_INT(p.nseries, 12);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    REQUIRE(fp);
    plot_write_script(fp, &p, "set terminal svg");
    fclose(fp);
    plot_free(&p);
    /* linetype N has palette colour (N - 1) % 8: the colour each lc means */
    char rgb[49][10] = {{0}};
    for (int n = 1; n <= 48; n++) {
        char want[40];
        snprintf(want, sizeof want, "set linetype %d lc rgb '", n);
        const char *a = strstr(buf, want);
        REQUIRE(a);
        snprintf(rgb[n], sizeof rgb[n], "%.7s", a + strlen(want));
    }
    char style[12][24];
    for (int i = 1; i <= 12; i++) {
        char want[24];
        snprintf(want, sizeof want, " title '%d'", i);
        const char *end = strstr(buf, want), *a = end;
        REQUIRE(end);
        while (a > buf && strncmp(a, " lc ", 4))
            a--;
        unsigned lc = 0, dt = 1;
        REQUIRE(sscanf(a, " lc %u", &lc) == 1 && lc >= 1 && lc <= 48);
        const char *d = strstr(a, " dt ");
        if (d && d < end)
            REQUIRE(sscanf(d, " dt %u", &dt) == 1);
        snprintf(style[i - 1], sizeof style[i - 1], "%s/%u", rgb[lc], dt);
    }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < i; j++)
            CHECK(strcmp(style[i], style[j]) != 0);
    free(buf);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (plot_test_open("plotmeans", "irregular.db", make_db, &db))
        return 1;
    RUN(wa_util_means_and_sds);
    RUN(wa_time_means_and_sds_of_the_kth_samples);
    RUN(erase_hist_and_cdf_means_and_sds);
    RUN(series_never_named_by_run);
    RUN(twelve_series_are_distinct);
    sqlite3_close(db);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

/*
 * plot_data.c -- the data series of each plot kind, queried from the
 * results database; and the plain-text table behind a plot.  The SQL here
 * is what docs/plots.md shows: keep them in step.
 */
#include "plot_impl.h"

#include "gc_model.h"
#include "results.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define HIST_BINS 60  /* at most this many erase-count bins */

static const struct {
    const char *name, *help, *needs;
} kinds[PLOT_KIND_COUNT] = {
    [PLOT_ERASE_HIST] = {"erase-hist", "blocks per erase count, last snapshot of each run",
                         "erase_counts rows"},
    [PLOT_ERASE_CDF] = {"erase-cdf", "fraction of blocks with at most x erases (CDF)",
                        "erase_counts rows"},
    [PLOT_WA_UTIL] = {"wa-util", "steady-state data WA (--wa) against measured utilisation, "
                      "models where they apply",
                      "complete runs of schema 3 with kv utilisation and wa_steady\n"
                      "              (--wa total-steady: wa_total_steady; cumulative: samples)"},
    [PLOT_WA_TIME] = {"wa-time", "WA against host data written (--x time: sim time)",
                      "samples rows"},
    [PLOT_MOUNT_SIZE] = {"mount-size", "mean mount latency against device size, log-log",
                         "mounts rows (a line per fs_kind; dashed: after a\n"
                         "              power cut)"},
    [PLOT_LIFETIME] = {"lifetime", "host data written until wear-out, per group",
                       "kv lifetime_host_bytes, or complete runs with kv\n"
                       "              stop_reason 'wear-out' and samples"},
};

int plot_kind_find(const char *name)
{
    for (int k = 0; k < PLOT_KIND_COUNT; k++)
        if (!strcmp(name, kinds[k].name))
            return k;
    return -1;
}

const char *plot_kind_name(enum plot_kind k)
{
    return k < PLOT_KIND_COUNT ? kinds[k].name : "?";
}

const char *plot_kind_help(enum plot_kind k)
{
    return k < PLOT_KIND_COUNT ? kinds[k].help : "?";
}

const char *plot_kind_needs(enum plot_kind k)
{
    return k < PLOT_KIND_COUNT ? kinds[k].needs : "?";
}

/* ---- the plot and its series -------------------------------------------- */

int plot_fail(struct plot *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
    return -1;
}

void plot_free(struct plot *p)
{
    for (size_t i = 0; i < p->nseries; i++) {
        free(p->series[i].name);
        free(p->series[i].legend);
        free(p->series[i].pts);
    }
    free(p->series);
    p->series = NULL;
    p->nseries = p->cap = 0;
    for (size_t i = 0; i < p->npanels; i++)
        free(p->panels[i]);
    free(p->panels);
    p->panels = NULL;
    p->npanels = 0;
    free(p->key_title);
    free(p->facet);
    free(p->subtitle);
    free(p->notes);
    p->key_title = p->facet = p->subtitle = p->notes = NULL;
}

void plot_reset(struct plot *p, enum plot_kind kind)
{
    plot_free(p);
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->xdiv = p->ydiv = 1;
}

struct plot_series *plot_series_new(struct plot *p, const char *name, enum plot_style st)
{
    if (p->nseries == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        struct plot_series *v = realloc(p->series, cap * sizeof *v);
        if (!v)
            return NULL;
        p->series = v;
        p->cap = cap;
    }
    struct plot_series *s = &p->series[p->nseries];
    *s = (struct plot_series){.name = strdup(name), .style = st};
    if (!s->name)
        return NULL;
    p->nseries++;
    return s;
}

const struct plot_series *plot_find_series(const struct plot *p, const char *name)
{
    for (size_t i = 0; i < p->nseries; i++)
        if (!strcmp(p->series[i].name, name))
            return &p->series[i];
    return NULL;
}

/* The series called name, made if missing (groups keep first-seen order). */
static struct plot_series *series_get(struct plot *p, const char *name, enum plot_style st)
{
    for (size_t i = 0; i < p->nseries; i++)
        if (!strcmp(p->series[i].name, name))
            return &p->series[i];
    return plot_series_new(p, name, st);
}

static int point_add(struct plot_series *s, double x, double y)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct plot_point *v = realloc(s->pts, cap * sizeof *v);
        if (!v)
            return -1;
        s->pts = v;
        s->cap = cap;
    }
    s->pts[s->n++] = (struct plot_point){.x = x, .y = y};
    return 0;
}

int plot_by_x(const void *a, const void *b)
{
    double x = ((const struct plot_point *)a)->x, y = ((const struct plot_point *)b)->x;
    return (x > y) - (x < y);
}

/* ---- opening and querying ------------------------------------------------ */

int plot_open_db(const char *path, sqlite3 **db, char *err, size_t errlen)
{
    static const char *const tables[] = {"experiments", "runs", "samples",
                                         "erase_counts", "mounts", "kv"};
    struct stat st;
    *db = NULL;
    /* sqlite would report a missing file only as "unable to open". */
    if (stat(path, &st)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* Read-write (without create) only so that, as the last connection, it
     * removes the -wal and -shm files a read-only one would leave behind;
     * query_only keeps it from writing anything. */
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(*db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open: %s", path, sqlite3_errmsg(*db));
        goto bad;
    }
    sqlite3_busy_timeout(*db, 60000); /* a writer may hold the lock briefly */
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(*db, "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                               "AND name = ?1", -1, &q, NULL) != SQLITE_OK) {
            snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(*db));
            goto bad;
        }
        sqlite3_bind_text(q, 1, tables[i], -1, SQLITE_STATIC);
        int rc = sqlite3_step(q);
        sqlite3_finalize(q);
        if (rc == SQLITE_ROW)
            continue;
        if (rc == SQLITE_DONE)
            snprintf(err, errlen, "%s: not a flashlab results database (no '%s' table)",
                     path, tables[i]);
        else
            snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(*db));
        goto bad;
    }
    return 0;
bad:
    sqlite3_close(*db);
    *db = NULL;
    return -1;
}

/* The selected runs: ?1 the experiments' ids (a JSON array), ?2 run id.
 * Their names come from their params (run_series). */
#define SEL_RUNS                                                                  \
    "WITH sel AS ("                                                               \
    " SELECT r.id, r.status, r.params"                                            \
    " FROM runs r JOIN experiments e ON e.id = r.experiment_id"                   \
    " WHERE (?1 IS NULL OR e.id IN (SELECT value FROM json_each(?1)))"           \
    "  AND (?2 IS NULL OR r.id = ?2)) "

/* Whether s is "[N]" or "[#]" or "[#-N]"; *len gets its length. */
static int index_ok(const char *s, size_t *len)
{
    size_t i = 1;
    if (s[i] == '#' && s[i + 1] == '-' && s[i + 2] != ']')
        i += 2;
    else if (s[i] == '#')
        i++;
    else if (s[i] == ']')
        return 0;
    i += strspn(s + i, "0123456789");
    *len = i + 1;
    return s[i] == ']';
}

/* sqlite checks a JSON path only as far as the data goes, so a typo would
 * quietly give every run the same (missing) label: check it here. */
int plot_by_path(const char *by, char *out, size_t n)
{
    if (!by || !*by)
        return -1;
    if (snprintf(out, n, "%s%s", by[0] == '$' ? "" : "$.", by) >= (int)n)
        return -1;
    for (const char *s = out + 1; *s;) {
        size_t len = 0;
        if (*s == '.')
            len = 1 + strcspn(s + 1, ".[");
        else if (*s != '[' || !index_ok(s, &len))
            return -1;
        if (len < 2)
            return -1;
        s += len;
    }
    return 0;
}

sqlite3_stmt *plot_prepare(sqlite3 *db, const char *sql, const struct plot_filter *f,
                             struct plot *p)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        plot_fail(p, "query failed: %s", sqlite3_errmsg(db));
        return NULL;
    }
    char *ids = NULL; /* --experiment NAME[@HASH] as the experiments' ids */
    if (results_select_experiments(db, f->experiment, &ids, p->err, sizeof p->err)) {
        sqlite3_finalize(q);
        return NULL;
    }
    if (ids)
        sqlite3_bind_text(q, 1, ids, -1, SQLITE_TRANSIENT);
    free(ids);
    if (f->run_id)
        sqlite3_bind_int64(q, 2, f->run_id);
    if (sqlite3_bind_parameter_count(q) >= 3) /* wa-time: ?3 picks the x; wa-util the y */
        sqlite3_bind_int(q, 3, p->kind == PLOT_WA_UTIL ? f->wa : f->x_time != 0);
    return q;
}

sqlite3_stmt *plot_prepare_over(sqlite3 *db, const char *fmt, const char *runs_sql,
                                const struct plot_filter *f, struct plot *p)
{
    size_t n = strlen(fmt) + strlen(runs_sql) + 1;
    char *sql = malloc(n);
    if (!sql) {
        plot_fail(p, "out of memory");
        return NULL;
    }
    snprintf(sql, n, fmt, runs_sql);
    sqlite3_stmt *q = plot_prepare(db, sql, f, p);
    free(sql);
    return q;
}

/* Step q; 1 for a row, 0 at the end, -1 on error (in p->err). */
int plot_step(sqlite3 *db, sqlite3_stmt *q, struct plot *p)
{
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return plot_fail(p, "query failed: %s", sqlite3_errmsg(db));
}

static int is_number(sqlite3_stmt *q, int col)
{
    int t = sqlite3_column_type(q, col);
    return t == SQLITE_INTEGER || t == SQLITE_FLOAT;
}

static const char *scope(const struct plot_filter *f)
{
    return f->experiment || f->run_id ? "for the selected runs" : "in the database";
}

const char *plot_text(sqlite3_stmt *q, int col, const char *dflt)
{
    const unsigned char *s = sqlite3_column_text(q, col);
    return s ? (const char *)s : dflt;
}

/* ---- rows into series ------------------------------------------------------ */

/* The usual columns: run id, params, x, y. */
static int read_point(sqlite3_stmt *q, struct row *r, void *arg)
{
    (void)arg;
    r->run = sqlite3_column_int64(q, 0);
    r->name = plot_text(q, 1, "{}");
    r->x = sqlite3_column_double(q, 2);
    r->y = sqlite3_column_double(q, 3);
    return 0;
}

/* The same, leaving out rows whose x is not a number ("utilisation": "high"). */
static int read_numeric_x(sqlite3_stmt *q, struct row *r, void *arg)
{
    return is_number(q, 2) ? read_point(q, r, arg) : 1;
}

int plot_point_add_n(struct plot_series *s, double x, double y, double sd, unsigned n)
{
    if (point_add(s, x, y))
        return -1;
    s->pts[s->n - 1].sd = sd;
    s->pts[s->n - 1].n = n;
    return 0;
}

/* Run sql over the selected runs (f) and append each row that read takes
 * to the series of its name in p (new series get style).  mount-size.
 * 0, or -1 with p->err. */
static int query_series(sqlite3 *db, const char *sql, const struct plot_filter *f,
                        struct plot *p, enum plot_style style, row_reader read, void *arg)
{
    struct plot_series *s = NULL;
    int rc;
    sqlite3_stmt *q = plot_prepare(db, sql, f, p);
    if (!q)
        return -1;
    while ((rc = plot_step(db, q, p)) == 1) {
        struct row r = {.style = style};
        if (read(q, &r, arg))
            continue;
        if (!(s = series_get(p, r.name, r.style)) || plot_point_add_n(s, r.x, r.y, 0, 1))
            break;
        if (r.colour)
            s->colour = r.colour;
    }
    sqlite3_finalize(q);
    if (rc == 1)
        rc = plot_fail(p, "out of memory");
    return rc;
}

/* ---- erase-hist and erase-cdf --------------------------------------------- */

#define SQL_ERASE                                                                 \
    SEL_RUNS                                                                      \
    "SELECT s.id, s.params, c.erases, count(*) FROM sel s"                        \
    " JOIN erase_counts c ON c.run_id = s.id"                                     \
    " WHERE c.seq = (SELECT max(seq) FROM erase_counts WHERE run_id = s.id)"      \
    " GROUP BY s.id, c.erases ORDER BY s.id, c.erases"

/* Common bins over all runs, at most HIST_BINS, every one listed (zeros
 * too) so that the steps of the runs line up (and seeds average bin by bin). */
static int erase_bins(struct plot *raw, struct plot *p)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < raw->nseries; i++)
        for (size_t j = 0; j < raw->series[i].n; j++) {
            lo = fmin(lo, raw->series[i].pts[j].x);
            hi = fmax(hi, raw->series[i].pts[j].x);
        }
    double w = fmax(1, ceil((hi - lo + 1) / HIST_BINS));
    size_t nb = (size_t)floor((hi - lo) / w) + 1;
    p->bin_width = w;
    for (size_t i = 0; i < raw->nseries; i++) {
        struct plot_series *s = &raw->series[i];
        struct plot_point *v = calloc(nb, sizeof *v);
        if (!v)
            return plot_fail(p, "out of memory");
        for (size_t b = 0; b < nb; b++)
            v[b] = (struct plot_point){.x = lo + (double)b * w, .n = 1};
        for (size_t j = 0; j < s->n; j++)
            v[(size_t)floor((s->pts[j].x - lo) / w)].y += s->pts[j].y;
        free(s->pts);
        s->pts = v;
        s->n = s->cap = nb;
    }
    return 0;
}

/* Each run's counts as the fraction of its blocks with at most x erases. */
static int erase_cumulate(struct plot *raw, struct plot *p)
{
    (void)p;
    for (size_t i = 0; i < raw->nseries; i++) {
        struct plot_series *s = &raw->series[i];
        double total = 0, cum = 0;
        for (size_t j = 0; j < s->n; j++)
            total += s->pts[j].y;
        for (size_t j = 0; j < s->n; j++) {
            cum += s->pts[j].y; /* integers: exact, so the last is 1 */
            s->pts[j].y = cum / total;
        }
    }
    return 0;
}

/* One series per setting: (erase count, blocks) at the runs' last snapshot. */
static int erase_rows(sqlite3 *db, const struct plot_filter *f, struct plot *p,
                      int (*prep)(struct plot *, struct plot *), enum agg mode)
{
    if (plot_run_series(db, SQL_ERASE, f, p, PLOT_STEPS, read_point, prep, NULL, mode))
        return -1;
    if (!p->nseries)
        return plot_fail(p, "no erase_counts rows %s: run an experiment with erase snapshots",
                    scope(f));
    return 0;
}

int plot_erase_hist(sqlite3 *db, const struct plot_filter *f, struct plot *p)
{
    plot_reset(p, PLOT_ERASE_HIST);
    p->title = "Wear: erase counts of the blocks";
    p->xlabel = "erase count (erases per block)";
    p->ylabel = "blocks";
    p->xdata = "erase count (lowest of the bin)";
    p->ydata = "blocks in the bin";
    return erase_rows(db, f, p, erase_bins, AGG_X);
}

int plot_erase_cdf(sqlite3 *db, const struct plot_filter *f, struct plot *p)
{
    plot_reset(p, PLOT_ERASE_CDF);
    p->title = "Wear: CDF of the blocks' erase counts";
    p->xlabel = "erase count (erases per block)";
    p->ylabel = "fraction of blocks with at most x erases";
    p->xdata = "erase count";
    p->ydata = "fraction of blocks <= x";
    return erase_rows(db, f, p, erase_cumulate, AGG_STEP);
}

/* ---- wa-util ---------------------------------------------------------------- */

/* x: the run's measured utilisation; y: the WA of ?3 (PLOT_WA_*) */
#define SQL_WA_UTIL                                                               \
    SEL_RUNS                                                                      \
    "SELECT * FROM (SELECT s.id, s.params,"                                       \
    "  (SELECT value FROM kv WHERE run_id = s.id AND key = 'utilisation') AS u,"  \
    "  CASE ?3 WHEN 0 THEN (SELECT value FROM kv WHERE run_id = s.id"             \
    "                       AND key = 'wa_steady')"                               \
    "          WHEN 1 THEN (SELECT value FROM kv WHERE run_id = s.id"             \
    "                       AND key = 'wa_total_steady')"                         \
    "  ELSE (SELECT wa FROM samples WHERE run_id = s.id AND wa IS NOT NULL"       \
    "        ORDER BY seq DESC LIMIT 1) END AS wa"                                \
    " FROM sel s WHERE s.status = 'complete')"                                    \
    " WHERE u IS NOT NULL AND wa IS NOT NULL ORDER BY id"

int plot_wa_kind(const char *name)
{
    static const char *const names[] = {"steady", "total-steady", "cumulative", "interval"};
    for (int i = 0; name && i < 4; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

int plot_wa_util(sqlite3 *db, const struct plot_filter *f, struct plot *p)
{
    plot_reset(p, PLOT_WA_UTIL);
    static const char *const ylabels[] = {
        "steady-state data WA (data pages / host pages)",
        "steady-state total WA (all pages / host pages)",
        "cumulative total WA (all pages / host pages)",
    };
    static const char *const ydata[] = {"wa_steady: steady-state data WA (ratio)",
                                        "wa_total_steady: steady-state total WA (ratio)",
                                        "wa: cumulative total WA (ratio)"};
    int wa = f->wa >= 0 && f->wa <= PLOT_WA_CUMULATIVE ? f->wa : PLOT_WA_STEADY;
    p->title = "Write amplification against utilisation";
    p->xlabel = "measured utilisation (live data / cleanable capacity)";
    p->ylabel = ylabels[wa];
    p->xdata = "utilisation (fraction, measured)";
    p->ydata = ydata[wa];
    /* the x keys: the settings that set the utilisation, not series names */
    static const char *const xkeys[] = {"$.utilisation", "$.workload.fill",
                                        "$.workload.utilisation", "$.spare", NULL};
    if (plot_run_series(db, SQL_WA_UTIL, f, p, PLOT_LINESPOINTS, read_numeric_x, NULL, xkeys,
                        AGG_X_NEAR))
        return -1;
    if (!p->nseries)
        return plot_fail(p, "no complete runs with a measured utilisation and a %s %s "
                         "(runs of results schema 3 on a kind that reports its cleanable "
                         "capacity; --wa cumulative if no window settled)",
                         wa == PLOT_WA_CUMULATIVE ? "WA" : wa ? "wa_total_steady" : "wa_steady",
                         scope(f));
    double umin = INFINITY, umax = -INFINITY;
    for (size_t i = 0; i < p->nseries; i++) {
        struct plot_series *s = &p->series[i];
        qsort(s->pts, s->n, sizeof *s->pts, plot_by_x);
        umin = fmin(umin, s->pts[0].x);
        umax = fmax(umax, s->pts[s->n - 1].x);
    }
    /* The models blow up towards u = 1: draw them over the usual range. */
    double lo = fmax(0.05, fmin(0.5, umin)), hi = fmin(0.98, fmax(0.95, umax));
    return plot_add_models(db, SQL_WA_UTIL, f, p, lo, hi);
}

/* ---- wa-time ----------------------------------------------------------------- */

/* y: the samples' column WA (wa, cumulative, or wa_interval) */
#define SQL_WA_TIME(WA)                                                           \
    SEL_RUNS                                                                      \
    "SELECT s.id, s.params, CASE WHEN ?3 THEN x.sim_time_ns ELSE x.host_bytes END,"\
    " x." WA " FROM sel s JOIN samples x ON x.run_id = s.id"                      \
    " WHERE x." WA " IS NOT NULL ORDER BY s.id, x.seq"

int plot_wa_time(sqlite3 *db, const struct plot_filter *f, struct plot *p)
{
    plot_reset(p, PLOT_WA_TIME);
    int interval = f->wa == PLOT_WA_INTERVAL;
    p->title = "Write amplification over the run";
    p->ylabel = interval ? "interval data WA (data pages / host pages)"
                         : "cumulative total WA (all pages / host pages)";
    p->ydata = interval ? "wa_interval: data WA since the previous sample (ratio)"
                        : "wa: cumulative total WA (ratio)";
    if (f->x_time) {
        p->xlabel = "simulated time (s)";
        p->xdata = "sim_time_ns (ns)";
        p->xdiv = 1e9;
    } else {
        p->xlabel = "host data written (GiB)";
        p->xdata = "host_bytes (bytes)";
        p->xdiv = 1073741824.0;
    }
    if (plot_run_series(db, interval ? SQL_WA_TIME("wa_interval") : SQL_WA_TIME("wa"), f, p,
                        PLOT_LINES, read_point, NULL, NULL, AGG_INDEX))
        return -1;
    if (!p->nseries)
        return plot_fail(p, "no samples rows with a %s %s: run an experiment that samples%s",
                         interval ? "wa_interval" : "WA", scope(f),
                         interval ? " (results schema 3, a kind that counts data pages)" : "");
    return 0;
}

/* ---- mount-size -------------------------------------------------------------- */

#define SQL_MOUNT_SIZE                                                            \
    SEL_RUNS                                                                      \
    "SELECT coalesce(m.fs_kind, 'unknown'), coalesce(m.clean, 1), m.device_bytes,"\
    " avg(m.sim_latency_ns) FROM sel s JOIN mounts m ON m.run_id = s.id"          \
    " WHERE m.device_bytes > 0 AND m.sim_latency_ns > 0"                          \
    " GROUP BY 1, 2, 3 ORDER BY 1, 2 DESC, 3"

/* Series names "KIND" and "KIND (after power cut)", one colour per fs_kind
 * (the rows come sorted by it), the power-cut ones dashed. */
struct mount_rows {
    char kind[256], name[256];
    unsigned colour;
};

static int read_mount(sqlite3_stmt *q, struct row *r, void *arg)
{
    struct mount_rows *m = arg;
    const char *kind = plot_text(q, 0, "unknown");
    int clean = sqlite3_column_int(q, 1);
    if (!m->colour || strncmp(kind, m->kind, sizeof m->kind - 1)) {
        snprintf(m->kind, sizeof m->kind, "%s", kind);
        m->colour++;
    }
    snprintf(m->name, sizeof m->name, "%s%s", kind, clean ? "" : " (after power cut)");
    r->name = m->name;
    r->style = clean ? PLOT_LINESPOINTS : PLOT_DASHED_POINTS;
    r->colour = m->colour;
    r->x = sqlite3_column_double(q, 2);
    r->y = sqlite3_column_double(q, 3);
    return 0;
}

int plot_mount_size(sqlite3 *db, const struct plot_filter *f, struct plot *p)
{
    struct mount_rows m = {.colour = 0};
    plot_reset(p, PLOT_MOUNT_SIZE);
    p->title = "Mount time against device size";
    p->xlabel = "device size"; /* the tics name the sizes */
    p->ylabel = "mount latency (ms, simulated)";
    p->xdata = "device_bytes (bytes)";
    p->ydata = "mean sim_latency_ns (ns)";
    p->xdiv = 1048576.0;
    p->ydiv = 1e6;
    p->logx = p->logy = 1;
    if (query_series(db, SQL_MOUNT_SIZE, f, p, PLOT_LINESPOINTS, read_mount, &m))
        return -1;
    if (!p->nseries)
        return plot_fail(p, "no mounts rows %s (with device_bytes and sim_latency_ns > 0): "
                    "run a mount experiment", scope(f));
    return 0;
}

/* ---- lifetime ------------------------------------------------------------------ */

#define SQL_LIFETIME                                                              \
    SEL_RUNS                                                                      \
    "SELECT * FROM (SELECT s.id, s.params, coalesce("                             \
    "  (SELECT value FROM kv WHERE run_id = s.id AND key = 'lifetime_host_bytes'),"\
    "  CASE WHEN s.status = 'complete' AND (SELECT value FROM kv"                 \
    "   WHERE run_id = s.id AND key = 'stop_reason') = 'wear-out'"                \
    "  THEN (SELECT host_bytes FROM samples WHERE run_id = s.id"                  \
    "   ORDER BY seq DESC LIMIT 1) END) AS life FROM sel s)"                      \
    " WHERE life IS NOT NULL ORDER BY id"

/* A lifetime in column 2 is y; x is set to the group's number afterwards. */
static int read_lifetime(sqlite3_stmt *q, struct row *r, void *arg)
{
    (void)arg;
    if (!is_number(q, 2))
        return 1; /* a text kv value is no byte count */
    r->run = sqlite3_column_int64(q, 0);
    r->name = plot_text(q, 1, "{}");
    r->y = sqlite3_column_double(q, 2);
    return 0;
}

int plot_lifetime(sqlite3 *db, const struct plot_filter *f, struct plot *p)
{
    plot_reset(p, PLOT_LIFETIME);
    p->title = "Lifetime: host data written until wear-out";
    p->xlabel = "";
    p->ylabel = "host data written until wear-out (GiB)";
    p->xdata = "group number (1, 2, ... in legend order)";
    p->ydata = "host bytes (bytes)";
    p->ydiv = 1073741824.0;
    if (plot_run_series(db, SQL_LIFETIME, f, p, PLOT_BARS, read_lifetime, NULL, NULL, AGG_NONE))
        return -1;
    if (!p->nseries)
        return plot_fail(p, "no wear-out lifetimes %s: need kv 'lifetime_host_bytes', or a "
                    "complete run with kv stop_reason 'wear-out' and samples", scope(f));
    for (size_t i = 0; i < p->nseries; i++)
        for (size_t j = 0; j < p->series[i].n; j++)
            p->series[i].pts[j].x = (double)i + 1;
    return 0;
}

int plot_build(sqlite3 *db, enum plot_kind kind, const struct plot_filter *f, struct plot *p)
{
    static int (*const build[PLOT_KIND_COUNT])(sqlite3 *, const struct plot_filter *,
                                              struct plot *) = {
        [PLOT_ERASE_HIST] = plot_erase_hist, [PLOT_ERASE_CDF] = plot_erase_cdf,
        [PLOT_WA_UTIL] = plot_wa_util,       [PLOT_WA_TIME] = plot_wa_time,
        [PLOT_MOUNT_SIZE] = plot_mount_size, [PLOT_LIFETIME] = plot_lifetime,
    };
    if (kind >= PLOT_KIND_COUNT) {
        plot_reset(p, PLOT_ERASE_HIST);
        return plot_fail(p, "unknown plot kind %d", (int)kind);
    }
    return build[kind](db, f, p) || plot_describe(db, SEL_RUNS "SELECT id FROM sel", f, p)
               ? -1
               : 0;
}

/* ---- the data table ------------------------------------------------------------ */

/* The shortest of %.15g..%.17g that reads back as v (so tables are exact). */
static void put_num(FILE *fp, double v)
{
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, fp);
}

/* A series name as one table field: no tabs or line breaks. */
static void put_name(FILE *fp, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

int plot_write_data(const struct plot *p, const char *path, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(fp, "# flashlab plot %s: %s\n", plot_kind_name(p->kind), p->title);
    if (p->subtitle)
        fprintf(fp, "# %s\n", p->subtitle);
    for (const char *l = p->notes; l && *l; l += strcspn(l, "\n") + 1)
        fprintf(fp, "# %.*s\n", (int)strcspn(l, "\n"), l);
    fprintf(fp, "# x: %s; y: %s\n", p->xdata, p->ydata);
    if (p->bin_width > 0) {
        fputs("# bin width (erase counts): ", fp);
        put_num(fp, p->bin_width);
        fputc('\n', fp);
    }
    if (p->key_title)
        fprintf(fp, "# series named by: %s\n", p->key_title);
    if (p->npanels)
        fprintf(fp, "# panels by: %s (the last part of the series name)\n", p->facet);
    if (p->spread)
        fputs("# y: the mean of the n runs of a setting (seeds, repetitions); sd: their "
              "sample standard deviation (n - 1); n 0: a model\n# series\tx\ty\tsd\tn\n",
              fp);
    else
        fputs("# series\tx\ty\n", fp);
    for (size_t i = 0; i < p->nseries; i++)
        for (size_t j = 0; j < p->series[i].n; j++) {
            const struct plot_point *q = &p->series[i].pts[j];
            put_name(fp, p->series[i].name);
            fputc('\t', fp);
            put_num(fp, q->x);
            fputc('\t', fp);
            put_num(fp, q->y);
            if (p->spread) {
                fputc('\t', fp);
                put_num(fp, q->sd);
                fprintf(fp, "\t%u", q->n);
            }
            fputc('\n', fp);
        }
    int bad = ferror(fp);
    if (fclose(fp) || bad) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

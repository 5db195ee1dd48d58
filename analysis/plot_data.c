/*
 * plot_data.c -- the data series of each plot kind, queried from the
 * results database; and the plain-text table behind a plot.  The SQL here
 * is what docs/plots.md shows: keep them in step.
 */
#include "plot.h"

#include "gc_model.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_NP 64 /* pages per block for the greedy model */
#define HIST_BINS 60  /* at most this many erase-count bins */

static const struct {
    const char *name, *help, *needs;
} kinds[PLOT_KIND_COUNT] = {
    [PLOT_ERASE_HIST] = {"erase-hist", "blocks per erase count, last snapshot of each run",
                         "erase_counts rows"},
    [PLOT_ERASE_CDF] = {"erase-cdf", "fraction of blocks with at most x erases (CDF)",
                        "erase_counts rows"},
    [PLOT_WA_UTIL] = {"wa-util", "final WA against utilisation, greedy + FIFO models",
                      "complete runs, samples, params utilisation (or\n"
                      "              workload.fill, or spare)"},
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

static int fail(struct plot *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct plot *p, const char *fmt, ...)
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
    p->key_title = p->facet = NULL;
}

static void plot_reset(struct plot *p, enum plot_kind kind)
{
    plot_free(p);
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->xdiv = p->ydiv = 1;
}

static struct plot_series *series_new(struct plot *p, const char *name, enum plot_style st)
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
    return series_new(p, name, st);
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

static int by_x(const void *a, const void *b)
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

/* The selected runs: ?1 experiment name, ?2 run id.  Their names come
 * from their params (run_series). */
#define SEL_RUNS                                                                  \
    "WITH sel AS ("                                                               \
    " SELECT r.id, r.status, r.params"                                            \
    " FROM runs r JOIN experiments e ON e.id = r.experiment_id"                   \
    " WHERE (?1 IS NULL OR e.name = ?1) AND (?2 IS NULL OR r.id = ?2)) "

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

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql, const struct plot_filter *f,
                             struct plot *p)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        fail(p, "query failed: %s", sqlite3_errmsg(db));
        return NULL;
    }
    if (f->experiment)
        sqlite3_bind_text(q, 1, f->experiment, -1, SQLITE_STATIC);
    if (f->run_id)
        sqlite3_bind_int64(q, 2, f->run_id);
    if (sqlite3_bind_parameter_count(q) >= 3) /* wa-time: ?3 picks the x */
        sqlite3_bind_int(q, 3, f->x_time != 0);
    return q;
}

/* Step q; 1 for a row, 0 at the end, -1 on error (in p->err). */
static int step(sqlite3 *db, sqlite3_stmt *q, struct plot *p)
{
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return fail(p, "query failed: %s", sqlite3_errmsg(db));
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

static const char *text(sqlite3_stmt *q, int col, const char *dflt)
{
    const unsigned char *s = sqlite3_column_text(q, col);
    return s ? (const char *)s : dflt;
}

/* ---- rows into series ------------------------------------------------------ */

/* One row of a kind's query. */
struct row {
    int64_t run;          /* run_series: the run (rows come ordered by run) */
    const char *name;     /* query_series: the series' name; run_series: the
                             run's params */
    enum plot_style style; /* for a new series; query_series' style unless set */
    unsigned colour;      /* if not 0, the series' colour */
    double x, y;
};

/* Fills r from the current row of q; 0 to add the point, 1 to leave the
 * row out.  r->name must stay valid until the next row. */
typedef int (*row_reader)(sqlite3_stmt *q, struct row *r, void *arg);

/* The usual columns: run id, params, x, y. */
static int read_point(sqlite3_stmt *q, struct row *r, void *arg)
{
    (void)arg;
    r->run = sqlite3_column_int64(q, 0);
    r->name = text(q, 1, "{}");
    r->x = sqlite3_column_double(q, 2);
    r->y = sqlite3_column_double(q, 3);
    return 0;
}

/* The same, leaving out rows whose x is not a number ("utilisation": "high"). */
static int read_numeric_x(sqlite3_stmt *q, struct row *r, void *arg)
{
    return is_number(q, 2) ? read_point(q, r, arg) : 1;
}

static int point_add_n(struct plot_series *s, double x, double y, double sd, unsigned n)
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
    sqlite3_stmt *q = prepare(db, sql, f, p);
    if (!q)
        return -1;
    while ((rc = step(db, q, p)) == 1) {
        struct row r = {.style = style};
        if (read(q, &r, arg))
            continue;
        if (!(s = series_get(p, r.name, r.style)) || point_add_n(s, r.x, r.y, 0, 1))
            break;
        if (r.colour)
            s->colour = r.colour;
    }
    sqlite3_finalize(q);
    if (rc == 1)
        rc = fail(p, "out of memory");
    return rc;
}

/* ---- naming runs by their parameters ----------------------------------------- */

/* A growing list of strings. */
struct strs {
    char **v;
    size_t n, cap;
};

static void strs_free(struct strs *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    *l = (struct strs){0};
}

static ssize_t strs_find(const struct strs *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s))
            return (ssize_t)i;
    return -1;
}

/* Append a copy of s (NULL stays NULL); -1 out of memory. */
static int strs_add(struct strs *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    char *c = NULL;
    if (s && !(c = strdup(s)))
        return -1;
    l->v[l->n++] = c;
    return 0;
}

static int strs_add_new(struct strs *l, const char *s)
{
    return strs_find(l, s) >= 0 ? 0 : strs_add(l, s);
}

/* The runs a kind draws, one raw series each, before they are named and
 * grouped. */
struct runs {
    struct plot raw;   /* one series per run, in run order */
    int64_t *ids;
    struct strs params;
    size_t cap;
};

static void runs_free(struct runs *r)
{
    plot_free(&r->raw);
    free(r->ids);
    strs_free(&r->params);
}

/* The key's name in series names: the last component ("fill"). */
static const char *key_short(const char *path)
{
    const char *d = strrchr(path, '.');
    return d && d[1] ? d + 1 : path;
}

/* Whether a path is (in) the runner's own bookkeeping, never a setting. */
static int bookkeeping(const char *path)
{
    return !strcmp(path, "$.seed") || !strcmp(path, "$.repetition") ||
           !strncmp(path, "$.sweep", 7);
}

/* The value of path in params as text (numbers as sqlite prints them),
 * *num set when it is a number; NULL when missing (the caller frees). */
static char *param_value(sqlite3_stmt *v, const char *params, const char *path, int *num)
{
    char *out = NULL;
    sqlite3_reset(v);
    sqlite3_bind_text(v, 1, params, -1, SQLITE_STATIC);
    sqlite3_bind_text(v, 2, path, -1, SQLITE_STATIC);
    *num = 0;
    if (sqlite3_step(v) == SQLITE_ROW && sqlite3_column_type(v, 0) != SQLITE_NULL) {
        const char *t = text(v, 0, "");
        *num = !strcmp(t, "integer") || !strcmp(t, "real");
        out = strdup(text(v, 1, "null"));
    }
    return out;
}

/* A json_tree path with the quotes sqlite puts around keys such as
 * "gc_policy" taken off where the key needs none: $.fs."gc_policy" ->
 * $.fs.gc_policy, as --by spells it. */
static void path_plain(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (const char *s = in; *s && o + 1 < n;) {
        if (s[0] == '.' && s[1] == '"') {
            const char *e = strchr(s + 2, '"');
            size_t len = e ? (size_t)(e - s - 2) : 0;
            if (e && len && strcspn(s + 2, ".[]\" ") >= len) {
                o += (size_t)snprintf(out + o, n - o, ".%.*s", (int)len, s + 2);
                s = e + 1;
                continue;
            }
        }
        out[o++] = *s++;
    }
    out[o < n ? o : n - 1] = 0;
}

/* The leaf paths of the runs' params, in order of first appearance
 * (bookkeeping left out), and the keys they swept ($.sweep's names). */
static int runs_paths(sqlite3 *db, const struct runs *r, struct strs *leaves, struct strs *swept)
{
    sqlite3_stmt *t, *w;
    if (sqlite3_prepare_v2(db, "SELECT fullkey FROM json_tree(?1) WHERE type NOT IN "
                           "('object', 'array') ORDER BY id", -1, &t, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT '$.' || key FROM json_each(?1, '$.sweep')", -1, &w,
                           NULL) != SQLITE_OK) {
        sqlite3_finalize(t);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < r->raw.nseries && !rc; i++) {
        sqlite3_reset(t);
        sqlite3_bind_text(t, 1, r->params.v[i], -1, SQLITE_STATIC);
        while (!rc && sqlite3_step(t) == SQLITE_ROW) {
            char path[512];
            path_plain(text(t, 0, "$"), path, sizeof path);
            if (!bookkeeping(path))
                rc = strs_add_new(leaves, path);
        }
        sqlite3_reset(w);
        sqlite3_bind_text(w, 1, r->params.v[i], -1, SQLITE_STATIC);
        while (!rc && sqlite3_step(w) == SQLITE_ROW)
            rc = strs_add_new(swept, text(w, 0, "$"));
    }
    sqlite3_finalize(t);
    sqlite3_finalize(w);
    return rc;
}

/* Whether path is a leaf or leads to one. */
static int path_known(const struct strs *leaves, const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < leaves->n; i++)
        if (!strncmp(leaves->v[i], path, n) &&
            (!leaves->v[i][n] || leaves->v[i][n] == '.' || leaves->v[i][n] == '['))
            return 1;
    return 0;
}

/* "unknown --by key 'x' (keys of the runs drawn: a, b.c, ...)" as a usage error. */
static int unknown_key(struct plot *p, const char *opt, const char *key,
                       const struct strs *leaves)
{
    size_t len = (size_t)snprintf(p->err, sizeof p->err, "unknown %s key '%s'; the runs drawn "
                                  "have:", opt, key);
    for (size_t i = 0; i < leaves->n && len < sizeof p->err; i++)
        len += (size_t)snprintf(p->err + len, sizeof p->err - len, "%s %s", i ? "," : "",
                                leaves->v[i] + 2);
    p->usage = 1;
    return -1;
}

/* Split a comma-separated --by into checked JSON paths. */
static int by_paths(struct plot *p, const char *by, struct strs *keys)
{
    char path[512];
    for (const char *s = by; *s;) {
        size_t len = strcspn(s, ",");
        char one[512];
        snprintf(one, sizeof one, "%.*s", (int)(len < 511 ? len : 511), s);
        if (plot_by_path(one, path, sizeof path)) {
            p->usage = 1;
            return fail(p, "bad --by path '%s' (a params JSON path such as fs.gc_policy)",
                        by);
        }
        if (strs_add_new(keys, path))
            return fail(p, "out of memory");
        s += len + (s[len] == ',');
        if (!*s && s[-1] == ',') {
            p->usage = 1;
            return fail(p, "bad --by path '%s' (a params JSON path such as fs.gc_policy)",
                        by);
        }
    }
    return 0;
}

/* Of keys, those whose value is not the same in every run (a missing value
 * counts as one). */
static int differing(sqlite3_stmt *v, const struct runs *r, const struct strs *keys,
                     struct strs *out)
{
    for (size_t k = 0; k < keys->n; k++) {
        int num, same = 1;
        char *first = param_value(v, r->params.v[0], keys->v[k], &num);
        for (size_t i = 1; i < r->raw.nseries && same; i++) {
            char *x = param_value(v, r->params.v[i], keys->v[k], &num);
            same = (!x && !first) || (x && first && !strcmp(x, first));
            free(x);
        }
        free(first);
        if (!same && strs_add(out, keys->v[k]))
            return -1;
    }
    return 0;
}

/* Run i's name from keys: one key, its value; several, their values joined
 * by ", ", numbers as "fill=0.8"; no value at all, "run ID".  No keys:
 * fs.gc_policy, else policy, else "run ID". */
static int run_name(sqlite3_stmt *v, const struct runs *r, size_t i, const struct strs *keys,
                    char *out, size_t n)
{
    static const char *const dflt[] = {"$.fs.gc_policy", "$.policy"};
    size_t len = 0;
    int num;
    *out = 0;
    if (!keys->n)
        for (size_t d = 0; d < 2 && !*out; d++) {
            char *x = param_value(v, r->params.v[i], dflt[d], &num);
            if (x)
                snprintf(out, n, "%s", x);
            free(x);
        }
    for (size_t k = 0; k < keys->n && len < n; k++) {
        char *x = param_value(v, r->params.v[i], keys->v[k], &num);
        if (!x)
            continue;
        if (keys->n == 1 || !num)
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ", " : "", x);
        else
            len += (size_t)snprintf(out + len, n - len, "%s%s=%s", len ? ", " : "",
                                    key_short(keys->v[k]), x);
        free(x);
    }
    if (!*out)
        snprintf(out, n, "run %lld", (long long)r->ids[i]);
    return 0;
}

/* How the runs of one setting make one series. */
enum agg {
    AGG_X,     /* the points of equal x: mean and sd (wa-util, erase-hist) */
    AGG_INDEX, /* the k-th points of the runs (wa-time: samples) */
    AGG_STEP,  /* step functions (CDFs) at every x of any run */
    AGG_NONE,  /* every run's points as they are (lifetime) */
};

static int by_x(const void *a, const void *b);

/* Mean and sample standard deviation of v[0..n). */
static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
    double sum = 0, dev = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    *mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        dev += (v[i] - *mean) * (v[i] - *mean);
    *sd = n > 1 ? sqrt(dev / (double)(n - 1)) : 0;
}

/* The step function s (sorted by x) at x: its y at the last point <= x. */
static double step_at(const struct plot_series *s, double x)
{
    double y = 0;
    for (size_t j = 0; j < s->n && s->pts[j].x <= x; j++)
        y = s->pts[j].y;
    return y;
}

/* Make out from the raw series of the runs m[0..nm). */
static int aggregate(const struct plot *raw, const size_t *m, size_t nm, enum agg mode,
                     struct plot_series *out)
{
    size_t total = 0, most = 0;
    for (size_t i = 0; i < nm; i++) {
        total += raw->series[m[i]].n;
        most = raw->series[m[i]].n > most ? raw->series[m[i]].n : most;
    }
    struct plot_point *all = malloc((total ? total : 1) * sizeof *all);
    double *ys = malloc((nm + total + 1) * sizeof *ys), *xs = ys + nm;
    int rc = all && ys ? 0 : -1;
    size_t na = 0;
    for (size_t i = 0; i < nm && !rc; i++)
        for (size_t j = 0; j < raw->series[m[i]].n; j++)
            all[na++] = raw->series[m[i]].pts[j];
    if (mode == AGG_NONE) {
        for (size_t j = 0; j < na && !rc; j++)
            rc = point_add_n(out, all[j].x, all[j].y, 0, 1);
    } else if (mode == AGG_INDEX) {
        for (size_t k = 0; k < most && !rc; k++) {
            size_t n = 0;
            double mx, my, sx, sd;
            for (size_t i = 0; i < nm; i++)
                if (k < raw->series[m[i]].n) {
                    xs[n] = raw->series[m[i]].pts[k].x;
                    ys[n++] = raw->series[m[i]].pts[k].y;
                }
            mean_sd(xs, n, &mx, &sx);
            mean_sd(ys, n, &my, &sd);
            rc = point_add_n(out, mx, my, sd, (unsigned)n);
        }
    } else if (!rc) {
        qsort(all, na, sizeof *all, by_x);
        for (size_t j = 0; j < na && !rc;) {
            size_t e = j, n = 0;
            while (e < na && all[e].x == all[j].x)
                e++;
            if (mode == AGG_X)
                for (size_t t = j; t < e; t++)
                    ys[n++] = all[t].y;
            else
                for (size_t i = 0; i < nm; i++)
                    ys[n++] = step_at(&raw->series[m[i]], all[j].x);
            double my, sd;
            mean_sd(ys, n, &my, &sd);
            rc = point_add_n(out, all[j].x, my, sd, (unsigned)n);
            j = e;
        }
    }
    free(all);
    free(ys);
    return rc;
}

/* The keys that name the series: --by's, or the swept keys that differ
 * between the runs drawn (without the x keys: xkeys, NULL-terminated). */
static int pick_keys(sqlite3_stmt *v, const struct plot_filter *f, const struct runs *r,
                     const struct strs *leaves, const struct strs *swept,
                     const char *const *xkeys, struct strs *keys, struct plot *p)
{
    if (f->by) {
        if (by_paths(p, f->by, keys))
            return -1;
        for (size_t k = 0; k < keys->n; k++)
            if (!path_known(leaves, keys->v[k]))
                return unknown_key(p, "--by", keys->v[k] + 2, leaves);
        return 0;
    }
    struct strs cand = {0};
    const struct strs *from = swept->n ? swept : leaves;
    int rc = 0;
    for (size_t k = 0; k < from->n && !rc; k++) {
        int x = 0;
        for (size_t j = 0; xkeys && xkeys[j]; j++)
            x |= !strcmp(xkeys[j], from->v[k]);
        if (!x)
            rc = strs_add(&cand, from->v[k]);
    }
    if (rc || differing(v, r, &cand, keys))
        rc = fail(p, "out of memory");
    strs_free(&cand);
    return rc;
}

/* The number of distinct values of key among the runs. */
static size_t count_values(sqlite3_stmt *v, const struct runs *r, const char *key)
{
    struct strs vals = {0};
    for (size_t i = 0; i < r->raw.nseries; i++) {
        int num;
        char *x = param_value(v, r->params.v[i], key, &num);
        strs_add_new(&vals, x ? x : "\x01");
        free(x);
    }
    size_t n = vals.n;
    strs_free(&vals);
    return n;
}

/* Name and group the runs r into p's series, facets and key title. */
static int name_runs(sqlite3 *db, const struct plot_filter *f, struct runs *r,
                     const char *const *xkeys, enum agg mode, struct plot *p)
{
    struct strs leaves = {0}, swept = {0}, keys = {0}, labels = {0}, panels = {0},
                groups = {0}, firsts = {0}, rests = {0}, first_key = {0}, rest_keys = {0};
    char facet[512] = "", name[1024], panel[1024];
    size_t *member = NULL, *grp = NULL, *gfirst = NULL, *grest = NULL;
    int rc = -1;
    sqlite3_stmt *v = NULL;
    if (sqlite3_prepare_v2(db, "SELECT json_type(?1, ?2), json_extract(?1, ?2)", -1, &v,
                           NULL) != SQLITE_OK) {
        fail(p, "query failed: %s", sqlite3_errmsg(db));
        goto out;
    }
    if (runs_paths(db, r, &leaves, &swept)) {
        fail(p, "out of memory");
        goto out;
    }
    if (pick_keys(v, f, r, &leaves, &swept, xkeys, &keys, p))
        goto out;
    if (f->facet && strcmp(f->facet, "none")) {
        if (plot_by_path(f->facet, facet, sizeof facet)) {
            p->usage = 1;
            fail(p, "bad --facet path '%s' (a params JSON path such as workload.fill)",
                 f->facet);
            goto out;
        }
        if (!path_known(&leaves, facet)) {
            unknown_key(p, "--facet", facet + 2, &leaves);
            goto out;
        }
    } else if (!f->facet && mode != AGG_NONE && keys.n >= 2) {
        /* Too many series for one plot: panels by the key with the fewest
         * values (the last of equals), the others naming the series. */
        for (size_t i = 0; i < r->raw.nseries; i++) {
            run_name(v, r, i, &keys, name, sizeof name);
            if (strs_add_new(&labels, name))
                goto oom;
        }
        /* The key leaving at most PLOT_MAX_SERIES names per panel with the
         * fewest panels (the last of equals); if none does, the key with
         * the most values. */
        size_t best = 0, most = 0;
        char fallback[512] = "";
        for (size_t k = 0; labels.n > PLOT_MAX_SERIES && k < keys.n; k++) {
            size_t c = count_values(v, r, keys.v[k]);
            struct strs rest = {0}, names = {0};
            for (size_t j = 0; j < keys.n; j++)
                if (j != k && strs_add(&rest, keys.v[j]))
                    goto oom;
            for (size_t i = 0; i < r->raw.nseries; i++) {
                run_name(v, r, i, &rest, name, sizeof name);
                if (strs_add_new(&names, name)) {
                    strs_free(&rest);
                    goto oom;
                }
            }
            if (c >= 2 && names.n <= PLOT_MAX_SERIES && (!best || c <= best)) {
                best = c;
                snprintf(facet, sizeof facet, "%s", keys.v[k]);
            }
            if (c > most) {
                most = c;
                snprintf(fallback, sizeof fallback, "%s", keys.v[k]);
            }
            strs_free(&rest);
            strs_free(&names);
        }
        if (!*facet)
            snprintf(facet, sizeof facet, "%s", fallback);
        strs_free(&labels);
    }
    if (*facet) {
        ssize_t at = strs_find(&keys, facet);
        if (at >= 0) {
            free(keys.v[at]);
            memmove(keys.v + at, keys.v + at + 1, (keys.n - (size_t)at - 1) * sizeof *keys.v);
            keys.n--;
        }
        if (!(p->facet = strdup(key_short(facet))))
            goto oom;
    }
    /* The key title: what names the series. */
    if (keys.n) {
        size_t len = 0;
        char t[512] = "";
        for (size_t k = 0; k < keys.n && len < sizeof t; k++)
            len += (size_t)snprintf(t + len, sizeof t - len, "%s%s", k ? ", " : "",
                                    key_short(keys.v[k]));
        if (!(p->key_title = strdup(t)))
            goto oom;
    }
    /* Each run's group: its panel and name; and its first key's value and
     * the others', for colours and dashes. */
    member = malloc(r->raw.nseries * sizeof *member);
    grp = malloc(r->raw.nseries * sizeof *grp);
    gfirst = malloc(r->raw.nseries * sizeof *gfirst);
    grest = malloc(r->raw.nseries * sizeof *grest);
    if (!member || !grp || !gfirst || !grest)
        goto oom;
    for (size_t k = 0; k < keys.n; k++)
        if (strs_add(k ? &rest_keys : &first_key, keys.v[k]))
            goto oom;
    for (size_t i = 0; i < r->raw.nseries; i++) {
        char part[1024];
        run_name(v, r, i, &keys, name, sizeof name);
        *panel = 0;
        if (*facet) {
            int num;
            char *x = param_value(v, r->params.v[i], facet, &num);
            snprintf(panel, sizeof panel, "%s=%s", key_short(facet), x ? x : "(none)");
            free(x);
            if (strs_add_new(&panels, panel))
                goto oom;
        }
        char g[2100];
        snprintf(g, sizeof g, "%s\x1f%s", panel, name);
        ssize_t at = strs_find(&groups, g);
        if (at < 0) {
            if (strs_add(&groups, g) || strs_add_new(&labels, name))
                goto oom;
            at = (ssize_t)groups.n - 1;
            run_name(v, r, i, &first_key, part, sizeof part);
            if (strs_add_new(&firsts, part))
                goto oom;
            gfirst[at] = (size_t)strs_find(&firsts, part);
            run_name(v, r, i, &rest_keys, part, sizeof part);
            if (strs_add_new(&rests, part))
                goto oom;
            grest[at] = (size_t)strs_find(&rests, part);
        }
        grp[i] = (size_t)at;
    }
    /* Several keys: a colour per value of the first, a dash per value of
     * the others, while the palette and the dashes last. */
    int by_parts = keys.n >= 2 && firsts.n <= 8 && rests.n <= 4;
    /* Panels in the order of their values (numbers by value). */
    for (size_t a = 1; a < panels.n; a++)
        for (size_t b = a; b > 0; b--) {
            const char *x = strchr(panels.v[b - 1], '='), *y = strchr(panels.v[b], '=');
            char *ex, *ey;
            double dx = strtod(x + 1, &ex), dy = strtod(y + 1, &ey);
            int gt = !*ex && !*ey ? dx > dy : 0;
            if (!gt)
                break;
            char *tmp = panels.v[b - 1];
            panels.v[b - 1] = panels.v[b];
            panels.v[b] = tmp;
        }
    for (size_t gi = 0; gi < groups.n; gi++) {
        size_t nm = 0;
        for (size_t i = 0; i < r->raw.nseries; i++)
            if (grp[i] == gi)
                member[nm++] = i;
        const char *sep = strchr(groups.v[gi], '\x1f');
        const char *label = sep + 1;
        size_t plen = (size_t)(sep - groups.v[gi]);
        if (plen)
            snprintf(name, sizeof name, "%s, %.*s", label, (int)plen, groups.v[gi]);
        else
            snprintf(name, sizeof name, "%s", label);
        struct plot_series *s = series_new(p, name, r->raw.series[member[0]].style);
        if (!s)
            goto oom;
        if (plen) {
            snprintf(panel, sizeof panel, "%.*s", (int)plen, groups.v[gi]);
            s->panel = (size_t)strs_find(&panels, panel);
            s->colour = (unsigned)strs_find(&labels, label) + 1;
            if (!(s->legend = strdup(label)))
                goto oom;
        }
        s->mark = (unsigned)strs_find(&labels, label) + 1;
        if (by_parts) {
            s->colour = (unsigned)gfirst[gi] + 1;
            s->dash = (unsigned)grest[gi] + 1;
        }
        if (aggregate(&r->raw, member, nm, mode, s))
            goto oom;
        for (size_t j = 0; j < s->n; j++)
            p->spread |= s->pts[j].n > 1;
    }
    p->panels = panels.v;
    p->npanels = panels.n;
    panels = (struct strs){0};
    rc = 0;
    goto out;
oom:
    fail(p, "out of memory");
out:
    sqlite3_finalize(v);
    strs_free(&leaves);
    strs_free(&swept);
    strs_free(&keys);
    strs_free(&labels);
    strs_free(&panels);
    strs_free(&groups);
    strs_free(&firsts);
    strs_free(&rests);
    strs_free(&first_key);
    strs_free(&rest_keys);
    free(member);
    free(grp);
    free(gfirst);
    free(grest);
    return rc;
}

/* Read the kind's rows into one raw series per run (r), in run order. */
static int read_runs(sqlite3 *db, const char *sql, const struct plot_filter *f,
                     enum plot_style style, row_reader read, struct runs *r, struct plot *p)
{
    struct plot_series *s = NULL;
    int64_t last = 0;
    int rc;
    sqlite3_stmt *q = prepare(db, sql, f, p);
    if (!q)
        return -1;
    while ((rc = step(db, q, p)) == 1) {
        struct row row = {.style = style};
        if (read(q, &row, NULL))
            continue;
        if (!s || row.run != last) {
            if (r->raw.nseries == r->cap) {
                size_t cap = r->cap ? 2 * r->cap : 16;
                int64_t *v = realloc(r->ids, cap * sizeof *v);
                if (!v)
                    break;
                r->ids = v;
                r->cap = cap;
            }
            if (!(s = series_new(&r->raw, "", row.style)) || strs_add(&r->params, row.name))
                break;
            r->ids[r->raw.nseries - 1] = last = row.run;
        }
        if (point_add_n(s, row.x, row.y, 0, 1))
            break;
    }
    sqlite3_finalize(q);
    if (rc == 1)
        rc = fail(p, "out of memory");
    return rc;
}

/* The run kinds: read, transform each run's series (prep, may be NULL),
 * then name, group and aggregate them into p.  No rows: 0, no series. */
static int run_series(sqlite3 *db, const char *sql, const struct plot_filter *f,
                      struct plot *p, enum plot_style style, row_reader read,
                      int (*prep)(struct plot *raw, struct plot *p), const char *const *xkeys,
                      enum agg mode)
{
    struct runs r = {0};
    plot_reset(&r.raw, p->kind);
    int rc = read_runs(db, sql, f, style, read, &r, p);
    if (!rc && r.raw.nseries && prep)
        rc = prep(&r.raw, p);
    if (!rc && r.raw.nseries)
        rc = name_runs(db, f, &r, xkeys, mode, p);
    runs_free(&r);
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
            return fail(p, "out of memory");
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
    if (run_series(db, SQL_ERASE, f, p, PLOT_STEPS, read_point, prep, NULL, mode))
        return -1;
    if (!p->nseries)
        return fail(p, "no erase_counts rows %s: run an experiment with erase snapshots",
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
    p->title = "Wear: distribution of the blocks' erase counts";
    p->xlabel = "erase count (erases per block)";
    p->ylabel = "fraction of blocks with at most x erases";
    p->xdata = "erase count";
    p->ydata = "fraction of blocks <= x";
    return erase_rows(db, f, p, erase_cumulate, AGG_STEP);
}

/* ---- wa-util ---------------------------------------------------------------- */

#define SQL_WA_UTIL                                                               \
    SEL_RUNS                                                                      \
    "SELECT * FROM (SELECT s.id, s.params,"                                       \
    "  coalesce(json_extract(s.params, '$.utilisation'),"                         \
    "           json_extract(s.params, '$.workload.fill'),"                       \
    "           1.0 - json_extract(s.params, '$.spare')) AS u,"                   \
    "  (SELECT wa FROM samples WHERE run_id = s.id AND wa IS NOT NULL"            \
    "   ORDER BY seq DESC LIMIT 1) AS wa"                                         \
    " FROM sel s WHERE s.status = 'complete')"                                    \
    " WHERE u IS NOT NULL AND wa IS NOT NULL ORDER BY id"

/* The model curves over [lo, hi], u -> A(alpha = 1/(1 - Sf)) with Sf = 1 - u. */
static int add_models(struct plot *p, double lo, double hi, unsigned np)
{
    char name[64];
    snprintf(name, sizeof name, "greedy model (Np = %u)", np);
    struct plot_series *g = series_new(p, name, PLOT_DASHED);
    if (!g)
        return -1;
    size_t gi = p->nseries - 1; /* series_new may move the array */
    struct plot_series *fi = series_new(p, "FIFO model", PLOT_DASHED);
    if (!fi)
        return -1;
    g = &p->series[gi];
    for (int i = 0; i < PLOT_MODEL_POINTS; i++) {
        double u = lo + (hi - lo) * i / (PLOT_MODEL_POINTS - 1);
        double a = gc_model_alpha(1.0 - u);
        double gw = gc_model_greedy_wa(a, np), fw = gc_model_fifo_wa(a);
        if ((isfinite(gw) && point_add(g, u, gw)) || (isfinite(fw) && point_add(fi, u, fw)))
            return -1;
    }
    return 0;
}

int plot_wa_util(sqlite3 *db, const struct plot_filter *f, struct plot *p)
{
    plot_reset(p, PLOT_WA_UTIL);
    p->title = "Write amplification against utilisation";
    p->xlabel = "utilisation (live data / capacity the cleaner can use)";
    p->ylabel = "write amplification (flash bytes / host bytes)";
    p->xdata = "utilisation (fraction)";
    p->ydata = "WA (ratio)";
    static const char *const xkeys[] = {"$.utilisation", "$.workload.fill", "$.spare", NULL};
    if (run_series(db, SQL_WA_UTIL, f, p, PLOT_LINESPOINTS, read_numeric_x, NULL, xkeys, AGG_X))
        return -1;
    if (!p->nseries)
        return fail(p, "no complete runs with samples and a utilisation in params %s "
                    "(keys utilisation, workload.fill or spare)", scope(f));
    double umin = INFINITY, umax = -INFINITY;
    for (size_t i = 0; i < p->nseries; i++) {
        struct plot_series *s = &p->series[i];
        qsort(s->pts, s->n, sizeof *s->pts, by_x);
        umin = fmin(umin, s->pts[0].x);
        umax = fmax(umax, s->pts[s->n - 1].x);
    }
    /* The models blow up towards u = 1: draw them over the usual range. */
    double lo = fmax(0.05, fmin(0.5, umin)), hi = fmin(0.98, fmax(0.95, umax));
    if (add_models(p, lo, hi, f->np ? f->np : DEFAULT_NP))
        return fail(p, "out of memory");
    return 0;
}

/* ---- wa-time ----------------------------------------------------------------- */

#define SQL_WA_TIME                                                               \
    SEL_RUNS                                                                      \
    "SELECT s.id, s.params, CASE WHEN ?3 THEN x.sim_time_ns ELSE x.host_bytes END,"\
    " x.wa FROM sel s JOIN samples x ON x.run_id = s.id"                          \
    " WHERE x.wa IS NOT NULL ORDER BY s.id, x.seq"

int plot_wa_time(sqlite3 *db, const struct plot_filter *f, struct plot *p)
{
    plot_reset(p, PLOT_WA_TIME);
    p->title = "Write amplification over the run";
    p->ylabel = "write amplification (flash bytes / host bytes)";
    p->ydata = "WA (ratio)";
    if (f->x_time) {
        p->xlabel = "simulated time (s)";
        p->xdata = "sim_time_ns (ns)";
        p->xdiv = 1e9;
    } else {
        p->xlabel = "host data written (GiB)";
        p->xdata = "host_bytes (bytes)";
        p->xdiv = 1073741824.0;
    }
    if (run_series(db, SQL_WA_TIME, f, p, PLOT_LINES, read_point, NULL, NULL, AGG_INDEX))
        return -1;
    if (!p->nseries)
        return fail(p, "no samples rows with a WA %s: run an experiment that samples",
                    scope(f));
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
    const char *kind = text(q, 0, "unknown");
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
        return fail(p, "no mounts rows %s (with device_bytes and sim_latency_ns > 0): "
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
    r->name = text(q, 1, "{}");
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
    if (run_series(db, SQL_LIFETIME, f, p, PLOT_BARS, read_lifetime, NULL, NULL, AGG_NONE))
        return -1;
    if (!p->nseries)
        return fail(p, "no wear-out lifetimes %s: need kv 'lifetime_host_bytes', or a "
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
        return fail(p, "unknown plot kind %d", (int)kind);
    }
    return build[kind](db, f, p);
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

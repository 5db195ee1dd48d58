/*
 * plot_models.c -- wa-util's model curves, only for the workloads they
 * model: greedy and FIFO/LRW (Desnoyers' uniform random models) beside
 * uniform random runs, with Np from the runs' geometry; the LRW hot/cold
 * model beside hot/cold runs; none beside any other workload.  Each
 * model's name states its assumptions (docs/plots.md).
 */
#include "plot_impl.h"

#include "gc_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The distinct model settings of the runs runs_sql draws (its first column
 * is the run id): workload kind, hot/cold split and Np (fs blocks per
 * segment: the kind's own count where it reports one, as LogFS's object
 * headers leave room for 31 blocks of 4 KiB in 128 KiB, else erase block /
 * fs block), each from the runner's kv, else from params (older runs). */
static const char models_sql[] =
    "SELECT DISTINCT coalesce((SELECT value FROM kv WHERE run_id = r.id AND key = 'workload'),"
    "  json_extract(r.params, '$.workload.kind')) AS kind,"
    " coalesce((SELECT value FROM kv WHERE run_id = r.id AND key = 'hot_writes'),"
    "  json_extract(r.params, '$.workload.hot_writes')),"
    " coalesce((SELECT value FROM kv WHERE run_id = r.id AND key = 'hot_data'),"
    "  json_extract(r.params, '$.workload.hot_data')),"
    " coalesce((SELECT value FROM kv WHERE run_id = r.id AND key = 'segment_blocks'),"
    "  (SELECT value FROM kv WHERE run_id = r.id AND key = 'erase_block_bytes') /"
    "  (SELECT value FROM kv WHERE run_id = r.id AND key = 'fs_block_bytes')) AS np"
    " FROM runs r WHERE r.id IN (SELECT id FROM (%s)) ORDER BY 1, 2, 3, 4";

/* One model: its name, how it maps alpha to A, and its parameters. */
struct model {
    char name[128];
    enum { M_GREEDY, M_FIFO, M_HOTCOLD } kind;
    unsigned np;
    double r, f;
};

static double model_wa(const struct model *m, double alpha)
{
    switch (m->kind) {
    case M_GREEDY:
        return gc_model_greedy_wa(alpha, m->np);
    case M_FIFO:
        return gc_model_fifo_wa(alpha);
    default:
        return gc_model_hotcold_lru_wa(alpha, m->r, m->f);
    }
}

/* Append a line to p->notes. */
static int note(struct plot *p, const char *line)
{
    size_t old = p->notes ? strlen(p->notes) : 0, n = strlen(line);
    char *v = realloc(p->notes, old + n + 2);
    if (!v)
        return -1;
    memcpy(v + old, line, n);
    v[old + n] = '\n';
    v[old + n + 1] = 0;
    p->notes = v;
    return 0;
}

/* The curve of m over [lo, hi] (u -> A(alpha = 1/(1 - Sf)), Sf = 1 - u),
 * drawn beside every panel's runs; once per name. */
static int add_curve(struct plot *p, const struct model *m, double lo, double hi)
{
    if (plot_find_series(p, m->name))
        return 0;
    struct plot_series *s = plot_series_new(p, m->name, PLOT_DASHED);
    if (!s)
        return -1;
    s->panel = PLOT_ALL_PANELS;
    for (int i = 0; i < PLOT_MODEL_POINTS; i++) {
        double u = lo + (hi - lo) * i / (PLOT_MODEL_POINTS - 1);
        double a = model_wa(m, gc_model_alpha(1.0 - u));
        if (isfinite(a) && plot_point_add_n(s, u, a, 0, 0))
            return -1;
    }
    return 0;
}

/* The models of one setting of the runs: kind (NULL: unknown), r, f (NAN:
 * unknown), np (0: unknown); --np (f->np) overrides np. */
static int add_setting(struct plot *p, const struct plot_filter *f, const char *kind, double r,
                       double fr, unsigned np, double lo, double hi)
{
    char line[256];
    struct model m = {.np = f->np ? f->np : np, .r = r, .f = fr};
    if (kind && !strcmp(kind, "uniform")) {
        if (m.np) {
            m.kind = M_GREEDY;
            snprintf(m.name, sizeof m.name, "greedy model (uniform random, Np=%u)", m.np);
            if (add_curve(p, &m, lo, hi))
                return -1;
        } else if (note(p, "no greedy model: the runs record no geometry (erase_block_bytes, "
                           "fs_block_bytes); give --np"))
            return -1;
        m.kind = M_FIFO;
        snprintf(m.name, sizeof m.name, "FIFO/LRW model (uniform random)");
        return add_curve(p, &m, lo, hi);
    }
    if (kind && !strcmp(kind, "hotcold")) {
        if (!(r >= 0 && r <= 1 && fr > 0 && fr < 1)) {
            snprintf(line, sizeof line, "no hot/cold model: runs record no hot_writes and "
                     "hot_data");
            return note(p, line);
        }
        m.kind = M_HOTCOLD;
        snprintf(m.name, sizeof m.name, "FIFO/LRW model (hot/cold %g/%g, one log)", 100 * r,
                 100 * fr);
        if (add_curve(p, &m, lo, hi))
            return -1;
        snprintf(line, sizeof line, "no greedy model for hot/cold %g/%g: none is implemented "
                 "(docs/plots.md)", 100 * r, 100 * fr);
        return note(p, line);
    }
    if (!kind)
        return note(p, "no model: the runs record no workload kind");
    snprintf(line, sizeof line, "no model for workload '%s': the GC models assume uniform "
             "random or hot/cold writes", kind);
    return note(p, line);
}

int plot_add_models(sqlite3 *db, const char *runs_sql, const struct plot_filter *f,
                    struct plot *p, double lo, double hi)
{
    sqlite3_stmt *q = plot_prepare_over(db, models_sql, runs_sql, f, p);
    if (!q)
        return -1;
    int rc;
    while ((rc = plot_step(db, q, p)) == 1) {
        const char *kind = plot_text(q, 0, NULL);
        double r = sqlite3_column_type(q, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 1);
        double fr = sqlite3_column_type(q, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 2);
        double np = sqlite3_column_double(q, 3); /* NULL: 0, unknown */
        if (add_setting(p, f, kind, r, fr, np >= 2 && np < 1e6 ? (unsigned)np : 0, lo, hi)) {
            rc = plot_fail(p, "out of memory");
            break;
        }
    }
    sqlite3_finalize(q);
    return rc < 0 ? -1 : 0;
}

/*
 * plot_impl.h -- what plot_data.c (the plot kinds, their queries, the data
 * table) and plot_runs.c (naming runs by their parameters, grouping and
 * averaging them) share.  Not for users of plot.h.
 */
#ifndef FLASHLAB_PLOT_IMPL_H
#define FLASHLAB_PLOT_IMPL_H

#include "plot.h"

#include <sqlite3.h>

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

/* How the runs of one setting make one series. */
enum agg {
    AGG_X,     /* the points of equal x: mean and sd (erase-hist) */
    AGG_X_NEAR, /* the points whose x are within PLOT_X_NEAR of the group's
                   least: mean x, mean and sd of y (wa-util: the seeds of a
                   setting measure nearly the same utilisation) */
    AGG_INDEX, /* the k-th points of the runs (wa-time: samples) */
    AGG_STEP,  /* step functions (CDFs) at every x of any run */
    AGG_NONE,  /* every run's points as they are (lifetime) */
};

#define PLOT_X_NEAR 0.005

/* printf-style error into p->err; -1. */
int plot_fail(struct plot *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empty p, ready for kind's series. */
void plot_reset(struct plot *p, enum plot_kind kind);
struct plot_series *plot_series_new(struct plot *p, const char *name, enum plot_style st);
/* Append a point with its spread and the runs averaged in it. */
int plot_point_add_n(struct plot_series *s, double x, double y, double sd, unsigned n);
/* qsort order of points by x. */
int plot_by_x(const void *a, const void *b);
/* sql prepared with the filter's parameters bound (NULL with p->err). */
sqlite3_stmt *plot_prepare(sqlite3 *db, const char *sql, const struct plot_filter *f,
                           struct plot *p);
/* The same for fmt, whose one %s is the query runs_sql (its first column
 * a run id, its parameters as plot_prepare binds them). */
sqlite3_stmt *plot_prepare_over(sqlite3 *db, const char *fmt, const char *runs_sql,
                                const struct plot_filter *f, struct plot *p);
/* 1 for a row, 0 at the end, -1 with p->err. */
int plot_step(sqlite3 *db, sqlite3_stmt *q, struct plot *p);
/* Column col as text, dflt for NULL. */
const char *plot_text(sqlite3_stmt *q, int col, const char *dflt);

/* plot_models.c: wa-util's model curves over [lo, hi] for the runs
 * runs_sql selects (its first column is the run id, its parameters as
 * plot_prepare binds them): those that model their workloads, and a line
 * in p->notes for each setting that has none.  0, or -1 with p->err. */
int plot_add_models(sqlite3 *db, const char *runs_sql, const struct plot_filter *f,
                    struct plot *p, double lo, double hi);

/* plot_about.c: p->subtitle from the runs runs_sql selects (its first
 * column is the run id, bound as plot_prepare does): their workloads and
 * devices, and on lifetime figures their wear acceleration.  0, or -1
 * with p->err. */
int plot_describe(sqlite3 *db, const char *runs_sql, const struct plot_filter *f,
                  struct plot *p);

/* plot_gnuplot.c: the house palette (Okabe-Ito, colour-blind safe: orange,
 * sky blue, bluish green, blue, vermillion, reddish purple, black, yellow). */
#define PLOT_PALETTE 8
extern const char *const plot_okabe_ito[PLOT_PALETTE];
/* s as a single-quoted gnuplot string; and p->subtitle
 * as the title's next lines (" . \"\\n\" . 'line'", nothing without),
 * returning their number (fp NULL: only that); a multiplot's panels start
 * PLOT_TITLE_LINE (of the screen's height) lower per line. */
void plot_gp_str(FILE *fp, const char *s);
int plot_gp_subtitle(FILE *fp, const struct plot *p);
#define PLOT_TITLE_LINE 0.045

/* plot_runs.c: the run kinds: read, transform each run's series (prep, may
 * be NULL), then name, group and aggregate them into p.  No rows: 0, no
 * series. */
int plot_run_series(sqlite3 *db, const char *sql, const struct plot_filter *f, struct plot *p,
                    enum plot_style style, row_reader read,
                    int (*prep)(struct plot *raw, struct plot *p), const char *const *xkeys,
                    enum agg mode);

#endif

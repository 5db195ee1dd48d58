/*
 * plot.h -- figures from the results database (docs/results-schema.md).
 *
 * plot_data.c turns the rows of one plot kind into data series (the SQL of
 * each kind is in docs/plots.md); plot_gnuplot.c draws them with gnuplot.
 * Point values are the raw database units (bytes, ns, counts, ratios) so
 * that they can be checked exactly; the axes scale them (xdiv, ydiv).
 *
 * Functions returning int give 0 on success and -1 on error, with the
 * reason in p->err (or err); "no data for this kind" is an error too.
 */
#ifndef FLASHLAB_PLOT_H
#define FLASHLAB_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sqlite3;

enum plot_kind {
    PLOT_ERASE_HIST,  /* blocks per erase count, last snapshot per run */
    PLOT_ERASE_CDF,   /* the same as a cumulative fraction of blocks */
    PLOT_WA_UTIL,     /* final WA against utilisation, with the models */
    PLOT_WA_TIME,     /* WA against host bytes (or simulated time) per run */
    PLOT_MOUNT_SIZE,  /* mount latency against device size per fs_kind */
    PLOT_LIFETIME,    /* host bytes written until wear-out per group */
    PLOT_KIND_COUNT
};

/* How each series is drawn. */
enum plot_style {
    PLOT_STEPS,       /* histogram / CDF steps */
    PLOT_LINESPOINTS,
    PLOT_LINES,
    PLOT_DASHED,      /* analytical curves */
    PLOT_BARS,        /* lifetime: a bar at the mean of each x, points for runs */
    PLOT_DASHED_POINTS, /* measured, dashed: mount-size after a power cut */
};

/* A point; aggregated (the runs of one setting, e.g. its seeds): y is the
 * mean of n runs' values and sd their sample standard deviation (n - 1 in
 * the denominator; 0 when n = 1).  n = 0: not from runs (model curves). */
struct plot_point {
    double x, y;
    double sd;
    unsigned n;
};

struct plot_series {
    char *name;
    enum plot_style style;
    unsigned colour;  /* gnuplot colour (and point type) number; 0: from the
                         series' position.  mount-size: one per fs_kind */
    struct plot_point *pts;
    size_t n, cap;
    char *legend;     /* faceted: the name in the key, without the panel's
                         value (NULL: name) */
    unsigned dash;    /* gnuplot dash type; 0: from the colour (solid for
                         the first 8 colours) */
    unsigned mark;    /* point type number; 0: from the colour */
    size_t panel;     /* faceted: index into plot.panels; PLOT_ALL_PANELS:
                         drawn in every panel (the model curves) */
};
#define PLOT_ALL_PANELS ((size_t)-1)

/* Which runs, and how they are named and grouped. */
struct plot_filter {
    const char *experiment; /* NAME or NAME@HASH (results_select_experiments);
                               NULL: all */
    int64_t run_id;         /* runs.id; 0: all */
    const char *by;         /* params JSON paths, comma-separated
                               ("fs.gc_policy,fs.wear_leveling", "$.x");
                               NULL: every swept key whose value differs
                               between the runs drawn (see docs/plots.md) */
    const char *facet;      /* a params JSON path: a panel per value; NULL:
                               automatic above PLOT_MAX_SERIES series;
                               "none": never */
    unsigned np;            /* fs blocks per segment for the greedy model;
                               0: from the runs' kv (docs/plots.md) */
    int x_time;             /* wa-time: x is simulated time, not host bytes */
    int wa;                 /* the y of wa-util and wa-time: PLOT_WA_* */
};
/* Which WA (plot_filter.wa; docs/validation.md, three kinds of WA): wa-util
 * takes the first three, wa-time cumulative (its default) or interval. */
enum {
    PLOT_WA_STEADY,       /* data WA after the warm-up (kv wa_steady): the default */
    PLOT_WA_TOTAL_STEADY, /* all pages after the warm-up (kv wa_total_steady) */
    PLOT_WA_CUMULATIVE,   /* all pages since the measured phase began (final.wa) */
    PLOT_WA_INTERVAL,     /* data WA since the previous sample (samples.wa_interval) */
};
/* The PLOT_WA_* called name ("steady", "total-steady", "cumulative",
 * "interval"), or -1. */
int plot_wa_kind(const char *name);

struct plot {
    enum plot_kind kind;
    struct plot_series *series;
    size_t nseries, cap;
    const char *title, *xlabel, *ylabel; /* static strings */
    char *subtitle;            /* plot_build: the workloads and devices of the
                                  runs drawn and, on lifetime figures, their
                                  wear acceleration ("workload: hotcold 90/10;
                                  device: test-64m"), or NULL */
    char *notes;               /* wa-util: why a model is not drawn (one line
                                  each), or NULL */
    const char *xdata, *ydata; /* what the raw x and y are, with units */
    double xdiv, ydiv;         /* axis value = raw / div */
    int logx, logy;
    double bin_width;          /* erase-hist: erase counts per bin */
    int spread;                /* some point is the mean of several runs */
    char *key_title;           /* the keys that name the series ("gc_policy,
                                  fill"), or NULL */
    char *facet;               /* faceted: the panels' key, else NULL */
    char **panels;             /* faceted: the panels' names ("fill=0.8") */
    size_t npanels;
    int usage;                 /* the error is bad usage (an unknown key) */
    char err[1024];
};

/* More series than this (not counting models) are split into panels. */
#define PLOT_MAX_SERIES 8

/* Kind by name ("erase-hist", ...); -1 if unknown. */
int plot_kind_find(const char *name);
const char *plot_kind_name(enum plot_kind k);
/* For --help: what the kind shows (one line), and the rows it needs (may
 * hold a line break, indented for a 14-column margin). */
const char *plot_kind_help(enum plot_kind k);
const char *plot_kind_needs(enum plot_kind k);

/* The JSON path of a --by or --facet key into out: "fs.gc_policy" -> "$.fs.gc_policy"
 * ("$..." is taken as it is); -1 if it is not a valid path. */
int plot_by_path(const char *by, char *out, size_t n);

/* Open a results file for queries only (PRAGMA query_only; never created)
 * and check that it has the tables the plots read. */
int plot_open_db(const char *path, struct sqlite3 **db, char *err, size_t errlen);

/* Build p for kind from db.  p must be zeroed or hold an earlier plot (it
 * is freed first); plot_free it afterwards, even on error. */
int plot_build(struct sqlite3 *db, enum plot_kind kind, const struct plot_filter *f,
               struct plot *p);
/* One builder per kind, as plot_build calls them. */
int plot_erase_hist(struct sqlite3 *db, const struct plot_filter *f, struct plot *p);
int plot_erase_cdf(struct sqlite3 *db, const struct plot_filter *f, struct plot *p);
int plot_wa_util(struct sqlite3 *db, const struct plot_filter *f, struct plot *p);
int plot_wa_time(struct sqlite3 *db, const struct plot_filter *f, struct plot *p);
int plot_mount_size(struct sqlite3 *db, const struct plot_filter *f, struct plot *p);
int plot_lifetime(struct sqlite3 *db, const struct plot_filter *f, struct plot *p);
void plot_free(struct plot *p);

/* The series by name, or NULL. */
const struct plot_series *plot_find_series(const struct plot *p, const char *name);

/* wa-util's model curves, for the workloads they model (docs/plots.md):
 * utilisation points from lo to hi (n of them) and A =
 * gc_model_greedy_wa(gc_model_alpha(1 - u), np) / gc_model_fifo_wa on
 * uniform random runs, gc_model_hotcold_lru_wa on hot/cold ones. */
#define PLOT_MODEL_POINTS 60

/* The table behind the plot: "series<TAB>x<TAB>y" lines, raw units, after
 * '#' comment lines naming the kind and units; when some point aggregates
 * several runs (p->spread) every line also has "<TAB>sd<TAB>n". */
int plot_write_data(const struct plot *p, const char *path, char *err, size_t errlen);

/* Output formats, from the file name's extension. */
enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_PDF };
/* -1 unless path ends in .png, .svg or .pdf (any case). */
int plot_format_from_path(const char *path);
/* Draw p into path with gnuplot (FLASHLAB_GNUPLOT overrides the program).
 * The script and its data blocks go to a private temporary directory;
 * gnuplot writes the image to its stdout, which is a file there that is
 * copied to path once gnuplot has succeeded, so file names never appear
 * in the script and a failed run leaves path alone. */
int plot_render(const struct plot *p, const char *path, enum plot_format fmt, char *err,
                size_t errlen);
/* plot_render for any script: write(fp, term, arg) writes it after the
 * terminal line term (the house size and fonts), with its data inline;
 * plot_faults draws with it. */
typedef void (*plot_script_fn)(FILE *fp, const char *term, const void *arg);
int plot_render_with(plot_script_fn write, const void *arg, const char *path,
                     enum plot_format fmt, char *err, size_t errlen);
/* The gnuplot script plot_render runs for p, after the terminal line term
 * (e.g. "set terminal svg"): the points as data blocks, the settings (log
 * scales, ranges, labels) and the plot command.  Without "set output" it
 * draws to gnuplot's stdout. */
void plot_write_script(FILE *fp, const struct plot *p, const char *term);

#endif

/*
 * plot_faults.c -- the outcomes of a media-fault campaign (plot_faults.h):
 * a panel per fault kind, a stacked bar per page class (per fs kind and
 * class when a database holds several fs kinds), in the house style of
 * the other figures (plot_gnuplot.c: size, fonts, the Okabe-Ito palette,
 * panels on shared axes with one key).  Points whose fault could not be
 * applied (damage to an erased page: silent, beyond and uncorrectable
 * need a programmed page; outcome `n/a`) are not an outcome of a fault:
 * they get a hatched bar of their own beside each class's and a column
 * of their own in the table.
 */
#include "plot_faults.h"
#include "results.h"

#include "plot_impl.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The outcomes of an applied fault in stacking order (good at the bottom),
 * named as experiment/faults.c records them, each with its palette colour. */
static const struct {
    const char *name;
    unsigned colour; /* index into plot_okabe_ito */
} outcomes[] = {
    {"ok", 2},          {"eio", 1},         {"rolled-back", 3},     {"refused", 0},
    {"lost", 4},        {"wrong-bytes", 5}, {"silent-rollback", 7}, {"crash", 6},
};
#define NOUT (sizeof outcomes / sizeof *outcomes)
#define NOT_APPLICABLE "n/a"
#define MAX_FAULTS 8   /* panels */
#define MAX_CLASSES 64 /* bars per panel */

struct cell {
    unsigned n[NOUT], na;
};

struct fig {
    char faults[MAX_FAULTS][32];
    char classes[MAX_CLASSES][96]; /* "class", or "kind/class" with several fs kinds */
    char kinds[MAX_CLASSES][96];   /* the fs kinds, in order of first appearance */
    unsigned nfaults, nclasses, nkinds;
    unsigned kind_of[MAX_CLASSES]; /* a class's fs kind */
    double x[MAX_CLASSES];         /* its bar's place: grouped by fs kind, a gap between */
    double xmax;
    struct cell cell[MAX_FAULTS][MAX_CLASSES];
    unsigned seen[NOUT + 1]; /* points per outcome, [NOUT]: n/a */
    struct plot about;       /* its subtitle: the runs' workloads and devices */
};

static int ferr(char *err, size_t n, const char *fmt, const char *a, const char *b)
{
    snprintf(err, n, fmt, a, b);
    return -1;
}

/* The index of name in list (added when new); -1 when the list is full. */
static int index_of(char (*list)[96], unsigned *n, unsigned max, const char *name, size_t sz)
{
    for (unsigned i = 0; i < *n; i++)
        if (!strcmp(list[i], name))
            return (int)i;
    if (*n == max)
        return -1;
    snprintf(list[*n], sz, "%s", name);
    return (int)(*n)++;
}

/* The selected runs' fault points, counted by (fault, class, outcome). */
#define FAULT_RUNS                                                                 \
    " FROM faults f JOIN runs r ON r.id = f.run_id JOIN experiments e"            \
    " ON e.id = r.experiment_id"                                                  \
    " WHERE (?1 IS NULL OR e.id IN (SELECT value FROM json_each(?1)))"           \
    " AND (?2 IS NULL OR r.id = ?2)"

static int load(sqlite3 *db, const struct plot_filter *flt, struct fig *g, char *err,
                size_t errlen)
{
    static const char sql[] =
        "SELECT f.fault, coalesce(json_extract(r.params, '$.fs.kind'), 'logfs') AS kind,"
        " f.class, f.outcome, count(*),"
        " (SELECT count(DISTINCT coalesce(json_extract(r2.params, '$.fs.kind'), 'logfs'))"
        "  FROM faults f2 JOIN runs r2 ON r2.id = f2.run_id JOIN experiments e2"
        "  ON e2.id = r2.experiment_id"
        "  WHERE (?1 IS NULL OR e2.id IN (SELECT value FROM json_each(?1)))"
        "  AND (?2 IS NULL OR r2.id = ?2))" FAULT_RUNS
        " GROUP BY f.fault, kind, f.class, f.outcome ORDER BY min(f.rowid)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return ferr(err, errlen, "no faults table here (%s)%s", sqlite3_errmsg(db),
                    ": run flashlab faults first");
    char *ids = NULL; /* --experiment NAME[@HASH] as the experiments' ids */
    if (results_select_experiments(db, flt->experiment, &ids, err, errlen)) {
        sqlite3_finalize(st);
        return -1;
    }
    if (ids)
        sqlite3_bind_text(st, 1, ids, -1, SQLITE_TRANSIENT);
    free(ids);
    if (flt->run_id)
        sqlite3_bind_int64(st, 2, flt->run_id);
    int rc;
    unsigned points = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *fault = plot_text(st, 0, "?"), *kind = plot_text(st, 1, "?");
        const char *cls = plot_text(st, 2, "?"), *oc = plot_text(st, 3, "?");
        unsigned cnt = (unsigned)sqlite3_column_int64(st, 4);
        char label[96];
        if (sqlite3_column_int(st, 5) > 1)
            snprintf(label, sizeof label, "%s/%s", kind, cls);
        else
            snprintf(label, sizeof label, "%s", cls);
        int fi = -1;
        for (unsigned i = 0; i < g->nfaults && fi < 0; i++)
            fi = strcmp(g->faults[i], fault) ? -1 : (int)i;
        if (fi < 0 && g->nfaults < MAX_FAULTS) {
            snprintf(g->faults[g->nfaults], sizeof g->faults[0], "%s", fault);
            fi = (int)g->nfaults++;
        }
        int ki = index_of(g->kinds, &g->nkinds, MAX_CLASSES, kind, sizeof g->kinds[0]);
        int ci = index_of(g->classes, &g->nclasses, MAX_CLASSES, label, sizeof g->classes[0]);
        if (ci >= 0)
            g->kind_of[ci] = (unsigned)ki;
        if (fi < 0 || ci < 0 || ki < 0) {
            sqlite3_finalize(st);
            return ferr(err, errlen, "more fault kinds or page classes than a figure shows "
                        "(%s): select fewer runs (--experiment, --run)%s",
                        fi < 0 ? "8 kinds" : "64 classes", "");
        }
        struct cell *c = &g->cell[fi][ci];
        points += cnt;
        if (!strcmp(oc, NOT_APPLICABLE)) {
            c->na += cnt;
            g->seen[NOUT] += cnt;
        }
        for (unsigned o = 0; o < NOUT; o++)
            if (!strcmp(oc, outcomes[o].name)) {
                c->n[o] += cnt;
                g->seen[o] += cnt;
            }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return ferr(err, errlen, "reading the faults table: %s%s", sqlite3_errmsg(db), "");
    if (!points)
        return ferr(err, errlen, "no fault points in this database%s%s",
                    flt->experiment ? " for experiment " : "",
                    flt->experiment ? flt->experiment : "");
    double x = 0;
    for (unsigned k = 0; k < g->nkinds; k++, x++)
        for (unsigned b = 0; b < g->nclasses; b++)
            if (g->kind_of[b] == k)
                g->xmax = g->x[b] = x++;
    /* the title's second line: what the campaigns ran on */
    plot_reset(&g->about, PLOT_WA_UTIL);
    if (plot_describe(db, "SELECT DISTINCT f.run_id AS id" FAULT_RUNS, flt, &g->about))
        return ferr(err, errlen, "%s%s", g->about.err, "");
    return 0;
}

static const char title[] = "Media faults: the outcome of each fault point, by what the page held";

static unsigned fault_points(const struct cell *c)
{
    unsigned n = 0;
    for (unsigned o = 0; o < NOUT; o++)
        n += c->n[o];
    return n;
}

static int write_data(FILE *f, const struct fig *g)
{
    fprintf(f, "# flashlab plot faults: %s\n", title);
    if (g->about.subtitle)
        fprintf(f, "# %s\n", g->about.subtitle);
    fputs("# not-applicable: points whose fault could not be applied (damage to an erased "
          "page; silent, beyond and uncorrectable need a programmed page), apart from the "
          "outcomes\n# fault\tclass", f);
    for (unsigned o = 0; o < NOUT; o++)
        fprintf(f, "\t%s", outcomes[o].name);
    fputs("\tnot-applicable\n", f);
    for (unsigned k = 0; k < g->nfaults; k++)
        for (unsigned b = 0; b < g->nclasses; b++) {
            const struct cell *c = &g->cell[k][b];
            if (!fault_points(c) && !c->na)
                continue;
            fprintf(f, "%s\t%s", g->faults[k], g->classes[b]);
            for (unsigned o = 0; o < NOUT; o++)
                fprintf(f, "\t%u", c->n[o]);
            fprintf(f, "\t%u\n", c->na);
        }
    return ferror(f) ? -1 : 0;
}

/* Panel k's data block: per class, its x and the stack's tops (cumulative
 * counts, outcome by outcome), then the not-applicable points. */
static void put_block(FILE *f, const struct fig *g, unsigned k)
{
    fprintf(f, "$F%u << EOD\n", k);
    for (unsigned b = 0; b < g->nclasses; b++) {
        const struct cell *c = &g->cell[k][b];
        unsigned cum = 0;
        fprintf(f, "%g", g->x[b]);
        for (unsigned o = 0; o < NOUT; o++)
            fprintf(f, " %u", cum += c->n[o]);
        fprintf(f, " %u\n", c->na);
    }
    fputs("EOD\n", f);
}

#define BAR_X "($1-0.14)"  /* a class's faults, left of its x */
#define NA_X "($1+0.3)"    /* its not-applicable points, right */
#define NA_STYLE "fs pattern 4 border lc rgb '#555555' lc rgb '#555555'"

/* The classes under the bars (labels: 1, else blank), without their fs
 * kind, which is named under its group of bars. */
static void put_xtics(FILE *f, const struct fig *g, int labels)
{
    fputs("set xtics (", f);
    for (unsigned b = 0; b < g->nclasses; b++) {
        const char *c = g->nkinds > 1 ? strchr(g->classes[b], '/') : NULL;
        fputs(b ? ", " : "", f);
        plot_gp_str(f, labels ? c ? c + 1 : g->classes[b] : "");
        fprintf(f, " %g", g->x[b]);
    }
    fputs(")\n", f);
}

/* Several fs kinds: each one's name over its group of bars, in the first
 * row's panels, and a line between the groups. */
static void put_groups(FILE *f, const struct fig *g, int names)
{
    for (unsigned k = 0; g->nkinds > 1 && k < g->nkinds; k++) {
        double lo = 1e9, hi = -1;
        for (unsigned b = 0; b < g->nclasses; b++)
            if (g->kind_of[b] == k) {
                lo = g->x[b] < lo ? g->x[b] : lo;
                hi = g->x[b] > hi ? g->x[b] : hi;
            }
        if (names) {
            fprintf(f, "set label %u ", 10 + k);
            plot_gp_str(f, g->kinds[k]);
            fprintf(f, " at %g, graph %g center font ',13' front\n", (lo + hi) / 2,
                    k % 2 ? 0.82 : 0.93); /* short groups: names apart */
        }
        if (k)
            fprintf(f, "set arrow %u from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb "
                    "'#555555'\n", 10 + k, lo - 1, lo - 1);
    }
}

static void unset_groups(FILE *f, const struct fig *g)
{
    for (unsigned k = 0; g->nkinds > 1 && k < g->nkinds; k++)
        fprintf(f, "unset label %u\n", 10 + k);
}

static void write_script(FILE *f, const char *term, const void *arg)
{
    const struct fig *g = arg;
    unsigned top = 1;
    for (unsigned k = 0; k < g->nfaults; k++) {
        put_block(f, g, k);
        for (unsigned b = 0; b < g->nclasses; b++) {
            unsigned n = fault_points(&g->cell[k][b]);
            top = n > top ? n : top;
            top = g->cell[k][b].na > top ? g->cell[k][b].na : top;
        }
    }
    /* several fs kinds: many bars, so wider panels */
    unsigned cols = g->nfaults <= 2 ? g->nfaults : g->nfaults == 4 || g->nkinds > 1 ? 2 : 3;
    unsigned rows = (g->nfaults + cols - 1) / cols;
    double left = 0.08, right = 0.78, bottom = 0.24, gapx = 0.03, gapy = 0.1;
    double tp = 0.88 - PLOT_TITLE_LINE * plot_gp_subtitle(NULL, &g->about);
    double w = (right - left - gapx * (cols - 1)) / cols, h = (tp - bottom - gapy * (rows - 1)) / rows;
    fprintf(f, "%s\nset encoding utf8\nset grid ytics\nunset key\n"
            "set style fill solid 0.9 border lc rgb 'black'\n"
            "set tics font ',14'\nset title font ',18' offset 0,-0.6\n"
            "set xtics %s nomirror\nset xrange [-0.6:%g]\nset yrange [0:%u]\n"
            "%s\nset multiplot title ", term,
            /* many bars (several fs kinds): upright names in a smaller font, so
             * neighbours do not overlap */
            g->nclasses > 16 ? "rotate by 90 right font ',10'" : "rotate by 45 right",
            g->xmax + 0.6,
            top + (g->nkinds > 1 ? top / 2 : top / 4) + 1, /* room for the groups' names */
            top <= 10 ? "set ytics 1" : "set ytics autofreq"); /* counts: whole tics */
    plot_gp_str(f, title);
    plot_gp_subtitle(f, &g->about);
    fprintf(f, "\nset label 1 'fault points' at screen 0.02,%.4f center rotate by 90 font ',18'\n",
            (tp + bottom) / 2);
    for (unsigned k = 0; k < g->nfaults; k++) {
        unsigned row = k / cols, col = k % cols;
        double l = left + col * (w + gapx), t = tp - row * (h + gapy);
        fprintf(f, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
                "set tmargin at screen %.4f\nset bmargin at screen %.4f\n", l, l + w, t, t - h);
        char panel[64];
        snprintf(panel, sizeof panel, "fault: %s", g->faults[k]);
        fputs("set title ", f);
        plot_gp_str(f, panel);
        fputc('\n', f);
        put_xtics(f, g, k + cols >= g->nfaults); /* class names under the lowest panels */
        put_groups(f, g, row == 0);
        fputs(col ? "set format y ''\n" : "set format y '%g'\n", f);
        fputs("plot ", f);
        /* the tallest stack first: each shorter one drawn over it */
        for (unsigned o = NOUT; o-- > 0;)
            fprintf(f, "$F%u using " BAR_X ":($%u > 0 ? $%u : NaN):(0.5) with boxes lc rgb '%s', "
                    "\\\n  ", k, o + 2, o + 2, plot_okabe_ito[outcomes[o].colour]);
        fprintf(f, "$F%u using " NA_X ":($%u > 0 ? $%u : NaN):(0.25) with boxes " NA_STYLE "\n",
                k, (unsigned)NOUT + 2, (unsigned)NOUT + 2);
        unset_groups(f, g);
        if (k == 0)
            fputs("unset label 1\n", f);
    }
    /* the key: the outcomes that occur, then the not-applicable points */
    fprintf(f, "set lmargin at screen %.4f\nset rmargin at screen 0.97\n"
            "set tmargin at screen %.4f\nset bmargin at screen %.4f\n"
            "unset border\nunset tics\nunset title\nunset grid\nset xrange [0:1]\n"
            "set yrange [0:1]\nset key inside left top Left reverse box font ',16' "
            "spacing 1.4 samplen 1.5 width -3 title 'outcome' font ',16'\nplot ", right + 0.01, tp,
            bottom);
    int first = 1;
    for (unsigned o = 0; o < NOUT; o++)
        if (g->seen[o]) {
            fprintf(f, "%sNaN with boxes lc rgb '%s' title '%s'", first ? "" : ", \\\n  ",
                    plot_okabe_ito[outcomes[o].colour], outcomes[o].name);
            first = 0;
        }
    if (g->seen[NOUT])
        fprintf(f, "%sNaN with boxes " NA_STYLE " title 'not applicable' . \"\\n\" . "
                "'(erased page)'", first ? "" : ", \\\n  ");
    fputs("\nunset multiplot\n", f);
}

int plot_faults(const char *dbpath, const char *out, const char *data, const char *experiment,
                int64_t run_id, unsigned *bars_out, unsigned *points, char *err, size_t errlen)
{
    int fmt = out ? plot_format_from_path(out) : 0;
    if (fmt < 0)
        return ferr(err, errlen, "cannot tell the format of '%s': name it .png, .svg or .pdf%s",
                    out, "");
    sqlite3 *db;
    if (plot_open_db(dbpath, &db, err, errlen))
        return -1;
    struct fig *g = calloc(1, sizeof *g);
    struct plot_filter flt = {.experiment = experiment, .run_id = run_id};
    int rc = g ? load(db, &flt, g, err, errlen) : ferr(err, errlen, "out of memory%s%s", "", "");
    sqlite3_close(db);
    *bars_out = *points = 0;
    for (unsigned k = 0; g && k < g->nfaults; k++)
        for (unsigned b = 0; b < g->nclasses; b++) {
            unsigned n = fault_points(&g->cell[k][b]) + g->cell[k][b].na;
            *bars_out += n > 0;
            *points += n;
        }
    if (!rc && data) {
        FILE *f = fopen(data, "w");
        if (!f || write_data(f, g) || fclose(f))
            rc = ferr(err, errlen, "%s: write failed%s", data, "");
    }
    if (!rc && out)
        rc = plot_render_with(write_script, g, out, (enum plot_format)fmt, err, errlen);
    if (g)
        plot_free(&g->about);
    free(g);
    return rc;
}

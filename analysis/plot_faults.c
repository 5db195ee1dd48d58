/*
 * plot_faults.c -- outcomes of a media-fault campaign by page class, as
 * stacked bars (plot_faults.h).  The counts come from one GROUP BY over
 * the faults table; gnuplot draws them from a data file in a private
 * temporary directory, writing the image to its stdout (no file name of
 * the caller's is ever inside the script).
 */
#include "plot_faults.h"
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The outcomes in stacking order (good at the bottom) with their colours;
 * the names are those of experiment/faults.c. */
static const struct { const char *name, *colour; } outcomes[] = {
    {"ok", "#4daf4a"},          {"eio", "#ffd92f"},        {"rolled-back", "#377eb8"},
    {"refused", "#ff7f00"},     {"n/a", "#bbbbbb"},        {"lost", "#a65628"},
    {"wrong-bytes", "#e41a1c"}, {"silent-rollback", "#984ea3"}, {"crash", "#000000"},
};
#define NOUT (sizeof outcomes / sizeof *outcomes)
#define MAX_BARS 256

struct bar {
    char label[96];
    unsigned n[NOUT];
};

static int ferr(char *err, size_t n, const char *fmt, const char *a, const char *b)
{
    snprintf(err, n, fmt, a, b);
    return -1;
}

static int load(sqlite3 *db, const char *experiment, int64_t run_id, struct bar *bars,
                unsigned *nbars, int *several, char *err, size_t errlen)
{
    static const char sql[] =
        "SELECT coalesce(json_extract(r.params, '$.fs.kind'), 'logfs') AS kind, f.class,"
        " f.outcome, count(*), min(f.rowid) AS first"
        " FROM faults f JOIN runs r ON r.id = f.run_id JOIN experiments e ON e.id = r.experiment_id"
        " WHERE (?1 IS NULL OR e.id IN (SELECT value FROM json_each(?1))) AND (?2 = 0 OR r.id = ?2)"
        " GROUP BY kind, f.class, f.outcome ORDER BY min(r.id), kind,"
        " min(f.point) FILTER (WHERE 1), f.class";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return ferr(err, errlen, "no faults table here (%s)%s", sqlite3_errmsg(db),
                    ": run flashlab faults first");
    char *ids = NULL;
    if (results_select_experiments(db, experiment, &ids, err, errlen)) {
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_text(st, 1, ids, -1, SQLITE_TRANSIENT);
    free(ids);
    sqlite3_bind_int64(st, 2, run_id);
    char kinds[8][32];
    unsigned nk = 0;
    *nbars = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *kind = (const char *)sqlite3_column_text(st, 0);
        const char *cls = (const char *)sqlite3_column_text(st, 1);
        const char *oc = (const char *)sqlite3_column_text(st, 2);
        unsigned cnt = (unsigned)sqlite3_column_int64(st, 3);
        char label[96];
        snprintf(label, sizeof label, "%s/%s", kind ? kind : "?", cls ? cls : "?");
        unsigned k = 0;
        while (k < nk && strcmp(kinds[k], kind ? kind : "?"))
            k++;
        if (k == nk && nk < 8)
            snprintf(kinds[nk++], sizeof kinds[0], "%s", kind ? kind : "?");
        unsigned b = 0;
        while (b < *nbars && strcmp(bars[b].label, label))
            b++;
        if (b == *nbars) {
            if (*nbars == MAX_BARS)
                continue;
            memset(&bars[b], 0, sizeof bars[b]);
            snprintf(bars[b].label, sizeof bars[b].label, "%s", label);
            (*nbars)++;
        }
        for (unsigned o = 0; o < NOUT; o++)
            if (oc && !strcmp(oc, outcomes[o].name))
                bars[b].n[o] += cnt;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return ferr(err, errlen, "reading the faults table: %s%s", sqlite3_errmsg(db), "");
    if (!*nbars)
        return ferr(err, errlen, "no fault points in this database%s%s",
                    experiment ? " for experiment " : "", experiment ? experiment : "");
    *several = nk > 1;
    return 0;
}

static int write_data(FILE *f, const struct bar *bars, unsigned n, int several)
{
    fprintf(f, "# class");
    for (unsigned o = 0; o < NOUT; o++)
        fprintf(f, "\t%s", outcomes[o].name);
    fputc('\n', f);
    for (unsigned b = 0; b < n; b++) {
        const char *l = several ? bars[b].label : strchr(bars[b].label, '/') + 1;
        fprintf(f, "\"%s\"", l);
        for (unsigned o = 0; o < NOUT; o++)
            fprintf(f, "\t%u", bars[b].n[o]);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

static const char *terminal(const char *out)
{
    const char *dot = strrchr(out, '.');
    if (dot && !strcmp(dot, ".svg"))
        return "svg size 1000,560 dynamic";
    if (dot && !strcmp(dot, ".pdf"))
        return "pdfcairo size 10in,5.6in";
    if (dot && !strcmp(dot, ".png"))
        return "pngcairo size 1000,560";
    return NULL;
}

/* gnuplot, run on script with its stdout into tmp; then tmp becomes out. */
static int run_gnuplot(const char *dir, const char *out, char *err, size_t errlen)
{
    const char *prog = getenv("FLASHLAB_GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    char script[600], img[600];
    snprintf(script, sizeof script, "%s/faults.gp", dir);
    snprintf(img, sizeof img, "%s/out", dir);
    int fd = open(img, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return ferr(err, errlen, "%s: %s", img, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) || dup2(fd, 1) < 0)
            _exit(126);
        execlp(prog, prog, "faults.gp", (char *)NULL);
        _exit(127);
    }
    close(fd);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return ferr(err, errlen, "cannot run %s%s", prog, "");
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        return ferr(err, errlen, "%s failed (%s); its messages are above", prog,
                    WIFEXITED(st) && WEXITSTATUS(st) == 127 ? "not installed?" : "exit");
    /* copy, not rename: out may be on another file system */
    FILE *in = fopen(img, "rb"), *o = fopen(out, "wb");
    int rc = 0;
    if (!in || !o) {
        rc = ferr(err, errlen, "%s: %s", in ? out : img, strerror(errno));
    } else {
        char buf[65536];
        size_t n, total = 0;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
            total += n;
            if (fwrite(buf, 1, n, o) != n)
                rc = ferr(err, errlen, "%s: %s", out, strerror(errno));
        }
        if (!total)
            rc = ferr(err, errlen, "%s wrote an empty image%s", prog, "");
    }
    if (in)
        fclose(in);
    if (o && fclose(o) && !rc)
        rc = ferr(err, errlen, "%s: %s", out, strerror(errno));
    return rc;
}

static void write_script(FILE *f, const char *term, unsigned nbars, int several)
{
    fprintf(f, "set terminal %s font 'sans,10'\n", term);
    fprintf(f, "set title 'media faults: outcome of each fault point, by what the page held'\n"
               "set ylabel 'fault points'\nset style data histograms\n"
               "set style histogram rowstacked\nset style fill solid 0.9 border -1\n"
               "set boxwidth 0.75\nset key outside right top vertical\n"
               "set xtics rotate by -40 nomirror\nset grid ytics\nset yrange [0:*]\n");
    if (several)
        fprintf(f, "set xlabel 'fs kind / page class'\n");
    else
        fprintf(f, "set xlabel 'page class'\n");
    (void)nbars;
    fprintf(f, "plot ");
    for (unsigned o = 0; o < NOUT; o++)
        fprintf(f, "%s'faults.dat' using %u%s title '%s' lc rgb '%s'", o ? ", \\\n     " : "",
                o + 2, o ? "" : ":xtic(1)", outcomes[o].name, outcomes[o].colour);
    fputc('\n', f);
}

int plot_faults(const char *dbpath, const char *out, const char *data, const char *experiment,
                int64_t run_id, unsigned *bars_out, unsigned *points, char *err, size_t errlen)
{
    const char *term = out ? terminal(out) : NULL;
    if (out && !term)
        return ferr(err, errlen, "cannot tell the format of '%s': name it .png, .svg or .pdf%s",
                    out, "");
    sqlite3 *db;
    if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        ferr(err, errlen, "%s: %s", dbpath, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    struct bar *bars = calloc(MAX_BARS, sizeof *bars);
    unsigned n = 0;
    int several = 0, rc = bars ? load(db, experiment, run_id, bars, &n, &several, err, errlen)
                               : ferr(err, errlen, "out of memory%s%s", "", "");
    sqlite3_close(db);
    *bars_out = n;
    *points = 0;
    for (unsigned b = 0; b < n; b++)
        for (unsigned o = 0; o < NOUT; o++)
            *points += bars[b].n[o];
    if (!rc && data) {
        FILE *f = fopen(data, "w");
        if (!f || write_data(f, bars, n, several) || fclose(f))
            rc = ferr(err, errlen, "%s: %s", data, strerror(errno));
    }
    if (!rc && out) {
        char dir[] = "/tmp/flashlab-faults-XXXXXX";
        if (!mkdtemp(dir)) {
            rc = ferr(err, errlen, "mkdtemp: %s%s", strerror(errno), "");
        } else {
            char p1[600], p2[600], p3[600];
            snprintf(p1, sizeof p1, "%s/faults.dat", dir);
            snprintf(p2, sizeof p2, "%s/faults.gp", dir);
            snprintf(p3, sizeof p3, "%s/out", dir);
            FILE *d = fopen(p1, "w"), *s = fopen(p2, "w");
            if (!d || !s || write_data(d, bars, n, several))
                rc = ferr(err, errlen, "%s: %s", dir, strerror(errno));
            else
                write_script(s, term, n, several);
            if (d)
                fclose(d);
            if (s)
                fclose(s);
            if (!rc)
                rc = run_gnuplot(dir, out, err, errlen);
            unlink(p1);
            unlink(p2);
            unlink(p3);
            rmdir(dir);
        }
    }
    free(bars);
    return rc;
}

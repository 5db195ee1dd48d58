/*
 * plot_gnuplot.c -- draw a struct plot with gnuplot.
 *
 * The script, with the points as inline data blocks, is a file in a fresh
 * mkdtemp directory; gnuplot runs it by fork/exec (no shell) and writes the
 * image to its stdout, a file in the same directory, which is copied to the
 * destination only when gnuplot exits 0.  So no file name is ever inside
 * the script, and strings from the database (series names) go in as
 * single-quoted gnuplot strings, where neither backquotes nor macros are
 * expanded, with quotes doubled and control characters replaced.
 */
#include "plot_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

/* Characters of a title line that fit the figure's width. */
#define SUBTITLE_LINE 70

/* Paper size: 6.5 x 4 in (1300 x 800 px), fonts readable when printed. */
#define PX_SIZE "size 1300,800 font \",22\" noenhanced linewidth 2"
#define PDF_SIZE "size 6.5in,4in font \",12\" noenhanced linewidth 2"

int plot_format_from_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return -1;
    if (!strcasecmp(dot, ".png"))
        return PLOT_PNG;
    if (!strcasecmp(dot, ".svg"))
        return PLOT_SVG;
    if (!strcasecmp(dot, ".pdf"))
        return PLOT_PDF;
    return -1;
}

static int ferr(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int ferr(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A private temporary directory and the files plot_render puts in it. */
struct tmp {
    char dir[4096], script[4200], out[4200];
};

static int tmp_make(struct tmp *t, char *err, size_t n)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(t->dir, sizeof t->dir, "%s/flashlab-plot-XXXXXX", base);
    if (!mkdtemp(t->dir))
        return ferr(err, n, "cannot make a temporary directory in %s: %s", base,
                    strerror(errno));
    snprintf(t->script, sizeof t->script, "%s/plot.gp", t->dir);
    snprintf(t->out, sizeof t->out, "%s/out", t->dir);
    return 0;
}

static void tmp_remove(struct tmp *t)
{
    unlink(t->script);
    unlink(t->out);
    rmdir(t->dir);
}

/* Run gnuplot on script with its stdout in the file out; its exit code, or
 * -1 when it could not run (err says why). */
static int run_gnuplot(const char *script, const char *out, char *err, size_t n)
{
    const char *prog = getenv("FLASHLAB_GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return ferr(err, n, "%s: %s", out, strerror(errno));
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        return ferr(err, n, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0)
            _exit(126);
        execlp(prog, prog, script, (char *)NULL);
        _exit(127);
    }
    close(fd);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return ferr(err, n, "waitpid: %s", strerror(errno));
    if (WIFSIGNALED(st))
        return ferr(err, n, "%s killed by signal %d", prog, WTERMSIG(st));
    if (WEXITSTATUS(st) == 127)
        return ferr(err, n, "cannot run %s: install gnuplot (e.g. gnuplot-nox)", prog);
    return WEXITSTATUS(st);
}

/* Whether gnuplot has terminal name (from its GPVAL_TERMINALS list). */
static int has_terminal(struct tmp *t, const char *name, char *err, size_t n)
{
    FILE *fp = fopen(t->script, "w");
    if (!fp)
        return ferr(err, n, "%s: %s", t->script, strerror(errno));
    fputs("set print '-'\nprint ' ' . GPVAL_TERMINALS . ' '\n", fp);
    if (fclose(fp))
        return ferr(err, n, "%s: %s", t->script, strerror(errno));
    int rc = run_gnuplot(t->script, t->out, err, n);
    if (rc < 0)
        return -1;
    if (rc)
        return ferr(err, n, "gnuplot failed (exit %d) listing its terminals", rc);
    char list[8192] = {0}, word[64];
    fp = fopen(t->out, "r");
    if (!fp)
        return ferr(err, n, "%s: %s", t->out, strerror(errno));
    size_t got = fread(list, 1, sizeof list - 1, fp);
    fclose(fp);
    list[got] = 0;
    snprintf(word, sizeof word, " %s ", name);
    return strstr(list, word) != NULL;
}

/* The terminal line for fmt, or NULL with err set when gnuplot lacks it. */
static const char *terminal(struct tmp *t, enum plot_format fmt, char *err, size_t n)
{
    static const struct {
        const char *term, *line;
    } pick[3][2] = {
        [PLOT_PNG] = {{"pngcairo", "set terminal pngcairo " PX_SIZE},
                      {"png", "set terminal png size 1300,800 font 'sans,18' noenhanced"}},
        [PLOT_SVG] = {{"svg", "set terminal svg " PX_SIZE " background rgb 'white'"},
                      {NULL, NULL}},
        [PLOT_PDF] = {{"pdfcairo", "set terminal pdfcairo " PDF_SIZE}, {NULL, NULL}},
    };
    static const char *const what[] = {"PNG (pngcairo or png)", "SVG (svg)",
                                       "PDF (pdfcairo)"};
    for (int i = 0; i < 2 && pick[fmt][i].term; i++) {
        int has = has_terminal(t, pick[fmt][i].term, err, n);
        if (has < 0)
            return NULL;
        if (has)
            return pick[fmt][i].line;
    }
    ferr(err, n, "this gnuplot has no terminal for %s: install one with cairo "
         "(e.g. gnuplot-nox), or pick another format", what[fmt]);
    return NULL;
}

/* s as a single-quoted gnuplot string. */
static void put_str(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            fputs("''", fp);
        else
            fputc(c < 0x20 || c == 0x7f ? ' ' : c, fp);
    }
    fputc('\'', fp);
}

static void put_set(FILE *fp, const char *what, const char *s)
{
    fprintf(fp, "set %s ", what);
    put_str(fp, s);
    fputc('\n', fp);
}

/* The Okabe-Ito palette (colour-blind safe), yellow last: series 1..8
 * take these colours, 9..16 again dashed (dt 2), 17..24 dt 3, 25..32 dt 4
 * (put_dash), as gnuplot linetypes (all solid, so that no plot element
 * gets a dash from its position), so "lc N" is series N's colour. */
const char *const plot_okabe_ito[PLOT_PALETTE] = {"#E69F00", "#56B4E9", "#009E73", "#0072B2",
                                                  "#D55E00", "#CC79A7", "#000000", "#F0E442"};
#define PALETTE PLOT_PALETTE
#define LINETYPES 48

static void put_palette(FILE *fp)
{
    for (int i = 0; i < LINETYPES; i++)
        fprintf(fp, "set linetype %d lc rgb '%s' lw 1.5 dt solid\n", i + 1,
                plot_okabe_ito[i % PALETTE]);
}

/* " dt K": the series' own dash, or for colour c beyond the palette's
 * first round the round's ("" within it). */
static void put_dash(FILE *fp, const struct plot_series *s, size_t c)
{
    if (s->dash)
        fprintf(fp, " dt %u", s->dash);
    else if (c > PALETTE)
        fprintf(fp, " dt %zu", 1 + (c - 1) / PALETTE % 4);
}

/* The point type of series s in colour c. */
static size_t mark(const struct plot_series *s, size_t c)
{
    return (s->mark ? s->mark : c) + 4;
}

static int has_spread(const struct plot_series *s)
{
    for (size_t j = 0; j < s->n; j++)
        if (s->pts[j].n > 1)
            return 1;
    return 0;
}

/* The plot clause of series i (data block $Di: x, y, sd); style from the
 * series.  *models counts the dashed curves so far, which differ in dash
 * and grey.  key: with a title (else notitle).  A series that averages
 * runs gets its spread: error bars (points, histogram steps) or a band
 * (lines, CDF steps) of mean +- 1 sd. */
static void put_clause(FILE *fp, const struct plot *p, size_t i, int *first, int *models,
                       int key)
{
    static const char *const grey[] = {"black", "gray40", "gray60"};
    const struct plot_series *s = &p->series[i];
    size_t c = s->colour ? s->colour : i + 1; /* colour and point type */
    double shift = p->bin_width > 1 ? (p->bin_width - 1) / 2 : 0; /* bin centre */
    int spread = has_spread(s);
    const char *sep = *first ? "plot " : ", \\\n  ";
    *first = 0;
    if (spread && (s->style == PLOT_LINES || (s->style == PLOT_STEPS &&
                                              p->kind == PLOT_ERASE_CDF))) {
        fprintf(fp, "%s$D%zu using ($1/%.17g + %.17g):(($2-$3)/%.17g):(($2+$3)/%.17g) "
                "with filledcurves lc %zu fs transparent solid 0.2 noborder notitle", sep, i,
                p->xdiv, shift, p->ydiv, p->ydiv, c);
        sep = ", \\\n  ";
    }
    if (spread && s->style == PLOT_STEPS && p->kind == PLOT_ERASE_HIST) {
        fprintf(fp, "%s$D%zu using ($1/%.17g + %.17g):($2/%.17g):($3/%.17g) "
                "with yerrorbars lc %zu pt 7 ps 0.4 notitle", sep, i, p->xdiv, shift, p->ydiv,
                p->ydiv, c);
        sep = ", \\\n  ";
    }
    if (spread && s->style == PLOT_LINESPOINTS)
        fprintf(fp, "%s$D%zu using ($1/%.17g + %.17g):($2/%.17g):($3/%.17g) ", sep, i,
                p->xdiv, shift, p->ydiv, p->ydiv);
    else
        fprintf(fp, "%s$D%zu using ($1/%.17g + %.17g):($2/%.17g) ", sep, i, p->xdiv, shift,
                p->ydiv);
    switch (s->style) {
    case PLOT_STEPS:
        fprintf(fp, "with %s lc %zu", p->kind == PLOT_ERASE_HIST ? "histeps" : "steps", c);
        put_dash(fp, s, c);
        break;
    case PLOT_LINESPOINTS:
        fprintf(fp, "with %s lc %zu pt %zu ps 1.5", spread ? "yerrorlines" : "linespoints", c,
                mark(s, c));
        put_dash(fp, s, c);
        break;
    case PLOT_DASHED_POINTS:
        fprintf(fp, "with linespoints dt 2 lc %zu pt %zu ps 1.5", c, mark(s, c));
        break;
    case PLOT_LINES:
        fprintf(fp, "with lines lc %zu", c);
        put_dash(fp, s, c);
        break;
    case PLOT_DASHED:
        fprintf(fp, "with lines dt %d lc rgb '%s'", 2 + *models, grey[*models % 3]);
        ++*models;
        break;
    case PLOT_BARS:
        /* $Mi: the group's mean and sd; $Di the runs. */
        fprintf(fp, "notitle, \\\n  $M%zu using 1:($2/%.17g) with boxes fs solid 0.5 lc %zu "
                "notitle, \\\n  $M%zu using 1:($2/%.17g):($3/%.17g) with yerrorbars lc "
                "rgb 'black' pt -1 notitle, \\\n  $D%zu using 1:($2/%.17g) with points pt 7 "
                "ps 1.5 lc %zu", i, p->ydiv, c, i, p->ydiv, p->ydiv, i, p->ydiv, c);
        break;
    }
    if (key) {
        fputs(" title ", fp);
        put_str(fp, s->legend ? s->legend : s->name);
    } else {
        fputs(" notitle", fp);
    }
}

/* Powers of two of bytes as "16 MiB", "1 GiB", ... */
static void put_bytes_label(FILE *fp, int e)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = e < 0 ? 0 : e / 10 > 6 ? 6 : e / 10;
    fprintf(fp, "'%g %s'", ldexp(1, e - 10 * u), unit[u]);
}

/* mount-size's axes.  x: tics at powers of two of bytes, named ("64 MiB",
 * "1 GiB"), at most 8 of them (every 2nd, 4th, ... power when the sizes
 * span more), the range a little wider than the sizes.  y: from below the
 * fastest mount to high enough that the key (top left, about KEY_ROW of
 * the height per line) sits above every line. */
#define MAX_SIZE_TICS 8
#define KEY_ROW 0.05
static void put_size_axes(FILE *fp, const struct plot *p)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    size_t drawn = 0;
    for (size_t i = 0; i < p->nseries; i++) {
        drawn += p->series[i].n > 0;
        for (size_t j = 0; j < p->series[i].n; j++) {
            xlo = fmin(xlo, p->series[i].pts[j].x);
            xhi = fmax(xhi, p->series[i].pts[j].x);
            ylo = fmin(ylo, p->series[i].pts[j].y / p->ydiv);
            yhi = fmax(yhi, p->series[i].pts[j].y / p->ydiv);
        }
    }
    if (!(xlo > 0 && ylo > 0 && isfinite(xhi) && isfinite(yhi)))
        return; /* nothing a log axis can show: gnuplot's defaults */
    int e0 = (int)floor(log2(xlo)), e1 = (int)ceil(log2(xhi)), step = 1, tics = 0;
    while ((e1 - e0) / step + 1 > MAX_SIZE_TICS)
        step *= 2;
    double from = xlo / 1.4, to = xhi * 1.4;
    fprintf(fp, "set xrange [%.17g:%.17g]\n", from / p->xdiv, to / p->xdiv);
    for (int e = e0 - step; e <= e1 + step; e++) {
        double v = ldexp(1, e);
        if (e % step || v < from || v > to)
            continue;
        fputs(tics++ ? ", " : "set xtics (", fp);
        put_bytes_label(fp, e);
        fprintf(fp, " %.17g", v / p->xdiv);
    }
    if (tics)
        fputs(")\n", fp);
    double lo = floor(log10(ylo / 1.3)), hi = fmax(lo + 1, log10(yhi * 1.3)); /* 2 tics */
    double key = fmin(0.5, KEY_ROW * (double)(drawn + 1)); /* the lines and the box */
    fprintf(fp, "set yrange [%.17g:%.17g]\n", pow(10, lo), pow(10, lo + (hi - lo) / (1 - key)));
}

/* wa-util: the top of the y axis when the models would squash the
 * measurements (they blow up towards u = 1): WA_HEADROOM times the highest
 * measured mean + sd, in axis units; 0 when the models stay below that
 * (gnuplot's autoscale then shows them whole). */
#define WA_HEADROOM 1.6
static double wa_util_top(const struct plot *p)
{
    double data = 0, models = 0;
    for (size_t i = 0; i < p->nseries; i++)
        for (size_t j = 0; j < p->series[i].n; j++) {
            const struct plot_point *q = &p->series[i].pts[j];
            if (p->series[i].style == PLOT_DASHED)
                models = fmax(models, q->y / p->ydiv);
            else
                data = fmax(data, (q->y + q->sd) / p->ydiv);
        }
    return data > 0 && models > WA_HEADROOM * data ? WA_HEADROOM * data : 0;
}

/* The x and y ranges (axis units) of everything drawn, for panels that
 * share their axes. */
static void put_shared_ranges(FILE *fp, const struct plot *p)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < p->nseries; i++)
        for (size_t j = 0; j < p->series[i].n; j++) {
            const struct plot_point *q = &p->series[i].pts[j];
            xlo = fmin(xlo, q->x / p->xdiv);
            xhi = fmax(xhi, q->x / p->xdiv);
            ylo = fmin(ylo, (q->y - q->sd) / p->ydiv);
            yhi = fmax(yhi, (q->y + q->sd) / p->ydiv);
        }
    if (!(isfinite(xlo) && isfinite(ylo)))
        return;
    double xpad = xhi > xlo ? (xhi - xlo) * 0.03 : 1, ypad = yhi > ylo ? (yhi - ylo) * 0.05 : 1;
    if (p->kind != PLOT_LIFETIME)
        fprintf(fp, "set xrange [%.17g:%.17g]\n", xlo - xpad, xhi + xpad);
    if (p->kind == PLOT_ERASE_CDF)
        fputs("set yrange [0:1.05]\n", fp);
    else if (p->kind == PLOT_WA_UTIL)
        fprintf(fp, "set yrange [1:%.17g]\n", wa_util_top(p) > 0 ? wa_util_top(p) : yhi + ypad);
    else
        fprintf(fp, "set yrange [%.17g:%.17g]\n", fmax(0, ylo - ypad), yhi + ypad);
}

/* lifetime: whether a bar is the mean of several runs. */
static int runs_averaged(const struct plot *p)
{
    for (size_t i = 0; i < p->nseries; i++)
        if (p->series[i].n > 1)
            return 1;
    return 0;
}

/* The runs' workloads and devices (and acceleration) on the title's next
 * lines: its parts ("; "-separated) packed into lines that fit the width,
 * so that none is cut off.  Returns the number of lines (fp NULL: only
 * counts them). */
static int put_subtitle(FILE *fp, const struct plot *p)
{
    char line[SUBTITLE_LINE * 4];
    size_t len = 0;
    int lines = 0;
    for (const char *s = p->subtitle; s && *s;) {
        const char *e = strstr(s, "; ");
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (len && len + 2 + n > SUBTITLE_LINE) {
            if (fp) {
                fputs(" . \"\\n\" . ", fp);
                put_str(fp, line);
            }
            lines++;
            len = 0;
        }
        if (len + 2 + n < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%.*s", len ? "; " : "",
                                    (int)n, s);
        s += n + (e ? 2 : 0);
    }
    if (len && fp) {
        fputs(" . \"\\n\" . ", fp);
        put_str(fp, line);
    }
    return lines + (len > 0);
}

/* A series' name in the panels' narrow key column: a model's assumptions
 * ("greedy model (uniform random, Np=32)") as an entry of their own under
 * it, without a sample (gnuplot's key does not make room for a name of
 * two lines). */
static void put_key_name(FILE *fp, const struct plot_series *s, const char *name)
{
    const char *paren = s->style == PLOT_DASHED ? strstr(name, " (") : NULL;
    if (!paren) {
        put_str(fp, name);
        return;
    }
    char head[512];
    snprintf(head, sizeof head, "%.*s", (int)(paren - name), name);
    put_str(fp, head);
    fputs(", \\\n  NaN with lines lt nodraw title ", fp);
    put_str(fp, paren + 1);
}

/* The title, with what the error bars or bands are. */
static void put_title(FILE *fp, const struct plot *p, const char *what)
{
    char t[600];
    snprintf(t, sizeof t, "%s%s", p->title,
             p->kind == PLOT_LIFETIME && runs_averaged(p) ? " (bars: mean ± 1 sd; dots: runs)"
                                                          : "");
    fprintf(fp, "set %s ", what);
    put_str(fp, t);
    put_subtitle(fp, p);
    fputc('\n', fp);
}

/* The key's title: the keys naming the series and, when points are means,
 * what the error bars or bands are (brief: the panels' narrow key column,
 * under a title that says the rest). */
static void put_key_title(FILE *fp, const struct plot *p, int brief)
{
    if (!p->key_title && !p->spread)
        return;
    fputs("set key title ", fp);
    if (p->key_title)
        put_str(fp, p->key_title);
    if (p->key_title && p->spread)
        fputs(" . \"\\n\" . ", fp);
    int bars = p->kind == PLOT_ERASE_HIST || p->kind == PLOT_WA_UTIL;
    if (p->spread && brief)
        put_str(fp, bars ? "(bars: ± 1 sd)" : "(bands: ± 1 sd)");
    else if (p->spread)
        put_str(fp, bars ? "(mean of seeds, bar ± 1 sd)" : "(mean of seeds, band ± 1 sd)");
    fputs(" font ',16'\n", fp);
}

void plot_write_script(FILE *fp, const struct plot *p, const char *term)
{
    fprintf(fp, "# flashlab plot %s\n", plot_kind_name(p->kind));
    for (size_t i = 0; i < p->nseries; i++) {
        const struct plot_series *s = &p->series[i];
        fprintf(fp, "$D%zu << EOD\n", i);
        int sd = has_spread(s); /* a third column only for means */
        for (size_t j = 0; j < s->n; j++) {
            fprintf(fp, "%.17g %.17g", s->pts[j].x, s->pts[j].y);
            if (sd)
                fprintf(fp, " %.17g", s->pts[j].sd);
            fputc('\n', fp);
        }
        fputs("EOD\n", fp);
        if (s->style == PLOT_BARS && s->n) { /* the mean and sd of the runs */
            double sum = 0, dev = 0, n = (double)s->n;
            for (size_t j = 0; j < s->n; j++)
                sum += s->pts[j].y;
            for (size_t j = 0; j < s->n; j++)
                dev += (s->pts[j].y - sum / n) * (s->pts[j].y - sum / n);
            fprintf(fp, "$M%zu << EOD\n%.17g %.17g %.17g\nEOD\n", i, s->pts[0].x, sum / n,
                    s->n > 1 ? sqrt(dev / (n - 1)) : 0.0);
        }
    }
    fprintf(fp, "%s\nset encoding utf8\nset grid\n", term);
    put_palette(fp);
    if (p->kind == PLOT_MOUNT_SIZE) /* put_size_axes keeps the lines below it */
        fputs("set key top left box opaque\n", fp);
    else if (p->kind == PLOT_WA_UTIL) /* the models' names are long; WA rises to the right */
        fputs("set key inside left top box opaque font ',16' samplen 2\n", fp);
    else
        fputs("set key outside right top box font ',18' samplen 2\n", fp);
    put_key_title(fp, p, 0);
    if (!p->npanels)
        put_title(fp, p, "title");
    put_set(fp, "xlabel", p->xlabel);
    put_set(fp, "ylabel", p->ylabel);
    if (p->logx)
        fputs("set logscale x\n", fp);
    if (p->logy)
        fputs("set logscale y\n", fp);
    if (p->kind == PLOT_ERASE_CDF)
        fputs("set yrange [0:1.05]\n", fp);
    if (p->kind == PLOT_ERASE_HIST)
        fputs("set yrange [0:*]\n", fp);
    if (p->kind == PLOT_WA_UTIL) {
        if (wa_util_top(p) > 0)
            fprintf(fp, "set yrange [1:%.17g]\nset xtics 0.1\n", wa_util_top(p));
        else
            fputs("set yrange [1:*]\nset xtics 0.1\n", fp);
    }
    if (p->kind == PLOT_MOUNT_SIZE)
        put_size_axes(fp, p);
    if (p->kind == PLOT_LIFETIME) {
        /* Bars side by side, named on the x axis (one line per key's value), not in a key. */
        fprintf(fp, "unset key\nset boxwidth 0.6\nset yrange [0:*]\nset xrange [0.5:%zu.5]\n"
                "set bmargin 5\nset xtics font ',%d' (", p->nseries, p->nseries > 4 ? 17 : 22);
        for (size_t i = 0; i < p->nseries; i++) {
            fputs(i ? ", " : "", fp);
            const char *name = p->series[i].name, *comma;
            while ((comma = strstr(name, ", "))) {
                char part[512];
                snprintf(part, sizeof part, "%.*s", (int)(comma - name), name);
                put_str(fp, part);
                fputs(" . \"\\n\" . ", fp);
                name = comma + 2;
            }
            put_str(fp, name);
            fprintf(fp, " %zu", i + 1);
        }
        fputs(")\n", fp);
    }
    int first = 1, models = 0;
    if (!p->npanels) {
        for (size_t i = 0; i < p->nseries; i++)
            if (p->series[i].n)
                put_clause(fp, p, i, &first, &models, 1);
        fputc('\n', fp);
        return;
    }
    /* Small multiples: a panel per value of the facet key, on shared axes,
     * axis labels on the outer panels only, and the key once, in a column
     * of its own at the right (every name, drawn from no data). */
    size_t cols = p->npanels <= 3 ? p->npanels : p->npanels == 4 ? 2 : 3;
    size_t rows = (p->npanels + cols - 1) / cols;
    /* the panels start below the title's lines */
    double left = 0.09, right = 0.70, bottom = 0.13, gapx = 0.035, gapy = 0.08;
    double top = 0.88 - PLOT_TITLE_LINE * put_subtitle(NULL, p);
    double w = (right - left - gapx * (double)(cols - 1)) / (double)cols;
    double h = (top - bottom - gapy * (double)(rows - 1)) / (double)rows;
    put_shared_ranges(fp, p);
    fputs("set tics font ',16'\nset title font ',18' offset 0,-0.6\nunset key\n"
          "unset xlabel\nunset ylabel\nset multiplot title ", fp);
    char t[700];
    snprintf(t, sizeof t, "%s, by %s%s", p->title, p->facet,
             p->spread ? (p->kind == PLOT_ERASE_HIST || p->kind == PLOT_WA_UTIL
                              ? " (mean of seeds, bars ± 1 sd)"
                                                     : " (mean of seeds, band ± 1 sd)")
                       : "");
    put_str(fp, t);
    put_subtitle(fp, p);
    fputc('\n', fp);
    /* The axis labels once for all the panels, drawn with the first. */
    fputs("set label 1 ", fp);
    put_str(fp, p->xlabel);
    fprintf(fp, " at screen %.4f,0.03 center font ',18'\nset label 2 ", (left + right) / 2);
    put_str(fp, p->ylabel);
    fprintf(fp, " at screen 0.02,%.4f center rotate by 90 font ',18'\n", (top + bottom) / 2);
    for (size_t k = 0; k < p->npanels; k++) {
        size_t row = k / cols, col = k % cols;
        double l = left + (double)col * (w + gapx), tp = top - (double)row * (h + gapy);
        fprintf(fp, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
                "set tmargin at screen %.4f\nset bmargin at screen %.4f\n", l, l + w, tp,
                tp - h);
        put_set(fp, "title", p->panels[k]);
        /* tic labels under the lowest panel of each column and at the left */
        if (k + cols < p->npanels)
            fputs("set format x ''\n", fp);
        if (col > 0)
            fputs("set format y ''\n", fp);
        first = 1;
        models = 0;
        for (size_t i = 0; i < p->nseries; i++)
            if (p->series[i].n && (p->series[i].panel == k ||
                                   p->series[i].panel == PLOT_ALL_PANELS))
                put_clause(fp, p, i, &first, &models, 0);
        fputs("\nset format x '%g'\nset format y '%g'\n", fp);
        if (k == 0)
            fputs("unset label 1\nunset label 2\n", fp);
    }
    /* The key: one entry per name (series of one name share their style). */
    fprintf(fp, "set lmargin at screen %.4f\nset rmargin at screen 0.99\n"
            "set tmargin at screen %.4f\nset bmargin at screen %.4f\n"
            "unset border\nunset tics\nunset xlabel\nunset ylabel\nunset title\nunset grid\n"
            "unset logscale\nset xrange [0:1]\nset yrange [0:1]\n"
            "set key inside left top Left reverse box font ',16' width -8\n", right + 0.01, top, bottom);
    put_key_title(fp, p, 1);
    first = 1;
    models = 0;
    for (size_t i = 0; i < p->nseries; i++) {
        const struct plot_series *s = &p->series[i];
        const char *nm = s->legend ? s->legend : s->name;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(nm, p->series[j].legend ? p->series[j].legend : p->series[j].name);
        if (seen)
            continue;
        size_t c = s->colour ? s->colour : i + 1;
        fputs(first ? "plot " : ", \\\n  ", fp);
        first = 0;
        if (s->style == PLOT_DASHED) {
            static const char *const grey[] = {"black", "gray40", "gray60"};
            fprintf(fp, "NaN with lines dt %d lc rgb '%s'", 2 + models, grey[models % 3]);
            models++;
        } else if (s->style == PLOT_LINESPOINTS) {
            fprintf(fp, "NaN with linespoints lc %zu pt %zu ps 1.5", c, mark(s, c));
            put_dash(fp, s, c);
        } else {
            fprintf(fp, "NaN with lines lc %zu", c);
            put_dash(fp, s, c);
        }
        fputs(" title ", fp);
        put_key_name(fp, s, nm);
    }
    fputs("\nunset multiplot\n", fp);
}

/* Copy the file from to to (created or truncated). */
static int copy_file(const char *from, const char *to, char *err, size_t n)
{
    char buf[65536];
    int in = open(from, O_RDONLY);
    if (in < 0)
        return ferr(err, n, "%s: %s", from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (out < 0) {
        close(in);
        return ferr(err, n, "cannot write %s: %s", to, strerror(errno));
    }
    ssize_t got, total = 0;
    int rc = 0;
    while ((got = read(in, buf, sizeof buf)) > 0 && !rc) {
        for (ssize_t off = 0; off < got && !rc;) {
            ssize_t w = write(out, buf + off, (size_t)(got - off));
            if (w < 0 && errno != EINTR)
                rc = ferr(err, n, "cannot write %s: %s", to, strerror(errno));
            off += w > 0 ? w : 0;
        }
        total += got;
    }
    if (got < 0 && !rc)
        rc = ferr(err, n, "%s: %s", from, strerror(errno));
    if (!rc && total == 0)
        rc = ferr(err, n, "gnuplot wrote an empty image");
    close(in);
    if (close(out) && !rc)
        rc = ferr(err, n, "cannot write %s: %s", to, strerror(errno));
    return rc;
}

static void write_plot(FILE *fp, const char *term, const void *arg)
{
    plot_write_script(fp, arg, term);
}

int plot_render(const struct plot *p, const char *path, enum plot_format fmt, char *err,
                size_t errlen)
{
    size_t drawn = 0;
    for (size_t i = 0; i < p->nseries; i++)
        drawn += p->series[i].n > 0;
    if (!drawn)
        return ferr(err, errlen, "nothing to draw");
    return plot_render_with(write_plot, p, path, fmt, err, errlen);
}

void plot_gp_str(FILE *fp, const char *s)
{
    put_str(fp, s);
}

int plot_gp_subtitle(FILE *fp, const struct plot *p)
{
    return put_subtitle(fp, p);
}

int plot_render_with(plot_script_fn write, const void *arg, const char *path,
                     enum plot_format fmt, char *err, size_t errlen)
{
    struct tmp t;
    if ((unsigned)fmt > PLOT_PDF)
        return ferr(err, errlen, "unknown output format");
    if (tmp_make(&t, err, errlen))
        return -1;
    int rc = -1;
    const char *term = terminal(&t, fmt, err, errlen);
    FILE *fp = term ? fopen(t.script, "w") : NULL;
    if (term && !fp)
        ferr(err, errlen, "%s: %s", t.script, strerror(errno));
    if (fp) {
        write(fp, term, arg);
        if (fclose(fp))
            ferr(err, errlen, "%s: %s", t.script, strerror(errno));
        else if ((rc = run_gnuplot(t.script, t.out, err, errlen)) > 0)
            rc = ferr(err, errlen, "gnuplot failed (exit %d); its messages are above", rc);
        else if (rc == 0)
            rc = copy_file(t.out, path, err, errlen);
    }
    tmp_remove(&t);
    return rc;
}

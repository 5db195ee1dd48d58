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
#include "plot.h"

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

static const char *key_place(enum plot_kind k)
{
    switch (k) {
    case PLOT_ERASE_CDF:
    case PLOT_WA_TIME: return "bottom right";
    case PLOT_WA_UTIL:
    case PLOT_MOUNT_SIZE: return "top left";
    default: return "top right";
    }
}

/* The plot clause of series i (data block $Di); style from the series.
 * *models counts the dashed curves so far, which differ in dash and grey. */
static void put_clause(FILE *fp, const struct plot *p, size_t i, int *first, int *models)
{
    static const char *const grey[] = {"black", "gray40", "gray60"};
    const struct plot_series *s = &p->series[i];
    size_t c = s->colour ? s->colour : i + 1; /* colour and point type */
    double shift = p->bin_width > 1 ? (p->bin_width - 1) / 2 : 0; /* bin centre */
    fprintf(fp, "%s$D%zu using ($1/%.17g + %.17g):($2/%.17g) ", *first ? "plot " : ", \\\n  ",
            i, p->xdiv, shift, p->ydiv);
    *first = 0;
    switch (s->style) {
    case PLOT_STEPS:
        fprintf(fp, "with %s lc %zu", p->kind == PLOT_ERASE_HIST ? "histeps" : "steps", c);
        break;
    case PLOT_LINESPOINTS: fprintf(fp, "with linespoints lc %zu pt %zu ps 1.5", c, c + 4); break;
    case PLOT_DASHED_POINTS:
        fprintf(fp, "with linespoints dt 2 lc %zu pt %zu ps 1.5", c, c + 4);
        break;
    case PLOT_LINES: fprintf(fp, "with lines lc %zu", c); break;
    case PLOT_DASHED:
        fprintf(fp, "with lines dt %d lc rgb '%s'", 2 + *models, grey[*models % 3]);
        ++*models;
        break;
    case PLOT_BARS:
        fprintf(fp, "smooth unique with boxes fs solid 0.5 lc %zu notitle, \\\n  "
                "$D%zu using 1:($2/%.17g) with points pt 7 ps 1.5 lc %zu", c, i,
                p->ydiv, c);
        break;
    }
    fputs(" title ", fp);
    put_str(fp, s->name);
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

void plot_write_script(FILE *fp, const struct plot *p, const char *term)
{
    fprintf(fp, "# flashlab plot %s\n", plot_kind_name(p->kind));
    for (size_t i = 0; i < p->nseries; i++) {
        fprintf(fp, "$D%zu << EOD\n", i);
        for (size_t j = 0; j < p->series[i].n; j++)
            fprintf(fp, "%.17g %.17g\n", p->series[i].pts[j].x, p->series[i].pts[j].y);
        fputs("EOD\n", fp);
    }
    fprintf(fp, "%s\nset grid\nset key %s box opaque\n", term, key_place(p->kind));
    put_set(fp, "title", p->title);
    put_set(fp, "xlabel", p->xlabel);
    put_set(fp, "ylabel", p->ylabel);
    if (p->logx)
        fputs("set logscale x\n", fp);
    if (p->logy)
        fputs("set logscale y\n", fp);
    if (p->kind == PLOT_ERASE_CDF)
        fputs("set yrange [0:1.05]\n", fp);
    if (p->kind == PLOT_WA_UTIL)
        fputs("set yrange [1:*]\n", fp);
    if (p->kind == PLOT_MOUNT_SIZE)
        put_size_axes(fp, p);
    if (p->kind == PLOT_LIFETIME) {
        /* Bars side by side, named on the x axis, not in a key. */
        fprintf(fp, "unset key\nset boxwidth 0.6\nset yrange [0:*]\nset xrange [0.5:%zu.5]\n"
                "set xtics (", p->nseries);
        for (size_t i = 0; i < p->nseries; i++) {
            fputs(i ? ", " : "", fp);
            put_str(fp, p->series[i].name);
            fprintf(fp, " %zu", i + 1);
        }
        fputs(")\n", fp);
    }
    int first = 1, models = 0;
    for (size_t i = 0; i < p->nseries; i++)
        if (p->series[i].n)
            put_clause(fp, p, i, &first, &models);
    fputc('\n', fp);
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

int plot_render(const struct plot *p, const char *path, enum plot_format fmt, char *err,
                size_t errlen)
{
    struct tmp t;
    size_t drawn = 0;
    for (size_t i = 0; i < p->nseries; i++)
        drawn += p->series[i].n > 0;
    if (!drawn)
        return ferr(err, errlen, "nothing to draw");
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
        plot_write_script(fp, p, term);
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

/*
 * plot_runs.c -- the runs of a plot kind made into series: each run named
 * by the values of the keys that differ between the runs drawn (--by, or
 * every swept key), runs of one setting grouped and averaged (mean and
 * sd), panels when there are too many series (--facet).
 */
#include "plot_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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

/* The value of path in params as plot_text (numbers as sqlite prints them),
 * *num set when it is a number; NULL when missing (the caller frees). */
static char *param_value(sqlite3_stmt *v, const char *params, const char *path, int *num)
{
    char *out = NULL;
    sqlite3_reset(v);
    sqlite3_bind_text(v, 1, params, -1, SQLITE_STATIC);
    sqlite3_bind_text(v, 2, path, -1, SQLITE_STATIC);
    *num = 0;
    if (sqlite3_step(v) == SQLITE_ROW && sqlite3_column_type(v, 0) != SQLITE_NULL) {
        const char *t = plot_text(v, 0, "");
        *num = !strcmp(t, "integer") || !strcmp(t, "real");
        out = strdup(plot_text(v, 1, "null"));
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
            path_plain(plot_text(t, 0, "$"), path, sizeof path);
            if (!bookkeeping(path))
                rc = strs_add_new(leaves, path);
        }
        sqlite3_reset(w);
        sqlite3_bind_text(w, 1, r->params.v[i], -1, SQLITE_STATIC);
        while (!rc && sqlite3_step(w) == SQLITE_ROW)
            rc = strs_add_new(swept, plot_text(w, 0, "$"));
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
            return plot_fail(p, "bad --by path '%s' (a params JSON path such as fs.gc_policy)",
                        by);
        }
        if (strs_add_new(keys, path))
            return plot_fail(p, "out of memory");
        s += len + (s[len] == ',');
        if (!*s && s[-1] == ',') {
            p->usage = 1;
            return plot_fail(p, "bad --by path '%s' (a params JSON path such as fs.gc_policy)",
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
    /* ys and xs: a value per run (AGG_INDEX) or per point (the others) */
    double *ys = malloc((2 * (nm + total) + 1) * sizeof *ys), *xs = ys + nm + total;
    int rc = all && ys ? 0 : -1;
    size_t na = 0;
    for (size_t i = 0; i < nm && !rc; i++)
        for (size_t j = 0; j < raw->series[m[i]].n; j++)
            all[na++] = raw->series[m[i]].pts[j];
    if (mode == AGG_NONE) {
        for (size_t j = 0; j < na && !rc; j++)
            rc = plot_point_add_n(out, all[j].x, all[j].y, 0, 1);
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
            rc = plot_point_add_n(out, mx, my, sd, (unsigned)n);
        }
    } else if (!rc) {
        qsort(all, na, sizeof *all, plot_by_x);
        for (size_t j = 0; j < na && !rc;) {
            size_t e = j, n = 0;
            while (e < na && (all[e].x == all[j].x ||
                              (mode == AGG_X_NEAR && all[e].x - all[j].x <= PLOT_X_NEAR)))
                e++;
            if (mode != AGG_STEP)
                for (size_t t = j; t < e; t++) {
                    xs[n] = all[t].x;
                    ys[n++] = all[t].y;
                }
            else
                for (size_t i = 0; i < nm; i++)
                    ys[n++] = step_at(&raw->series[m[i]], all[j].x);
            double mx = all[j].x, sx, my, sd;
            if (mode == AGG_X_NEAR && all[e - 1].x != all[j].x) /* equal x: exactly it */
                mean_sd(xs, n, &mx, &sx);
            mean_sd(ys, n, &my, &sd);
            rc = plot_point_add_n(out, mx, my, sd, (unsigned)n);
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
        rc = plot_fail(p, "out of memory");
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

/* --facet KEY, checked against the runs' params, into facet. */
static int facet_from_option(struct plot *p, const char *opt, const struct strs *leaves,
                             char *facet, size_t n)
{
    if (plot_by_path(opt, facet, n)) {
        p->usage = 1;
        return plot_fail(p, "bad --facet path '%s' (a params JSON path such as workload.fill)",
                         opt);
    }
    if (!path_known(leaves, facet))
        return unknown_key(p, "--facet", facet + 2, leaves);
    return 0;
}

/* The number of distinct names keys give the runs; -1 out of memory. */
static ssize_t count_names(sqlite3_stmt *v, const struct runs *r, const struct strs *keys)
{
    struct strs names = {0};
    char name[1024];
    int rc = 0;
    for (size_t i = 0; i < r->raw.nseries && !rc; i++) {
        run_name(v, r, i, keys, name, sizeof name);
        rc = strs_add_new(&names, name);
    }
    ssize_t n = rc ? -1 : (ssize_t)names.n;
    strs_free(&names);
    return n;
}

/* The number of distinct names the runs get from keys without keys[k]; -1
 * out of memory. */
static ssize_t count_names_without(sqlite3_stmt *v, const struct runs *r,
                                   const struct strs *keys, size_t k)
{
    struct strs rest = {0};
    ssize_t n = 0;
    for (size_t j = 0; j < keys->n && !n; j++)
        if (j != k && strs_add(&rest, keys->v[j]))
            n = -1;
    if (!n)
        n = count_names(v, r, &rest);
    strs_free(&rest);
    return n;
}

/* Too many series for one plot: panels by the key leaving at most
 * PLOT_MAX_SERIES names per panel with the fewest panels (the last of
 * equals); if none does, by the key with the most values.  facet stays ""
 * when the series fit one plot.  -1 out of memory. */
static int auto_facet(sqlite3_stmt *v, const struct runs *r, const struct strs *keys,
                      char *facet, size_t n)
{
    ssize_t nlabels = count_names(v, r, keys);
    if (nlabels < 0)
        return -1;
    size_t best = 0, most = 0;
    char fallback[512] = "";
    for (size_t k = 0; (size_t)nlabels > PLOT_MAX_SERIES && k < keys->n; k++) {
        size_t c = count_values(v, r, keys->v[k]);
        ssize_t names = count_names_without(v, r, keys, k);
        if (names < 0)
            return -1;
        if (c >= 2 && (size_t)names <= PLOT_MAX_SERIES && (!best || c <= best)) {
            best = c;
            snprintf(facet, n, "%s", keys->v[k]);
        }
        if (c > most) {
            most = c;
            snprintf(fallback, sizeof fallback, "%s", keys->v[k]);
        }
    }
    if (!*facet)
        snprintf(facet, n, "%s", fallback);
    return 0;
}

/* The panels' key names no series: take it out of keys. */
static void keys_remove(struct strs *keys, const char *key)
{
    ssize_t at = strs_find(keys, key);
    if (at < 0)
        return;
    free(keys->v[at]);
    memmove(keys->v + at, keys->v + at + 1, (keys->n - (size_t)at - 1) * sizeof *keys->v);
    keys->n--;
}

/* The key title: the short names of the keys naming the series (none
 * without keys).  -1 out of memory. */
static int set_key_title(struct plot *p, const struct strs *keys)
{
    if (!keys->n)
        return 0;
    size_t len = 0;
    char t[512] = "";
    for (size_t k = 0; k < keys->n && len < sizeof t; k++)
        len += (size_t)snprintf(t + len, sizeof t - len, "%s%s", k ? ", " : "",
                                key_short(keys->v[k]));
    return (p->key_title = strdup(t)) ? 0 : -1;
}

/* The runs in groups: the runs of one panel and name are averaged into one
 * series. */
struct groups {
    struct strs ids;     /* per group: "panel\x1fname" */
    struct strs labels;  /* the distinct names, in order of first appearance */
    struct strs panels;  /* the distinct panels ("key=value") */
    struct strs firsts;  /* the distinct values of the first naming key */
    struct strs rests;   /* the distinct values of the other naming keys */
    size_t *of_run;      /* per run: its group */
    size_t *first;       /* per group: its index in firsts */
    size_t *rest;        /* per group: its index in rests */
};

static void groups_free(struct groups *g)
{
    strs_free(&g->ids);
    strs_free(&g->labels);
    strs_free(&g->panels);
    strs_free(&g->firsts);
    strs_free(&g->rests);
    free(g->of_run);
    free(g->first);
    free(g->rest);
    *g = (struct groups){0};
}

/* Run i's panel, "key=value" ("" without a facet), added to the panels. */
static int run_panel(sqlite3_stmt *v, const struct runs *r, size_t i, const char *facet,
                     struct groups *g, char *panel, size_t n)
{
    int num;
    *panel = 0;
    if (!*facet)
        return 0;
    char *x = param_value(v, r->params.v[i], facet, &num);
    snprintf(panel, n, "%s=%s", key_short(facet), x ? x : "(none)");
    free(x);
    return strs_add_new(&g->panels, panel);
}

/* A new group, from its first run i: its name, and its first key's value
 * and the others', for colours and dashes.  Returns its index, -1 out of
 * memory. */
static ssize_t group_add(sqlite3_stmt *v, const struct runs *r, size_t i, const char *id,
                         const char *name, const struct strs *first_key,
                         const struct strs *rest_keys, struct groups *g)
{
    char part[1024];
    if (strs_add(&g->ids, id) || strs_add_new(&g->labels, name))
        return -1;
    size_t at = g->ids.n - 1;
    run_name(v, r, i, first_key, part, sizeof part);
    if (strs_add_new(&g->firsts, part))
        return -1;
    g->first[at] = (size_t)strs_find(&g->firsts, part);
    run_name(v, r, i, rest_keys, part, sizeof part);
    if (strs_add_new(&g->rests, part))
        return -1;
    g->rest[at] = (size_t)strs_find(&g->rests, part);
    return (ssize_t)at;
}

/* Each run's group: its panel and name.  -1 out of memory. */
static int group_runs(sqlite3_stmt *v, const struct runs *r, const struct strs *keys,
                      const char *facet, struct groups *g)
{
    size_t n = r->raw.nseries;
    struct strs first_key = {0}, rest_keys = {0};
    char name[1024], panel[1024], id[2100];
    g->of_run = malloc(n * sizeof *g->of_run);
    g->first = malloc(n * sizeof *g->first);
    g->rest = malloc(n * sizeof *g->rest);
    int rc = g->of_run && g->first && g->rest ? 0 : -1;
    for (size_t k = 0; k < keys->n && !rc; k++)
        rc = strs_add(k ? &rest_keys : &first_key, keys->v[k]);
    for (size_t i = 0; i < n && !rc; i++) {
        run_name(v, r, i, keys, name, sizeof name);
        if ((rc = run_panel(v, r, i, facet, g, panel, sizeof panel)))
            break;
        snprintf(id, sizeof id, "%s\x1f%s", panel, name);
        ssize_t at = strs_find(&g->ids, id);
        if (at < 0 && (at = group_add(v, r, i, id, name, &first_key, &rest_keys, g)) < 0)
            rc = -1;
        else
            g->of_run[i] = (size_t)at;
    }
    strs_free(&first_key);
    strs_free(&rest_keys);
    return rc;
}

/* Panels in the order of their values (numbers by value). */
static void sort_panels(struct strs *panels)
{
    for (size_t a = 1; a < panels->n; a++)
        for (size_t b = a; b > 0; b--) {
            const char *x = strchr(panels->v[b - 1], '='), *y = strchr(panels->v[b], '=');
            char *ex, *ey;
            double dx = strtod(x + 1, &ex), dy = strtod(y + 1, &ey);
            int gt = !*ex && !*ey ? dx > dy : 0;
            if (!gt)
                break;
            char *tmp = panels->v[b - 1];
            panels->v[b - 1] = panels->v[b];
            panels->v[b] = tmp;
        }
}

/* Group gi's series in p: its runs (member, scratch for one per run)
 * aggregated, named "name, panel", its mark by its name; by_parts: its
 * colour by its first key's value, its dash by the others'.  -1 out of
 * memory. */
static int add_group_series(struct plot *p, const struct runs *r, const struct groups *g,
                            size_t gi, int by_parts, enum agg mode, size_t *member)
{
    char name[1024], panel[1024];
    size_t nm = 0;
    for (size_t i = 0; i < r->raw.nseries; i++)
        if (g->of_run[i] == gi)
            member[nm++] = i;
    const char *sep = strchr(g->ids.v[gi], '\x1f');
    const char *label = sep + 1;
    size_t plen = (size_t)(sep - g->ids.v[gi]);
    if (plen)
        snprintf(name, sizeof name, "%s, %.*s", label, (int)plen, g->ids.v[gi]);
    else
        snprintf(name, sizeof name, "%s", label);
    struct plot_series *s = plot_series_new(p, name, r->raw.series[member[0]].style);
    if (!s)
        return -1;
    if (plen) {
        snprintf(panel, sizeof panel, "%.*s", (int)plen, g->ids.v[gi]);
        s->panel = (size_t)strs_find(&g->panels, panel);
        s->colour = (unsigned)strs_find(&g->labels, label) + 1;
        if (!(s->legend = strdup(label)))
            return -1;
    }
    s->mark = (unsigned)strs_find(&g->labels, label) + 1;
    if (by_parts) {
        s->colour = (unsigned)g->first[gi] + 1;
        s->dash = (unsigned)g->rest[gi] + 1;
    }
    if (aggregate(&r->raw, member, nm, mode, s))
        return -1;
    for (size_t j = 0; j < s->n; j++)
        p->spread |= s->pts[j].n > 1;
    return 0;
}

/* Name and group the runs r into p's series, facets and key title. */
static int name_runs(sqlite3 *db, const struct plot_filter *f, struct runs *r,
                     const char *const *xkeys, enum agg mode, struct plot *p)
{
    struct strs leaves = {0}, swept = {0}, keys = {0};
    struct groups g = {0};
    char facet[512] = "";
    size_t *member = NULL;
    int rc = -1;
    sqlite3_stmt *v = NULL;
    if (sqlite3_prepare_v2(db, "SELECT json_type(?1, ?2), json_extract(?1, ?2)", -1, &v,
                           NULL) != SQLITE_OK) {
        plot_fail(p, "query failed: %s", sqlite3_errmsg(db));
        goto out;
    }
    if (runs_paths(db, r, &leaves, &swept)) {
        plot_fail(p, "out of memory");
        goto out;
    }
    if (pick_keys(v, f, r, &leaves, &swept, xkeys, &keys, p))
        goto out;
    if (f->facet && strcmp(f->facet, "none")) {
        if (facet_from_option(p, f->facet, &leaves, facet, sizeof facet))
            goto out;
    } else if (!f->facet && mode != AGG_NONE && keys.n >= 2) {
        if (auto_facet(v, r, &keys, facet, sizeof facet))
            goto oom;
    }
    if (*facet) {
        keys_remove(&keys, facet);
        if (!(p->facet = strdup(key_short(facet))))
            goto oom;
    }
    if (set_key_title(p, &keys) || group_runs(v, r, &keys, facet, &g))
        goto oom;
    sort_panels(&g.panels);
    /* Several keys: a colour per value of the first, a dash per value of
     * the others, while the palette and the dashes last. */
    int by_parts = keys.n >= 2 && g.firsts.n <= 8 && g.rests.n <= 4;
    if (!(member = malloc(r->raw.nseries * sizeof *member)))
        goto oom;
    for (size_t gi = 0; gi < g.ids.n; gi++)
        if (add_group_series(p, r, &g, gi, by_parts, mode, member))
            goto oom;
    p->panels = g.panels.v;
    p->npanels = g.panels.n;
    g.panels = (struct strs){0};
    rc = 0;
    goto out;
oom:
    plot_fail(p, "out of memory");
out:
    sqlite3_finalize(v);
    strs_free(&leaves);
    strs_free(&swept);
    strs_free(&keys);
    groups_free(&g);
    free(member);
    return rc;
}

/* Read the kind's rows into one raw series per run (r), in run order. */
static int read_runs(sqlite3 *db, const char *sql, const struct plot_filter *f,
                     enum plot_style style, row_reader read, struct runs *r, struct plot *p)
{
    struct plot_series *s = NULL;
    int64_t last = 0;
    int rc;
    sqlite3_stmt *q = plot_prepare(db, sql, f, p);
    if (!q)
        return -1;
    while ((rc = plot_step(db, q, p)) == 1) {
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
            if (!(s = plot_series_new(&r->raw, "", row.style)) || strs_add(&r->params, row.name))
                break;
            r->ids[r->raw.nseries - 1] = last = row.run;
        }
        if (plot_point_add_n(s, row.x, row.y, 0, 1))
            break;
    }
    sqlite3_finalize(q);
    if (rc == 1)
        rc = plot_fail(p, "out of memory");
    return rc;
}

/* The run kinds: read, transform each run's series (prep, may be NULL),
 * then name, group and aggregate them into p.  No rows: 0, no series. */
int plot_run_series(sqlite3 *db, const char *sql, const struct plot_filter *f,
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

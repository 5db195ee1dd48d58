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
    double *ys = malloc((nm + total + 1) * sizeof *ys), *xs = ys + nm;
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
            rc = plot_point_add_n(out, all[j].x, my, sd, (unsigned)n);
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
        if (plot_by_path(f->facet, facet, sizeof facet)) {
            p->usage = 1;
            plot_fail(p, "bad --facet path '%s' (a params JSON path such as workload.fill)",
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
        struct plot_series *s = plot_series_new(p, name, r->raw.series[member[0]].style);
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
    plot_fail(p, "out of memory");
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

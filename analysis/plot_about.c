/*
 * plot_about.c -- what a figure is of, for its title (docs/plots.md): the
 * workloads and devices of the runs drawn, and on lifetime figures how
 * much their wear was accelerated, so that no figure passes for another
 * setting's or an accelerated lifetime for a real one.
 */
#include "plot_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per run: its workload ("hotcold 90/10", "zipf theta=0.99", "uniform
 * random"), device ("test-64m, 16 MiB" from the kv the runner records,
 * else the file in params) and
 * endurance_scale; one row per distinct triple, in run order.  %s: the
 * selected runs' ids. */
static const char about_sql[] =
    "SELECT w, d, es FROM (SELECT r.id,"
    "  CASE WHEN k = 'hotcold' AND hw IS NOT NULL AND hd IS NOT NULL"
    "   THEN printf('hotcold %%g/%%g', 100.0 * hw, 100.0 * hd)"
    "   WHEN k = 'uniform' THEN 'uniform random'"
    "   WHEN k = 'zipf' AND th IS NOT NULL THEN printf('zipf theta=%%g', th)"
    "   WHEN k = 'trace' THEN 'trace ' || coalesce(tr, '?') ELSE k END AS w,"
    "  coalesce((SELECT value || coalesce(', ' || (SELECT printf('%%g MiB', v.value / 1048576.0)"
    "   FROM kv v WHERE v.run_id = r.id AND v.key = 'device_bytes'), '')"
    "   FROM kv WHERE run_id = r.id AND key = 'device'),"
    "   CASE WHEN json_type(r.params, '$.device') = 'text'"
    "    THEN json_extract(r.params, '$.device') END,"
    "   json_extract(r.params, '$.device.file')) AS d,"
    "  (SELECT value FROM kv WHERE run_id = r.id AND key = 'endurance_scale') AS es"
    " FROM (SELECT r.id, r.params,"
    "  coalesce((SELECT value FROM kv WHERE run_id = r.id AND key = 'workload'),"
    "   json_extract(r.params, '$.workload.kind')) AS k,"
    "  coalesce((SELECT value FROM kv WHERE run_id = r.id AND key = 'hot_writes'),"
    "   json_extract(r.params, '$.workload.hot_writes')) AS hw,"
    "  coalesce((SELECT value FROM kv WHERE run_id = r.id AND key = 'hot_data'),"
    "   json_extract(r.params, '$.workload.hot_data')) AS hd,"
    "  json_extract(r.params, '$.workload.theta') AS th,"
    "  json_extract(r.params, '$.workload.trace') AS tr"
    "  FROM runs r WHERE r.id IN (SELECT id FROM (%s))) r)"
    " GROUP BY w, d, es ORDER BY min(id)";

#define MAX_LISTED 3 /* values named before "and N more" */

/* Distinct values in first-seen order, the first MAX_LISTED kept. */
struct vals {
    char v[MAX_LISTED][128];
    size_t n;
};

/* A device file's name without its folder and ".yaml". */
static void device_name(const char *in, char *out, size_t n)
{
    const char *b = strrchr(in, '/');
    b = b ? b + 1 : in;
    size_t len = strlen(b);
    if (len > 5 && !strcmp(b + len - 5, ".yaml"))
        len -= 5;
    snprintf(out, n, "%.*s", (int)len, b);
}

/* Add v (NULL: nothing) unless seen; *more counts those past the list. */
static void vals_add(struct vals *l, const char *v, size_t *more)
{
    if (!v)
        return;
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], v))
            return;
    if (l->n < MAX_LISTED)
        snprintf(l->v[l->n++], sizeof l->v[0], "%s", v);
    else
        ++*more;
}

/* "what: a" or "whats: a, b and 2 more" appended at out + *len. */
static void put_vals(char *out, size_t n, size_t *len, const char *what, const struct vals *l,
                     size_t more)
{
    if (!l->n || *len >= n)
        return;
    *len += (size_t)snprintf(out + *len, n - *len, "%s%s%s: ", *len ? "; " : "", what,
                             l->n > 1 ? "s" : "");
    for (size_t i = 0; i < l->n && *len < n; i++)
        *len += (size_t)snprintf(out + *len, n - *len, "%s%s", i ? ", " : "", l->v[i]);
    if (more && *len < n)
        *len += (size_t)snprintf(out + *len, n - *len, " and %zu more", more);
}

/* On lifetime figures: "wear accelerated 2000x (endurance_scale 0.0005)"
 * for each scale but 1 ("slowed" above 1; "..., not on some runs" when
 * some had 1). */
static void put_accel(char *out, size_t n, size_t *len, const double *es, size_t nes)
{
    size_t fast = 0, real = 0;
    for (size_t i = 0; i < nes; i++) {
        if (es[i] == 1) {
            real++;
            continue;
        }
        if (*len >= n)
            return;
        *len += (size_t)snprintf(out + *len, n - *len, "%s%s %gx (endurance_scale %g)",
                                 fast++ ? ", " : *len ? "; wear " : "wear ",
                                 es[i] < 1 ? "accelerated" : "slowed",
                                 es[i] < 1 ? 1 / es[i] : es[i], es[i]);
    }
    if (fast && real && *len < n)
        *len += (size_t)snprintf(out + *len, n - *len, ", not on some runs");
}

int plot_describe(sqlite3 *db, const char *runs_sql, const struct plot_filter *f,
                  struct plot *p)
{
    size_t nes = 0, wmore = 0, dmore = 0, len = 0;
    struct vals w = {.n = 0}, d = {.n = 0};
    double es[8];
    char dev[128], out[600] = "";
    sqlite3_stmt *q = plot_prepare_over(db, about_sql, runs_sql, f, p);
    if (!q)
        return -1;
    int rc;
    while ((rc = plot_step(db, q, p)) == 1) {
        vals_add(&w, plot_text(q, 0, NULL), &wmore);
        if (sqlite3_column_type(q, 1) != SQLITE_NULL) {
            device_name(plot_text(q, 1, ""), dev, sizeof dev);
            vals_add(&d, dev, &dmore);
        }
        double x = sqlite3_column_double(q, 2);
        int seen = sqlite3_column_type(q, 2) == SQLITE_NULL || x <= 0;
        for (size_t i = 0; i < nes && !seen; i++)
            seen = es[i] == x;
        if (!seen && nes < sizeof es / sizeof *es)
            es[nes++] = x;
    }
    sqlite3_finalize(q);
    if (rc < 0)
        return -1;
    put_vals(out, sizeof out, &len, "workload", &w, wmore);
    put_vals(out, sizeof out, &len, "device", &d, dmore);
    if (p->kind == PLOT_LIFETIME)
        put_accel(out, sizeof out, &len, es, nes);
    free(p->subtitle);
    p->subtitle = NULL;
    if (*out && !(p->subtitle = strdup(out)))
        return plot_fail(p, "out of memory");
    return 0;
}

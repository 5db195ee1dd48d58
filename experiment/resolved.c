/*
 * resolved.c -- an experiment's resolved config: the form its identity in
 * the results database is computed from (docs/results-schema.md,
 * "Experiment identity").  One line per setting, "PATH = JSON", sorted,
 * so that comments, layout, key order and the spelling of the defaults
 * below do not change it, while any change of a setting does:
 *   - every scalar or list at its dotted path (a mapping is walked into;
 *     an empty one is "PATH = {}"), its value as the runs table's JSON;
 *   - without `name` and `description` (which name and describe the
 *     experiment, and do not change what it measures);
 *   - `seed: S` written as `seeds = [S]`, and the defaults `seeds = [1]`,
 *     `repetitions = 1` and `fs.kind = "logfs"` when not given.
 */
#include "exp_internal.h"
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lines {
    char **v;
    size_t n, cap;
    int nomem;
};

static void add_line(struct lines *l, const char *path, const char *json)
{
    if (l->nomem)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->nomem = 1;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    size_t len = strlen(path) + strlen(json) + 4;
    char *s = malloc(len);
    if (!s) {
        l->nomem = 1;
        return;
    }
    snprintf(s, len, "%s = %s", path, json);
    l->v[l->n++] = s;
}

static int has_line(const struct lines *l, const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < l->n; i++)
        if (!strncmp(l->v[i], path, n) && !strncmp(l->v[i] + n, " = ", 3))
            return 1;
    return 0;
}

static void walk(struct yview *v, yaml_node_t *map, const char *prefix, struct lines *l)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = ydoc_scalar(yaml_document_get_node(&v->d->doc, p->key));
        yaml_node_t *val = yaml_document_get_node(&v->d->doc, p->value);
        if (!k || (!*prefix && (!strcmp(k, "name") || !strcmp(k, "description"))))
            continue;
        char path[4 * YDOC_PATH_MAX];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (val && val->type == YAML_MAPPING_NODE &&
            val->data.mapping.pairs.top > val->data.mapping.pairs.start) {
            walk(v, val, path, l);
            continue;
        }
        char *j = ydoc_view_json(v, val, path);
        if (!j) {
            l->nomem = 1;
            return;
        }
        if (!*prefix && !strcmp(k, "seed")) { /* seed: S is seeds: [S] */
            char one[512];
            snprintf(one, sizeof one, "[%s]", j);
            add_line(l, "seeds", one);
        } else {
            add_line(l, path, j);
        }
        free(j);
    }
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *experiment_resolve_config(const char *yaml_text, char *err, size_t errlen)
{
    struct ydoc d;
    if (ydoc_load_text(&d, "config", yaml_text, err, errlen))
        return NULL;
    struct yview v = {&d, NULL, 0};
    struct lines l = {0};
    walk(&v, ydoc_root(&d), "", &l);
    static const char *const defaults[][2] = {
        {"seeds", "[1]"}, {"repetitions", "1"}, {"fs.kind", "\"logfs\""}};
    for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++)
        if (!has_line(&l, defaults[i][0]))
            add_line(&l, defaults[i][0], defaults[i][1]);
    ydoc_free(&d);
    char *out = NULL;
    size_t len = 1;
    for (size_t i = 0; i < l.n; i++)
        len += strlen(l.v[i]) + 1;
    if (!l.nomem && (out = malloc(len))) {
        qsort(l.v, l.n, sizeof *l.v, by_text);
        char *p = out;
        for (size_t i = 0; i < l.n; i++)
            p += sprintf(p, "%s\n", l.v[i]);
        *p = 0;
    }
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i]);
    free(l.v);
    if (!out)
        snprintf(err, errlen, "out of memory");
    return out;
}

int experiment_results_open(const char *path, struct results **out, char *err, size_t errlen)
{
    if (results_open(path, out, err, errlen))
        return -1;
    if (results_set_resolver(*out, experiment_resolve_config)) {
        snprintf(err, errlen, "%s: %s", path, results_error(*out));
        results_close(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/*
 * workload_section.c -- an experiment's `workload:` mapping into a struct
 * wl_spec: `kind` picks the defaults (wl_spec_init), every other key sets
 * one field, through a table of (key, type, offset).
 */
#include "exp_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum wtype { W_U32, W_U64, W_SIZE, W_FRAC, W_POS, W_BOOL, W_SIZES, W_PATH, W_FORMAT, W_MIX };

struct wkey {
    const char *key;
    enum wtype type;
    size_t off;
    const char *takes; /* the kinds that read it: families ("block",
                          "churn", "trace") and kinds, space-separated;
                          NULL: every kind */
};

#define W(k, t, f, takes) {k, t, offsetof(struct wl_spec, f), takes}
static const struct wkey wkeys[] = {
    W("files", W_U32, files, "block"),
    W("file_bytes", W_SIZE, file_bytes, "block"),
    W("fill", W_FRAC, fill, NULL),
    W("working_set", W_FRAC, working_set, "block"),
    W("utilisation", W_FRAC, utilisation, "block"),
    W("align", W_SIZE, align, "block"),
    W("request_size", W_SIZES, req, "block churn"),
    W("read_fraction", W_FRAC, read_fraction, "block"),
    W("theta", W_POS, theta, "zipf"),
    W("hot_writes", W_FRAC, hot_writes, "hotcold"),
    W("hot_data", W_FRAC, hot_data, "hotcold"),
    W("fsync_every", W_U64, fsync_every, "block churn"),
    W("sync_every", W_U64, sync_every, "block churn"),
    W("discard_fraction", W_FRAC, discard_fraction, "block"),
    W("dirs", W_U32, dirs, "churn"),
    W("max_files", W_U32, max_files, "churn"),
    W("prealloc", W_FRAC, prealloc, "churn"),
    W("file_size", W_SIZES, file_size, "churn"),
    W("op_mix", W_MIX, op_create, "churn"),
    W("trace", W_PATH, trace_path, "trace"),
    W("trace_format", W_FORMAT, trace_format, "trace"),
    W("trace_skip_bad", W_BOOL, trace_skip_bad, "trace"),
    W("trace_disk_bytes", W_SIZE, trace_disk_bytes, "trace"),
    W("content_light", W_BOOL, content_light, NULL),
    W("compressible", W_FRAC, compressible, NULL),
};

/* 1 when word is one of the space-separated words of list. */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p; p += strcspn(p, " "), p += *p == ' ')
        if (strcspn(p, " ") == n && !strncmp(p, word, n))
            return 1;
    return 0;
}

static int kind_takes(const struct wkey *k, const char *kind)
{
    const char *fam = wl_kind_family(kind);
    return !k->takes || has_word(k->takes, kind) || (fam && has_word(k->takes, fam));
}

/* "uniform, sequential, ...": the kinds that read k (NULL: every kind). */
static void list_kinds(const struct wkey *k, char *out, size_t cap)
{
    out[0] = 0;
    for (size_t i = 0; wl_kind_name(i); i++) {
        size_t len = strlen(out);
        if (!k || kind_takes(k, wl_kind_name(i)))
            snprintf(out + len, cap - len, "%s%s", len ? ", " : "", wl_kind_name(i));
    }
}

/* A key the kind would silently ignore is an error naming the kinds that
 * read it. */
static int ignored_key(struct yview *v, yaml_node_t *n, const char *key, const struct wkey *k,
                       const char *kind, char *err, size_t errlen)
{
    char kinds[256];
    list_kinds(k, kinds, sizeof kinds);
    return ydoc_fail(v->d, n, err, errlen, "%s: the %s workload ignores it; it is read by "
                     "kind %s only", key, kind, kinds);
}
#define NWKEYS (sizeof wkeys / sizeof wkeys[0])

/* A size distribution: a size (fixed), {min, max} (uniform) or
 * {sizes: [...], weights: [...]}. */
static int read_sizes(struct yview *v, yaml_node_t *n, const char *key, struct wl_sizes *s,
                      char *err, size_t errlen)
{
    static const char *const keys[] = {"min", "max", "sizes", "weights", NULL};
    memset(s, 0, sizeof *s);
    if (n->type == YAML_SCALAR_NODE) {
        if (ydoc_size(v->d, n, key, &s->min, err, errlen))
            return -1;
        s->max = s->min;
        return s->min ? 0 : ydoc_fail(v->d, n, err, errlen, "%s: must be > 0", key);
    }
    if (ydoc_view_check_keys(v, n, key, keys, err, errlen))
        return -1;
    yaml_node_t *mn = ydoc_view_get(v, n, key, "min"), *mx = ydoc_view_get(v, n, key, "max");
    yaml_node_t *sz = ydoc_view_get(v, n, key, "sizes"), *wt = ydoc_view_get(v, n, key, "weights");
    char sub[2 * YDOC_PATH_MAX + 64];
    if (sz || wt) {
        if (!sz || !wt || sz->type != YAML_SEQUENCE_NODE || wt->type != YAML_SEQUENCE_NODE)
            return ydoc_fail(v->d, n, err, errlen, "%s: sizes and weights must both be lists", key);
        size_t ns = (size_t)(sz->data.sequence.items.top - sz->data.sequence.items.start);
        size_t nw = (size_t)(wt->data.sequence.items.top - wt->data.sequence.items.start);
        if (ns != nw || !ns || ns > WL_MAX_SIZES)
            return ydoc_fail(v->d, n, err, errlen, "%s: sizes and weights: 1..%d entries "
                             "each, as many weights as sizes", key, WL_MAX_SIZES);
        for (size_t i = 0; i < ns; i++) {
            yaml_node_t *a = yaml_document_get_node(&v->d->doc, sz->data.sequence.items.start[i]);
            yaml_node_t *b = yaml_document_get_node(&v->d->doc, wt->data.sequence.items.start[i]);
            snprintf(sub, sizeof sub, "%s.sizes[%zu]", key, i);
            if (ydoc_size(v->d, a, sub, &s->size[i], err, errlen))
                return -1;
            snprintf(sub, sizeof sub, "%s.weights[%zu]", key, i);
            if (ydoc_double(v->d, b, sub, 0, 1e12, &s->weight[i], err, errlen))
                return -1;
            if (!s->size[i])
                return ydoc_fail(v->d, a, err, errlen, "%s.sizes[%zu]: must be > 0", key, i);
        }
        s->n = (uint32_t)ns;
        return 0;
    }
    if (!mn || !mx)
        return ydoc_fail(v->d, n, err, errlen, "%s: give a size, {min, max} or {sizes, weights}", key);
    snprintf(sub, sizeof sub, "%s.min", key);
    if (ydoc_size(v->d, mn, sub, &s->min, err, errlen))
        return -1;
    snprintf(sub, sizeof sub, "%s.max", key);
    if (ydoc_size(v->d, mx, sub, &s->max, err, errlen))
        return -1;
    if (!s->min || s->max < s->min)
        return ydoc_fail(v->d, n, err, errlen, "%s: need 0 < min <= max", key);
    return 0;
}

static int read_mix(struct yview *v, yaml_node_t *n, const char *key, struct wl_spec *s,
                    char *err, size_t errlen)
{
    static const char *const keys[] = {"create", "append", "overwrite", "delete", "rename",
                                       "read", "stat", NULL};
    double *field[] = {&s->op_create, &s->op_append, &s->op_overwrite, &s->op_delete,
                       &s->op_rename, &s->op_read, &s->op_stat};
    if (ydoc_view_check_keys(v, n, key, keys, err, errlen))
        return -1;
    for (int i = 0; keys[i]; i++) {
        yaml_node_t *w = ydoc_view_get(v, n, key, keys[i]);
        char sub[2 * YDOC_PATH_MAX + 64];
        snprintf(sub, sizeof sub, "%s.%s", key, keys[i]);
        if (w && ydoc_double(v->d, w, sub, 0, 1e12, field[i], err, errlen))
            return -1;
    }
    return 0;
}

static int read_format(struct yview *v, yaml_node_t *n, const char *key,
                       enum trace_format *f, char *err, size_t errlen)
{
    static const char *const names[] = {"auto", "msr", "blkparse", "fio", "fsop"};
    static const enum trace_format fmts[] = {TRACE_AUTO, TRACE_MSR, TRACE_BLKPARSE,
                                             TRACE_FIO, TRACE_FSOP};
    const char *s = ydoc_scalar(n);
    for (int i = 0; s && i < 5; i++)
        if (!strcmp(s, names[i])) {
            *f = fmts[i];
            return 0;
        }
    return ydoc_fail(v->d, n, err, errlen, "%s: '%s' is not auto, msr, blkparse, fio or fsop",
                     key, s ? s : "?");
}

static int read_key(struct yview *v, yaml_node_t *n, const char *key, const struct wkey *k,
                    struct wl_spec *s, char *err, size_t errlen)
{
    void *p = (char *)s + k->off;
    uint64_t u;
    switch (k->type) {
    case W_U32:
        if (ydoc_u64(v->d, n, key, &u, err, errlen))
            return -1;
        if (!u || u > UINT32_MAX)
            return ydoc_fail(v->d, n, err, errlen, "%s: 1..%u", key, UINT32_MAX);
        *(uint32_t *)p = (uint32_t)u;
        return 0;
    case W_U64:
        return ydoc_u64(v->d, n, key, p, err, errlen);
    case W_SIZE:
        return ydoc_size(v->d, n, key, p, err, errlen);
    case W_FRAC:
        return ydoc_double(v->d, n, key, 0, 1, p, err, errlen);
    case W_POS:
        return ydoc_double(v->d, n, key, 1e-9, 100, p, err, errlen);
    case W_BOOL:
        return ydoc_bool(v->d, n, key, p, err, errlen);
    case W_SIZES:
        return read_sizes(v, n, key, p, err, errlen);
    case W_PATH:
        return ydoc_string(v->d, n, key, p, sizeof s->trace_path, err, errlen);
    case W_FORMAT:
        return read_format(v, n, key, p, err, errlen);
    case W_MIX:
        return read_mix(v, n, key, s, err, errlen);
    }
    return -1;
}

int exp_workload(struct yview *v, yaml_node_t *sec, const char *prefix, struct wl_spec *s,
                 char *err, size_t errlen)
{
    char path[YDOC_PATH_MAX], key[YDOC_PATH_MAX + 32], kind[32];
    snprintf(path, sizeof path, "%s%sworkload", prefix, *prefix ? "." : "");
    yaml_node_t *w = ydoc_view_get(v, sec, prefix, "workload");
    if (!w || w->type != YAML_MAPPING_NODE)
        return ydoc_fail(v->d, w ? w : sec, err, errlen, "%s: %s", path,
                         w ? "expected a mapping" : "missing");
    const char *keys[NWKEYS + 2];
    keys[0] = "kind";
    for (size_t i = 0; i < NWKEYS; i++)
        keys[i + 1] = wkeys[i].key;
    keys[NWKEYS + 1] = NULL;
    if (ydoc_view_check_keys(v, w, path, keys, err, errlen))
        return -1;
    yaml_node_t *kn = ydoc_view_get(v, w, path, "kind");
    snprintf(key, sizeof key, "%s.kind", path);
    if (!kn)
        return ydoc_fail(v->d, w, err, errlen, "%s: missing", key);
    if (ydoc_string(v->d, kn, key, kind, sizeof kind, err, errlen))
        return -1;
    if (wl_spec_init(s, kind)) {
        char kinds[256];
        list_kinds(NULL, kinds, sizeof kinds);
        return ydoc_fail(v->d, kn, err, errlen, "%s: unknown workload kind '%s' (%s)", key,
                         kind, kinds);
    }
    for (size_t i = 0; i < NWKEYS; i++) {
        yaml_node_t *n = ydoc_view_get(v, w, path, wkeys[i].key);
        snprintf(key, sizeof key, "%s.%s", path, wkeys[i].key);
        if (n && !kind_takes(&wkeys[i], kind))
            return ignored_key(v, n, key, &wkeys[i], kind, err, errlen);
        if (n && read_key(v, n, key, &wkeys[i], s, err, errlen))
            return -1;
    }
    yaml_node_t *un = ydoc_view_get(v, w, path, "utilisation");
    if (un && ydoc_view_get(v, w, path, "fill"))
        return ydoc_fail(v->d, un, err, errlen, "%s.utilisation: give fill or utilisation, "
                         "not both", path);
    if (!strcmp(kind, "trace") && !s->trace_path[0])
        return ydoc_fail(v->d, w, err, errlen, "%s.trace: a trace kind needs the file", path);
    return 0;
}

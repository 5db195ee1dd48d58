/*
 * ydoc.c -- YAML documents with positions and overrides (see ydoc.h).
 */
#include "ydoc.h"
#include "suggest.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FILE_BYTES (1u << 20)
#define MAX_DEPTH 32

int ydoc_fail(const struct ydoc *d, const yaml_node_t *n, char *err, size_t errlen,
              const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n)
        snprintf(err, errlen, "%s:%zu:%zu: %s", d->path, n->start_mark.line + 1,
                 n->start_mark.column + 1, msg);
    else
        snprintf(err, errlen, "%s: %s", d->path, msg);
    return -1;
}

char *ydoc_read_text(const char *path, size_t max, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad || n > max) {
        snprintf(err, errlen, "%s: %s", path,
                 !buf ? "out of memory" : bad ? "read error" : "file larger than 1 MiB");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

static int parser_fail(struct ydoc *d, yaml_parser_t *p, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s:%zu:%zu: %s%s%s", d->path, p->problem_mark.line + 1,
             p->problem_mark.column + 1, p->problem ? p->problem : "syntax error",
             p->context ? " " : "", p->context ? p->context : "");
    return -1;
}

static int mark_fail(const struct ydoc *d, yaml_mark_t m, char *err, size_t errlen,
                     const char *msg)
{
    snprintf(err, errlen, "%s:%zu:%zu: %s", d->path, m.line + 1, m.column + 1, msg);
    return -1;
}

/* A first pass over the events: one document, no aliases (which would let
 * a small file expand without bound), syntax errors with their position. */
static int check_events(struct ydoc *d, const char *text, size_t len, char *err,
                        size_t errlen)
{
    yaml_parser_t p;
    yaml_event_t e;
    if (!yaml_parser_initialize(&p))
        return ydoc_fail(d, NULL, err, errlen, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int docs = 0, rc = 0;
    for (int done = 0; !done && !rc;) {
        if (!yaml_parser_parse(&p, &e)) {
            rc = parser_fail(d, &p, err, errlen);
            break;
        }
        const char *bad = e.type == YAML_ALIAS_EVENT ? "aliases (*name) are not allowed"
                        : e.type == YAML_DOCUMENT_START_EVENT && ++docs > 1
                            ? "only one document is allowed" : NULL;
        if (bad)
            rc = mark_fail(d, e.start_mark, err, errlen, bad);
        done = e.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&p);
    if (!rc && !docs)
        return ydoc_fail(d, NULL, err, errlen, "empty file: expected a mapping");
    return rc;
}

int ydoc_load(struct ydoc *d, const char *path, char *err, size_t errlen)
{
    char *text = ydoc_read_text(path, MAX_FILE_BYTES, err, errlen);
    if (!text) {
        memset(d, 0, sizeof *d);
        return -1;
    }
    int rc = ydoc_load_text(d, path, text, err, errlen);
    free(text);
    return rc;
}

int ydoc_load_text(struct ydoc *d, const char *label, const char *text, char *err,
                   size_t errlen)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", label);
    size_t len = strlen(text);
    int rc = check_events(d, text, len, err, errlen);
    if (!rc) {
        yaml_parser_t p;
        if (!yaml_parser_initialize(&p)) {
            rc = ydoc_fail(d, NULL, err, errlen, "out of memory");
        } else {
            yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
            if (!yaml_parser_load(&p, &d->doc))
                rc = parser_fail(d, &p, err, errlen);
            else
                d->loaded = 1;
            yaml_parser_delete(&p);
        }
    }
    if (!rc && (!ydoc_root(d) || ydoc_root(d)->type != YAML_MAPPING_NODE)) {
        rc = ydoc_fail(d, ydoc_root(d), err, errlen, "the top level must be a mapping");
        ydoc_free(d);
    }
    return rc;
}

void ydoc_free(struct ydoc *d)
{
    if (d->loaded)
        yaml_document_delete(&d->doc);
    d->loaded = 0;
}

yaml_node_t *ydoc_root(struct ydoc *d)
{
    return d->loaded ? yaml_document_get_root_node(&d->doc) : NULL;
}

const char *ydoc_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static void join(char *out, size_t cap, const char *prefix, const char *key)
{
    /* paths are short; a longer one is cut and then matches nothing */
    if (snprintf(out, cap, "%s%s%s", prefix, *prefix ? "." : "", key) >= (int)cap)
        out[cap - 1] = 0;
}

static yaml_node_t *own_value(struct yview *v, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
        const char *k = ydoc_scalar(yaml_document_get_node(&v->d->doc, p->key));
        if (k && !strcmp(k, key))
            return yaml_document_get_node(&v->d->doc, p->value);
    }
    return NULL;
}

yaml_node_t *ydoc_view_get(struct yview *v, yaml_node_t *map, const char *prefix,
                       const char *key)
{
    char path[YDOC_PATH_MAX];
    join(path, sizeof path, prefix, key);
    for (size_t i = 0; i < v->nov; i++)
        if (!strcmp(v->ov[i].path, path)) {
            v->ov[i].used = 1;
            return v->ov[i].value;
        }
    return own_value(v, map, key);
}

static int allowed_key(const char *k, const char *const *allowed)
{
    for (; *allowed; allowed++)
        if (!strcmp(*allowed, k))
            return 1;
    return 0;
}

/* The override's key directly under prefix, or NULL. */
static const char *child_of(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    if (n && (strncmp(path, prefix, n) || path[n] != '.'))
        return NULL;
    const char *k = path + (n ? n + 1 : 0);
    return strchr(k, '.') ? NULL : k;
}

int ydoc_view_check_keys(struct yview *v, yaml_node_t *map, const char *prefix,
                     const char *const *allowed, char *err, size_t errlen)
{
    if (map && map->type != YAML_MAPPING_NODE)
        return ydoc_fail(v->d, map, err, errlen, "%s: expected a mapping", *prefix ? prefix : "top level");
    for (yaml_node_pair_t *p = map ? map->data.mapping.pairs.start : NULL;
         map && p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = yaml_document_get_node(&v->d->doc, p->key);
        const char *k = ydoc_scalar(kn);
        if (!k)
            return ydoc_fail(v->d, kn, err, errlen, "keys must be plain words");
        if (!allowed_key(k, allowed)) {
            char hint[512];
            sim_suggest_hint(k, strlen(k), sim_suggest_at_list, allowed, hint, sizeof hint);
            return ydoc_fail(v->d, kn, err, errlen, "unknown key '%s'%s%s%s", k,
                             *prefix ? " in " : "", prefix, hint);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            const char *k2 = ydoc_scalar(yaml_document_get_node(&v->d->doc, q->key));
            if (k2 && !strcmp(k, k2))
                return ydoc_fail(v->d, kn, err, errlen, "duplicate key '%s'", k);
        }
    }
    for (size_t i = 0; i < v->nov; i++) {
        const char *k = child_of(v->ov[i].path, prefix);
        if (k && !allowed_key(k, allowed)) {
            char hint[512];
            sim_suggest_hint(k, strlen(k), sim_suggest_at_list, allowed, hint, sizeof hint);
            return ydoc_fail(v->d, v->ov[i].value, err, errlen,
                             "sweep: '%s' is not a setting (unknown key '%s'%s%s)%s",
                             v->ov[i].path, k, *prefix ? " in " : "", prefix, hint);
        }
    }
    return 0;
}

/* ---- scalars ---------------------------------------------------------- */

static int scalar_of(const struct ydoc *d, const yaml_node_t *n, const char *key,
                     const char **s, char *err, size_t errlen)
{
    if (!(*s = ydoc_scalar(n)) || !**s)
        return ydoc_fail(d, n, err, errlen, "%s: expected a value, got %s", key,
                         !n ? "nothing" : n->type == YAML_SCALAR_NODE ? "an empty one"
                         : n->type == YAML_MAPPING_NODE ? "a mapping" : "a list");
    return 0;
}

/* digits[.digits] and a suffix; the number scaled by the suffix's factor. */
static int number_suffix(const char *s, double *v, const char **suffix)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtod(s, &end);
    if (errno || end == s)
        return -1;
    *suffix = end;
    return 0;
}

static int parse_scaled(const struct ydoc *d, const yaml_node_t *n, const char *key,
                        const char *const *units, const double *factor,
                        const char *what, uint64_t *out, char *err, size_t errlen)
{
    const char *s, *suf;
    double v;
    if (scalar_of(d, n, key, &s, err, errlen))
        return -1;
    if (number_suffix(s, &v, &suf))
        return ydoc_fail(d, n, err, errlen, "%s: expected %s, got '%s'", key, what, s);
    double f = 1;
    if (*suf) {
        size_t i = 0;
        for (; units[i] && strcasecmp(units[i], suf); i++)
            ;
        if (!units[i])
            return ydoc_fail(d, n, err, errlen, "%s: unknown unit '%s' in '%s'", key, suf, s);
        f = factor[i];
    } else if (strpbrk(s, ".eE")) {
        return ydoc_fail(d, n, err, errlen, "%s: expected a whole number, got '%s'", key, s);
    }
    double x = v * f;
    if (!(x < 18446744073709551616.0) || x != floor(x))
        return ydoc_fail(d, n, err, errlen, "%s: '%s' is not a whole number in range", key, s);
    *out = (uint64_t)x;
    return 0;
}

int ydoc_u64(const struct ydoc *d, const yaml_node_t *n, const char *key, uint64_t *out,
             char *err, size_t errlen)
{
    const char *s;
    if (scalar_of(d, n, key, &s, err, errlen))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno)
        return ydoc_fail(d, n, err, errlen, "%s: expected a whole number, got '%s'", key, s);
    *out = v;
    return 0;
}

int ydoc_size(const struct ydoc *d, const yaml_node_t *n, const char *key, uint64_t *out,
              char *err, size_t errlen)
{
    static const char *const units[] = {"B", "K", "KiB", "KB", "M", "MiB", "MB", "G", "GiB",
                                        "GB", "T", "TiB", "TB", NULL};
    static const double f[] = {1, 0x1p10, 0x1p10, 0x1p10, 0x1p20, 0x1p20, 0x1p20, 0x1p30,
                               0x1p30, 0x1p30, 0x1p40, 0x1p40, 0x1p40};
    return parse_scaled(d, n, key, units, f, "a size (e.g. 4096, 64K, 1.5G)", out, err, errlen);
}

int ydoc_duration(const struct ydoc *d, const yaml_node_t *n, const char *key,
                  uint64_t *ns, char *err, size_t errlen)
{
    static const char *const units[] = {"ns", "us", "ms", "s", "min", "h", "d", NULL};
    static const double f[] = {1, 1e3, 1e6, 1e9, 60e9, 3600e9, 86400e9};
    const char *s;
    if (scalar_of(d, n, key, &s, err, errlen))
        return -1;
    const char *suf;
    double v;
    if (!number_suffix(s, &v, &suf) && !*suf)
        return ydoc_fail(d, n, err, errlen, "%s: '%s' needs a unit (ns, us, ms, s, min, h, d)",
                         key, s);
    return parse_scaled(d, n, key, units, f, "a duration (e.g. 10s, 500ms)", ns, err, errlen);
}

int ydoc_double(const struct ydoc *d, const yaml_node_t *n, const char *key, double lo,
                double hi, double *out, char *err, size_t errlen)
{
    const char *s;
    char *end;
    if (scalar_of(d, n, key, &s, err, errlen))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v) || strpbrk(s, "xXnNiI"))
        return ydoc_fail(d, n, err, errlen, "%s: expected a number, got '%s'", key, s);
    if (v < lo || v > hi)
        return ydoc_fail(d, n, err, errlen, "%s: %s is outside %g..%g", key, s, lo, hi);
    *out = v;
    return 0;
}

int ydoc_bool(const struct ydoc *d, const yaml_node_t *n, const char *key, int *out,
              char *err, size_t errlen)
{
    const char *s;
    if (scalar_of(d, n, key, &s, err, errlen))
        return -1;
    if (!strcmp(s, "true") || !strcmp(s, "yes"))
        *out = 1;
    else if (!strcmp(s, "false") || !strcmp(s, "no"))
        *out = 0;
    else
        return ydoc_fail(d, n, err, errlen, "%s: expected true or false, got '%s'", key, s);
    return 0;
}

int ydoc_string(const struct ydoc *d, const yaml_node_t *n, const char *key, char *out,
                size_t cap, char *err, size_t errlen)
{
    const char *s;
    if (scalar_of(d, n, key, &s, err, errlen))
        return -1;
    if (strlen(s) >= cap)
        return ydoc_fail(d, n, err, errlen, "%s: longer than %zu bytes", key, cap - 1);
    memcpy(out, s, strlen(s) + 1);
    return 0;
}

/* ---- JSON of the resolved view ---------------------------------------- */

struct jbuf {
    char *p;
    size_t n, cap;
    int nomem;
};

static void jput(struct jbuf *b, const char *s, size_t n)
{
    if (b->nomem)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 256) + n;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->nomem = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void jstr(struct jbuf *b, const char *s)
{
    jput(b, "\"", 1);
    for (; *s; s++) {
        char esc[8];
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c;
            jput(b, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            jput(b, esc, 6);
        } else {
            jput(b, s, 1);
        }
    }
    jput(b, "\"", 1);
}

/* A plain scalar that reads as a JSON number, true/false or null. */
static int json_literal(const yaml_node_t *n, const char *s)
{
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    if (!strcmp(s, "true") || !strcmp(s, "false"))
        return 1;
    char *end;
    if ((*s == '-' || (*s >= '0' && *s <= '9')) && strtod(s, &end) && !*end)
        return !strpbrk(s, "xXnNiI") && !(s[0] == '0' && s[1] >= '0' && s[1] <= '9');
    return !strcmp(s, "0");
}

static void jmap(struct yview *v, struct jbuf *b, yaml_node_t *map, const char *prefix,
                 int depth);

static void jnode(struct yview *v, struct jbuf *b, yaml_node_t *n, const char *prefix,
                  int depth)
{
    if (!n || depth > MAX_DEPTH) {
        jput(b, "null", 4);
        return;
    }
    if (n->type == YAML_SCALAR_NODE) {
        const char *s = ydoc_scalar(n);
        if (json_literal(n, s))
            jput(b, s, strlen(s));
        else
            jstr(b, s);
    } else if (n->type == YAML_SEQUENCE_NODE) {
        jput(b, "[", 1);
        for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
            if (i > n->data.sequence.items.start)
                jput(b, ",", 1);
            jnode(v, b, yaml_document_get_node(&v->d->doc, *i), "", depth + 1);
        }
        jput(b, "]", 1);
    } else {
        jmap(v, b, n, prefix, depth);
    }
}

/* The first component of path under prefix, into out; 0 if path is not
 * under prefix. */
static int first_under(const char *path, const char *prefix, char *out, size_t cap)
{
    size_t n = strlen(prefix);
    if (n && (strncmp(path, prefix, n) || path[n] != '.'))
        return 0;
    const char *k = path + (n ? n + 1 : 0);
    size_t len = strcspn(k, ".");
    if (len >= cap)
        return 0;
    memcpy(out, k, len);
    out[len] = 0;
    return 1;
}

/* A mapping (map NULL: one the file lacks) with the overrides under it,
 * including sections that only overrides create. */
static void jmap(struct yview *v, struct jbuf *b, yaml_node_t *map, const char *prefix,
                 int depth)
{
    jput(b, "{", 1);
    int first = 1;
    for (yaml_node_pair_t *p = map ? map->data.mapping.pairs.start : NULL;
         map && p < map->data.mapping.pairs.top; p++) {
        const char *k = ydoc_scalar(yaml_document_get_node(&v->d->doc, p->key));
        char path[YDOC_PATH_MAX];
        join(path, sizeof path, prefix, k ? k : "");
        if (!first)
            jput(b, ",", 1);
        first = 0;
        jstr(b, k ? k : "");
        jput(b, ":", 1);
        jnode(v, b, ydoc_view_get(v, map, prefix, k ? k : ""), path, depth + 1);
    }
    for (size_t i = 0; i < v->nov; i++) { /* keys only overrides give */
        char k[YDOC_PATH_MAX], path[YDOC_PATH_MAX];
        if (!first_under(v->ov[i].path, prefix, k, sizeof k) || own_value(v, map, k))
            continue;
        int seen = 0; /* an earlier override already gave this key */
        for (size_t j = 0; j < i && !seen; j++) {
            char k2[YDOC_PATH_MAX];
            seen = first_under(v->ov[j].path, prefix, k2, sizeof k2) && !strcmp(k, k2);
        }
        if (seen)
            continue;
        if (!first)
            jput(b, ",", 1);
        first = 0;
        jstr(b, k);
        jput(b, ":", 1);
        join(path, sizeof path, prefix, k);
        if (!strcmp(path, v->ov[i].path))
            jnode(v, b, v->ov[i].value, path, depth + 1);
        else
            jmap(v, b, NULL, path, depth + 1);
    }
    jput(b, "}", 1);
}

char *ydoc_view_json_key(struct yview *v, yaml_node_t *map, const char *prefix, const char *key)
{
    char path[YDOC_PATH_MAX], k[YDOC_PATH_MAX];
    join(path, sizeof path, prefix, key);
    yaml_node_t *n = ydoc_view_get(v, map, prefix, key);
    int below = 0;
    for (size_t i = 0; i < v->nov && !below; i++)
        below = first_under(v->ov[i].path, path, k, sizeof k);
    if (!n && !below)
        return NULL;
    struct jbuf b = {0};
    if (n)
        jnode(v, &b, n, path, 0);
    else
        jmap(v, &b, NULL, path, 0);
    if (b.nomem) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

char *ydoc_view_json(struct yview *v, yaml_node_t *n, const char *prefix)
{
    struct jbuf b = {0};
    jnode(v, &b, n, prefix, 0);
    if (b.nomem) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

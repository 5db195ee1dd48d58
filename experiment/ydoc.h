/*
 * ydoc.h -- a YAML file as a tree with positions, for the experiment
 * loader: libyaml's document API, plus
 *   - strict loading: one document, no aliases, at most 1 MiB;
 *   - a view with overrides (a sweep assigns values at dotted paths such
 *     as "fs.gc_policy"), so that every run of a sweep is the same tree
 *     with a few nodes replaced;
 *   - typed scalar readers whose errors are "FILE:LINE:COL: KEY: message".
 */
#ifndef FLASHLAB_YDOC_H
#define FLASHLAB_YDOC_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

struct ydoc {
    yaml_document_t doc;
    char path[1024];
    int loaded;
};

/* 0, or -1 with "PATH:LINE:COL: message" (or "PATH: message") in err. */
int ydoc_load(struct ydoc *d, const char *path, char *err, size_t errlen);
/* The same from text already read; label stands for the path in messages. */
int ydoc_load_text(struct ydoc *d, const char *label, const char *text, char *err,
                   size_t errlen);
/* The file's text (for the experiments table); malloc'd, NULL on error. */
char *ydoc_read_text(const char *path, size_t max, char *err, size_t errlen);
void ydoc_free(struct ydoc *d);
yaml_node_t *ydoc_root(struct ydoc *d);

/* An override: the node that replaces whatever is at `path` (or adds it). */
#define YDOC_PATH_MAX 128
struct yoverride {
    char path[YDOC_PATH_MAX];
    yaml_node_t *value;
    int used;
};

/* The doc as one run sees it. */
struct yview {
    struct ydoc *d;
    struct yoverride *ov;
    size_t nov;
};

/* The value of key in mapping map (which sits at dotted path prefix, ""
 * for the root): an override of prefix.key if any, else the mapping's own
 * entry, else NULL.  map may be NULL (a section only overrides fill). */
yaml_node_t *ydoc_view_get(struct yview *v, yaml_node_t *map, const char *prefix,
                       const char *key);
/* Check that every key of map (and every override directly under prefix)
 * is in allowed (NULL-terminated). */
int ydoc_view_check_keys(struct yview *v, yaml_node_t *map, const char *prefix,
                     const char *const *allowed, char *err, size_t errlen);

/* "FILE:LINE:COL: " + message about node n (which may be NULL: "FILE: "). */
int ydoc_fail(const struct ydoc *d, const yaml_node_t *n, char *err, size_t errlen,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Scalar readers.  `key` names the setting in messages (a dotted path).
 * Integers: decimal, with an optional binary size suffix when sizes is set
 * (K, M, G, T, optionally followed by iB or B) or a time suffix when time
 * is set (ns, us, ms, s, min, h; the result in ns). */
const char *ydoc_scalar(const yaml_node_t *n); /* NULL if not a scalar */
int ydoc_u64(const struct ydoc *d, const yaml_node_t *n, const char *key,
             uint64_t *out, char *err, size_t errlen);
int ydoc_size(const struct ydoc *d, const yaml_node_t *n, const char *key,
              uint64_t *out, char *err, size_t errlen);
int ydoc_duration(const struct ydoc *d, const yaml_node_t *n, const char *key,
                  uint64_t *ns, char *err, size_t errlen);
int ydoc_double(const struct ydoc *d, const yaml_node_t *n, const char *key,
                double lo, double hi, double *out, char *err, size_t errlen);
int ydoc_bool(const struct ydoc *d, const yaml_node_t *n, const char *key, int *out,
              char *err, size_t errlen);
int ydoc_string(const struct ydoc *d, const yaml_node_t *n, const char *key, char *out,
                size_t cap, char *err, size_t errlen);

/* The resolved view as JSON (mappings, sequences; scalars as numbers,
 * true/false or strings), for the runs table.  malloc'd, NULL on no memory. */
char *ydoc_view_json(struct yview *v, yaml_node_t *n, const char *prefix);
/* The JSON of the value at prefix.key (a mapping made of overrides alone
 * if the file lacks it), or NULL when there is none (or no memory). */
char *ydoc_view_json_key(struct yview *v, yaml_node_t *map, const char *prefix, const char *key);

#endif

/* faults_section.c -- the `faults:` section of an experiment (docs/faults.md):
 * which fault kinds, how many locations per class, which classes, and the
 * strength of each kind. */
#include "exp_internal.h"

#include <string.h>

static const char *const kind_names[EXP_FAULT_KINDS] = {
    "silent", "beyond", "uncorrectable", "retention", "disturb", "bad"};

const char *exp_fault_kind_name(int kind)
{
    return kind >= 0 && kind < EXP_FAULT_KINDS ? kind_names[kind] : NULL;
}

/* A list of names (or one name): calls fn for each item. */
static int each_name(struct yview *v, yaml_node_t *n, const char *key,
                     int (*fn)(struct yview *, yaml_node_t *, const char *, void *, char *, size_t),
                     void *ctx, char *err, size_t errlen)
{
    if (n->type == YAML_SCALAR_NODE)
        return fn(v, n, ydoc_scalar(n), ctx, err, errlen);
    if (n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top == n->data.sequence.items.start)
        return ydoc_fail(v->d, n, err, errlen, "%s: a name or a non-empty list of names", key);
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        yaml_node_t *it = yaml_document_get_node(&v->d->doc, *i);
        if (!it || it->type != YAML_SCALAR_NODE)
            return ydoc_fail(v->d, it ? it : n, err, errlen, "%s: items are names", key);
        if (fn(v, it, ydoc_scalar(it), ctx, err, errlen))
            return -1;
    }
    return 0;
}

static int add_kind(struct yview *v, yaml_node_t *n, const char *name, void *ctx, char *err,
                    size_t errlen)
{
    struct exp_faults *f = ctx;
    for (int k = 0; k < EXP_FAULT_KINDS; k++)
        if (!strcmp(name, kind_names[k])) {
            f->kinds |= 1u << k;
            return 0;
        }
    return ydoc_fail(v->d, n, err, errlen,
                     "faults.kinds: unknown kind '%s' (silent, beyond, uncorrectable, "
                     "retention, disturb, bad)", name);
}

static int add_class(struct yview *v, yaml_node_t *n, const char *name, void *ctx, char *err,
                     size_t errlen)
{
    struct exp_faults *f = ctx;
    if (f->nclasses == EXP_FAULT_CLASSES_MAX || strlen(name) >= sizeof f->classes[0] || !*name)
        return ydoc_fail(v->d, n, err, errlen, "faults.classes: too many, or a bad name '%s'",
                         name);
    strcpy(f->classes[f->nclasses++], name);
    return 0;
}

int exp_faults(struct yview *v, yaml_node_t *root, struct exp_faults *f, char *err,
               size_t errlen)
{
    static const char *const keys[] = {"kinds", "points", "classes", "fsck", "bits",
                                       "retention", "reads", NULL};
    yaml_node_t *sec = ydoc_view_get(v, root, "", "faults"), *n;
    memset(f, 0, sizeof *f);
    if (!sec)
        return 0;
    if (sec->type != YAML_MAPPING_NODE)
        return ydoc_fail(v->d, sec, err, errlen, "faults: a mapping (docs/faults.md)");
    if (ydoc_view_check_keys(v, sec, "faults", keys, err, errlen))
        return -1;
    f->present = 1;
    f->points = 3;
    f->fsck = 1;
    f->retention_ns = 10ull * 365 * 24 * 3600 * 1000000000ull; /* ten years */
    f->reads = 1000000;
    if ((n = ydoc_view_get(v, sec, "faults", "kinds"))) {
        if (each_name(v, n, "faults.kinds", add_kind, f, err, errlen))
            return -1;
    } else {
        f->kinds = (1u << EXP_FAULT_KINDS) - 1;
    }
    uint64_t x;
    if ((n = ydoc_view_get(v, sec, "faults", "points"))) {
        if (ydoc_u64(v->d, n, "faults.points", &x, err, errlen))
            return -1;
        if (x < 1 || x > 100000)
            return ydoc_fail(v->d, n, err, errlen, "faults.points: 1 to 100000");
        f->points = (uint32_t)x;
    }
    if ((n = ydoc_view_get(v, sec, "faults", "classes")) &&
        each_name(v, n, "faults.classes", add_class, f, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sec, "faults", "fsck")) &&
        ydoc_bool(v->d, n, "faults.fsck", &f->fsck, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sec, "faults", "bits"))) {
        if (ydoc_u64(v->d, n, "faults.bits", &x, err, errlen))
            return -1;
        if (x > 4096)
            return ydoc_fail(v->d, n, err, errlen, "faults.bits: at most 4096");
        f->bits = (uint32_t)x;
    }
    if ((n = ydoc_view_get(v, sec, "faults", "retention")) &&
        ydoc_duration(v->d, n, "faults.retention", &f->retention_ns, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sec, "faults", "reads")) &&
        ydoc_u64(v->d, n, "faults.reads", &f->reads, err, errlen))
        return -1;
    return 0;
}

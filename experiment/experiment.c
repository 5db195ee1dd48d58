/*
 * experiment.c -- an experiment file: its top-level keys, seeds and the
 * sweep; run i is a view of the file with the sweep's values for i as
 * overrides, read by the section readers of sections.c and
 * workload_section.c.  Run numbering: the sweep's combinations in file order
 * (the last key varying fastest), then seeds, then repetitions.
 */
#include "exp_internal.h"
#include "gc_policy.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const top_keys[] = {"name", "description", "device", "fs", "age",
                                       "workload", "stop", "sample", "seed", "seeds",
                                       "repetitions", "sweep", "powercut", "mount", "retention",
                                       "faults", NULL};

void exp_resolve_path(const char *exp_path, const char *name, char *out, size_t cap)
{
    if (name[0] == '/' || !exp_path || !strchr(exp_path, '/')) {
        snprintf(out, cap, "%s", name);
        return;
    }
    int dir = (int)(strrchr(exp_path, '/') - exp_path);
    if (snprintf(out, cap, "%.*s/%s", dir, exp_path, name) >= (int)cap)
        snprintf(out, cap, "%s", name);
}

const char *exp_path_missing(const char *exp_path, const char *name, const char *resolved,
                             char *buf, size_t cap)
{
    int dir = exp_path && strchr(exp_path, '/') ? (int)(strrchr(exp_path, '/') - exp_path) : 1;
    const char *d = exp_path && strchr(exp_path, '/') ? exp_path : ".";
    int n = snprintf(buf, cap, "%s: no such file (looked for %s: a relative path is relative "
                     "to the experiment's directory, %.*s/, not the current one)", name,
                     resolved, dir, d);
    if (name[0] != '/' && strcmp(name, resolved) && !access(name, R_OK) && n > 0 &&
        (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "; %s exists from the current directory: write "
                 "its path relative to %.*s/, or an absolute one", name, dir, d);
    return buf;
}

/* Every run's seed differs: seed s repetition r runs with s + r, so seeds
 * closer than `repetitions` give two identical runs counted as two. */
static int distinct_seeds(struct experiment *e, yaml_node_t *list, yaml_node_t *reps,
                          char *err, size_t errlen)
{
    for (uint32_t j = 1; j < e->nseeds; j++)
        for (uint32_t i = 0; i < j; i++) {
            uint64_t a = e->seeds[i], b = e->seeds[j], d = a > b ? a - b : b - a;
            if (d >= e->reps)
                continue;
            yaml_node_t *at = yaml_document_get_node(&e->doc.doc,
                                                     list->data.sequence.items.start[j]);
            if (!d)
                return ydoc_fail(&e->doc, at, err, errlen, "seeds: %llu is given twice (items "
                                 "%u and %u): the two runs would be the same run, counted "
                                 "twice", (unsigned long long)b, i + 1, j + 1);
            return ydoc_fail(&e->doc, reps ? reps : at, err, errlen, "seeds %llu and %llu with "
                             "repetitions: %u overlap (repetition r of seed s runs seed s + r): "
                             "the same seed would run twice, counted as two runs",
                             (unsigned long long)a, (unsigned long long)b, e->reps);
        }
    return 0;
}

static int read_seeds(struct experiment *e, struct yview *v, yaml_node_t *root, char *err,
                      size_t errlen)
{
    yaml_node_t *one = ydoc_view_get(v, root, "", "seed"), *list = ydoc_view_get(v, root, "", "seeds");
    yaml_node_t *reps = ydoc_view_get(v, root, "", "repetitions");
    e->nseeds = 1;
    e->seeds[0] = 1;
    e->reps = 1;
    if (one && list)
        return ydoc_fail(&e->doc, list, err, errlen, "give seed or seeds, not both");
    if (one && ydoc_u64(&e->doc, one, "seed", &e->seeds[0], err, errlen))
        return -1;
    if (list) {
        if (list->type != YAML_SEQUENCE_NODE)
            return ydoc_fail(&e->doc, list, err, errlen, "seeds: expected a list");
        size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
        if (!n || n > EXP_MAX_SEEDS)
            return ydoc_fail(&e->doc, list, err, errlen, "seeds: 1..%u of them", EXP_MAX_SEEDS);
        for (size_t i = 0; i < n; i++) {
            yaml_node_t *s = yaml_document_get_node(&e->doc.doc, list->data.sequence.items.start[i]);
            if (ydoc_u64(&e->doc, s, "seeds", &e->seeds[i], err, errlen))
                return -1;
        }
        e->nseeds = (uint32_t)n;
    }
    if (reps) {
        uint64_t r;
        if (ydoc_u64(&e->doc, reps, "repetitions", &r, err, errlen))
            return -1;
        if (!r || r > EXP_MAX_SEEDS)
            return ydoc_fail(&e->doc, reps, err, errlen, "repetitions: 1..%u", EXP_MAX_SEEDS);
        e->reps = (uint32_t)r;
    }
    return distinct_seeds(e, list, reps, err, errlen);
}

static int read_sweep(struct experiment *e, yaml_node_t *sw, char *err, size_t errlen)
{
    e->combos = 1;
    if (!sw)
        return 0;
    if (sw->type != YAML_MAPPING_NODE)
        return ydoc_fail(&e->doc, sw, err, errlen, "sweep: expected a mapping of KEY: [values]");
    for (yaml_node_pair_t *p = sw->data.mapping.pairs.start; p < sw->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&e->doc.doc, p->key);
        yaml_node_t *l = yaml_document_get_node(&e->doc.doc, p->value);
        const char *ks = ydoc_scalar(k);
        if (e->naxes == EXP_MAX_AXES)
            return ydoc_fail(&e->doc, k, err, errlen, "sweep: at most %d keys", EXP_MAX_AXES);
        if (!ks || !*ks || strlen(ks) >= YDOC_PATH_MAX)
            return ydoc_fail(&e->doc, k, err, errlen, "sweep: keys are dotted paths such as fs.gc_policy");
        if (!strncmp(ks, "sweep", 5) || !strcmp(ks, "seed") || !strcmp(ks, "seeds") ||
            !strcmp(ks, "repetitions") || !strcmp(ks, "name"))
            return ydoc_fail(&e->doc, k, err, errlen, "sweep: '%s' cannot be swept", ks);
        if (l->type != YAML_SEQUENCE_NODE || l->data.sequence.items.top == l->data.sequence.items.start)
            return ydoc_fail(&e->doc, l, err, errlen, "sweep.%s: expected a non-empty list", ks);
        struct exp_axis *a = &e->axis[e->naxes];
        for (uint32_t j = 0; j < e->naxes; j++)
            if (!strcmp(e->axis[j].path, ks))
                return ydoc_fail(&e->doc, k, err, errlen, "sweep: duplicate key '%s'", ks);
        snprintf(a->path, sizeof a->path, "%s", ks);
        a->key = k;
        a->n = (uint32_t)(l->data.sequence.items.top - l->data.sequence.items.start);
        a->values = malloc(a->n * sizeof *a->values);
        if (!a->values)
            return ydoc_fail(&e->doc, k, err, errlen, "out of memory");
        for (uint32_t j = 0; j < a->n; j++)
            a->values[j] = yaml_document_get_node(&e->doc.doc, l->data.sequence.items.start[j]);
        e->naxes++;
        if ((uint64_t)e->combos * a->n > EXP_MAX_RUNS)
            return ydoc_fail(&e->doc, l, err, errlen, "sweep: more than %u runs", EXP_MAX_RUNS);
        e->combos *= a->n;
    }
    return 0;
}

/* Every setting of one run, from the view v. */
static int read_run(struct experiment *e, struct yview *v, struct exp_run *r, char *err,
                    size_t errlen)
{
    yaml_node_t *root = ydoc_root(&e->doc);
    if (ydoc_view_check_keys(v, root, "", top_keys, err, errlen) ||
        exp_device(v, root, r, err, errlen) || exp_fs(v, root, r, err, errlen) ||
        exp_workload(v, root, "", &r->wl, err, errlen) || exp_stop(v, root, "", &r->stop, err, errlen) ||
        exp_sample(v, root, r, err, errlen) || exp_powercut(v, root, &r->pc, err, errlen) ||
        exp_faults(v, root, &r->faults, err, errlen) ||
        exp_mount(v, root, r, err, errlen) || exp_retention(v, root, &r->ret, err, errlen))
        return -1;
    yaml_node_t *age = ydoc_view_get(v, root, "", "age");
    if (age) {
        static const char *const age_keys[] = {"workload", "stop", NULL};
        if (ydoc_view_check_keys(v, age, "age", age_keys, err, errlen) ||
            exp_workload(v, age, "age", &r->age, err, errlen) ||
            exp_stop(v, age, "age", &r->age_stop, err, errlen))
            return -1;
        r->has_age = 1;
    }
    for (size_t i = 0; i < v->nov; i++)
        if (!v->ov[i].used)
            return ydoc_fail(&e->doc, e->axis[i].key, err, errlen,
                             "sweep: '%s' is not a setting of this experiment", v->ov[i].path);
    return 0;
}

/* Append fmt to the growing string *p (NULL once out of memory). */
static void cat(char **p, size_t *n, const char *fmt, const char *a, const char *b)
{
    if (!*p)
        return;
    size_t need = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *np = realloc(*p, *n + need);
    if (!np) {
        free(*p);
        *p = NULL;
        return;
    }
    *p = np;
    *n += (size_t)snprintf(np + *n, need, fmt, a, b);
}

/* The run's settings for the runs table: each section as resolved, then
 * the seed, the repetition and the sweep's values. */
static char *params_json(struct experiment *e, struct yview *v, const struct exp_run *r,
                         uint32_t rep)
{
    static const char *const sections[] = {"device", "fs", "age", "workload", "stop",
                                           "sample", "powercut", "mount", "retention", "faults"};
    yaml_node_t *root = ydoc_root(&e->doc);
    size_t n = 0;
    char *out = calloc(1, 1), num[64];
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
        char *j = ydoc_view_json_key(v, root, "", sections[i]);
        if (j)
            cat(&out, &n, "%s\"%s\":", n ? "," : "{", sections[i]);
        if (j)
            cat(&out, &n, "%s%s", j, "");
        free(j);
    }
    snprintf(num, sizeof num, "%llu,\"repetition\":%u", (unsigned long long)r->seed, rep);
    cat(&out, &n, "%s\"seed\":%s,", n ? "," : "{", num);
    if (r->fs_epoch_ns >= 0) { /* the epoch of its timestamps, given or not */
        snprintf(num, sizeof num, "%lld", (long long)r->fs_epoch_ns);
        cat(&out, &n, "\"fs_epoch_ns\":%s,%s", num, "");
    }
    cat(&out, &n, "%s%s", "\"sweep\":{", "");
    struct yview plain = {&e->doc, NULL, 0};
    for (uint32_t a = 0; a < e->naxes; a++) {
        char *val = ydoc_view_json(&plain, v->ov[a].value, "");
        cat(&out, &n, "%s\"%s\":", a ? "," : "", v->ov[a].path);
        cat(&out, &n, "%s%s", val ? val : "null", "");
        free(val);
    }
    cat(&out, &n, "%s%s", "}}", "");
    return out;
}

int experiment_run(struct experiment *e, uint32_t index, struct exp_run *r, char *err,
                   size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (index >= e->runs) {
        snprintf(err, errlen, "%s: no run %u (runs 0..%u)", e->doc.path, index, e->runs - 1);
        return -1;
    }
    struct yoverride ov[EXP_MAX_AXES];
    struct yview v = {&e->doc, ov, e->naxes};
    uint32_t rep = index % e->reps, si = index / e->reps % e->nseeds;
    uint32_t combo = index / e->reps / e->nseeds;
    for (uint32_t a = e->naxes; a-- > 0;) { /* the last key varies fastest */
        snprintf(ov[a].path, sizeof ov[a].path, "%s", e->axis[a].path);
        ov[a].value = e->axis[a].values[combo % e->axis[a].n];
        ov[a].used = 0;
        combo /= e->axis[a].n;
    }
    r->index = index;
    r->seed = e->seeds[si] + rep;
    if (read_run(e, &v, r, err, errlen))
        return -1;
    if (r->wl.trace_path[0]) {
        char p[sizeof r->wl.trace_path];
        exp_resolve_path(e->doc.path, r->wl.trace_path, p, sizeof p);
        if (access(p, R_OK)) {
            char m[3 * sizeof p];
            snprintf(err, errlen, "%s: workload.trace: %s", e->doc.path,
                     exp_path_missing(e->doc.path, r->wl.trace_path, p, m, sizeof m));
            return -1;
        }
        memcpy(r->wl.trace_path, p, sizeof p);
    }
    r->params_json = params_json(e, &v, r, rep);
    if (!r->params_json) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void exp_run_free(struct exp_run *r)
{
    free(r->params_json);
    r->params_json = NULL;
}

/* 1 when something of run r draws from its seed: a synthetic workload (or
 * age: workload), a GC policy that picks at random, a power-cut campaign
 * with random instants, samples or second cuts, a media-fault campaign
 * (its pages are sampled).  A trace decides everything itself. */
static int run_uses_seed(const struct exp_run *r)
{
    const char *p = strstr(r->fs_options, "gc_policy=");
    char name[32] = "";
    if (p)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(p + 10, ","), p + 10);
    const struct gc_policy *pol = name[0] ? gc_policy_find(name) : NULL;
    return strcmp(r->wl.kind, "trace") || (r->has_age && strcmp(r->age.kind, "trace")) ||
           (pol && pol->seeded) || (r->pc.present && (r->pc.within || r->pc.sample ||
                                                      r->pc.second)) ||
           r->faults.present;
}

/* Several seeds (or repetitions) over a run nothing of which draws from
 * its seed give identical runs, counted as independent ones. */
static int seeds_matter(struct experiment *e, const struct exp_run *r, char *err, size_t errlen)
{
    if (e->nseeds * e->reps < 2 || run_uses_seed(r))
        return 0;
    struct yview plain = {&e->doc, NULL, 0};
    yaml_node_t *root = ydoc_root(&e->doc);
    yaml_node_t *at = ydoc_view_get(&plain, root, "", "seeds");
    if (!at)
        at = ydoc_view_get(&plain, root, "", "repetitions");
    return ydoc_fail(&e->doc, at, err, errlen, "the %u runs per setting (seeds x repetitions) "
                     "over a trace would be identical: a trace replays the same operations "
                     "whatever the seed, and nothing else here draws from it (an age: "
                     "workload, a random GC policy, powercut: within/sample/second_cuts, "
                     "faults:); give one seed", e->nseeds * e->reps);
}

int experiment_load(const char *path, struct experiment **out, char *err, size_t errlen)
{
    struct experiment *e = calloc(1, sizeof *e);
    *out = NULL;
    if (!e) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (ydoc_load(&e->doc, path, err, errlen) ||
        !(e->text = ydoc_read_text(path, 1u << 20, err, errlen))) {
        experiment_free(e);
        return -1;
    }
    yaml_node_t *root = ydoc_root(&e->doc);
    struct yview plain = {&e->doc, NULL, 0};
    yaml_node_t *nm = ydoc_view_get(&plain, root, "", "name");
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(e->name, sizeof e->name, "%.*s", (int)strcspn(base, "."), base);
    int rc = nm ? ydoc_string(&e->doc, nm, "name", e->name, sizeof e->name, err, errlen) : 0;
    if (!rc)
        rc = read_seeds(e, &plain, root, err, errlen);
    if (!rc)
        rc = read_sweep(e, ydoc_view_get(&plain, root, "", "sweep"), err, errlen);
    if (!rc && (uint64_t)e->combos * e->nseeds * e->reps > EXP_MAX_RUNS)
        rc = ydoc_fail(&e->doc, root, err, errlen, "more than %u runs", EXP_MAX_RUNS);
    if (!rc)
        e->runs = e->combos * e->nseeds * e->reps;
    /* check every run now, so that run 37's typo stops run 0 from starting;
     * runs differing only in seed and repetition read the same settings */
    for (uint32_t i = 0; !rc && i < e->runs; i += e->nseeds * e->reps) {
        struct exp_run r;
        rc = experiment_run(e, i, &r, err, errlen);
        if (!rc)
            rc = seeds_matter(e, &r, err, errlen);
        if (!rc)
            rc = exp_check_device(&plain, root, &r, err, errlen);
        exp_run_free(&r);
    }
    if (rc) {
        experiment_free(e);
        return -1;
    }
    *out = e;
    return 0;
}

void experiment_free(struct experiment *e)
{
    if (!e)
        return;
    for (uint32_t a = 0; a < e->naxes; a++)
        free(e->axis[a].values);
    ydoc_free(&e->doc);
    free(e->text);
    free(e);
}

const char *experiment_name(const struct experiment *e) { return e->name; }
const char *experiment_path(const struct experiment *e) { return e->doc.path; }
const char *experiment_text(const struct experiment *e) { return e->text; }
uint32_t experiment_runs(const struct experiment *e) { return e->runs; }

int exp_run_mkfs(const struct exp_run *r, nand_dev *dev)
{
    return r->fs_api->mkfs(dev, r->fs_options);
}

int exp_run_mount(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m)
{
    memset(m, 0, sizeof *m);
    m->fs.api = r->fs_api;
    int rc = r->fs_api->mount(dev, r->fs_options, &m->fs.fs);
    if (rc)
        m->fs.fs = NULL;
    return rc;
}

int exp_run_unmount(struct exp_mounted *m)
{
    int rc = m->fs.fs ? m->fs.api->unmount(m->fs.fs) : 0;
    m->fs.fs = NULL;
    return rc;
}

/* exp_internal.h -- what the experiment loader's files share. */
#ifndef FLASHLAB_EXP_INTERNAL_H
#define FLASHLAB_EXP_INTERNAL_H

#include "experiment.h"
#include "ydoc.h"

#define EXP_MAX_AXES 16
#define EXP_MAX_RUNS 100000u
#define EXP_MAX_SEEDS 1024u

struct exp_axis {
    char path[YDOC_PATH_MAX];
    yaml_node_t *key;              /* for messages */
    yaml_node_t **values;          /* the list's items */
    uint32_t n;
};

struct experiment {
    struct ydoc doc;
    char name[128];
    char *text;
    struct exp_axis axis[EXP_MAX_AXES];
    uint32_t naxes, combos;
    uint64_t seeds[EXP_MAX_SEEDS];
    uint32_t nseeds, reps, runs;
};

/* A file named in the experiment: an absolute path as it is, a relative
 * one relative to the experiment file's directory (never the current
 * directory, so that an experiment runs the same from anywhere). */
void exp_resolve_path(const char *exp_path, const char *name, char *out, size_t cap);
/* When the resolved file is missing: "NAME: no such file (looked for
 * RESOLVED: a relative path is relative to the experiment's directory,
 * DIR/)" and, when NAME exists from the current directory, a hint to
 * write it relative to the experiment; in buf.  Returns buf. */
const char *exp_path_missing(const char *exp_path, const char *name, const char *resolved,
                             char *buf, size_t cap);
int exp_device(struct yview *v, yaml_node_t *root, struct exp_run *r, char *err, size_t errlen);
/* fs: kind (default logfs), then the kind's options by name (its
 * option_help) and its options string, into r->fs_options. */
int exp_fs(struct yview *v, yaml_node_t *root, struct exp_run *r, char *err, size_t errlen);
/* sec's `stop` mapping (prefix: sec's path, "" for the top level). */
int exp_stop(struct yview *v, yaml_node_t *sec, const char *prefix, struct exp_stop *s,
             char *err, size_t errlen);
int exp_sample(struct yview *v, yaml_node_t *root, struct exp_run *r, char *err,
               size_t errlen);
int exp_powercut(struct yview *v, yaml_node_t *root, struct exp_powercut *pc, char *err,
                 size_t errlen);
/* faults: the media-fault campaign (faults_section.c) */
int exp_faults(struct yview *v, yaml_node_t *root, struct exp_faults *f, char *err,
               size_t errlen);
/* mount: {unclean: bool} */
int exp_mount(struct yview *v, yaml_node_t *root, struct exp_run *r, char *err, size_t errlen);
/* retention: {duration, step, scrub_every, scrub_budget} */
int exp_retention(struct yview *v, yaml_node_t *root, struct exp_retention *t, char *err,
                  size_t errlen);
/* The run's device is big enough for its fs and workloads (devcheck.c):
 * 0, or -1 with "FILE:LINE:COL: device: too small ... the smallest that
 * works is ..." when a larger device would do. */
int exp_check_device(struct yview *v, yaml_node_t *root, const struct exp_run *r, char *err,
                     size_t errlen);
/* sec's `workload` mapping into s. */
int exp_workload(struct yview *v, yaml_node_t *sec, const char *prefix, struct wl_spec *s,
                 char *err, size_t errlen);

#endif

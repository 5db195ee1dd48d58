/*
 * retention_section.c -- the `retention:` section of an experiment
 * (docs/experiments.md, docs/scrubbing.md): how long the host stays idle
 * after the workload, how often every file is read, and how often LogFS's
 * idle scrubber runs with what budget.
 */
#include "exp_internal.h"

#include <string.h>

int exp_retention(struct yview *v, yaml_node_t *root, struct exp_retention *t, char *err,
                  size_t errlen)
{
    static const char *const keys[] = {"duration", "step", "scrub_every", "scrub_budget", NULL};
    yaml_node_t *sec = ydoc_view_get(v, root, "", "retention"), *n;
    memset(t, 0, sizeof *t);
    if (!sec)
        return 0;
    if (ydoc_view_check_keys(v, sec, "retention", keys, err, errlen))
        return -1;
    t->present = 1;
    if (!(n = ydoc_view_get(v, sec, "retention", "duration")))
        return ydoc_fail(v->d, sec, err, errlen, "retention: duration is required");
    if (ydoc_duration(v->d, n, "retention.duration", &t->duration_ns, err, errlen))
        return -1;
    if (!(n = ydoc_view_get(v, sec, "retention", "step")))
        return ydoc_fail(v->d, sec, err, errlen, "retention: step is required");
    if (ydoc_duration(v->d, n, "retention.step", &t->step_ns, err, errlen))
        return -1;
    if (!t->step_ns || t->step_ns > t->duration_ns || t->duration_ns / t->step_ns > 100000)
        return ydoc_fail(v->d, n, err, errlen, "retention.step: more than 0, at most the "
                         "duration, and at most 100000 steps in it");
    if ((n = ydoc_view_get(v, sec, "retention", "scrub_every")) &&
        ydoc_duration(v->d, n, "retention.scrub_every", &t->scrub_every_ns, err, errlen))
        return -1;
    if (t->scrub_every_ns && t->duration_ns / t->scrub_every_ns > 10000000)
        return ydoc_fail(v->d, n, err, errlen, "retention.scrub_every: too short for the "
                         "duration (at most 10^7 scrubs)");
    if ((n = ydoc_view_get(v, sec, "retention", "scrub_budget")) &&
        ydoc_u64(v->d, n, "retention.scrub_budget", &t->scrub_budget, err, errlen))
        return -1;
    return 0;
}

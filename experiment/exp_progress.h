/*
 * exp_progress.h -- how the runner and the campaigns report progress: the
 * caller passes a callback and its context, and every report is one
 * struct.  Nothing below cli/ draws or prints progress; the CLI's
 * implementation is cli/progress.c.
 */
#ifndef FLASHLAB_EXP_PROGRESS_H
#define FLASHLAB_EXP_PROGRESS_H

#include <stdint.h>

enum exp_phase {
    EXP_PHASE_AGEING,  /* the runner: ageing the fs before measuring */
    EXP_PHASE_MEASURE, /* the runner: the measured workload */
    EXP_PHASE_POINTS,  /* a campaign: checking its points */
    EXP_PHASE_NOTE,    /* a message to the log follows: a progress line makes way */
};

/* Plain data, no pointers: cli/cmd_run.c passes it through a pipe. */
struct exp_report {
    int phase;      /* enum exp_phase */
    double done;    /* the runner: 0..1 of the stop condition; a campaign: points checked */
    uint64_t total; /* a campaign: points chosen (the runner: 0) */
    uint64_t bad;   /* a campaign: failed points so far */
    uint64_t ops;   /* the runner: operations of the phase so far */
    double wa;      /* the runner: flash bytes programmed / host bytes so far */
};

struct exp_progress {
    void (*report)(void *ctx, const struct exp_report *r); /* NULL: no reports */
    void *ctx;
};

/* Report r to p (p or its callback may be NULL: nothing). */
static inline void exp_progress_report(const struct exp_progress *p, const struct exp_report *r)
{
    if (p && p->report)
        p->report(p->ctx, r);
}

#endif

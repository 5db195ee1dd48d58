/*
 * runner.h -- one run of an experiment: make the device, mkfs and mount
 * LogFS, age it, run the workload until the stop condition while sampling
 * into the results database, then measure a remount.
 */
#ifndef FLASHLAB_RUNNER_H
#define FLASHLAB_RUNNER_H

#include "experiment.h"
#include "results.h"

#include <stddef.h>
#include <stdint.h>

struct runner_progress {
    double done;          /* 0..1 of the stop condition (the nearest one) */
    uint64_t ops;         /* operations of the measured phase so far */
    double wa;            /* flash bytes programmed / host bytes so far */
    int ageing;           /* still in the ageing phase */
};
typedef void (*runner_progress_fn)(void *ctx, const struct runner_progress *p);

/* Run r as run_id of db (which the caller began and will end).  Writes
 * samples, erase-count snapshots, latency summaries, one mount measurement
 * and kv rows (stop_reason, ...).  progress (may be NULL) is called every
 * few thousand operations.  0, or -1 with err filled. */
int runner_run(const struct exp_run *r, struct results *db, int64_t run_id,
               runner_progress_fn progress, void *ctx, char *err, size_t errlen);

#endif

/*
 * runner.h -- one run of an experiment: make the device, mkfs and mount
 * LogFS, age it, run the workload until the stop condition while sampling
 * into the results database, then measure a remount.
 */
#ifndef FLASHLAB_RUNNER_H
#define FLASHLAB_RUNNER_H

#include "exp_progress.h"
#include "experiment.h"
#include "results.h"

#include <stddef.h>
#include <stdint.h>

/* Run r as run_id of db (which the caller began and will end).  Writes
 * samples, erase-count snapshots, latency summaries, one mount measurement
 * and kv rows (stop_reason, ...).  progress (may be NULL) hears every few
 * thousand operations (phase ageing or measure; done: the nearest stop
 * condition's share).  0, or -1 with err filled. */
int exp_runner_run(const struct exp_run *r, struct results *db, int64_t run_id,
               const struct exp_progress *progress, char *err, size_t errlen);

#endif

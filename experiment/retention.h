/*
 * retention.h -- the retention phase of a run (runner.c calls it after the
 * workload; docs/scrubbing.md): idle time in steps, every file read at
 * each, LogFS's idle scrubber between, a `retention` row per check.
 */
#ifndef FLASHLAB_RETENTION_H
#define FLASHLAB_RETENTION_H

#include "experiment.h"
#include "results.h"

#include <stddef.h>
#include <stdint.h>

/* Run r->ret on the mounted m.  0, or -1 with err filled. */
int exp_retention_run(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m,
                  struct results *db, int64_t run_id, char *err, size_t errlen);
/* After the phase: unmount and mount again, kv `remount_ok` 1 or 0 (months
 * of retention may leave nothing mountable; the run still completes).
 * 0, or -1 (a database error) with err filled. */
int exp_retention_remount(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m,
                      struct results *db, int64_t run_id, char *err, size_t errlen);

#endif

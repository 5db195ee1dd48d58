/*
 * powercut.h -- a power-cut campaign over one run of an experiment
 * (docs/powercut.md): the workload runs once to count its flash
 * operations, then again with the power cut at each chosen operation, in a
 * child process forked just before the file-system call that operation
 * belongs to (so a cut costs the rest of one call plus the checks, not a
 * replay from the start).  After each cut the device powers on and the
 * checker verifies: the fs mounts; fsck (if given) finds no errors; the
 * state equals the reference run's state at one of the fs's commit points
 * between the last completed sync and the cut; and the fs keeps working
 * (write, sync, remount).
 */
#ifndef FLASHLAB_POWERCUT_H
#define FLASHLAB_POWERCUT_H

#include "exp_progress.h"
#include "experiment.h"
#include "results.h"

#include <stdint.h>
#include <stdio.h>

/* An independent checker of a device at rest: 0 when it finds nothing
 * wrong, else nonzero with a one-line summary in msg. */
typedef int (*pc_fsck_fn)(nand_dev *dev, char *msg, size_t len);

struct pc_options {
    int jobs;            /* checks at once (>= 1) */
    int64_t repro;       /* >= 0: check only this cut point, in-process, verbosely */
    pc_fsck_fn fsck;     /* NULL: no fsck */
    FILE *log;           /* failures and --repro details; NULL: stderr */
    const char *repro_cmd; /* printed with each failure: "CMD POINT" */
    /* phase points after each point, and a note before each failure's
     * report (no callback: none) */
    struct exp_progress progress;
};

struct pc_summary {
    uint64_t flash_ops;  /* state-changing operations of the workload */
    uint64_t calls;      /* file-system calls of the workload */
    uint64_t commits;    /* commit points of the reference run */
    uint64_t points;     /* cut points checked */
    uint64_t failed;
    uint64_t second;     /* of those, with a second cut in the recovery */
};

/* Run the campaign of r (r->pc.present) into db as run_id.  0 when it
 * ran (failed points are counted in *sum and written to db, not an error),
 * -1 with err when it could not. */
int exp_powercut_run(const struct exp_run *r, struct results *db, int64_t run_id,
                 const struct pc_options *o, struct pc_summary *sum, char *err, size_t errlen);

#endif

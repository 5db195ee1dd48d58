/*
 * faults.h -- a media-fault campaign over one run of an experiment
 * (docs/faults.md): the workload runs once; every page of the device it
 * leaves is classified by what it holds (a page map); then, for each fault
 * kind and class, seeded pages of that class get one fault each.  Every
 * point starts from the same post-workload device, in a forked child (so a
 * crash, assert or sanitizer abort is an outcome, not the campaign's end):
 * inject, fsck (LogFS), mount, and read every file against the reference
 * contents recorded before the fault.
 */
#ifndef FLASHLAB_FAULTS_H
#define FLASHLAB_FAULTS_H

#include "exp_progress.h"
#include "experiment.h"
#include "powercut.h"
#include "results.h"

#include <stdint.h>
#include <stdio.h>

/* A page map: cls[block * pages_per_block + page] an index into *names
 * (NULL-terminated).  0, or nonzero with a message in err.  LogFS's comes
 * from the CLI (fsck's walk; workloads/ cannot see fsck/). */
typedef int (*fault_map_fn)(nand_dev *dev, uint8_t *cls, const char *const **names,
                            char *err, size_t errlen);

/* What a point came to; the first that applies, in this order. */
enum fault_outcome {
    FO_NA,              /* the fault could not be applied (an erased page) */
    FO_CRASH,           /* the checking child died: signal, assert, sanitizer */
    FO_REFUSED,         /* the mount failed */
    FO_SILENT_ROLLBACK, /* an older commit, and the fs did not say so */
    FO_WRONG,           /* a file read back other bytes than before */
    FO_LOST,            /* a file is gone without an error (newest state) */
    FO_ROLLED_BACK,     /* an older commit, flagged by the fs */
    FO_EIO,             /* some files (or names) read as errors */
    FO_OK,              /* everything reads as before */
    FO_COUNT
};
/* "n/a", "crash", "refused", "silent-rollback", "wrong-bytes", "lost",
 * "rolled-back", "eio", "ok" */
const char *exp_fault_outcome_name(int o);
/* crash, silent rollback, wrong bytes, lost files: a LogFS bug (a
 * baseline's are findings) */
int exp_fault_outcome_bad(int o);

/* What the checks of one point saw. */
struct fault_result {
    int applied, crashed, mounted;
    int64_t rolled_back;   /* commits older than the reference (LogFS) */
    int flagged;           /* the fs reported falling back (anchor_fallback) */
    int64_t files, files_eio, files_wrong, files_missing;
    int probe;             /* writing afterwards: 0, or its first error */
};
enum fault_outcome exp_fault_outcome_of(const struct fault_result *r);

struct fault_options {
    int jobs;             /* points at once (>= 1) */
    int64_t point;        /* >= 0: only this point, in-process, verbosely */
    fault_map_fn map;     /* LogFS's page map; the baselines use fsapi's */
    pc_fsck_fn fsck;      /* NULL: no fsck */
    FILE *log;            /* bad outcomes and --point details; NULL: stderr */
    const char *repro_cmd; /* printed with each bad outcome: "CMD POINT" */
    /* phase points after each point, and a note before each failure's
     * report (no callback: none) */
    struct exp_progress progress;
};

#define FAULT_MAX_CLASSES 32
struct fault_summary {
    uint64_t pages, points, bad;
    unsigned nclasses;                    /* the map's classes, then "whole-device" */
    char classes[FAULT_MAX_CLASSES + 1][32];
    uint64_t class_pages[FAULT_MAX_CLASSES + 1];
    uint64_t count[FAULT_MAX_CLASSES + 1][FO_COUNT];
};

/* Run the campaign of r (r->faults.present) into db (may be NULL) as
 * run_id.  0 when it ran (bad outcomes are counted, not errors), -1 with
 * err when it could not. */
int exp_faults_run(const struct exp_run *r, struct results *db, int64_t run_id,
               const struct fault_options *o, struct fault_summary *sum, char *err,
               size_t errlen);

/* The device r's workload leaves (mkfs, the workload to its stop, sync,
 * unmount): what every point starts from.  0, or -1 with err. */
int exp_faults_build_device(const struct exp_run *r, nand_dev **dev, char *err, size_t errlen);

/* The page map of r's fs on dev (the baselines' own, else o_map), with the
 * names; *names points at static or map-owned strings.  For tests. */
int exp_faults_page_map(const struct exp_run *r, nand_dev *dev, fault_map_fn o_map, uint8_t *cls,
                    const char *const **names, char *err, size_t errlen);

#endif

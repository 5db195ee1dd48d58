/*
 * experiment.h -- an experiment described in YAML (docs/experiments.md):
 * device, file-system options, an optional ageing phase, the workload, a
 * stop condition, sampling, seeds and a sweep whose cartesian product
 * gives the runs.  Loading checks every run's settings, so that a mistake
 * in any of them is reported, with FILE:LINE:COL and the key, before
 * anything runs.
 */
#ifndef FLASHLAB_EXPERIMENT_H
#define FLASHLAB_EXPERIMENT_H

#include "fsapi.h"
#include "nand.h"
#include "workload.h"

#include <stddef.h>
#include <stdint.h>

/* When a phase ends: the first condition reached (all 0: never). */
struct exp_stop {
    uint64_t host_bytes;  /* bytes written by the workload */
    uint64_t ops;         /* operations of the workload */
    double device_fills;  /* host bytes / device capacity */
    uint64_t sim_ns;      /* simulated time of the phase */
    int wear_out;         /* the first uncorrectable error or worn-out block */
};

/* A power-cut campaign (the `powercut:` section; docs/powercut.md). */
struct exp_powercut {
    int present;
    uint64_t every;       /* cut at every k-th flash operation (1: all) */
    uint64_t sample;      /* or at this many sampled ones (0: use every) */
    int within;           /* at a random instant inside the operation,
                             else just before it */
    uint64_t second;      /* of the cut points, this many (sampled) get a
                             second cut during the recovery */
    int fsck;             /* run the independent fsck on every outcome */
};

/* A retention phase (the `retention:` section; docs/scrubbing.md): after
 * the workload, the host is idle for `duration`, every file is read every
 * `step`, and LogFS's idle scrubber runs every `scrub_every` (0: never). */
struct exp_retention {
    int present;
    uint64_t duration_ns, step_ns, scrub_every_ns;
    uint64_t scrub_budget; /* pages a scrub reads (0: every page of the device) */
};

/* A media-fault campaign (the `faults:` section; docs/faults.md). */
enum exp_fault_kind {
    EXP_FAULT_SILENT, EXP_FAULT_BEYOND, EXP_FAULT_UNCORRECTABLE, EXP_FAULT_RETENTION,
    EXP_FAULT_DISTURB, EXP_FAULT_BAD, EXP_FAULT_KINDS
};
/* "silent", "beyond", "uncorrectable", "retention", "disturb", "bad"; NULL
 * past the end. */
const char *exp_fault_kind_name(int kind);
#define EXP_FAULT_CLASSES_MAX 32
struct exp_faults {
    int present;
    uint32_t kinds;         /* bit (1 << kind) per enum exp_fault_kind chosen */
    uint32_t points;        /* locations per class per kind */
    uint32_t nclasses;      /* 0: every class the fs's page map names */
    char classes[EXP_FAULT_CLASSES_MAX][32];
    int fsck;               /* run fsck after each fault (LogFS) */
    uint32_t bits;          /* silent: bits changed; beyond: bits (0: t + 1) */
    uint64_t retention_ns;  /* retention: simulated time that passes */
    uint64_t reads;         /* disturb: reads counted on the block */
};

/* One run: everything the runner needs, resolved. */
/* fs.epoch when not given, for a kind with an epoch key (LogFS): its
 * timestamps are the simulated clock plus this, 2024-01-01T00:00:00Z
 * (deterministic, recorded in params). */
#define EXP_DEFAULT_EPOCH_NS (1704067200LL * 1000000000)

struct exp_run {
    uint32_t index;       /* 0 .. runs - 1 */
    uint64_t seed;
    char device_file[1024];
    struct nand_config dev;
    const struct fsapi *fs_api; /* fs.kind: LogFS or a baseline */
    /* the options the kind is made and mounted with: the run's defaults
     * (epoch, gc_seed from the run's seed, where the kind has those keys),
     * then fs:'s named keys, then fs.options */
    char fs_options[1024];
    int64_t fs_epoch_ns;        /* the timestamps' epoch; -1: the kind has none */
    int has_age;
    struct wl_spec age;
    struct exp_stop age_stop;
    struct wl_spec wl;
    struct exp_stop stop;
    uint64_t sample_host_bytes, sample_ops, sample_sim_ns; /* 0: not by that */
    uint32_t erase_snapshots; /* erase-count snapshots over the run (>= 1) */
    struct exp_powercut pc;
    struct exp_faults faults;
    int unclean_mount;    /* mount.unclean: also measure a mount after a power cut */
    struct exp_retention ret;
    char *params_json;    /* the resolved settings, for the runs table */
};

struct experiment;

/* The resolved form of an experiment file's text, the text its hash in
 * the results database is of (resolved.c, docs/results-schema.md):
 * "PATH = JSON" lines, sorted, defaults filled in.  malloc'd; NULL with
 * err when the text is not a YAML mapping.  A results_resolve_fn. */
char *experiment_resolve_config(const char *yaml_text, char *err, size_t errlen);
struct results;
/* results_open, with experiment_resolve_config as the handle's resolver
 * (so experiments written before config hashes get theirs now). */
int experiment_results_open(const char *path, struct results **out, char *err, size_t errlen);

/* The smallest blocks_per_plane (cfg's geometry otherwise) on which kind
 * api, with options, makes and mounts a file system: tried on empty
 * in-memory devices (devcheck.c); 0 when none up to 64 times cfg's does
 * (then size is not what fails). */
uint32_t experiment_min_blocks_per_plane(const struct fsapi *api, const char *options,
                                         const struct nand_config *cfg);

/* Load and check path (every run).  0, or -1 with err filled. */
int experiment_load(const char *path, struct experiment **out, char *err, size_t errlen);
void experiment_free(struct experiment *e);

const char *experiment_name(const struct experiment *e);
const char *experiment_path(const struct experiment *e);
const char *experiment_text(const struct experiment *e); /* the file as given */
uint32_t experiment_runs(const struct experiment *e);

/* The settings of run index (< experiment_runs).  0, or -1 with err. */
int experiment_run(struct experiment *e, uint32_t index, struct exp_run *out, char *err,
                   size_t errlen);
void exp_run_free(struct exp_run *r);

/* A mounted run's fs: the table and its handle. */
struct exp_mounted {
    struct fsapi_fs fs;
};

/* The run's file system on dev: mkfs, and mount into *m, with the run's
 * options (fs_options).  0 or a negative errno. */
int exp_run_mkfs(const struct exp_run *r, nand_dev *dev);
int exp_run_mount(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m);
/* Unmount m if mounted (and mark it not); the unmount's result. */
int exp_run_unmount(struct exp_mounted *m);

#endif

/*
 * results.h -- the experiment runner's results database (SQLite).
 *
 * One file holds experiments, their runs and every row a run produces
 * (samples, erase-count snapshots, mounts, GC events, latency summaries,
 * power cuts, free-form key/values).  docs/results-schema.md describes the
 * tables, units and the run status lifecycle.
 *
 * Every function returns 0 on success and -1 on error; results_error()
 * then says why.  Rows added with results_add_* are queued in memory and
 * written in one short transaction every RESULTS_BATCH_ROWS rows (or a few
 * seconds), at results_flush/results_end_run/results_close, so that writing
 * is fast and the write lock is held only briefly: several processes may
 * write one file.  Runs and experiments are committed at once.
 *
 * A handle is for one thread at a time, and does not survive fork(): a
 * child opens its own.
 */
#ifndef FLASHLAB_RESULTS_H
#define FLASHLAB_RESULTS_H
#include <stddef.h>
#include <stdint.h>

/* exported from libflashlab (built -fvisibility=hidden): docs/api.md */
#pragma GCC visibility push(default)


#define RESULTS_SCHEMA_VERSION 3 /* PRAGMA user_version of the files we write */
#define RESULTS_BATCH_ROWS 1000  /* queued rows per write transaction */

struct results;
struct sqlite3;

enum results_status {
    RESULTS_RUNNING,    /* begun, not ended (yet) */
    RESULTS_COMPLETE,   /* ended normally */
    RESULTS_FAILED,     /* ended with an error the runner saw */
    RESULTS_INCOMPLETE, /* its process died without ending it (mark_stale) */
};

/* One row of `samples`: counters are cumulative since the run began. */
struct results_sample {
    int64_t seq;         /* 0, 1, ... within the run */
    int64_t sim_time_ns; /* simulated clock */
    int64_t host_bytes;  /* bytes the workload wrote */
    int64_t flash_bytes_programmed;
    int64_t data_pages, meta_pages, anchor_pages, gc_pages; /* pages programmed, by kind */
    int64_t erases;
    double wa; /* flash_bytes_programmed / host_bytes */
    int64_t free_segments; /* at the sample, not cumulative */
    int64_t gc_time_ns;
    int64_t gc_invocations;
    /* since the previous sample (the first: since the measured phase
     * began): file-data pages programmed, and all pages, per host byte
     * (docs/validation.md); NAN (stored NULL) when no host byte was
     * written or the kind does not count data pages.  Version 3. */
    double wa_interval, wa_total_interval;
    /* live bytes / the capacity the cleaner can use, from the fs's own
     * accounting (LogFS); NAN (NULL) for a kind without it.  Version 3. */
    double utilisation;
};

/* One mount measured (`mounts`). */
struct results_mount {
    const char *fs_kind;  /* "logfs", "jffs2-scan", ... */
    int64_t device_bytes;
    double fill_fraction; /* 0..1 of the device in use */
    int clean;            /* 1: previous unmount was clean; 0: power cut */
    int64_t sim_latency_ns; /* simulated time the mount took */
    int64_t flash_time_ns;  /* of which flash busy time */
    int64_t cpu_time_ns;    /* host CPU time of the mount code */
    int64_t pages_read, bytes_read;
    int64_t ram_bytes;      /* memory the mounted fs holds */
    int64_t wall_ns;        /* host wall time */
};

struct results_gc_event {
    int64_t sim_time_ns;  /* when the victim was chosen */
    int64_t victim;       /* segment number */
    int64_t live_units;   /* live units in the victim when chosen */
    int64_t moved_pages;
    int64_t duration_ns;  /* simulated */
    const char *policy;   /* "greedy", "cost-benefit", ... */
};

struct results_latency {
    const char *op; /* "write", "read", "fsync", ... */
    int64_t count;
    int64_t p50_ns, p99_ns, p999_ns, max_ns;
    double mean_ns;
};

struct results_powercut {
    int64_t cut_point;    /* flash operation index at which power was cut */
    const char *cut_kind; /* e.g. "before", "mid-program", "mid-erase" */
    const char *outcome;  /* e.g. "ok", "recovered", "lost-data", "corrupt" */
    const char *detail;   /* free text, may be NULL */
};

/* One check of a retention phase (`retention`): every file read after
 * sim_time_ns of idle time; counts since the phase began. */
struct results_retention {
    int64_t seq;
    int64_t sim_time_ns;
    int64_t files;               /* regular files read */
    int64_t lost_files;          /* of those, files a read of which failed now */
    int64_t ever_lost;           /* files that failed at this or an earlier check */
    int64_t uncorrectable_reads, bits_corrected; /* the device's */
    int64_t programs, erases;    /* the device's */
    int64_t scrub_reads, scrub_segments, scrub_pages; /* LogFS's (logfs_stats) */
};

/* One point of a media-fault campaign (docs/faults.md, table faults). */
struct results_fault {
    int64_t point;          /* the campaign's point number (--point) */
    const char *fault;      /* kind: "silent", "beyond", ... */
    const char *class_name; /* what the page held: "anchor", "file-data", ... */
    int64_t block, page;
    const char *outcome;    /* "ok", "eio", "refused", "wrong-bytes", ... */
    int mounted;            /* 1 mounted, 0 refused */
    const char *state;      /* "newest", "rolled-back", "n/a" (baselines) */
    int64_t rolled_back;    /* commits lost (LogFS), else 0 */
    int flagged;            /* the fs said it fell back to an older commit */
    int64_t files, files_eio, files_wrong, files_missing;
    int crashed;
    const char *fsck;       /* "clean", "errors", "n/a", "off" */
    const char *after_write; /* writing, syncing, remounting afterwards: "ok",
                                an errno name ("EROFS", "EIO"), "n/a" */
    const char *detail;     /* free text, may be NULL */
};

struct results_merge_stats {
    int64_t experiments_added; /* new rows in dst's experiments */
    int64_t runs_copied;
    int64_t runs_skipped;      /* already in dst (see results_merge) */
};

/* Open or create the database at path.  A newer schema version, a file that
 * is not SQLite or an SQLite file of something else is an error (in err).
 * Earlier rows are never changed except as results_mark_stale says. */
int results_open(const char *path, struct results **out, char *err, size_t errlen);
/* Flush queued rows and close; r may be NULL.  -1 if the flush failed. */
int results_close(struct results *r);
const char *results_error(const struct results *r);

/* What turns an experiment's config_text into its resolved form (the
 * text its config_hash is of; docs/results-schema.md): malloc'd, or NULL
 * with err.  experiment_resolve_config is the one for experiment YAML. */
typedef char *(*results_resolve_fn)(const char *config_text, char *err, size_t errlen);
/* Resolve configs with fn from now on (without one, the resolved form is
 * config_text as it is), and give every experiment of the file that has
 * no config_hash yet (written before hashes existed) its resolved config
 * and hash now. */
int results_set_resolver(struct results *r, results_resolve_fn fn);
#define RESULTS_HASH_HEX 16 /* hex digits of a config_hash */
/* The config_hash of a resolved config: 64-bit FNV-1a finished with
 * MurmurHash3's fmix64 (so that any change moves every hex digit), in hex. */
void results_config_hash(const char *resolved, char out[RESULTS_HASH_HEX + 1]);

/* The experiment named name whose resolved config_text has the same hash,
 * created if not there yet (so re-running a sweep adds runs to the same
 * experiment).  Refused (-1) when the file holds experiments of that name
 * with other configs only: the error names the keys that differ.  version
 * NULL means FLASHLAB_VERSION. */
int results_begin_experiment(struct results *r, const char *name, const char *config_path,
                             const char *config_text, const char *version, int64_t *exp_id);
/* A new run, status 'running', committed at once.  params_json must be
 * valid JSON (stored minified). */
int results_begin_run(struct results *r, int64_t exp_id, int64_t run_index,
                      const char *params_json, uint64_t seed, const char *version,
                      int64_t *run_id);
/* 1 when the database holds a complete run of the experiment named
 * exp_name with these settings (params_json, compared as JSON) and seed:
 * *run_id is the newest such run, version (if given) the program version
 * that made it.  0 when there is none, -1 on an error. */
int results_find_complete_run(struct results *r, const char *exp_name, const char *params_json,
                              uint64_t seed, int64_t *run_id, char *version, size_t vlen);
/* Delete the runs of experiment exp_id with these settings and seed that
 * are 'incomplete' (their process died: results_mark_stale), with all
 * their rows, before the run is done again: an interrupted run is
 * replaced, never counted twice.  *dropped gets how many. */
int results_replace_incomplete(struct results *r, int64_t exp_id, const char *params_json,
                               uint64_t seed, int64_t *dropped);
/* Flush and set the final status (not RESULTS_RUNNING); error may be NULL.
 * Fails if the run is not 'running'. */
int results_end_run(struct results *r, int64_t run_id, enum results_status status,
                    const char *error);

int results_add_sample(struct results *r, int64_t run_id, const struct results_sample *s);
/* A snapshot of every block's erase count, written at once. */
int results_add_erase_counts(struct results *r, int64_t run_id, int64_t seq,
                             const uint32_t *counts, uint32_t nblocks);
int results_add_mount(struct results *r, int64_t run_id, const struct results_mount *m);
int results_add_gc_event(struct results *r, int64_t run_id, const struct results_gc_event *e);
int results_add_latency(struct results *r, int64_t run_id, const struct results_latency *l);
int results_add_powercut(struct results *r, int64_t run_id, const struct results_powercut *p);
int results_add_retention(struct results *r, int64_t run_id, const struct results_retention *t);
int results_add_fault(struct results *r, int64_t run_id, const struct results_fault *f);
/* Set (or replace) a free-form metric of a run. */
int results_set_kv(struct results *r, int64_t run_id, const char *key, double value);
int results_set_kv_text(struct results *r, int64_t run_id, const char *key, const char *value);
/* Write the queued rows now. */
int results_flush(struct results *r);

/* Runs 'running' on this host whose pid no longer exists become
 * 'incomplete'; *marked (may be NULL) gets how many.  Runs of other hosts
 * are left alone: only their own host can tell. */
int results_mark_stale(struct results *r, int64_t *marked);

/* Copy every experiment and run of the results file src_path, with all
 * their rows, into dst, in one transaction.  Experiments are matched by
 * name + config_hash (a src experiment without one is resolved with dst's
 * resolver); a name whose hash differs between them, or within src, is
 * refused.  A src run whose (experiment, run_index, seed, params) is
 * already in dst is skipped and counted.  st may be NULL. */
int results_merge(struct results *dst, const char *src_path, struct results_merge_stats *st);

/* The experiments a selection names, for plots and queries: spec "NAME"
 * (every experiment of that name, which must have one config hash) or
 * "NAME@HASH" (HASH: the first hex digits of its config_hash); the ids as
 * a JSON array in *ids_json (malloc'd; NULL when spec is NULL: all).  A
 * name with several configs, an ambiguous or unknown hash is an error
 * that lists the NAME@HASH there are. */
int results_select_experiments(struct sqlite3 *db, const char *spec, char **ids_json, char *err,
                               size_t errlen);

/* The connection, for queries (tests, plots).  Flushes queued rows first
 * so that reads see them; a flush error is left in results_error(). */
struct sqlite3 *results_db(struct results *r);

const char *results_status_name(enum results_status s);

#pragma GCC visibility pop

#endif

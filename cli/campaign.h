/* campaign.h -- what the campaign commands (powercut, faults) share: their
 * options (-o DB, -j N, --run K, --as NAME, --force and an option that
 * checks one point), the
 * campaign file, which of its runs to do, the results database, and the
 * loop over the runs (each kind supplies its own steps). */
#ifndef FLASHLAB_CLI_CAMPAIGN_H
#define FLASHLAB_CLI_CAMPAIGN_H

#include "exp_progress.h"
#include "experiment.h"
#include "results.h"

#include <stdint.h>

struct campaign {
    const char *cmd;        /* the command: "powercut" */
    const char *point_opt;  /* its one-point option: "repro" */
    const char *path;       /* CAMPAIGN.yaml */
    const char *out;        /* the database (NULL when checking one point) */
    long jobs;              /* -j */
    long only;              /* --run K, or -1: every run */
    int64_t point;          /* the one-point option, or -1 */
    struct experiment *e;
    uint32_t runs;
    struct results *db;     /* open unless one point is checked */
    int64_t exp_id;
    char default_out[512];  /* results/NAME.db */
    const char *name;       /* the experiment's name in the database (--as) */
    int force;              /* --force: check runs the database holds complete again */
    uint32_t skipped;       /* runs skipped: complete in the database already */
};

/* The --help paragraph on resuming, --force and --as, the same for each. */
#define CAMPAIGN_RESUME_HELP                                                     \
    "Resuming, as flashlab run: a run the database holds complete is skipped\n" \
    "(--force checks it again), one a killed campaign left is replaced (its\n"  \
    "rows deleted), so no point is counted twice.  A changed campaign under a\n" \
    "name the database holds is refused; --as NAME keeps both\n"                \
    "(docs/results-schema.md).\n"                                               \
    "\n"

/* Parse argv for command cmd, whose one-point option is --POINT_OPT
 * (POINT_WHAT says what its value is, for errors), load the campaign and,
 * unless one point is checked, open its database and begin the experiment.
 * Returns -1 when c is ready, else the exit status (help printed, a usage
 * error or a load error reported); c then holds nothing to free. */
int campaign_open(struct campaign *c, const char *cmd, const char *point_opt,
                  const char *point_what, const char *help, int argc, char **argv);
/* What one kind of campaign does in campaign_run_all's loop; ctx is its
 * own (totals, buffers). */
struct campaign_kind {
    const char *unit;       /* what its progress line counts: "cut points" */
    /* 1 if r has the kind's section (the command's name: "powercut:") */
    int (*has)(const struct exp_run *r);
    /* Check the points of r into c->db (if open) as run_id, printing
     * repro_cmd and the point with each failure.  0, or -1 with err. */
    int (*run)(void *ctx, const struct campaign *c, const struct exp_run *r, int64_t run_id,
               const char *repro_cmd, struct exp_progress progress, char *err, size_t errlen);
    /* After run k: its kv rows into c->db (if open), its summary on
     * stdout, its counts into ctx. */
    void (*report)(void *ctx, const struct campaign *c, uint32_t k, const struct exp_run *r,
                   int64_t run_id);
    /* After the last run: the totals line (when the runs went to the
     * database c->out: c->point < 0); 1 if what the points found fails
     * the command. */
    int (*finish)(void *ctx, const struct campaign *c);
};
/* Every wanted run of the opened campaign c, each with a run row in the
 * database and a progress line, then kind's totals; frees c.  Returns the
 * exit status. */
int campaign_run_all(struct campaign *c, const struct campaign_kind *kind, void *ctx);

/* 1 if run k of the campaign is to be done (--run; one point: run 0
 * unless --run says which). */
int campaign_wants(const struct campaign *c, uint32_t k);
/* Close the database, if open: non-zero if that failed. */
int campaign_close_db(struct campaign *c);
/* Close the database, if still open, and free the campaign. */
void campaign_free(struct campaign *c);

#endif

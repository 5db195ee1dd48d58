/* campaign.h -- what the campaign commands (powercut, faults) share: their
 * options (-o DB, -j N, --run K and an option that checks one point), the
 * campaign file, which of its runs to do, and the results database. */
#ifndef FLASHLAB_CLI_CAMPAIGN_H
#define FLASHLAB_CLI_CAMPAIGN_H

#include "experiment.h"
#include "results.h"

#include <stdint.h>

struct campaign {
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
};

/* Parse argv for command cmd, whose one-point option is --POINT_OPT
 * (POINT_WHAT says what its value is, for errors), load the campaign and,
 * unless one point is checked, open its database and begin the experiment.
 * Returns -1 when c is ready, else the exit status (help printed, a usage
 * error or a load error reported); c then holds nothing to free. */
int campaign_open(struct campaign *c, const char *cmd, const char *point_opt,
                  const char *point_what, const char *help, int argc, char **argv);
/* 1 if run k of the campaign is to be done (--run; one point: run 0
 * unless --run says which). */
int campaign_wants(const struct campaign *c, uint32_t k);
/* Close the database, if open: non-zero if that failed. */
int campaign_close_db(struct campaign *c);
/* Close the database, if still open, and free the campaign. */
void campaign_free(struct campaign *c);

#endif

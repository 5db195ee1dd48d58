/* cmd_powercut.c -- `flashlab powercut CAMPAIGN.yaml`: for every run of
 * the campaign's sweep, a power cut at each chosen flash operation of its
 * workload and a check of the recovery (experiment/powercut.c); every
 * outcome goes to the results database, and each failure prints the
 * command that reproduces it. */
#include "campaign.h"
#include "cli.h"
#include "experiment.h"
#include "fsck.h"
#include "powercut.h"
#include "results.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: flashlab powercut CAMPAIGN.yaml [-o DB] [-j N] [--run K] [--repro POINT]\n"
    "                         [--as NAME] [--force]\n"
    "\n"
    "A power-cut campaign (docs/powercut.md): an experiment file with a\n"
    "`powercut:` section.  For each run, its workload runs once to count its\n"
    "flash operations; then the power is cut at each chosen operation (all,\n"
    "every k-th or a seeded sample; just before it or at a random instant\n"
    "inside it), the device powers on, and the checker verifies that the fs\n"
    "mounts, that fsck finds nothing, that its state is that of a commit\n"
    "point between the last completed sync and the cut, and that it keeps\n"
    "working.  -j N checks N cut points at once.  Outcomes go to DB\n"
    "(results/NAME.db by default), table powercuts.  On a terminal a\n"
    "progress line shows the cut points checked, failures so far, the rate\n"
    "and the time left.\n"
    "\n"
    "--repro POINT checks one cut point of run K (default 0) and prints what\n"
    "happened, with the recovered file system's listing.\n"
    "\n"
    CAMPAIGN_RESUME_HELP
    "Exit status: 0 when every cut point passed, 1 if any failed, 2 for bad usage.\n"
    "\n"
    "examples:\n"
    "  flashlab powercut configs/powercut-churn.yaml -j 2\n"
    "  flashlab powercut configs/powercut-churn.yaml --run 0 --repro 17\n";

struct powercut_ctx {
    struct pc_summary sum; /* the run's */
    uint64_t points, bad;
};

static int has_powercut(const struct exp_run *r)
{
    return r->pc.present;
}

static int run_powercut(void *ctx, const struct campaign *c, const struct exp_run *r,
                        int64_t run_id, const char *repro_cmd, struct exp_progress progress,
                        char *err, size_t errlen)
{
    struct powercut_ctx *x = ctx;
    struct pc_options po = {.jobs = (int)c->jobs, .repro = c->point,
                            .fsck = r->pc.fsck ? fsck_verdict : NULL, .log = stderr,
                            .repro_cmd = repro_cmd, .progress = progress};
    return exp_powercut_run(r, c->db, run_id, &po, &x->sum, err, errlen);
}

static void report_powercut(void *ctx, const struct campaign *c, uint32_t k,
                            const struct exp_run *r, int64_t run_id)
{
    struct powercut_ctx *x = ctx;
    const struct pc_summary *sum = &x->sum;
    (void)r;
    if (c->db) {
        results_set_kv(c->db, run_id, "flash_ops", (double)sum->flash_ops);
        results_set_kv(c->db, run_id, "cut_points", (double)sum->points);
        results_set_kv(c->db, run_id, "cut_points_failed", (double)sum->failed);
        results_set_kv(c->db, run_id, "commit_points", (double)sum->commits);
    }
    printf("run %u: %" PRIu64 " calls, %" PRIu64 " flash operations, %" PRIu64
           " commit points; %" PRIu64 " cut points checked (%" PRIu64
           " with a second cut), %" PRIu64 " failed\n",
           k, sum->calls, sum->flash_ops, sum->commits, sum->points, sum->second, sum->failed);
    x->points += sum->points;
    x->bad += sum->failed;
}

static int finish_powercut(void *ctx, const struct campaign *c)
{
    const struct powercut_ctx *x = ctx;
    if (c->point < 0)
        printf("%s: %" PRIu64 " cut points, %" PRIu64 " failed -> %s\n", c->name,
               x->points, x->bad, c->out);
    return x->bad != 0;
}

static const struct campaign_kind powercut_kind = {
    .unit = "cut points", .has = has_powercut, .run = run_powercut, .report = report_powercut,
    .finish = finish_powercut};

int cmd_powercut(int argc, char **argv)
{
    struct campaign c;
    int rc0 = campaign_open(&c, "powercut", "repro", "a cut point", help, argc, argv);
    if (rc0 >= 0)
        return rc0;
    struct powercut_ctx x = {0};
    return campaign_run_all(&c, &powercut_kind, &x);
}

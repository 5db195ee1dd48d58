/* cmd_powercut.c -- `flashlab powercut CAMPAIGN.yaml`: for every run of
 * the campaign's sweep, a power cut at each chosen flash operation of its
 * workload and a check of the recovery (experiment/powercut.c); every
 * outcome goes to the results database, and each failure prints the
 * command that reproduces it. */
#include "campaign.h"
#include "cli.h"
#include "progress.h"
#include "experiment.h"
#include "fsck.h"
#include "powercut.h"
#include "results.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: flashlab powercut CAMPAIGN.yaml [-o DB] [-j N] [--run K] [--repro POINT]\n"
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
    "Exit status: 0 when every cut point passed, 1 if any failed, 2 for bad usage.\n"
    "\n"
    "examples:\n"
    "  flashlab powercut configs/powercut-churn.yaml -j 2\n"
    "  flashlab powercut configs/powercut-churn.yaml --run 0 --repro 17\n";

int cmd_powercut(int argc, char **argv)
{
    struct campaign c;
    int rc0 = campaign_open(&c, "powercut", "repro", "a cut point", help, argc, argv);
    if (rc0 >= 0)
        return rc0;
    char err[1024];
    int failed = 0;
    uint64_t points = 0, bad = 0;
    for (uint32_t k = 0; k < c.runs; k++) {
        if (!campaign_wants(&c, k))
            continue;
        struct exp_run r;
        if (experiment_run(c.e, k, &r, err, sizeof err)) {
            cli_error("%s", err);
            failed = 1;
            break;
        }
        if (!r.pc.present) {
            exp_run_free(&r);
            campaign_free(&c);
            return cli_error("%s: no powercut: section (docs/powercut.md)", c.path);
        }
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "flashlab powercut %s --run %u --repro", c.path, k);
        char label[32];
        snprintf(label, sizeof label, "run %u:", k);
        struct progress prog;
        progress_begin(&prog, label, "cut points", 0, c.point >= 0);
        struct pc_options po = {.jobs = (int)c.jobs, .repro = c.point, .fsck = r.pc.fsck ? fsck_verdict : NULL,
                                .log = stderr, .repro_cmd = cmd,
                                .progress = prog.on ? progress_points : NULL, .progress_ctx = &prog};
        struct pc_summary sum;
        int64_t run_id = 0;
        if (c.db && results_begin_run(c.db, c.exp_id, k, r.params_json, r.seed, NULL, &run_id)) {
            cli_error("%s", results_error(c.db));
            exp_run_free(&r);
            failed = 1;
            break;
        }
        int rc = powercut_run(&r, c.db, run_id, &po, &sum, err, sizeof err);
        progress_end(&prog); /* the summary line replaces it */
        if (rc)
            cli_error("run %u: %s", k, err);
        if (c.db) {
            results_set_kv(c.db, run_id, "flash_ops", (double)sum.flash_ops);
            results_set_kv(c.db, run_id, "cut_points", (double)sum.points);
            results_set_kv(c.db, run_id, "cut_points_failed", (double)sum.failed);
            results_set_kv(c.db, run_id, "commit_points", (double)sum.commits);
            results_end_run(c.db, run_id, rc ? RESULTS_FAILED : RESULTS_COMPLETE, rc ? err : NULL);
        }
        printf("run %u: %" PRIu64 " calls, %" PRIu64 " flash operations, %" PRIu64
               " commit points; %" PRIu64 " cut points checked (%" PRIu64
               " with a second cut), %" PRIu64 " failed\n",
               k, sum.calls, sum.flash_ops, sum.commits, sum.points, sum.second, sum.failed);
        points += sum.points;
        bad += sum.failed;
        failed |= rc != 0;
        exp_run_free(&r);
    }
    if (c.db) {
        failed |= campaign_close_db(&c) != 0;
        printf("%s: %" PRIu64 " cut points, %" PRIu64 " failed -> %s\n", experiment_name(c.e),
               points, bad, c.out);
    }
    campaign_free(&c);
    return failed || bad ? CLI_FAIL : CLI_OK;
}

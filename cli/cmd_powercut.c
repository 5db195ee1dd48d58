/* cmd_powercut.c -- `flashlab powercut CAMPAIGN.yaml`: for every run of
 * the campaign's sweep, a power cut at each chosen flash operation of its
 * workload and a check of the recovery (workloads/experiment/powercut.c); every
 * outcome goes to the results database, and each failure prints the
 * command that reproduces it. */
#include "cli.h"
#include "progress.h"
#include "experiment.h"
#include "fsck.h"
#include "powercut.h"
#include "results.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* pc_options.progress: the shared progress line (cli/progress.h). */
static void show_progress(void *ctx, uint64_t done, uint64_t total, uint64_t failed)
{
    struct progress *p = ctx;
    p->total = total; /* known once the workload has been counted */
    progress_step(p, (double)done, failed, NULL);
}

int cmd_powercut(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"jobs", required_argument, 0, 'j'},
        {"run", required_argument, 0, 'r'}, {"repro", required_argument, 0, 'p'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    long jobs = 1, only = -1;
    int64_t repro = -1;
    char *end;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'j':
            jobs = strtol(optarg, &end, 10);
            if (*end || jobs < 1 || jobs > 256)
                return cli_usage_error("powercut", "bad -j '%s' (1..256)", optarg);
            break;
        case 'r':
            only = strtol(optarg, &end, 10);
            if (*end || only < 0 || !*optarg)
                return cli_usage_error("powercut", "bad --run '%s'", optarg);
            break;
        case 'p':
            repro = strtoll(optarg, &end, 10);
            if (*end || repro < 0 || !*optarg)
                return cli_usage_error("powercut", "bad --repro '%s' (a cut point)", optarg);
            break;
        case 'h': fputs(help, stdout); return CLI_OK;
        default: return cli_usage_error("powercut", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("powercut", "expected one CAMPAIGN.yaml argument");
    const char *path = argv[optind];
    char err[1024];
    struct experiment *e;
    if (experiment_load(path, &e, err, sizeof err))
        return cli_error("%s", err);
    uint32_t runs = experiment_runs(e);
    if (only >= (long)runs) {
        experiment_free(e);
        return cli_usage_error("powercut", "no run %ld: the campaign has runs 0..%u", only,
                               runs - 1);
    }
    struct results *db = NULL;
    int64_t exp_id = 0;
    char def[512];
    if (repro < 0) {
        if (!out) {
            mkdir("results", 0777);
            snprintf(def, sizeof def, "results/%s.db", experiment_name(e));
            out = def;
        }
        if (results_open(out, &db, err, sizeof err) ||
            results_begin_experiment(db, experiment_name(e), path, experiment_text(e), NULL,
                                     &exp_id)) {
            cli_error("%s", db ? results_error(db) : err);
            results_close(db);
            experiment_free(e);
            return CLI_FAIL;
        }
    }
    int failed = 0;
    uint64_t points = 0, bad = 0;
    for (uint32_t k = 0; k < runs; k++) {
        if ((only >= 0 && k != (uint32_t)only) || (only < 0 && repro >= 0 && k))
            continue;
        struct exp_run r;
        if (experiment_run(e, k, &r, err, sizeof err)) {
            cli_error("%s", err);
            failed = 1;
            break;
        }
        if (!r.pc.present) {
            exp_run_free(&r);
            experiment_free(e);
            results_close(db);
            return cli_error("%s: no powercut: section (docs/powercut.md)", path);
        }
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "flashlab powercut %s --run %u --repro", path, k);
        char label[32];
        snprintf(label, sizeof label, "run %u:", k);
        struct progress prog;
        progress_begin(&prog, label, "cut points", 0, repro >= 0);
        struct pc_options po = {.jobs = (int)jobs, .repro = repro, .fsck = r.pc.fsck ? fsck_verdict : NULL,
                                .log = stderr, .repro_cmd = cmd,
                                .progress = prog.on ? show_progress : NULL, .progress_ctx = &prog};
        struct pc_summary sum;
        int64_t run_id = 0;
        if (db && results_begin_run(db, exp_id, k, r.params_json, r.seed, NULL, &run_id)) {
            cli_error("%s", results_error(db));
            exp_run_free(&r);
            failed = 1;
            break;
        }
        int rc = powercut_run(&r, db, run_id, &po, &sum, err, sizeof err);
        progress_end(&prog); /* the summary line replaces it */
        if (rc)
            cli_error("run %u: %s", k, err);
        if (db) {
            results_set_kv(db, run_id, "flash_ops", (double)sum.flash_ops);
            results_set_kv(db, run_id, "cut_points", (double)sum.points);
            results_set_kv(db, run_id, "cut_points_failed", (double)sum.failed);
            results_set_kv(db, run_id, "commit_points", (double)sum.commits);
            results_end_run(db, run_id, rc ? RESULTS_FAILED : RESULTS_COMPLETE, rc ? err : NULL);
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
    if (db) {
        if (results_close(db))
            failed = 1;
        printf("%s: %" PRIu64 " cut points, %" PRIu64 " failed -> %s\n", experiment_name(e),
               points, bad, out);
    }
    experiment_free(e);
    return failed || bad ? CLI_FAIL : CLI_OK;
}

/* campaign.c -- the options, campaign file, database and loop over the
 * runs that `powercut` and `faults` share (campaign.h). */
#include "campaign.h"
#include "cli.h"
#include "progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int campaign_open(struct campaign *c, const char *cmd, const char *point_opt,
                  const char *point_what, const char *help, int argc, char **argv)
{
    const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"jobs", required_argument, 0, 'j'},
        {"run", required_argument, 0, 'r'}, {point_opt, required_argument, 0, 'p'},
        {"as", required_argument, 0, 'a'}, {"force", no_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    c->point_opt = point_opt;
    c->jobs = 1;
    c->only = -1;
    c->point = -1;
    char *end;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "o:j:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': c->out = optarg; break;
        case 'j':
            c->jobs = strtol(optarg, &end, 10);
            if (*end || c->jobs < 1 || c->jobs > 256)
                return cli_usage_error(cmd, "bad -j '%s' (1..256)", optarg);
            break;
        case 'r':
            c->only = strtol(optarg, &end, 10);
            if (*end || c->only < 0 || !*optarg)
                return cli_usage_error(cmd, "bad --run '%s'", optarg);
            break;
        case 'p':
            c->point = strtoll(optarg, &end, 10);
            if (*end || c->point < 0 || !*optarg)
                return cli_usage_error(cmd, "bad --%s '%s' (%s)", point_opt, optarg,
                                       point_what);
            break;
        case 'a':
            if (!*optarg || strlen(optarg) >= 128)
                return cli_usage_error(cmd, "bad --as '%s' (an experiment name)", optarg);
            c->name = optarg;
            break;
        case 'f': c->force = 1; break;
        case 'h': fputs(help, stdout); return CLI_OK;
        default: return cli_usage_error(cmd, "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(cmd, "expected one CAMPAIGN.yaml argument");
    c->path = argv[optind];
    char err[1024];
    if (experiment_load(c->path, &c->e, err, sizeof err))
        return cli_error("%s", err);
    c->runs = experiment_runs(c->e);
    if (c->only >= (long)c->runs) {
        long only = c->only;
        campaign_free(c);
        return cli_usage_error(cmd, "no run %ld: the campaign has runs 0..%u", only,
                               c->runs - 1);
    }
    if (c->point >= 0)
        return -1;
    if (!c->out) {
        mkdir("results", 0777);
        snprintf(c->default_out, sizeof c->default_out, "results/%s.db",
                 experiment_name(c->e));
        c->out = c->default_out;
    }
    if (!c->name)
        c->name = experiment_name(c->e);
    if (experiment_results_open(c->out, &c->db, err, sizeof err) ||
        results_mark_stale(c->db, NULL) ||
        results_begin_experiment(c->db, c->name, c->path, experiment_text(c->e), NULL,
                                 &c->exp_id)) {
        cli_error("%s", c->db ? results_error(c->db) : err);
        campaign_free(c);
        return CLI_FAIL;
    }
    return -1;
}

int campaign_wants(const struct campaign *c, uint32_t k)
{
    if (c->only >= 0)
        return k == (uint32_t)c->only;
    return c->point < 0 || k == 0;
}

int campaign_close_db(struct campaign *c)
{
    int rc = c->db ? results_close(c->db) : 0;
    c->db = NULL;
    return rc;
}

void campaign_free(struct campaign *c)
{
    campaign_close_db(c);
    experiment_free(c->e);
    c->e = NULL;
}

/* As `flashlab run` resumes: 1 when the database holds run r complete
 * (skipped, unless --force), else 0 after deleting its interrupted
 * attempts (so that their rows are not counted beside the new ones); -1
 * on an error. */
static int resume_run(struct campaign *c, const struct exp_run *r)
{
    int64_t id, dropped = 0;
    int found = c->force ? 0 : results_find_complete_run(c->db, c->name, r->params_json,
                                                         r->seed, &id, NULL, 0);
    if (found == 1) {
        printf("run %u: already in %s as run %" PRId64 " (--force checks it again)\n",
               r->index, c->out, id);
        c->skipped++;
        return 1;
    }
    if (found < 0 ||
        results_replace_incomplete(c->db, c->exp_id, r->params_json, r->seed, &dropped)) {
        cli_error("%s: %s", c->out, results_error(c->db));
        return -1;
    }
    if (dropped)
        fprintf(stderr, "flashlab %s: run %u: replaces %" PRId64 " interrupted run%s (deleted "
                "with its rows)\n", c->cmd, r->index, dropped, dropped == 1 ? "" : "s");
    return 0;
}

int campaign_run_all(struct campaign *c, const struct campaign_kind *kind, void *ctx)
{
    char err[1024];
    int failed = 0;
    for (uint32_t k = 0; k < c->runs; k++) {
        if (!campaign_wants(c, k))
            continue;
        struct exp_run r;
        if (experiment_run(c->e, k, &r, err, sizeof err)) {
            cli_error("%s", err);
            failed = 1;
            break;
        }
        if (!kind->has(&r)) {
            exp_run_free(&r);
            campaign_free(c);
            return cli_error("%s: no %s: section (docs/%s.md)", c->path, c->cmd, c->cmd);
        }
        int resumed = c->db ? resume_run(c, &r) : 0;
        if (resumed) {
            exp_run_free(&r);
            if (resumed < 0) {
                failed = 1;
                break;
            }
            continue;
        }
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "flashlab %s %s --run %u --%s", c->cmd, c->path, k,
                 c->point_opt);
        char label[32];
        snprintf(label, sizeof label, "run %u:", k);
        struct progress prog;
        progress_begin(&prog, label, kind->unit, 0, c->point >= 0);
        int64_t run_id = 0;
        if (c->db && results_begin_run(c->db, c->exp_id, k, r.params_json, r.seed, NULL, &run_id)) {
            cli_error("%s", results_error(c->db));
            exp_run_free(&r);
            failed = 1;
            break;
        }
        int rc = kind->run(ctx, c, &r, run_id, cmd, progress_sink(&prog), err, sizeof err);
        progress_end(&prog); /* the summary replaces it */
        if (rc)
            cli_error("run %u: %s", k, err);
        kind->report(ctx, c, k, &r, run_id);
        if (c->db)
            results_end_run(c->db, run_id, rc ? RESULTS_FAILED : RESULTS_COMPLETE, rc ? err : NULL);
        failed |= rc != 0;
        exp_run_free(&r);
    }
    if (c->db)
        failed |= campaign_close_db(c) != 0;
    int found = kind->finish(ctx, c);
    campaign_free(c);
    return failed || found ? CLI_FAIL : CLI_OK;
}

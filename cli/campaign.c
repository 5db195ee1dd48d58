/* campaign.c -- the options, campaign file, database and loop over the
 * runs that `powercut` and `faults` share (campaign.h). */
#include "campaign.h"
#include "cli.h"
#include "progress.h"

#include <getopt.h>
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
    if (results_open(c->out, &c->db, err, sizeof err) ||
        results_begin_experiment(c->db, experiment_name(c->e), c->path,
                                 experiment_text(c->e), NULL, &c->exp_id)) {
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

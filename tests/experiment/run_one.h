/*
 * run_one.h -- the runner tests' one run: an experiment file's run 0
 * through the runner into a results database (needs tmpdir.h's
 * directory, made by the test's main).
 */
#ifndef FLASHLAB_TEST_RUN_ONE_H
#define FLASHLAB_TEST_RUN_ONE_H

#include "experiment.h"
#include "results.h"
#include "runner.h"
#include "tmpdir.h"

/* One run of yaml (run index 0) into db as a new run; its run id, or -1
 * (the error on stderr). */
static inline int64_t run_one(struct results *db, const char *yaml)
{
    const char *p = tmp_write("run.yaml", yaml);
    char err[1024] = "";
    struct experiment *e;
    int64_t exp_id, run_id = -1;
    if (!p || experiment_load(p, &e, err, sizeof err)) {
        fprintf(stderr, "load: %s\n", err);
        return -1;
    }
    struct exp_run r;
    static int n; /* each config its own experiment: one name cannot hold two */
    char name[32];
    snprintf(name, sizeof name, "t%d", n++);
    if (experiment_run(e, 0, &r, err, sizeof err) == 0 &&
        results_begin_experiment(db, name, p, yaml, NULL, &exp_id) == 0 &&
        results_begin_run(db, exp_id, 0, r.params_json, r.seed, NULL, &run_id) == 0) {
        if (exp_runner_run(&r, db, run_id, NULL, err, sizeof err)) {
            fprintf(stderr, "run: %s\n", err);
            run_id = -1;
        } else if (results_end_run(db, run_id, RESULTS_COMPLETE, NULL)) {
            run_id = -1;
        }
    }
    exp_run_free(&r);
    experiment_free(e);
    return run_id;
}

#endif

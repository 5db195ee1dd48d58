/*
 * fuzz_experiment_yaml.c -- experiment files (experiment/experiment.c and
 * the sections it reads).
 *
 * The input is an experiment YAML for experiment_load.  Loading must fail
 * cleanly (with a message) or give an experiment whose runs all resolve:
 * experiment_run of the first, a middle and the last run succeeds, and
 * each run's device configuration passes nand_config_finish.
 *
 * Device (and trace) files named in the input are resolved as the loader
 * does, relative to the input's directory, where fuzz_util.c links the
 * working directory's configs/: the seeds name configs/devices/test-64m.yaml,
 * so run from the repository root.
 */
#include "experiment.h"
#include "harness.h"
#include "nand.h"

#include <stdio.h>
#include <string.h>

#define EY "experiment_yaml"

static void ey_check_err(const char *err, size_t cap)
{
    if (!memchr(err, '\0', cap))
        fuzz_fail(EY, "error message not NUL-terminated");
}

static void ey_check_run(struct experiment *e, uint32_t i)
{
    struct exp_run r;
    char err[1024];
    memset(err, 'x', sizeof err);
    if (experiment_run(e, i, &r, err, sizeof err)) {
        ey_check_err(err, sizeof err);
        fuzz_fail(EY, "run %u of a loaded experiment does not resolve: %s", i, err);
    }
    if (r.index != i)
        fuzz_fail(EY, "run %u says it is run %u", i, r.index);
    if (!memchr(r.device_file, '\0', sizeof r.device_file))
        fuzz_fail(EY, "run %u: device_file not NUL-terminated", i);
    if (!r.params_json || r.params_json[0] != '{')
        fuzz_fail(EY, "run %u: no params_json", i);
    struct nand_config c = r.dev;
    if (nand_config_finish(&c, err, sizeof err))
        fuzz_fail(EY, "run %u: the device configuration is invalid: %s", i, err);
    if (r.erase_snapshots < 1)
        fuzz_fail(EY, "run %u: erase_snapshots is 0", i);
    exp_run_free(&r);
    if (r.params_json)
        fuzz_fail(EY, "exp_run_free leaves params_json");
}

int fuzz_experiment_yaml(const uint8_t *data, size_t size)
{
    /* alone in a directory of its own: names relative to it find nothing */
    const char *path = fuzz_file(FUZZ_FILE_IN_DIR, data, size);
    if (!path)
        return 0;
    struct experiment *e = (struct experiment *)1;
    char err[1024];
    memset(err, 'x', sizeof err);
    if (experiment_load(path, &e, err, sizeof err)) {
        ey_check_err(err, sizeof err);
        if (!err[0])
            fuzz_fail(EY, "experiment_load failed without a message");
        if (e)
            fuzz_fail(EY, "experiment_load failed but set *out");
        if (fuzz_verbose())
            fprintf(stderr, "%s\n", err);
        return 0;
    }
    if (!e)
        fuzz_fail(EY, "experiment_load succeeded with no experiment");
    uint32_t runs = experiment_runs(e);
    if (!runs)
        fuzz_fail(EY, "an experiment with no runs");
    const char *name = experiment_name(e), *text = experiment_text(e);
    if (!name || !experiment_path(e) || !text)
        fuzz_fail(EY, "name, path or text missing");
    if (strlen(text) > size)
        fuzz_fail(EY, "experiment_text is longer than the file");
    ey_check_run(e, 0);
    if (runs > 2)
        ey_check_run(e, runs / 2);
    if (runs > 1)
        ey_check_run(e, runs - 1);
    /* past the end: an error, not a crash */
    struct exp_run r;
    if (!experiment_run(e, runs, &r, err, sizeof err))
        fuzz_fail(EY, "experiment_run accepted run %u of %u", runs, runs);
    ey_check_err(err, sizeof err);
    experiment_free(e);
    return 0;
}

/* cmd_faults.c -- `flashlab faults CAMPAIGN.yaml`: for every run of the
 * campaign's sweep, one media fault at each chosen location of the
 * post-workload device, and what the fs made of it
 * (experiment/faults.c, docs/faults.md).  Every point goes to the
 * results database; each bad one prints the command that reproduces it. */
#include "campaign.h"
#include "cli.h"
#include "progress.h"
#include "experiment.h"
#include "faults.h"
#include "fsck.h"
#include "results.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: flashlab faults CAMPAIGN.yaml [-o DB] [-j N] [--run K] [--point P]\n"
    "\n"
    "A media-fault campaign (docs/faults.md): an experiment file with a\n"
    "`faults:` section.  For each run, the workload runs once; every page of\n"
    "the device it leaves is classified by what it holds (anchor record,\n"
    "superblock, inode file, indirect blocks, directories, segment file,\n"
    "file data, stale, free; the baselines name their own classes).  Then\n"
    "each chosen kind of fault (silent, beyond, uncorrectable, retention,\n"
    "disturb, bad) hits seeded pages of each class, one point at a time, each\n"
    "from the same post-workload image in a child process: fsck (LogFS), the\n"
    "mount, and every file read back against its contents before the fault.\n"
    "Outcomes go to DB (results/NAME.db by default), table faults; a table by\n"
    "class and outcome is printed.  On a terminal a progress line shows the\n"
    "points done, bad outcomes so far, the rate and the time left.\n"
    "\n"
    "--point P checks one point of run K (default 0) in this process and\n"
    "prints what happened, with the file system's listing afterwards.\n"
    "\n"
    "Exit status: 0 when no LogFS point had a bad outcome (crash, silent\n"
    "rollback, wrong bytes, lost files; a baseline's are reported, not\n"
    "failures), 1 otherwise or on an error, 2 for bad usage.\n"
    "\n"
    "examples:\n"
    "  flashlab faults configs/faults-logfs.yaml -j 2\n"
    "  flashlab faults configs/faults-logfs.yaml --run 0 --point 17\n"
    "  flashlab plot results/faults-logfs.db --kind faults -o faults.png\n";

/* LogFS's page map: fsck's walk (workloads/ cannot see fsck/). */
static int fsck_map(nand_dev *dev, uint8_t *cls, const char *const **names, char *err,
                    size_t errlen)
{
    static const char *list[FSCK_PG_CLASSES + 1];
    for (int i = 0; i < FSCK_PG_CLASSES; i++)
        list[i] = fsck_page_class_name(i);
    *names = list;
    if (fsck_page_map(dev, cls)) {
        snprintf(err, errlen, "fsck could not walk the device for the page map");
        return -1;
    }
    return 0;
}

/* Classes (rows, those with points) by outcome (columns, those seen). */
static void print_table(const struct fault_summary *s)
{
    int col[FO_COUNT] = {0};
    for (unsigned c = 0; c < s->nclasses; c++)
        for (int o = 0; o < FO_COUNT; o++)
            col[o] |= s->count[c][o] != 0;
    printf("  %-14s %8s", "class", "pages");
    for (int o = 0; o < FO_COUNT; o++)
        if (col[o])
            printf(" %15s", fault_outcome_name(o));
    printf("\n");
    for (unsigned c = 0; c < s->nclasses; c++) {
        uint64_t n = 0;
        for (int o = 0; o < FO_COUNT; o++)
            n += s->count[c][o];
        if (!n)
            continue;
        printf("  %-14s %8" PRIu64, s->classes[c], s->class_pages[c]);
        for (int o = 0; o < FO_COUNT; o++)
            if (col[o])
                printf(" %15" PRIu64, s->count[c][o]);
        printf("\n");
    }
}

int cmd_faults(int argc, char **argv)
{
    struct campaign c;
    int rc0 = campaign_open(&c, "faults", "point", "a point number", help, argc, argv);
    if (rc0 >= 0)
        return rc0;
    char err[1024];
    int failed = 0;
    uint64_t points = 0, bad_safe = 0, bad = 0;
    for (uint32_t k = 0; k < c.runs; k++) {
        if (!campaign_wants(&c, k))
            continue;
        struct exp_run r;
        if (experiment_run(c.e, k, &r, err, sizeof err)) {
            cli_error("%s", err);
            failed = 1;
            break;
        }
        if (!r.faults.present) {
            exp_run_free(&r);
            campaign_free(&c);
            return cli_error("%s: no faults: section (docs/faults.md)", c.path);
        }
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "flashlab faults %s --run %u --point", c.path, k);
        char label[32];
        snprintf(label, sizeof label, "run %u:", k);
        struct progress prog;
        progress_begin(&prog, label, "points", 0, c.point >= 0);
        struct fault_options fo = {.jobs = (int)c.jobs, .point = c.point, .map = fsck_map,
                                   .fsck = r.faults.fsck ? fsck_verdict : NULL, .log = stderr,
                                   .repro_cmd = cmd, .progress = prog.on ? progress_points : NULL,
                                   .progress_ctx = &prog};
        struct fault_summary *sum = calloc(1, sizeof *sum);
        int64_t run_id = 0;
        if (!sum || (c.db && results_begin_run(c.db, c.exp_id, k, r.params_json, r.seed, NULL,
                                               &run_id))) {
            cli_error("%s", sum ? results_error(c.db) : "out of memory");
            free(sum);
            exp_run_free(&r);
            failed = 1;
            break;
        }
        int rc = faults_run(&r, c.db, run_id, &fo, sum, err, sizeof err);
        progress_end(&prog); /* the summary replaces it */
        if (rc)
            cli_error("run %u: %s", k, err);
        if (c.db) {
            results_set_kv(c.db, run_id, "fault_points", (double)sum->points);
            results_set_kv(c.db, run_id, "fault_points_bad", (double)sum->bad);
            results_set_kv(c.db, run_id, "device_pages", (double)sum->pages);
            results_end_run(c.db, run_id, rc ? RESULTS_FAILED : RESULTS_COMPLETE, rc ? err : NULL);
        }
        if (c.point < 0) {
            printf("run %u (%s): %" PRIu64 " pages, %" PRIu64 " fault points, %" PRIu64
                   " bad\n", k, r.fs_api->name, sum->pages, sum->points, sum->bad);
            print_table(sum);
        }
        points += sum->points;
        bad += sum->bad;
        if (r.fs_api->features & FSAPI_F_FAULT_SAFE)
            bad_safe += sum->bad;
        failed |= rc != 0;
        free(sum);
        exp_run_free(&r);
    }
    if (c.db) {
        failed |= campaign_close_db(&c) != 0;
        printf("%s: %" PRIu64 " fault points, %" PRIu64 " bad (%" PRIu64
               " on file systems that promise none) -> %s\n",
               experiment_name(c.e), points, bad, bad_safe, c.out);
    }
    campaign_free(&c);
    return failed || bad_safe ? CLI_FAIL : CLI_OK;
}

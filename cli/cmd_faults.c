/* cmd_faults.c -- `flashlab faults CAMPAIGN.yaml`: for every run of the
 * campaign's sweep, one media fault at each chosen location of the
 * post-workload device, and what the fs made of it
 * (workloads/experiment/faults.c, docs/faults.md).  Every point goes to the
 * results database; each bad one prints the command that reproduces it. */
#include "cli.h"
#include "experiment.h"
#include "faults.h"
#include "fsck.h"
#include "results.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

struct progress {
    uint32_t run;
    double t0, shown;
};

static void show_progress(void *ctx, uint64_t done, uint64_t total, uint64_t bad)
{
    struct progress *p = ctx;
    double now = cli_now_s();
    if (done <= 1) /* the rate counts from the first point: not the workload's time */
        p->t0 = now;
    if (done < total && now - p->shown < 0.25)
        return; /* a few updates a second are enough */
    p->shown = now;
    double el = now - p->t0;
    double rate = el > 0 && done > 1 ? (double)(done - 1) / el : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "\r\033[Krun %u: %" PRIu64 "/%" PRIu64 " points  %" PRIu64
            " bad  %.1f/s  ETA %02d:%02d", p->run, done, total, bad, rate,
            (int)(eta / 60), (int)eta % 60);
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
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"jobs", required_argument, 0, 'j'},
        {"run", required_argument, 0, 'r'}, {"point", required_argument, 0, 'p'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    long jobs = 1, only = -1;
    int64_t point = -1;
    char *end;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'j':
            jobs = strtol(optarg, &end, 10);
            if (*end || jobs < 1 || jobs > 256)
                return cli_usage_error("faults", "bad -j '%s' (1..256)", optarg);
            break;
        case 'r':
            only = strtol(optarg, &end, 10);
            if (*end || only < 0 || !*optarg)
                return cli_usage_error("faults", "bad --run '%s'", optarg);
            break;
        case 'p':
            point = strtoll(optarg, &end, 10);
            if (*end || point < 0 || !*optarg)
                return cli_usage_error("faults", "bad --point '%s' (a point number)", optarg);
            break;
        case 'h': fputs(help, stdout); return CLI_OK;
        default: return cli_usage_error("faults", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("faults", "expected one CAMPAIGN.yaml argument");
    const char *path = argv[optind];
    char err[1024];
    struct experiment *e;
    if (experiment_load(path, &e, err, sizeof err))
        return cli_error("%s", err);
    uint32_t runs = experiment_runs(e);
    if (only >= (long)runs) {
        experiment_free(e);
        return cli_usage_error("faults", "no run %ld: the campaign has runs 0..%u", only,
                               runs - 1);
    }
    struct results *db = NULL;
    int64_t exp_id = 0;
    char def[512];
    if (point < 0) {
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
    uint64_t points = 0, bad_logfs = 0, bad = 0;
    for (uint32_t k = 0; k < runs; k++) {
        if ((only >= 0 && k != (uint32_t)only) || (only < 0 && point >= 0 && k))
            continue;
        struct exp_run r;
        if (experiment_run(e, k, &r, err, sizeof err)) {
            cli_error("%s", err);
            failed = 1;
            break;
        }
        if (!r.faults.present) {
            exp_run_free(&r);
            experiment_free(e);
            results_close(db);
            return cli_error("%s: no faults: section (docs/faults.md)", path);
        }
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "flashlab faults %s --run %u --point", path, k);
        struct progress prog = {.run = k, .t0 = cli_now_s()};
        int tty = point < 0 && isatty(STDERR_FILENO) && isatty(STDOUT_FILENO);
        struct fault_options fo = {.jobs = (int)jobs, .point = point, .map = fsck_map,
                                   .fsck = r.faults.fsck ? fsck_verdict : NULL, .log = stderr,
                                   .repro_cmd = cmd, .progress = tty ? show_progress : NULL,
                                   .progress_ctx = &prog};
        struct fault_summary *sum = calloc(1, sizeof *sum);
        int64_t run_id = 0;
        if (!sum || (db && results_begin_run(db, exp_id, k, r.params_json, r.seed, NULL,
                                             &run_id))) {
            cli_error("%s", sum ? results_error(db) : "out of memory");
            free(sum);
            exp_run_free(&r);
            failed = 1;
            break;
        }
        int rc = faults_run(&r, db, run_id, &fo, sum, err, sizeof err);
        if (tty)
            fputs("\r\033[K", stderr); /* the summary replaces the progress */
        if (rc)
            cli_error("run %u: %s", k, err);
        if (db) {
            results_set_kv(db, run_id, "fault_points", (double)sum->points);
            results_set_kv(db, run_id, "fault_points_bad", (double)sum->bad);
            results_set_kv(db, run_id, "device_pages", (double)sum->pages);
            results_end_run(db, run_id, rc ? RESULTS_FAILED : RESULTS_COMPLETE, rc ? err : NULL);
        }
        if (point < 0) {
            printf("run %u (%s): %" PRIu64 " pages, %" PRIu64 " fault points, %" PRIu64
                   " bad\n", k, r.fs_api->name, sum->pages, sum->points, sum->bad);
            print_table(sum);
        }
        points += sum->points;
        bad += sum->bad;
        if (exp_run_is_logfs(&r))
            bad_logfs += sum->bad;
        failed |= rc != 0;
        free(sum);
        exp_run_free(&r);
    }
    if (db) {
        if (results_close(db))
            failed = 1;
        printf("%s: %" PRIu64 " fault points, %" PRIu64 " bad (%" PRIu64 " on LogFS) -> %s\n",
               experiment_name(e), points, bad, bad_logfs, out);
    }
    experiment_free(e);
    return failed || bad_logfs ? CLI_FAIL : CLI_OK;
}

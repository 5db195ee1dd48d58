/* cmd_faults.c -- `flashlab faults CAMPAIGN.yaml`: for every run of the
 * campaign's sweep, one media fault at each chosen location of the
 * post-workload device, and what the fs made of it
 * (experiment/faults.c, docs/faults.md).  Every point goes to the
 * results database; each bad one prints the command that reproduces it. */
#include "campaign.h"
#include "cli.h"
#include "experiment.h"
#include "faults.h"
#include "fsck.h"
#include "results.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: flashlab faults CAMPAIGN.yaml [-o DB] [-j N] [--run K] [--point P]\n"
    "                       [--as NAME] [--force]\n"
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
    CAMPAIGN_RESUME_HELP
    "Exit status: 0 when no point had a bad outcome (crash, silent\n"
    "rollback, wrong bytes, lost files; a baseline's are reported, not\n"
    "failures), 1 otherwise or on an error, 2 for bad usage.\n"
    "\n"
    "examples:\n"
    "  flashlab faults configs/faults-logfs.yaml -j 2\n"
    "  flashlab faults configs/faults-logfs.yaml --run 0 --point 17\n"
    "  flashlab plot results/faults-logfs.db --kind faults -o faults.png\n";

/* LogFS's page map: fsck's walk (experiment/ cannot see fsck/). */
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
            printf(" %15s", exp_fault_outcome_name(o));
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

struct faults_ctx {
    struct fault_summary sum; /* the run's (large: on the heap) */
    uint64_t points, bad, bad_safe; /* bad_safe: on kinds that promise none */
};

static int has_faults(const struct exp_run *r)
{
    return r->faults.present;
}

static int run_faults(void *ctx, const struct campaign *c, const struct exp_run *r,
                      int64_t run_id, const char *repro_cmd, struct exp_progress progress,
                      char *err, size_t errlen)
{
    struct faults_ctx *x = ctx;
    struct fault_options fo = {.jobs = (int)c->jobs, .point = c->point, .map = fsck_map,
                               .fsck = r->faults.fsck ? fsck_verdict : NULL, .log = stderr,
                               .repro_cmd = repro_cmd, .progress = progress};
    memset(&x->sum, 0, sizeof x->sum);
    return exp_faults_run(r, c->db, run_id, &fo, &x->sum, err, errlen);
}

static void report_faults(void *ctx, const struct campaign *c, uint32_t k,
                          const struct exp_run *r, int64_t run_id)
{
    struct faults_ctx *x = ctx;
    const struct fault_summary *sum = &x->sum;
    if (c->db) {
        results_set_kv(c->db, run_id, "fault_points", (double)sum->points);
        results_set_kv(c->db, run_id, "fault_points_bad", (double)sum->bad);
        results_set_kv(c->db, run_id, "device_pages", (double)sum->pages);
        /* the part, as the figures name it (docs/results-schema.md) */
        results_set_kv_text(c->db, run_id, "device", r->dev.name);
        results_set_kv(c->db, run_id, "device_bytes", (double)nand_capacity_bytes(&r->dev));
    }
    if (c->point < 0) {
        printf("run %u (%s): %" PRIu64 " pages, %" PRIu64 " fault points, %" PRIu64
               " bad\n", k, r->fs_api->name, sum->pages, sum->points, sum->bad);
        print_table(sum);
    }
    x->points += sum->points;
    x->bad += sum->bad;
    if (r->fs_api->features & FSAPI_F_FAULT_SAFE)
        x->bad_safe += sum->bad;
}

static int finish_faults(void *ctx, const struct campaign *c)
{
    const struct faults_ctx *x = ctx;
    if (c->point < 0)
        printf("%s: %" PRIu64 " fault points, %" PRIu64 " bad (%" PRIu64
               " on file systems that promise none) -> %s\n",
               c->name, x->points, x->bad, x->bad_safe, c->out);
    return x->bad_safe != 0;
}

static const struct campaign_kind faults_kind = {
    .unit = "points", .has = has_faults, .run = run_faults, .report = report_faults,
    .finish = finish_faults};

int cmd_faults(int argc, char **argv)
{
    struct campaign c;
    int rc0 = campaign_open(&c, "faults", "point", "a point number", help, argc, argv);
    if (rc0 >= 0)
        return rc0;
    struct faults_ctx *x = calloc(1, sizeof *x);
    if (!x) {
        campaign_free(&c);
        return cli_error("out of memory");
    }
    int rc = campaign_run_all(&c, &faults_kind, x);
    free(x);
    return rc;
}

/*
 * bench_powercut.c -- how fast a power-cut sweep checks cut points: the
 * campaign configs/powercut-churn.yaml (every flash operation of two churn
 * runs, fsck on every recovery, 200 second cuts each) with 2 jobs, as
 * `flashlab powercut configs/powercut-churn.yaml -j 2` runs it.  Reported:
 * cut points checked per wall-clock second and per CPU-second of the
 * process and its children (each point is checked in a forked child);
 * issue #19's figure is >= 61 points per second.  With --quick (or
 * FLASHLAB_BENCH_QUICK=1) only run 0.  Rows go to results/bench.csv.
 */
#include "bench_util.h"
#include "fsck.h"
#include "powercut.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define CAMPAIGN "configs/powercut-churn.yaml"

static double cpu_seconds(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                    kids.ru_stime.tv_sec) +
           (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                    kids.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
    const char *q = getenv("FLASHLAB_BENCH_QUICK");
    int quick = (argc > 1 && !strcmp(argv[1], "--quick")) || (q && *q && strcmp(q, "0"));
    char err[1024];
    struct experiment *e;
    if (experiment_load(CAMPAIGN, &e, err, sizeof err)) {
        fprintf(stderr, "bench_powercut: %s\n", err);
        return 1;
    }
    uint32_t runs = quick ? 1 : experiment_runs(e);
    uint64_t points = 0, failed = 0;
    double w0 = wall(), c0 = cpu_seconds();
    int rc = 0;
    for (uint32_t k = 0; k < runs && !rc; k++) {
        struct exp_run r;
        if ((rc = experiment_run(e, k, &r, err, sizeof err)))
            break;
        struct pc_options po = {.jobs = 2, .repro = -1, .fsck = fsck_verdict, .log = stderr};
        struct pc_summary sum;
        rc = exp_powercut_run(&r, NULL, 0, &po, &sum, err, sizeof err);
        points += sum.points;
        failed += sum.failed;
        exp_run_free(&r);
    }
    double w = wall() - w0, c = cpu_seconds() - c0;
    experiment_free(e);
    if (rc) {
        fprintf(stderr, "bench_powercut: %s\n", err);
        return 1;
    }
    printf("power-cut sweep (%s, %u run%s, -j 2): %llu cut points, %llu failed, "
           "%.1f points/s (%.1f per CPU-second); goal >= 61 points/s %s\n",
           CAMPAIGN, runs, runs == 1 ? "" : "s", (unsigned long long)points,
           (unsigned long long)failed, (double)points / w, (double)points / c,
           (double)points / w >= 61 ? "met" : "not met");
    const char *tag = quick ? "powercut_quick" : "powercut";
    char name[64];
    snprintf(name, sizeof name, "%s_points_per_s", tag);
    record(name, (double)points / w, "points/s");
    snprintf(name, sizeof name, "%s_points_per_cpu_s", tag);
    record(name, (double)points / c, "points/cpu-s");
    return failed ? 1 : 0;
}

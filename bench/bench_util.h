/* bench_util.h -- what every benchmark shares: a wall clock and the CSV
 * row appended to results/bench.csv (time, name, value, unit). */
#ifndef FLASHLAB_BENCH_UTIL_H
#define FLASHLAB_BENCH_UTIL_H

#include <stdio.h>
#include <time.h>

static inline double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void record(const char *name, double value, const char *unit)
{
    FILE *f = fopen("results/bench.csv", "a");
    if (!f)
        return;
    fprintf(f, "%ld,%s,%.6g,%s\n", (long)time(NULL), name, value, unit);
    fclose(f);
}

#endif

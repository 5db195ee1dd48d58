/* bench_util.h -- what every benchmark shares: a wall clock, the CSV
 * row appended to results/bench.csv (time, name, value, unit), and the
 * process's memory from /proc. */
#ifndef FLASHLAB_BENCH_UTIL_H
#define FLASHLAB_BENCH_UTIL_H

#include <stdio.h>
#include <string.h>
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

/* A "Name: N kB" field of /proc/self/status (VmRSS, VmHWM), or -1.
 * Resident memory, not malloc's count: the simulator keeps its page
 * buffers in mappings of its own (sim/arena.c), which mallinfo does not
 * see. */
static inline long proc_status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t n = strlen(field);
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':' && sscanf(line + n + 1, "%ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

#endif

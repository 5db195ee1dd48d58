/*
 * bench_ftl_mqsim.c -- flashlab's FTL beside MQSim on MQSim's own job
 * (docs/performance.md, "The FTL against MQSim"; issue #31 item 4).
 *
 * The job: configs/devices/mqsim-8g.yaml (MQSim's 8 GiB MLC SSD), 8 KiB
 * mapping unit, over-provisioning 0.07, per-plane allocation and GC when a
 * plane's free blocks fall under 5 %, d-choices with d = 8 (MQSim's RGA),
 * from empty; uniform random 4 KiB writes at 8 KiB-aligned offsets (MQSim's
 * Address_Alignment_Unit 16 sectors) of the first working set of the
 * logical space, for as many requests as MQSim serves in its 1,000
 * simulated seconds at that working set.  Every byte is stored (the
 * payloads are one byte value per request, and the device keeps pages in
 * run-length form: device.compress), and after each run every written
 * unit is read back and compared (not timed).
 *
 * For each working set the two simulators run alternately, flashlab then
 * MQSim, ROUNDS times each (3 by default; 1 when flashlab runs alone: the
 * machine's other load moves single runs by tens of percent, alternating
 * spreads it over both), and the medians
 * compare: requests per wall-second and per CPU-second, whole-run WA
 * (programs x page size / host bytes), erases per host write.  Each
 * flashlab run also prints its fingerprint (programs, erases, reads, bits
 * corrected, simulated time): equal in every round, and the figure a
 * speed change must leave as it is.
 *
 *   MQSIM=MQSim-binary MQSIM_XML=DIR bench_ftl_mqsim [--quick] [--rounds N] [--ws P]
 *
 * MQSIM_XML: the folder of MQSim's two job files (ssd-8g-mlc.xml,
 * workload-random-4k.xml).  Without MQSIM (or MQSIM_XML), flashlab runs
 * alone and says so.  --quick (FLASHLAB_BENCH_QUICK=1): a tenth of the
 * requests, flashlab only, one round.  --ws P: that working set only.
 * FTL_CACHE=SIZE (e.g. 256M, MQSim's job's data cache) gives flashlab's
 * FTL a write cache of that size (option cache=; off by default); the
 * share of host writes it absorbed is printed.
 *
 * Rows go to results/bench.csv as ftl_mqsim[_cache]_ws<P>_<what> (medians).
 */
#include "bench_util.h"
#include "fsapi.h"
#include "nand.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define ROUNDS_MAX 15

struct job {
    int ws_pct;
    uint64_t mqsim_requests; /* MQSim's "total requests serviced" at this working set */
};

static const struct job jobs[] = {{50, 2953648}, {100, 1725531}};

struct res {
    double wa, erases_per_write, req_per_s, req_per_cpu_s;
    uint64_t requests, absorbed;
    struct nand_stats st; /* flashlab: the device's counts over the run */
    uint64_t sim_ns;      /* flashlab: simulated time of the run */
};

static double cpu_self(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of the waited-for children so far (MQSim) */
static double cpu_children(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Read every unit of the working set back: the first 4 KiB hold the value
 * of the last request to it (want[u], 0 never written), the rest zeros. */
static int verify(const struct fsapi *A, void *fs, int fd, const uint8_t *want, uint64_t units)
{
    static uint8_t sec[8192], exp[8192];
    for (uint64_t u = 0; u < units; u++) {
        if (A->pread(fs, fd, sec, sizeof sec, u * 8192) != (int64_t)sizeof sec)
            return -1;
        memset(exp, want[u], 4096);
        if (memcmp(sec, exp, sizeof sec)) {
            size_t i = 0;
            while (sec[i] == exp[i])
                i++;
            fprintf(stderr, "bench_ftl_mqsim: unit %" PRIu64 " byte %zu reads %u, not %u\n", u,
                    i, sec[i], exp[i]);
            return -1;
        }
    }
    return 0;
}

static int run_flashlab(const struct job *j, uint64_t n, const char *cache, struct res *r)
{
    struct nand_config c;
    char err[512];
    if (nand_config_load("configs/devices/mqsim-8g.yaml", &c, err, sizeof err)) {
        fprintf(stderr, "bench_ftl_mqsim: %s\n", err);
        return -1;
    }
    c.compress = 1;
    nand_dev *d;
    if (nand_create(&c, &d))
        return -1;
    const struct fsapi *A = fsapi_find("ftl");
    void *fs;
    char mopts[64] = "";
    if (cache)
        snprintf(mopts, sizeof mopts, "cache=%s", cache);
    if (A->mkfs(d, "op=0.07,sector=8K,gc_policy=d-choices,gc_choices=8,gc_threshold=0.05,"
                   "pair_safe=0") ||
        A->mount(d, mopts, &fs)) {
        nand_close(d);
        return -1;
    }
    struct fs_stat st;
    A->stat(fs, "/disk", &st);
    uint64_t units = (uint64_t)((double)(st.size / 8192) * j->ws_pct / 100.0);
    uint8_t *want = calloc(units, 1);
    int fd = A->open(fs, "/disk", O_RDWR, 0);
    uint8_t buf[4096];
    uint64_t s = 798 + (uint64_t)j->ws_pct;
    struct nand_stats a, b;
    nand_get_stats(d, &a);
    nand_time_t sim0 = nand_now(d);
    double t0 = wall(), c0 = cpu_self();
    int rc = want ? 0 : -1;
    for (uint64_t i = 0; i < n && !rc; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        memset(buf, (int)(1 + i % 255), sizeof buf);
        want[s % units] = buf[0];
        rc = A->pwrite(fs, fd, buf, sizeof buf, (s % units) * 8192) == 4096 ? 0 : -1;
    }
    double t1 = wall(), c1 = cpu_self();
    nand_get_stats(d, &b);
    r->sim_ns = nand_now(d) - sim0;
    struct fsapi_counter cv[FSAPI_COUNTERS_MAX];
    size_t ncv = A->stats(fs, cv, FSAPI_COUNTERS_MAX);
    r->absorbed = fsapi_counter_value(cv, ncv, "cache_absorbed");
    if (!rc && verify(A, fs, fd, want, units))
        rc = -1;
    free(want);
    A->close(fs, fd);
    A->unmount(fs);
    nand_close(d);
    r->requests = n;
    r->st = b;
    r->st.reads -= a.reads, r->st.programs -= a.programs, r->st.erases -= a.erases;
    r->st.bits_corrected -= a.bits_corrected;
    r->wa = (double)r->st.programs * 8192 / ((double)n * 4096);
    r->erases_per_write = (double)r->st.erases / (double)n;
    r->req_per_s = (double)n / (t1 - t0);
    r->req_per_cpu_s = (double)n / (c1 - c0);
    return rc;
}

/* The number after <tag> in file, summed over every occurrence. */
static double xml_sum(const char *path, const char *tag)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096];
    double sum = 0;
    size_t tl = strlen(tag);
    while (fgets(line, sizeof line, f))
        for (char *p = line; (p = strstr(p, tag)); p += tl)
            if (p[tl] == '=' && p[tl + 1] == '"')
                sum += strtod(p + tl + 2, NULL);
    fclose(f);
    return sum;
}

static int run_mqsim(const char *bin, const char *xmldir, const struct job *j, struct res *r)
{
    char cmd[4096], dir[] = "/tmp/ftl-mqsim-XXXXXX";
    if (!mkdtemp(dir))
        return -1;
    snprintf(cmd, sizeof cmd,
             "cp '%s/ssd-8g-mlc.xml' %s/ && sed 's|<Working_Set_Percentage>[0-9]*<|"
             "<Working_Set_Percentage>%d<|' '%s/workload-random-4k.xml' > %s/w.xml && "
             "cd %s && '%s' -i ssd-8g-mlc.xml -w w.xml > out.txt 2>&1",
             xmldir, dir, j->ws_pct, xmldir, dir, dir, bin);
    double t0 = wall(), c0 = cpu_children();
    int rc = system(cmd);
    double t1 = wall(), c1 = cpu_children();
    char path[512];
    snprintf(path, sizeof path, "%s/w_scenario_1.xml", dir);
    double prog = xml_sum(path, "Issued_Flash_Program_CMD");
    double erase = xml_sum(path, "Issued_Flash_Erase_CMD");
    snprintf(path, sizeof path, "%s/out.txt", dir);
    FILE *f = fopen(path, "r");
    char line[512];
    uint64_t served = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "total requests serviced");
        if (p && (p = strchr(p, ':')))
            served = strtoull(p + 1, NULL, 10);
    }
    if (f)
        fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
    if (rc || prog <= 0 || !served) {
        fprintf(stderr, "bench_ftl_mqsim: MQSim at working set %d%%: exit %d, %g programs, "
                "%" PRIu64 " requests\n", j->ws_pct, rc, prog, served);
        return -1;
    }
    r->requests = served;
    r->wa = prog * 8192 / ((double)served * 4096);
    r->erases_per_write = erase / (double)served;
    r->req_per_s = (double)served / (t1 - t0);
    r->req_per_cpu_s = (double)served / (c1 - c0);
    return 0;
}

/* 1 when dir holds MQSim's two job files */
static int mqsim_xml_ok(const char *dir)
{
    char path[512];
    const char *files[] = {"ssd-8g-mlc.xml", "workload-random-4k.xml"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (access(path, R_OK))
            return 0;
    }
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median of n values (sorted in place) */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_run(int ws, const char *sim, int round, const struct res *r)
{
    printf("%3d%% %-9s %5d %10" PRIu64 " %8.3f %14.6f %12.0f %12.0f\n", ws, sim, round,
           r->requests, r->wa, r->erases_per_write, r->req_per_s, r->req_per_cpu_s);
}

static void print_load(void)
{
    double l[3];
    if (getloadavg(l, 3) == 3)
        printf("     load average %.2f %.2f %.2f\n", l[0], l[1], l[2]);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* rows as they come, also into a file */
    int quick = getenv("FLASHLAB_BENCH_QUICK") && *getenv("FLASHLAB_BENCH_QUICK");
    int rounds = getenv("ROUNDS") && *getenv("ROUNDS") ? atoi(getenv("ROUNDS")) : -1, only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ws") && i + 1 < argc)
            only = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_ftl_mqsim [--quick] [--rounds N] [--ws 50|100]\n");
            return 2;
        }
    }
    const char *bin = getenv("MQSIM"), *xml = getenv("MQSIM_XML");
    const char *cache = getenv("FTL_CACHE") && *getenv("FTL_CACHE") ? getenv("FTL_CACHE") : NULL;
    int mq = !quick && bin && *bin && xml && *xml;
    char why[600] = "set MQSIM to its binary and MQSIM_XML to its job files' folder";
    if (quick)
        snprintf(why, sizeof why, "--quick runs flashlab alone");
    else if (mq && access(bin, X_OK))
        mq = 0, snprintf(why, sizeof why, "MQSIM=%s is not an executable file", bin);
    else if (mq && !mqsim_xml_ok(xml))
        mq = 0, snprintf(why, sizeof why,
                         "MQSIM_XML=%s lacks ssd-8g-mlc.xml or workload-random-4k.xml", xml);
    if (rounds == -1) /* by default 3 to alternate with MQSim, 1 alone */
        rounds = mq ? 3 : 1;
    if (rounds < 1 || rounds > ROUNDS_MAX) {
        fprintf(stderr, "bench_ftl_mqsim: rounds %d (ROUNDS or --rounds): 1 to %d\n", rounds,
                ROUNDS_MAX);
        return 2;
    }
    if (quick)
        rounds = 1;
    printf("FTL vs MQSim: MQSim's job (8 GiB MLC, 8 KiB mapping unit, op 0.07, RGA d=8 per "
           "plane at 5%%), from empty%s, %d round%s each%s\n",
           quick ? " (quick: a tenth of the requests)" : "", rounds, rounds > 1 ? "s" : "",
           mq ? ", alternating" : "");
    if (!mq)
        printf("(MQSim not run: %s)\n", why);
    printf("%-4s %-9s %5s %10s %8s %14s %12s %12s\n", "ws", "sim", "round", "requests", "WA",
           "erases/write", "requests/s", "req/cpu-s");
    for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
        const struct job *j = &jobs[k];
        if (only && only != j->ws_pct)
            continue;
        struct res f[ROUNDS_MAX], m[ROUNDS_MAX];
        double fw[ROUNDS_MAX], fc[ROUNDS_MAX], mw[ROUNDS_MAX], mc[ROUNDS_MAX];
        uint64_t n = quick ? j->mqsim_requests / 10 : j->mqsim_requests;
        print_load();
        for (int r = 0; r < rounds; r++) {
            if (run_flashlab(j, n, cache, &f[r])) {
                fprintf(stderr, "bench_ftl_mqsim: flashlab failed at working set %d%%\n",
                        j->ws_pct);
                return 1;
            }
            print_run(j->ws_pct, "flashlab", r + 1, &f[r]);
            printf("     fingerprint: %" PRIu64 " programs, %" PRIu64 " erases, %" PRIu64
                   " reads, %" PRIu64 " bits corrected, %" PRIu64 " ns simulated\n",
                   f[r].st.programs, f[r].st.erases, f[r].st.reads, f[r].st.bits_corrected,
                   f[r].sim_ns);
            if (cache)
                printf("     flashlab's cache=%s absorbed %.2f %% of the writes\n", cache,
                       100.0 * (double)f[r].absorbed / (double)f[r].requests);
            fw[r] = f[r].req_per_s, fc[r] = f[r].req_per_cpu_s;
            if (!mq)
                continue;
            if (run_mqsim(bin, xml, j, &m[r]))
                return 1;
            print_run(j->ws_pct, "MQSim", r + 1, &m[r]);
            mw[r] = m[r].req_per_s, mc[r] = m[r].req_per_cpu_s;
        }
        print_load();
        double fwm = median(fw, rounds), fcm = median(fc, rounds);
        printf("     flashlab median: %.0f requests/s, %.0f per CPU-second\n", fwm, fcm);
        char name[64];
        const char *tag = cache ? "_cache" : "";
        snprintf(name, sizeof name, "ftl_mqsim%s_ws%d_wa", tag, j->ws_pct);
        record(name, f[0].wa, "ratio");
        snprintf(name, sizeof name, "ftl_mqsim%s_ws%d_req_per_s", tag, j->ws_pct);
        record(name, fwm, "req/s");
        if (!mq)
            continue;
        double mwm = median(mw, rounds), mcm = median(mc, rounds);
        printf("     MQSim median:    %.0f requests/s, %.0f per CPU-second\n", mwm, mcm);
        printf("     flashlab/MQSim: WA %.3f, erases per write %.3f, requests/s %.2f "
               "(per CPU-second %.2f)\n",
               f[0].wa / m[0].wa, f[0].erases_per_write / m[0].erases_per_write, fwm / mwm,
               fcm / mcm);
        snprintf(name, sizeof name, "ftl_mqsim%s_ws%d_speed_ratio", tag, j->ws_pct);
        record(name, fwm / mwm, "ratio");
    }
    return 0;
}

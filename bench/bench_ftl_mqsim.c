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
 * run-length form: device.compress).
 *
 * For each working set: flashlab's whole-run WA (programs x page size /
 * host bytes), erases per host write, requests per wall-second; then, when
 * MQSIM names MQSim's binary and MQSIM_XML the folder of its two job files
 * (ssd-8g-mlc.xml, workload-random-4k.xml), MQSim on the same job in the
 * same run, from the counts its scenario file reports, and the ratios.
 *
 *   MQSIM=/tmp/MQSim/MQSim MQSIM_XML=DIR bench_ftl_mqsim [--quick]
 *
 * FTL_CACHE=SIZE (e.g. 256M, MQSim's job's data cache) gives flashlab's
 * FTL a write cache of that size (option cache=; off by default); the
 * share of host writes it absorbed is printed.
 *
 * --quick (FLASHLAB_BENCH_QUICK=1): a tenth of the requests, flashlab only.
 * Rows go to results/bench.csv as ftl_mqsim_ws<P>_<what>.
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

struct job {
    int ws_pct;
    uint64_t mqsim_requests; /* MQSim's "total requests serviced" at this working set */
};

static const struct job jobs[] = {{50, 2953648}, {100, 1725531}};

struct res {
    double wa, erases_per_write, req_per_s;
    uint64_t requests, absorbed;
};

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
    int fd = A->open(fs, "/disk", O_RDWR, 0);
    uint8_t buf[4096];
    uint64_t s = 798 + (uint64_t)j->ws_pct;
    struct nand_stats a, b;
    nand_get_stats(d, &a);
    double t0 = wall();
    int rc = 0;
    for (uint64_t i = 0; i < n && !rc; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        memset(buf, (int)(1 + i % 255), sizeof buf);
        rc = A->pwrite(fs, fd, buf, sizeof buf, (s % units) * 8192) == 4096 ? 0 : -1;
    }
    double t1 = wall();
    nand_get_stats(d, &b);
    struct fsapi_counter cv[FSAPI_COUNTERS_MAX];
    size_t ncv = A->stats(fs, cv, FSAPI_COUNTERS_MAX);
    r->absorbed = fsapi_counter_value(cv, ncv, "cache_absorbed");
    A->close(fs, fd);
    A->unmount(fs);
    nand_close(d);
    r->requests = n;
    r->wa = (double)(b.programs - a.programs) * 8192 / ((double)n * 4096);
    r->erases_per_write = (double)(b.erases - a.erases) / (double)n;
    r->req_per_s = (double)n / (t1 - t0);
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
    double t0 = wall();
    int rc = system(cmd);
    double t1 = wall();
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
    return 0;
}

int main(int argc, char **argv)
{
    int quick = (argc > 1 && !strcmp(argv[1], "--quick")) ||
                (getenv("FLASHLAB_BENCH_QUICK") && *getenv("FLASHLAB_BENCH_QUICK"));
    const char *bin = getenv("MQSIM"), *xml = getenv("MQSIM_XML");
    const char *cache = getenv("FTL_CACHE") && *getenv("FTL_CACHE") ? getenv("FTL_CACHE") : NULL;
    printf("FTL vs MQSim: MQSim's job (8 GiB MLC, 8 KiB mapping unit, op 0.07, RGA d=8 per "
           "plane at 5%%), from empty%s\n", quick ? " (quick: a tenth of the requests)" : "");
    printf("%-4s %-9s %10s %8s %14s %12s\n", "ws", "sim", "requests", "WA", "erases/write",
           "requests/s");
    for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
        const struct job *j = &jobs[k];
        struct res f, m;
        uint64_t n = quick ? j->mqsim_requests / 10 : j->mqsim_requests;
        if (run_flashlab(j, n, cache, &f)) {
            fprintf(stderr, "bench_ftl_mqsim: flashlab failed at working set %d%%\n", j->ws_pct);
            return 1;
        }
        printf("%3d%% %-9s %10" PRIu64 " %8.3f %14.6f %12.0f\n", j->ws_pct, "flashlab",
               f.requests, f.wa, f.erases_per_write, f.req_per_s);
        if (cache)
            printf("     flashlab's cache=%s absorbed %.2f %% of the writes\n", cache,
                   100.0 * (double)f.absorbed / (double)f.requests);
        char name[64];
        snprintf(name, sizeof name, "ftl_mqsim%s_ws%d_wa", cache ? "_cache" : "", j->ws_pct);
        record(name, f.wa, "ratio");
        snprintf(name, sizeof name, "ftl_mqsim%s_ws%d_req_per_s", cache ? "_cache" : "", j->ws_pct);
        record(name, f.req_per_s, "req/s");
        if (quick || !bin || !xml)
            continue;
        if (run_mqsim(bin, xml, j, &m))
            return 1;
        printf("%3d%% %-9s %10" PRIu64 " %8.3f %14.6f %12.0f\n", j->ws_pct, "MQSim",
               m.requests, m.wa, m.erases_per_write, m.req_per_s);
        printf("     flashlab/MQSim: WA %.3f, erases per write %.3f, requests/s %.2f\n",
               f.wa / m.wa, f.erases_per_write / m.erases_per_write, f.req_per_s / m.req_per_s);
    }
    if (!bin || !xml)
        printf("(MQSim not run: set MQSIM to its binary and MQSIM_XML to its job files' "
               "folder)\n");
    return 0;
}

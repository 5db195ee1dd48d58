/*
 * bench_gc.c -- the cleaner inside LogFS (docs/validation.md step 2).
 *
 * On a 64 MiB SLC device (512 blocks of 64 pages of 2 KiB, segments of 32
 * fs blocks of 4 KiB), one file filled to a utilisation u of the space the
 * cleaner can use is overwritten at random in 4 KiB writes, a sync every
 * 64, for 4 device sizes after 2 of warm-up.  For each policy and u it
 * reports
 *   - data WA: pages programmed in file-data segments / host pages,
 *   - total WA: all pages programmed (data, tree metadata, anchor) / host,
 *   - the page-level harness's WA for the same policy and spare factor
 *     (analysis/gc_model.c), and Desnoyers' model for greedy and FIFO,
 *   - the cleaner's cost per reclaimed segment: live bytes copied and
 *     simulated time per victim.
 * Then the 90/10 hot/cold workload for greedy and cost-benefit, with and
 * without separating the cleaner's copies.  Rows go to results/bench.csv
 * and results/bench_gc.csv.
 *
 * The spare factor LogFS sees: T = segments the cleaner can fill =
 * all segments - superblock/anchor/backup blocks - the writers' reserve -
 * the open segments of the areas in use; U = the file's bytes.
 */
#include "bench_util.h"
#include "gc_model.h"
#include "gc_policy.h"
#include "logfs/logfs.h"
#include "nand.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 512u
#define PPB 64u
#define PAGE 2048u
#define SEG_BYTES (PPB * PAGE)
#define FSB 4096u
#define SYNC_EVERY 64u
#define RESERVE 4u
#define DIRTY (256u << 10)

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

struct result {
    double sf, data_wa, total_wa, harness_wa, model_wa;
    double moved_per_victim, sim_ms_per_victim;
    uint64_t victims;
};

/* Segments the cleaner can fill: all blocks but superblock, 4 anchors and
 * the backup, minus the writers' reserve (reserve + 14 areas + dirty limit
 * + 1, as fs/logfs/super.c) and the open segments of the areas the workload uses
 * (data, indirect 1-2, inode, segment file). */
static uint32_t usable_segments(void)
{
    uint32_t writers_reserve = RESERVE + 14 + DIRTY / SEG_BYTES + 1;
    return BLOCKS - 6 - writers_reserve - 5;
}

/* The benchmark part: blocks of PPB pages of PAGE bytes, no wear-out, no
 * factory bad blocks; compress for the big one (content-light data). */
static nand_dev *bench_device(uint32_t blocks, int compress)
{
    struct nand_config cfg;
    nand_config_init(&cfg);
    cfg.geo.blocks_per_plane = blocks;
    cfg.geo.pages_per_block = PPB;
    cfg.geo.page_size = PAGE;
    cfg.geo.oob_size = 64;
    cfg.endurance = 10000000;
    cfg.factory_bad_fraction = 0;
    cfg.compress = compress;
    cfg.seed = 7;
    nand_dev *dev;
    return nand_create(&cfg, &dev) ? NULL : dev;
}

static int run_logfs(const char *policy, int separate, double util, double hot_w,
                     double hot_d, struct result *r)
{
    nand_dev *dev = bench_device(BLOCKS, 0);
    if (!dev)
        return -1;
    struct logfs_options o = {
        .reserve_segments = RESERVE, .dirty_bytes = DIRTY, .cache_bytes = 8u << 20,
        .gc_policy = policy, .gc_separate = separate,
    };
    logfs *fs;
    if (logfs_mkfs(dev, &o) || logfs_mount(dev, &o, &fs)) {
        nand_close(dev);
        return -1;
    }
    uint64_t t_bytes = (uint64_t)usable_segments() * SEG_BYTES;
    uint64_t nblk = (uint64_t)(util * (double)t_bytes) / FSB;
    r->sf = 1.0 - (double)(nblk * FSB) / (double)t_bytes;
    uint64_t hot = (uint64_t)(hot_d * (double)nblk);
    uint8_t buf[FSB];
    int fd = logfs_open(fs, "/f", O_CREAT | O_RDWR, 0644), rc = fd < 0;
    for (uint64_t b = 0; b < nblk && !rc; b++) {
        memset(buf, (int)b, sizeof buf);
        rc = logfs_pwrite(fs, fd, buf, FSB, b * FSB) != FSB;
    }
    uint64_t dev_blocks = (uint64_t)BLOCKS * SEG_BYTES / FSB;
    struct logfs_stats s0, s1;
    for (int phase = 0; phase < 2 && !rc; phase++) {
        if (phase == 1)
            logfs_get_stats(fs, &s0);
        uint64_t writes = (phase ? 4 : 2) * dev_blocks;
        for (uint64_t i = 0; i < writes && !rc; i++) {
            uint64_t x = next_rand(), b;
            if (hot && (double)(x % 1000) < hot_w * 1000)
                b = (x >> 10) % hot;
            else if (hot)
                b = hot + (x >> 10) % (nblk - hot);
            else
                b = (x >> 10) % nblk;
            memset(buf, (int)x, 64); /* content need not be random */
            rc = logfs_pwrite(fs, fd, buf, FSB, b * FSB) != FSB;
            if (!rc && i % SYNC_EVERY == SYNC_EVERY - 1)
                rc = logfs_sync(fs);
        }
    }
    if (!rc) {
        logfs_sync(fs);
        logfs_get_stats(fs, &s1);
        double host_pages = (double)(s1.host_bytes - s0.host_bytes) / PAGE;
        r->data_wa = (double)(s1.pages_data - s0.pages_data) / host_pages;
        r->total_wa = (double)(s1.pages_data + s1.pages_meta + s1.pages_anchor -
                               s0.pages_data - s0.pages_meta - s0.pages_anchor) / host_pages;
        r->victims = s1.gc_rounds - s0.gc_rounds;
        r->moved_per_victim = r->victims ? (double)(s1.gc_bytes - s0.gc_bytes) / r->victims : 0;
        r->sim_ms_per_victim =
            r->victims ? (double)(s1.gc_time_ns - s0.gc_time_ns) / 1e6 / r->victims : 0;
    }
    if (fd >= 0)
        logfs_close(fs, fd);
    logfs_unmount(fs);
    nand_close(dev);
    return rc ? -1 : 0;
}

/* The same policy in the page-level harness at the same spare factor,
 * with blocks of one segment's fs blocks. */
static double harness(const char *policy, int separate, double sf, double hot_w,
                      double hot_d)
{
    struct gc_harness_cfg c = {
        .blocks = usable_segments() + 2, .np = SEG_BYTES / FSB, .spare = sf,
        .hot_writes = hot_w, .hot_data = hot_d, .sep_gc = separate, .seed = 1,
    };
    struct gc_harness_result res;
    return gc_harness_run(&c, gc_policy_find(policy), &res) ? -1 : res.wa;
}

static void emit(FILE *csv, const char *workload, const char *policy, int sep,
                 const struct result *r)
{
    char model[16] = "     -";
    if (r->model_wa > 0)
        snprintf(model, sizeof model, "%6.3f", r->model_wa);
    printf("  %-8s %-12s sep %d  Sf %.3f  data WA %6.3f  total WA %6.3f  harness %6.3f"
           "  model %s  victims %6" PRIu64 "  %6.1f KiB moved, %.2f ms each\n",
           workload, policy, sep, r->sf, r->data_wa, r->total_wa, r->harness_wa, model,
           r->victims, r->moved_per_victim / 1024, r->sim_ms_per_victim);
    if (csv)
        fprintf(csv, "%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%" PRIu64 ",%.1f,%.4f\n", workload,
                policy, sep, r->sf, r->data_wa, r->total_wa, r->harness_wa, r->model_wa,
                r->victims, r->moved_per_victim, r->sim_ms_per_victim);
}

/* The cleaner's own cost on a large device: 16 GiB (131072 segments of
 * 128 KiB), where a victim pick that scans the segment table costs a pass
 * over all of them.  A 64 MiB file is overwritten at random (256 MiB more),
 * which leaves many part-empty segments; then idle time cleans them one
 * victim per round (greedy, gc_idle_free covering the device) until none
 * is half empty.  Reports victims per wall-clock second of cleaning. */
static int large_device(void)
{
    nand_dev *dev = bench_device(131072, 1);
    if (!dev)
        return -1;
    struct logfs_options o = {
        .reserve_segments = RESERVE, .dirty_bytes = DIRTY, .cache_bytes = 8u << 20,
        .gc_policy = "greedy", .gc_idle_free = 131072,
    };
    logfs *fs;
    if (logfs_mkfs(dev, &o) || logfs_mount(dev, &o, &fs)) {
        nand_close(dev);
        return -1;
    }
    uint8_t buf[FSB] = {0};
    uint64_t nblk = (64u << 20) / FSB;
    int fd = logfs_open(fs, "/f", O_CREAT | O_RDWR, 0644), rc = fd < 0;
    for (uint64_t b = 0; b < nblk && !rc; b++)
        rc = logfs_pwrite(fs, fd, buf, FSB, b * FSB) != FSB;
    for (uint64_t i = 0; i < 4 * nblk && !rc; i++) {
        uint64_t x = next_rand();
        memset(buf, (int)x, 64);
        rc = logfs_pwrite(fs, fd, buf, FSB, (x >> 10) % nblk * FSB) != FSB;
        if (!rc && i % SYNC_EVERY == SYNC_EVERY - 1)
            rc = logfs_sync(fs);
    }
    rc = rc || logfs_sync(fs);
    struct logfs_stats s0, s1;
    logfs_get_stats(fs, &s0);
    double t0 = wall();
    for (int k = 0; k < 64 && !rc; k++)
        rc = logfs_idle(fs, 10ull * 1000000000) != 0;
    double dt = wall() - t0;
    logfs_get_stats(fs, &s1);
    uint64_t v = s1.gc_rounds - s0.gc_rounds;
    if (!rc) {
        printf("  16 GiB (131072 segments), greedy, idle cleaning: %" PRIu64
               " victims in %.3f s wall: %.0f victims/s, %.1f us each\n",
               v, dt, v / dt, dt / (v ? v : 1) * 1e6);
        record("gc_16g_victims_per_s", v / dt, "victims/s");
    }
    if (fd >= 0)
        logfs_close(fs, fd);
    logfs_unmount(fs);
    nand_close(dev);
    return rc || !v ? -1 : 0;
}

int main(void)
{
    if (getenv("BENCH_GC_LARGE_ONLY")) /* just the 16 GiB row */
        return large_device() ? 1 : 0;
    FILE *csv = fopen("results/bench_gc.csv", "w");
    if (csv)
        fprintf(csv, "workload,policy,separate,spare_factor,data_wa,total_wa,harness_wa,"
                     "model_wa,victims,moved_bytes_per_victim,sim_ms_per_victim\n");
    printf("LogFS cleaner: %u blocks of %u KiB, fs block 4 KiB, %u usable segments, "
           "sync every %u writes\n", BLOCKS, SEG_BYTES >> 10, usable_segments(), SYNC_EVERY);
    static const char *const uniform_policies[] = {"greedy", "fifo", "cost-benefit"};
    static const double utils[] = {0.60, 0.70, 0.80};
    for (size_t p = 0; p < 3; p++)
        for (size_t u = 0; u < 3; u++) {
            struct result r = {0};
            if (run_logfs(uniform_policies[p], 0, utils[u], 0, 0, &r)) {
                fprintf(stderr, "bench_gc: %s at %.2f failed\n", uniform_policies[p], utils[u]);
                return 1;
            }
            double a = gc_model_alpha(r.sf);
            r.harness_wa = harness(uniform_policies[p], 0, r.sf, 0, 0);
            r.model_wa = p == 0 ? gc_model_greedy_wa(a, SEG_BYTES / FSB)
                       : p == 1 ? gc_model_fifo_wa(a) : 0;
            emit(csv, "uniform", uniform_policies[p], 0, &r);
            if (p == 0 && u == 2) { /* high utilisation */
                record("gc_greedy_u80_data_wa", r.data_wa, "ratio");
                record("gc_greedy_u80_moved_per_victim", r.moved_per_victim, "bytes");
                record("gc_greedy_u80_ms_per_victim", r.sim_ms_per_victim, "ms");
            }
        }
    static const char *const hc_policies[] = {"greedy", "cost-benefit"};
    for (int sep = 0; sep <= 1; sep++)
        for (size_t p = 0; p < 2; p++) {
            struct result r = {0};
            if (run_logfs(hc_policies[p], sep, 0.80, 0.9, 0.1, &r)) {
                fprintf(stderr, "bench_gc: hot/cold %s failed\n", hc_policies[p]);
                return 1;
            }
            r.harness_wa = harness(hc_policies[p], sep, r.sf, 0.9, 0.1);
            emit(csv, "hot/cold", hc_policies[p], sep, &r);
        }
    if (csv)
        fclose(csv);
    if (large_device()) {
        fprintf(stderr, "bench_gc: 16 GiB cleaning failed\n");
        return 1;
    }
    return 0;
}

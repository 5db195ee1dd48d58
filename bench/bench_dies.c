/*
 * bench_dies.c -- LogFS writing on 1, 2, 4 and 8 dies (fs option
 * parallel = dies; docs/performance.md "Parallel dies").
 *
 * configs/devices/test-64m.yaml (SLC, 2 KiB pages, tPROG 200 us, one
 * channel of 8-bit 40 MHz bus) with dies_per_channel = D and 256 blocks
 * per die.  Sequential: one 8 MiB file written in 4 KiB writes; random:
 * 8 MiB of 4 KiB writes at random 4 KiB-aligned offsets of that file once
 * it exists.  Each ends with a sync; the rate is host bytes over the
 * simulated time the writes and the sync took.  The device's limit is
 * the smaller of D pages per (data in + tPROG) and the channel's one
 * page per data-in time.  The file is read back and compared at the end.
 * Rows go to results/bench.csv.
 */
#include "bench_util.h"
#include "logfs/logfs.h"
#include "nand.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVICE "configs/devices/test-64m.yaml"
#define FILE_BYTES (8u << 20)
#define IO 4096u

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void fill(uint8_t *b, uint64_t seed)
{
    for (uint32_t i = 0; i < IO; i += 8) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        memcpy(b + i, &seed, 8);
    }
}

/* MiB/s of simulated time for `writes` 4 KiB writes (random if rnd). */
static int phase(logfs *fs, nand_dev *d, int fd, uint8_t *model, int rnd, double *mibs)
{
    uint8_t buf[IO];
    uint32_t n = FILE_BYTES / IO;
    nand_time_t t0 = nand_now(d);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = (uint64_t)(rnd ? next_rand() % n : i) * IO;
        fill(buf, next_rand());
        if (logfs_pwrite(fs, fd, buf, IO, off) != IO)
            return -1;
        memcpy(model + off, buf, IO);
    }
    if (logfs_sync(fs))
        return -1;
    double s = (double)(nand_now(d) - t0) / 1e9;
    *mibs = (double)FILE_BYTES / (1 << 20) / s;
    return 0;
}

static int run(uint32_t dies, double *seq, double *rnd, double *limit, double *naive)
{
    struct nand_config cfg;
    char err[256];
    if (nand_config_load(DEVICE, &cfg, err, sizeof err)) {
        fprintf(stderr, "bench_dies: %s\n", err);
        return -1;
    }
    cfg.geo.channels = 1;
    cfg.geo.dies_per_channel = dies;
    cfg.geo.blocks_per_plane = 256;
    cfg.factory_bad_fraction = 0; /* the same blocks on every run */
    const struct nand_timing *t = &cfg.timing;
    double page = cfg.geo.page_size;
    double in_ns = (double)((2 + t->addr_cycles) * t->t_cycle_ns) +
                   (double)(cfg.geo.page_size / t->bus_bytes) * (double)t->t_cycle_ns;
    double die_rate = page / (in_ns + (double)t->t_prog_ns);   /* bytes per ns */
    double bus_rate = page / in_ns;
    double mib = 1e9 / (1 << 20);
    *naive = dies * cfg.geo.planes_per_die * page / (double)t->t_prog_ns * mib;
    *limit = (dies * die_rate < bus_rate ? dies * die_rate : bus_rate) * mib;

    nand_dev *d = NULL;
    if (nand_create(&cfg, &d))
        return -1;
    struct logfs_options o = {.block_size = 4096, .parallel = dies};
    logfs *fs = NULL;
    uint8_t *model = calloc(1, FILE_BYTES), *back = malloc(FILE_BYTES);
    int rc = -1, fd;
    if (!model || !back || logfs_mkfs(d, &o) || logfs_mount(d, &o, &fs))
        goto out;
    if ((fd = logfs_open(fs, "/f", O_RDWR | O_CREAT, 0644)) < 0)
        goto out;
    if (phase(fs, d, fd, model, 0, seq) || phase(fs, d, fd, model, 1, rnd))
        goto out;
    if (logfs_pread(fs, fd, back, FILE_BYTES, 0) != FILE_BYTES ||
        memcmp(back, model, FILE_BYTES)) {
        fprintf(stderr, "bench_dies: %u dies: the file does not read back\n", dies);
        goto out;
    }
    rc = logfs_close(fs, fd);
out:
    if (fs && logfs_unmount(fs))
        rc = -1;
    nand_close(d);
    free(model);
    free(back);
    return rc;
}

int main(void)
{
    static const uint32_t dies[] = {1, 2, 4, 8};
    printf("LogFS on D dies (parallel = D), 4 KiB writes, simulated MiB/s:\n");
    printf("%5s %10s %10s %12s %14s\n", "dies", "seq", "random", "device limit",
           "D*page/tPROG");
    for (unsigned i = 0; i < sizeof dies / sizeof dies[0]; i++) {
        double seq, rnd, limit, naive;
        if (run(dies[i], &seq, &rnd, &limit, &naive))
            return 1;
        printf("%5u %10.2f %10.2f %12.2f %14.2f\n", dies[i], seq, rnd, limit, naive);
        char name[64];
        snprintf(name, sizeof name, "dies_%u_seq_mibs", dies[i]);
        record(name, seq, "MiB/s");
        snprintf(name, sizeof name, "dies_%u_rand_mibs", dies[i]);
        record(name, rnd, "MiB/s");
    }
    return 0;
}

/*
 * bench_mount.c -- the seed article's headline on the simulator: mount of
 * a filled 1 GiB SLC part (configs/devices/olpc-xo1-slc-1g.yaml, the
 * OLPC XO-1's NAND) by LogFS, by the JFFS2-style full scan and by the scan
 * with erase-block summaries, side by side in one run.
 *
 * Each fs gets the same fresh device, the same 3,000 files (sizes 4 KiB to
 * 252 KiB, about 380 MB in all: a root file system's mix), a clean
 * unmount, and then one timed mount.  Reported per fs: simulated mount
 * latency = flash time + the CPU model's time (fsapi_cpu_geode_lx),
 * pages read, RAM held, and the wall-clock time of the mount; then the
 * ratios scan/LogFS.  Rows go to results/bench.csv.  The LWN figures are
 * JFFS2 3.3 s and LogFS 60 ms on the XO-1.
 */
#include "bench_util.h"
#include "fsapi.h"
#include "nand.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFILES 3000
#define DEVICE "configs/devices/olpc-xo1-slc-1g.yaml"

struct result {
    double flash_ms, cpu_ms, wall_ms;
    uint64_t pages_read, ram;
};

static int fill(const struct fsapi *api, void *fs)
{
    static uint8_t buf[252 << 10];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 131 + 7);
    char path[64];
    int rc = 0;
    for (int d = 0; d < 30 && !rc; d++) {
        snprintf(path, sizeof path, "/d%02d", d);
        rc = api->mkdir(fs, path, 0755);
    }
    uint64_t x = 12345;
    for (int i = 0; i < NFILES && !rc; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t size = 4096 * (1 + x % 63);
        snprintf(path, sizeof path, "/d%02d/f%04d", i % 30, i);
        int fd = api->open(fs, path, O_CREAT | O_WRONLY, 0644);
        if (fd < 0)
            return fd;
        buf[0] = (uint8_t)i; /* files differ */
        int64_t n = api->pwrite(fs, fd, buf, size, 0);
        rc = api->close(fs, fd);
        if (n != (int64_t)size)
            return n < 0 ? (int)n : -1;
    }
    return rc;
}

static int measure(const struct fsapi *api, struct result *r)
{
    struct nand_config cfg;
    char err[256];
    if (nand_config_load(DEVICE, &cfg, err, sizeof err)) {
        fprintf(stderr, "bench_mount: %s\n", err);
        return -1;
    }
    cfg.dedup = 1; /* equal pages shared: the fill costs little RAM */
    nand_dev *dev;
    void *fs;
    if (nand_create(&cfg, &dev))
        return -1;
    int rc = api->mkfs(dev, NULL);
    if (!rc)
        rc = api->mount(dev, NULL, &fs);
    if (!rc) {
        rc = fill(api, fs);
        int urc = api->unmount(fs);
        rc = rc ? rc : urc;
    }
    if (!rc) {
        struct nand_stats a, b;
        nand_wait(dev); /* the unmount's queued operations are not the mount's */
        nand_get_stats(dev, &a);
        nand_time_t t0 = nand_now(dev);
        double w0 = wall();
        rc = api->mount(dev, NULL, &fs);
        r->wall_ms = (wall() - w0) * 1e3;
        nand_get_stats(dev, &b);
        if (!rc) {
            struct fsapi_mount_work work;
            api->mount_work(fs, &work);
            r->flash_ms = (double)(nand_now(dev) - t0) / 1e6;
            r->cpu_ms = fsapi_cpu_ns(&fsapi_cpu_geode_lx, &work) / 1e6;
            r->pages_read = b.reads - a.reads;
            r->ram = api->mem_bytes(fs);
            api->unmount(fs);
        }
    }
    if (rc)
        fprintf(stderr, "bench_mount: %s failed: %d\n", api->name, rc);
    nand_close(dev);
    return rc;
}

int main(void)
{
    static const char *const names[] = {"logfs", "jffs2-scan", "jffs2-summary"};
    struct result r[3];
    printf("mount of a filled 1 GiB SLC part (%s), %d files, clean unmount first;\n"
           "simulated latency = flash time + CPU model (%s)\n", DEVICE, NFILES,
           fsapi_cpu_geode_lx.name);
    for (int i = 0; i < 3; i++) {
        const struct fsapi *api = fsapi_find(names[i]);
        if (!api || measure(api, &r[i]))
            return 1;
        printf("  %-14s %9.1f ms simulated (flash %8.1f + cpu %7.1f), %7" PRIu64
               " pages read, RAM %7.1f KiB, wall %7.2f ms\n", names[i],
               r[i].flash_ms + r[i].cpu_ms, r[i].flash_ms, r[i].cpu_ms, r[i].pages_read,
               (double)r[i].ram / 1024, r[i].wall_ms);
        char key[64];
        snprintf(key, sizeof key, "mount_1g_%s_sim", names[i]);
        record(key, r[i].flash_ms + r[i].cpu_ms, "ms");
        snprintf(key, sizeof key, "mount_1g_%s_wall", names[i]);
        record(key, r[i].wall_ms, "ms");
    }
    double sim_ratio = (r[1].flash_ms + r[1].cpu_ms) / (r[0].flash_ms + r[0].cpu_ms);
    double wall_ratio = r[1].wall_ms / r[0].wall_ms;
    printf("scan / LogFS: %.0fx simulated (LWN: 3.3 s / 60 ms = 55x; goal >= 50x), %.0fx wall\n",
           sim_ratio, wall_ratio);
    printf("summary / LogFS: %.0fx simulated\n",
           (r[2].flash_ms + r[2].cpu_ms) / (r[0].flash_ms + r[0].cpu_ms));
    record("mount_1g_scan_over_logfs_sim", sim_ratio, "ratio");
    record("mount_1g_scan_over_logfs_wall", wall_ratio, "ratio");
    return 0;
}

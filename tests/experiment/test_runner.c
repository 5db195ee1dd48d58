/*
 * test_runner.c -- the runner with every file system of the fsapi table
 * (fs.kind): each fills a device with the rootfs mix, and its measured
 * mounts (clean, and after a power cut) land in the mounts table.  The
 * mount-latency result in small: LogFS reads the same few pages at every
 * device size and after a crash, the full scan reads every used page and
 * grows with the device, the summaries cut the scan's reads; and the
 * in-place baseline writes and erases far more for the same host bytes,
 * on few blocks (its hot spot).
 */
#include "experiment.h"
#include "results.h"
#include "runner.h"
#include "fixture.h"
#include "run_one.h"

#include <sqlite3.h>
#include <string.h>


struct mount_row {
    int64_t device_bytes, latency, flash, cpu, pages, ram;
    double fill;
};

/* The run's mount row (clean or not); 0 if it is there. */
static int mount_of(struct results *db, int64_t run_id, int clean, const char *kind,
                    struct mount_row *m)
{
    sqlite3 *h = (sqlite3 *)results_db(db);
    sqlite3_stmt *st;
    int rc = -1;
    if (sqlite3_prepare_v2(h, "select device_bytes, sim_latency_ns, flash_time_ns, cpu_time_ns,"
                           " pages_read, ram_bytes, fill_fraction, fs_kind from mounts"
                           " where run_id = ? and clean = ?", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, clean);
    if (sqlite3_step(st) == SQLITE_ROW &&
        !strcmp((const char *)sqlite3_column_text(st, 7), kind)) {
        *m = (struct mount_row){
            sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
            sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
            sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
            sqlite3_column_double(st, 6)};
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1; /* exactly one */
    }
    sqlite3_finalize(st);
    return rc;
}

static double query_double(struct results *db, const char *sql, int64_t run_id)
{
    sqlite3 *h = (sqlite3 *)results_db(db);
    sqlite3_stmt *st;
    double v = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* JFFS2 without compression: the content-light payload is mostly one byte
 * value, which LZO would shrink to nothing, and the fill is checked below */
#define ROOTFS(kind, bpp)                                                            \
    "device: {file: configs/devices/test-64m.yaml, blocks_per_plane: " bpp         \
    ", dedup: true}\n"                                                               \
    "fs: {kind: " kind "%s}\n"                                                       \
    "workload: {kind: rootfs, fill: 0.5, content_light: true, dirs: 16}\n"           \
    "stop: {ops: 200}\n"                                                             \
    "mount: {unclean: true}\n"

static const char *const kinds[] = {"logfs", "jffs2-scan", "jffs2-summary"};

TEST(mounts_of_every_fs_at_two_sizes)
{
    struct results *db;
    char err[512];
    REQUIRE(results_open(tmp_path("m.db"), &db, err, sizeof err) == 0);
    struct mount_row m[3][2][2]; /* [fs][size][clean] */
    for (int k = 0; k < 3; k++) {
        char yaml[1024];
        for (int z = 0; z < 2; z++) {
            snprintf(yaml, sizeof yaml, z ? ROOTFS("%s", "1024") : ROOTFS("%s", "256"),
                     kinds[k], k ? ", options: \"compress=none\"" : "");
            int64_t id = run_one(db, yaml);
            REQUIRE(id > 0);
            for (int c = 0; c < 2; c++)
                REQUIRE(mount_of(db, id, c, kinds[k], &m[k][z][c]) == 0);
        }
    }
    for (int k = 0; k < 3; k++)
        for (int z = 0; z < 2; z++) {
            fprintf(stderr, "%-14s %4lld MiB: clean %9.2f ms %7lld pages, unclean %9.2f ms "
                    "%7lld pages, RAM %lld\n", kinds[k],
                    (long long)(m[k][z][1].device_bytes >> 20), m[k][z][1].latency / 1e6,
                    (long long)m[k][z][1].pages, m[k][z][0].latency / 1e6,
                    (long long)m[k][z][0].pages, (long long)m[k][z][1].ram);
            for (int c = 0; c < 2; c++) {
                const struct mount_row *r = &m[k][z][c];
                CHECK(r->fill > 0.4 && r->fill < 0.6); /* the same fill at both sizes */
                CHECK_EQ_INT(r->latency, r->flash + r->cpu); /* nothing else on the chip */
                CHECK(r->ram > 0);
                CHECK(k ? r->cpu > 0 : r->cpu == 0); /* LogFS indexes nothing at mount */
            }
            CHECK_EQ_INT(m[k][z][0].device_bytes, m[k][z][1].device_bytes);
        }
    for (int z = 0; z < 2; z++) {
        /* LogFS: the anchor and the root, crash or not, at any size */
        CHECK(m[0][z][1].pages < 32);
        CHECK_EQ_INT(m[0][z][0].pages, m[0][z][1].pages);
        /* the scan reads every used page: about half the device */
        int64_t dev_pages = m[1][z][1].device_bytes / 2048;
        CHECK(m[1][z][1].pages > dev_pages * 4 / 10);
        /* summaries: far fewer reads, though each blank block costs its
         * last page, page 0 and 5 spare-only reads, as in Linux */
        CHECK(m[2][z][1].pages * 4 < m[1][z][1].pages);
        CHECK(m[2][z][1].flash * 5 < m[1][z][1].flash);
        CHECK(m[1][z][1].latency > 100 * m[0][z][1].latency);
    }
    /* 4x the device: LogFS flat (same pages, RAM), the scan about 4x */
    CHECK_EQ_INT(m[0][1][1].pages, m[0][0][1].pages);
    CHECK_EQ_INT(m[0][1][1].ram, m[0][0][1].ram);
    CHECK(m[0][1][1].latency < 2 * m[0][0][1].latency);
    double grow = (double)m[1][1][1].latency / (double)m[1][0][1].latency;
    CHECK(grow > 3.0 && grow < 6.0);
    CHECK(m[1][1][1].ram > 2 * m[1][0][1].ram); /* its maps grow with the files */
    results_close(db);
}

/* The in-place baseline beside LogFS under the same small random
 * overwrites: many times the flash writes and erases, on few blocks. */
TEST(the_in_place_baseline_writes_more_on_fewer_blocks)
{
    struct results *db;
    char err[512];
    REQUIRE(results_open(tmp_path("w.db"), &db, err, sizeof err) == 0);
    static const char *const yaml[2] = {
        "device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 256}\n"
        "fs: {kind: logfs}\n"
        "workload: {kind: hotcold, fill: 0.5, request_size: 4K, sync_every: 16}\n"
        "stop: {host_bytes: 8M}\nsample: {every_host_bytes: 4M, erase_snapshots: 1}\n",
        "device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 256}\n"
        "fs: {kind: blockfs}\n"
        "workload: {kind: hotcold, fill: 0.5, request_size: 4K, sync_every: 16}\n"
        "stop: {host_bytes: 8M}\nsample: {every_host_bytes: 4M, erase_snapshots: 1}\n",
    };
    double wa[2], erases[2], max_share[2];
    for (int i = 0; i < 2; i++) {
        int64_t id = run_one(db, yaml[i]);
        REQUIRE(id > 0);
        wa[i] = query_double(db, "select wa from samples where run_id = ? order by seq desc "
                             "limit 1", id);
        erases[i] = query_double(db, "select sum(erases) from erase_counts where run_id = ?",
                                 id);
        /* the share of all erases that the most-erased 2% of blocks took */
        max_share[i] = query_double(db, "select sum(erases) * 1.0 / (select sum(erases) from "
                                    "erase_counts where run_id = ?1) from (select erases from "
                                    "erase_counts where run_id = ?1 order by erases desc "
                                    "limit 10)", id);
    }
    fprintf(stderr, "WA logfs %.2f blockfs %.2f; erases %.0f vs %.0f; top-10 blocks' share "
            "of erases %.2f vs %.2f\n", wa[0], wa[1], erases[0], erases[1], max_share[0],
            max_share[1]);
    CHECK(wa[0] > 0.9 && wa[0] < 4);
    CHECK(wa[1] > 5 * wa[0]);
    CHECK(erases[1] > 5 * erases[0]);
    CHECK(max_share[1] > 2 * max_share[0]);
    results_close(db);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("runner") || tmp_link_configs())
        return 1;
    RUN(mounts_of_every_fs_at_two_sizes);
    RUN(the_in_place_baseline_writes_more_on_fewer_blocks);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

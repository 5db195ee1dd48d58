/*
 * test_powercut.c -- the power-cut campaign engine (workloads/powercut.c):
 * an exhaustive campaign over a short workload passes and checks every
 * flash operation; a sampled one with cuts inside operations and second
 * cuts during recovery passes; the outcomes are in the database; and a
 * recovery that is broken on purpose is caught at every point.
 */
#include "experiment.h"
#include "powercut.h"
#include "results.h"
#include "test.h"

#include <sqlite3.h>

#include "tmpdir.h"

/* A small device: 128 blocks of 64 pages (16 MiB), churn of small files with an
 * fsync after every 3rd write and a sync every 10 calls. */
#define CAMPAIGN(extra)                                                          \
    "device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 128}\n" \
    "fs: {reserve: 4, dirty: 64K, block_size: 1024}\n"                        \
    "workload: {kind: churn, fill: 0.3, max_files: 40, dirs: 3,\n"             \
    "           file_size: {min: 100, max: 6000}, request_size: {min: 10, max: 3000},\n" \
    "           fsync_every: 3, sync_every: 10}\n"                             \
    "stop: {ops: 400}\n" extra

/* Failures go to stderr, or nowhere when they are the point of the test. */
static int run_campaign(const char *yaml, pc_fsck_fn fsck, struct pc_summary *sum,
                        struct results *db, int64_t run_id)
{
    FILE *quiet = fsck ? fopen("/dev/null", "w") : NULL;
    const char *p = tmp_write("pc.yaml", yaml);
    char err[1024] = "";
    struct experiment *e;
    if (!p || experiment_load(p, &e, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    struct exp_run r;
    int rc = experiment_run(e, 0, &r, err, sizeof err);
    struct pc_options o = {.jobs = 2, .repro = -1, .fsck = fsck, .log = quiet ? quiet : stderr};
    if (!rc)
        rc = powercut_run(&r, db, run_id, &o, sum, err, sizeof err);
    if (rc)
        fprintf(stderr, "campaign: %s\n", err);
    exp_run_free(&r);
    experiment_free(e);
    if (quiet)
        fclose(quiet);
    return rc;
}

TEST(exhaustive_campaign_passes_at_every_operation)
{
    struct pc_summary s;
    REQUIRE(run_campaign(CAMPAIGN("powercut: {within: false}\n"), NULL, &s, NULL, 0) == 0);
    fprintf(stderr, "exhaustive: %" PRIu64 " calls, %" PRIu64 " flash ops, %" PRIu64
            " commit points, %" PRIu64 " cut points, %" PRIu64 " failed\n",
            s.calls, s.flash_ops, s.commits, s.points, s.failed);
    CHECK(s.flash_ops > 500);
    CHECK(s.commits > 10);
    CHECK_EQ_INT(s.points, s.flash_ops); /* every operation */
    CHECK_EQ_INT(s.failed, 0);
}

TEST(sampled_torn_cuts_with_second_cuts_pass_and_are_recorded)
{
    const char *db_path = tmp_path("pc.db");
    struct results *db;
    char err[512];
    int64_t exp_id, run_id;
    REQUIRE(results_open(db_path, &db, err, sizeof err) == 0);
    REQUIRE(results_begin_experiment(db, "pc", "pc.yaml", "x", NULL, &exp_id) == 0);
    REQUIRE(results_begin_run(db, exp_id, 0, "{}", 1, NULL, &run_id) == 0);
    struct pc_summary s;
    REQUIRE(run_campaign(CAMPAIGN("powercut: {sample: 150, within: true, second_cuts: 40}\n"),
                         NULL, &s, db, run_id) == 0);
    CHECK_EQ_INT(s.points, 150);
    CHECK(s.second > 20 && s.second <= 40); /* sampled with repeats */
    CHECK_EQ_INT(s.failed, 0);
    REQUIRE(results_end_run(db, run_id, RESULTS_COMPLETE, NULL) == 0);
    sqlite3 *h = (sqlite3 *)results_db(db);
    REQUIRE(h);
    sqlite3_stmt *st;
    REQUIRE(sqlite3_prepare_v2(h, "select count(*), count(distinct cut_point), "
                               "sum(outcome = 'ok'), sum(cut_kind like '%+second') "
                               "from powercuts", -1, &st, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int(st, 0), 150);
    CHECK_EQ_INT(sqlite3_column_int(st, 1), 150);
    CHECK_EQ_INT(sqlite3_column_int(st, 2), 150);
    CHECK_EQ_INT(sqlite3_column_int64(st, 3), (int64_t)s.second);
    sqlite3_finalize(st);
    results_close(db);
}

/* A "checker" that wrecks the device instead: erasing every block but the
 * superblock's (the anchor ring with them) makes every recovery fail to
 * mount, and the campaign must say so. */
static int wreck(nand_dev *dev, char *msg, size_t len)
{
    uint64_t n = nand_blocks(nand_get_config(dev));
    for (nand_block_t b = 1; b < n; b++)
        nand_erase(dev, b, NULL);
    (void)msg;
    (void)len;
    return 0;
}

/* One that adds a file behind the checker's back: the recovered state is
 * then no commit point of the reference run. */
static int meddle(nand_dev *dev, char *msg, size_t len)
{
    logfs *fs;
    struct logfs_options o = {.reserve_segments = 4, .dirty_bytes = 64 << 10};
    (void)msg;
    (void)len;
    if (logfs_mount(dev, &o, &fs) == 0) {
        logfs_mkdir(fs, "/intruder", 0755);
        logfs_unmount(fs);
    }
    return 0;
}

TEST(a_broken_recovery_is_caught)
{
    struct pc_summary s;
    REQUIRE(run_campaign(CAMPAIGN("powercut: {every: 25}\n"), wreck, &s, NULL, 0) == 0);
    CHECK(s.points > 5);
    CHECK_EQ_INT(s.failed, s.points);
    REQUIRE(run_campaign(CAMPAIGN("powercut: {every: 40}\n"), meddle, &s, NULL, 0) == 0);
    CHECK(s.points > 5);
    CHECK_EQ_INT(s.failed, s.points);
}

int main(int argc, char **argv)
{
    (void)argc;
    if (tmp_dir_make("pc"))
        return 1;
    RUN(exhaustive_campaign_passes_at_every_operation);
    RUN(sampled_torn_cuts_with_second_cuts_pass_and_are_recorded);
    RUN(a_broken_recovery_is_caught);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

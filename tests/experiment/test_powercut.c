/*
 * test_powercut.c -- the power-cut campaign engine (experiment/powercut.c):
 * an exhaustive campaign over a short workload passes and checks every
 * flash operation; a sampled one with cuts inside operations and second
 * cuts during recovery passes; the outcomes are in the database; a
 * recovery that is broken on purpose is caught at every point, and each
 * failure is printed with a reproducer that reproduces it; and the
 * baselines, run the same way, lose what the docs say they lose; with
 * compressed data blocks (zlib, lzo) every point passes, fsck included.
 */
#include "experiment.h"
#include "logfs/logfs.h"
#include "powercut.h"
#include "results.h"
#include "fsck.h"
#include "fixture.h"

#include <sqlite3.h>


/* A small device: 128 blocks of 64 pages (16 MiB), churn of small files with an
 * fsync after every 3rd write and a sync every 10 calls; fs is the `fs:`
 * line, ops the calls. */
#define CAMPAIGN(extra) \
    CAMPAIGN_FS("fs: {reserve: 4, dirty: 64K, block_size: 1024}\n", "400", extra)
#define CAMPAIGN_FS(fs, ops, extra)                                                   \
    "device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 128}\n" \
    fs                                                                         \
    "workload: {kind: churn, fill: 0.3, max_files: 40, dirs: 3,\n"             \
    "           file_size: {min: 100, max: 6000}, request_size: {min: 10, max: 3000},\n" \
    "           fsync_every: 3, sync_every: 10}\n"                             \
    "stop: {ops: " ops "}\n" extra

/* The campaign of yaml with options o (o->log NULL: stderr). */
static int run_campaign_with(const char *yaml, const struct pc_options *o,
                             struct pc_summary *sum, struct results *db, int64_t run_id)
{
    const char *p = tmp_write("pc.yaml", yaml);
    char err[1024] = "";
    struct experiment *e;
    if (!p || experiment_load(p, &e, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    struct exp_run r;
    int rc = experiment_run(e, 0, &r, err, sizeof err);
    if (!rc)
        rc = exp_powercut_run(&r, db, run_id, o, sum, err, sizeof err);
    if (rc)
        fprintf(stderr, "campaign: %s\n", err);
    exp_run_free(&r);
    experiment_free(e);
    return rc;
}

/* Failures go to stderr, or nowhere when they are the point of the test. */
static int run_campaign(const char *yaml, pc_fsck_fn fsck, struct pc_summary *sum,
                        struct results *db, int64_t run_id)
{
    FILE *quiet = fsck ? fopen("/dev/null", "w") : NULL;
    struct pc_options o = {.jobs = 2, .repro = -1, .fsck = fsck, .log = quiet ? quiet : stderr};
    int rc = run_campaign_with(yaml, &o, sum, db, run_id);
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

/* The text of the file at path (at most n - 1 bytes). */
static void slurp(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(buf, 1, n - 1, f) : 0;
    buf[got] = 0;
    if (f)
        fclose(f);
}

TEST(a_failure_prints_a_reproducer_that_reproduces_it)
{
    static char text[1 << 16];
    struct pc_summary s;
    FILE *log = fopen(tmp_path("pc.log"), "w");
    REQUIRE(log);
    struct pc_options o = {.jobs = 2, .repro = -1, .fsck = meddle, .log = log,
                           .repro_cmd = "REPRO"};
    int rc = run_campaign_with(CAMPAIGN("powercut: {every: 40}\n"), &o, &s, NULL, 0);
    fclose(log);
    REQUIRE(rc == 0);
    REQUIRE(s.failed > 0);
    slurp(tmp_path("pc.log"), text, sizeof text);
    unsigned long long point = 0, call = 0;
    const char *at = strstr(text, "cut point ");
    REQUIRE(at && sscanf(at, "cut point %llu (call %llu): wrong-state:", &point, &call) == 2);
    char want[64];
    snprintf(want, sizeof want, "  reproduce: REPRO %llu\n", point);
    CHECK(strstr(text, want) != NULL);
    /* --repro: that point alone, in-process, fails the same way */
    REQUIRE((log = fopen(tmp_path("repro.log"), "w")) != NULL);
    o = (struct pc_options){.jobs = 1, .repro = (int64_t)point, .fsck = meddle, .log = log};
    rc = run_campaign_with(CAMPAIGN("powercut: {every: 40}\n"), &o, &s, NULL, 0);
    fclose(log);
    REQUIRE(rc == 0);
    CHECK_EQ_INT(s.points, 1);
    CHECK_EQ_INT(s.failed, 1);
    slurp(tmp_path("repro.log"), text, sizeof text);
    snprintf(want, sizeof want, "cut point %llu (call %llu): wrong-state", point, call);
    CHECK(strstr(text, want) != NULL);
}

/* The outcomes of the campaign in db's run run_id: count of outcome. */
static int outcomes(struct results *db, int64_t run_id, const char *outcome)
{
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_prepare_v2((sqlite3 *)results_db(db), "select count(*) from powercuts "
                           "where run_id = ? and outcome = ?", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, outcome, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* The baselines in the same campaign (no fsck: it reads LogFS only).  The
 * in-place block fs loses data: a cut while it rewrites an erase block
 * takes the block's other contents with it, so recoveries fail to mount,
 * cannot read files or come back in a state no prefix of the calls made.
 * The JFFS2-style log always mounts and reads: what it can get wrong is
 * only which calls survived (a rename is two nodes, so a cut between them
 * leaves both names). */
TEST(baselines_in_campaigns)
{
    struct results *db;
    char err[512];
    int64_t exp_id, run_id[2];
    REQUIRE(results_open(tmp_path("base.db"), &db, err, sizeof err) == 0);
    REQUIRE(results_begin_experiment(db, "pc", "pc.yaml", "x", NULL, &exp_id) == 0);
    static const char *const fs[2] = {"fs: {kind: blockfs}\n", "fs: {kind: jffs2-scan}\n"};
    struct pc_summary s[2];
    for (int i = 0; i < 2; i++) {
        char yaml[2048];
        snprintf(yaml, sizeof yaml,
                 CAMPAIGN_FS("%s", "120", "powercut: {sample: 50, within: true}\n"), fs[i]);
        REQUIRE(results_begin_run(db, exp_id, i, "{}", 1, NULL, &run_id[i]) == 0);
        FILE *quiet = fopen("/dev/null", "w"); /* the failures are the point */
        struct pc_options o = {.jobs = 2, .repro = -1, .log = quiet};
        int rc = run_campaign_with(yaml, &o, &s[i], db, run_id[i]);
        if (quiet)
            fclose(quiet);
        REQUIRE(rc == 0);
        CHECK_EQ_INT(s[i].points, 50);
        CHECK_EQ_INT(s[i].commits, s[i].calls + 1); /* every call, and the start */
        REQUIRE(results_end_run(db, run_id[i], RESULTS_COMPLETE, NULL) == 0);
    }
    int lost = outcomes(db, run_id[0], "mount-failed") + outcomes(db, run_id[0], "unreadable");
    fprintf(stderr, "blockfs: %" PRIu64 " flash ops for %" PRIu64 " calls, %" PRIu64 " of 50 "
            "failed (%d lost files or the fs); jffs2-scan: %" PRIu64 " of 50 failed\n",
            s[0].flash_ops, s[0].calls, s[0].failed, lost, s[1].failed);
    CHECK(s[0].flash_ops > 20 * s[1].flash_ops); /* read-modify-erase-write */
    CHECK(s[0].failed > 10);
    CHECK(lost > 3);
    CHECK_EQ_INT(outcomes(db, run_id[1], "mount-failed") + outcomes(db, run_id[1], "unreadable") +
                 outcomes(db, run_id[1], "stuck"), 0);
    CHECK_EQ_INT(outcomes(db, run_id[1], "ok") + outcomes(db, run_id[1], "wrong-state"), 50);
    results_close(db);
}

/* fsck as the campaign's checker wants it (as flashlab powercut runs it) */
static int real_fsck(nand_dev *dev, char *msg, size_t len)
{
    struct fsck_report rep;
    int rc = fsck_run(dev, 0, &rep);
    if (rc)
        snprintf(msg, len, "fsck exit %d, %u errors", rc, rep.nerrors);
    fsck_report_free(&rep);
    return rc;
}

/* Compressed data blocks (zlib, lzo) of 60%-compressible data: every cut
 * point recovers a commit's state, which fsck, decoding every compressed
 * object itself, finds clean. */
TEST(compressed_campaigns_pass)
{
    static const char *const methods[] = {"zlib", "lzo"};
    for (int i = 0; i < 2; i++) {
        char yaml[2048];
        snprintf(yaml, sizeof yaml,
                 "device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 64}\n"
                 "fs: {reserve: 4, dirty: 64K, block_size: 1024, compress: %s}\n"
                 "workload: {kind: churn, fill: 0.3, max_files: 30, dirs: 3,\n"
                 "           file_size: {min: 100, max: 6000}, request_size: {min: 10, max: 3000},\n"
                 "           compressible: 0.6, fsync_every: 3, sync_every: 10}\n"
                 "stop: {ops: 150}\n"
                 "powercut: {every: 3, within: true, second_cuts: 10}\n", methods[i]);
        struct pc_options o = {.jobs = 2, .repro = -1, .fsck = real_fsck, .log = stderr};
        struct pc_summary sum;
        REQUIRE(run_campaign_with(yaml, &o, &sum, NULL, 0) == 0);
        fprintf(stderr, "%s: %" PRIu64 " cut points, %" PRIu64 " failed\n", methods[i],
                sum.points, sum.failed);
        CHECK(sum.points > 50);
        CHECK_EQ_INT(sum.failed, 0);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("pc") || tmp_link_configs())
        return 1;
    RUN(exhaustive_campaign_passes_at_every_operation);
    RUN(sampled_torn_cuts_with_second_cuts_pass_and_are_recorded);
    RUN(a_broken_recovery_is_caught);
    RUN(a_failure_prints_a_reproducer_that_reproduces_it);
    RUN(baselines_in_campaigns);
    RUN(compressed_campaigns_pass);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

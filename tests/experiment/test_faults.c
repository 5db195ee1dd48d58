/*
 * test_faults.c -- media-fault campaigns (experiment/faults.c)
 * and LogFS's page map (fsck/pagemap.c): after a workload every page is
 * classified, every class the workload makes is found, the classes agree
 * with LogFS's own block roles, and a fault on a page does what its class
 * says (a file-data page's file reads EIO, a stale page harms nothing);
 * the outcome accounting; and a campaign whose rows, counts and crash
 * handling add up.
 */
#include "experiment.h"
#include "faults.h"
#include "fsck.h"
#include "results.h"
#include "fixture.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>

/* The workload of configs/faults-logfs.yaml: files of 2.2-3 MiB in
 * 512-byte blocks (three indirect levels) in three directories. */
#define CAMPAIGN(faults)                                                                   \
    "device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 128,"                 \
    " initial_pe: 50000}\n"                                                                \
    "fs: {reserve: 4, block_size: 512}\n"                                                  \
    "workload: {kind: churn, fill: 0.7, max_files: 8, dirs: 3,\n"                          \
    "           file_size: {min: 2200K, max: 3M}, request_size: {min: 10, max: 64K},\n"   \
    "           fsync_every: 5, sync_every: 10}\n"                                         \
    "stop: {ops: 300}\n" faults

static int load_run(const char *yaml, struct experiment **e, struct exp_run *r)
{
    const char *p = tmp_write("faults.yaml", yaml);
    char err[1024] = "";
    if (!p || experiment_load(p, e, err, sizeof err) || experiment_run(*e, 0, r, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int fsck_map(nand_dev *dev, uint8_t *cls, const char *const **names, char *err,
                    size_t errlen)
{
    static const char *list[FSCK_PG_CLASSES + 1];
    for (int i = 0; i < FSCK_PG_CLASSES; i++)
        list[i] = fsck_page_class_name(i);
    *names = list;
    (void)err;
    (void)errlen;
    return fsck_page_map(dev, cls);
}

/* The files under the root, read whole: how many read with an error. */
static int unreadable_files(struct exp_mounted *m, const char *const *paths, int n)
{
    int bad = 0;
    static char buf[1 << 16];
    for (int i = 0; i < n; i++) {
        int fd = m->fs.api->open(m->fs.fs, paths[i], O_RDONLY, 0);
        int64_t got = 1;
        for (uint64_t off = 0; fd >= 0 && got > 0; off += (uint64_t)got)
            got = m->fs.api->pread(m->fs.fs, fd, buf, sizeof buf, off);
        bad += fd < 0 || got < 0;
        if (fd >= 0)
            m->fs.api->close(m->fs.fs, fd);
    }
    return bad;
}

struct names { char *v[64]; int n; const char *dir; };

static int collect(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct names *l = ctx;
    (void)ino;
    (void)type;
    if (l->n < 64 && (l->v[l->n] = malloc(strlen(l->dir) + strlen(name) + 2)))
        sprintf(l->v[l->n++], "%s/%s", l->dir, name);
    return 0;
}

TEST(faults_page_map_classifies_every_page_and_agrees_with_the_fs)
{
    struct experiment *e;
    struct exp_run r;
    REQUIRE(load_run(CAMPAIGN("faults: {points: 1}\n"), &e, &r) == 0);
    char err[1024] = "";
    nand_dev *dev = NULL;
    REQUIRE(exp_faults_build_device(&r, &dev, err, sizeof err) == 0);
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ppb = c->geo.pages_per_block;
    uint64_t nb = nand_blocks(c), np = nb * ppb;
    uint8_t *cls = malloc(np);
    REQUIRE(cls);
    memset(cls, 0xee, np);
    REQUIRE(fsck_page_map(dev, cls) == 0);
    uint64_t count[FSCK_PG_CLASSES] = {0};
    int unclassified = 0;
    for (uint64_t pg = 0; pg < np; pg++) {
        if (cls[pg] >= FSCK_PG_CLASSES)
            unclassified++;
        else
            count[cls[pg]]++;
    }
    CHECK_EQ_INT(unclassified, 0);
    for (int k = 0; k < FSCK_PG_CLASSES; k++)
        fprintf(stderr, "  %-13s %6llu pages\n", fsck_page_class_name(k),
                (unsigned long long)count[k]);
    /* what this workload makes: every class but the two deepest indirect
     * levels (files of at most 3 MiB) and bad blocks (none grew) */
    for (int k = 0; k < FSCK_PG_CLASSES; k++)
        if (k != FSCK_PG_INDIRECT4 && k != FSCK_PG_INDIRECT5)
            CHECK(count[k] > 0 || k == FSCK_PG_BAD);
    /* free means not programmed (before a mount writes its anchor record) */
    int free_programmed = 0, role_mismatch = 0;
    for (uint64_t b = 0; b < nb; b++) {
        struct nand_block_info bi;
        REQUIRE(nand_block_info(dev, (nand_block_t)b, &bi) == 0);
        for (uint32_t p = 0; p < bi.pages_programmed && p < ppb; p++)
            free_programmed += cls[b * ppb + p] == FSCK_PG_FREE;
    }
    CHECK_EQ_INT(free_programmed, 0);
    /* the classes agree with LogFS's own roles of the blocks */
    struct exp_mounted m = {0};
    REQUIRE(exp_run_mount(&r, dev, &m) == 0);
    for (uint64_t b = 0; b < nb; b++) {
        const char *role = fsapi_block_role(&m.fs, (uint32_t)b);
        for (uint32_t p = 0; p < ppb; p++) {
            uint8_t k = cls[b * ppb + p];
            if (k == FSCK_PG_BAD || k == FSCK_PG_FREE)
                continue;
            const char *want = k == FSCK_PG_ANCHOR ? "anchor"
                             : k == FSCK_PG_SUPER  ? "superblock" : "segment";
            role_mismatch += strcmp(role, want) != 0 && k != FSCK_PG_STALE;
        }
    }
    CHECK_EQ_INT(role_mismatch, 0);
    /* the files, for the behaviour checks below */
    struct names files = {.n = 0};
    struct names dirs = {.n = 0, .dir = "/churn"}; /* the churn's directories */
    uint64_t cookie = 0;
    REQUIRE(m.fs.api->readdir(m.fs.fs, "/churn", &cookie, collect, &dirs) == 0);
    for (int i = 0; i < dirs.n; i++) {
        struct names sub = {.n = 0, .dir = dirs.v[i]};
        cookie = 0;
        if (m.fs.api->readdir(m.fs.fs, dirs.v[i], &cookie, collect, &sub) == 0)
            for (int j = 0; j < sub.n && files.n < 64; j++)
                files.v[files.n++] = sub.v[j];
        else
            for (int j = 0; j < sub.n; j++)
                free(sub.v[j]);
    }
    CHECK(files.n > 0);
    CHECK_EQ_INT(unreadable_files(&m, (const char *const *)files.v, files.n), 0);
    exp_run_unmount(&m);
    /* an uncorrectable stale page harms nothing; a file-data page's file
     * reads EIO (each on a snapshot of the same device) */
    nand_snapshot *snap;
    REQUIRE(nand_snapshot_take(dev, &snap) == 0);
    for (int k = FSCK_PG_STALE; k >= FSCK_PG_DATA; k -= FSCK_PG_STALE - FSCK_PG_DATA) {
        uint64_t pg = 0;
        while (pg < np && cls[pg] != k)
            pg++;
        REQUIRE(pg < np);
        REQUIRE(nand_snapshot_restore(dev, snap) == 0);
        struct nand_corrupt cor = {.mode = NAND_CORRUPT_UNCORRECTABLE,
                                   .block = (nand_block_t)(pg / ppb),
                                   .page = (nand_page_t)(pg % ppb), .seed = 1};
        REQUIRE(nand_corrupt(dev, &cor, err, sizeof err) == 0);
        REQUIRE(exp_run_mount(&r, dev, &m) == 0);
        int bad = unreadable_files(&m, (const char *const *)files.v, files.n);
        fprintf(stderr, "uncorrectable %s page: %d of %d files unreadable\n",
                fsck_page_class_name(k), bad, files.n);
        if (k == FSCK_PG_STALE)
            CHECK_EQ_INT(bad, 0);
        else
            CHECK_EQ_INT(bad, 1);
        exp_run_unmount(&m);
    }
    nand_snapshot_free(snap);
    for (int i = 0; i < files.n; i++)
        free(files.v[i]);
    for (int i = 0; i < dirs.n; i++)
        free(dirs.v[i]);
    free(cls);
    nand_close(dev);
    exp_run_free(&r);
    experiment_free(e);
}

TEST(faults_outcome_accounting)
{
    struct fault_result r = {0};
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_NA);
    r.applied = 1;
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_REFUSED);
    r.mounted = 1;
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_OK);
    r.files_eio = 2;
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_EIO);
    r.files_missing = 1; /* gone without a word: lost, unless a rollback was flagged */
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_LOST);
    r.flagged = 1;
    r.rolled_back = 1;
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_ROLLED_BACK);
    r.files_wrong = 1;
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_WRONG);
    r.flagged = 0;
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_SILENT_ROLLBACK);
    r.crashed = 1;
    CHECK_EQ_INT(exp_fault_outcome_of(&r), FO_CRASH);
    int nbad = 0;
    for (int o = 0; o < FO_COUNT; o++) {
        CHECK(exp_fault_outcome_name(o) != NULL);
        nbad += exp_fault_outcome_bad(o);
    }
    CHECK_EQ_INT(nbad, 4);
    CHECK(exp_fault_outcome_bad(FO_WRONG) && exp_fault_outcome_bad(FO_CRASH) &&
          exp_fault_outcome_bad(FO_SILENT_ROLLBACK) && exp_fault_outcome_bad(FO_LOST));
    CHECK(exp_fault_outcome_name(FO_COUNT) == NULL);
}

static int64_t count_rows(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

TEST(faults_campaign_rows_and_counts_add_up)
{
    struct experiment *e;
    struct exp_run r;
    REQUIRE(load_run(CAMPAIGN("faults: {kinds: [uncorrectable, silent, retention], points: 2}\n"),
                     &e, &r) == 0);
    const char *dbp = tmp_path("faults.db");
    char err[1024] = "";
    struct results *db;
    int64_t exp_id, run_id;
    REQUIRE(results_open(dbp, &db, err, sizeof err) == 0);
    REQUIRE(results_begin_experiment(db, "t", "t.yaml", "", NULL, &exp_id) == 0);
    REQUIRE(results_begin_run(db, exp_id, 0, r.params_json, r.seed, NULL, &run_id) == 0);
    FILE *quiet = fopen("/dev/null", "w");
    struct fault_options o = {.jobs = 2, .point = -1, .map = fsck_map, .log = quiet};
    struct fault_summary *s = calloc(1, sizeof *s);
    REQUIRE(s);
    REQUIRE(exp_faults_run(&r, db, run_id, &o, s, err, sizeof err) == 0);
    REQUIRE(results_end_run(db, run_id, RESULTS_COMPLETE, NULL) == 0);
    REQUIRE(results_close(db) == 0);
    uint64_t total = 0, bad = 0, pages = 0;
    for (unsigned c = 0; c < s->nclasses; c++)
        for (int oc = 0; oc < FO_COUNT; oc++) {
            total += s->count[c][oc];
            bad += exp_fault_outcome_bad(oc) ? s->count[c][oc] : 0;
        }
    for (unsigned c = 0; c + 1 < s->nclasses; c++)
        pages += s->class_pages[c];
    CHECK_EQ_INT(total, s->points);
    CHECK_EQ_INT(pages, s->pages);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(s->bad, 0);
    sqlite3 *sq;
    REQUIRE(sqlite3_open(dbp, &sq) == SQLITE_OK);
    CHECK_EQ_INT(count_rows(sq, "SELECT count(*) FROM faults"), (int64_t)s->points);
    /* at most `points` a class and kind, one retention point */
    CHECK_EQ_INT(count_rows(sq, "SELECT count(*) FROM (SELECT 1 FROM faults GROUP BY fault,"
                                " class HAVING count(*) > 2)"), 0);
    CHECK_EQ_INT(count_rows(sq, "SELECT count(*) FROM faults WHERE fault = 'retention'"), 1);
    /* an uncorrectable page holding file data: an error, never wrong bytes */
    CHECK_EQ_INT(count_rows(sq, "SELECT count(*) FROM faults WHERE class = 'file-data'"
                                " AND fault = 'uncorrectable' AND outcome = 'eio'"), 2);
    CHECK_EQ_INT(count_rows(sq, "SELECT count(*) FROM faults WHERE outcome IN"
                                " ('wrong-bytes', 'crash', 'silent-rollback', 'lost')"), 0);
    /* erased pages cannot take these kinds: n/a */
    CHECK_EQ_INT(count_rows(sq, "SELECT count(*) FROM faults WHERE class = 'free'"
                                " AND outcome <> 'n/a'"), 0);
    sqlite3_close(sq);
    free(s);
    if (quiet)
        fclose(quiet);
    exp_run_free(&r);
    experiment_free(e);
}

/* An fsck that dies: every point it checks must come back as a crash. */
static int dying_fsck(nand_dev *dev, char *msg, size_t len)
{
    (void)dev;
    (void)msg;
    (void)len;
    abort(); /* as an assert does */
    return 0;
}

TEST(faults_a_dying_check_is_a_crash_and_the_campaign_goes_on)
{
    struct experiment *e;
    struct exp_run r;
    REQUIRE(load_run(CAMPAIGN("faults: {kinds: [uncorrectable], points: 1}\n"), &e, &r) == 0);
    char err[1024] = "";
    FILE *quiet = fopen("/dev/null", "w");
    struct fault_options o = {.jobs = 2, .point = -1, .map = fsck_map, .fsck = dying_fsck,
                              .log = quiet};
    struct fault_summary *s = calloc(1, sizeof *s);
    REQUIRE(s);
    REQUIRE(exp_faults_run(&r, NULL, 0, &o, s, err, sizeof err) == 0);
    uint64_t crash = 0, na = 0;
    for (unsigned c = 0; c < s->nclasses; c++) {
        crash += s->count[c][FO_CRASH];
        na += s->count[c][FO_NA];
    }
    fprintf(stderr, "%llu points: %llu crashed, %llu n/a\n", (unsigned long long)s->points,
            (unsigned long long)crash, (unsigned long long)na);
    CHECK(s->points >= 10);
    CHECK_EQ_INT(crash + na, s->points); /* every applied point crashed */
    CHECK_EQ_INT(s->bad, crash);
    free(s);
    if (quiet)
        fclose(quiet);
    exp_run_free(&r);
    experiment_free(e);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("faults") || tmp_link_configs())
        return 1;
    RUN(faults_page_map_classifies_every_page_and_agrees_with_the_fs);
    RUN(faults_outcome_accounting);
    RUN(faults_campaign_rows_and_counts_add_up);
    RUN(faults_a_dying_check_is_a_crash_and_the_campaign_goes_on);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

/*
 * test_results.c -- the SQLite results layer (analysis/results*.c): every
 * value written reads back, reopening only adds, stale runs of dead
 * processes become 'incomplete', shard merges equal one database and do
 * not duplicate, bad files give errors, many processes share one file.
 */
#include "results.h"
#include "rng.h"
#include "fixture.h"

#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

static struct results *open_ok(const char *path)
{
    char err[512];
    struct results *r = NULL;
    if (results_open(path, &r, err, sizeof err))
        fprintf(stderr, "  open: %s\n", err);
    return r;
}

/* First column of the first row of sql (bound to a, if a >= 0). */
static int64_t q1(struct results *r, const char *sql, int64_t a)
{
    sqlite3_stmt *st;
    int64_t v = -999;
    if (sqlite3_prepare_v2(results_db(r), sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "  %s: %s\n", sql, sqlite3_errmsg(results_db(r)));
        return v;
    }
    if (a >= 0)
        sqlite3_bind_int64(st, 1, a);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int in_list(const char *name, const char *const *skip)
{
    for (; skip && *skip; skip++)
        if (!strcmp(name, *skip))
            return 1;
    return 0;
}

/* Every row of sql as text, one line a row, leaving out the columns named
 * in skip (NULL-terminated).  Caller frees. */
static char *dump(struct results *r, const char *sql, const char *const *skip)
{
    sqlite3 *db = results_db(r);
    sqlite3_stmt *st;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(f, "error: %s", sqlite3_errmsg(db));
        fclose(f);
        return buf;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            if (!in_list(sqlite3_column_name(st, c), skip))
                fprintf(f, "%s=%s|", sqlite3_column_name(st, c), t ? (const char *)t : "NULL");
        }
        fputc('\n', f);
    }
    sqlite3_finalize(st);
    fclose(f);
    return buf;
}

static const char *const run_tables[] = {"samples", "erase_counts", "mounts", "gc_events",
                                         "latency", "powercuts", "kv", NULL};

/* The whole database in an order that does not depend on ids. */
static char *dump_all(struct results *r, const char *const *skip)
{
    char *out = NULL, sql[512];
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    char *p = dump(r, "SELECT * FROM experiments ORDER BY name, config_text", skip);
    fprintf(f, "experiments\n%s", p);
    free(p);
    p = dump(r, "SELECT e.name AS exp, r.* FROM runs r JOIN experiments e ON e.id ="
                " r.experiment_id ORDER BY e.name, r.run_index, r.id", skip);
    fprintf(f, "runs\n%s", p);
    free(p);
    for (int k = 0; run_tables[k]; k++) {
        snprintf(sql, sizeof sql,
                 "SELECT e.name AS exp, r.run_index AS ri, t.* FROM %s t JOIN runs r ON"
                 " r.id = t.run_id JOIN experiments e ON e.id = r.experiment_id"
                 " ORDER BY e.name, r.run_index, r.id, t.rowid", run_tables[k]);
        p = dump(r, sql, skip);
        fprintf(f, "%s\n%s", run_tables[k], p);
        free(p);
    }
    fclose(f);
    return out;
}

/* ---- deterministic content of run `ri` ---------------------------------- */

#define NBLOCKS 40

static struct results_sample gen_sample(int64_t ri, int64_t seq)
{
    int64_t big = (int64_t)1 << 40;
    struct results_sample s = {
        .seq = seq, .sim_time_ns = big + 1000003 * seq + ri, .host_bytes = 4096 * (seq + 1),
        .flash_bytes_programmed = 4096 * (seq + 1) * (2 + ri), .data_pages = 3 * seq + ri,
        .meta_pages = seq + 7, .anchor_pages = seq / 10 + 1, .gc_pages = seq * ri,
        .erases = seq / 4, .wa = 2.0 + (double)ri + (double)seq / 3.0,
        .free_segments = 1000 - seq, .gc_time_ns = 77 * seq, .gc_invocations = seq / 2,
    };
    return s;
}

static struct results_mount gen_mount(int64_t ri)
{
    struct results_mount m = {"logfs", (int64_t)64 << 20, 0.25 * (double)ri, (int)(ri & 1),
                              1000 + ri, 800 + ri, 150 + ri, 40 + ri, 40 * 2048 + ri,
                              123456 + ri, 99999 + ri};
    return m;
}

static struct results_gc_event gen_gc(int64_t ri, int64_t k)
{
    struct results_gc_event g = {5000 * k + ri, 17 + k, 3 * k, 2 * k + ri, 600 + k,
                                 k % 2 ? "greedy" : "cost-benefit"};
    return g;
}

static void gen_erase(int64_t ri, int64_t seq, uint32_t *c)
{
    for (uint32_t b = 0; b < NBLOCKS; b++)
        c[b] = (uint32_t)(rng_key(7, 1, (uint64_t)ri, (uint64_t)seq, b, 0) % 100000);
}

static const struct results_latency lat_w = {"write", 1000, 20000, 90000, 150000, 400000, 25123.5};
static const struct results_powercut cut = {12345, "mid-program", "recovered", "lost 0 bytes"};

static char *params_of(int64_t ri)
{
    static char buf[8][96];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 96, "{\"policy\":\"%s\",\"op\":%g}", ri % 2 ? "greedy" : "fifo", 0.05 * (double)ri);
    return p;
}

static uint64_t seed_of(int64_t ri)
{
    return ri == 1 ? 0x8000000000000005ULL : 1000 + (uint64_t)ri; /* one >= 2^63 */
}

/* Write run ri (nsamples samples and one of everything else); its id. */
static int64_t write_run(struct results *r, int64_t exp, int64_t ri, int nsamples, int end)
{
    int64_t id = -1;
    uint32_t counts[NBLOCKS];
    int bad = 0;
    bad |= results_begin_run(r, exp, ri, params_of(ri), seed_of(ri), "test-1.0", &id);
    for (int s = 0; s < nsamples; s++) {
        struct results_sample smp = gen_sample(ri, s);
        bad |= results_add_sample(r, id, &smp);
    }
    for (int64_t seq = 0; seq < 2; seq++) {
        gen_erase(ri, seq, counts);
        bad |= results_add_erase_counts(r, id, seq, counts, NBLOCKS);
    }
    struct results_mount m = gen_mount(ri);
    bad |= results_add_mount(r, id, &m);
    for (int k = 0; k < 3; k++) {
        struct results_gc_event g = gen_gc(ri, k);
        bad |= results_add_gc_event(r, id, &g);
    }
    bad |= results_add_latency(r, id, &lat_w);
    bad |= results_add_powercut(r, id, &cut);
    bad |= results_set_kv(r, id, "mount_reads", 1.0);
    bad |= results_set_kv(r, id, "mount_reads", 41.5 + (double)ri); /* replaces */
    bad |= results_set_kv_text(r, id, "note", "ok");
    if (end)
        bad |= results_end_run(r, id, ri == 1 ? RESULTS_FAILED : RESULTS_COMPLETE,
                               ri == 1 ? "boom" : NULL);
    if (bad)
        fprintf(stderr, "  write_run %lld: %s\n", (long long)ri, results_error(r));
    return bad ? -1 : id;
}

static const char config[] = "device: test-64m\nworkload:\n  kind: random  # ü\n";

/* A database holding experiment "wa" with the runs listed (ri < 0 ends). */
static struct results *make_db(const char *path, const int64_t *ris, int nsamples)
{
    struct results *r = open_ok(path);
    int64_t exp;
    if (!r || results_begin_experiment(r, "wa", "configs/wa.yaml", config, "test-1.0", &exp))
        return r;
    for (; *ris >= 0; ris++)
        write_run(r, exp, *ris, nsamples, 1);
    return r;
}

/* NULL equals only NULL. */
static int text_differs(const unsigned char *got, const char *want)
{
    return got && want ? strcmp((const char *)got, want) != 0 : got || want;
}

/* Count of mismatches between run id's rows and what write_run wrote. */
static int check_run(struct results *r, int64_t id, int64_t ri, int nsamples)
{
    sqlite3 *db = results_db(r);
    sqlite3_stmt *st;
    int bad = 0, n = 0;
#define C(i) sqlite3_column_int64(st, i)
#define T(i, s) text_differs(sqlite3_column_text(st, i), s)
    sqlite3_prepare_v2(db, "SELECT * FROM samples WHERE run_id = ? ORDER BY seq", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, id);
    for (; sqlite3_step(st) == SQLITE_ROW; n++) {
        struct results_sample s = gen_sample(ri, n);
        bad += C(0) != id || C(1) != s.seq || C(2) != s.sim_time_ns || C(3) != s.host_bytes ||
               C(4) != s.flash_bytes_programmed || C(5) != s.data_pages ||
               C(6) != s.meta_pages || C(7) != s.anchor_pages || C(8) != s.gc_pages ||
               C(9) != s.erases || sqlite3_column_double(st, 10) != s.wa ||
               C(11) != s.free_segments || C(12) != s.gc_time_ns || C(13) != s.gc_invocations;
    }
    sqlite3_finalize(st);
    bad += n != nsamples;

    uint32_t counts[NBLOCKS];
    sqlite3_prepare_v2(db, "SELECT seq, block, erases FROM erase_counts WHERE run_id = ?"
                           " ORDER BY seq, block", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, id);
    for (n = 0; sqlite3_step(st) == SQLITE_ROW; n++) {
        gen_erase(ri, n / NBLOCKS, counts);
        bad += C(0) != n / NBLOCKS || C(1) != n % NBLOCKS || C(2) != counts[n % NBLOCKS];
    }
    sqlite3_finalize(st);
    bad += n != 2 * NBLOCKS;

    struct results_mount m = gen_mount(ri);
    sqlite3_prepare_v2(db, "SELECT * FROM mounts WHERE run_id = ?", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, id);
    for (n = 0; sqlite3_step(st) == SQLITE_ROW; n++)
        bad += T(1, m.fs_kind) || C(2) != m.device_bytes ||
               sqlite3_column_double(st, 3) != m.fill_fraction || C(4) != m.clean ||
               C(5) != m.sim_latency_ns || C(6) != m.flash_time_ns || C(7) != m.cpu_time_ns ||
               C(8) != m.pages_read || C(9) != m.bytes_read || C(10) != m.ram_bytes ||
               C(11) != m.wall_ns;
    sqlite3_finalize(st);
    bad += n != 1;

    sqlite3_prepare_v2(db, "SELECT * FROM gc_events WHERE run_id = ? ORDER BY rowid", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, id);
    for (n = 0; sqlite3_step(st) == SQLITE_ROW; n++) {
        struct results_gc_event g = gen_gc(ri, n);
        bad += C(1) != g.sim_time_ns || C(2) != g.victim || C(3) != g.live_units ||
               C(4) != g.moved_pages || C(5) != g.duration_ns || T(6, g.policy);
    }
    sqlite3_finalize(st);
    bad += n != 3;

    sqlite3_prepare_v2(db, "SELECT * FROM latency WHERE run_id = ?", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, id);
    for (n = 0; sqlite3_step(st) == SQLITE_ROW; n++)
        bad += T(1, lat_w.op) || C(2) != lat_w.count || C(3) != lat_w.p50_ns ||
               C(4) != lat_w.p99_ns || C(5) != lat_w.p999_ns || C(6) != lat_w.max_ns ||
               sqlite3_column_double(st, 7) != lat_w.mean_ns;
    sqlite3_finalize(st);
    bad += n != 1;

    sqlite3_prepare_v2(db, "SELECT * FROM powercuts WHERE run_id = ?", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, id);
    for (n = 0; sqlite3_step(st) == SQLITE_ROW; n++)
        bad += C(1) != cut.cut_point || T(2, cut.cut_kind) || T(3, cut.outcome) ||
               T(4, cut.detail);
    sqlite3_finalize(st);
    bad += n != 1;

    sqlite3_prepare_v2(db, "SELECT key, value, typeof(value) FROM kv WHERE run_id = ?"
                           " ORDER BY key", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, id);
    for (n = 0; sqlite3_step(st) == SQLITE_ROW; n++)
        bad += n == 0 ? T(0, "mount_reads") || sqlite3_column_double(st, 1) != 41.5 + (double)ri ||
                            T(2, "real")
                      : T(0, "note") || T(1, "ok") || T(2, "text");
    sqlite3_finalize(st);
    bad += n != 2;
#undef C
#undef T
    return bad;
}

/* ---- tests -------------------------------------------------------------- */

TEST(every_value_reads_back)
{
    const int64_t ris[] = {0, 1, 2, -1};
    struct results *r = make_db(tmp_path("one.db"), ris, 50);
    REQUIRE(r);
    int64_t exp = 0, id = 0;
    /* Errors say what is wrong and change nothing. */
    CHECK(results_begin_experiment(r, "wa", "other/path.yaml", config, NULL, &exp) == 0);
    CHECK_EQ_INT(exp, 1); /* same name + config: the same experiment */
    CHECK(results_begin_run(r, exp, 9, "{bad", 1, NULL, &id) == -1);
    CHECK(strstr(results_error(r), "JSON") != NULL);
    CHECK(results_end_run(r, 1, RESULTS_COMPLETE, NULL) == -1);
    CHECK(strstr(results_error(r), "not 'running'") != NULL);
    CHECK(results_end_run(r, 1, RESULTS_RUNNING, NULL) == -1);
    CHECK(results_close(r) == 0);

    REQUIRE((r = open_ok(tmp_path("one.db"))));
    char *p = dump(r, "SELECT * FROM experiments", NULL);
    char want[512];
    snprintf(want, sizeof want, "id=1|name=wa|config_path=configs/wa.yaml|config_text=%s|", config);
    CHECK(strncmp(p, want, strlen(want)) == 0);
    char hash[RESULTS_HASH_HEX + 1];
    results_config_hash(config, hash); /* no resolver: the text is its resolved form */
    snprintf(want, sizeof want, "|program_version=test-1.0|config_resolved=%s|config_hash=%s|\n",
             config, hash);
    CHECK(strstr(p, want) != NULL);
    CHECK(q1(r, "SELECT count(*) FROM experiments WHERE created_at GLOB"
                " '[2-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T*Z'", -1) == 1);
    free(p);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM runs", -1), 3);
    char host[256] = "";
    gethostname(host, sizeof host);
    for (int64_t ri = 0; ri < 3; ri++) {
        sqlite3_stmt *st;
        sqlite3_prepare_v2(results_db(r), "SELECT experiment_id, run_index, params, seed,"
                           " program_version, status, error, started_at <= finished_at,"
                           " wall_seconds >= 0, hostname, pid, id FROM runs WHERE run_index = ?",
                           -1, &st, NULL);
        sqlite3_bind_int64(st, 1, ri);
        REQUIRE(sqlite3_step(st) == SQLITE_ROW);
        CHECK_EQ_INT(sqlite3_column_int64(st, 0), 1);
        CHECK(!strcmp((const char *)sqlite3_column_text(st, 2), params_of(ri)));
        CHECK((uint64_t)sqlite3_column_int64(st, 3) == seed_of(ri));
        CHECK(!strcmp((const char *)sqlite3_column_text(st, 4), "test-1.0"));
        CHECK(!strcmp((const char *)sqlite3_column_text(st, 5), ri == 1 ? "failed" : "complete"));
        CHECK(ri == 1 ? !strcmp((const char *)sqlite3_column_text(st, 6), "boom")
                      : sqlite3_column_type(st, 6) == SQLITE_NULL);
        CHECK_EQ_INT(sqlite3_column_int64(st, 7), 1);
        CHECK_EQ_INT(sqlite3_column_int64(st, 8), 1);
        CHECK(!strcmp((const char *)sqlite3_column_text(st, 9), host));
        CHECK_EQ_INT(sqlite3_column_int64(st, 10), getpid());
        CHECK_EQ_INT(check_run(r, sqlite3_column_int64(st, 11), ri, 50), 0);
        sqlite3_finalize(st);
    }
    CHECK_EQ_INT(q1(r, "PRAGMA user_version", -1), RESULTS_SCHEMA_VERSION);
    /* NULL version means the program's own. */
    CHECK(results_begin_experiment(r, "v", NULL, NULL, NULL, &exp) == 0);
    p = dump(r, "SELECT program_version FROM experiments WHERE name = 'v'", NULL);
    CHECK(strstr(p, FLASHLAB_VERSION) != NULL);
    free(p);
    CHECK(results_close(r) == 0);
}

TEST(reopen_only_adds)
{
    const int64_t ris[] = {0, 1, 2, -1};
    struct results *r = make_db(tmp_path("add.db"), ris, 20);
    REQUIRE(r);
    char *before = dump_all(r, NULL);
    CHECK(results_close(r) == 0);

    REQUIRE((r = open_ok(tmp_path("add.db"))));
    int64_t exp = 0, exp2 = 0;
    CHECK(results_begin_experiment(r, "wa", "x.yaml", config, NULL, &exp) == 0);
    CHECK_EQ_INT(exp, 1);
    CHECK(results_begin_experiment(r, "wa2", "x.yaml", "other: config\n", NULL, &exp2) == 0);
    CHECK(exp2 != exp);
    CHECK(write_run(r, exp, 0, 20, 1) > 3); /* a repeat of run 0: a new row */
    CHECK(write_run(r, exp2, 5, 20, 1) > 3);
    CHECK(results_close(r) == 0);

    REQUIRE((r = open_ok(tmp_path("add.db"))));
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM runs", -1), 5);
    /* The old rows, dumped the same way, are exactly as they were. */
    sqlite3_exec(results_db(r), "DELETE FROM kv WHERE run_id > 3; DELETE FROM powercuts WHERE run_id > 3;"
                 "DELETE FROM latency WHERE run_id > 3; DELETE FROM gc_events WHERE run_id > 3;"
                 "DELETE FROM mounts WHERE run_id > 3; DELETE FROM erase_counts WHERE run_id > 3;"
                 "DELETE FROM samples WHERE run_id > 3; DELETE FROM runs WHERE id > 3;"
                 "DELETE FROM experiments WHERE id > 1", NULL, NULL, NULL);
    char *after = dump_all(r, NULL);
    CHECK(!strcmp(before, after));
    free(before);
    free(after);
    CHECK(results_close(r) == 0);
}

TEST(dead_process_run_becomes_incomplete)
{
    const char *path = tmp_path("stale.db");
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) { /* the child begins a run and dies without ending it */
        struct results *c = open_ok(path);
        int64_t exp, id;
        struct results_sample s = gen_sample(0, 0);
        if (!c || results_begin_experiment(c, "stale", NULL, "x", NULL, &exp) ||
            results_begin_run(c, exp, 0, "{}", 1, NULL, &id) || results_add_sample(c, id, &s) ||
            results_flush(c))
            _exit(1);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    struct results *r = open_ok(path);
    REQUIRE(r);
    int64_t exp, mine, other, n = -1;
    CHECK(results_begin_experiment(r, "stale", NULL, "x", NULL, &exp) == 0);
    CHECK(results_begin_run(r, exp, 1, "{}", 1, NULL, &mine) == 0);
    CHECK(results_begin_run(r, exp, 2, "{}", 1, NULL, &other) == 0);
    /* A run of a dead pid on another host: this host cannot tell. */
    sqlite3_stmt *st;
    sqlite3_prepare_v2(results_db(r), "UPDATE runs SET hostname = 'elsewhere', pid = ?"
                       " WHERE id = ?", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, pid);
    sqlite3_bind_int64(st, 2, other);
    CHECK(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_finalize(st);

    CHECK(results_mark_stale(r, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM runs WHERE run_index = 0 AND status = 'incomplete'"
                       " AND error LIKE 'process % exited before the run ended'", -1), 1);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM samples", -1), 1); /* its rows stay */
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM runs WHERE status = 'running'", -1), 2);
    CHECK(results_mark_stale(r, &n) == 0);
    CHECK_EQ_INT(n, 0);
    CHECK(results_end_run(r, mine, RESULTS_COMPLETE, NULL) == 0);
    CHECK(results_close(r) == 0);
}

TEST(merge_equals_one_database)
{
    const int64_t all[] = {0, 1, 2, 3, -1}, a_ris[] = {0, 1, -1}, b_ris[] = {2, 3, -1};
    struct results *one = make_db(tmp_path("single.db"), all, 30);
    struct results *a = make_db(tmp_path("shard-a.db"), a_ris, 30);
    struct results *b = make_db(tmp_path("shard-b.db"), b_ris, 30);
    REQUIRE(one && a && b);
    /* A second experiment, in shard b only (and in the single DB). */
    int64_t e1, e2;
    CHECK(results_begin_experiment(one, "zz", NULL, "z", NULL, &e1) == 0);
    CHECK(results_begin_experiment(b, "zz", NULL, "z", NULL, &e2) == 0);
    CHECK(write_run(one, e1, 0, 5, 1) > 0);
    CHECK(write_run(b, e2, 0, 5, 1) > 0);
    CHECK(results_close(b) == 0);

    struct results *m = open_ok(tmp_path("merged.db"));
    REQUIRE(m);
    struct results_merge_stats st;
    CHECK(results_merge(m, tmp_path("shard-a.db"), &st) == 0);
    CHECK(st.experiments_added == 1 && st.runs_copied == 2 && st.runs_skipped == 0);
    CHECK(results_merge(m, tmp_path("shard-b.db"), &st) == 0);
    CHECK(st.experiments_added == 1 && st.runs_copied == 3 && st.runs_skipped == 0);

    /* Row by row the same as the single database, but for ids and times. */
    static const char *const volatile_cols[] = {"id", "run_id", "experiment_id", "created_at",
                                                "started_at", "finished_at", "wall_seconds", NULL};
    char *x = dump_all(m, volatile_cols), *y = dump_all(one, volatile_cols);
    CHECK(!strcmp(x, y));
    free(y);
    /* And the shards' rows are copied verbatim, times included. */
    static const char *const ids[] = {"id", "run_id", "experiment_id", NULL};
    b = open_ok(tmp_path("shard-b.db"));
    REQUIRE(b);
    char *ra = dump(a, "SELECT * FROM runs ORDER BY id", ids);
    char *rb = dump(b, "SELECT * FROM runs ORDER BY id", ids);
    char *rm = dump(m, "SELECT * FROM runs ORDER BY id", ids);
    CHECK(strlen(rm) == strlen(ra) + strlen(rb) && !strncmp(rm, ra, strlen(ra)) &&
          !strcmp(rm + strlen(ra), rb));
    free(ra);
    free(rb);
    free(rm);
    CHECK(check_run(m, 4, 3, 30) == 0); /* shard b's run 3, renumbered */

    /* Merging again, or the single DB, adds nothing. */
    CHECK(results_merge(m, tmp_path("shard-a.db"), &st) == 0);
    CHECK(st.experiments_added == 0 && st.runs_copied == 0 && st.runs_skipped == 2);
    CHECK(results_merge(m, tmp_path("single.db"), &st) == 0);
    CHECK(st.experiments_added == 0 && st.runs_copied == 0 && st.runs_skipped == 5);
    y = dump_all(m, volatile_cols);
    CHECK(!strcmp(x, y));
    free(y);

    /* Bad sources fail cleanly and leave dst alone. */
    CHECK(results_merge(m, tmp_path("merged.db"), &st) == -1);
    CHECK(strstr(results_error(m), "merged into") != NULL);
    CHECK(results_merge(m, tmp_path("missing.db"), &st) == -1);
    CHECK(access(tmp_path("missing.db"), F_OK) != 0);
    FILE *f = fopen(tmp_path("junk.db"), "wb");
    REQUIRE(f);
    fputs("this is not a database, not at all, not even close to one ....", f);
    fclose(f);
    CHECK(results_merge(m, tmp_path("junk.db"), &st) == -1);
    CHECK(strstr(results_error(m), "not an SQLite database") != NULL);
    y = dump_all(m, volatile_cols);
    CHECK(!strcmp(x, y));
    free(x);
    free(y);
    CHECK(results_close(m) == 0);
    CHECK(results_close(a) == 0);
    CHECK(results_close(b) == 0);
    CHECK(results_close(one) == 0);
}

TEST(bad_files_give_errors)
{
    char err[512] = "";
    struct results *r = (struct results *)1;
    /* Random bytes: not SQLite; the file is left as it was. */
    static unsigned char junk[65536], back[sizeof junk];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)rng_key(3, 1, i, 0, 0, 0);
    FILE *f = fopen(tmp_path("random.db"), "wb");
    REQUIRE(f);
    fwrite(junk, 1, sizeof junk, f);
    fclose(f);
    CHECK(results_open(tmp_path("random.db"), &r, err, sizeof err) == -1);
    CHECK(r == NULL);
    CHECK(strstr(err, "random.db: not an SQLite database") != NULL);
    f = fopen(tmp_path("random.db"), "rb");
    REQUIRE(f);
    CHECK(fread(back, 1, sizeof back, f) == sizeof back && !memcmp(junk, back, sizeof junk));
    fclose(f);

    /* A newer schema version. */
    REQUIRE((r = open_ok(tmp_path("future.db"))));
    CHECK(sqlite3_exec(results_db(r), "PRAGMA user_version = 99", NULL, NULL, NULL) == SQLITE_OK);
    results_close(r);
    CHECK(results_open(tmp_path("future.db"), &r, err, sizeof err) == -1);
    CHECK(strstr(err, "version 99 is newer") != NULL);

    /* Some other program's SQLite file. */
    sqlite3 *db;
    REQUIRE(sqlite3_open(tmp_path("other.db"), &db) == SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK(results_open(tmp_path("other.db"), &r, err, sizeof err) == -1);
    CHECK(strstr(err, "not a flashlab results one") != NULL);

    /* A results file with its later pages overwritten: errors, no crash. */
    const int64_t ris[] = {0, 1, -1};
    REQUIRE((r = make_db(tmp_path("torn.db"), ris, 400)));
    results_close(r);
    f = fopen(tmp_path("torn.db"), "r+b");
    REQUIRE(f);
    fseek(f, 4096 * 3, SEEK_SET);
    fwrite(junk, 1, 8192, f);
    fclose(f);
    if (results_open(tmp_path("torn.db"), &r, err, sizeof err) == 0) {
        sqlite3 *t = results_db(r);
        sqlite3_exec(t, "SELECT sum(wa) FROM samples", NULL, NULL, NULL);
        int rc = sqlite3_exec(t, "PRAGMA integrity_check", NULL, NULL, NULL);
        (void)rc;
        results_close(r);
    } else {
        CHECK(strlen(err) > strlen(tmp_path("torn.db")) + 2);
    }
}

/* A version 2 file as version 2 wrote it (the tables the upgrade touches
 * or its view reads), with one run: samples without the version 3
 * columns, the old final view. */
static const char v2_file[] =
    "CREATE TABLE experiments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, config_path TEXT,"
    " config_text TEXT, created_at TEXT NOT NULL, program_version TEXT);"
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL,"
    " run_index INTEGER NOT NULL, params TEXT NOT NULL, seed INTEGER NOT NULL,"
    " program_version TEXT, status TEXT NOT NULL, error TEXT, started_at TEXT NOT NULL,"
    " finished_at TEXT, wall_seconds REAL, hostname TEXT, pid INTEGER);"
    "CREATE TABLE samples (run_id INTEGER NOT NULL, seq INTEGER NOT NULL, sim_time_ns INTEGER,"
    " host_bytes INTEGER, flash_bytes_programmed INTEGER, data_pages INTEGER,"
    " meta_pages INTEGER, anchor_pages INTEGER, gc_pages INTEGER, erases INTEGER, wa REAL,"
    " free_segments INTEGER, gc_time_ns INTEGER, gc_invocations INTEGER);"
    "CREATE TABLE kv (run_id INTEGER NOT NULL, key TEXT NOT NULL, value, UNIQUE (run_id, key));"
    "CREATE VIEW final AS SELECT r.id AS run_id, s.wa FROM runs r"
    " LEFT JOIN samples s ON s.run_id = r.id;"
    "INSERT INTO experiments VALUES (1, 'old', NULL, 'name: old', 'T', 'v2');"
    "INSERT INTO runs VALUES (1, 1, 0, '{}', 7, 'v2', 'complete', NULL, 'T', 'T', 1, 'h', 1);"
    "INSERT INTO samples VALUES (1, 0, 10, 4096, 8192, 1, 1, 0, 0, 0, 2.0, 5, 0, 0);"
    "INSERT INTO kv VALUES (1, 'stop_reason', 'stop');"
    "PRAGMA application_id = 1179402562;"
    "PRAGMA user_version = 2;";

TEST(version_2_file_is_upgraded)
{
    const char *path = tmp_path("v2.db");
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, v2_file, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    struct results *r = open_ok(path);
    REQUIRE(r);
    CHECK_EQ_INT(q1(r, "PRAGMA user_version", -1), RESULTS_SCHEMA_VERSION);
    /* the old run: its rows as they were, the new columns NULL */
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM samples WHERE run_id = 1 AND wa = 2.0"
                       " AND wa_interval IS NULL AND wa_total_interval IS NULL"
                       " AND utilisation IS NULL", -1), 1);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM final WHERE run_id = 1 AND wa = 2.0"
                       " AND utilisation IS NULL AND wa_steady IS NULL"
                       " AND wa_total_steady IS NULL AND stop_reason = 'stop'", -1), 1);
    /* a new run gets everything */
    int64_t exp, id;
    REQUIRE(results_begin_experiment(r, "new", NULL, "name: new", NULL, &exp) == 0);
    REQUIRE(results_begin_run(r, exp, 0, "{}", 1, NULL, &id) == 0);
    struct results_sample s = {.seq = 0, .host_bytes = 4096, .wa = 3.0, .wa_interval = 2.5,
                               .wa_total_interval = 3.5, .utilisation = 0.75};
    CHECK(results_add_sample(r, id, &s) == 0);
    s.seq = 1;
    s.wa_interval = s.wa_total_interval = s.utilisation = NAN; /* unknown: NULL */
    CHECK(results_add_sample(r, id, &s) == 0);
    CHECK(results_set_kv(r, id, "utilisation", 0.75) == 0);
    CHECK(results_set_kv(r, id, "wa_steady", 2.5) == 0);
    CHECK(results_set_kv(r, id, "wa_total_steady", 3.5) == 0);
    CHECK(results_set_kv(r, id, "steady_reached", 1) == 0);
    CHECK(results_end_run(r, id, RESULTS_COMPLETE, NULL) == 0);
    CHECK(results_close(r) == 0);
    REQUIRE((r = open_ok(path))); /* reopened: nothing changes */
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM samples WHERE run_id = ?1 AND seq = 0"
                       " AND wa_interval = 2.5 AND wa_total_interval = 3.5"
                       " AND utilisation = 0.75", id), 1);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM samples WHERE run_id = ?1 AND seq = 1"
                       " AND wa_interval IS NULL AND utilisation IS NULL", id), 1);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM final WHERE run_id = ?1 AND utilisation = 0.75"
                       " AND wa = 3.0 AND wa_steady = 2.5 AND wa_total_steady = 3.5"
                       " AND steady_reached = 1", id), 1);
    CHECK(results_close(r) == 0);
}

TEST(hundred_thousand_samples)
{
    struct results *r = open_ok(tmp_path("bulk.db"));
    REQUIRE(r);
    int64_t exp, id;
    REQUIRE(results_begin_experiment(r, "bulk", NULL, "b", NULL, &exp) == 0);
    REQUIRE(results_begin_run(r, exp, 0, "{}", 1, NULL, &id) == 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int bad = 0;
    for (int s = 0; s < 100000; s++) {
        struct results_sample smp = gen_sample(0, s);
        bad |= results_add_sample(r, id, &smp);
    }
    bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_EQ_INT(bad, 0);
    fprintf(stderr, "  100000 samples in %.3f s\n",
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM samples WHERE run_id = ?", id), 100000);
    CHECK_EQ_INT(q1(r, "SELECT sum(seq) FROM samples", -1), 99999LL * 100000 / 2);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM samples WHERE wa = 2.0 + seq / 3.0"
                       " AND host_bytes = 4096 * (seq + 1)", -1), 100000);
    results_close(r);
}

TEST(rows_are_batched_and_close_flushes)
{
    struct results *r = open_ok(tmp_path("batch.db")), *other = open_ok(tmp_path("batch.db"));
    REQUIRE(r && other);
    int64_t exp, id;
    REQUIRE(results_begin_experiment(r, "batch", NULL, "b", NULL, &exp) == 0);
    REQUIRE(results_begin_run(r, exp, 0, "{}", 1, NULL, &id) == 0);
    const char *count = "SELECT count(*) FROM samples";
    for (int s = 0; s < RESULTS_BATCH_ROWS + 5; s++) {
        if (s == RESULTS_BATCH_ROWS - 1)
            CHECK_EQ_INT(q1(other, count, -1), 0); /* still queued */
        struct results_sample smp = gen_sample(0, s);
        CHECK(results_add_sample(r, id, &smp) == 0);
    }
    CHECK_EQ_INT(q1(other, count, -1), RESULTS_BATCH_ROWS);
    CHECK(results_close(r) == 0);
    CHECK_EQ_INT(q1(other, count, -1), RESULTS_BATCH_ROWS + 5);
    CHECK_EQ_INT(q1(other, "SELECT count(*) FROM runs WHERE status = 'running'", -1), 1);
    CHECK(results_close(other) == 0);
}

/* Child of parallel_writers: run `runs` runs into path; exit status 0 if ok. */
static void writer_child(const char *path, int gate, int w)
{
    char c;
    if (read(gate, &c, 1) < 0) /* all start at once: EOF when the parent closes */
        _exit(2);
    struct results *r = open_ok(path);
    int64_t exp;
    if (!r || results_begin_experiment(r, "par", NULL, "p", NULL, &exp))
        _exit(1);
    for (int k = 0; k < 3; k++) {
        int64_t id;
        if (results_begin_run(r, exp, 10 * w + k, "{}", (uint64_t)w, NULL, &id))
            _exit(1);
        for (int s = 0; s < 1500; s++) {
            struct results_sample smp = gen_sample(w, s);
            if (results_add_sample(r, id, &smp))
                _exit(1);
        }
        if (results_end_run(r, id, RESULTS_COMPLETE, NULL))
            _exit(1);
    }
    _exit(results_close(r) ? 1 : 0);
}

TEST(parallel_writers)
{
    enum { SHARED = 4, OWN = 2 };
    int gate[2];
    pid_t kids[SHARED + OWN];
    REQUIRE(pipe(gate) == 0);
    for (int w = 0; w < SHARED + OWN; w++) {
        char name[32];
        snprintf(name, sizeof name, w < SHARED ? "par.db" : "par-%d.db", w);
        const char *path = tmp_path(name);
        if ((kids[w] = fork()) == 0) {
            close(gate[1]);
            writer_child(path, gate[0], w);
        }
        REQUIRE(kids[w] > 0);
    }
    close(gate[0]);
    close(gate[1]); /* go */
    int ok = 0;
    for (int w = 0; w < SHARED + OWN; w++) {
        int status = 0;
        waitpid(kids[w], &status, 0);
        ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    CHECK_EQ_INT(ok, SHARED + OWN);
    struct results *r = open_ok(tmp_path("par.db"));
    REQUIRE(r);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM experiments", -1), 1);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM runs WHERE status = 'complete'", -1), 3 * SHARED);
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM samples", -1), 3 * 1500 * SHARED);
    results_close(r);
    REQUIRE((r = open_ok(tmp_path("par-5.db"))));
    CHECK_EQ_INT(q1(r, "SELECT count(*) FROM samples", -1), 3 * 1500);
    results_close(r);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("results")) {
        perror("mkdtemp");
        return 1;
    }
    RUN(every_value_reads_back);
    RUN(reopen_only_adds);
    RUN(dead_process_run_becomes_incomplete);
    RUN(merge_equals_one_database);
    RUN(bad_files_give_errors);
    RUN(version_2_file_is_upgraded);
    RUN(hundred_thousand_samples);
    RUN(rows_are_batched_and_close_flushes);
    RUN(parallel_writers);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

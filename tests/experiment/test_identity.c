/*
 * test_identity.c -- experiments cannot mix (issue #29): an experiment is
 * its name and the hash of its resolved config.  The resolved form ignores
 * form (comments, order, spelled-out defaults) and sees every setting; a
 * changed config under a used name is refused naming the keys that differ;
 * files written before hashes get theirs; merge refuses a name whose hash
 * differs; selection by NAME@HASH; interrupted runs are replaced.
 */
#include "experiment.h"
#include "fixture.h"
#include "results.h"

#include <sqlite3.h>

static const char base[] =
    "name: mix\n"
    "device: configs/devices/test-64m.yaml\n"
    "fs: {reserve: 4}\n"
    "workload: {kind: uniform, fill: 0.5}\n"
    "stop: {ops: 100}\n"
    "seeds: [1, 2]\n";

static char *resolve(const char *text)
{
    char err[512];
    char *s = experiment_resolve_config(text, err, sizeof err);
    if (!s)
        fprintf(stderr, "  resolve: %s\n", err);
    return s;
}

static void hash_of(const char *text, char out[RESULTS_HASH_HEX + 1])
{
    char *s = resolve(text);
    results_config_hash(s ? s : "", out);
    free(s);
}

static struct results *open_db(const char *path)
{
    char err[1024];
    struct results *r = NULL;
    if (experiment_results_open(path, &r, err, sizeof err))
        fprintf(stderr, "  open: %s\n", err);
    return r;
}

static int64_t q1(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -999;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

TEST(resolved_form_ignores_form_and_sees_settings)
{
    char h0[RESULTS_HASH_HEX + 1], h[RESULTS_HASH_HEX + 1];
    hash_of(base, h0);
    CHECK_EQ_INT(strlen(h0), RESULTS_HASH_HEX);
    /* the same experiment: comments, key order, block style, another name
     * and description, defaults spelled out */
    hash_of("# a comment\n"
            "name: other\ndescription: words\n"
            "seeds: [1, 2]\nrepetitions: 1\n"
            "workload:\n  fill: 0.5   # half\n  kind: uniform\n"
            "fs:\n  kind: logfs\n  reserve: 4\n"
            "stop: {ops: 100}\ndevice: configs/devices/test-64m.yaml\n", h);
    CHECK(!strcmp(h, h0));
    /* seed: S is seeds: [S] */
    char a[RESULTS_HASH_HEX + 1], b[RESULTS_HASH_HEX + 1];
    hash_of("seed: 7\nworkload: {kind: uniform}\n", a);
    hash_of("seeds: [7]\nworkload: {kind: uniform}\n", b);
    CHECK(!strcmp(a, b));
    /* any setting changes it */
    static const char *const changed[] = {
        "fill: 0.5", "fill: 0.6", "reserve: 4", "reserve: 5", "seeds: [1, 2]", "seeds: [2, 1]",
        "ops: 100", "ops: 101", "kind: uniform", "kind: zipf"};
    for (size_t i = 0; i < sizeof changed / sizeof *changed; i += 2) {
        char text[1024];
        const char *at = strstr(base, changed[i]);
        REQUIRE(at);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - base), base, changed[i + 1],
                 at + strlen(changed[i]));
        hash_of(text, h);
        CHECK(strcmp(h, h0) != 0);
    }
    char *s = resolve(base);
    REQUIRE(s);
    CHECK(strstr(s, "fs.kind = \"logfs\"\n") != NULL);
    CHECK(strstr(s, "workload.fill = 0.5\n") != NULL);
    CHECK(strstr(s, "name") == NULL);
    free(s);
}

TEST(a_changed_config_under_a_used_name_is_refused)
{
    const char *path = tmp_path("refuse.db");
    struct results *r = open_db(path);
    REQUIRE(r);
    int64_t e1 = 0, e2 = 0, e3 = 0;
    CHECK(results_begin_experiment(r, "mix", "a.yaml", base, NULL, &e1) == 0);
    /* the same config with a comment: the same experiment */
    char text[1024];
    snprintf(text, sizeof text, "# again\n%s", base);
    CHECK(results_begin_experiment(r, "mix", "b.yaml", text, NULL, &e2) == 0);
    CHECK_EQ_INT(e2, e1);
    /* fill and reserve changed: refused, naming both keys and no other */
    snprintf(text, sizeof text, "%s", base);
    memcpy(strstr(text, "0.5"), "0.6", 3);
    memcpy(strstr(text, "reserve: 4"), "reserve: 5", 10);
    CHECK(results_begin_experiment(r, "mix", "c.yaml", text, NULL, &e3) == -1);
    const char *why = results_error(r);
    CHECK(strstr(why, "workload.fill (0.6 in this config, 0.5 in the database's)") != NULL);
    CHECK(strstr(why, "fs.reserve") != NULL);
    CHECK(strstr(why, "stop.ops") == NULL);
    CHECK(strstr(why, "--as NEWNAME") != NULL);
    CHECK_EQ_INT(q1(results_db(r), "SELECT count(*) FROM experiments"), 1);
    /* under another name, both are kept */
    CHECK(results_begin_experiment(r, "mix-2", "c.yaml", text, NULL, &e3) == 0);
    CHECK(e3 != e1);
    CHECK(results_close(r) == 0);
}

/* A file as flashlab wrote it before hashes (schema version 2), holding
 * two configs under one name, as it allowed. */
static int make_v2(const char *path)
{
    struct results *r = open_db(path);
    int64_t e;
    char other[1024];
    snprintf(other, sizeof other, "%s", base);
    memcpy(strstr(other, "0.5"), "0.7", 3);
    if (!r || results_begin_experiment(r, "mix", "a.yaml", base, NULL, &e) ||
        results_begin_experiment(r, "mix2", "b.yaml", other, NULL, &e))
        return -1;
    sqlite3 *db = results_db(r);
    int rc = sqlite3_exec(db, "DROP INDEX experiments_hash;"
                          "ALTER TABLE experiments DROP COLUMN config_hash;"
                          "ALTER TABLE experiments DROP COLUMN config_resolved;"
                          "DROP VIEW final;"
                          "ALTER TABLE samples DROP COLUMN wa_interval;"
                          "ALTER TABLE samples DROP COLUMN wa_total_interval;"
                          "ALTER TABLE samples DROP COLUMN utilisation;"
                          "UPDATE experiments SET name = 'mix';"
                          "PRAGMA user_version = 2", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        fprintf(stderr, "  make_v2: %s\n", sqlite3_errmsg(db));
    results_close(r);
    return rc == SQLITE_OK ? 0 : -1;
}

TEST(older_files_get_their_hashes_on_open)
{
    const char *path = tmp_path("v2.db");
    REQUIRE(make_v2(path) == 0);
    struct results *r = open_db(path);
    REQUIRE(r);
    sqlite3 *db = results_db(r);
    CHECK_EQ_INT(q1(db, "PRAGMA user_version"), RESULTS_SCHEMA_VERSION);
    CHECK_EQ_INT(q1(db, "SELECT count(*) FROM experiments WHERE config_hash IS NULL"), 0);
    char h[RESULTS_HASH_HEX + 1], sql[256];
    hash_of(base, h);
    snprintf(sql, sizeof sql, "SELECT id FROM experiments WHERE config_hash = '%s'", h);
    CHECK_EQ_INT(q1(db, sql), 1);
    /* the base config finds its row; a third config is refused */
    int64_t e = 0;
    CHECK(results_begin_experiment(r, "mix", "a.yaml", base, NULL, &e) == 0);
    CHECK_EQ_INT(e, 1);
    /* selecting the name alone would mix the two: refused, listing both */
    char *ids = NULL, err[1024];
    CHECK(results_select_experiments(db, "mix", &ids, err, sizeof err) == -1);
    CHECK(strstr(err, "several configs") != NULL);
    snprintf(sql, sizeof sql, "mix@%s", h);
    CHECK(strstr(err, sql) != NULL);
    /* a prefix picks one */
    snprintf(sql, sizeof sql, "mix@%.5s", h);
    CHECK(results_select_experiments(db, sql, &ids, err, sizeof err) == 0);
    CHECK(ids && !strcmp(ids, "[1]"));
    free(ids);
    CHECK(results_select_experiments(db, "mix@zz", &ids, err, sizeof err) == -1);
    CHECK(strstr(err, "hex digits") != NULL);
    CHECK(results_select_experiments(db, "none", &ids, err, sizeof err) == 0);
    CHECK(ids && !strcmp(ids, "[]"));
    free(ids);
    CHECK(results_close(r) == 0);
}

TEST(merge_refuses_a_name_whose_hash_differs)
{
    const char *dst = tmp_path("mdst.db"), *src = tmp_path("msrc.db"), *same = tmp_path("msame.db");
    struct results *r = open_db(src), *s = open_db(same), *d = open_db(dst);
    REQUIRE(r && s && d);
    char other[1024];
    snprintf(other, sizeof other, "%s", base);
    memcpy(strstr(other, "ops: 100"), "ops: 200", 8);
    int64_t e, run;
    CHECK(results_begin_experiment(r, "mix", "a.yaml", other, NULL, &e) == 0);
    CHECK(results_begin_run(r, e, 0, "{}", 1, NULL, &run) == 0);
    CHECK(results_begin_experiment(s, "mix", "a.yaml", base, NULL, &e) == 0);
    CHECK(results_begin_run(s, e, 0, "{}", 1, NULL, &run) == 0);
    CHECK(results_close(r) == 0);
    CHECK(results_close(s) == 0);
    CHECK(results_begin_experiment(d, "mix", "a.yaml", base, NULL, &e) == 0);
    struct results_merge_stats st;
    CHECK(results_merge(d, src, &st) == -1);
    CHECK(strstr(results_error(d), "stop.ops (200 in the shard, 100 in the database merged "
                                   "into)") != NULL);
    CHECK_EQ_INT(q1(results_db(d), "SELECT count(*) FROM runs"), 0);
    CHECK(results_merge(d, same, &st) == 0);
    CHECK_EQ_INT(st.runs_copied, 1);
    CHECK_EQ_INT(st.experiments_added, 0);
    CHECK(results_close(d) == 0);
}

TEST(an_interrupted_run_is_replaced_not_counted_twice)
{
    struct results *r = open_db(tmp_path("replace.db"));
    REQUIRE(r);
    int64_t e, a, b, c, dropped = -1;
    const char *params = "{\"x\":1}";
    struct results_powercut pc = {.cut_point = 1, .cut_kind = "before", .outcome = "ok"};
    REQUIRE(results_begin_experiment(r, "mix", NULL, base, NULL, &e) == 0);
    REQUIRE(results_begin_run(r, e, 0, params, 1, NULL, &a) == 0);
    REQUIRE(results_begin_run(r, e, 0, params, 1, NULL, &b) == 0);
    REQUIRE(results_begin_run(r, e, 0, "{\"x\":2}", 1, NULL, &c) == 0);
    for (int i = 0; i < 3; i++) {
        results_add_powercut(r, a, &pc);
        results_add_powercut(r, b, &pc);
        results_add_powercut(r, c, &pc);
    }
    results_set_kv(r, a, "k", 1);
    CHECK(results_end_run(r, b, RESULTS_COMPLETE, NULL) == 0);
    sqlite3 *db = results_db(r);
    /* a and c as a killed process leaves them (results_mark_stale) */
    REQUIRE(sqlite3_exec(db, "UPDATE runs SET status = 'incomplete' WHERE id <> 2", NULL, NULL,
                         NULL) == SQLITE_OK);
    CHECK(results_replace_incomplete(r, e, params, 1, &dropped) == 0);
    CHECK_EQ_INT(dropped, 1);
    CHECK_EQ_INT(q1(db, "SELECT count(*) FROM runs WHERE id = 1"), 0);
    CHECK_EQ_INT(q1(db, "SELECT count(*) FROM powercuts WHERE run_id = 1"), 0);
    CHECK_EQ_INT(q1(db, "SELECT count(*) FROM kv WHERE run_id = 1"), 0);
    /* the complete run and the other settings' run keep their rows */
    CHECK_EQ_INT(q1(db, "SELECT count(*) FROM powercuts WHERE run_id = 2"), 3);
    CHECK_EQ_INT(q1(db, "SELECT count(*) FROM powercuts WHERE run_id = 3"), 3);
    CHECK(results_replace_incomplete(r, e, params, 1, &dropped) == 0);
    CHECK_EQ_INT(dropped, 0);
    CHECK(results_close(r) == 0);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("identity") || tmp_link_configs())
        return 1;
    RUN(resolved_form_ignores_form_and_sees_settings);
    RUN(a_changed_config_under_a_used_name_is_refused);
    RUN(older_files_get_their_hashes_on_open);
    RUN(merge_refuses_a_name_whose_hash_differs);
    RUN(an_interrupted_run_is_replaced_not_counted_twice);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

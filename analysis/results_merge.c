/*
 * results_merge.c -- merging a shard's results file into another: the
 * shard is attached and copied with set-based INSERT ... SELECTs in one
 * transaction, through two temporary id maps (experiments, runs).
 */
#include "results_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static const char *const merge_sql[] = {
    "CREATE TEMP TABLE merge_exp (src_id INTEGER PRIMARY KEY, dst_id INTEGER)",
    "CREATE TEMP TABLE merge_run (src_id INTEGER PRIMARY KEY, dst_id INTEGER)",
    /* [2] New experiments: those whose name + config_hash dst lacks. */
    "INSERT INTO main.experiments (name, config_path, config_text, created_at, program_version,"
    " config_resolved, config_hash)"
    " SELECT name, config_path, config_text, created_at, program_version, resolved, hash"
    " FROM merge_src_exp s WHERE NOT EXISTS (SELECT 1 FROM main.experiments d"
    "  WHERE d.name = s.name AND d.config_hash IS s.hash)"
    " AND s.src_id = (SELECT min(src_id) FROM merge_src_exp s2"
    "  WHERE s2.name = s.name AND s2.hash IS s.hash)"
    " ORDER BY s.src_id",
    "INSERT INTO merge_exp SELECT s.src_id, (SELECT min(d.id) FROM main.experiments d"
    " WHERE d.name = s.name AND d.config_hash IS s.hash) FROM merge_src_exp s",
    /* [4] Runs dst does not hold yet get ids after dst's largest. */
    "INSERT INTO merge_run SELECT s.id,"
    " (SELECT coalesce(max(id), 0) FROM main.runs) + row_number() OVER (ORDER BY s.id)"
    " FROM msrc.runs s JOIN merge_exp e ON e.src_id = s.experiment_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.runs d WHERE d.experiment_id = e.dst_id"
    "  AND d.run_index = s.run_index AND d.seed = s.seed AND d.params = s.params)",
    "INSERT INTO main.runs (id, experiment_id, run_index, params, seed, program_version,"
    " status, error, started_at, finished_at, wall_seconds, hostname, pid)"
    " SELECT m.dst_id, e.dst_id, run_index, params, seed, program_version, status, error,"
    " started_at, finished_at, wall_seconds, hostname, pid"
    " FROM msrc.runs s JOIN merge_run m ON m.src_id = s.id"
    " JOIN merge_exp e ON e.src_id = s.experiment_id ORDER BY s.id",
};

/* "INSERT INTO main.T (run_id, cols) SELECT m.dst_id, cols FROM msrc.T ..."
 * with the columns both files' T have, so that new columns need no edit
 * here (those a shard of an older version lacks stay NULL). */
static int copy_run_table(struct results *r, const char *table)
{
    static const char cols_sql[] =
        "SELECT group_concat(name, ', ') FROM (SELECT name FROM pragma_table_info(?1, 'main')"
        " WHERE name <> 'run_id'"
        "  AND name IN (SELECT name FROM pragma_table_info(?1, 'msrc')) ORDER BY cid)";
    sqlite3_stmt *st;
    char sql[2048];
    int rc = -1;
    if (sqlite3_prepare_v2(r->db, cols_sql, -1, &st, NULL) != SQLITE_OK)
        return results_fail(r, "merge: columns");
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        const char *cols = (const char *)sqlite3_column_text(st, 0);
        int n = snprintf(sql, sizeof sql,
                         "INSERT INTO main.%s (run_id, %s) SELECT m.dst_id, %s FROM msrc.%s s"
                         " JOIN merge_run m ON m.src_id = s.run_id ORDER BY s.rowid",
                         table, cols, cols, table);
        rc = n > 0 && (size_t)n < sizeof sql ? 0 : results_failf(r, "merge: %s: too many columns", table);
    } else {
        results_fail(r, "merge: columns");
    }
    sqlite3_finalize(st);
    if (!rc && sqlite3_exec(r->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        rc = results_fail(r, table);
    return rc;
}

/* src must be an existing results file, of this schema version or an
 * older one (version 1 files may lack the tables version 2 added: those
 * are skipped), and not dst. */
static int check_src(struct results *r, const char *src_path)
{
    sqlite3 *db = NULL;
    int64_t v = 0;
    int rc = sqlite3_open_v2(src_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK ? 0 : -1;
    if (rc)
        results_failf(r, "cannot open: %s", sqlite3_errmsg(db));
    else
        rc = results_check_header(r, db, &v);
    sqlite3_close(db);
    if (!rc && v == 0)
        rc = results_failf(r, "an empty file, no results in it");

    struct stat a, b;
    const char *dst_path = sqlite3_db_filename(r->db, "main");
    if (!rc && dst_path && *dst_path && !stat(src_path, &a) && !stat(dst_path, &b) &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        rc = results_failf(r, "it is the database merged into");
    return rc;
}

static int step_count(struct results *r, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return results_fail(r, "merge: count");
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : results_fail(r, "merge: count");
    *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc;
}

/* temp.merge_src_exp: src's experiments with their resolved configs and
 * hashes (made now with dst's resolver for a file written before them). */
static int load_src_experiments(struct results *r)
{
    sqlite3_stmt *sel = NULL, *ins = NULL;
    int64_t has_hash = 0;
    int rc = step_count(r, "SELECT count(*) FROM pragma_table_info('experiments', 'msrc')"
                        " WHERE name = 'config_hash'", &has_hash);
    if (!rc && results_exec(r, "CREATE TEMP TABLE merge_src_exp (src_id INTEGER PRIMARY KEY,"
                            " name, config_path, config_text, created_at, program_version,"
                            " resolved, hash)"))
        rc = -1;
    const char *sql = has_hash
        ? "SELECT id, name, config_path, config_text, created_at, program_version,"
          " config_resolved, config_hash FROM msrc.experiments ORDER BY id"
        : "SELECT id, name, config_path, config_text, created_at, program_version,"
          " NULL, NULL FROM msrc.experiments ORDER BY id";
    if (!rc && (sqlite3_prepare_v2(r->db, sql, -1, &sel, NULL) != SQLITE_OK ||
                sqlite3_prepare_v2(r->db, "INSERT INTO merge_src_exp VALUES (?,?,?,?,?,?,?,?)",
                                   -1, &ins, NULL) != SQLITE_OK))
        rc = results_fail(r, "merge: experiments");
    int s = SQLITE_DONE;
    while (!rc && (s = sqlite3_step(sel)) == SQLITE_ROW) {
        for (int c = 0; c < 6; c++)
            sqlite3_bind_value(ins, c + 1, sqlite3_column_value(sel, c));
        char *res = NULL, hash[RESULTS_HASH_HEX + 1];
        if (sqlite3_column_type(sel, 7) == SQLITE_NULL) {
            if (!(res = results_resolve_or_raw(r, (const char *)sqlite3_column_text(sel, 3))))
                rc = -1;
            else
                results_config_hash(res, hash);
        } else {
            snprintf(hash, sizeof hash, "%s", (const char *)sqlite3_column_text(sel, 7));
        }
        if (res)
            sqlite3_bind_text(ins, 7, res, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_value(ins, 7, sqlite3_column_value(sel, 6));
        sqlite3_bind_text(ins, 8, hash, -1, SQLITE_TRANSIENT);
        free(res);
        if (!rc)
            rc = results_step_done(r, ins, "merge: experiments");
    }
    if (!rc && s != SQLITE_DONE)
        rc = results_fail(r, "merge: experiments");
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    return rc;
}

/* Refuse a name whose config hash differs, between src and dst or
 * within src: its runs would be counted as one experiment's. */
static int check_hashes(struct results *r)
{
    static const char sql[] =
        "SELECT s.name, s.hash, o.hash, s.resolved, o.resolved, o.where_ FROM merge_src_exp s"
        " JOIN (SELECT name, config_hash AS hash, config_resolved AS resolved,"
        "  'in the database merged into' AS where_ FROM main.experiments"
        "  UNION ALL SELECT name, hash, resolved, 'in another experiment row of the shard' FROM merge_src_exp) o"
        " ON o.name = s.name AND o.hash IS NOT s.hash"
        " WHERE NOT EXISTS (SELECT 1 FROM main.experiments d"
        "  WHERE d.name = s.name AND d.config_hash IS s.hash)"
        " ORDER BY s.src_id LIMIT 1";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return results_fail(r, "merge: config hashes");
    int s = sqlite3_step(st), rc = 0;
    if (s == SQLITE_ROW) {
        char diff[1024];
        results_config_diff((const char *)sqlite3_column_text(st, 3),
                            (const char *)sqlite3_column_text(st, 4), "in the shard",
                            (const char *)sqlite3_column_text(st, 5), diff, sizeof diff);
        rc = results_failf(r, "experiment '%s' has config hash %s in the shard but %s %s: "
                           "their runs would mix (keys that differ: %s); run the shard under "
                           "another name (flashlab run --as NEWNAME) or merge into another "
                           "database", (const char *)sqlite3_column_text(st, 0),
                           (const char *)sqlite3_column_text(st, 1),
                           (const char *)sqlite3_column_text(st, 2),
                           (const char *)sqlite3_column_text(st, 5), diff);
    } else if (s != SQLITE_DONE) {
        rc = results_fail(r, "merge: config hashes");
    }
    sqlite3_finalize(st);
    return rc;
}

static int merge_attached(struct results *r, struct results_merge_stats *st)
{
    int64_t src_runs = 0;
    int rc = results_exec(r, "DROP TABLE IF EXISTS temp.merge_exp; DROP TABLE IF EXISTS temp.merge_run;"
                          " DROP TABLE IF EXISTS temp.merge_src_exp");
    if (!rc)
        rc = results_fill_hashes(r);
    if (!rc)
        rc = load_src_experiments(r);
    if (!rc)
        rc = check_hashes(r);
    for (size_t k = 0; !rc && k < sizeof merge_sql / sizeof merge_sql[0]; k++) {
        if (sqlite3_exec(r->db, merge_sql[k], NULL, NULL, NULL) != SQLITE_OK)
            rc = results_fail(r, "merge");
        else if (k == 2)
            st->experiments_added = sqlite3_changes(r->db);
        else if (k == 4)
            st->runs_copied = sqlite3_changes(r->db);
    }
    for (size_t k = 0; !rc && results_run_tables[k]; k++) {
        /* a version 1 file may lack a table version 2 added */
        char sql[160];
        int64_t has = 0;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM msrc.sqlite_master"
                 " WHERE type = 'table' AND name = '%s'", results_run_tables[k]);
        if (!(rc = step_count(r, sql, &has)) && has)
            rc = copy_run_table(r, results_run_tables[k]);
    }
    if (!rc)
        rc = step_count(r, "SELECT count(*) FROM msrc.runs", &src_runs);
    st->runs_skipped = src_runs - st->runs_copied;
    if (!rc)
        rc = results_exec(r, "DROP TABLE temp.merge_exp; DROP TABLE temp.merge_run;"
                          " DROP TABLE temp.merge_src_exp");
    return rc;
}

int results_merge(struct results *dst, const char *src_path, struct results_merge_stats *st)
{
    struct results_merge_stats local = {0, 0, 0};
    sqlite3_stmt *att = NULL;
    char why[sizeof dst->err];
    if (!st)
        st = &local;
    *st = local;
    if (results_flush(dst))
        return -1;
    if (check_src(dst, src_path)) {
        snprintf(why, sizeof why, "%s", dst->err);
        return results_failf(dst, "merge %s: %s", src_path, why);
    }
    /* ATTACH takes the file name as a bound value; not inside a transaction. */
    if (sqlite3_prepare_v2(dst->db, "ATTACH DATABASE ?1 AS msrc", -1, &att, NULL) != SQLITE_OK)
        return results_fail(dst, "merge: attach");
    sqlite3_bind_text(att, 1, src_path, -1, SQLITE_STATIC);
    int rc = results_step_done(dst, att, "merge: attach");
    sqlite3_finalize(att);
    if (rc)
        return -1;
    if (!(rc = results_txn_begin(dst)))
        rc = results_txn_end(dst, merge_attached(dst, st));
    if (rc) {
        snprintf(why, sizeof why, "%s", dst->err);
        results_failf(dst, "merge %s: %s", src_path, why);
        *st = local; /* rolled back: nothing was added */
    }
    sqlite3_exec(dst->db, "DETACH DATABASE msrc", NULL, NULL, NULL);
    return rc;
}

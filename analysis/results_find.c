/* results_find.c -- has this run been done already?  What `flashlab run`
 * asks before each run, so that running an experiment again resumes it
 * instead of adding the same runs twice. */
#include "results_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int results_find_complete_run(struct results *r, const char *exp_name, const char *params_json,
                              uint64_t seed, int64_t *run_id, char *version, size_t vlen)
{
    static const char sql[] =
        "SELECT r.id, coalesce(r.program_version, '') FROM runs r"
        " JOIN experiments e ON e.id = r.experiment_id"
        " WHERE e.name = ?1 AND r.params = json(?2) AND r.seed = ?3"
        "   AND r.status = 'complete' ORDER BY r.id DESC LIMIT 1";
    sqlite3_stmt *st;
    if (results_flush(r))
        return -1;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return results_fail(r, "find run");
    sqlite3_bind_text(st, 1, exp_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, params_json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (int64_t)seed); /* stored as these bits */
    int rc = sqlite3_step(st), found = 0;
    if (rc == SQLITE_ROW) {
        found = 1;
        *run_id = sqlite3_column_int64(st, 0);
        if (version && vlen)
            snprintf(version, vlen, "%s", (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? found : results_fail(r, "find run");
}

const char *const results_run_tables[] = {"samples", "erase_counts", "mounts", "gc_events",
                                          "latency", "powercuts", "kv", "retention", "faults",
                                          NULL};

int results_replace_incomplete(struct results *r, int64_t exp_id, const char *params_json,
                               uint64_t seed, int64_t *dropped)
{
    static const char find[] =
        "CREATE TEMP TABLE IF NOT EXISTS drop_runs (id INTEGER PRIMARY KEY);"
        "DELETE FROM drop_runs;";
    sqlite3_stmt *st = NULL;
    *dropped = 0;
    if (results_flush(r) || results_txn_begin(r))
        return -1;
    int rc = results_exec(r, find);
    if (!rc && sqlite3_prepare_v2(r->db, "INSERT INTO drop_runs SELECT id FROM runs"
                                  " WHERE experiment_id = ?1 AND params = json(?2)"
                                  " AND seed = ?3 AND status = 'incomplete'",
                                  -1, &st, NULL) != SQLITE_OK)
        rc = results_fail(r, "replace incomplete runs");
    if (!rc) {
        sqlite3_bind_int64(st, 1, exp_id);
        sqlite3_bind_text(st, 2, params_json, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (int64_t)seed);
        rc = results_step_done(r, st, "replace incomplete runs");
        *dropped = rc ? 0 : sqlite3_changes(r->db);
    }
    sqlite3_finalize(st);
    for (size_t k = 0; !rc && *dropped && results_run_tables[k]; k++) {
        char sql[160];
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run_id IN drop_runs",
                 results_run_tables[k]);
        if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) != SQLITE_OK)
            rc = results_fail(r, results_run_tables[k]);
    }
    if (!rc && *dropped)
        rc = results_exec(r, "DELETE FROM runs WHERE id IN drop_runs");
    return results_txn_end(r, rc);
}

/* "NAME@h1 (3 runs), NAME@h2 (1 run)": the configs of experiments called
 * name, into out. */
static void list_configs(sqlite3 *db, const char *name, int hashed, char *out, size_t cap)
{
    sqlite3_stmt *st;
    out[0] = 0;
    const char *sql = hashed
        ? "SELECT e.config_hash, (SELECT count(*) FROM runs r WHERE r.experiment_id = e.id)"
          " FROM experiments e WHERE e.name = ?1 ORDER BY e.id"
        : "SELECT NULL, 0 FROM experiments WHERE 0";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        size_t n = strlen(out);
        int64_t runs = sqlite3_column_int64(st, 1);
        const char *h = (const char *)sqlite3_column_text(st, 0);
        if (n + 1 < cap)
            snprintf(out + n, cap - n, "%s%s@%s (%" PRId64 " run%s)", n ? ", " : "", name,
                     h ? h : "?", runs, runs == 1 ? "" : "s");
    }
    sqlite3_finalize(st);
}

int results_select_experiments(struct sqlite3 *db, const char *spec, char **ids_json, char *err,
                               size_t errlen)
{
    *ids_json = NULL;
    if (!spec)
        return 0;
    sqlite3_stmt *st;
    int hashed = 0;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info('experiments')"
                           " WHERE name = 'config_hash'", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        hashed = sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    /* NAME@PREFIX, unless an experiment is called that, '@' and all */
    char name[256], prefix[RESULTS_HASH_HEX + 1] = "";
    const char *at = strrchr(spec, '@');
    snprintf(name, sizeof name, "%.*s", at ? (int)(at - spec) : (int)strlen(spec), spec);
    if (at && sqlite3_prepare_v2(db, "SELECT 1 FROM experiments WHERE name = ?1", -1, &st,
                                 NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, spec, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            snprintf(name, sizeof name, "%s", spec);
            at = NULL;
        }
        sqlite3_finalize(st);
    }
    if (at) {
        size_t n = strlen(at + 1);
        if (!n || n > RESULTS_HASH_HEX || strspn(at + 1, "0123456789abcdef") != n) {
            snprintf(err, errlen, "bad experiment '%s': NAME or NAME@HASH, HASH the first "
                     "hex digits (1..%d) of its config_hash", spec, RESULTS_HASH_HEX);
            return -1;
        }
        if (!hashed) {
            snprintf(err, errlen, "experiment '%s': this database has no config hashes yet "
                     "(written before schema version 3); select by name, or let flashlab run "
                     "or merge open it once to add them", spec);
            return -1;
        }
        memcpy(prefix, at + 1, n + 1);
    }
    const char *sql = hashed
        ? "SELECT json_group_array(id), count(DISTINCT config_hash) FROM experiments"
          " WHERE name = ?1 AND substr(config_hash, 1, length(?2)) = ?2"
        : "SELECT json_group_array(id), 1 FROM experiments WHERE name = ?1";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "selecting experiment '%s': %s", spec, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, prefix, -1, SQLITE_STATIC);
    int rc = 0;
    if (sqlite3_step(st) != SQLITE_ROW) {
        snprintf(err, errlen, "selecting experiment '%s': %s", spec, sqlite3_errmsg(db));
        rc = -1;
    } else if (sqlite3_column_int(st, 1) > 1 || (at && !strcmp(
                   (const char *)sqlite3_column_text(st, 0), "[]"))) {
        char list[768];
        list_configs(db, name, hashed, list, sizeof list);
        if (sqlite3_column_int(st, 1) > 1)
            snprintf(err, errlen, "experiment '%s' has several configs in this database, "
                     "whose runs must not be mixed: %s; choose one with NAME@HASH", spec, list);
        else
            snprintf(err, errlen, "no experiment '%s' in this database%s%s", spec,
                     list[0] ? "; it has " : "", list);
        rc = -1;
    } else if (!(*ids_json = strdup((const char *)sqlite3_column_text(st, 0)))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}

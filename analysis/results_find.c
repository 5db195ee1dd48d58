/* results_find.c -- has this run been done already?  What `flashlab run`
 * asks before each run, so that running an experiment again resumes it
 * instead of adding the same runs twice. */
#include "results_impl.h"

#include <stdio.h>
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

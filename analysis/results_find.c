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

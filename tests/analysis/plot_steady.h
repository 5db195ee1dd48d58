/*
 * plot_steady.h -- what the runner writes at a run's end for wa-util
 * (kv utilisation and wa_steady, docs/results-schema.md), made up for the
 * plot fixtures' hand-written runs: the measured utilisation is the
 * run's utilisation parameter (or workload.fill, or 1 - spare), and the
 * steady-state WA its last sample's WA, so that the fixtures' expected
 * points stay those of their parameters and samples.
 */
#ifndef FLASHLAB_PLOT_STEADY_H
#define FLASHLAB_PLOT_STEADY_H

#include <sqlite3.h>

static inline int plot_fixture_steady(sqlite3 *db)
{
    static const char sql[] =
        "INSERT OR REPLACE INTO kv SELECT id, 'utilisation',"
        " coalesce(json_extract(params, '$.utilisation'),"
        "          json_extract(params, '$.workload.fill'),"
        "          1.0 - json_extract(params, '$.spare')) AS u FROM runs WHERE u IS NOT NULL;"
        "INSERT OR REPLACE INTO kv SELECT run_id, 'wa_steady', wa FROM samples s"
        " WHERE wa IS NOT NULL AND seq = (SELECT max(seq) FROM samples"
        "  WHERE run_id = s.run_id AND wa IS NOT NULL);";
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

#endif

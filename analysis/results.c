/*
 * results.c -- opening the results database: schema, version checks,
 * connection settings, closing; errors; marking stale runs.
 * docs/results-schema.md describes the tables.
 */
#include "results_impl.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* The tables of schema version 1; version 2 adds the faults and
 * retention tables below (create_schema migrates version 1 files: it adds
 * them and sets the version); rows of earlier runs are never rewritten. */
static const char schema_v1[] =
    "CREATE TABLE experiments ("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL, config_path TEXT,"
    " config_text TEXT, created_at TEXT NOT NULL, program_version TEXT);"
    "CREATE INDEX experiments_name ON experiments(name);"
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY,"
    " experiment_id INTEGER NOT NULL REFERENCES experiments(id),"
    " run_index INTEGER NOT NULL, params TEXT NOT NULL, seed INTEGER NOT NULL,"
    " program_version TEXT,"
    " status TEXT NOT NULL"
    "  CHECK (status IN ('running', 'complete', 'failed', 'incomplete')),"
    " error TEXT, started_at TEXT NOT NULL, finished_at TEXT, wall_seconds REAL,"
    " hostname TEXT, pid INTEGER);"
    "CREATE INDEX runs_experiment ON runs(experiment_id, run_index);"
    "CREATE INDEX runs_status ON runs(status);"
    "CREATE TABLE samples ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,"
    " sim_time_ns INTEGER, host_bytes INTEGER, flash_bytes_programmed INTEGER,"
    " data_pages INTEGER, meta_pages INTEGER, anchor_pages INTEGER,"
    " gc_pages INTEGER, erases INTEGER, wa REAL, free_segments INTEGER,"
    " gc_time_ns INTEGER, gc_invocations INTEGER);"
    "CREATE INDEX samples_run ON samples(run_id, seq);"
    "CREATE TABLE erase_counts ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,"
    " block INTEGER NOT NULL, erases INTEGER NOT NULL);"
    "CREATE INDEX erase_counts_run ON erase_counts(run_id, seq);"
    "CREATE TABLE mounts ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), fs_kind TEXT,"
    " device_bytes INTEGER, fill_fraction REAL, clean INTEGER CHECK (clean IN (0, 1)),"
    " sim_latency_ns INTEGER, flash_time_ns INTEGER, cpu_time_ns INTEGER,"
    " pages_read INTEGER, bytes_read INTEGER, ram_bytes INTEGER, wall_ns INTEGER);"
    "CREATE INDEX mounts_run ON mounts(run_id);"
    "CREATE TABLE gc_events ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), sim_time_ns INTEGER,"
    " victim INTEGER, live_units INTEGER, moved_pages INTEGER,"
    " duration_ns INTEGER, policy TEXT);"
    "CREATE INDEX gc_events_run ON gc_events(run_id);"
    "CREATE TABLE latency ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), op TEXT NOT NULL,"
    " count INTEGER, p50_ns INTEGER, p99_ns INTEGER, p999_ns INTEGER,"
    " max_ns INTEGER, mean_ns REAL);"
    "CREATE INDEX latency_run ON latency(run_id);"
    "CREATE TABLE powercuts ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), cut_point INTEGER,"
    " cut_kind TEXT, outcome TEXT, detail TEXT);"
    "CREATE INDEX powercuts_run ON powercuts(run_id);"
    "CREATE TABLE kv ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), key TEXT NOT NULL, value,"
    " UNIQUE (run_id, key));"
    "PRAGMA application_id = " STR(RESULTS_APP_ID) ";"
    "PRAGMA user_version = 1;";

/* The `final` view: one row per run with its final metrics (the last
 * sample), its measured utilisation and steady-state WA (kv, written at
 * the run's end), its swept settings and why it stopped
 * (docs/results-schema.md).  A view adds no rows: created with the
 * schema, and replaced by upgrade_wa_columns in older files. */
#define KV(key) "(SELECT value FROM kv WHERE kv.run_id = r.id AND kv.key = '" key "')"
static const char final_view[] =
    "CREATE VIEW IF NOT EXISTS final AS"
    " SELECT r.id AS run_id, e.name AS experiment, r.run_index, r.seed, r.status,"
    "  json_extract(r.params, '$.sweep') AS sweep,"
    "  coalesce(json_extract(r.params, '$.fs.kind'), 'logfs') AS fs_kind,"
    "  json_extract(r.params, '$.fs.gc_policy') AS gc_policy,"
    "  " KV("utilisation") " AS utilisation,"
    "  s.host_bytes, s.flash_bytes_programmed AS flash_bytes, s.wa,"
    "  " KV("wa_steady") " AS wa_steady, " KV("wa_total_steady") " AS wa_total_steady,"
    "  " KV("steady_reached") " AS steady_reached, s.erases,"
    "  s.gc_invocations AS gc_victims, s.gc_time_ns, s.free_segments, s.sim_time_ns,"
    "  " KV("stop_reason") " AS stop_reason,"
    "  r.wall_seconds, r.params"
    " FROM runs r JOIN experiments e ON e.id = r.experiment_id"
    " LEFT JOIN samples s ON s.run_id = r.id"
    "  AND s.seq = (SELECT max(seq) FROM samples WHERE samples.run_id = r.id);";
#undef KV

/* The `retention` table (docs/results-schema.md): one row per check of a
 * retention phase.  Version 2, as the faults table. */
static const char retention_table[] =
    "CREATE TABLE IF NOT EXISTS retention ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,"
    " sim_time_ns INTEGER, files INTEGER, lost_files INTEGER, ever_lost INTEGER,"
    " uncorrectable_reads INTEGER, bits_corrected INTEGER, programs INTEGER,"
    " erases INTEGER, scrub_reads INTEGER, scrub_segments INTEGER, scrub_pages INTEGER);"
    "CREATE INDEX IF NOT EXISTS retention_run ON retention(run_id, seq);";

int results_fail(struct results *r, const char *what)
{
    const char *msg = r->db ? sqlite3_errmsg(r->db) : NULL;
    if (msg && strcmp(msg, "not an error"))
        snprintf(r->err, sizeof r->err, "%s: %s", what, msg);
    else
        snprintf(r->err, sizeof r->err, "%s", what);
    return -1;
}

int results_failf(struct results *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return -1;
}

int results_exec(struct results *r, const char *sql)
{
    return sqlite3_exec(r->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : results_fail(r, "sql");
}

int results_txn_begin(struct results *r)
{
    return sqlite3_exec(r->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK
               ? 0 : results_fail(r, "begin transaction");
}

int results_txn_end(struct results *r, int rc)
{
    if (rc == 0 && sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    if (rc == 0)
        results_fail(r, "commit");
    if (!sqlite3_get_autocommit(r->db))
        sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int results_step_done(struct results *r, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    int ok = rc == SQLITE_DONE ? 0 : results_fail(r, what);
    sqlite3_reset(st);
    return ok;
}

void results_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len))
        buf[0] = 0;
    buf[len - 1] = 0;
}

int results_check_header(struct results *r, sqlite3 *db, int64_t *version)
{
    /* One statement, so one snapshot: another process may be creating the
     * schema at this moment. */
    static const char sql[] =
        "SELECT (SELECT user_version FROM pragma_user_version),"
        " (SELECT application_id FROM pragma_application_id),"
        " (SELECT count(*) FROM sqlite_master)";
    sqlite3_stmt *st = NULL;
    int64_t app = 0, ntables = 0;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *version = sqlite3_column_int64(st, 0);
        app = sqlite3_column_int64(st, 1);
        ntables = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
        /* The first read of the file is where a non-database shows. */
        if (sqlite3_errcode(db) == SQLITE_NOTADB)
            return results_failf(r, "not an SQLite database");
        return results_failf(r, "cannot read: %s", sqlite3_errmsg(db));
    }
    if (*version == 0 && ntables == 0)
        return 0; /* empty: ours to create */
    if (app != RESULTS_APP_ID)
        return results_failf(r, "an SQLite database, but not a flashlab results one "
                            "(application_id 0x%llx)", (unsigned long long)app);
    if (*version > RESULTS_SCHEMA_VERSION)
        return results_failf(r, "results schema version %lld is newer than this program "
                            "supports (%d); use a newer flashlab",
                         (long long)*version, RESULTS_SCHEMA_VERSION);
    if (*version < 1)
        return results_failf(r, "results schema version %lld is not valid", (long long)*version);
    return 0;
}

/* Version 2 (first added to version 1 without a version change: version
 * 1 files may or may not have it; they gain it when opened for writing). */
static const char faults_table[] =
    "CREATE TABLE IF NOT EXISTS faults ("
    " run_id INTEGER NOT NULL REFERENCES runs(id), point INTEGER, fault TEXT, class TEXT,"
    " block INTEGER, page INTEGER, outcome TEXT, mounted INTEGER, state TEXT,"
    " rolled_back INTEGER, flagged INTEGER, files INTEGER, files_eio INTEGER,"
    " files_wrong INTEGER, files_missing INTEGER, crashed INTEGER, fsck TEXT, after_write TEXT,"
    " detail TEXT);"
    "CREATE INDEX IF NOT EXISTS faults_run ON faults(run_id);";

/* Add table.column (of SQL type) unless the file has it already, so that
 * each step below is a no-op on a file that has had it. */
static int add_column(struct results *r, const char *table, const char *column,
                      const char *type)
{
    char sql[160];
    sqlite3_stmt *st;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'",
             table, column);
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return results_fail(r, "schema version 3");
    int has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", table, column, type);
    if (has || sqlite3_exec(r->db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    snprintf(sql, sizeof sql, "schema version 3: %s.%s", table, column);
    return results_fail(r, sql);
}

/* Version 3: an experiment's identity is its name and the hash of its
 * resolved config (docs/results-schema.md).  Adds the two columns (NULL
 * in the rows already there: results_fill_hashes gives them theirs with
 * the handle's resolver, results_set_resolver) and an index. */
static int upgrade_config_hash(struct results *r)
{
    if (add_column(r, "experiments", "config_resolved", "TEXT") ||
        add_column(r, "experiments", "config_hash", "TEXT"))
        return -1;
    if (sqlite3_exec(r->db, "CREATE INDEX IF NOT EXISTS experiments_hash"
                     " ON experiments(name, config_hash)", NULL, NULL, NULL) != SQLITE_OK)
        return results_fail(r, "schema version 3: index");
    return 0;
}

/* Version 3, the measures (docs/results-schema.md): each sample's interval WA
 * (data and total) and utilisation, and the final view with the run's
 * utilisation and steady-state WA.  Older samples keep NULL there; the
 * run-level values of older runs stay NULL (their kv lacks them). */
static int upgrade_wa_columns(struct results *r)
{
    if (add_column(r, "samples", "wa_interval", "REAL") ||
        add_column(r, "samples", "wa_total_interval", "REAL") ||
        add_column(r, "samples", "utilisation", "REAL"))
        return -1;
    if (sqlite3_exec(r->db, "DROP VIEW IF EXISTS final", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(r->db, final_view, NULL, NULL, NULL) != SQLITE_OK)
        return results_fail(r, "upgrading to schema version 3");
    return 0;
}

/* Create the schema if the file is empty, or bring an older one up to
 * this version, step by step, under the write lock so that processes
 * opening one file at once do it once. */
static int create_schema(struct results *r)
{
    int64_t v = 0;
    if (results_txn_begin(r))
        return -1;
    int rc = results_check_header(r, r->db, &v);
    if (!rc && v == 0) {
        if (sqlite3_exec(r->db, schema_v1, NULL, NULL, NULL) != SQLITE_OK)
            rc = results_fail(r, "creating the schema");
        v = 1;
    }
    /* version 1 -> 2: the faults and retention tables */
    if (!rc && sqlite3_exec(r->db, faults_table, NULL, NULL, NULL) != SQLITE_OK)
        rc = results_fail(r, "creating the faults table");
    if (!rc && sqlite3_exec(r->db, retention_table, NULL, NULL, NULL) != SQLITE_OK)
        rc = results_fail(r, "creating the retention table");
    /* version 1 or 2 -> 3: the measures' columns, then the identity */
    if (!rc && v < 3)
        rc = upgrade_wa_columns(r);
    if (!rc)
        rc = upgrade_config_hash(r);
    if (!rc && sqlite3_exec(r->db, final_view, NULL, NULL, NULL) != SQLITE_OK)
        rc = results_fail(r, "creating the final view");
    if (!rc && v < RESULTS_SCHEMA_VERSION &&
        sqlite3_exec(r->db, "PRAGMA user_version = " STR(RESULTS_SCHEMA_VERSION), NULL, NULL,
                     NULL) != SQLITE_OK)
        rc = results_fail(r, "migrating to schema version " STR(RESULTS_SCHEMA_VERSION));
    return results_txn_end(r, rc);
}

/* Switching to WAL needs an exclusive lock and SQLite does not call the
 * busy handler for it, so retry while other processes hold the file. */
static int set_wal(struct results *r)
{
    for (int tries = 0;; tries++) {
        int rc = sqlite3_exec(r->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if ((rc & 0xff) != SQLITE_BUSY || tries >= 6000) /* 60 s, as the busy timeout */
            return results_fail(r, "journal_mode = WAL");
        usleep(10000);
    }
}

/* Connection settings: WAL lets readers run beside one writer and makes
 * commits cheap; the busy timeout makes writers of one file wait their turn. */
static int configure(struct results *r)
{
    sqlite3_busy_timeout(r->db, 60000);
    sqlite3_extended_result_codes(r->db, 1);
    int64_t v = 0;
    if (results_check_header(r, r->db, &v))
        return -1; /* before anything writes to a file that is not ours */
    if (set_wal(r) || results_exec(r, "PRAGMA synchronous = NORMAL") ||
        results_exec(r, "PRAGMA foreign_keys = ON") || results_exec(r, "PRAGMA temp_store = MEMORY"))
        return -1;
    return create_schema(r);
}

int results_open(const char *path, struct results **out, char *err, size_t errlen)
{
    *out = NULL;
    struct results *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &r->db, flags, NULL) != SQLITE_OK)
        results_fail(r, "cannot open");
    else if (configure(r) == 0) {
        *out = r;
        return 0;
    }
    snprintf(err, errlen, "%s: %s", path, r->err);
    sqlite3_close(r->db);
    free(r);
    return -1;
}

int results_close(struct results *r)
{
    if (!r)
        return 0;
    int rc = results_flush(r);
    if (rc) /* the caller cannot ask once r is gone */
        fprintf(stderr, "results: rows lost at close: %s\n", r->err);
    results_queue_clear(r);
    free(r->q);
    for (int k = 0; k < RS_COUNT; k++)
        sqlite3_finalize(r->st[k]);
    if (sqlite3_close(r->db) != SQLITE_OK) {
        fprintf(stderr, "results: close: %s\n", sqlite3_errmsg(r->db));
        rc = -1;
    }
    free(r);
    return rc;
}

const char *results_error(const struct results *r)
{
    return r ? r->err : "no results handle";
}

struct sqlite3 *results_db(struct results *r)
{
    results_flush(r);
    return r->db;
}

const char *results_status_name(enum results_status s)
{
    static const char *const names[] = {"running", "complete", "failed", "incomplete"};
    return (unsigned)s < 4 ? names[s] : NULL;
}

/* SQL function pid_gone(pid): 1 if no process has that pid here.  EPERM
 * means it exists under another user.  A zombie still counts as alive. */
static void pid_gone(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    int64_t pid = sqlite3_value_int64(argv[0]);
    int gone = 0;
    if (pid > 0 && pid <= 0x7fffffff && pid != getpid())
        gone = kill((pid_t)pid, 0) != 0 && errno == ESRCH;
    sqlite3_result_int(ctx, gone);
}

int results_mark_stale(struct results *r, int64_t *marked)
{
    static const char sql[] =
        "UPDATE runs SET status = 'incomplete', error = coalesce(error,"
        " 'process ' || pid || ' on ' || hostname || ' exited before the run ended')"
        " WHERE status = 'running' AND hostname = ?1 AND pid_gone(pid)";
    char host[256];
    sqlite3_stmt *st = NULL;
    if (marked)
        *marked = 0;
    results_hostname(host, sizeof host);
    if (!host[0])
        return results_failf(r, "mark stale: this host has no name");
    if (results_flush(r))
        return -1;
    if (sqlite3_create_function(r->db, "pid_gone", 1, SQLITE_UTF8, NULL, pid_gone, NULL,
                                NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return results_fail(r, "mark stale");
    }
    sqlite3_bind_text(st, 1, host, -1, SQLITE_TRANSIENT);
    int rc = results_step_done(r, st, "mark stale");
    if (!rc && marked)
        *marked = sqlite3_changes(r->db);
    sqlite3_finalize(st);
    return rc;
}

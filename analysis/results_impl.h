/*
 * results_impl.h -- what results.c, results_write.c and results_merge.c
 * share: the handle, the statement cache and the error helpers.  Not for
 * users of the results API.
 */
#ifndef FLASHLAB_RESULTS_IMPL_H
#define FLASHLAB_RESULTS_IMPL_H
#include "results.h"

#include <sqlite3.h>

#define RESULTS_APP_ID 0x464c4142 /* "FLAB" in PRAGMA application_id */
#define RESULTS_MAX_COLS 20       /* bound values per queued row */
#define RESULTS_FLUSH_SECONDS 5   /* oldest queued row older: flush */

/* Prepared statements, made on first use (SQL in results_write.c). */
enum results_stmt {
    RS_SAMPLE, RS_ERASE, RS_MOUNT, RS_GC, RS_LATENCY, RS_POWERCUT, RS_FAULT, RS_KV,
    RS_RETENTION,
    RS_EXP_FIND, RS_EXP_ADD, RS_RUN_ADD, RS_RUN_END,
    RS_COUNT
};

/* A value to bind later (rows are queued until the batch is written). */
struct res_val {
    enum { RV_NULL, RV_INT, RV_REAL, RV_TEXT } type;
    int64_t i;
    double d;
    char *s; /* owned */
};

struct res_row {
    enum results_stmt stmt;
    int n;
    struct res_val v[RESULTS_MAX_COLS];
};

struct results {
    sqlite3 *db;
    sqlite3_stmt *st[RS_COUNT];
    struct res_row *q; /* queued rows */
    size_t qlen, qcap;
    double q_since;    /* monotonic seconds when q became non-empty */
    results_resolve_fn resolve; /* NULL: config_text is its own resolved form */
    char err[2048];
};

/* Tables whose rows belong to a run (run_id first, no id of their own);
 * NULL-terminated. */
extern const char *const results_run_tables[];

/* Record "what: sqlite's message" (or just what when db has none); -1. */
int results_fail(struct results *r, const char *what);
/* printf-style error; -1. */
int results_failf(struct results *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Run SQL with no parameters and no result rows. */
int results_exec(struct results *r, const char *sql);
/* BEGIN IMMEDIATE (takes the write lock now, so no upgrade deadlock). */
int results_txn_begin(struct results *r);
/* Finish results_txn_begin: COMMIT when rc is 0, else ROLLBACK (keeping the error
 * already recorded).  Returns 0 only if committed. */
int results_txn_end(struct results *r, int rc);
/* Step a statement that returns no rows, then reset it; what names it in
 * the error. */
int results_step_done(struct results *r, sqlite3_stmt *st, const char *what);
/* Check that db holds a results schema this program can read; *version
 * gets its user_version (0: empty file, which is fine for a new DB). */
int results_check_header(struct results *r, sqlite3 *db, int64_t *version);
/* This host's name for runs.hostname ("" if unknown). */
void results_hostname(char *buf, size_t len);
/* The cached statement, reset and with bindings cleared; NULL on error. */
sqlite3_stmt *results_stmt(struct results *r, enum results_stmt which);
/* config_text's resolved form (malloc'd) by r's resolver; NULL on error. */
char *results_resolve(struct results *r, const char *config_text);
/* The same for a config written before hashes: one the resolver cannot
 * read (not an experiment file) is its own resolved form. */
char *results_resolve_or_raw(struct results *r, const char *config_text);
/* Inside a transaction: resolved configs and hashes for the experiments
 * lacking them (files written before hashes). */
int results_fill_hashes(struct results *r);
/* The keys two resolved configs differ in, into out: "a.b (X LA, Y LB),
 * c (not set LA, Z LB)", la and lb saying whose each value is. */
void results_config_diff(const char *a, const char *b, const char *la, const char *lb,
                         char *out, size_t cap);
/* Drop queued rows without writing them. */
void results_queue_clear(struct results *r);

#endif

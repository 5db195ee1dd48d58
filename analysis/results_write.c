/*
 * results_write.c -- writing the results database: experiments and runs
 * (committed at once) and the rows of a run (queued, then written in one
 * short transaction per batch).
 */
#include "results_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

static const struct {
    const char *what, *sql;
} stmts[RS_COUNT] = {
    [RS_SAMPLE] = {"samples",
                   "INSERT INTO samples (run_id, seq, sim_time_ns, host_bytes,"
                   " flash_bytes_programmed, data_pages, meta_pages, anchor_pages, gc_pages,"
                   " erases, wa, free_segments, gc_time_ns, gc_invocations, wa_interval,"
                   " wa_total_interval, utilisation)"
                   " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"},
    [RS_ERASE] = {"erase_counts",
                  "INSERT INTO erase_counts (run_id, seq, block, erases) VALUES (?,?,?,?)"},
    [RS_MOUNT] = {"mounts",
                  "INSERT INTO mounts (run_id, fs_kind, device_bytes, fill_fraction, clean,"
                  " sim_latency_ns, flash_time_ns, cpu_time_ns, pages_read, bytes_read,"
                  " ram_bytes, wall_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"},
    [RS_GC] = {"gc_events",
               "INSERT INTO gc_events (run_id, sim_time_ns, victim, live_units, moved_pages,"
               " duration_ns, policy) VALUES (?,?,?,?,?,?,?)"},
    [RS_LATENCY] = {"latency",
                    "INSERT INTO latency (run_id, op, count, p50_ns, p99_ns, p999_ns, max_ns,"
                    " mean_ns) VALUES (?,?,?,?,?,?,?,?)"},
    [RS_POWERCUT] = {"powercuts",
                     "INSERT INTO powercuts (run_id, cut_point, cut_kind, outcome, detail)"
                     " VALUES (?,?,?,?,?)"},
    [RS_RETENTION] = {"retention",
                      "INSERT INTO retention (run_id, seq, sim_time_ns, files, lost_files,"
                      " ever_lost, uncorrectable_reads, bits_corrected, programs, erases,"
                      " scrub_reads, scrub_segments, scrub_pages)"
                      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"},
    [RS_FAULT] = {"faults",
                  "INSERT INTO faults (run_id, point, fault, class, block, page, outcome,"
                  " mounted, state, rolled_back, flagged, files, files_eio, files_wrong,"
                  " files_missing, crashed, fsck, after_write, detail)"
                  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"},
    [RS_KV] = {"kv", "INSERT INTO kv (run_id, key, value) VALUES (?,?,?)"
                     " ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value"},
    /* the experiment of that name and hash first, else the newest other */
    [RS_EXP_FIND] = {"find experiment",
                     "SELECT id, config_hash IS ?2, config_hash, config_resolved"
                     " FROM experiments WHERE name = ?1"
                     " ORDER BY config_hash IS ?2 DESC, id DESC LIMIT 1"},
    [RS_EXP_ADD] = {"add experiment",
                    "INSERT INTO experiments (name, config_path, config_text, created_at,"
                    " program_version, config_resolved, config_hash)"
                    " VALUES (?, ?, ?, " NOW ", ?, ?, ?)"},
    [RS_RUN_ADD] = {"begin run",
                    "INSERT INTO runs (experiment_id, run_index, params, seed, program_version,"
                    " status, started_at, hostname, pid)"
                    " VALUES (?, ?, json(coalesce(?, '{}')), ?, ?, 'running', " NOW ", ?, ?)"},
    /* 'now' is one instant within a statement, so the two agree. */
    [RS_RUN_END] = {"end run",
                    "UPDATE runs SET status = ?2, error = ?3, finished_at = " NOW ","
                    " wall_seconds = round((julianday(" NOW ") - julianday(started_at))"
                    " * 86400.0, 3) WHERE id = ?1 AND status = 'running'"},
};

sqlite3_stmt *results_stmt(struct results *r, enum results_stmt which)
{
    sqlite3_stmt **st = &r->st[which];
    if (*st) {
        sqlite3_reset(*st);
        sqlite3_clear_bindings(*st);
        return *st;
    }
    if (sqlite3_prepare_v3(r->db, stmts[which].sql, -1, SQLITE_PREPARE_PERSISTENT, st,
                           NULL) != SQLITE_OK) {
        results_fail(r, stmts[which].what);
        *st = NULL;
    }
    return *st;
}

static const char *version_or_default(const char *v)
{
#ifdef FLASHLAB_VERSION
    return v ? v : FLASHLAB_VERSION;
#else
    return v;
#endif
}

/* ---- experiments and runs ------------------------------------------------ */

/* Inside the caller's transaction, so that two processes starting one
 * experiment at once make one row.  An experiment of that name with
 * another config is refused, naming the keys that differ. */
static int find_or_add_experiment(struct results *r, const char *name, const char *config_path,
                                  const char *config_text, const char *resolved,
                                  const char *version, int64_t *exp_id)
{
    char hash[RESULTS_HASH_HEX + 1];
    results_config_hash(resolved, hash);
    if (results_fill_hashes(r))
        return -1;
    sqlite3_stmt *st = results_stmt(r, RS_EXP_FIND);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
    int s = sqlite3_step(st), rc = 0;
    if (s == SQLITE_ROW && sqlite3_column_int(st, 1)) {
        *exp_id = sqlite3_column_int64(st, 0);
    } else if (s == SQLITE_ROW) {
        char diff[1536];
        results_config_diff(resolved, (const char *)sqlite3_column_text(st, 3),
                            "in this config", "in the database's", diff, sizeof diff);
        rc = results_failf(r, "experiment '%s' is already in this database with another "
                           "config (hash %s; this one's is %s); keys that differ: %s. Give "
                           "this one another name to keep both (flashlab run --as NEWNAME), "
                           "or write it to another database",
                           name, (const char *)sqlite3_column_text(st, 2), hash, diff);
    } else if (s != SQLITE_DONE) {
        rc = results_fail(r, "find experiment");
    }
    sqlite3_reset(st);
    if (rc || s == SQLITE_ROW)
        return rc;
    if (!(st = results_stmt(r, RS_EXP_ADD)))
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, config_path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, config_text, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, version_or_default(version), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, resolved, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, hash, -1, SQLITE_STATIC);
    if (results_step_done(r, st, "add experiment"))
        return -1;
    *exp_id = sqlite3_last_insert_rowid(r->db);
    return 0;
}

int results_begin_experiment(struct results *r, const char *name, const char *config_path,
                             const char *config_text, const char *version, int64_t *exp_id)
{
    if (!name)
        return results_failf(r, "begin experiment: no name");
    char *resolved = results_resolve(r, config_text);
    if (!resolved)
        return -1;
    int rc = results_txn_begin(r);
    if (!rc)
        rc = results_txn_end(r, find_or_add_experiment(r, name, config_path, config_text,
                                                       resolved, version, exp_id));
    free(resolved);
    return rc;
}

int results_begin_run(struct results *r, int64_t exp_id, int64_t run_index,
                      const char *params_json, uint64_t seed, const char *version,
                      int64_t *run_id)
{
    char host[256];
    results_hostname(host, sizeof host);
    sqlite3_stmt *st = results_stmt(r, RS_RUN_ADD);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, exp_id);
    sqlite3_bind_int64(st, 2, run_index);
    sqlite3_bind_text(st, 3, params_json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (int64_t)seed); /* the bits; >= 2^63 reads negative */
    sqlite3_bind_text(st, 5, version_or_default(version), -1, SQLITE_STATIC);
    if (host[0])
        sqlite3_bind_text(st, 6, host, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, getpid());
    if (results_step_done(r, st, "begin run"))
        return -1;
    *run_id = sqlite3_last_insert_rowid(r->db);
    return 0;
}

int results_end_run(struct results *r, int64_t run_id, enum results_status status,
                    const char *error)
{
    if (status == RESULTS_RUNNING || !results_status_name(status))
        return results_failf(r, "end run %lld: not a final status", (long long)run_id);
    if (results_flush(r))
        return -1;
    sqlite3_stmt *st = results_stmt(r, RS_RUN_END);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, results_status_name(status), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, error, -1, SQLITE_STATIC);
    if (results_step_done(r, st, "end run"))
        return -1;
    if (sqlite3_changes(r->db) != 1)
        return results_failf(r, "end run %lld: no such run, or it is not 'running'",
                         (long long)run_id);
    return 0;
}

/* ---- the queue ----------------------------------------------------------- */

#define I(x) ((struct res_val){.type = RV_INT, .i = (x)})
#define D(x) ((struct res_val){.type = RV_REAL, .d = (x)})
/* a real that may be unknown: NAN is stored as NULL */
#define DN(x) ((struct res_val){.type = isnan(x) ? RV_NULL : RV_REAL, .d = (x)})
#define S(x) ((struct res_val){.type = (x) ? RV_TEXT : RV_NULL, .s = (char *)(x)})
#define NV(a) ((int)(sizeof(a) / sizeof((a)[0])))

static double mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void results_queue_clear(struct results *r)
{
    for (size_t k = 0; k < r->qlen; k++)
        for (int c = 0; c < r->q[k].n; c++)
            free(r->q[k].v[c].s);
    r->qlen = 0;
}

static int bind_row(sqlite3_stmt *st, const struct res_row *row)
{
    int rc = SQLITE_OK;
    for (int c = 0; c < row->n && rc == SQLITE_OK; c++) {
        const struct res_val *v = &row->v[c];
        rc = v->type == RV_INT    ? sqlite3_bind_int64(st, c + 1, v->i)
             : v->type == RV_REAL ? sqlite3_bind_double(st, c + 1, v->d)
             : v->type == RV_TEXT ? sqlite3_bind_text(st, c + 1, v->s, -1, SQLITE_STATIC)
                                  : sqlite3_bind_null(st, c + 1);
    }
    return rc;
}

int results_flush(struct results *r)
{
    if (!r->qlen)
        return 0;
    int rc = results_txn_begin(r);
    for (size_t k = 0; !rc && k < r->qlen; k++) {
        const struct res_row *row = &r->q[k];
        sqlite3_stmt *st = results_stmt(r, row->stmt);
        if (!st)
            rc = -1;
        else if (bind_row(st, row) != SQLITE_OK)
            rc = results_fail(r, stmts[row->stmt].what);
        else
            rc = results_step_done(r, st, stmts[row->stmt].what);
    }
    rc = results_txn_end(r, rc);
    results_queue_clear(r); /* written, or dropped with the error reported */
    return rc;
}

/* Queue one row (text values are copied); write the batch when it is full
 * or its oldest row has waited long enough. */
static int queue_row(struct results *r, enum results_stmt which, const struct res_val *v, int n)
{
    if (r->qlen == r->qcap) {
        size_t cap = r->qcap ? 2 * r->qcap : 64;
        struct res_row *q = realloc(r->q, cap * sizeof *q);
        if (!q)
            return results_failf(r, "%s: out of memory", stmts[which].what);
        r->q = q;
        r->qcap = cap;
    }
    struct res_row *row = &r->q[r->qlen];
    row->stmt = which;
    row->n = 0;
    for (int c = 0; c < n; c++, row->n++) {
        row->v[c] = v[c];
        if (v[c].type == RV_TEXT && !(row->v[c].s = strdup(v[c].s))) {
            for (int k = 0; k < c; k++)
                free(row->v[k].s);
            return results_failf(r, "%s: out of memory", stmts[which].what);
        }
    }
    if (r->qlen++ == 0)
        r->q_since = mono_seconds();
    if (r->qlen >= RESULTS_BATCH_ROWS || mono_seconds() - r->q_since > RESULTS_FLUSH_SECONDS)
        return results_flush(r);
    return 0;
}

/* ---- rows of a run ------------------------------------------------------- */

int results_add_sample(struct results *r, int64_t run_id, const struct results_sample *s)
{
    struct res_val v[] = {I(run_id), I(s->seq), I(s->sim_time_ns), I(s->host_bytes),
                          I(s->flash_bytes_programmed), I(s->data_pages), I(s->meta_pages),
                          I(s->anchor_pages), I(s->gc_pages), I(s->erases), D(s->wa),
                          I(s->free_segments), I(s->gc_time_ns), I(s->gc_invocations),
                          DN(s->wa_interval), DN(s->wa_total_interval), DN(s->utilisation)};
    return queue_row(r, RS_SAMPLE, v, NV(v));
}

int results_add_mount(struct results *r, int64_t run_id, const struct results_mount *m)
{
    struct res_val v[] = {I(run_id), S(m->fs_kind), I(m->device_bytes), D(m->fill_fraction),
                          I(m->clean != 0), I(m->sim_latency_ns), I(m->flash_time_ns),
                          I(m->cpu_time_ns), I(m->pages_read), I(m->bytes_read),
                          I(m->ram_bytes), I(m->wall_ns)};
    return queue_row(r, RS_MOUNT, v, NV(v));
}

int results_add_gc_event(struct results *r, int64_t run_id, const struct results_gc_event *e)
{
    struct res_val v[] = {I(run_id), I(e->sim_time_ns), I(e->victim), I(e->live_units),
                          I(e->moved_pages), I(e->duration_ns), S(e->policy)};
    return queue_row(r, RS_GC, v, NV(v));
}

int results_add_latency(struct results *r, int64_t run_id, const struct results_latency *l)
{
    if (!l->op)
        return results_failf(r, "latency: no op");
    struct res_val v[] = {I(run_id), S(l->op), I(l->count), I(l->p50_ns), I(l->p99_ns),
                          I(l->p999_ns), I(l->max_ns), D(l->mean_ns)};
    return queue_row(r, RS_LATENCY, v, NV(v));
}

int results_add_retention(struct results *r, int64_t run_id, const struct results_retention *t)
{
    struct res_val v[] = {I(run_id), I(t->seq), I(t->sim_time_ns), I(t->files),
                          I(t->lost_files), I(t->ever_lost), I(t->uncorrectable_reads),
                          I(t->bits_corrected), I(t->programs), I(t->erases),
                          I(t->scrub_reads), I(t->scrub_segments), I(t->scrub_pages)};
    return queue_row(r, RS_RETENTION, v, NV(v));
}

int results_add_powercut(struct results *r, int64_t run_id, const struct results_powercut *p)
{
    struct res_val v[] = {I(run_id), I(p->cut_point), S(p->cut_kind), S(p->outcome),
                          S(p->detail)};
    return queue_row(r, RS_POWERCUT, v, NV(v));
}

int results_add_fault(struct results *r, int64_t run_id, const struct results_fault *f)
{
    struct res_val v[] = {I(run_id), I(f->point), S(f->fault), S(f->class_name), I(f->block),
                          I(f->page), S(f->outcome), I(f->mounted), S(f->state),
                          I(f->rolled_back), I(f->flagged), I(f->files), I(f->files_eio),
                          I(f->files_wrong), I(f->files_missing), I(f->crashed), S(f->fsck),
                          S(f->after_write), S(f->detail)};
    return queue_row(r, RS_FAULT, v, NV(v));
}

int results_set_kv(struct results *r, int64_t run_id, const char *key, double value)
{
    if (!key)
        return results_failf(r, "kv: no key");
    struct res_val v[] = {I(run_id), S(key), D(value)};
    return queue_row(r, RS_KV, v, NV(v));
}

int results_set_kv_text(struct results *r, int64_t run_id, const char *key, const char *value)
{
    if (!key)
        return results_failf(r, "kv: no key");
    struct res_val v[] = {I(run_id), S(key), S(value)};
    return queue_row(r, RS_KV, v, NV(v));
}

/* A whole snapshot in its own transaction: it is one batch already. */
int results_add_erase_counts(struct results *r, int64_t run_id, int64_t seq,
                             const uint32_t *counts, uint32_t nblocks)
{
    if (results_flush(r) || results_txn_begin(r))
        return -1;
    int rc = 0;
    for (uint32_t b = 0; b < nblocks && !rc; b++) {
        sqlite3_stmt *st = results_stmt(r, RS_ERASE);
        if (!st) {
            rc = -1;
            break;
        }
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, seq);
        sqlite3_bind_int64(st, 3, b);
        sqlite3_bind_int64(st, 4, counts[b]);
        rc = results_step_done(r, st, "erase_counts");
    }
    return results_txn_end(r, rc);
}

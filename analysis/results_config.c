/*
 * results_config.c -- an experiment's identity: its name and the hash of
 * its resolved config (docs/results-schema.md, "Experiment identity").
 * The hash, the resolver that makes the resolved form, hashes for the
 * experiments of files written before them, and the keys two resolved
 * configs differ in (for the refusal to mix them).
 */
#include "results_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void results_config_hash(const char *resolved, char out[RESULTS_HASH_HEX + 1])
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a, 64 bits */
    for (const unsigned char *p = (const unsigned char *)resolved; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    /* MurmurHash3's fmix64: FNV-1a leaves a change in the last bytes out of
     * the high bits, and a prefix of the hex must tell configs apart */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    snprintf(out, RESULTS_HASH_HEX + 1, "%016llx", (unsigned long long)h);
}

char *results_resolve(struct results *r, const char *config_text)
{
    char err[512];
    const char *text = config_text ? config_text : "";
    char *s = r->resolve ? r->resolve(text, err, sizeof err) : strdup(text);
    if (!s && r->resolve)
        results_failf(r, "resolving the config: %s", err);
    else if (!s)
        results_failf(r, "out of memory");
    return s;
}

char *results_resolve_or_raw(struct results *r, const char *config_text)
{
    char err[512];
    const char *text = config_text ? config_text : "";
    char *res = r->resolve ? r->resolve(text, err, sizeof err) : NULL;
    if (!res && !(res = strdup(text)))
        results_failf(r, "out of memory");
    return res;
}

/* Inside the caller's transaction: every experiment without a hash gets
 * its resolved config and hash.  A config the resolver cannot read (not
 * an experiment file) is its own resolved form. */
int results_fill_hashes(struct results *r)
{
    sqlite3_stmt *sel = NULL, *upd = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT id, config_text FROM experiments"
                           " WHERE config_hash IS NULL", -1, &sel, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(r->db, "UPDATE experiments SET config_resolved = ?2,"
                           " config_hash = ?3 WHERE id = ?1", -1, &upd, NULL) != SQLITE_OK)
        rc = results_fail(r, "config hashes");
    int st = SQLITE_DONE;
    while (!rc && (st = sqlite3_step(sel)) == SQLITE_ROW) {
        char hash[RESULTS_HASH_HEX + 1];
        char *res = results_resolve_or_raw(r, (const char *)sqlite3_column_text(sel, 1));
        if (!res) {
            rc = -1;
            break;
        }
        results_config_hash(res, hash);
        sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
        sqlite3_bind_text(upd, 2, res, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(upd, 3, hash, -1, SQLITE_TRANSIENT);
        free(res);
        rc = results_step_done(r, upd, "config hashes");
    }
    if (!rc && st != SQLITE_DONE)
        rc = results_fail(r, "config hashes");
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    return rc;
}

int results_set_resolver(struct results *r, results_resolve_fn fn)
{
    r->resolve = fn;
    if (results_txn_begin(r))
        return -1;
    return results_txn_end(r, results_fill_hashes(r));
}

/* The line of text whose path is path ("PATH = VALUE"), or NULL. */
static const char *find_path(const char *text, const char *path, size_t plen)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, path, plen) && !strncmp(l + plen, " = ", 3))
            return l;
    return NULL;
}

static size_t path_len(const char *line)
{
    const char *eq = strstr(line, " = "), *nl = strchr(line, '\n');
    return eq && (!nl || eq < nl) ? (size_t)(eq - line) : 0;
}

static size_t value_len(const char *line)
{
    return strcspn(line, "\n");
}

/* Append ", PATH (A LA, B LB)" for each line of a that b lacks or has
 * otherwise; with b_only, the paths of a that b lacks alone (a is then
 * lb's text and b la's). */
static void diff_into(const char *a, const char *b, int b_only, const char *la,
                      const char *lb, char *out, size_t cap)
{
    for (const char *l = a; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        size_t pl = path_len(l);
        if (!pl)
            continue;
        const char *m = find_path(b, l, pl);
        size_t vl = value_len(l) - pl - 3, ml = m ? value_len(m) - pl - 3 : 0;
        if (m && (b_only || (vl == ml && !strncmp(l + pl + 3, m + pl + 3, vl))))
            continue;
        size_t n = strlen(out);
        if (n + 1 >= cap)
            return;
        const char *va = l + pl + 3, *vb = m ? m + pl + 3 : "(not set)";
        if (b_only) /* a is lb's; the path is not set in la's */
            snprintf(out + n, cap - n, "%s%.*s (not set %s, %.*s %s)", n ? ", " : "",
                     (int)pl, l, lb, (int)vl, va, la);
        else
            snprintf(out + n, cap - n, "%s%.*s (%.*s %s, %.*s %s)", n ? ", " : "",
                     (int)pl, l, (int)vl, va, la, m ? (int)ml : 9, vb, lb);
    }
}

void results_config_diff(const char *a, const char *b, const char *la, const char *lb,
                         char *out, size_t cap)
{
    out[0] = 0;
    diff_into(a ? a : "", b ? b : "", 0, la, lb, out, cap);
    diff_into(b ? b : "", a ? a : "", 1, la, lb, out, cap);
    if (!out[0])
        snprintf(out, cap, "none (the resolved configs differ only in form)");
}

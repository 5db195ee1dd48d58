/*
 * wl_churn.c -- the file-level kinds: churn, mailserver, fileserver.
 * A model of the live files (/churn/dD/fID and their sizes) decides each
 * op, so that no op has to fail: create never passes max_files or the byte
 * budget (fill of the free space), delete/rename/read/stat name a live
 * file.  Where the drawn op cannot be done it becomes another (see
 * fallback()); docs/workloads.md lists the rules and the presets.
 */
#include "workload.h"
#include "rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_CREATE, OP_APPEND, OP_OVERWRITE, OP_DELETE, OP_RENAME, OP_READ, OP_STAT, NOPS };
enum { ST_ROOT, ST_DIRS, ST_PREALLOC, ST_SYNC, ST_RUN };
enum { D_OP = 1, D_FILE, D_SIZE, D_OFF, D_DIR, D_SETUP }; /* what a draw decides */
#define QMAX 4 /* records one logical op gives at most */

struct cfile {
    uint64_t id, size;
    uint32_t dir;
};

/* What a record does to the model, done when it is handed out, so that
 * the model is always that of the records handed out so far. */
enum { E_NONE, E_ADD, E_SIZE, E_DEL, E_NAME };
struct qent {
    struct trace_rec r;
    char p[64], p2[64];
    int eff;
    uint32_t idx;    /* the file it changes */
    struct cfile nf; /* E_ADD: the file; E_SIZE: .size; E_NAME: .id, .dir */
};

struct churn {
    struct wl_spec s;
    uint64_t seed, bs;
    double w[NOPS], wsum;
    struct cfile *f;
    uint32_t live, target, sdir;
    uint64_t next_id, used, budget; /* bytes the model's files take, at most */
    uint64_t n, writes;             /* logical ops drawn, writes queued */
    int step, in_setup;
    struct qent q[QMAX];            /* the records of the current op */
    int qn, qi;
    char root[24];                  /* /churn, or /churnN if that exists */
};

/* What a file of size bytes takes: its blocks and one for inode and entry. */
static uint64_t cost(const struct churn *c, uint64_t size)
{
    return (size + c->bs - 1) / c->bs * c->bs + c->bs;
}

static uint64_t draw(const struct churn *c, uint64_t what, uint64_t i)
{
    return rng_key(c->seed, RNG_WORKLOAD, c->n, what, i, c->in_setup);
}

static void path_of(const struct churn *c, char *buf, const struct cfile *f)
{
    snprintf(buf, 64, "%s/d%u/f%llu", c->root, f->dir, (unsigned long long)f->id);
}

/* Queue a record of op on file f (index idx, or NULL), changing nothing. */
static struct qent *push(struct churn *c, enum trace_op op, const struct cfile *f,
                         uint32_t idx)
{
    struct qent *e = &c->q[c->qn++];
    memset(e, 0, sizeof *e);
    e->r.op = op;
    e->idx = idx;
    if (f) {
        path_of(c, e->p, f);
        e->r.path = e->p;
    }
    return e;
}

static void apply(struct churn *c, const struct qent *e)
{
    struct cfile *f = &c->f[e->idx];
    if (e->eff == E_ADD)
        c->f[c->live++] = e->nf;
    else if (e->eff == E_SIZE)
        f->size = e->nf.size;
    else if (e->eff == E_DEL)
        *f = c->f[--c->live];
    else if (e->eff == E_NAME)
        f->id = e->nf.id, f->dir = e->nf.dir;
}

/* A write of f's [off, off+len) leaving it size bytes, and an fsync after
 * every fsync_every-th write (not in setup). */
static void push_write(struct churn *c, const struct cfile *f, uint32_t idx, uint64_t off,
                       uint64_t len, uint64_t size)
{
    struct qent *e = push(c, TRACE_WRITE, f, idx);
    e->r.offset = off, e->r.length = len;
    e->eff = E_SIZE, e->nf.size = size;
    if (!c->in_setup && c->s.fsync_every && ++c->writes % c->s.fsync_every == 0)
        push(c, TRACE_FSYNC, f, idx);
}

static void do_create(struct churn *c, uint64_t size)
{
    struct cfile nf = {c->next_id++, 0, (uint32_t)(draw(c, D_DIR, 0) % c->s.dirs)};
    struct qent *e = push(c, TRACE_CREATE, &nf, c->live);
    e->r.flags = TRACE_F_WRITE | TRACE_F_CREAT | TRACE_F_EXCL, e->r.mode = 0644;
    e->eff = E_ADD, e->nf = nf;
    c->used += cost(c, size);
    if (size)
        push_write(c, &nf, c->live, 0, size, size);
}

/* The op to do instead of `op` when the model cannot do it; NOPS: none. */
static int fallback(const struct churn *c, int op, uint64_t size, uint64_t grow)
{
    if (op == OP_CREATE)
        return c->live >= c->s.max_files || c->used + cost(c, size) > c->budget
                   ? (c->live ? OP_DELETE : NOPS) : op;
    if (!c->live)
        return OP_CREATE;
    if (op == OP_APPEND && c->used + grow > c->budget)
        return OP_DELETE;
    return op;
}

/* Draw logical op n and queue its records. */
static void draw_op(struct churn *c)
{
    double u = rng_unit(draw(c, D_OP, 0)) * c->wsum;
    int op = 0;
    while (op < NOPS - 1 && (u -= c->w[op]) >= 0)
        op++;
    for (int tries = 0; tries < 3; tries++) { /* create -> delete -> create settles */
        uint32_t i = c->live ? (uint32_t)(draw(c, D_FILE, 0) % c->live) : 0;
        struct cfile *f = c->live ? &c->f[i] : NULL;
        uint64_t size = wl_sizes_draw(&c->s.file_size, 1, draw(c, D_SIZE, 0));
        uint64_t len = wl_sizes_draw(&c->s.req, 1, draw(c, D_SIZE, 1));
        if (op == OP_OVERWRITE && f && !f->size)
            op = OP_APPEND;
        uint64_t grow = f ? cost(c, f->size + len) - cost(c, f->size) : 0;
        int alt = fallback(c, op, size, grow);
        if (alt != op) {
            op = alt;
            continue;
        }
        if (op == OP_CREATE) {
            do_create(c, size);
        } else if (op == OP_APPEND) {
            push_write(c, f, i, f->size, len, f->size + len);
            c->used += grow;
        } else if (op == OP_OVERWRITE) {
            len = len < f->size ? len : f->size;
            push_write(c, f, i, draw(c, D_OFF, 0) % (f->size - len + 1), len, f->size);
        } else if (op == OP_DELETE) {
            push(c, TRACE_UNLINK, f, i)->eff = E_DEL;
            c->used -= cost(c, f->size);
        } else if (op == OP_RENAME) {
            struct qent *e = push(c, TRACE_RENAME, f, i);
            e->eff = E_NAME;
            e->nf = (struct cfile){c->next_id++, 0, (uint32_t)(draw(c, D_DIR, 1) % c->s.dirs)};
            path_of(c, e->p2, &e->nf);
            e->r.path2 = e->p2;
        } else if (op == OP_READ) {
            push(c, TRACE_READ, f, i)->r.length = f->size;
        } else if (op == OP_STAT) {
            push(c, WL_OP_STAT, f, i);
        }
        break;
    }
    c->n++;
    if (c->s.sync_every && c->n % c->s.sync_every == 0)
        push(c, TRACE_SYNC, NULL, 0);
}

/* Setup: mkdir /churn and its dirs, create the preallocated files, sync. */
static void setup_step(struct churn *c)
{
    struct qent *e;
    switch (c->step) {
    case ST_ROOT:
        e = push(c, TRACE_MKDIR, NULL, 0);
        e->r.path = c->root, e->r.mode = 0755;
        c->step = ST_DIRS;
        break;
    case ST_DIRS:
        e = push(c, TRACE_MKDIR, NULL, 0);
        snprintf(e->p, sizeof e->p, "%s/d%u", c->root, c->sdir);
        e->r.path = e->p, e->r.mode = 0755;
        c->step = ++c->sdir < c->s.dirs ? ST_DIRS : ST_PREALLOC;
        break;
    case ST_PREALLOC: {
        uint64_t size = wl_sizes_draw(&c->s.file_size, 1, draw(c, D_SIZE, 0));
        if (c->live < c->target &&
            (double)(c->used + cost(c, size)) <= c->s.prealloc * (double)c->budget) {
            do_create(c, size);
            c->n++;
            break;
        }
        c->step = ST_SYNC;
    } /* fall through */
    case ST_SYNC:
        push(c, TRACE_SYNC, NULL, 0);
        c->step = ST_RUN;
        c->n = 0;
        break;
    }
}

static int churn_next(void *state, struct trace_rec *op, int *in_setup, char *err,
                      size_t errlen)
{
    (void)err, (void)errlen;
    struct churn *c = state;
    if (c->qi == c->qn) {
        c->qi = c->qn = 0;
        c->in_setup = c->step != ST_RUN;
        while (!c->qn) /* every op queues a record; be sure */
            c->in_setup ? setup_step(c) : draw_op(c);
    }
    apply(c, &c->q[c->qi]);
    *op = c->q[c->qi++].r;
    *in_setup = c->in_setup;
    return 1;
}

static int churn_create(const struct wl_spec *s, uint64_t seed, const struct fsapi_fs *fs,
                        void **state, char *err, size_t errlen)
{
    int rc;
    if (!s->dirs || !s->max_files)
        return wl_fail(err, errlen, -EINVAL, "%s: dirs and max_files must be > 0", s->kind);
    if ((rc = wl_sizes_check(&s->file_size, "file_size", err, errlen)) ||
        (rc = wl_sizes_check(&s->req, "req", err, errlen)))
        return rc;
    double w[NOPS] = {s->op_create, s->op_append, s->op_overwrite, s->op_delete,
                      s->op_rename, s->op_read, s->op_stat};
    double sum = 0;
    for (int i = 0; i < NOPS; i++) {
        if (!(w[i] >= 0 && w[i] < 1e300))
            return wl_fail(err, errlen, -EINVAL, "%s: op weight %d is %g", s->kind, i, w[i]);
        sum += w[i];
    }
    if (!(sum > 0) || !(s->prealloc >= 0 && s->prealloc <= 1) ||
        !(s->fill > 0 && s->fill <= 1))
        return wl_fail(err, errlen, -EINVAL, "%s: no op has a weight, or prealloc not "
                       "in [0, 1], or fill not in (0, 1]", s->kind);
    struct fs_statfs st;
    if ((rc = fs->api->statfs(fs->fs, &st)))
        return wl_fail(err, errlen, rc, "statfs: %s", strerror(-rc));
    struct churn *c = calloc(1, sizeof *c);
    if (!c || !(c->f = calloc(s->max_files, sizeof *c->f))) {
        free(c);
        return wl_fail(err, errlen, -ENOMEM, "out of memory");
    }
    c->s = *s;
    c->seed = seed;
    c->bs = st.block_size ? st.block_size : 4096;
    memcpy(c->w, w, sizeof w);
    c->wsum = sum;
    c->budget = (uint64_t)(s->fill * (double)st.free_bytes);
    c->target = (uint32_t)(s->prealloc * s->max_files + 0.5);
    /* a fresh directory, so that names never meet an earlier run's files */
    struct fs_stat dst;
    strcpy(c->root, "/churn");
    for (unsigned i = 2; i < 100000 && fs->api->stat(fs->fs, c->root, &dst) != -ENOENT; i++)
        snprintf(c->root, sizeof c->root, "/churn%u", i);
    /* room for the largest file plus the largest append to it */
    uint64_t need = cost(c, wl_sizes_max(&s->file_size) + wl_sizes_max(&s->req));
    if (c->budget < need) {
        free(c->f);
        free(c);
        return wl_fail(err, errlen, -ENOSPC, "%s: %llu bytes (fill of the free space) "
                       "cannot hold one file of the largest size", s->kind,
                       (unsigned long long)(s->fill * (double)st.free_bytes));
    }
    *state = c;
    return 0;
}

static int churn_files(const void *state, int (*fn)(void *, const char *, uint64_t), void *ctx)
{
    const struct churn *c = state;
    char p[64];
    int rc = 0;
    for (uint32_t i = 0; i < c->live && !rc; i++) {
        path_of(c, p, &c->f[i]);
        rc = fn(ctx, p, c->f[i].size);
    }
    return rc;
}

static void churn_free(void *state)
{
    struct churn *c = state;
    if (c)
        free(c->f);
    free(c);
}

const struct wl_family wl_churn_family = {churn_create, churn_next, churn_files, churn_free};

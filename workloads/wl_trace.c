/*
 * wl_trace.c -- the "trace" kind: replay of a trace (workloads/trace/trace.h).
 * fs-op records go through as they are.  A block record of disk N goes to
 * the file /diskN of dbytes bytes: the offset wraps modulo dbytes (aligned
 * down to 4096), a request crossing the end is clipped, a discard is a
 * punched hole, SYNC a sync.  The file is made (created and filled with
 * 64 KiB writes, so that reads find data) when disk N first appears; those
 * ops count as setup.  With trace_disk_bytes 0, dbytes is fill * free
 * space / the number of disks, which a first pass over the trace counts.
 *
 * On a block device (FSAPI_F_ONE_FILE: the FTL's /disk) disk N is the
 * range [N * dbytes, (N + 1) * dbytes) of /disk, nothing is made, setup
 * writes the first `fill` of /disk (preconditioning), and with
 * trace_disk_bytes 0 dbytes is /disk's size / (the highest disk number
 * + 1).  A disk past the end of /disk is an error.
 */
#include "workload.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISK_ALIGN 4096u
#define SETUP_IO (64u << 10)

struct tr {
    struct trace_reader *r;
    uint64_t dbytes;
    uint32_t *disk, ndisk, cap; /* disk numbers seen, in order */
    int filling;                /* setup of disk[ndisk - 1] under way */
    uint64_t soff;
    struct trace_rec pend;      /* the block record that found the new disk */
    uint64_t disk_size;         /* a block device: /disk's bytes (0: files) */
    uint64_t pre, pre_end;      /* a block device: preconditioning written, to write */
    char path[32];
};

static int trace_err(char *err, size_t errlen, int rc, const struct trace_error *e)
{
    if (e->line)
        return wl_fail(err, errlen, rc, "%s:%" PRIu64 ": %s", e->file, e->line, e->msg);
    return wl_fail(err, errlen, rc, "%s: %s", e->file, e->msg);
}

static int known(const struct tr *t, uint32_t d)
{
    for (uint32_t i = 0; i < t->ndisk; i++)
        if (t->disk[i] == d)
            return 1;
    return 0;
}

static int add_disk(struct tr *t, uint32_t d)
{
    if (t->ndisk == t->cap) {
        uint32_t n = t->cap ? 2 * t->cap : 8;
        uint32_t *v = realloc(t->disk, n * sizeof *v);
        if (!v)
            return -ENOMEM;
        t->disk = v, t->cap = n;
    }
    t->disk[t->ndisk++] = d;
    return 0;
}

static int is_block_io(const struct trace_rec *r)
{
    return !r->path && (r->op == TRACE_READ || r->op == TRACE_WRITE || r->op == TRACE_DISCARD);
}

/* The first pass: how many disks the block records name.  Bad lines are
 * the replay's to report; an error about the whole file ends the pass. */
static int count_disks(const char *path, const struct trace_opts *o, uint32_t *n,
                       uint32_t *top)
{
    struct trace_reader *r;
    struct trace_error e;
    struct trace_rec rec;
    struct tr seen = {0};
    int rc = trace_open_opts(path, o, &r, &e);
    while (!rc) {
        int got = trace_next(r, &rec, &e);
        if (got == 0 || (got < 0 && e.line == 0))
            break;
        if (got > 0 && is_block_io(&rec) && !known(&seen, rec.disk)) {
            rc = add_disk(&seen, rec.disk);
            *top = rec.disk > *top ? rec.disk : *top;
        }
    }
    trace_close(r); /* NULL if the open failed */
    free(seen.disk);
    *n = seen.ndisk;
    return rc;
}

static int tr_create(const struct wl_spec *s, uint64_t seed, const struct fsapi_fs *fs,
                     void **state, char *err, size_t errlen)
{
    (void)seed; /* a trace decides everything itself */
    struct trace_opts o = {.format = s->trace_format, .skip_bad = s->trace_skip_bad};
    struct trace_error e;
    struct tr *t = calloc(1, sizeof *t);
    if (!t)
        return wl_fail(err, errlen, -ENOMEM, "out of memory");
    int rc = trace_open_opts(s->trace_path, &o, &t->r, &e);
    if (rc) {
        free(t);
        return trace_err(err, errlen, rc, &e);
    }
    t->dbytes = s->trace_disk_bytes / DISK_ALIGN * DISK_ALIGN;
    if (fs->api->features & FSAPI_F_ONE_FILE) {
        struct fs_stat ds;
        if ((rc = fs->api->stat(fs->fs, "/disk", &ds)))
            wl_fail(err, errlen, rc, "stat /disk: %s", strerror(-rc));
        t->disk_size = ds.size;
        if (!rc && !(s->fill >= 0 && s->fill <= 1))
            rc = wl_fail(err, errlen, -EINVAL, "fill %g not in [0, 1]", s->fill);
        t->pre_end = (uint64_t)(s->fill * (double)ds.size) / DISK_ALIGN * DISK_ALIGN;
    }
    if (!rc && !s->trace_disk_bytes && t->disk_size && trace_reader_format(t->r) != TRACE_FSOP) {
        uint32_t n = 0, top = 0;
        o.format = trace_reader_format(t->r);
        if ((rc = count_disks(s->trace_path, &o, &n, &top)))
            wl_fail(err, errlen, rc, "%s: counting the disks: %s", s->trace_path, strerror(-rc));
        t->dbytes = t->disk_size / ((uint64_t)top + 1) / DISK_ALIGN * DISK_ALIGN;
    } else if (!rc && !s->trace_disk_bytes && trace_reader_format(t->r) != TRACE_FSOP) {
        struct fs_statfs st;
        uint32_t n = 0, top = 0;
        o.format = trace_reader_format(t->r);
        if (!(s->fill > 0 && s->fill <= 1))
            rc = wl_fail(err, errlen, -EINVAL, "fill %g not in (0, 1]", s->fill);
        else if ((rc = fs->api->statfs(fs->fs, &st)))
            wl_fail(err, errlen, rc, "statfs: %s", strerror(-rc));
        else if ((rc = count_disks(s->trace_path, &o, &n, &top)))
            wl_fail(err, errlen, rc, "%s: counting the disks: %s", s->trace_path, strerror(-rc));
        else if (n)
            t->dbytes = (uint64_t)(s->fill * (double)st.free_bytes) / n / DISK_ALIGN * DISK_ALIGN;
        else
            t->dbytes = DISK_ALIGN; /* no block I/O: never used */
    }
    if (!rc && t->dbytes < DISK_ALIGN && trace_reader_format(t->r) != TRACE_FSOP)
        rc = wl_fail(err, errlen, -ENOSPC, "%s: disk files of %" PRIu64 " bytes: less "
                     "than %u", s->trace_path, t->dbytes, DISK_ALIGN);
    if (rc) {
        trace_close(t->r);
        free(t);
        return rc;
    }
    *state = t;
    return 0;
}

static const char *disk_path(struct tr *t, uint32_t d)
{
    if (t->disk_size)
        return "/disk";
    snprintf(t->path, sizeof t->path, "/disk%" PRIu32, d);
    return t->path;
}

/* Block record *in onto its disk file. */
static void map_block(struct tr *t, const struct trace_rec *in, struct trace_rec *op)
{
    *op = *in;
    op->path = disk_path(t, in->disk);
    op->offset = in->offset % t->dbytes / DISK_ALIGN * DISK_ALIGN;
    if (op->length > t->dbytes - op->offset)
        op->length = t->dbytes - op->offset;
    op->offset += t->disk_size ? (uint64_t)in->disk * t->dbytes : 0;
}

static int tr_next(void *state, struct trace_rec *op, int *in_setup, char *err,
                   size_t errlen)
{
    struct tr *t = state;
    if (t->pre < t->pre_end) { /* a block device's preconditioning */
        *in_setup = 1;
        op->op = TRACE_WRITE, op->path = "/disk", op->offset = t->pre;
        op->length = t->pre_end - t->pre < SETUP_IO ? t->pre_end - t->pre : SETUP_IO;
        t->pre += op->length;
        return 1;
    }
    *in_setup = t->filling;
    if (t->filling) { /* the new disk's file: 64 KiB writes, then the record */
        uint32_t d = t->disk[t->ndisk - 1];
        if (t->soff < t->dbytes) {
            op->op = TRACE_WRITE, op->path = disk_path(t, d), op->offset = t->soff;
            op->length = t->dbytes - t->soff < SETUP_IO ? t->dbytes - t->soff : SETUP_IO;
            t->soff += op->length;
            return 1;
        }
        t->filling = *in_setup = 0;
        map_block(t, &t->pend, op);
        return 1;
    }
    struct trace_rec rec;
    struct trace_error e;
    int rc = trace_next(t->r, &rec, &e);
    if (rc <= 0)
        return rc < 0 ? trace_err(err, errlen, rc, &e) : 0;
    if (!is_block_io(&rec)) {
        *op = rec; /* an fs op, or a block SYNC: path NULL, a whole-fs sync */
        return 1;
    }
    if (t->disk_size) { /* a range of /disk: nothing to make */
        if (((uint64_t)rec.disk + 1) * t->dbytes > t->disk_size)
            return wl_fail(err, errlen, -ENOSPC, "disk %" PRIu32 " of %" PRIu64 " bytes "
                           "ends past /disk (%" PRIu64 " bytes): lower trace_disk_bytes",
                           rec.disk, t->dbytes, t->disk_size);
        map_block(t, &rec, op);
        return 1;
    }
    if (known(t, rec.disk)) {
        map_block(t, &rec, op);
        return 1;
    }
    if ((rc = add_disk(t, rec.disk)))
        return wl_fail(err, errlen, rc, "out of memory");
    t->filling = *in_setup = 1;
    t->soff = 0;
    t->pend = rec;
    op->op = TRACE_CREATE, op->path = disk_path(t, rec.disk), op->mode = 0644;
    op->flags = TRACE_F_WRITE | TRACE_F_CREAT | TRACE_F_TRUNC;
    return 1;
}

static int tr_files(const void *state, int (*fn)(void *, const char *, uint64_t), void *ctx)
{
    const struct tr *t = state;
    char p[32];
    int rc = 0;
    if (t->disk_size)
        return fn(ctx, "/disk", t->disk_size);
    for (uint32_t i = 0; i < t->ndisk && !rc; i++) {
        snprintf(p, sizeof p, "/disk%" PRIu32, t->disk[i]);
        rc = fn(ctx, p, t->filling && i == t->ndisk - 1 ? t->soff : t->dbytes);
    }
    return rc;
}

static void tr_free(void *state)
{
    struct tr *t = state;
    if (!t)
        return;
    trace_close(t->r);
    free(t->disk);
    free(t);
}

const struct wl_family wl_trace_family = {tr_create, tr_next, tr_files, tr_free};

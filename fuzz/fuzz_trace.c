/*
 * fuzz_trace.c -- the trace readers (workloads/trace*.c).
 *
 * Byte 0 of the input chooses the reader's options, the rest is the trace:
 *   bits 0-2  format: 0 auto, 1 MSR, 2 blkparse, 3 fio, 4 fs-op, 5-7 auto
 *   bit 3     skip_bad
 *   bits 4-5  blk_action: 0 default (Q), 1 D, 2 C, 3 Q
 *   bit 6     blk_disk_minor
 *   bit 7     fio_v3_tick_ns = 2^40 (so that time conversions overflow)
 *
 * Every record is read.  Each must keep the documented promises
 * (trace.h, docs/traces.md): a known op, offset + length within 64 bits,
 * mode <= 07777, paths only in fs-op records and never empty there, known
 * flag bits, disk numbers that name a disk; errors have a line number
 * that grows and a NUL-terminated message; the reader makes progress (at
 * most one record or error per line).  For fs-op traces the records read
 * are written with trace_write_fsop, which must accept every one of them,
 * and the result read and written again must give the same bytes (the
 * writer's output is canonical).
 */
#include "harness.h"
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TR "trace"

static int tr_is_fsop_op(enum trace_op op)
{
    return op >= TRACE_MKDIR && op <= TRACE_OP_LAST;
}

static void tr_check_error(const struct trace_error *e)
{
    if (!memchr(e->msg, '\0', sizeof e->msg) || !memchr(e->file, '\0', sizeof e->file))
        fuzz_fail(TR, "error message or file not NUL-terminated");
    if (!e->msg[0])
        fuzz_fail(TR, "error without a message");
}

static void tr_check_rec(const struct trace_reader *r, const struct trace_rec *rec,
                         const struct trace_opts *o)
{
    enum trace_format f = trace_reader_format(r);
    if (rec->op < TRACE_READ || rec->op > TRACE_OP_LAST)
        fuzz_fail(TR, "record with op %d", (int)rec->op);
    if (rec->length > UINT64_MAX - rec->offset)
        fuzz_fail(TR, "offset %" PRIu64 " + length %" PRIu64 " overflows", rec->offset,
                  rec->length);
    if (rec->mode > 07777)
        fuzz_fail(TR, "mode %o", rec->mode);
    if (f == TRACE_FSOP) {
        if (rec->disk)
            fuzz_fail(TR, "fs-op record with disk %u", rec->disk);
        int wants_path = rec->op != TRACE_SYNC;
        int wants_path2 = rec->op == TRACE_RENAME || rec->op == TRACE_LINK ||
                          rec->op == TRACE_SYMLINK || rec->op == TRACE_EXCHANGE;
        if (wants_path && (!rec->path || !rec->path[0]))
            fuzz_fail(TR, "fs-op %s without a path", trace_op_name(rec->op));
        if (wants_path2 && (!rec->path2 || !rec->path2[0]))
            fuzz_fail(TR, "fs-op %s without a second path", trace_op_name(rec->op));
        if ((rec->op == TRACE_OPEN || rec->op == TRACE_CREATE) &&
            (rec->flags & ~(uint32_t)TRACE_F_ALL))
            fuzz_fail(TR, "flags %#x", rec->flags);
        return;
    }
    /* block traces */
    if (tr_is_fsop_op(rec->op))
        fuzz_fail(TR, "block trace gave fs op %d", (int)rec->op);
    if (rec->path || rec->path2)
        fuzz_fail(TR, "block record with a path");
    if (rec->op == TRACE_SYNC && (rec->offset || rec->length))
        fuzz_fail(TR, "SYNC with offset %" PRIu64 " length %" PRIu64, rec->offset,
                  rec->length);
    if (rec->flags & ~(uint32_t)((TRACE_BLK_DATASYNC << 1) - 1))
        fuzz_fail(TR, "block flags %#x", rec->flags);
    if ((f == TRACE_FIO || (f == TRACE_BLKPARSE && !o->blk_disk_minor)) &&
        !trace_disk_name(r, rec->disk))
        fuzz_fail(TR, "disk %u has no name (%u disks)", rec->disk, trace_disk_count(r));
}

struct tr_out {
    char *buf;
    size_t len;
    uint64_t records;
};

/* Read all of path with opts; for fs-op traces, write the records to *out
 * (if out is not NULL). */
static void tr_read_all(const char *path, const struct trace_opts *o, uint64_t max_steps,
                        struct tr_out *out, int strict)
{
    struct trace_reader *r = NULL;
    struct trace_error err;
    memset(&err, 0xa5, sizeof err);
    int rc = trace_open_opts(path, o, &r, &err);
    if (rc) {
        if (r)
            fuzz_fail(TR, "trace_open_opts failed but set *out");
        if (rc > 0)
            fuzz_fail(TR, "trace_open_opts returned %d", rc);
        tr_check_error(&err);
        if (strict)
            fuzz_fail(TR, "re-reading the writer's output: cannot open: %s", err.msg);
        return;
    }
    enum trace_format f = trace_reader_format(r);
    if (f <= TRACE_AUTO || f > TRACE_FSOP)
        fuzz_fail(TR, "reader format %d", (int)f);
    if (o->format != TRACE_AUTO && f != o->format)
        fuzz_fail(TR, "asked for format %d, got %d", (int)o->format, (int)f);
    FILE *w = NULL;
    if (out && f == TRACE_FSOP) {
        w = open_memstream(&out->buf, &out->len);
        if (w && trace_write_fsop_header(w))
            fuzz_fail(TR, "trace_write_fsop_header failed");
    }
    uint64_t steps = 0, last_err_line = 0, errors = 0;
    struct trace_rec rec;
    for (;;) {
        if (++steps > max_steps)
            fuzz_fail(TR, "no progress: %" PRIu64 " calls of trace_next on %" PRIu64
                          " lines", steps, max_steps - 2);
        memset(&err, 0xa5, sizeof err);
        rc = trace_next(r, &rec, &err);
        if (rc == 0)
            break;
        if (rc == 1) {
            tr_check_rec(r, &rec, o);
            if (w) {
                int wrc = trace_write_fsop(w, &rec);
                if (wrc)
                    fuzz_fail(TR, "trace_write_fsop refuses a record the reader gave "
                                  "(%s, %d)", trace_op_name(rec.op), wrc);
            }
            if (out)
                out->records++;
            continue;
        }
        if (rc != 1 && rc > 0)
            fuzz_fail(TR, "trace_next returned %d", rc);
        tr_check_error(&err);
        if (strict)
            fuzz_fail(TR, "re-reading the writer's output: line %" PRIu64 ": %s", err.line,
                      err.msg);
        if (o->skip_bad && rc == -EINVAL && err.line) {
            /* only a fatal error (a bad header) gets through skip_bad,
             * and the reader stops there */
            struct trace_error e2;
            int rc2 = trace_next(r, &rec, &e2);
            if (rc2 >= 0 || e2.line)
                fuzz_fail(TR, "skip_bad reader reported line %" PRIu64 " (%s) and went on",
                          err.line, err.msg);
            break;
        }
        if (rc != -EINVAL || !err.line)
            break; /* fatal: the reader stopped */
        if (err.line <= last_err_line)
            fuzz_fail(TR, "error at line %" PRIu64 " after one at line %" PRIu64, err.line,
                      last_err_line);
        last_err_line = err.line;
        errors++;
    }
    if (trace_skipped(r)) {
        const struct trace_error *fe = trace_first_skipped(r);
        if (!fe)
            fuzz_fail(TR, "skipped lines but no first error");
        tr_check_error(fe);
        if (!o->skip_bad)
            fuzz_fail(TR, "skipped lines without skip_bad");
    }
    for (uint32_t d = 0; d < trace_disk_count(r); d++)
        if (!trace_disk_name(r, d))
            fuzz_fail(TR, "disk %u of %u has no name", d, trace_disk_count(r));
    trace_close(r);
    if (w && fclose(w))
        fuzz_fail(TR, "writing to memory failed");
    (void)errors;
}

int fuzz_trace(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    uint8_t b = data[0];
    static const enum trace_format fmts[8] = {TRACE_AUTO, TRACE_MSR, TRACE_BLKPARSE,
                                              TRACE_FIO, TRACE_FSOP, TRACE_AUTO,
                                              TRACE_AUTO, TRACE_AUTO};
    static const char actions[4] = {0, 'D', 'C', 'Q'};
    struct trace_opts o = {
        .format = fmts[b & 7],
        .skip_bad = (b >> 3) & 1,
        .blk_action = actions[(b >> 4) & 3],
        .blk_disk_minor = (b >> 6) & 1,
        .fio_v3_tick_ns = (b & 0x80) ? 1ull << 40 : 0,
    };
    const uint8_t *text = data + 1;
    size_t len = size - 1;
    uint64_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    const char *path = fuzz_file(FUZZ_FILE_INPUT, text, len);
    if (!path)
        return 0;
    struct tr_out o1 = {0};
    tr_read_all(path, &o, lines + 2, &o1, 0);
    if (!o1.buf)
        return 0;
    /* fs-op: the writer's output reads back without error, and writes
     * again to the same bytes */
    struct trace_opts strict = {.format = TRACE_FSOP};
    uint64_t lines1 = 1;
    for (size_t i = 0; i < o1.len; i++)
        lines1 += o1.buf[i] == '\n';
    const char *p1 = fuzz_file(FUZZ_FILE_AUX, o1.buf, o1.len);
    if (p1) {
        struct tr_out o2 = {0};
        tr_read_all(p1, &strict, lines1 + 2, &o2, 1);
        if (o2.records != o1.records)
            fuzz_fail(TR, "%" PRIu64 " records written, %" PRIu64 " read back", o1.records,
                      o2.records);
        if (!o2.buf || o2.len != o1.len || memcmp(o2.buf, o1.buf, o1.len))
            fuzz_fail(TR, "writing what the writer wrote changes it (%zu -> %zu bytes)",
                      o1.len, o2.buf ? o2.len : 0);
        free(o2.buf);
    }
    free(o1.buf);
    return 0;
}

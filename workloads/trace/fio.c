/*
 * fio.c -- fio iologs (HOWTO "Trace file format v2/v3"):
 *   fio version 2 iolog              fio version 3 iolog
 *   FILE add|open|close              TIME FILE add|open|close
 *   FILE ACTION OFFSET LENGTH        TIME FILE ACTION OFFSET LENGTH
 * ACTION is read, write, sync, datasync, trim or (v2 only) wait.  Files
 * become disks 0, 1, ... in the order they are added.
 */
#include "trace_internal.h"

#include <errno.h>
#include <string.h>

static int header(struct trace_reader *r, struct trace_error *err)
{
    char *f[5], q[192];
    r->fatal = 1; /* a wrong header means a wrong file: no skipping it */
    trace_quote(q, sizeof q, r->line);
    int n = trace_split(r->line, 0, f, 5);
    if (n == 4 && !strcmp(f[0], "fio") && !strcmp(f[1], "version") &&
        !strcmp(f[3], "iolog")) {
        if (!strcmp(f[2], "2") || !strcmp(f[2], "3")) {
            r->fio_version = f[2][0] - '0';
            r->fatal = 0;
            return 0;
        }
        return trace_fail(r, err, "unsupported fio iolog version %s (this reader knows 2 and 3)", q);
    }
    return trace_fail(r, err, "not a fio iolog: the first line is %s, not \"fio version 2 iolog\"", q);
}

static int file_of(struct trace_reader *r, struct trace_error *err, const char *name,
                   int idx, uint32_t *disk)
{
    char q[192];
    if (trace_disk_id(&r->disks, name, 0, disk))
        return 0;
    trace_quote(q, sizeof q, name);
    return trace_fail(r, err, "field %d (FILE): %s was never added", idx, q);
}

int trace_fio_parse(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err)
{
    static const char *const io_acts[] = {"read", "write", "trim", "sync", "datasync", "wait"};
    char *f[8], q[192];
    uint64_t t = 0, offset = 0, length = 0;
    if (r->lineno == 1)
        return header(r, err);
    int n = trace_split(r->line, 0, f, 8), b = r->fio_version == 3; /* b: TIME first */
    if (n == 0)
        return 0;
    if (b && trace_field_u64(r, err, f[0], 1, "TIME", &t))
        return -EINVAL;
    if (n < b + 2)
        return trace_fail(r, err, "field %d (%s): missing", n + 1, n == b ? "FILE" : "ACTION");
    const char *file = f[b], *act = f[b + 1];
    int io = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(act, io_acts[i]))
            io = i;
    int is_file_act = !strcmp(act, "add") || !strcmp(act, "open") || !strcmp(act, "close");
    if (io < 0 && !is_file_act) {
        trace_quote(q, sizeof q, act);
        return trace_fail(r, err, "field %d (ACTION): unknown action %s", b + 2, q);
    }
    if (io == 5 && b)
        return 0; /* fio ignores wait in v3: the timestamps give the pace */
    int want = b + (io < 0 ? 2 : 4);
    if (n > want)
        return trace_fail(r, err, "too many fields: %d (expected %d for %s)", n, want, act);
    if (io >= 0 && (trace_field_u64(r, err, n > b + 2 ? f[b + 2] : NULL, b + 3, "OFFSET", &offset) ||
                    trace_field_u64(r, err, n > b + 3 ? f[b + 3] : NULL, b + 4, "LENGTH", &length) ||
                    trace_check_range(r, err, offset, length)))
        return -EINVAL;
    if (b) {
        if (t > UINT64_MAX / r->opt.fio_v3_tick_ns)
            return trace_fail(r, err, "field 1 (TIME): out of range in nanoseconds");
        r->fio_now = t * r->opt.fio_v3_tick_ns;
    }
    if (is_file_act) {
        if (strcmp(act, "add"))
            return file_of(r, err, file, b + 1, &rec->disk) ? -EINVAL : 0;
        if (trace_disk_id(&r->disks, file, 1, &rec->disk) < 0) { /* re-adding is fine */
            r->fatal = 1;
            return trace_fail(r, err, "out of memory");
        }
        return 0;
    }
    if (file_of(r, err, file, b + 1, &rec->disk))
        return -EINVAL;
    if (io == 5) { /* v2 wait: OFFSET microseconds after the previous one */
        if (offset > (UINT64_MAX - r->fio_now) / 1000)
            return trace_fail(r, err, "field 3 (OFFSET): wait overflows the clock");
        r->fio_now += offset * 1000;
        return 0;
    }
    static const enum trace_op ops[] = {TRACE_READ, TRACE_WRITE, TRACE_DISCARD, TRACE_SYNC,
                                        TRACE_SYNC};
    rec->op = ops[io];
    rec->time_ns = r->fio_now;
    if (io >= 3) { /* fio logs the io_u's offset and length; a sync has none */
        offset = length = 0;
        rec->flags = io == 4 ? TRACE_BLK_DATASYNC : 0;
    }
    rec->offset = offset;
    rec->length = length;
    return 1;
}

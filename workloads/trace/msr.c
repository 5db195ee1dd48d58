/*
 * msr.c -- MSR Cambridge block traces (SNIA IOTTA), CSV lines
 *   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
 * Timestamp is a Windows FILETIME (100 ns ticks since 1601); records get
 * time_ns relative to the first record, so replays start at 0.
 */
#include "trace_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

static const char *const names[] = {"Timestamp", "Hostname", "DiskNumber", "Type",
                                    "Offset", "Size", "ResponseTime"};

int trace_msr_parse(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err)
{
    char *f[8], q[192];
    uint64_t ts, disk, offset, size, resp;
    if (r->len && r->line[r->len - 1] == '\r') /* files copied from Windows */
        r->line[--r->len] = '\0';
    if (!r->len)
        return 0; /* blank lines carry nothing */
    if (r->lineno == 1 && !strncasecmp(r->line, "Timestamp,", 10))
        return 0; /* a column header some copies add */
    int n = trace_split(r->line, ',', f, 8);
    if (n > 7)
        return trace_fail(r, err, "too many fields: %d (expected 7)", n);
    for (int i = 0; i < 7; i++) {
        if (i >= n)
            return trace_fail(r, err, "field %d (%s): missing", i + 1, names[i]);
        if (!*f[i])
            return trace_fail(r, err, "field %d (%s): empty", i + 1, names[i]);
    }
    if (trace_field_u64(r, err, f[0], 1, names[0], &ts) ||
        trace_field_u64(r, err, f[2], 3, names[2], &disk) ||
        trace_field_u64(r, err, f[4], 5, names[4], &offset) ||
        trace_field_u64(r, err, f[5], 6, names[5], &size) ||
        trace_field_u64(r, err, f[6], 7, names[6], &resp))
        return -EINVAL;
    if (disk > UINT32_MAX) {
        trace_quote(q, sizeof q, f[2]);
        return trace_fail(r, err, "field 3 (DiskNumber): out of range: %s", q);
    }
    if (!strcasecmp(f[3], "Read")) {
        rec->op = TRACE_READ;
    } else if (!strcasecmp(f[3], "Write")) {
        rec->op = TRACE_WRITE;
    } else {
        trace_quote(q, sizeof q, f[3]);
        return trace_fail(r, err, "field 4 (Type): unknown type %s (expected Read or Write)", q);
    }
    if (trace_check_range(r, err, offset, size))
        return -EINVAL;
    if (!r->have_t0) {
        r->have_t0 = 1;
        r->t0 = ts;
    }
    if (ts < r->t0)
        return trace_fail(r, err, "field 1 (Timestamp): %" PRIu64
                          " is before the first record's %" PRIu64, ts, r->t0);
    if (ts - r->t0 > UINT64_MAX / 100)
        return trace_fail(r, err, "field 1 (Timestamp): out of range in nanoseconds");
    rec->time_ns = (ts - r->t0) * 100;
    rec->disk = (uint32_t)disk;
    rec->offset = offset;
    rec->length = size;
    return 1;
}

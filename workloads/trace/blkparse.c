/*
 * blkparse.c -- blkparse's default text output, one event a line:
 *   MAJ,MIN CPU SEQ SECONDS.NANOS PID ACTION RWBS SECTOR + NSECTORS [PROCESS]
 * A request shows up as several events (Q queued, G, I, D issued, C
 * completed); one action kind is replayed (opts.blk_action, default Q) and
 * the other events, blkparse's summary text and blank lines are passed over.
 */
#include "trace_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SECTOR 512u

static const char *const names[] = {"DEVICE", "CPU", "SEQ", "TIME", "PID", "ACTION",
                                    "RWBS", "SECTOR", "+", "NSECTORS", "PROCESS"};

/* "MAJ,MIN" with both numbers below 2^32. */
static int parse_dev(const char *s, uint32_t *maj, uint32_t *min)
{
    char buf[48];
    uint64_t a, b;
    const char *c = strchr(s, ',');
    if (!c || (size_t)(c - s) >= sizeof buf)
        return -1;
    memcpy(buf, s, (size_t)(c - s));
    buf[c - s] = '\0';
    if (trace_parse_u64(buf, 10, &a) || trace_parse_u64(c + 1, 10, &b) ||
        a > UINT32_MAX || b > UINT32_MAX)
        return -1;
    *maj = (uint32_t)a;
    *min = (uint32_t)b;
    return 0;
}

/* "SECONDS[.FRACTION]", at most 9 fraction digits, to nanoseconds. */
static int parse_time(const char *s, uint64_t *ns)
{
    uint64_t sec = 0, frac = 0;
    int digits = 0;
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return -1;
    for (; isdigit((unsigned char)*p); p++) {
        if (sec > (UINT64_MAX - 9) / 10)
            return -2;
        sec = sec * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p); p++, digits++) {
            if (digits == 9)
                return -1;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
        if (!digits)
            return -1; /* "5." */
    }
    if (*p)
        return -1;
    for (; digits < 9; digits++)
        frac *= 10;
    if (sec > (UINT64_MAX - frac) / 1000000000u)
        return -2;
    *ns = sec * 1000000000u + frac;
    return 0;
}

/* RWBS: [F] (R|W|D|N) then any of F A S M B E; "F" alone is a flush.
 * Returns 0, or -1 for a letter it does not know. */
static int parse_rwbs(const char *s, char *prim, int *flush, uint32_t *flags)
{
    *flush = *s == 'F';
    s += *flush;
    if (*s && strchr("RWDN", *s))
        *prim = *s++;
    else if (*flush)
        *prim = 'N'; /* the flush is the whole request */
    else
        return -1;
    for (; *s; s++)
        switch (*s) {
        case 'F': *flags |= TRACE_BLK_FUA; break;
        case 'A': *flags |= TRACE_BLK_AHEAD; break;
        case 'S': *flags |= TRACE_BLK_SYNCIO; break;
        case 'M': *flags |= TRACE_BLK_META; break;
        case 'B': *flags |= TRACE_BLK_PREFLUSH | TRACE_BLK_FUA; break; /* old barrier */
        case 'E': /* secure erase: a discard too */
            if (*prim != 'D')
                return -1;
            break;
        default: return -1;
        }
    return 0;
}

static int bad(struct trace_reader *r, struct trace_error *err, int i, const char *what,
               const char *s)
{
    char q[192];
    trace_quote(q, sizeof q, s);
    return trace_fail(r, err, "field %d (%s): %s: %s", i + 1, names[i], what, q);
}

/* SECTOR and NSECTORS count 512-byte sectors. */
static int sectors(struct trace_reader *r, struct trace_error *err, char *s, int i,
                   uint64_t *bytes)
{
    uint64_t v;
    if (trace_field_u64(r, err, s, i + 1, names[i], &v))
        return -EINVAL;
    if (v > UINT64_MAX / SECTOR)
        return bad(r, err, i, "out of range in bytes", s);
    *bytes = v * SECTOR;
    return 0;
}

static int is_tail(const char *s) /* "[PROCESS]", "[ERROR]" or "(ELAPSED)" */
{
    return *s == '[' || *s == '(';
}

int trace_blk_parse(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err)
{
    char *f[16], act[2] = {r->opt.blk_action, '\0'}, prim;
    uint32_t maj, min;
    uint64_t v, offset = 0, length = 0;
    int flush, i, rc;
    char last = 0; /* the line's last non-blank byte, before splitting */
    for (size_t k = r->len; k-- > 0;)
        if (!isspace((unsigned char)r->line[k])) {
            last = r->line[k];
            break;
        }
    int n = trace_split(r->line, 0, f, 16);
    if (n == 0)
        return 0;
    if (parse_dev(f[0], &maj, &min)) {
        /* blkparse's summary ("CPU0 (8,0):", " Reads Queued: ...") starts
         * with a word; a line with our action in place is a broken event */
        if (isdigit((unsigned char)f[0][0]) && n >= 6 && !strcmp(f[5], act))
            return bad(r, err, 0, "not MAJ,MIN", f[0]);
        return 0;
    }
    if (n < 6)
        return trace_fail(r, err, "field %d (%s): missing", n + 1, names[n]);
    if (strcmp(f[5], act))
        return 0; /* another action kind, or a message ("m", "P", "U") */
    for (i = 1; i < 5; i++) {
        if (i == 3) {
            if ((rc = parse_time(f[3], &rec->time_ns)))
                return bad(r, err, 3, rc == -2 ? "out of range" : "not a time", f[3]);
        } else if (trace_field_u64(r, err, f[i], i + 1, names[i], &v)) {
            return -EINVAL;
        }
    }
    if (n < 7)
        return trace_fail(r, err, "field 7 (RWBS): missing");
    if (parse_rwbs(f[6], &prim, &flush, &rec->flags))
        return bad(r, err, 6, "unknown RWBS letters", f[6]);
    i = 7;
    if (i >= n)
        return trace_fail(r, err, "field 8 (SECTOR): missing");
    if (!is_tail(f[i])) { /* else no sectors: "Q FWS [kworker]" */
        if (sectors(r, err, f[i++], 7, &offset))
            return -EINVAL;
        if (i < n && !strcmp(f[i], "+")) {
            if (sectors(r, err, i + 1 < n ? f[i + 1] : NULL, 9, &length))
                return -EINVAL;
            i += 2;
        } else if (i >= n) { /* "SECTOR" alone ends in "[ERROR]" or "[PROCESS]" */
            return trace_fail(r, err, "field 9 (+): missing");
        } else if (!is_tail(f[i])) { /* "C W 123 [0]" has no "+" */
            return bad(r, err, 8, "expected \"+\"", f[i]);
        }
    }
    if (i < n && (!is_tail(f[i]) || (last != ']' && last != ')'))) {
        char q[192];
        trace_quote(q, sizeof q, f[i]);
        return trace_fail(r, err, "field %d (PROCESS): %s: %s", i + 1,
                          is_tail(f[i]) ? "no closing ']'" : "expected [PROCESS]", q);
    }
    if (trace_check_range(r, err, offset, length))
        return -EINVAL;

    if (prim == 'N' || length == 0) {
        if (!flush)
            return 0; /* no data moved and no flush: nothing to replay */
        rec->op = TRACE_SYNC; /* flush-only: "F", "FN", "FWS" with 0 sectors */
        offset = length = 0;
    } else {
        rec->op = prim == 'R' ? TRACE_READ : prim == 'W' ? TRACE_WRITE : TRACE_DISCARD;
        if (flush)
            rec->flags |= TRACE_BLK_PREFLUSH;
    }
    rec->offset = offset;
    rec->length = length;
    if (r->opt.blk_disk_minor) {
        rec->disk = min;
    } else {
        char name[32];
        snprintf(name, sizeof name, "%u,%u", maj, min);
        if (trace_disk_id(&r->disks, name, 1, &rec->disk) < 0) {
            r->fatal = 1;
            return trace_fail(r, err, "out of memory");
        }
    }
    return 1;
}

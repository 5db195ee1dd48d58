/*
 * fsop.c -- reader of flashlab's file-system operation traces
 * (docs/traces.md has the grammar):
 *   flashlab-fstrace 1
 *   T_NS OP ARG...        fields separated by one space
 * Names are percent-encoded, so any byte string but one with NUL fits in a
 * field and a line holds exactly one call.
 */
#include "trace_internal.h"

#include <errno.h>
#include <string.h>

const struct trace_fsop_desc trace_fsop_ops[] = {
    {"mkdir", TRACE_MKDIR, "PM", {"PATH", "MODE"}},
    {"rmdir", TRACE_RMDIR, "P", {"PATH"}},
    {"create", TRACE_CREATE, "PFM", {"PATH", "FLAGS", "MODE"}},
    {"open", TRACE_OPEN, "PFM", {"PATH", "FLAGS", "MODE"}},
    {"close", TRACE_CLOSE, "P", {"PATH"}},
    {"read", TRACE_READ, "POL", {"PATH", "OFFSET", "LENGTH"}},
    {"write", TRACE_WRITE, "POL", {"PATH", "OFFSET", "LENGTH"}},
    {"punch", TRACE_PUNCH, "POL", {"PATH", "OFFSET", "LENGTH"}},
    {"truncate", TRACE_TRUNCATE, "PS", {"PATH", "SIZE"}},
    {"unlink", TRACE_UNLINK, "P", {"PATH"}},
    {"rename", TRACE_RENAME, "PQ", {"FROM", "TO"}},
    {"link", TRACE_LINK, "PQ", {"FROM", "TO"}},
    {"symlink", TRACE_SYMLINK, "PQ", {"TARGET", "PATH"}},
    {"fsync", TRACE_FSYNC, "P", {"PATH"}},
    {"exchange", TRACE_EXCHANGE, "PQ", {"PATH", "PATH2"}},
    {"allocate", TRACE_ALLOCATE, "POL", {"PATH", "OFFSET", "LENGTH"}},
    {"allocate-keep", TRACE_ALLOCATE_KEEP, "POL", {"PATH", "OFFSET", "LENGTH"}},
    {"sync", TRACE_SYNC, "", {NULL}},
};
const size_t trace_fsop_nops = sizeof trace_fsop_ops / sizeof trace_fsop_ops[0];
const char trace_fsop_flag_letters[] = "rwacxts"; /* TRACE_F_READ ... TRACE_F_SYNC */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Undo percent-encoding in place; NULL, or what is wrong. */
static const char *decode(char *s)
{
    char *o = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x21 || c == 0x7f)
            return "a control byte must be written %XX";
        if (c == '%') {
            int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);
            if (lo < 0)
                return "'%' must start %XX (two hex digits)";
            if (!hi && !lo)
                return "%00: names cannot hold NUL";
            c = (unsigned char)(hi * 16 + lo);
            s += 2;
        }
        *o++ = (char)c;
    }
    *o = '\0';
    return NULL;
}

static int parse_flags(const char *s, uint32_t *flags)
{
    if (!strcmp(s, "-"))
        return 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        const char *p = strchr(trace_fsop_flag_letters, *s);
        if (!p || (*flags & (1u << (p - trace_fsop_flag_letters))))
            return -1; /* unknown or repeated */
        *flags |= 1u << (p - trace_fsop_flag_letters);
    }
    return 0;
}

static int header(struct trace_reader *r, struct trace_error *err)
{
    char q[192];
    if (!strcmp(r->line, TRACE_FSOP_HEADER))
        return 0;
    r->fatal = 1;
    trace_quote(q, sizeof q, r->line);
    if (!strncmp(r->line, "flashlab-fstrace ", 17))
        return trace_fail(r, err, "unsupported version in %s (this reader knows 1)", q);
    return trace_fail(r, err, "not a flashlab fs-op trace: the first line is %s, not \""
                      TRACE_FSOP_HEADER "\"", q);
}

/* Argument i (0-based) of op d, field number fi, text s. */
static int arg(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err,
               const struct trace_fsop_desc *d, int i, int fi, char *s)
{
    const char *name = d->argname[i], *why;
    char q[192];
    uint64_t v;
    switch (d->args[i]) {
    case 'P':
    case 'Q':
        if ((why = decode(s))) {
            trace_quote(q, sizeof q, s);
            return trace_fail(r, err, "field %d (%s): %s: %s", fi, name, why, q);
        }
        *(d->args[i] == 'P' ? &rec->path : &rec->path2) = s;
        return 0;
    case 'M':
        if (trace_parse_u64(s, 8, &v) || v > 07777) {
            trace_quote(q, sizeof q, s);
            return trace_fail(r, err, "field %d (%s): not an octal mode <= 7777: %s", fi, name, q);
        }
        rec->mode = (uint32_t)v;
        return 0;
    case 'F':
        if (parse_flags(s, &rec->flags)) {
            trace_quote(q, sizeof q, s);
            return trace_fail(r, err, "field %d (%s): not a set of %s or \"-\": %s", fi, name,
                              trace_fsop_flag_letters, q);
        }
        return 0;
    }
    if (trace_field_u64(r, err, s, fi, name, &v))
        return -EINVAL;
    *(d->args[i] == 'O' ? &rec->offset : d->args[i] == 'L' ? &rec->length : &rec->size) = v;
    return 0;
}

int trace_fsop_parse(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err)
{
    char *f[6], q[192];
    if (r->lineno == 1)
        return header(r, err);
    if (!r->len || r->line[0] == '#')
        return 0; /* blank lines and comments, for traces written by hand */
    int n = trace_split(r->line, ' ', f, 6);
    const struct trace_fsop_desc *d = NULL;
    if (n < 2)
        return trace_fail(r, err, "field 2 (OP): missing");
    if (!*f[1])
        return trace_fail(r, err, "field 2 (OP): empty (one space between fields)");
    for (size_t i = 0; i < trace_fsop_nops; i++)
        if (!strcmp(f[1], trace_fsop_ops[i].name))
            d = &trace_fsop_ops[i];
    if (!d) {
        trace_quote(q, sizeof q, f[1]);
        return trace_fail(r, err, "field 2 (OP): unknown op %s", q);
    }
    int nargs = (int)strlen(d->args);
    if (n > 2 + nargs)
        return trace_fail(r, err, "too many fields: %d (expected %d for %s)", n, 2 + nargs,
                          d->name);
    for (int i = 0; i < 2 + nargs; i++) {
        const char *name = i == 0 ? "T_NS" : i == 1 ? "OP" : d->argname[i - 2];
        if (i >= n)
            return trace_fail(r, err, "field %d (%s): missing", i + 1, name);
        if (!*f[i])
            return trace_fail(r, err, "field %d (%s): empty (one space between fields)",
                              i + 1, name);
    }
    if (trace_field_u64(r, err, f[0], 1, "T_NS", &rec->time_ns))
        return -EINVAL;
    rec->op = d->op;
    for (int i = 0; i < nargs; i++)
        if (arg(r, rec, err, d, i, i + 3, f[i + 2]))
            return -EINVAL;
    if (trace_check_range(r, err, rec->offset, rec->length))
        return -EINVAL;
    return 1;
}

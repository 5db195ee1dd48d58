/*
 * fsop_write.c -- the writer of fs-op traces, for recorders such as
 * the FUSE mount.  Output is canonical: reading it back and writing the
 * records again gives the same bytes.
 */
#include "trace_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* Bytes 0x21..0x7e but '%' go as they are; the rest as %XX, so a name
 * never holds the field separator, a newline or anything unprintable. */
static void put_name(FILE *f, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c > 0x20 && c < 0x7f && c != '%') {
            putc_unlocked(c, f);
        } else {
            putc_unlocked('%', f);
            putc_unlocked(hex[c >> 4], f);
            putc_unlocked(hex[c & 15], f);
        }
    }
}

static const struct trace_fsop_desc *desc_of(const struct trace_rec *r)
{
    for (size_t i = 0; i < trace_fsop_nops; i++)
        if (trace_fsop_ops[i].op == r->op)
            return &trace_fsop_ops[i];
    return NULL;
}

/* 0 if every argument of the record fits the format. */
static int check(const struct trace_rec *r, const struct trace_fsop_desc *d)
{
    for (const char *a = d->args; *a; a++) {
        const char *s = *a == 'P' ? r->path : *a == 'Q' ? r->path2 : "x";
        if (!s || !*s)
            return -EINVAL; /* a block record (no path) or an empty name */
        if (*a == 'M' && r->mode > 07777)
            return -EINVAL;
        if (*a == 'F' && (r->flags & ~(uint32_t)TRACE_F_ALL))
            return -EINVAL;
    }
    if (strchr(d->args, 'O') && r->length > UINT64_MAX - r->offset)
        return -EINVAL;
    return 0;
}

int trace_write_fsop_header(FILE *f)
{
    return fputs(TRACE_FSOP_HEADER "\n", f) < 0 ? -EIO : 0;
}

int trace_write_fsop(FILE *f, const struct trace_rec *r)
{
    const struct trace_fsop_desc *d = desc_of(r);
    if (!d || check(r, d))
        return -EINVAL;
    flockfile(f); /* one whole line per call, even with threads */
    fprintf(f, "%" PRIu64 " %s", r->time_ns, d->name);
    for (const char *a = d->args; *a; a++) {
        putc_unlocked(' ', f);
        switch (*a) {
        case 'P': put_name(f, r->path); break;
        case 'Q': put_name(f, r->path2); break;
        case 'M': fprintf(f, "%04" PRIo32, r->mode); break;
        case 'O': fprintf(f, "%" PRIu64, r->offset); break;
        case 'L': fprintf(f, "%" PRIu64, r->length); break;
        case 'S': fprintf(f, "%" PRIu64, r->size); break;
        case 'F':
            if (!r->flags)
                putc_unlocked('-', f);
            for (int i = 0; trace_fsop_flag_letters[i]; i++)
                if (r->flags & (1u << i))
                    putc_unlocked(trace_fsop_flag_letters[i], f);
            break;
        }
    }
    putc_unlocked('\n', f);
    int bad = ferror(f);
    funlockfile(f);
    return bad ? -EIO : 0;
}

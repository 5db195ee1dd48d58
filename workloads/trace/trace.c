/*
 * trace.c -- the reader every format shares: opening, format detection,
 * reading one line at a time, and the skip_bad bookkeeping.  The formats
 * only parse the line in r->line.
 */
#include "trace_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void set_file(char *dst, size_t size, const char *path)
{
    size_t n = strlen(path);
    if (n < size)
        memcpy(dst, path, n + 1);
    else /* keep the tail: it names the file */
        snprintf(dst, size, "...%s", path + n - (size - 4));
}

/* An error not about one line (open, read, empty file). */
__attribute__((format(printf, 4, 5)))
static int file_error(struct trace_reader *r, struct trace_error *err, int rc,
                      const char *fmt, ...)
{
    va_list ap;
    memcpy(err->file, r->file, sizeof err->file);
    err->line = 0;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return rc;
}

/* 1 a line, 0 end of file, <0 read error.  getline grows r->line to any
 * length, so the only limit is memory. */
static int read_line(struct trace_reader *r, struct trace_error *err)
{
    errno = 0;
    ssize_t n = getline(&r->line, &r->cap, r->f);
    if (n < 0) {
        if (ferror(r->f) || errno == ENOMEM) {
            int e = errno ? errno : EIO;
            return file_error(r, err, -e, "read error: %s", strerror(e));
        }
        return 0;
    }
    r->lineno++;
    r->no_newline = !(n > 0 && r->line[n - 1] == '\n');
    r->len = (size_t)n - !r->no_newline;
    r->line[r->len] = '\0';
    if (memchr(r->line, '\0', r->len)) {
        r->fatal = 0;
        return trace_fail(r, err, "NUL byte in the line (not a text trace?)");
    }
    return 1;
}

/* The format of a first line, or TRACE_AUTO when none fits. */
static enum trace_format detect(const char *s)
{
    if (!strncmp(s, "flashlab-fstrace", 16))
        return TRACE_FSOP;
    if (!strncmp(s, "fio version ", 12))
        return TRACE_FIO;
    if (!strncasecmp(s, "Timestamp,", 10))
        return TRACE_MSR;
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (isdigit((unsigned char)*p)) { /* blkparse: "  8,0    3 ..." */
        while (isdigit((unsigned char)*p))
            p++;
        if (*p == ',' && isdigit((unsigned char)p[1])) {
            p++;
            while (isdigit((unsigned char)*p))
                p++;
            if (*p == ' ' || *p == '\t')
                return TRACE_BLKPARSE;
        }
    }
    int commas = 0;
    for (p = s; *p; p++)
        commas += *p == ',';
    if (commas == 6 && isdigit((unsigned char)*s))
        return TRACE_MSR;
    return TRACE_AUTO;
}

static int setup(struct trace_reader *r, enum trace_format fmt)
{
    static const trace_parse_fn parse[] = {
        [TRACE_MSR] = trace_msr_parse, [TRACE_BLKPARSE] = trace_blk_parse,
        [TRACE_FIO] = trace_fio_parse, [TRACE_FSOP] = trace_fsop_parse,
    };
    if (fmt <= TRACE_AUTO || fmt > TRACE_FSOP)
        return -EINVAL;
    r->opt.format = fmt;
    r->parse = parse[fmt];
    r->needs_header = fmt == TRACE_FIO || fmt == TRACE_FSOP;
    return 0;
}

int trace_open_opts(const char *path, const struct trace_opts *opts,
                    struct trace_reader **out, struct trace_error *err)
{
    struct trace_error tmp;
    static const struct trace_opts defaults;
    if (!err)
        err = &tmp;
    if (!opts)
        opts = &defaults;
    memset(err, 0, sizeof *err);
    *out = NULL;
    struct trace_reader *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    set_file(r->file, sizeof r->file, path);
    r->opt = *opts;
    if (!r->opt.blk_action)
        r->opt.blk_action = 'Q';
    if (!r->opt.fio_v3_tick_ns)
        r->opt.fio_v3_tick_ns = 1000;
    int rc = 0;
    if (!strchr("QDC", r->opt.blk_action) || opts->format < TRACE_AUTO ||
        opts->format > TRACE_FSOP)
        rc = file_error(r, err, -EINVAL, "bad options");
    else if (!(r->f = fopen(path, "r"))) {
        int e = errno;
        rc = file_error(r, err, -e, "%s", strerror(e));
    } else if (opts->format != TRACE_AUTO)
        rc = setup(r, opts->format);
    else if ((rc = read_line(r, err)) == 0)
        rc = file_error(r, err, -EINVAL, "empty file: cannot detect the trace format");
    else if (rc > 0) {
        r->pending = 1;
        rc = setup(r, detect(r->line));
        if (rc) {
            char q[192];
            trace_quote(q, sizeof q, r->line);
            rc = trace_fail(r, err, "cannot detect the trace format from %s", q);
        }
    }
    if (rc < 0) {
        trace_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

int trace_open(const char *path, enum trace_format fmt,
               struct trace_reader **out, struct trace_error *err)
{
    struct trace_opts o = {.format = fmt};
    return trace_open_opts(path, &o, out, err);
}

int trace_next(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err)
{
    struct trace_error tmp;
    if (!err)
        err = &tmp;
    if (r->broken)
        return file_error(r, err, r->broken, "the reader stopped at an earlier error");
    for (;;) {
        r->fatal = 0;
        int rc = r->pending ? 1 : read_line(r, err);
        r->pending = 0;
        if (rc == 0) {
            if (r->needs_header && r->lineno == 0) { /* never saw one */
                r->broken = -EINVAL;
                return file_error(r, err, -EINVAL, "empty file: no %s header",
                                  r->opt.format == TRACE_FIO ? "\"fio version 2 iolog\""
                                                             : "\"" TRACE_FSOP_HEADER "\"");
            }
            return 0;
        }
        if (rc > 0) {
            memset(rec, 0, sizeof *rec);
            rc = r->parse(r, rec, err);
            if (rc > 0)
                return 1;
            if (rc == 0)
                continue;
        }
        if (err->line == 0) { /* a read error: nothing more to read */
            r->broken = rc;
            return rc;
        }
        if (r->no_newline) {
            size_t n = strlen(err->msg);
            snprintf(err->msg + n, sizeof err->msg - n,
                     " (the last line has no newline: truncated?)");
        }
        if (r->fatal)
            r->broken = rc;
        if (!r->opt.skip_bad || r->fatal)
            return rc;
        if (r->skipped++ == 0)
            r->first_bad = *err;
    }
}

void trace_close(struct trace_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    free(r->line);
    trace_disks_free(&r->disks);
    free(r);
}

enum trace_format trace_reader_format(const struct trace_reader *r)
{
    return r->opt.format;
}

uint64_t trace_skipped(const struct trace_reader *r)
{
    return r->skipped;
}

const struct trace_error *trace_first_skipped(const struct trace_reader *r)
{
    return r->skipped ? &r->first_bad : NULL;
}

uint32_t trace_disk_count(const struct trace_reader *r)
{
    return r->disks.n;
}

const char *trace_disk_name(const struct trace_reader *r, uint32_t d)
{
    return d < r->disks.n ? r->disks.names[d] : NULL;
}

void trace_perror(FILE *f, const struct trace_error *e)
{
    if (e->line)
        fprintf(f, "%s:%" PRIu64 ": %s\n", e->file, e->line, e->msg);
    else
        fprintf(f, "%s: %s\n", e->file, e->msg);
}

const char *trace_format_name(enum trace_format fmt)
{
    switch (fmt) {
    case TRACE_AUTO: return "auto";
    case TRACE_MSR: return "msr";
    case TRACE_BLKPARSE: return "blkparse";
    case TRACE_FIO: return "fio";
    case TRACE_FSOP: return "fsop";
    }
    return "?";
}

const char *trace_op_name(enum trace_op op)
{
    for (size_t i = 0; i < trace_fsop_nops; i++)
        if (trace_fsop_ops[i].op == op)
            return trace_fsop_ops[i].name;
    return NULL;
}

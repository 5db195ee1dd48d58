/*
 * trace_internal.h -- what the per-format parsers share: the reader, the
 * field and number helpers, the disk-name table and the fs-op op table.
 */
#ifndef FLASHLAB_TRACE_INTERNAL_H
#define FLASHLAB_TRACE_INTERNAL_H

#include "trace.h"

#include <stddef.h>

/* Names to dense numbers 0..n-1 in order of first appearance (fio files,
 * blkparse devices); open addressing, because a trace may name many. */
struct trace_disks {
    char **names;
    uint32_t n, cap;
    uint32_t *slot; /* index + 1; 0 = empty */
    uint32_t nslot; /* power of two, > 2 * n */
};

struct trace_reader;
/* Parse r->line into *rec: 1 a record, 0 nothing to replay, <0 an error
 * (set r->fatal for errors no skip_bad may pass over). */
typedef int (*trace_parse_fn)(struct trace_reader *r, struct trace_rec *rec,
                              struct trace_error *err);

struct trace_reader {
    FILE *f;
    char file[256];
    struct trace_opts opt;
    trace_parse_fn parse;
    int needs_header; /* fio and fs-op files start with a header line */

    char *line; /* the current line, '\n' removed, NUL-terminated */
    size_t cap, len;
    uint64_t lineno;
    int no_newline; /* the current line is the last and lacks '\n' */
    int pending;    /* line holds an unparsed line (after detection) */
    int fatal, broken;

    uint64_t skipped;
    struct trace_error first_bad;
    struct trace_disks disks;

    /* per-format state */
    int have_t0;      /* MSR: time origin = first record */
    uint64_t t0;
    int fio_version;  /* 2 or 3 once the header is read */
    uint64_t fio_now; /* v2: sum of waits, ns */
};

int trace_msr_parse(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err);
int trace_blk_parse(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err);
int trace_fio_parse(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err);
int trace_fsop_parse(struct trace_reader *r, struct trace_rec *rec, struct trace_error *err);

/* Fill *err for the current line; returns -EINVAL. */
int trace_fail(struct trace_reader *r, struct trace_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* `"text"` for messages: at most 40 bytes, unprintable bytes as \xNN. */
void trace_quote(char *out, size_t size, const char *s);

/* Split in place at each `sep` (empty fields kept) or, when sep is 0, at
 * runs of blanks (spaces, tabs, CR).  Stores up to max pointers and returns
 * the number of fields. */
int trace_split(char *s, char sep, char **field, int max);
/* Decimal (base 10) or octal (base 8) digits only: 0, -1 not a number,
 * -2 out of range. */
int trace_parse_u64(const char *s, int base, uint64_t *v);
/* trace_parse_u64 of field idx (1-based) called name, with the message
 * `field 5 (Offset): not a number: "12x"` on failure; NULL s = missing. */
int trace_field_u64(struct trace_reader *r, struct trace_error *err,
                    const char *s, int idx, const char *name, uint64_t *v);
/* offset + length must fit in 64 bits. */
int trace_check_range(struct trace_reader *r, struct trace_error *err,
                      uint64_t offset, uint64_t length);

/* 1 and *id when known (or added, add = 1), 0 when unknown, -ENOMEM. */
int trace_disk_id(struct trace_disks *d, const char *name, int add, uint32_t *id);
void trace_disks_free(struct trace_disks *d);

/* The fs-op format: each op's keyword and arguments, in order.  Argument
 * kinds: P path, Q path2, M mode, F flags, O offset, L length, S size. */
struct trace_fsop_desc {
    const char *name;
    enum trace_op op;
    const char *args;
    const char *argname[3];
};
extern const struct trace_fsop_desc trace_fsop_ops[];
extern const size_t trace_fsop_nops;
extern const char trace_fsop_flag_letters[]; /* bit i of TRACE_F_* */
#define TRACE_FSOP_HEADER "flashlab-fstrace 1"

#endif

/*
 * trace.h -- streaming readers for block and file-system traces, and the
 * writer of flashlab's own file-system operation format.
 *
 * Formats (docs/traces.md has the mappings and the fs-op grammar):
 *   TRACE_MSR       MSR Cambridge CSV (SNIA IOTTA)
 *   TRACE_BLKPARSE  blkparse's default text output
 *   TRACE_FIO       fio iolog version 2 and 3
 *   TRACE_FSOP      "flashlab-fstrace 1": one file-system call per line
 *
 * A reader reads one line at a time (a growable buffer, any line length),
 * so traces of any size stream through a few buffers.  Every malformed line
 * is an error naming the file, the line and the field, unless the reader is
 * opened with skip_bad, which counts such lines instead.
 */
#ifndef FLASHLAB_TRACE_H
#define FLASHLAB_TRACE_H

#include <stdint.h>
#include <stdio.h>

enum trace_format {
    TRACE_AUTO = 0, /* trace_open: detect from the first line */
    TRACE_MSR,
    TRACE_BLKPARSE,
    TRACE_FIO,
    TRACE_FSOP,
};

/* Block traces yield READ, WRITE, DISCARD and SYNC with path == NULL.  The
 * fs-op format yields every op; its read, write and punch are READ, WRITE
 * and DISCARD with a path, so a block trace replays onto a file by setting
 * the path.  Numbered from 1 so that a zeroed record is no op. */
enum trace_op {
    TRACE_READ = 1, /* offset, length */
    TRACE_WRITE,    /* offset, length */
    TRACE_DISCARD,  /* offset, length; "punch" in the fs-op format */
    TRACE_SYNC,     /* whole device / whole file system */
    TRACE_MKDIR,    /* path, mode */
    TRACE_RMDIR,    /* path */
    TRACE_CREATE,   /* path, flags (creat implied), mode */
    TRACE_OPEN,     /* path, flags, mode */
    TRACE_CLOSE,    /* path */
    TRACE_TRUNCATE, /* path, size */
    TRACE_UNLINK,   /* path */
    TRACE_RENAME,   /* path -> path2 */
    TRACE_LINK,     /* existing path, new name path2 */
    TRACE_SYMLINK,  /* target path, new name path2 */
    TRACE_FSYNC,    /* path */
    TRACE_EXCHANGE, /* path <-> path2: renameat2's RENAME_EXCHANGE */
    TRACE_ALLOCATE, /* path, offset, length: fallocate mode 0 (size grows) */
    TRACE_ALLOCATE_KEEP, /* path, offset, length: fallocate KEEP_SIZE */
    TRACE_PUNCH = TRACE_DISCARD,
    TRACE_OP_LAST = TRACE_ALLOCATE_KEEP, /* the highest op */
};

/* flags of OPEN and CREATE (our own bits: O_* values differ by system). */
enum {
    TRACE_F_READ = 1 << 0,   /* r */
    TRACE_F_WRITE = 1 << 1,  /* w */
    TRACE_F_APPEND = 1 << 2, /* a */
    TRACE_F_CREAT = 1 << 3,  /* c */
    TRACE_F_EXCL = 1 << 4,   /* x */
    TRACE_F_TRUNC = 1 << 5,  /* t */
    TRACE_F_SYNC = 1 << 6,   /* s */
    TRACE_F_ALL = (1 << 7) - 1,
};

/* flags of block records: what the trace says beyond the op. */
enum {
    TRACE_BLK_PREFLUSH = 1 << 0, /* blkparse leading F: flush before the op */
    TRACE_BLK_FUA = 1 << 1,      /* blkparse F after the op letter */
    TRACE_BLK_SYNCIO = 1 << 2,   /* blkparse S */
    TRACE_BLK_META = 1 << 3,     /* blkparse M */
    TRACE_BLK_AHEAD = 1 << 4,    /* blkparse A (read-ahead) */
    TRACE_BLK_DATASYNC = 1 << 5, /* fio datasync (a SYNC of data only) */
};

struct trace_rec {
    uint64_t time_ns; /* see docs/traces.md for each format's origin */
    uint32_t disk;    /* block traces; 0 in fs-op traces */
    enum trace_op op;
    uint64_t offset, length; /* bytes; offset + length never overflows */
    /* Owned by the reader, valid until the next trace_next/trace_close.
     * NUL-terminated; names never contain NUL (the format forbids it). */
    const char *path, *path2;
    uint32_t mode;  /* permission bits, <= 07777 */
    uint32_t flags; /* TRACE_F_* (OPEN, CREATE) or TRACE_BLK_* (block) */
    uint64_t size;  /* TRUNCATE */
};

struct trace_error {
    char file[256]; /* as given to trace_open (tail kept if too long) */
    uint64_t line;  /* 1-based; 0 when not about one line */
    char msg[256];
};

struct trace_opts {
    enum trace_format format;
    int skip_bad;       /* count malformed lines instead of failing */
    char blk_action;    /* blkparse action to replay: 'Q' (0), 'D' or 'C' */
    int blk_disk_minor; /* blkparse disk = minor number (else dense map) */
    uint64_t fio_v3_tick_ns; /* fio v3 time unit; 0 = 1000 (microseconds) */
};

struct trace_reader;

/* Open with default options (or opts, which may be NULL).  0, or a
 * negative errno with *err filled (err may be NULL). */
int trace_open(const char *path, enum trace_format fmt,
               struct trace_reader **out, struct trace_error *err);
int trace_open_opts(const char *path, const struct trace_opts *opts,
                    struct trace_reader **out, struct trace_error *err);
/* 1 and *rec filled, 0 at the end, negative errno with *err on error.
 * After a bad line (-EINVAL) the next call goes on with the next line; after
 * a bad header or a read error every call fails again. */
int trace_next(struct trace_reader *r, struct trace_rec *rec,
               struct trace_error *err);
void trace_close(struct trace_reader *r);

/* The format read (the detected one after TRACE_AUTO). */
enum trace_format trace_reader_format(const struct trace_reader *r);
/* Lines passed over as malformed under skip_bad, and the first of them
 * (NULL if none). */
uint64_t trace_skipped(const struct trace_reader *r);
const struct trace_error *trace_first_skipped(const struct trace_reader *r);
/* Disks named so far: fio file names, blkparse "MAJ,MIN" (map mode); the
 * name of disk number d, or NULL (MSR, blkparse minor mode, unknown d). */
uint32_t trace_disk_count(const struct trace_reader *r);
const char *trace_disk_name(const struct trace_reader *r, uint32_t d);

/* "FILE:LINE: message\n" (or "FILE: message\n" when line is 0). */
void trace_perror(FILE *f, const struct trace_error *e);
const char *trace_format_name(enum trace_format fmt);
const char *trace_op_name(enum trace_op op); /* fs-op keyword, or NULL */

/* The fs-op writer: the header line, then one line per record.  Each call
 * holds the stream's lock, so threads may share one FILE.  0, -EINVAL for a
 * record the format cannot hold (missing or empty path, bad mode or flags,
 * offset + length overflow, a block record), -EIO on a write error. */
int trace_write_fsop_header(FILE *f);
int trace_write_fsop(FILE *f, const struct trace_rec *rec);

#endif

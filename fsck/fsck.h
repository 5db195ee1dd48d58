/*
 * fsck.h -- an independent checker (and careful repairer) of LogFS images.
 *
 * fsck reads the on-flash structures with its own decoder, written from
 * docs/FORMAT.md and not from fs/, so that it can catch the file system's
 * own mistakes.  It talks to flash only through sim/nand.h.  What it checks
 * and what --repair fixes: docs/fsck.md.
 */
#ifndef FLASHLAB_FSCK_H
#define FLASHLAB_FSCK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nand.h"

/* exported from libflashlab (built -fvisibility=hidden): docs/api.md */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes, as e2fsck's (they are not combined here: one is returned). */
enum {
    FSCK_CLEAN = 0,        /* no errors (warnings may have been printed) */
    FSCK_FIXED = 1,        /* errors were found and all of them repaired */
    FSCK_ERRORS = 4,       /* errors are left */
    FSCK_OPERATIONAL = 8,  /* fsck could not do its job (I/O, memory, not
                              LogFS, an unknown read version) */
    FSCK_USAGE = 16,       /* bad command line (the CLI only) */
};

/* What a message is about. */
enum fsck_kind {
    FSCK_K_SUPER,    /* superblock and its copy */
    FSCK_K_ANCHOR,   /* anchor ring and record */
    FSCK_K_READ,     /* a page that cannot be read */
    FSCK_K_POINTER,  /* a block pointer that breaks FORMAT.md section 4 */
    FSCK_K_HEADER,   /* an object header: invalid, or not what its place says */
    FSCK_K_CRC,      /* an object payload CRC mismatch */
    FSCK_K_TREE,     /* tree shape: sequence numbers, overlaps, sizes */
    FSCK_K_INODE,    /* an inode record */
    FSCK_K_DIR,      /* directory buckets and entries */
    FSCK_K_DANGLING, /* an entry naming an inode that does not exist */
    FSCK_K_NLINK,    /* nlink against the directory entries */
    FSCK_K_ORPHAN,   /* unlisted orphans, unreferenced inodes */
    FSCK_K_SEGMENT,  /* segment-file entries against what the trees hold */
    FSCK_K_COUNTER,  /* anchor counters: live_bytes, free_segments, next_ino, pool */
    FSCK_K_DEVICE,   /* the device's view: bad-block markers, erase counts */
    FSCK_K_OPER,     /* fsck's own failure */
    FSCK_KINDS
};

enum fsck_severity { FSCK_INFO = 0, FSCK_WARNING = 1, FSCK_ERROR = 2 };

#define FSCK_NONE (-1) /* block, page or inode not given */

struct fsck_msg {
    enum fsck_kind kind;
    enum fsck_severity severity;
    int repaired;          /* the repair commit fixed it */
    int64_t block, page;   /* where on flash, or FSCK_NONE */
    int64_t ino;           /* which inode, or FSCK_NONE */
    char *text;            /* one line, naming block/page/inode/offset */
};

struct fsck_report {
    unsigned errors[FSCK_KINDS], warnings[FSCK_KINDS];
    unsigned nerrors, nwarnings, nrepaired;
    struct fsck_msg *msgs;
    size_t nmsgs, cap;
    /* what was seen (after a repair: by the verifying pass) */
    uint64_t seq;          /* the newest anchor's commit number */
    uint64_t inodes, files, dirs, symlinks;
    uint64_t objects, live_bytes; /* reachable objects, their bytes */
    int written;           /* the device was changed: save the image */
    int status;            /* the exit code fsck_run returned */
};

/*
 * Check the LogFS on dev; with repair, fix what can be fixed safely by
 * writing one new commit (and rewriting a damaged superblock copy), then
 * check again.  Fills *out (free it with fsck_report_free) and returns an
 * exit code above.  Without repair nothing is written to dev.
 */
int fsck_run(nand_dev *dev, int repair, struct fsck_report *out);
void fsck_report_free(struct fsck_report *r);

/* Messages one a line (info lines only when verbose), then a summary line
 * naming `name` (the image). */
void fsck_report_print(FILE *f, const struct fsck_report *r, const char *name,
                       int verbose);

/* Check dev without repairing; 0 when clean, else fsck_run's exit code
 * with "exit N, E errors; first: MESSAGE" in msg (what a campaign logs). */
int fsck_verdict(nand_dev *dev, char *msg, size_t len);

/* 1 if the report holds an error (repaired or not) of this kind. */
int fsck_report_has(const struct fsck_report *r, enum fsck_kind kind);
const char *fsck_kind_name(enum fsck_kind kind);

/*
 * What every page of dev holds, for media-fault campaigns (docs/faults.md):
 * cls[block * pages_per_block + page] gets a FSCK_PG_* class, from the same
 * walk as fsck_run (no repair).  A page holding several objects gets the
 * class first in this list: anchor, superblock, segment file, inode file,
 * indirect 5..1, directory, file data, stale (written, nothing the newest
 * commit reaches), free (not programmed), bad block.  0, or FSCK_OPERATIONAL
 * when the device could not be walked (cls then holds what was found).
 */
enum fsck_page_class {
    FSCK_PG_ANCHOR, FSCK_PG_SUPER, FSCK_PG_SEGFILE, FSCK_PG_INODEFILE,
    FSCK_PG_INDIRECT1, FSCK_PG_INDIRECT2, FSCK_PG_INDIRECT3, FSCK_PG_INDIRECT4,
    FSCK_PG_INDIRECT5, FSCK_PG_DIR, FSCK_PG_DATA, FSCK_PG_STALE, FSCK_PG_FREE,
    FSCK_PG_BAD, FSCK_PG_CLASSES
};
int fsck_page_map(nand_dev *dev, uint8_t *cls);
/* "anchor", "superblock", "segment-file", "inode-file", "indirect-1" ..
 * "indirect-5", "directory", "file-data", "stale", "free", "bad-block";
 * NULL past the end. */
const char *fsck_page_class_name(int cls);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif

/* mount_priv.h -- what cmd_mount.c, mount_ops.c and mount_stats.c share:
 * the one mounted image.  Not a public interface. */
#ifndef FLASHLAB_MOUNT_PRIV_H
#define FLASHLAB_MOUNT_PRIV_H

#define FUSE_USE_VERSION 31
#include <fuse.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "fsapi.h"
#include "nand.h"
#include "trace.h"

/* The virtual statistics file at the root; hidden from readdir. */
#define MNT_STATS_NAME ".flashlab-stats"
#define MNT_STATS_PATH "/" MNT_STATS_NAME
/* Its st_ino: every kind numbers inodes upwards from small numbers,
 * never this high. */
#define MNT_STATS_INO UINT64_C(0x7fffffffffffff00)

struct mnt {
    /* the file systems are single-threaded: every call into fs or dev
     * holds lock */
    pthread_mutex_t lock;
    nand_dev *dev;
    struct fsapi_fs fs;             /* any kind, through its table */
    const char *image, *mountpoint; /* absolute */
    const char *fs_opts;            /* the fs's part of -o, as given */
    nand_time_t t0;                 /* simulated clock when mounted */
    nand_time_t op_start;           /* clock when the current op began */
    uint64_t host0;                 /* the fs's host_bytes when mounted */
    int readonly;
    int keep_image;                 /* a cut armed, no --save-after-cut: IMAGE
                                     * stays as it was, fsync syncs no journal */
    uint32_t block_size;            /* the fs's, for st_blksize and statfs */
    FILE *trace;                    /* --trace, or NULL */
    /* counters, under lock */
    uint64_t fuse_ops, errors, eio, trace_records, trace_dropped;
    /* host time (CLOCK_MONOTONIC ns) requests waited for the mutex and
     * held it: how much a second request at a time could gain */
    uint64_t lock_wait_ns, lock_held_ns, held_since;
    int trace_failed;
};

extern struct mnt *mnt_g; /* the mount (one per process) */

/* The fs's call op, or -ENOSYS when its kind lacks it (caller holds lock). */
#define MNT_CALL(m, op, ...) \
    ((m)->fs.api->op ? (m)->fs.api->op((m)->fs.fs, __VA_ARGS__) : -ENOSYS)
extern const struct fuse_operations mnt_ops;
/* Read the kernel's requests through mount_ops.c (once mounted), so that
 * an open directory a rename replaced keeps answering fstat: 0 or -1. */
int mnt_io_install(struct fuse *f);

/* The statistics text, a new string of *len bytes (caller holds lock). */
char *mnt_stats_text(struct mnt *m, size_t *len);
/* Append one record to the trace, stamped with the simulated time since
 * the mount at which the op began (caller holds lock); no-op without
 * --trace. */
void mnt_trace(struct mnt *m, const struct trace_rec *r);
/* O_* flags as TRACE_F_* bits. */
uint32_t mnt_trace_flags(int oflags);

#endif

/* mount_priv.h -- what cmd_mount.c, mount_ops.c and mount_stats.c share:
 * the one mounted image.  Not a public interface. */
#ifndef FLASHLAB_MOUNT_PRIV_H
#define FLASHLAB_MOUNT_PRIV_H

#define FUSE_USE_VERSION 31
#include <fuse.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "fsapi.h"
#include "nand.h"
#include "trace.h"

/* The virtual statistics file at the root; hidden from readdir. */
#define MNT_STATS_NAME ".flashlab-stats"
#define MNT_STATS_PATH "/" MNT_STATS_NAME
/* Its st_ino: every kind numbers inodes upwards from small numbers,
 * never this high. */
#define MNT_STATS_INO UINT64_C(0x7fffffffffffff00)

/* -o powercut=random,seed=N,mean_ops=M (mount_cut.c) */
#define MNT_CUT_MEAN_OPS 10000 /* mean_ops when not given */
struct mnt_cut {
    int random, seed_set;
    uint64_t seed, mean_ops;
    uint64_t age;       /* the image's nand.state_ops when mounted: the draw's key */
    uint64_t after_ops; /* the point drawn: flash programs/erases before the cut */
};

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
    int readonly;                   /* the fs is read-only (readonly=1, or ro on an
                                     * image another process writes) */
    int started_ro;                 /* -o ro: the kernel mount began read-only;
                                     * a kernel remount rw may make it writable */
    uint64_t ops0;                  /* nand.state_ops when the mount was ready */
    int keep_image;                 /* a cut armed, no --save-after-cut: IMAGE
                                     * stays as it was, fsync syncs no journal */
    int save_after_cut;             /* save the torn image at unmount (given,
                                     * a random cut, or a shutdown ioctl) */
    struct mnt_cut cut;
    uint32_t block_size;            /* the fs's, for st_blksize and statfs */
    int block, io_flusher;          /* --block; marked PR_SET_IO_FLUSHER */
    FILE *trace;                    /* --trace, or NULL */
    /* counters, under lock */
    uint64_t fuse_ops, errors, eio, trace_records, trace_dropped;
    /* host time (CLOCK_MONOTONIC ns) requests waited for the mutex and
     * held it: how much a second request at a time could gain */
    uint64_t lock_wait_ns, lock_held_ns, held_since;
    int trace_failed;
    int acl;                        /* POSIX ACLs on (mount_acl.c) */
};

extern struct mnt *mnt_g;

/* dev's flash programs and erases so far (nand.state_ops). */
uint64_t mnt_state_ops(nand_dev *dev); /* the mount (one per process) */

/* The fs's call op, or -ENOSYS when its kind lacks it (caller holds lock). */
#define MNT_CALL(m, op, ...) \
    ((m)->fs.api->op ? (m)->fs.api->op((m)->fs.fs, __VA_ARGS__) : -ENOSYS)
extern const struct fuse_operations mnt_ops;
/* Read the kernel's requests through mount_ops.c (once mounted), so that
 * an open directory a rename replaced keeps answering fstat: 0 or -1. */
int mnt_io_install(struct fuse *f);

/* Open directories and files by libfuse node (mount_files.c), so that
 * one without a name answers fstat: note and forget an fs fd on a node;
 * an fd open on node, or -1 (caller holds lock, under which release and
 * releasedir forget and close); note the request this thread serves and
 * its reply (a CREATE's reply names the new node). */
#define MNT_FILE_BY_NODE (UINT64_MAX - 1) /* never an fd nor an address */
void mnt_files_add(uint64_t node, int fd);
void mnt_files_remove(int fd);
int mnt_file_fd_of(uint64_t node);
void mnt_files_request(uint32_t opcode, uint64_t unique);
void mnt_files_reply(const struct iovec *iov, int count);

/* The random cut: 1 when item (n bytes, "key=value") is one of its -o
 * keys, 0 when not, -1 with a message in err when its value is bad. */
int mnt_cut_option(struct mnt_cut *c, const char *item, size_t n, char *err, size_t errlen);
/* -1 with a message when seed= or mean_ops= come without powercut=random. */
int mnt_cut_check(const struct mnt_cut *c, char *err, size_t errlen);
/* Draw the cut point from the seed and dev's age, and arm it (no-op
 * without powercut=random). */
void mnt_cut_arm(struct mnt_cut *c, nand_dev *dev);

/* POSIX ACLs (mount_acl.c; caller holds lock).  init: ask the kernel for
 * them when the kind keeps xattrs (sets m->acl).  A new file under parent:
 * *mode masked by parent's default ACL or else the caller's umask, and
 * what apply then stores on it (its access ACL; a directory's default
 * ACL).  set: after an access ACL was set on path, drop its set-group-ID
 * bit when the caller is outside its group and not root. */
#define MNT_ACL_MAX 4096 /* bytes: 511 entries, more than setfacl writes */
struct mnt_acl_new {
    uint8_t dflt[MNT_ACL_MAX], access[MNT_ACL_MAX];
    size_t dflt_len, access_len;
};
void mnt_acl_init(struct mnt *m, struct fuse_conn_info *conn);
void mnt_acl_new(struct mnt *m, const char *parent, uint32_t *mode, struct mnt_acl_new *a);
int mnt_acl_apply(struct mnt *m, const char *path, const struct mnt_acl_new *a, int is_dir);
void mnt_acl_set(struct mnt *m, const char *path, const char *name);
void mnt_acl_modified(struct mnt *m, const char *path, int fd);

/* A file attributes' ioctl (FS_IOC_GETFLAGS, _SETFLAGS, _FSGETXATTR,
 * _FSSETXATTR) on path, data the kernel's buffer (mount_attr.c; caller
 * holds lock): 0 after a get, 1 after a set (a LogFS commit), or a
 * negative errno; -ENOTTY for another command or a kind without
 * attributes. */
int mnt_attr_ioctl(struct mnt *m, const char *path, unsigned cmd, void *data);
/* Whether cmd is one of those four. */
int mnt_attr_ioctl_cmd(unsigned cmd);
/* Whether path has chattr's S (each write durable when it returns). */
int mnt_attr_is_sync(struct mnt *m, const char *path);

/* The statistics text, a new string of *len bytes (caller holds lock). */
char *mnt_stats_text(struct mnt *m, size_t *len);
/* Append one record to the trace, stamped with the simulated time since
 * the mount at which the op began (caller holds lock); no-op without
 * --trace. */
void mnt_trace(struct mnt *m, const struct trace_rec *r);
/* O_* flags as TRACE_F_* bits. */
uint32_t mnt_trace_flags(int oflags);

#endif

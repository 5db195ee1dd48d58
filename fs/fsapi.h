/*
 * fsapi.h -- one table of entry points per flash file system on the
 * simulator: LogFS and the baselines (a JFFS2-style scan-mount fs with and
 * without erase-block summaries, and a naive in-place block fs).  It is the
 * only door above fs/: the CLI, the FUSE mount, experiments, campaigns and
 * the Python package reach every kind through it, so that a new kind is
 * one folder plus one entry in fs/fsapi.c.  Semantics are
 * fs/logfs/logfs.h's (negative errno, the stat structs of fs/fstypes.h);
 * each fs documents what it leaves out.  An optional entry left NULL means
 * the kind does not have it: its fsapi_* wrapper below returns -ENOTSUP,
 * and fsapi_declined() says so in words.
 */
#ifndef FLASHLAB_FSAPI_H
#define FLASHLAB_FSAPI_H

#include "fstypes.h"
#include "nand.h"

#include <stddef.h>
#include <stdint.h>

/* exported from libflashlab (built -fvisibility=hidden): docs/api.md */
#pragma GCC visibility push(default)


/* What a mount did besides flash I/O, for the CPU cost model: the bytes
 * whose checksum it computed, and the nodes (objects, inodes, fragments)
 * it put into in-RAM maps. */
struct fsapi_mount_work {
    uint64_t bytes_checksummed;
    uint64_t nodes_indexed;
};

/* What a kind can do beyond the calls every kind has (fsapi.features). */
enum {
    FSAPI_F_SPECIAL_FILES = 1u << 0, /* mknod: fifos, sockets, device files */
    FSAPI_F_XATTR = 1u << 1,         /* extended attributes */
    FSAPI_F_COMPRESS = 1u << 2,      /* compresses file data (option compress) */
    FSAPI_F_FSCK = 1u << 3,          /* `flashlab fsck` checks its images */
    FSAPI_F_ATTRS = 1u << 4,         /* chmod, chown, utimens are kept */
    /* promises that no media fault loses data silently: a fault point
     * that does fails the campaign (the baselines make no such promise) */
    FSAPI_F_FAULT_SAFE = 1u << 5,
    /* a block device, not a file system: the namespace is one file,
     * /disk, of the device's logical size; nothing can be made or
     * removed (the FTL, fs/ftl/) */
    FSAPI_F_ONE_FILE = 1u << 6,
};

/* One named counter of a mounted fs: what the runner records and what
 * `df` and the mount's statistics print.  Names mean the same in every
 * kind that keeps them (LogFS's are struct logfs_stats's fields): the
 * runner reads pages_data, pages_meta, pages_anchor, pages_gc, gc_rounds,
 * gc_time_ns, free_segments, wl_moves, data_raw_bytes, data_stored_bytes;
 * campaigns commits, anchor_seq, anchor_fallback, segfile_unreadable and
 * scrub_*; compress is 1 none, 2 zlib, 3 lzo. */
struct fsapi_counter {
    const char *name; /* static: "pages_data", "gc_rounds", ... */
    uint64_t value;
};
#define FSAPI_COUNTERS_MAX 64

struct fsapi {
    const char *name;    /* "logfs", "jffs2-scan", "jffs2-summary", "blockfs" */
    const char *summary; /* one line */
    unsigned features;   /* FSAPI_F_* */
    /* options: "key=value,..." in the fs's own keys (NULL: defaults).
     * 0, or -EINVAL with err naming the key and what it takes. */
    int (*check_options)(const char *options, char *err, size_t errlen);
    /* the i-th option key and its one-line help, NULL past the end */
    const char *(*option_help)(unsigned i, const char **help);
    int (*mkfs)(nand_dev *dev, const char *options);
    /* 1 when the device carries this fs's own on-flash marks (a
     * superblock, node headers), 0 when not, a negative errno when the
     * device cannot be read.  Reads a few pages; changes nothing. */
    int (*probe)(nand_dev *dev);
    int (*mount)(nand_dev *dev, const char *options, void **fs);
    int (*unmount)(void *fs);
    int (*sync)(void *fs);
    int (*open)(void *fs, const char *path, int flags, uint32_t mode);
    int (*close)(void *fs, int fd);
    int64_t (*pread)(void *fs, int fd, void *buf, uint64_t len, uint64_t off);
    int64_t (*pwrite)(void *fs, int fd, const void *buf, uint64_t len, uint64_t off);
    int (*ftruncate)(void *fs, int fd, uint64_t size);
    int (*punch)(void *fs, int fd, uint64_t off, uint64_t len);
    int (*fsync)(void *fs, int fd);
    int (*stat)(void *fs, const char *path, struct fs_stat *st);
    int (*lstat)(void *fs, const char *path, struct fs_stat *st);
    int (*fstat)(void *fs, int fd, struct fs_stat *st);
    int (*mkdir)(void *fs, const char *path, uint32_t mode);
    /* optional (NULL: the fs has no special files; call fsapi_mknod) */
    int (*mknod)(void *fs, const char *path, uint32_t mode, uint64_t rdev);
    /* optional: extended attributes (logfs.h's logfs_getxattr says how) */
    int64_t (*getxattr)(void *fs, const char *path, const char *name, void *value,
                        uint64_t size);
    int (*setxattr)(void *fs, const char *path, const char *name, const void *value,
                    uint64_t size, int flags);
    int64_t (*listxattr)(void *fs, const char *path, char *list, uint64_t size);
    int (*removexattr)(void *fs, const char *path, const char *name);
    int (*rmdir)(void *fs, const char *path);
    int (*unlink)(void *fs, const char *path);
    int (*rename)(void *fs, const char *from, const char *to);
    int (*link)(void *fs, const char *existing, const char *newpath);
    int (*symlink)(void *fs, const char *target, const char *linkpath);
    int64_t (*readlink)(void *fs, const char *path, char *buf, uint64_t size);
    int (*readdir)(void *fs, const char *path, uint64_t *cookie, fs_dir_fn fn, void *ctx);
    int (*statfs)(void *fs, struct fs_statfs *st);
    uint64_t (*mem_bytes)(void *fs);  /* RAM the mounted fs holds */
    /* the last mount's non-flash work (zeros if the fs does not count) */
    void (*mount_work)(void *fs, struct fsapi_mount_work *w);
    /* optional (NULL: none), for media-fault campaigns (docs/faults.md):
     * the class of every page of an unmounted dev, cls[block *
     * pages_per_block + page] an index into page_classes (NULL-terminated),
     * read from the flash alone.  0 or a negative errno.  LogFS has none
     * here: its map comes from fsck's walk (fsck_page_map). */
    int (*page_map)(nand_dev *dev, uint8_t *cls);
    const char *const *page_classes;

    /* ---- optional hooks (NULL: the kind does not have it) ---- */
    /* the mounted fs's counters, at most max of them; their number */
    size_t (*stats)(void *fs, struct fsapi_counter *out, size_t max);
    /* latency per FS_OP_* kind since mount or the last reset */
    int (*latency)(void *fs, int kind, struct fs_latency *out);
    void (*reset_latency)(void *fs);
    /* the cleaner's victims, one call each (fn NULL: none) */
    void (*set_gc_observer)(void *fs, fs_gc_observer fn, void *ctx);
    /* the host is idle for ns of simulated time: background work */
    int (*idle)(void *fs, uint64_t ns);
    /* read up to budget pages and move what reads show decaying; the
     * segments (blocks) moved */
    int (*scrub)(void *fs, uint64_t budget);
    /* what erase block `block` is to the mounted fs ("superblock",
     * "anchor", "segment", ...), for fault campaigns */
    const char *(*block_role)(void *fs, uint32_t block);
    /* attributes (FSAPI_F_ATTRS); the l- forms do not follow a final
     * symbolic link; times in ns since 1970 or FS_TIME_NOW/FS_TIME_OMIT */
    int (*chmod)(void *fs, const char *path, uint32_t mode);
    int (*chown)(void *fs, const char *path, uint32_t uid, uint32_t gid);
    int (*lchown)(void *fs, const char *path, uint32_t uid, uint32_t gid);
    int (*utimens)(void *fs, const char *path, int64_t atime, int64_t mtime);
    int (*lutimens)(void *fs, const char *path, int64_t atime, int64_t mtime);
    int (*truncate)(void *fs, const char *path, uint64_t size);
    /* file attributes, FS_FL_* (fs/fstypes.h), of the file path names
     * (a final link followed): get, and set to exactly flags (-EOPNOTSUPP
     * for a bit the kind or the image does not keep; -EPERM for a change
     * that leaves an immutable file immutable); what they forbid, the
     * kind answers with -EPERM (logfs_setflags says how).  Privilege is
     * the caller's to check. */
    int (*getflags)(void *fs, const char *path, unsigned *flags);
    int (*setflags)(void *fs, const char *path, unsigned flags);
    /* the on-flash format version an unmounted dev carries, against the
     * versions this code reads and writes: 0 when it reads and writes it;
     * 1 when only reads (read-only) and 2 when it cannot read it, with a
     * sentence in msg saying so */
    int (*format_check)(nand_dev *dev, char *msg, size_t msglen);
    /* whether options can run on dev's geometry (LogFS: max_utilisation
     * against its segment size): 0, or -EINVAL with a sentence in err;
     * mkfs and mount refuse what this refuses, without the sentence */
    int (*check_device)(nand_dev *dev, const char *options, char *err, size_t errlen);
    /* rename with FS_RENAME_* flags, each in one step (a power cut
     * leaves the names before or after, never between); a kind without
     * it has rename alone: call fsapi_rename2 */
    int (*rename2)(void *fs, const char *from, const char *to, unsigned flags);
    /* fallocate: every hole of [off, off+len) allocated (reads as zeros,
     * its room kept), the size grown unless FS_ALLOC_KEEP_SIZE; with
     * FS_ALLOC_ZERO_RANGE the data there is punched first, in the same
     * call (ENOSPC changes nothing); logfs_allocate says how (call
     * fsapi_allocate) */
    int (*allocate)(void *fs, int fd, uint64_t off, uint64_t len, unsigned flags);
    /* O_TMPFILE (logfs.h's logfs_tmpfile): a regular file with no name
     * in directory dirpath, open for flags, owned by uid/gid: an fd;
     * deleted at its last close, and by the next mount after a power
     * cut, unless linkfd named it.  A kind with tmpfile has linkfd. */
    int (*tmpfile)(void *fs, const char *dirpath, int flags, uint32_t mode, uint32_t uid,
                   uint32_t gid);
    /* a new name for the file fd has open (linkat AT_EMPTY_PATH) */
    int (*linkfd)(void *fs, int fd, const char *newpath);
};

/* A mounted file system of any kind: its table and the handle its mount
 * gave, so that callers (workloads, the runner, digests) need not know
 * which one it is. */
struct fsapi_fs {
    const struct fsapi *api;
    void *fs;
};

/* The entries: fs/logfs/fsapi.c, fs/blockfs/api.c, fs/jffs2/fsapi.c,
 * fs/ftl/api.c. */
extern const struct fsapi fsapi_logfs, fsapi_blockfs, fsapi_jffs2_scan, fsapi_jffs2_summary,
    fsapi_ftl;

/* "KIND does not support WHAT" into err (for an -ENOTSUP of a wrapper);
 * returns -ENOTSUP. */
int fsapi_declined(const struct fsapi *api, const char *what, char *err, size_t errlen);
/* Whether api takes the option key (its option_help lists it); len: the
 * key's bytes (it need not end there). */
int fsapi_takes_option(const struct fsapi *api, const char *key, size_t len);
/* api's options check; an api without one takes no options. */
int fsapi_check_options(const struct fsapi *api, const char *options, char *err,
                        size_t errlen);

/* api's check_device; 0 for a kind without one. */
int fsapi_check_device(const struct fsapi *api, nand_dev *dev, const char *options, char *err,
                       size_t errlen);

/* The optional entries: -ENOTSUP where the fs lacks them. */
size_t fsapi_stats(const struct fsapi_fs *m, struct fsapi_counter *out, size_t max);
/* The counter called name among c[0..n), or 0 when the kind does not
 * count it. */
uint64_t fsapi_counter_value(const struct fsapi_counter *c, size_t n, const char *name);
/* The mounted fs's counter called name: 0, or -ENOTSUP when the kind does
 * not count it. */
int fsapi_counter(const struct fsapi_fs *m, const char *name, uint64_t *value);
int fsapi_latency(const struct fsapi_fs *m, int kind, struct fs_latency *out);
void fsapi_reset_latency(const struct fsapi_fs *m);
int fsapi_set_gc_observer(const struct fsapi_fs *m, fs_gc_observer fn, void *ctx);
int fsapi_idle(const struct fsapi_fs *m, uint64_t ns);
int fsapi_scrub(const struct fsapi_fs *m, uint64_t budget);
const char *fsapi_block_role(const struct fsapi_fs *m, uint32_t block); /* NULL: none */
int fsapi_chmod(const struct fsapi_fs *m, const char *path, uint32_t mode);
int fsapi_chown(const struct fsapi_fs *m, const char *path, uint32_t uid, uint32_t gid,
                int follow);
int fsapi_utimens(const struct fsapi_fs *m, const char *path, int64_t atime, int64_t mtime,
                  int follow);
/* a kind without the hooks: -ENOTSUP */
int fsapi_getflags(const struct fsapi_fs *m, const char *path, unsigned *flags);
int fsapi_setflags(const struct fsapi_fs *m, const char *path, unsigned flags);
/* truncate a path (a kind without the hook: open O_WRONLY, ftruncate,
 * close) */
int fsapi_truncate(const struct fsapi_fs *m, const char *path, uint64_t size);
/* rename with FS_RENAME_* flags: the kind's rename2, or for a kind
 * without one its rename, NOREPLACE by an lstat first (the kinds are
 * single-threaded: nothing comes between); -EINVAL for flags not in
 * FS_RENAME_*, EXCHANGE with another flag; -ENOTSUP for EXCHANGE or
 * WHITEOUT on a kind without rename2. */
int fsapi_rename2(const struct fsapi_fs *m, const char *from, const char *to, unsigned flags);
int fsapi_mknod(const struct fsapi_fs *m, const char *path, uint32_t mode, uint64_t rdev);
int fsapi_allocate(const struct fsapi_fs *m, int fd, uint64_t off, uint64_t len, unsigned flags);
int64_t fsapi_getxattr(const struct fsapi_fs *m, const char *path, const char *name,
                       void *value, uint64_t size);
int fsapi_setxattr(const struct fsapi_fs *m, const char *path, const char *name,
                   const void *value, uint64_t size, int flags);
int64_t fsapi_listxattr(const struct fsapi_fs *m, const char *path, char *list, uint64_t size);
int fsapi_removexattr(const struct fsapi_fs *m, const char *path, const char *name);

/* The fs called name, or NULL; the i-th one, NULL past the end. */
const struct fsapi *fsapi_find(const char *name);
const struct fsapi *fsapi_at(size_t i);

/* The fs whose marks are on dev, or NULL when none's are (or the device
 * cannot be read).  The more specific marks are tried first: blockfs's
 * superblock in block 0, LogFS's superblock (block 0 or its backup),
 * then JFFS2 nodes -- jffs2-summary when a closed block carries a
 * summary, else jffs2-scan (whose mount reads either). */
const struct fsapi *fsapi_probe(nand_dev *dev);
/* The i-th fs in fsapi_probe's order, NULL past the end. */
const struct fsapi *fsapi_probe_at(size_t i);

/* The CPU cost model of a mount (docs/mount-latency.md): ns per byte
 * checksummed and per node indexed, for a CPU such as the OLPC XO-1's
 * 433 MHz AMD Geode LX. */
struct fsapi_cpu_model {
    const char *name;
    double ns_per_byte_crc;
    double ns_per_node;
};
extern const struct fsapi_cpu_model fsapi_cpu_geode_lx;
double fsapi_cpu_ns(const struct fsapi_cpu_model *m, const struct fsapi_mount_work *w);

#pragma GCC visibility pop

#endif

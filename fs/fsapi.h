/*
 * fsapi.h -- one table of entry points per flash file system on the
 * simulator: LogFS and the baselines (a JFFS2-style scan-mount fs with and
 * without erase-block summaries, and a naive in-place block fs), so that
 * the model-based tests, the runner and the mount-latency experiment can
 * run any of them.  Semantics are fs/logfs/logfs.h's (negative errno, the
 * stat structs of fs/fstypes.h); each fs documents what it leaves out.
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

struct fsapi {
    const char *name;    /* "logfs", "jffs2-scan", "jffs2-summary", "blockfs" */
    const char *summary; /* one line */
    /* options: "key=value,..." in the fs's own keys (NULL: defaults) */
    int (*check_options)(const char *options); /* 0, or -EINVAL */
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
};

/* A mounted file system of any kind: its table and the handle its mount
 * gave, so that callers (workloads, the runner, digests) need not know
 * which one it is. */
struct fsapi_fs {
    const struct fsapi *api;
    void *fs;
};

/* The entries: fs/logfs/fsapi.c, fs/blockfs/api.c, fs/jffs2/fsapi.c. */
extern const struct fsapi fsapi_logfs, fsapi_blockfs, fsapi_jffs2_scan, fsapi_jffs2_summary;

/* The optional entries: -ENOTSUP where the fs lacks them. */
int fsapi_mknod(const struct fsapi_fs *m, const char *path, uint32_t mode, uint64_t rdev);
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

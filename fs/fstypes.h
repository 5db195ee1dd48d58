/*
 * fstypes.h -- the vocabulary every file system on the simulator shares
 * (LogFS and the baselines, through fs/fsapi.h): what stat, statfs and
 * readdir report.  Modes and types are the host's <sys/stat.h> values.
 */
#ifndef FLASHLAB_FSTYPES_H
#define FLASHLAB_FSTYPES_H

#include <stdint.h>

struct fs_stat {
    uint64_t ino;
    uint32_t mode, nlink, uid, gid;
    uint64_t size;             /* bytes; a directory: its number of entries */
    int64_t atime, mtime, ctime;
    uint64_t rdev;             /* a device file's number (the host's dev_t) */
    /* st_blocks: 512-byte units allocated; a kind (or format) that does
     * not count them gives fs_blocks_of_size(size) */
    uint64_t blocks;
};

/* st_blocks where allocation is not counted: the size, rounded up. */
static inline uint64_t fs_blocks_of_size(uint64_t size)
{
    return size / 512 + (size % 512 != 0);
}

struct fs_statfs {
    uint32_t block_size;
    uint64_t total_bytes, free_bytes, files;
};

/* readdir's callback: one entry, its inode number and its mode's type
 * bits; nonzero stops the walk. */
typedef int (*fs_dir_fn)(void *ctx, const char *name, uint64_t ino, uint32_t type);

/* Times given to utimens: utimensat's UTIME_NOW ("now" on the fs's
 * clock) and UTIME_OMIT (leave that time as it is). */
#define FS_TIME_NOW INT64_MIN
#define FS_TIME_OMIT (INT64_MIN + 1)

/* setxattr's flags: -EEXIST if the name exists, -ENODATA if not */
#define FS_XATTR_CREATE 1
#define FS_XATTR_REPLACE 2

/* rename2's flags (renameat2(2)'s, in our own names): NOREPLACE gives
 * -EEXIST when `to` exists; EXCHANGE swaps two existing names in one
 * step; WHITEOUT leaves a whiteout (a character device 0/0, as overlayfs
 * reads it) where `from` was.  EXCHANGE excludes the other two. */
#define FS_RENAME_NOREPLACE 1u
#define FS_RENAME_EXCHANGE 2u
#define FS_RENAME_WHITEOUT 4u

/* allocate's flags (fallocate(2)'s mode 0, FALLOC_FL_KEEP_SIZE and
 * FALLOC_FL_ZERO_RANGE): KEEP_SIZE leaves the size as it is, even when the
 * range passes it; ZERO_RANGE first makes the whole range read as zeros
 * (its data punched), then allocates all of it. */
#define FS_ALLOC_KEEP_SIZE 1u
#define FS_ALLOC_ZERO_RANGE 2u

/* File attributes (chattr(1); the hooks getflags and setflags): the
 * values of Linux's FS_*_FL (<linux/fs.h>), named apart so that both
 * headers can be included.  SYNC: each write is durable when it returns;
 * IMMUTABLE: the file, its attributes and its names do not change (in a
 * directory: no name added or removed); APPEND: data only added at the
 * end, no name removed; NODUMP and NOATIME: kept for the tools that read
 * them. */
#define FS_FL_SYNC 0x08u
#define FS_FL_IMMUTABLE 0x10u
#define FS_FL_APPEND 0x20u
#define FS_FL_NODUMP 0x40u
#define FS_FL_NOATIME 0x80u

/* Host-operation latency in simulated time, per kind of call, since mount
 * or the last reset; percentiles within 1/16 of the true value. */
enum {
    FS_OP_READ,  /* read, pread */
    FS_OP_WRITE, /* write, pwrite */
    FS_OP_SYNC,  /* sync, fsync */
    FS_OP_META,  /* every other call */
    FS_OP_KINDS,
};
struct fs_latency {
    uint64_t count, p50_ns, p99_ns, p999_ns, max_ns;
    double mean_ns;
};

/* One victim of a file system's cleaner, reported after the commit that
 * moved its data (for the results' gc_events table). */
struct fs_gc_event {
    uint64_t sim_time_ns;  /* when the batch's commit began */
    uint32_t segment;      /* the victim: a segment or erase block */
    uint32_t live_bytes;   /* live when chosen: what was copied */
    uint64_t duration_ns;  /* its share of the commit that moved it */
    const char *policy;    /* the mount's victim-selection policy */
    int wear_leveling;     /* chosen by static wear leveling */
};
typedef void (*fs_gc_observer)(void *ctx, const struct fs_gc_event *ev);

#endif

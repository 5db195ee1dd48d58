/*
 * logfs.h -- the public interface of flashlab's LogFS.
 *
 * Every call returns 0 (or a count) on success and a negative errno on
 * failure.  The file system talks to flash only through sim/nand.h.
 * Design: docs/logfs-design.md; on-flash format: docs/FORMAT.md.
 *
 * Flags and modes are the host's <fcntl.h>/<sys/stat.h> values.  Paths
 * are absolute, at most 4095 bytes, and may hold "." and ".." (".." of the
 * root is the root).  Symbolic links are followed in every component but
 * the last, and in the last when the call follows (stat, open without
 * O_NOFOLLOW or O_CREAT|O_EXCL, chmod, chown, utimens, truncate, readdir;
 * not lstat, lchown, lutimens, readlink, unlink, rmdir, rename, link,
 * symlink, mkdir).  A target is taken from the root when absolute, else
 * from the directory holding the link; 40 links at most per call (ELOOP),
 * and ENAMETOOLONG when a target and the rest of the path pass 65535
 * bytes.  Times are nanoseconds since 1970 from the clock the mount's
 * options name (logfs_options.clock), by default the device's simulated
 * clock plus logfs_options.epoch_ns (deterministic); docs/logfs-design.md
 * lists which call changes which time.
 *
 * Crash semantics: after a power cut the fs mounts to one of its commit
 * points between the last completed sync/fsync and the cut.  A commit
 * happens on sync/fsync, when more than dirty_bytes are dirty, and at
 * unmount; only a write larger than dirty_bytes is split across commits.
 */
#ifndef FLASHLAB_LOGFS_H
#define FLASHLAB_LOGFS_H

#include <stddef.h>
#include <stdint.h>

#include "fstypes.h"
#include "nand.h"

/* exported from libflashlab (built -fvisibility=hidden): docs/api.md */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* Zero fields take the default. */
struct logfs_options {
    uint32_t block_size;       /* fs block: a power of two, 512..32768 (4096) */
    uint32_t anchor_blocks;    /* erase blocks in the anchor ring, 2..16 (4) */
    uint32_t reserve_segments; /* kept back for the cleaner (8); mkfs only:
                                  mount uses what mkfs recorded */
    uint64_t cache_bytes;      /* node cache bound (4 MiB, or 1/256 of the device) */
    uint64_t dirty_bytes;      /* commit when this much is dirty (1 MiB); the
                                  mount clamps it to 1/16 of the cleaner's
                                  segments (or the default when that fits in
                                  half): its segments are kept free for the
                                  commit (docs/validation.md) */
    int readonly;              /* mount without writing anything */
    /* Cleaning and wear leveling: chosen at each mount, nothing on flash. */
    const char *gc_policy;     /* victim selection by name, see
                                  logfs_gc_policy_name() ("greedy") */
    uint32_t gc_window;        /* "window": among the W oldest segments (64) */
    uint32_t gc_choices;       /* "d-choices": among d random segments (8) */
    uint64_t gc_seed;          /* seed of the random policies (0: 1) */
    uint32_t gc_free_min;      /* clean ahead when fewer free segments than
                                  the writers' reserve plus this (4) */
    int gc_separate;           /* 1: file data moved by the cleaner goes to
                                  segments of its own (hot/cold by age) */
    int wear_leveling;         /* LOGFS_WL_*; 0 = LOGFS_WL_DYNAMIC */
    uint32_t wl_threshold;     /* static: the erase-count gap that makes the
                                  cleaner move cold data (100) */
    uint32_t gc_idle_free;     /* logfs_idle cleans up to reserve + this
                                  many free segments (16) */
    /* Timestamps (atime, mtime, ctime) in nanoseconds since 1970-01-01 UTC.
     * With clock set, every "now" is clock(clock_ctx) (the mount and the
     * CLI pass the host's CLOCK_REALTIME: logfs_host_clock); without, it
     * is the device's simulated clock plus epoch_ns, which keeps
     * experiments deterministic (0: the simulated clock alone).  Nothing
     * on flash: each mount chooses. */
    int64_t (*clock)(void *clock_ctx);
    void *clock_ctx;
    int64_t epoch_ns;          /* "epoch": 2024-01-01[T00:00:00[Z]] or
                                  seconds since 1970 (0) */
    /* Scrubbing, as UBI does (docs/scrubbing.md): a read whose worst ECC
     * codeword needed at least this many corrected bits (or failed)
     * schedules its segment, whose live data is then moved; logfs_scrub
     * uses the same threshold.  0: off (nothing changes). */
    uint32_t scrub_threshold;
    /* Compression of file data blocks (LOGFS_COMPRESS_*): mkfs records it
     * in the superblock; a mount writes with its own when set, else with
     * mkfs's (0: default, none at mkfs).  Each block says how it is
     * stored, so any mount reads any mix.  Format 5; on a format-4 image a
     * read-write mount asking for compression fails with -EOPNOTSUPP. */
    int compress;
    uint32_t parallel;         /* data segments open on that many dies,
                                  programmed through the queue (1: one at a
                                  time, as always); at most the device's
                                  dies; nothing on flash */
    /* The cleaner's capacity bound: writers stop when live bytes would
     * exceed this fraction u of the capacity the cleaner can use
     * (logfs_stats.cleanable_bytes; docs/validation.md defines both).
     * 0.05..0.99; 0: the bound LogFS always had, 85% of the cleanable
     * segments' bytes (u = 0.867 for 4 KiB blocks in 128 KiB segments).
     * A mount refuses a value at which the cleaner's worst victim would
     * free less than one fs block (logfs_utilisation_fits).  Nothing on
     * flash: each mount chooses. */
    double max_utilisation;
};
enum {
    LOGFS_COMPRESS_NONE = 1,
    LOGFS_COMPRESS_ZLIB = 2,
    LOGFS_COMPRESS_LZO = 3,
};
enum {
    LOGFS_WL_DYNAMIC = 0, /* allocate the least-worn free segment */
    LOGFS_WL_NONE = 1,    /* free segments in the order they were freed */
    LOGFS_WL_STATIC = 2,  /* dynamic, and move cold data off little-worn
                             segments when the gap exceeds wl_threshold */
};
/* A clock for logfs_options.clock: the host's CLOCK_REALTIME in ns
 * (ctx unused). */
int64_t logfs_host_clock(void *ctx);
/* The i-th victim-selection policy's name and summary, NULL past the end. */
const char *logfs_gc_policy_name(unsigned i, const char **summary);
/* Options by name, as mount -o and the YAML `fs:` section give them:
 * block_size, anchor_blocks, reserve, cache, dirty (sizes take K/M/G),
 * readonly, gc_policy, gc_window, gc_choices, gc_seed, gc_free_min,
 * gc_idle_free, gc_separate, wear_leveling (none|dynamic|static),
 * wl_threshold, scrub_threshold, epoch (YYYY-MM-DD[THH:MM:SS[Z]], UTC, or seconds),
 * compress (none|zlib|lzo).  0, or -EINVAL with a message in err naming the key. */
int logfs_option_set(struct logfs_options *o, const char *key, const char *value,
                     char *err, size_t errlen);
/* Whether max_utilisation u can run in segments of seg_bytes holding
 * blocks of block_size (each with its object header): a victim of the
 * greedy cleaner holds at most u of a segment live when u of the
 * cleanable space is, so it frees (1 - u) of the blocks a segment holds
 * at worst; at least one is needed for the cleaner to gain on the
 * writers.  0, or -EINVAL with a sentence in err saying so. */
int logfs_utilisation_fits(double u, uint64_t seg_bytes, uint32_t block_size, char *err,
                           size_t errlen);
/* The fs blocks (each with its object header) one segment holds. */
uint32_t logfs_blocks_per_segment(uint64_t seg_bytes, uint32_t block_size);
/* "key=value,key=value". */
int logfs_options_parse(struct logfs_options *o, const char *list, char *err,
                        size_t errlen);
/* Every field of o against the ranges logfs_option_set applies (0 takes
 * the default): 0, or -EINVAL with a message in err naming the key.
 * logfs_mkfs calls it (without a message); the CLI for its flags. */
int logfs_options_check(const struct logfs_options *o, char *err, size_t errlen);
/* The i-th option's key and a one-line help, NULL past the end. */
const char *logfs_option_help(unsigned i, const char **help);
/* A mount is also read-only when the superblock's write version is
 * unknown, or when the flash refuses the mount's own anchor record. */

typedef struct logfs logfs;

int logfs_mkfs(nand_dev *dev, const struct logfs_options *opt);
int logfs_mount(nand_dev *dev, const struct logfs_options *opt, logfs **out);
/* The on-flash format versions of the LogFS on dev (docs/FORMAT.md 15):
 * 0, or -EINVAL when there is no superblock.  This code writes
 * LOGFS_FORMAT_VERSION and reads LOGFS_FORMAT_OLDEST.. it, the older ones
 * read-only; logfs_mount answers -EPROTO for the others. */
#define LOGFS_FORMAT_VERSION 6
#define LOGFS_FORMAT_OLDEST 3
/* Formats 4 and 5 are still written, each as it is (4 without
 * compression, neither with preallocated blocks); older formats are
 * read-only. */
#define LOGFS_FORMAT_WRITABLE 4
int logfs_format_version(nand_dev *dev, uint32_t *read_version, uint32_t *write_version);
/* Commit what is dirty (one commit point); no-op when nothing changed. */
int logfs_sync(logfs *fs);
/* Sync, then free; the fs is gone either way.  Returns the sync's result. */
int logfs_unmount(logfs *fs);

/* ---- files ------------------------------------------------------------ */
int logfs_open(logfs *fs, const char *path, int flags, uint32_t mode); /* fd */
int logfs_close(logfs *fs, int fd);
int64_t logfs_read(logfs *fs, int fd, void *buf, uint64_t len);
int64_t logfs_write(logfs *fs, int fd, const void *buf, uint64_t len);
int64_t logfs_pread(logfs *fs, int fd, void *buf, uint64_t len, uint64_t off);
int64_t logfs_pwrite(logfs *fs, int fd, const void *buf, uint64_t len, uint64_t off);
int64_t logfs_lseek(logfs *fs, int fd, int64_t off, int whence);
/* A file holds at most (16 + (block_size / 8)^5) blocks, what the tree
 * reaches, and never more than INT64_MAX bytes (2^57 + 64 KiB with 4 KiB
 * blocks): a truncate past it is -EFBIG; a write crossing it is short, up
 * to it, and one starting at or past it is -EFBIG, as POSIX says. */
int logfs_ftruncate(logfs *fs, int fd, uint64_t size);
int logfs_truncate(logfs *fs, const char *path, uint64_t size);
/* Deallocate [off, off+len): reads as zeros, size unchanged. */
int logfs_punch(logfs *fs, int fd, uint64_t off, uint64_t len);
/* fallocate(2) mode 0 or KEEP_SIZE: every hole of [off, off+len) becomes
 * a preallocated block (reads as zeros; its room is kept, so writing it
 * later does not fail for space), blocks there stay; the size grows to
 * off+len unless FS_ALLOC_KEEP_SIZE.  -ENOSPC (nothing done) when the
 * holes do not fit, -EFBIG past the largest file, -EBADF on an fd not
 * open for writing, -EROFS read-only, -EOPNOTSUPP on a format-5 or older
 * image, -EISDIR / -ENODEV on a directory / another non-regular file.
 * flags: FS_ALLOC_* (fs/fstypes.h).  FS_ALLOC_ZERO_RANGE (fallocate's
 * ZERO_RANGE): the data of the range is punched first and then all of it
 * is allocated; the room is checked before the punch (what it frees
 * counts), so -ENOSPC leaves the file as it was; -EPERM on an append-only
 * or immutable file. */
int logfs_allocate(logfs *fs, int fd, uint64_t off, uint64_t len, unsigned flags);
int logfs_fsync(logfs *fs, int fd);

int logfs_stat(logfs *fs, const char *path, struct fs_stat *st);
int logfs_lstat(logfs *fs, const char *path, struct fs_stat *st);
int logfs_fstat(logfs *fs, int fd, struct fs_stat *st);
int logfs_chmod(logfs *fs, const char *path, uint32_t mode);
int logfs_chown(logfs *fs, const char *path, uint32_t uid, uint32_t gid);
/* Times in ns since 1970; LOGFS_TIME_NOW sets the fs's clock's "now" and
 * LOGFS_TIME_OMIT leaves that time as it is (utimensat's UTIME_NOW and
 * UTIME_OMIT).  ctime becomes now unless both are LOGFS_TIME_OMIT. */
#define LOGFS_TIME_NOW FS_TIME_NOW
#define LOGFS_TIME_OMIT FS_TIME_OMIT
int logfs_utimens(logfs *fs, const char *path, int64_t atime, int64_t mtime);
/* chown and utimens of a final symbolic link itself (lchown,
 * utimensat with AT_SYMLINK_NOFOLLOW); on anything else the same as
 * logfs_chown and logfs_utimens.  There is no lchmod: a link's mode is
 * 0777, as on Linux. */
int logfs_lchown(logfs *fs, const char *path, uint32_t uid, uint32_t gid);
int logfs_lutimens(logfs *fs, const char *path, int64_t atime, int64_t mtime);
/* File attributes (chattr(1)): FS_FL_SYNC, _IMMUTABLE, _APPEND, _NODUMP
 * and _NOATIME of fs/fstypes.h, of the file path names (a final link
 * followed).  setflags sets exactly flags and commits (the change is
 * durable when it returns); -EOPNOTSUPP for another bit, or for any on a
 * format-5 or older image (which keeps none: its files read 0, and
 * setting 0 changes nothing); -EPERM for a change of an immutable file's
 * attributes that leaves it immutable.  Privilege (Linux's
 * CAP_LINUX_IMMUTABLE for i and a) is the caller's to check.  What each
 * flag forbids: docs/FORMAT.md 9.4; every such call answers -EPERM. */
int logfs_getflags(logfs *fs, const char *path, unsigned *flags);
int logfs_setflags(logfs *fs, const char *path, unsigned flags);

/* ---- the namespace --------------------------------------------------- */
int logfs_mkdir(logfs *fs, const char *path, uint32_t mode);
/* A FIFO, socket, character or block device (mode's S_IFMT; S_IFREG makes
 * an empty file) named path; rdev: a device's number, the host's dev_t.
 * -EINVAL for another type.  Such files cannot be opened through this API
 * (-ENXIO): the host kernel opens them on a mount. */
int logfs_mknod(logfs *fs, const char *path, uint32_t mode, uint64_t rdev);

/* Extended attributes of the file path names (a final symbolic link
 * itself, as lgetxattr(2)), in the user., trusted. and security.
 * namespaces, and the POSIX ACLs system.posix_acl_access and _default
 * (others: -ENOTSUP; an access ACL sets the mode and chmod rewrites it, in
 * one commit, as fs/posixacl.h says; -EINVAL for a malformed one); names up to 255 bytes (-ERANGE), values
 * up to 65536 (-E2BIG), 1 MiB of names and values per file (-ENOSPC).
 * get and list with size 0 return the size needed; a buffer too small is
 * -ERANGE; a missing name -ENODATA.  flags: 0, LOGFS_XATTR_CREATE (-EEXIST
 * if it exists) or LOGFS_XATTR_REPLACE (-ENODATA if not).  user. names
 * only on files and directories (-EPERM), as Linux. */
#define LOGFS_XATTR_CREATE FS_XATTR_CREATE
#define LOGFS_XATTR_REPLACE FS_XATTR_REPLACE
int64_t logfs_getxattr(logfs *fs, const char *path, const char *name, void *value,
                       uint64_t size);
int logfs_setxattr(logfs *fs, const char *path, const char *name, const void *value,
                   uint64_t size, int flags);
/* The names, each ending in NUL. */
int64_t logfs_listxattr(logfs *fs, const char *path, char *list, uint64_t size);
int logfs_removexattr(logfs *fs, const char *path, const char *name);
int logfs_rmdir(logfs *fs, const char *path);
int logfs_unlink(logfs *fs, const char *path);
int logfs_rename(logfs *fs, const char *from, const char *to);
/* rename with renameat2(2)'s flags as FS_RENAME_* (fs/fstypes.h):
 * NOREPLACE (-EEXIST), EXCHANGE (both names must exist; a directory
 * never under itself: -EINVAL), WHITEOUT (a character device 0/0, mode
 * 0, takes from's name).  One call is one step: a power cut leaves the
 * names before or after it. */
int logfs_rename2(logfs *fs, const char *from, const char *to, unsigned flags);
int logfs_link(logfs *fs, const char *existing, const char *newpath);
/* O_TMPFILE: a new regular file in the directory dirpath, with no name
 * (nlink 0), open for flags (O_WRONLY or O_RDWR, -EINVAL else; O_APPEND
 * kept): an fd.  mode's permission bits; owned by uid and gid (the
 * group of a set-group-ID directory instead).  It is an orphan from the
 * start, in the same commit as the inode: a power cut leaves no name,
 * and the next mount deletes it, as the last close does unless
 * logfs_linkfd gave it a name first.  With O_EXCL it never gets one. */
int logfs_tmpfile(logfs *fs, const char *dirpath, int flags, uint32_t mode, uint32_t uid,
                  uint32_t gid);
/* linkat(fd, "", AT_FDCWD, newpath, AT_EMPTY_PATH): a new name, newpath,
 * for the file fd has open, with link(2)'s errors.  A file with no name
 * takes it only if logfs_tmpfile made it without O_EXCL and it never had
 * one (-ENOENT else, as Linux); that name takes it off the orphan list
 * in the same commit. */
int logfs_linkfd(logfs *fs, int fd, const char *newpath);
int logfs_symlink(logfs *fs, const char *target, const char *linkpath);
/* Copies at most size bytes, no NUL; returns the length. */
int64_t logfs_readlink(logfs *fs, const char *path, char *buf, uint64_t size);
/* Calls fn for each entry (fs/fstypes.h), in hash order, starting after
 * *cookie (0 = the start); fn returns nonzero to stop, and *cookie then
 * resumes at that entry. "." and ".." are not listed. */
int logfs_readdir(logfs *fs, const char *path, uint64_t *cookie,
                  fs_dir_fn fn, void *ctx);

int logfs_statfs(logfs *fs, struct fs_statfs *st);

struct logfs_stats {
    uint64_t commits;          /* sequence number of the last commit */
    uint64_t live_bytes;       /* object bytes the tree references */
    uint64_t mem_bytes;        /* RAM held by the fs (counting allocator) */
    uint64_t cache_hits, cache_misses;
    uint64_t next_ino;
    uint64_t relocations;      /* segments retired after a failed program */
    /* since mount: where the flash writes went (pages programmed) */
    uint64_t host_bytes;       /* bytes given to write calls, since mkfs */
    uint64_t pages_data;       /* file-data segments (incl. the cleaner's) */
    uint64_t pages_meta;       /* indirect, inode-file and segment-file segments */
    uint64_t pages_anchor;     /* anchor records */
    uint64_t pages_gc;         /* of those above, filled by the cleaner's copies
                                  (bytes moved / page size) */
    uint64_t erases;           /* segment and anchor erases */
    uint64_t gc_rounds;        /* victims cleaned */
    uint64_t gc_objects, gc_bytes; /* live objects moved, their bytes */
    uint64_t gc_time_ns;       /* simulated time inside the cleaner */
    uint64_t wl_moves;         /* victims chosen by static wear leveling */
    uint64_t gc_fallbacks;     /* batches that freed nothing, so that the
                                  next was greedy (see docs/logfs-design.md) */
    uint64_t free_segments;    /* now */
    /* the anchor record the mount found: its seq, and how many ring pages
     * newer than it are programmed but hold no valid record -- damaged on
     * the medium, or torn by a power cut (the flash cannot tell which).
     * Nonzero: the newest commit may be lost, this is an older one. */
    uint64_t anchor_seq;
    uint64_t anchor_fallback;
    /* objects the cleaner could not read (damaged media) and left where
     * they are, since mount: they read as EIO, nothing is copied */
    uint64_t gc_unreadable;
    /* a segment-file block could not be read: the mount turned read-only
     * when it was first needed (mount itself reads none of the file) */
    uint64_t segfile_unreadable;
    /* scrubbing (scrub_threshold), since mount: reads that met the
     * threshold, pages logfs_scrub read, segments whose live data was
     * moved for it and the pages the copies took (bytes / page size) */
    uint64_t scrub_flagged, scrub_reads, scrub_segments, scrub_pages;
    /* since mount: payload bytes of the file data blocks written (not the
     * cleaner's copies), before and after compression (equal without) */
    uint64_t data_raw_bytes, data_stored_bytes;
    uint64_t compress;         /* LOGFS_COMPRESS_* this mount writes with */
    /* scrubbing, since mount: superblock copies rewritten, and commits
     * that moved the anchor ring to a fresh block, because their reads met
     * the threshold (docs/scrubbing.md) */
    uint64_t scrub_super, scrub_anchor;
    /* anchor ring blocks that failed a program or erase since mount: their
     * logical ring blocks are skipped (anchor_bad of them); anchor_left:
     * the logical ring blocks still written, each in both mirrors.  0
     * left: the fs turned read-only at its next commit. */
    uint64_t anchor_bad, anchor_left;
    /* the capacity the cleaner can use: (segments usable at mkfs - the
     * writers' reserve - 2) * the bytes of the whole block objects a
     * segment holds (logfs_blocks_per_segment); live_bytes /
     * cleanable_bytes is the utilisation u that max_utilisation caps */
    uint64_t cleanable_bytes;
    uint64_t cleanable_segments; /* the segments it counts */
    /* live bytes a file-data block adds beyond its own, in millionths of
     * the block: its object header and its pointer's share of an indirect
     * block (workloads size data for a utilisation with it) */
    uint64_t data_overhead_ppm;
};
void logfs_get_stats(const logfs *fs, struct logfs_stats *st);
/* What erase block `block` is to this file system: "superblock" (block 0
 * and the backup), "anchor" (the anchor ring) or "segment". */
const char *logfs_block_role(const logfs *fs, uint32_t block);

/* Host-operation latency (fstypes.h's struct fs_latency), per kind of
 * call: LogFS's names for FS_OP_*. */
enum {
    LOGFS_OP_READ = FS_OP_READ,
    LOGFS_OP_WRITE = FS_OP_WRITE,
    LOGFS_OP_SYNC = FS_OP_SYNC,
    LOGFS_OP_META = FS_OP_META,
    LOGFS_OP_KINDS = FS_OP_KINDS,
};
int logfs_get_latency(const logfs *fs, int kind, struct fs_latency *out);
void logfs_reset_latency(logfs *fs);

/* The cleaner's victims (fstypes.h's struct fs_gc_event), one call each,
 * after the commit that moved their data. */
void logfs_set_gc_observer(logfs *fs, fs_gc_observer fn, void *ctx);

/* The host is idle for ns of simulated time: clean in the background
 * while fewer than reserve + gc_idle_free segments are free (victims at
 * most half live), then let the rest of the time pass.  Returns 0 or a
 * negative errno; the clock has advanced by at least ns either way. */
int logfs_idle(logfs *fs, uint64_t ns);

/* The idle-time scrubber: read up to budget pages of written segments,
 * round-robin from where the last call stopped, and move the live data of
 * every segment whose read met scrub_threshold (or failed ECC), with what
 * reads had already scheduled.  On its way it reads the superblock copies
 * and the newest anchor record (one page each) and refreshes those that
 * met the threshold (docs/scrubbing.md).  Returns the segments moved, or
 * a negative errno; 0 and no flash operation when scrub_threshold is 0. */
int logfs_scrub(logfs *fs, uint64_t budget);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif

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
};

struct fs_statfs {
    uint32_t block_size;
    uint64_t total_bytes, free_bytes, files;
};

/* readdir's callback: one entry, its inode number and its mode's type
 * bits; nonzero stops the walk. */
typedef int (*fs_dir_fn)(void *ctx, const char *name, uint64_t ino, uint32_t type);

#endif

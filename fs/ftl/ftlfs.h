/*
 * ftlfs.h -- the FTL (blk/blk.h) as an fsapi kind: a namespace of one
 * file, /disk, as large as the device's logical space (docs/ftl.md,
 * "The fsapi kind").  Byte reads and writes become sector reads and
 * writes (a partial sector is read, changed and written whole); punch is
 * TRIM (partial sectors are written with zeros); fsync and sync flush.
 */
#ifndef FLASHLAB_FTLFS_H
#define FLASHLAB_FTLFS_H

#include "blk.h"
#include "fscommon.h"
#include "fsapi.h"

#define FTLFS_ROOT 1
#define FTLFS_DISK 2

struct ftlfs {
    blk_dev *d;
    nand_dev *dev;
    struct fs_fdtab fds;
    uint64_t mem;
    uint8_t *sec;     /* one sector of scratch */
    fs_gc_observer gc_fn;
    void *gc_ctx;
    struct fs_lathist lat[FS_OP_KINDS]; /* per call kind, simulated time */
};

/* disk.c: byte I/O on /disk */
int64_t ftlfs_pread(void *fs, int fd, void *buf, uint64_t len, uint64_t off);
int64_t ftlfs_pwrite(void *fs, int fd, const void *buf, uint64_t len, uint64_t off);
int ftlfs_punch(void *fs, int fd, uint64_t off, uint64_t len);

/* ns.c: the namespace of one file */
int ftlfs_open(void *fs, const char *path, int flags, uint32_t mode);
int ftlfs_close(void *fs, int fd);
int ftlfs_stat(void *fs, const char *path, struct fs_stat *st);
int ftlfs_fstat(void *fs, int fd, struct fs_stat *st);
int ftlfs_readdir(void *fs, const char *path, uint64_t *cookie, fs_dir_fn fn, void *ctx);
int ftlfs_statfs(void *fs, struct fs_statfs *st);
int ftlfs_ftruncate(void *fs, int fd, uint64_t size);
int ftlfs_mkdir(void *fs, const char *path, uint32_t mode);
int ftlfs_unlink(void *fs, const char *path);
int ftlfs_rename(void *fs, const char *from, const char *to);
int ftlfs_symlink(void *fs, const char *target, const char *linkpath);
int64_t ftlfs_readlink(void *fs, const char *path, char *buf, uint64_t size);

#endif

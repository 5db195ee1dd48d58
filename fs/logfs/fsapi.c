/*
 * fsapi.c -- LogFS's entry in the table of file systems (fs/fsapi.h): its
 * own calls, with options by name.
 */
#include "fsapi.h"
#include "logfs.h"
#include "ops.h"

#include <errno.h>
#include <string.h>

static int parse(const char *options, struct logfs_options *o)
{
    char err[256];
    memset(o, 0, sizeof *o);
    return options ? logfs_options_parse(o, options, err, sizeof err) : 0;
}

static int l_check(const char *options)
{
    struct logfs_options o;
    return parse(options, &o);
}

static int l_mkfs(nand_dev *dev, const char *options)
{
    struct logfs_options o;
    int rc = parse(options, &o);
    return rc ? rc : logfs_mkfs(dev, &o);
}

static int l_mount(nand_dev *dev, const char *options, void **fs)
{
    struct logfs_options o;
    int rc = parse(options, &o);
    return rc ? rc : logfs_mount(dev, &o, (logfs **)fs);
}

/* LogFS's mark: a superblock (magic and CRC) at block 0 or the backup,
 * found as mount finds it -- one read when block 0 holds it.  A version
 * this code cannot read or write is still LogFS's. */
static int l_probe(nand_dev *dev)
{
    struct lfs_super sb;
    int rc = lfs_super_find(dev, &sb);
    return rc == -EINVAL ? 0 : rc == -EIO ? -EIO : 1;
}

static uint64_t l_mem(void *fs)
{
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    return st.mem_bytes;
}

/* LogFS checksums only what it reads and indexes nothing at mount: its
 * mount's CPU work is the anchor search and the root, below the model's
 * resolution, so it reports none. */
static void l_work(void *fs, struct fsapi_mount_work *w)
{
    (void)fs;
    memset(w, 0, sizeof *w);
}

/* typed adapters: calling logfs_* through a void * table would be
 * undefined behaviour */
static int l_unmount(void *fs) { return logfs_unmount(fs); }
static int l_sync(void *fs) { return logfs_sync(fs); }
static int l_open(void *fs, const char *p, int fl, uint32_t m) { return logfs_open(fs, p, fl, m); }
static int l_close(void *fs, int fd) { return logfs_close(fs, fd); }
static int64_t l_pread(void *fs, int fd, void *b, uint64_t n, uint64_t o)
{
    return logfs_pread(fs, fd, b, n, o);
}
static int64_t l_pwrite(void *fs, int fd, const void *b, uint64_t n, uint64_t o)
{
    return logfs_pwrite(fs, fd, b, n, o);
}
static int l_ftruncate(void *fs, int fd, uint64_t n) { return logfs_ftruncate(fs, fd, n); }
static int l_punch(void *fs, int fd, uint64_t o, uint64_t n) { return logfs_punch(fs, fd, o, n); }
static int l_fsync(void *fs, int fd) { return logfs_fsync(fs, fd); }
static int l_stat(void *fs, const char *p, struct fs_stat *st) { return logfs_stat(fs, p, st); }
static int l_lstat(void *fs, const char *p, struct fs_stat *st) { return logfs_lstat(fs, p, st); }
static int l_fstat(void *fs, int fd, struct fs_stat *st) { return logfs_fstat(fs, fd, st); }
static int l_mkdir(void *fs, const char *p, uint32_t m) { return logfs_mkdir(fs, p, m); }
static int l_mknod(void *fs, const char *p, uint32_t m, uint64_t rdev)
{
    return logfs_mknod(fs, p, m, rdev);
}
static int64_t l_getxattr(void *fs, const char *p, const char *n, void *v, uint64_t size)
{
    return logfs_getxattr(fs, p, n, v, size);
}
static int l_setxattr(void *fs, const char *p, const char *n, const void *v, uint64_t size,
                      int flags)
{
    return logfs_setxattr(fs, p, n, v, size, flags);
}
static int64_t l_listxattr(void *fs, const char *p, char *list, uint64_t size)
{
    return logfs_listxattr(fs, p, list, size);
}
static int l_removexattr(void *fs, const char *p, const char *n)
{
    return logfs_removexattr(fs, p, n);
}
static int l_rmdir(void *fs, const char *p) { return logfs_rmdir(fs, p); }
static int l_unlink(void *fs, const char *p) { return logfs_unlink(fs, p); }
static int l_rename(void *fs, const char *a, const char *b) { return logfs_rename(fs, a, b); }
static int l_link(void *fs, const char *a, const char *b) { return logfs_link(fs, a, b); }
static int l_symlink(void *fs, const char *t, const char *p) { return logfs_symlink(fs, t, p); }
static int64_t l_readlink(void *fs, const char *p, char *b, uint64_t n)
{
    return logfs_readlink(fs, p, b, n);
}
static int l_readdir(void *fs, const char *p, uint64_t *c, fs_dir_fn fn, void *ctx)
{
    return logfs_readdir(fs, p, c, fn, ctx);
}
static int l_statfs(void *fs, struct fs_statfs *st) { return logfs_statfs(fs, st); }

const struct fsapi fsapi_logfs = {
    .name = "logfs",
    .summary = "LogFS: wandering tree under an anchor ring; mount reads a few pages",
    .check_options = l_check, .mkfs = l_mkfs, .probe = l_probe, .mount = l_mount, .unmount = l_unmount, .sync = l_sync,
    .open = l_open, .close = l_close, .pread = l_pread, .pwrite = l_pwrite,
    .ftruncate = l_ftruncate, .punch = l_punch, .fsync = l_fsync, .stat = l_stat,
    .lstat = l_lstat, .fstat = l_fstat, .mkdir = l_mkdir, .mknod = l_mknod,
    .getxattr = l_getxattr, .setxattr = l_setxattr, .listxattr = l_listxattr,
    .removexattr = l_removexattr, .rmdir = l_rmdir,
    .unlink = l_unlink, .rename = l_rename, .link = l_link, .symlink = l_symlink,
    .readlink = l_readlink, .readdir = l_readdir, .statfs = l_statfs,
    .mem_bytes = l_mem, .mount_work = l_work,
};

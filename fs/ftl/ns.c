/*
 * ns.c -- the namespace of one file: "/" holds "disk" and nothing else
 * can be made.  /disk cannot change size: O_TRUNC and a truncate to its
 * own size are no-ops, other sizes -EPERM (a block device file).
 */
#include "ftlfs.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* the inode path names, or -ENOENT */
static int lookup(const char *path)
{
    if (!path)
        return -EINVAL;
    while (path[0] == '/' && path[1] == '/')
        path++;
    if (!strcmp(path, "/"))
        return FTLFS_ROOT;
    if (!strcmp(path, "/disk"))
        return FTLFS_DISK;
    return -ENOENT;
}

int ftlfs_open(void *fs, const char *path, int flags, uint32_t mode)
{
    struct ftlfs *f = fs;
    (void)mode;
    int ino = lookup(path);
    if (ino == -ENOENT && (flags & O_CREAT))
        return -EPERM;
    if (ino < 0)
        return ino;
    if (ino == FTLFS_DISK && (flags & O_CREAT) && (flags & O_EXCL))
        return -EEXIST;
    if (ino == FTLFS_ROOT && ((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT)))
        return -EISDIR;
    if (ino == FTLFS_DISK && (flags & O_DIRECTORY))
        return -ENOTDIR;
    return fs_fd_alloc(&f->fds, (uint64_t)ino, flags);
}

int ftlfs_close(void *fs, int fd)
{
    struct ftlfs *f = fs;
    struct fs_fd *slot;
    int rc = fs_fd_get(&f->fds, fd, &slot);
    if (!rc)
        fs_fd_release(&f->fds, fd);
    return rc;
}

static void fill(const struct ftlfs *f, int ino, struct fs_stat *st)
{
    memset(st, 0, sizeof *st);
    st->ino = (uint64_t)ino;
    if (ino == FTLFS_ROOT) {
        st->mode = S_IFDIR | 0755;
        st->nlink = 2;
        st->size = 1;
    } else {
        st->mode = S_IFREG | 0644;
        st->nlink = 1;
        st->size = blk_sectors(f->d) * blk_sector_size(f->d);
    }
    st->blocks = fs_blocks_of_size(st->size);
}

int ftlfs_stat(void *fs, const char *path, struct fs_stat *st)
{
    int ino = lookup(path);
    if (ino < 0)
        return ino;
    fill(fs, ino, st);
    return 0;
}

int ftlfs_fstat(void *fs, int fd, struct fs_stat *st)
{
    struct ftlfs *f = fs;
    struct fs_fd *slot;
    int rc = fs_fd_get(&f->fds, fd, &slot);
    if (!rc)
        fill(f, (int)slot->ino, st);
    return rc;
}

/* cookie 0: before "disk"; UINT64_MAX: past it */
int ftlfs_readdir(void *fs, const char *path, uint64_t *cookie, fs_dir_fn fn, void *ctx)
{
    (void)fs;
    int ino = lookup(path);
    if (ino < 0)
        return ino;
    if (ino != FTLFS_ROOT)
        return -ENOTDIR;
    if (*cookie == 0 && fn(ctx, "disk", FTLFS_DISK, S_IFREG))
        return 0;
    *cookie = UINT64_MAX;
    return 0;
}

int ftlfs_statfs(void *fs, struct fs_statfs *st)
{
    struct ftlfs *f = fs;
    st->block_size = blk_sector_size(f->d);
    st->total_bytes = blk_sectors(f->d) * blk_sector_size(f->d);
    st->free_bytes = 0; /* the disk is one file as large as the device */
    st->files = 1;
    return 0;
}

int ftlfs_ftruncate(void *fs, int fd, uint64_t size)
{
    struct ftlfs *f = fs;
    struct fs_fd *slot;
    int rc = fs_fd_check(&f->fds, fd, FS_FD_WRITE, &slot);
    if (rc)
        return rc;
    if (slot->ino != FTLFS_DISK)
        return -EISDIR;
    return size == blk_sectors(f->d) * blk_sector_size(f->d) ? 0 : -EPERM;
}

int ftlfs_mkdir(void *fs, const char *path, uint32_t mode)
{
    (void)fs;
    (void)mode;
    return lookup(path) >= 0 ? -EEXIST : -EPERM;
}

int ftlfs_unlink(void *fs, const char *path)
{
    (void)fs;
    int ino = lookup(path);
    return ino < 0 ? ino : ino == FTLFS_ROOT ? -EISDIR : -EPERM;
}

int ftlfs_rename(void *fs, const char *from, const char *to)
{
    (void)fs;
    (void)to;
    int ino = lookup(from);
    return ino < 0 ? ino : -EPERM;
}

int ftlfs_symlink(void *fs, const char *target, const char *linkpath)
{
    (void)fs;
    (void)target;
    return lookup(linkpath) >= 0 ? -EEXIST : -EPERM;
}

int64_t ftlfs_readlink(void *fs, const char *path, char *buf, uint64_t size)
{
    (void)fs;
    (void)buf;
    (void)size;
    int ino = lookup(path);
    return ino < 0 ? ino : -EINVAL;
}

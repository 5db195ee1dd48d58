/*
 * file.c -- open files: open/close, pread/pwrite, ftruncate,
 * punch, fsync, stat.  An unlinked file stays readable and writable
 * through its open fds and is freed at the last close (or, after a crash,
 * by the next mount, which frees every inode without a name).
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int bf_open(void *vfs, const char *path, int flags, uint32_t mode)
{
    struct blockfs *fs = vfs;
    struct bf_path r;
    int rc = fs_open_check(flags);
    if (rc || (rc = bf_resolve(fs, path, !(flags & O_NOFOLLOW), &r)))
        return rc;
    uint32_t ino = r.ino;
    if (!ino) {
        if (!(flags & O_CREAT))
            return -ENOENT;
        rc = bf_create(fs, &r, S_IFREG | (mode & 07777), &ino);
    } else {
        rc = fs_open_existing(flags, fs->itab[ino].mode);
        if (!rc && fs_open_truncates(flags) && fs->itab[ino].size)
            rc = bf_file_truncate(fs, ino, 0);
    }
    if (rc)
        return bf_op_end(fs, rc);
    int fd = fs_fd_alloc(&fs->fds, ino, flags);
    if (fd >= 0)
        fs->opens[ino]++;
    else
        bf_release(fs, ino);
    return bf_op_end(fs, fd);
}

int bf_close(void *vfs, int fd)
{
    struct blockfs *fs = vfs;
    struct fs_fd *f;
    int rc = fs_fd_get(&fs->fds, fd, &f);
    if (rc)
        return rc;
    uint32_t ino = (uint32_t)f->ino;
    fs_fd_release(&fs->fds, fd);
    fs->opens[ino]--;
    if (!fs->itab[ino].nlink && !fs->opens[ino]) /* the last of an orphan */
        return bf_op_end(fs, bf_release(fs, ino));
    return 0;
}

int64_t bf_pread(void *vfs, int fd, void *buf, uint64_t len, uint64_t off)
{
    struct blockfs *fs = vfs;
    struct fs_fd *f;
    int rc = fs_fd_check(&fs->fds, fd, FS_FD_READ, &f);
    if (rc)
        return rc;
    if (S_ISDIR(fs->itab[f->ino].mode))
        return -EISDIR;
    return bf_file_pread(fs, f->ino, buf, len, off);
}

int64_t bf_pwrite(void *vfs, int fd, const void *buf, uint64_t len, uint64_t off)
{
    struct blockfs *fs = vfs;
    struct fs_fd *f;
    int rc = fs_fd_check(&fs->fds, fd, FS_FD_WRITE, &f);
    if (rc)
        return rc;
    if (bf_failed(fs))
        return -EIO;
    int64_t n = bf_file_pwrite(fs, f->ino, buf, len, off);
    rc = bf_op_end(fs, 0);
    return n < 0 ? n : rc ? rc : n;
}

int bf_ftruncate(void *vfs, int fd, uint64_t size)
{
    struct blockfs *fs = vfs;
    struct fs_fd *f;
    int rc = fs_fd_check(&fs->fds, fd, FS_FD_WRITE, &f);
    if (rc)
        return rc;
    if (S_ISDIR(fs->itab[f->ino].mode))
        return -EISDIR;
    if (bf_failed(fs))
        return -EIO;
    return bf_op_end(fs, bf_file_truncate(fs, f->ino, size));
}

int bf_punch(void *vfs, int fd, uint64_t off, uint64_t len)
{
    struct blockfs *fs = vfs;
    struct fs_fd *f;
    int rc = fs_fd_check(&fs->fds, fd, FS_FD_WRITE, &f);
    if (rc)
        return rc;
    if (bf_failed(fs))
        return -EIO;
    return bf_op_end(fs, bf_file_punch(fs, f->ino, off, len));
}

int bf_fsync(void *vfs, int fd)
{
    struct blockfs *fs = vfs;
    struct fs_fd *f;
    int rc = fs_fd_get(&fs->fds, fd, &f);
    return rc ? rc : bf_sync(fs); /* one erase-block buffer: sync it all */
}

static void fill_stat(const struct blockfs *fs, uint32_t ino, struct fs_stat *st)
{
    const struct bf_inode *in = &fs->itab[ino];
    st->ino = ino;
    st->mode = in->mode;
    st->nlink = in->nlink;
    st->uid = in->uid;
    st->gid = in->gid;
    st->size = in->size;
    st->atime = in->atime;
    st->mtime = in->mtime;
    st->ctime = in->ctime;
    st->rdev = 0;
    st->blocks = fs_blocks_of_size(in->size);
}

static int path_stat(struct blockfs *fs, const char *path, int follow,
                     struct fs_stat *st)
{
    struct bf_path r;
    int rc = bf_resolve(fs, path, follow, &r);
    if (!rc && !r.ino)
        rc = -ENOENT;
    if (!rc)
        fill_stat(fs, r.ino, st);
    return rc;
}

int bf_stat(void *fs, const char *path, struct fs_stat *st)
{
    return path_stat(fs, path, 1, st);
}

int bf_lstat(void *fs, const char *path, struct fs_stat *st)
{
    return path_stat(fs, path, 0, st);
}

int bf_fstat(void *vfs, int fd, struct fs_stat *st)
{
    struct blockfs *fs = vfs;
    struct fs_fd *f;
    int rc = fs_fd_get(&fs->fds, fd, &f);
    if (!rc)
        fill_stat(fs, f->ino, st);
    return rc;
}

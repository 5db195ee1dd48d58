/* api_file.c -- open files: open/close, read/write, seek, truncate, stat. */
#include "logfs.h"
#include "lfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#define MAX_FDS 65536

static int fd_get(struct logfs *fs, int fd, struct lfs_fd **f, struct lfs_inode **in)
{
    if (fd < 0 || (uint32_t)fd >= fs->nfds || !fs->fds[fd].used)
        return -EBADF;
    *f = &fs->fds[fd];
    return lfs_inode_get(fs, (*f)->ino, in);
}

static int fd_new(struct logfs *fs)
{
    for (uint32_t i = 0; i < fs->nfds; i++)
        if (!fs->fds[i].used)
            return (int)i;
    uint32_t n = fs->nfds ? fs->nfds * 2 : 16;
    if (n > MAX_FDS)
        return -EMFILE;
    struct lfs_fd *v = lfs_zalloc(fs, n * sizeof *v);
    if (!v)
        return -ENOMEM;
    if (fs->nfds)
        memcpy(v, fs->fds, fs->nfds * sizeof *v);
    lfs_free(fs, fs->fds, fs->nfds * sizeof *v);
    fs->fds = v;
    int fd = (int)fs->nfds;
    fs->nfds = n;
    return fd;
}

static uint8_t dtype_of(uint32_t mode)
{
    return (uint8_t)((mode & S_IFMT) >> 12);
}

/* Create a file named r->name in r->dir. */
int lfs_create(struct logfs *fs, struct lfs_path *r, uint32_t mode,
               struct lfs_inode **out)
{
    struct lfs_inode *in;
    if (!r->len)
        return -EEXIST;
    int rc = lfs_space_check(fs, fs->g.block_size);
    if (!rc)
        rc = lfs_inode_new(fs, mode, &in);
    if (rc)
        return rc;
    in->nlink = S_ISDIR(mode) ? 2 : 1;
    in->atime = in->mtime = in->ctime = lfs_now(fs);
    if ((rc = lfs_dir_add(fs, r->dir, r->name, r->len, in->ino, dtype_of(mode)))) {
        in->nlink = 0;
        lfs_inode_release(fs, in);
        return rc;
    }
    r->dir->mtime = r->dir->ctime = in->ctime;
    if (S_ISDIR(mode))
        r->dir->nlink++;
    *out = in;
    return 0;
}

int logfs_open(logfs *fs, const char *path, int flags, uint32_t mode)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    int acc = flags & O_ACCMODE;
    if (acc != O_RDONLY && acc != O_WRONLY && acc != O_RDWR)
        return -EINVAL;
    if (fs->readonly && (acc != O_RDONLY || flags & (O_CREAT | O_TRUNC)))
        return -EROFS;
    /* O_CREAT|O_EXCL never follows a final link, even a dangling one */
    int excl = (flags & O_CREAT) && (flags & O_EXCL);
    int rc = lfs_resolve(fs, path, !(flags & O_NOFOLLOW) && !excl, &r);
    if (rc)
        return rc;
    if (r.ino && (flags & O_CREAT) && (flags & O_EXCL))
        return -EEXIST;
    if (!r.ino) {
        if (!(flags & O_CREAT))
            return -ENOENT;
        rc = lfs_create(fs, &r, S_IFREG | (mode & 07777), &in);
    } else {
        rc = lfs_inode_get(fs, r.ino, &in);
        if (!rc && S_ISDIR(in->mode) && acc != O_RDONLY)
            rc = -EISDIR;
        if (!rc && S_ISLNK(in->mode))
            rc = -ELOOP;
        if (!rc && (flags & O_TRUNC) && acc != O_RDONLY && in->size) {
            rc = lfs_file_truncate(fs, in, 0);
            in->mtime = in->ctime = lfs_now(fs);
        }
    }
    int (*end)(struct logfs *, int) =
        acc == O_RDONLY && !(flags & (O_CREAT | O_TRUNC)) ? lfs_op_end_ro : lfs_op_end;
    if (rc)
        return end(fs, rc);
    int fd = fd_new(fs);
    if (fd < 0)
        return end(fs, fd);
    fs->fds[fd] = (struct lfs_fd){.ino = in->ino, .flags = flags, .used = 1};
    lfs_imem_of(in)->opens++;
    return end(fs, fd);
}

int logfs_close(logfs *fs, int fd)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (rc)
        return rc;
    f->used = 0;
    /* closing changes nothing on flash unless it deletes an orphan */
    int deletes = --lfs_imem_of(in)->opens == 0 && in->nlink == 0;
    rc = lfs_inode_release(fs, in);
    return deletes ? lfs_op_end(fs, rc) : lfs_op_end_ro(fs, rc);
}

int64_t logfs_pread(logfs *fs, int fd, void *buf, uint64_t len, uint64_t off)
{
    lfs_op_begin(fs, LOGFS_OP_READ);
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (rc)
        return rc;
    if ((f->flags & O_ACCMODE) == O_WRONLY)
        return -EBADF;
    if (S_ISDIR(in->mode))
        return -EISDIR;
    int64_t n = lfs_file_pread(fs, in, buf, len, off);
    lfs_op_end_ro(fs, 0);
    return n;
}

int64_t logfs_pwrite(logfs *fs, int fd, const void *buf, uint64_t len, uint64_t off)
{
    lfs_op_begin(fs, LOGFS_OP_WRITE);
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (rc)
        return rc;
    if ((f->flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    if ((rc = lfs_space_check(fs, len)))
        return lfs_op_end(fs, rc);
    int64_t n = lfs_file_pwrite(fs, in, buf, len, off, fs->dirty_limit);
    if (n > 0) {
        in->mtime = in->ctime = lfs_now(fs);
        fs->an.host_bytes_written += (uint64_t)n;
    }
    rc = lfs_op_end(fs, 0);
    return n < 0 ? n : rc ? rc : n;
}

int64_t logfs_read(logfs *fs, int fd, void *buf, uint64_t len)
{
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (rc)
        return rc;
    int64_t n = logfs_pread(fs, fd, buf, len, f->pos);
    if (n > 0)
        fs->fds[fd].pos += (uint64_t)n;
    return n;
}

int64_t logfs_write(logfs *fs, int fd, const void *buf, uint64_t len)
{
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (rc)
        return rc;
    uint64_t off = f->flags & O_APPEND ? in->size : f->pos;
    int64_t n = logfs_pwrite(fs, fd, buf, len, off);
    if (n > 0)
        fs->fds[fd].pos = off + (uint64_t)n;
    return n;
}

int64_t logfs_lseek(logfs *fs, int fd, int64_t off, int whence)
{
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (rc)
        return rc;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)f->pos
                 : whence == SEEK_END ? (int64_t)in->size : -1;
    if (base < 0 || (off < 0 && -off > base))
        return -EINVAL;
    f->pos = (uint64_t)(base + off);
    return (int64_t)f->pos;
}

static int truncate_inode(struct logfs *fs, struct lfs_inode *in, uint64_t size)
{
    if (fs->readonly)
        return -EROFS;
    if (S_ISDIR(in->mode))
        return -EISDIR;
    int rc = lfs_file_truncate(fs, in, size); /* holes take no space */
    in->mtime = in->ctime = lfs_now(fs);
    return lfs_op_end(fs, rc);
}

int logfs_ftruncate(logfs *fs, int fd, uint64_t size)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (rc)
        return rc;
    if ((f->flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    return truncate_inode(fs, in, size);
}

int logfs_truncate(logfs *fs, const char *path, uint64_t size)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    int rc = lfs_resolve(fs, path, 1, &r);
    if (!rc && !r.ino)
        rc = -ENOENT;
    if (!rc)
        rc = lfs_inode_get(fs, r.ino, &in);
    return rc ? rc : truncate_inode(fs, in, size);
}

int logfs_punch(logfs *fs, int fd, uint64_t off, uint64_t len)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (rc)
        return rc;
    if ((f->flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    if (fs->readonly)
        return -EROFS;
    uint64_t end = off + len < off ? UINT64_MAX : off + len;
    rc = lfs_file_zero(fs, in, off, end);
    in->mtime = in->ctime = lfs_now(fs);
    lfs_inode_dirty(fs, in);
    return lfs_op_end(fs, rc);
}

int logfs_fsync(logfs *fs, int fd)
{
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    return rc ? rc : logfs_sync(fs); /* one tree: a commit covers all */
}

/* ---- attributes ------------------------------------------------------- */

static void fill_stat(const struct lfs_inode *in, struct fs_stat *st)
{
    st->ino = in->ino;
    st->mode = in->mode;
    st->nlink = in->nlink;
    st->uid = in->uid;
    st->gid = in->gid;
    st->size = in->size;
    st->atime = in->atime;
    st->mtime = in->mtime;
    st->ctime = in->ctime;
}

/* The inode path names; modify: the caller will change it (EROFS). */
static int path_inode(struct logfs *fs, const char *path, int follow, int modify,
                      struct lfs_inode **in)
{
    if (modify && fs->readonly)
        return -EROFS;
    struct lfs_path r;
    int rc = lfs_resolve(fs, path, follow, &r);
    if (!rc && !r.ino)
        rc = -ENOENT;
    return rc ? rc : lfs_inode_get(fs, r.ino, in);
}

int logfs_stat(logfs *fs, const char *path, struct fs_stat *st)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_inode *in;
    int rc = path_inode(fs, path, 1, 0, &in);
    if (!rc)
        fill_stat(in, st);
    return lfs_op_end_ro(fs, rc);
}

int logfs_lstat(logfs *fs, const char *path, struct fs_stat *st)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_inode *in;
    int rc = path_inode(fs, path, 0, 0, &in);
    if (!rc)
        fill_stat(in, st);
    return lfs_op_end_ro(fs, rc);
}

int logfs_fstat(logfs *fs, int fd, struct fs_stat *st)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, &f, &in);
    if (!rc)
        fill_stat(in, st);
    return rc;
}

/* What chmod, chown and utimens change; each sets one group, on the
 * final symbolic link itself when nofollow is set (lchown, lutimens). */
struct attr_change {
    int set_mode, set_owner, set_times, nofollow;
    uint32_t mode, uid, gid;
    int64_t atime, mtime;
};

static int change_attrs(struct logfs *fs, const char *path, const struct attr_change *c)
{
    struct lfs_inode *in;
    int rc = path_inode(fs, path, !c->nofollow, 1, &in);
    if (!rc) {
        if (c->set_mode)
            in->mode = (in->mode & S_IFMT) | (c->mode & 07777);
        if (c->set_owner) {
            in->uid = c->uid;
            in->gid = c->gid;
        }
        if (c->set_times) {
            in->atime = c->atime;
            in->mtime = c->mtime;
        }
        in->ctime = lfs_now(fs);
        lfs_inode_dirty(fs, in);
    }
    return lfs_op_end(fs, rc);
}

int logfs_chmod(logfs *fs, const char *path, uint32_t mode)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return change_attrs(fs, path, &(struct attr_change){.set_mode = 1, .mode = mode});
}

int logfs_chown(logfs *fs, const char *path, uint32_t uid, uint32_t gid)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return change_attrs(fs, path,
                        &(struct attr_change){.set_owner = 1, .uid = uid, .gid = gid});
}

int logfs_utimens(logfs *fs, const char *path, int64_t atime, int64_t mtime)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return change_attrs(fs, path, &(struct attr_change){.set_times = 1, .atime = atime,
                                                        .mtime = mtime});
}

int logfs_lchown(logfs *fs, const char *path, uint32_t uid, uint32_t gid)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return change_attrs(fs, path, &(struct attr_change){.set_owner = 1, .nofollow = 1,
                                                        .uid = uid, .gid = gid});
}

int logfs_lutimens(logfs *fs, const char *path, int64_t atime, int64_t mtime)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return change_attrs(fs, path, &(struct attr_change){.set_times = 1, .nofollow = 1,
                                                        .atime = atime, .mtime = mtime});
}

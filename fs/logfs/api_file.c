/* api_file.c -- open files: open/close, read/write, seek, truncate, stat. */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

/* The open file fd, as the call needs it (fs_fd_check), and its inode. */
static int fd_get(struct logfs *fs, int fd, enum fs_fd_need need, struct fs_fd **f,
                  struct lfs_inode **in)
{
    int rc = fs_fd_check(&lfs_ops_of(fs)->fds, fd, need, f);
    return rc ? rc : lfs_inode_get(fs, (*f)->ino, in);
}

/* fd_get for calls that need only the inode. */
static int fd_inode(struct logfs *fs, int fd, enum fs_fd_need need, struct lfs_inode **in)
{
    struct fs_fd *f;
    return fd_get(fs, fd, need, &f, in);
}

/* chattr's rules for an open of an existing file (as Linux's may_open):
 * an immutable one is not opened for writing, an append-only one only
 * with O_APPEND and without O_TRUNC. */
static int may_open(const struct lfs_inode *in, int flags)
{
    int writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
    if (!writes)
        return 0;
    if (in->flags & LFS_INODE_IMMUTABLE)
        return -EPERM;
    return in->flags & LFS_INODE_APPEND && (!(flags & O_APPEND) || (flags & O_TRUNC)) ? -EPERM
                                                                                      : 0;
}

/* Find or create the file open names, with open's checks. */
static int open_inode(struct logfs *fs, const char *path, int flags, uint32_t mode,
                      struct lfs_inode **in)
{
    struct lfs_path r;
    int rc = fs_open_check(flags);
    if (rc)
        return rc;
    if (fs_open_writes(flags) && lfs_cannot_write(fs))
        return lfs_cannot_write(fs);
    /* O_CREAT|O_EXCL never follows a final link, even a dangling one */
    int excl = fs_open_excl(flags);
    if ((rc = lfs_resolve(fs, path, !(flags & O_NOFOLLOW) && !excl, &r)))
        return rc;
    if (!r.ino)
        return flags & O_CREAT ? lfs_create(fs, &r, S_IFREG | (mode & 07777), in) : -ENOENT;
    if ((rc = lfs_inode_get(fs, r.ino, in)) || (rc = fs_open_existing(flags, (*in)->mode)) ||
        (rc = may_open(*in, flags)))
        return rc;
    /* O_TRUNC marks mtime and ctime even when the file was empty */
    if (fs_open_truncates(flags) && !(rc = (*in)->size ? lfs_file_truncate(fs, *in, 0) : 0)) {
        (*in)->mtime = (*in)->ctime = lfs_now(fs);
        lfs_inode_dirty(fs, *in);
    }
    return rc;
}

static int open_fd(struct logfs *fs, const char *path, int flags, uint32_t mode)
{
    struct lfs_inode *in;
    int rc = open_inode(fs, path, flags, mode, &in);
    int fd = rc ? rc : fs_fd_alloc(&lfs_ops_of(fs)->fds, in->ino, flags);
    if (fd >= 0)
        lfs_imem_of(in)->opens++;
    return fd;
}

/* Give back an fd open_fd returned (its open failed at the end). */
static void unopen(struct logfs *fs, int fd)
{
    struct lfs_inode *in;
    if (!fd_inode(fs, fd, FS_FD_OPEN, &in)) {
        fs_fd_release(&lfs_ops_of(fs)->fds, fd);
        lfs_imem_of(in)->opens--;
    }
}

int logfs_open(logfs *fs, const char *path, int flags, uint32_t mode)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    int fd = open_fd(fs, path, flags, mode);
    if (!fs_open_writes(flags))
        return (int)lfs_op_end_ro(fs, fd);
    int rc = (int)lfs_op_end(fs, fd);
    if (fd >= 0 && rc < 0)
        unopen(fs, fd); /* the commit after it failed: no fd */
    return rc;
}

/* *deletes: closing removed the file's last trace (an orphan). */
static int close_fd(struct logfs *fs, int fd, int *deletes)
{
    struct fs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, FS_FD_OPEN, &f, &in);
    if (rc)
        return rc;
    fs_fd_release(&lfs_ops_of(fs)->fds, fd);
    *deletes = --lfs_imem_of(in)->opens == 0 && in->nlink == 0;
    return lfs_inode_release(fs, in);
}

int logfs_close(logfs *fs, int fd)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    int deletes = 0;
    int rc = close_fd(fs, fd, &deletes);
    /* closing changes nothing on flash unless it deletes an orphan */
    return (int)(deletes ? lfs_op_end(fs, rc) : lfs_op_end_ro(fs, rc));
}

/* Read at *off, or at the fd's position (advanced) when off is NULL. */
static int64_t read_fd(struct logfs *fs, int fd, void *buf, uint64_t len,
                       const uint64_t *off)
{
    struct fs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, FS_FD_READ, &f, &in);
    if (rc)
        return rc;
    if (S_ISDIR(in->mode))
        return -EISDIR;
    int64_t n = lfs_file_pread(fs, in, buf, len, off ? *off : f->pos);
    if (!off && n > 0)
        f->pos += (uint64_t)n;
    return n;
}

/* Room for a write of len bytes at off.  Preallocated blocks it lands
 * on have theirs already: on ENOSPC, the dirty blocks are committed (so
 * that none is counted beside the reservation it replaces) and the write
 * asks only for the rest, as fallocate promises.  The usual path costs
 * nothing more. */
static int write_space(struct logfs *fs, struct lfs_inode *in, uint64_t off, uint64_t len)
{
    uint64_t held = 0;
    int rc = lfs_space_check(fs, len);
    if (rc != -ENOSPC || !lfs_tree_can_prealloc(fs, in))
        return rc;
    if ((rc = lfs_file_prealloc_bytes(fs, in, off, len, &held)) || !held)
        return rc ? rc : -ENOSPC;
    return (rc = lfs_sync_all(fs)) ? rc : lfs_space_check(fs, len - held);
}

/* Write at *off, or at the fd's position (the end with O_APPEND), which
 * then moves past what was written, when off is NULL. */
static int64_t write_fd(struct logfs *fs, int fd, const void *buf, uint64_t len,
                        const uint64_t *off)
{
    struct fs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, FS_FD_WRITE, &f, &in);
    if (rc)
        return rc;
    if ((rc = lfs_cannot_write(fs)))
        return rc;
    uint64_t at = off ? *off : f->flags & O_APPEND ? in->size : f->pos;
    /* cut first, so that space is asked only for what will be written */
    if ((rc = lfs_may_write_at(in, at)))
        return rc;
    int64_t fit = fs_write_fit(at, len, fs->max_file_bytes);
    if (fit < 0 || (rc = write_space(fs, in, at, (uint64_t)fit)))
        return fit < 0 ? fit : rc;
    int64_t n = lfs_file_pwrite(fs, in, buf, (uint64_t)fit, at, fs->dirty_limit);
    if (n > 0) {
        in->mtime = in->ctime = lfs_now(fs);
        fs->an.host_bytes_written += (uint64_t)n;
        if (!off)
            f->pos = at + (uint64_t)n;
    }
    /* chattr +S: the write is committed before it returns */
    if (n > 0 && (in->flags & LFS_INODE_SYNC) && (rc = lfs_sync_all(fs)))
        return rc;
    return n;
}

int64_t logfs_pread(logfs *fs, int fd, void *buf, uint64_t len, uint64_t off)
{
    lfs_op_begin(fs, LOGFS_OP_READ);
    return lfs_op_end_ro(fs, read_fd(fs, fd, buf, len, &off));
}

int64_t logfs_pwrite(logfs *fs, int fd, const void *buf, uint64_t len, uint64_t off)
{
    lfs_op_begin(fs, LOGFS_OP_WRITE);
    return lfs_op_end(fs, write_fd(fs, fd, buf, len, &off));
}

int64_t logfs_read(logfs *fs, int fd, void *buf, uint64_t len)
{
    lfs_op_begin(fs, LOGFS_OP_READ);
    return lfs_op_end_ro(fs, read_fd(fs, fd, buf, len, NULL));
}

int64_t logfs_write(logfs *fs, int fd, const void *buf, uint64_t len)
{
    lfs_op_begin(fs, LOGFS_OP_WRITE);
    return lfs_op_end(fs, write_fd(fs, fd, buf, len, NULL));
}

static int64_t seek_fd(struct logfs *fs, int fd, int64_t off, int whence)
{
    struct fs_fd *f;
    struct lfs_inode *in;
    int rc = fd_get(fs, fd, FS_FD_OPEN, &f, &in);
    if (rc)
        return rc;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)f->pos
                 : whence == SEEK_END ? (int64_t)in->size : -1;
    if (base < 0 || (off < 0 && -off > base))
        return -EINVAL;
    f->pos = (uint64_t)(base + off);
    return (int64_t)f->pos;
}

int64_t logfs_lseek(logfs *fs, int fd, int64_t off, int whence)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return lfs_op_end_ro(fs, seek_fd(fs, fd, off, whence));
}

static int truncate_inode(struct logfs *fs, struct lfs_inode *in, uint64_t size)
{
    if (lfs_cannot_write(fs))
        return lfs_cannot_write(fs);
    if (S_ISDIR(in->mode))
        return -EISDIR;
    int rc = lfs_may_modify(in);
    if (!rc)
        rc = lfs_file_truncate(fs, in, size); /* holes take no space */
    if (!rc) { /* even to the same size, as Linux (pjdfstest truncate/00.t) */
        in->mtime = in->ctime = lfs_now(fs);
        lfs_inode_dirty(fs, in);
    }
    return rc;
}

int logfs_ftruncate(logfs *fs, int fd, uint64_t size)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_inode *in;
    int rc = fd_inode(fs, fd, FS_FD_WRITE, &in);
    return (int)lfs_op_end(fs, rc ? rc : truncate_inode(fs, in, size));
}

/* The inode path names; modify: the caller will change it (EROFS). */
static int path_inode(struct logfs *fs, const char *path, int follow, int modify,
                      struct lfs_inode **in)
{
    if (modify && lfs_cannot_write(fs))
        return lfs_cannot_write(fs);
    struct lfs_path r;
    int rc = lfs_resolve(fs, path, follow, &r);
    if (!rc && !r.ino)
        rc = -ENOENT;
    return rc ? rc : lfs_inode_get(fs, r.ino, in);
}

int logfs_truncate(logfs *fs, const char *path, uint64_t size)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_inode *in;
    int rc = path_inode(fs, path, 1, 0, &in);
    return (int)lfs_op_end(fs, rc ? rc : truncate_inode(fs, in, size));
}

static int punch_fd(struct logfs *fs, int fd, uint64_t off, uint64_t len)
{
    struct lfs_inode *in;
    int rc = fd_inode(fs, fd, FS_FD_WRITE, &in);
    if (rc)
        return rc;
    if (lfs_cannot_write(fs))
        return lfs_cannot_write(fs);
    if ((rc = lfs_may_modify(in)))
        return rc;
    uint64_t end = off + len < off ? UINT64_MAX : off + len;
    rc = lfs_file_zero(fs, in, off, end);
    in->mtime = in->ctime = lfs_now(fs);
    lfs_inode_dirty(fs, in);
    return rc;
}

int logfs_punch(logfs *fs, int fd, uint64_t off, uint64_t len)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return (int)lfs_op_end(fs, punch_fd(fs, fd, off, len));
}

static int allocate_fd(struct logfs *fs, int fd, uint64_t off, uint64_t len, unsigned flags)
{
    struct lfs_inode *in;
    int rc = fd_inode(fs, fd, FS_FD_WRITE, &in);
    if (rc || (rc = lfs_cannot_write(fs)))
        return rc;
    if (flags & ~(FS_ALLOC_KEEP_SIZE | FS_ALLOC_ZERO_RANGE))
        return -EINVAL;
    if (S_ISDIR(in->mode))
        return -EISDIR;
    if (!S_ISREG(in->mode))
        return -ENODEV; /* fallocate(2) on a FIFO or device */
    /* allocating adds no data: allowed on an append-only file, as Linux */
    if (in->flags & LFS_INODE_IMMUTABLE)
        return -EPERM;
    int keep = flags & FS_ALLOC_KEEP_SIZE;
    if (flags & FS_ALLOC_ZERO_RANGE) { /* it changes data: as a punch */
        if ((rc = lfs_may_modify(in)) || (rc = lfs_file_zero_range(fs, in, off, len, keep)))
            return rc;
        in->mtime = in->ctime = lfs_now(fs);
        lfs_inode_dirty(fs, in);
        return 0;
    }
    uint64_t size = in->size;
    if (!(rc = lfs_file_allocate(fs, in, off, len, keep)) && in->size != size)
        in->mtime = in->ctime = lfs_now(fs); /* as a truncate that grows it */
    return rc;
}

int logfs_allocate(logfs *fs, int fd, uint64_t off, uint64_t len, unsigned flags)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return (int)lfs_op_end(fs, allocate_fd(fs, fd, off, len, flags));
}

int logfs_fsync(logfs *fs, int fd)
{
    lfs_op_begin(fs, LOGFS_OP_SYNC);
    struct lfs_inode *in;
    int rc = fd_inode(fs, fd, FS_FD_OPEN, &in);
    /* one tree: a commit covers every file */
    return (int)lfs_op_end_ro(fs, rc ? rc : lfs_sync_all(fs));
}

/* ---- attributes ------------------------------------------------------- */

static void fill_stat(const struct logfs *fs, const struct lfs_inode *in, struct fs_stat *st)
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
    st->rdev = in->rdev;
    /* format 6 counts the blocks; older ones fall back to the size */
    st->blocks = fs->sb.read_version >= LFS_PREALLOC_VERSION
                     ? in->blocks * (fs->g.block_size / 512) : fs_blocks_of_size(in->size);
}

int logfs_stat(logfs *fs, const char *path, struct fs_stat *st)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_inode *in;
    int rc = path_inode(fs, path, 1, 0, &in);
    if (!rc)
        fill_stat(fs, in, st);
    return (int)lfs_op_end_ro(fs, rc);
}

int logfs_lstat(logfs *fs, const char *path, struct fs_stat *st)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_inode *in;
    int rc = path_inode(fs, path, 0, 0, &in);
    if (!rc)
        fill_stat(fs, in, st);
    return (int)lfs_op_end_ro(fs, rc);
}

int logfs_fstat(logfs *fs, int fd, struct fs_stat *st)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_inode *in;
    int rc = fd_inode(fs, fd, FS_FD_OPEN, &in);
    if (!rc)
        fill_stat(fs, in, st);
    return (int)lfs_op_end_ro(fs, rc);
}

/* What chmod, chown and utimens change; each sets one group, on the
 * final symbolic link itself when nofollow is set (lchown, lutimens). */
struct attr_change {
    int set_mode, set_owner, set_times, nofollow;
    uint32_t mode, uid, gid;
    int64_t atime, mtime;
};

/* chattr's rules, as Linux's setattr: nothing on an immutable file; on
 * an append-only one only times set to "now" (touch). */
static int attrs_may_change(const struct lfs_inode *in, const struct attr_change *c)
{
    if (c->set_times && c->atime == LOGFS_TIME_OMIT && c->mtime == LOGFS_TIME_OMIT)
        return 0; /* changes nothing */
    int now_only = c->set_times && (c->atime == LOGFS_TIME_NOW || c->atime == LOGFS_TIME_OMIT) &&
                   (c->mtime == LOGFS_TIME_NOW || c->mtime == LOGFS_TIME_OMIT);
    if (in->flags & LFS_INODE_IMMUTABLE)
        return -EPERM;
    return now_only ? 0 : lfs_may_modify(in);
}

static int change_attrs(struct logfs *fs, const char *path, const struct attr_change *c)
{
    struct lfs_inode *in;
    int rc = path_inode(fs, path, !c->nofollow, 1, &in);
    if (!rc)
        rc = attrs_may_change(in, c);
    if (!rc) {
        if (c->set_mode) {
            in->mode = (in->mode & S_IFMT) | (c->mode & 07777);
            if ((rc = lfs_acl_chmod(fs, in))) /* in the same commit */
                return rc;
        }
        if (c->set_owner) {
            in->uid = c->uid;
            in->gid = c->gid;
        }
        int64_t now = lfs_now(fs);
        if (c->set_times) {
            if (c->atime == LOGFS_TIME_OMIT && c->mtime == LOGFS_TIME_OMIT)
                return 0; /* nothing changes, not even ctime */
            if (c->atime != LOGFS_TIME_OMIT)
                in->atime = c->atime == LOGFS_TIME_NOW ? now : c->atime;
            if (c->mtime != LOGFS_TIME_OMIT)
                in->mtime = c->mtime == LOGFS_TIME_NOW ? now : c->mtime;
        }
        in->ctime = now;
        lfs_inode_dirty(fs, in);
    }
    return rc;
}

/* chmod, chown, utimens and the l- forms: one attribute change each. */
static int attrs_op(struct logfs *fs, const char *path, struct attr_change c)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return (int)lfs_op_end(fs, change_attrs(fs, path, &c));
}

int logfs_chmod(logfs *fs, const char *path, uint32_t mode)
{
    return attrs_op(fs, path, (struct attr_change){.set_mode = 1, .mode = mode});
}

int logfs_chown(logfs *fs, const char *path, uint32_t uid, uint32_t gid)
{
    return attrs_op(fs, path, (struct attr_change){.set_owner = 1, .uid = uid, .gid = gid});
}

int logfs_utimens(logfs *fs, const char *path, int64_t atime, int64_t mtime)
{
    return attrs_op(fs, path,
                    (struct attr_change){.set_times = 1, .atime = atime, .mtime = mtime});
}

int logfs_lchown(logfs *fs, const char *path, uint32_t uid, uint32_t gid)
{
    return attrs_op(fs, path, (struct attr_change){.set_owner = 1, .nofollow = 1,
                                                   .uid = uid, .gid = gid});
}

int logfs_lutimens(logfs *fs, const char *path, int64_t atime, int64_t mtime)
{
    return attrs_op(fs, path, (struct attr_change){.set_times = 1, .nofollow = 1,
                                                   .atime = atime, .mtime = mtime});
}

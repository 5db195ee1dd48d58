/* api_tmpfile.c -- O_TMPFILE: a file made without a name, and the name
 * linkat(fd, "", ..., AT_EMPTY_PATH) gives it later.
 *
 * The new inode is an orphan from the start (nlink 0, in the anchor's
 * orphan list, docs/FORMAT.md section 6.1), in the same commit as the
 * inode itself: a power cut before it is linked leaves no name, and the
 * next mount deletes it as it deletes any file unlinked while open.  Its
 * first name takes it off the list in the commit that adds the name. */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

/* The new inode in dir, open for flags: nlink 0, orphan, owned by
 * uid/gid (a set-group-ID directory's group instead, as lfs_create). */
static int tmpfile_fd(struct logfs *fs, struct lfs_inode *dir, int flags, uint32_t mode,
                      uint32_t uid, uint32_t gid)
{
    struct lfs_inode *in;
    int rc = lfs_space_check(fs, fs->g.block_size);
    if (rc || (rc = lfs_inode_new(fs, S_IFREG | (mode & 07777), &in)))
        return rc;
    in->atime = in->mtime = in->ctime = lfs_now(fs);
    in->uid = uid;
    in->gid = dir->mode & S_ISGID ? dir->gid : gid;
    int fd = fs_fd_alloc(&lfs_ops_of(fs)->fds, in->ino, flags & (O_ACCMODE | O_APPEND));
    if (fd < 0) {
        lfs_inode_release(fs, in); /* no link, no open: gone before any commit */
        return fd;
    }
    struct lfs_imem *m = lfs_imem_of(in);
    m->opens++;
    m->linkable = !(flags & O_EXCL);
    lfs_orphan_add(fs, in->ino);
    return fd;
}

int logfs_tmpfile(logfs *fs, const char *dirpath, int flags, uint32_t mode, uint32_t uid,
                  uint32_t gid)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *dir;
    /* a file no one could write would be of no use: Linux says EINVAL */
    int rc = fs_open_check(flags) ? -EINVAL : (flags & O_ACCMODE) == O_RDONLY ? -EINVAL
           : lfs_cannot_write(fs);
    if (!rc && !(rc = lfs_resolve_existing(fs, dirpath, 1, &r, &dir)) && !S_ISDIR(dir->mode))
        rc = -ENOTDIR;
    int fd = rc ? rc : tmpfile_fd(fs, dir, flags, mode, uid, gid);
    rc = (int)lfs_op_end(fs, fd);
    if (fd >= 0 && rc < 0) { /* the commit after it failed: no fd */
        struct lfs_inode *in;
        struct fs_fd *f;
        if (!fs_fd_get(&lfs_ops_of(fs)->fds, fd, &f) && !lfs_inode_get(fs, f->ino, &in)) {
            fs_fd_release(&lfs_ops_of(fs)->fds, fd);
            lfs_imem_of(in)->opens--;
            lfs_inode_release(fs, in);
        }
    }
    return rc;
}

int logfs_linkfd(logfs *fs, int fd, const char *newpath)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct fs_fd *f;
    struct lfs_inode *in;
    int rc = lfs_cannot_write(fs);
    if (!rc && !(rc = fs_fd_get(&lfs_ops_of(fs)->fds, fd, &f)))
        rc = lfs_inode_get(fs, f->ino, &in);
    int orphan = !rc && in->nlink == 0;
    /* as Linux: a file with no name gets one only if it was made
     * without O_EXCL by tmpfile and never had one */
    if (orphan && !lfs_imem_of(in)->linkable)
        rc = -ENOENT;
    if (!rc)
        rc = lfs_link_inode(fs, in, newpath);
    if (!rc && orphan) {
        lfs_orphan_remove(fs, in->ino);
        lfs_imem_of(in)->linkable = 0;
    }
    return (int)lfs_op_end(fs, rc);
}

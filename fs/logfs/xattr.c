/*
 * xattr.c -- an inode's extended attributes: a list kept as the data of
 * an attribute inode (docs/FORMAT.md 13a), read and rewritten whole.  The
 * list is small (at most LFS_XATTR_LIST_MAX), and rewriting it in the
 * same commit as the owner's change keeps both consistent through any
 * power cut, with no code of its own for crashes.
 */
#include "tree.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

int lfs_xattr_load(struct logfs *fs, struct lfs_inode *owner, uint8_t **buf,
                   uint32_t *len)
{
    struct lfs_inode *x;
    *buf = NULL;
    *len = 0;
    if (!owner->xattr)
        return 0;
    int rc = lfs_inode_get(fs, owner->xattr, &x);
    if (rc)
        return rc == -ENOENT ? -EIO : rc;
    if (!(x->flags & LFS_INODE_XATTRS) || x->size > LFS_XATTR_LIST_MAX)
        return -EIO; /* not what the owner's field promises */
    if (!x->size)
        return 0;
    if (!(*buf = malloc(x->size)))
        return -ENOMEM;
    int64_t n = lfs_file_pread(fs, x, *buf, x->size, 0);
    if (n != (int64_t)x->size) {
        free(*buf);
        *buf = NULL;
        return n < 0 ? (int)n : -EIO;
    }
    *len = (uint32_t)x->size;
    return 0;
}

/* Delete the attribute inode of owner (none left, or the owner goes). */
int lfs_xattr_drop(struct logfs *fs, struct lfs_inode *owner)
{
    struct lfs_inode *x;
    if (!owner->xattr)
        return 0;
    int rc = lfs_inode_get(fs, owner->xattr, &x);
    owner->xattr = 0;
    lfs_inode_dirty(fs, owner);
    if (rc)
        return rc == -ENOENT ? 0 : rc;
    x->nlink = 0;
    return lfs_inode_release(fs, x);
}

int lfs_xattr_store(struct logfs *fs, struct lfs_inode *owner, const uint8_t *buf,
                    uint32_t len)
{
    struct lfs_inode *x;
    int rc;
    if (!len)
        return lfs_xattr_drop(fs, owner);
    if ((rc = lfs_space_check(fs, len)))
        return rc;
    if (owner->xattr) {
        if ((rc = lfs_inode_get(fs, owner->xattr, &x)))
            return rc;
    } else {
        if ((rc = lfs_inode_new(fs, S_IFREG, &x)))
            return rc;
        x->flags = LFS_INODE_XATTRS;
        x->nlink = 1;
        x->atime = x->mtime = x->ctime = lfs_now(fs);
        owner->xattr = x->ino;
        lfs_inode_dirty(fs, owner);
    }
    int64_t n = lfs_file_pwrite(fs, x, buf, len, 0, UINT64_MAX);
    if (n < 0)
        return (int)n;
    return len < x->size ? lfs_file_truncate(fs, x, len) : 0;
}

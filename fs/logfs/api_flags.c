/* api_flags.c -- file attributes (chattr(1)'s S, i, a, d, A): get and
 * set.  What they forbid is checked where each call changes something
 * (ns.h's lfs_may_*), as Linux's VFS does for every fs. */
#include "ops.h"

_Static_assert(LFS_INODE_SYNC == FS_FL_SYNC && LFS_INODE_IMMUTABLE == FS_FL_IMMUTABLE &&
                   LFS_INODE_APPEND == FS_FL_APPEND && LFS_INODE_NODUMP == FS_FL_NODUMP &&
                   LFS_INODE_NOATIME == FS_FL_NOATIME,
               "the inode record keeps the API's bits as they are");

int logfs_getflags(logfs *fs, const char *path, unsigned *flags)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    int rc = lfs_resolve_existing(fs, path, 1, &r, &in);
    if (!rc)
        *flags = in->flags & LFS_INODE_ATTRS;
    return (int)lfs_op_end_ro(fs, rc);
}

static int set_flags(struct logfs *fs, const char *path, unsigned flags)
{
    struct lfs_path r;
    struct lfs_inode *in;
    int rc = lfs_cannot_write(fs) ? lfs_cannot_write(fs)
                                  : lfs_resolve_existing(fs, path, 1, &r, &in);
    if (rc)
        return rc;
    unsigned old = in->flags & LFS_INODE_ATTRS;
    if (flags == old)
        return 0;
    if ((flags & ~LFS_INODE_ATTRS) || fs->sb.read_version < LFS_ATTRS_VERSION)
        return -EOPNOTSUPP;
    if (old & flags & LFS_INODE_IMMUTABLE)
        return -EPERM; /* only clearing i changes an immutable file */
    in->flags = (in->flags & ~LFS_INODE_ATTRS) | flags;
    in->ctime = lfs_now(fs);
    lfs_inode_dirty(fs, in);
    return lfs_sync_all(fs); /* one commit per change */
}

int logfs_setflags(logfs *fs, const char *path, unsigned flags)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return (int)lfs_op_end(fs, set_flags(fs, path, flags));
}

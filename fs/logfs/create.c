/* create.c -- a new name in a directory for a new inode. */
#include "ns.h"

#include <errno.h>
#include <sys/stat.h>

/* Create a file named r->name in r->dir. */
int lfs_create(struct logfs *fs, struct lfs_path *r, uint32_t mode,
               struct lfs_inode **out)
{
    struct lfs_inode *in;
    if (!r->len)
        return -EEXIST;
    int rc = lfs_may_add_name(r->dir);
    if (!rc)
        rc = lfs_space_check(fs, fs->g.block_size);
    if (!rc)
        rc = lfs_inode_new(fs, mode, &in);
    if (rc)
        return rc;
    in->nlink = S_ISDIR(mode) ? 2 : 1;
    in->atime = in->mtime = in->ctime = lfs_now(fs);
    /* a set-group-ID directory hands its group down, and to a new
     * directory the bit too (BSD semantics, as Linux) */
    if (r->dir->mode & S_ISGID) {
        in->gid = r->dir->gid;
        if (S_ISDIR(mode))
            in->mode |= S_ISGID;
    }
    if ((rc = lfs_dir_add(fs, r->dir, r->name, r->len, in->ino, lfs_dtype_of(mode)))) {
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

/*
 * ops.h -- LogFS layer 5, the operations: the public logfs_* calls of
 * logfs.h, mount and mkfs, options, open files and latency accounting.
 * Sees ns.h and below.  Its files: fs/logfs/layers.txt.
 *
 * Every public call has one shape, so that no path skips the bookkeeping:
 *
 *     lfs_op_begin(fs, LOGFS_OP_...);
 *     return lfs_op_end(fs, body(...));       (or lfs_op_end_ro)
 *
 * lfs_op_end commits past the dirty limit, cleans ahead of need and runs
 * static wear leveling; lfs_op_end_ro (calls that change nothing on flash's
 * behalf: a stat must not write) only bounds the caches.  Both record the
 * call's latency in simulated time.
 */
#ifndef FLASHLAB_LFS_LAYER_OPS_H
#define FLASHLAB_LFS_LAYER_OPS_H

#include "ns.h"

#include <errno.h>
#include <stddef.h>


/* The mounted fs as this layer holds it: the state of the layers below
 * (struct lfs_treefs, tree.h, which holds struct logfs), then what only
 * the ops read, so that a change here edits no lower header.  The public handle (logfs *) is &o->t.fs,
 * and lfs_ops_of goes back; fs_new (super.c) allocates it whole. */
struct lfs_ops {
    struct lfs_treefs t;        /* t.fs: the public handle */
    int op_kind;                /* LOGFS_OP_* of the call under way, -1 none */
    nand_time_t op_t0;          /* when it began */
    struct fs_lathist lat[LOGFS_OP_KINDS]; /* per call kind (fs/lathist.c) */
    struct fs_fdtab fds;        /* open files (fs/fscommon.h) */
};

static inline struct lfs_ops *lfs_ops_of(struct logfs *fs)
{
    return (struct lfs_ops *)((char *)fs - offsetof(struct lfs_ops, t.fs));
}
static inline const struct lfs_ops *lfs_ops_of_const(const struct logfs *fs)
{
    return (const struct lfs_ops *)((const char *)fs - offsetof(struct lfs_ops, t.fs));
}


/* op.c.  kind: LOGFS_OP_*, or LFS_OP_BACKGROUND for work that is no
 * host call's latency (logfs_idle). */
#define LFS_OP_BACKGROUND (-1)
void lfs_op_begin(struct logfs *fs, int kind);
/* rc: the body's result (a count or a negative errno); returns rc if it
 * is an error, else the end's own error if any, else rc. */
int64_t lfs_op_end(struct logfs *fs, int64_t rc);
int64_t lfs_op_end_ro(struct logfs *fs, int64_t rc);

/* Whether a changing call may go on: -EROFS on a read-only mount, -EIO
 * once a commit failed (RAM then matches no commit on flash: a change
 * accepted now could never be committed, so it is refused instead of
 * being lost at unmount), else 0. */
static inline int lfs_cannot_write(const struct logfs *fs)
{
    return fs->readonly ? -EROFS : fs->failed ? -EIO : 0;
}

/* api_ns.c, for api_rename.c: resolve a path that must exist (-ENOENT)
 * and get its inode; take the link name (len bytes) in dir away from in,
 * freeing in once neither a link nor an open remains. */
int lfs_resolve_existing(struct logfs *fs, const char *path, int follow,
                         struct lfs_path *r, struct lfs_inode **in);
int lfs_drop_link(struct logfs *fs, struct lfs_inode *dir, const char *name, size_t len,
                  struct lfs_inode *in);
/* api_ns.c, for link and api_tmpfile.c's linkfd: one more name, newpath
 * (not followed), for in: link(2)'s errors (EPERM for a directory,
 * EEXIST, EMLINK, ENOSPC, ENOENT/ENOTDIR for its directory). */
int lfs_link_inode(struct logfs *fs, struct lfs_inode *in, const char *newpath);

/* api_xattr.c, for chmod: the access ACL in's list holds, if any, takes
 * in's new permission bits (fs/posixacl.h). */
int lfs_acl_chmod(struct logfs *fs, struct lfs_inode *in);

/* super.c: the superblock from block 0, or the copy among the last
 * blocks (docs/FORMAT.md section 5); lfs_super_decode's codes, -EIO. */
int lfs_super_find(nand_dev *dev, struct lfs_super *sb);


#endif

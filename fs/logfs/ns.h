/*
 * ns.h -- LogFS layer 4, the namespace: path walk (symbolic links, ".",
 * "..", the host's limits) and the creation of names.  Sees tree.h and
 * below.  Its files: fs/logfs/layers.txt.
 */
#ifndef FLASHLAB_LFS_LAYER_NS_H
#define FLASHLAB_LFS_LAYER_NS_H

#include "fscommon.h"
#include "tree.h"

#include <sys/stat.h>

/* A path, given or made by following symbolic links, has at most
 * LFS_PATH_MAX - 1 bytes (ENAMETOOLONG), as the host's PATH_MAX; the
 * components are split as every fs on the simulator splits them
 * (fs/fscommon.h). */
#define LFS_PATH_MAX FS_PATH_MAX
_Static_assert(LFS_NAME_MAX_BYTES == FS_NAME_MAX, "a name is a path component");

/* A resolved path: dir is the directory holding the last component, name
 * and len that component (empty for the root), ino its inode or 0 if it
 * does not exist. */
struct lfs_path {
    struct lfs_inode *dir;
    char name[LFS_NAME_MAX_BYTES + 1];
    size_t len;
    uint64_t ino;
    uint8_t type;
};
/* follow: resolve a final symbolic link too. */
int lfs_resolve(struct logfs *fs, const char *path, int follow, struct lfs_path *r);
/* lfs_resolve without following a final link, and *seen: whether
 * directory ino is r->dir or one of the directories above it (for
 * rename's "a directory into itself"). */
int lfs_resolve_under(struct logfs *fs, const char *path, struct lfs_path *r,
                      uint64_t ino, int *seen);

/* The type a directory entry records: the mode's S_IFMT bits >> 12. */
static inline uint8_t lfs_dtype_of(uint32_t mode)
{
    return (uint8_t)((mode & S_IFMT) >> 12);
}

/* chattr's rules (docs/FORMAT.md 9.4; Linux's VFS keeps the same for
 * every fs), each 0 or -EPERM.  lfs_may_modify: in's size, mode, owner,
 * set times, extended attributes and links may change unless it is
 * immutable or append-only. */
static inline int lfs_may_modify(const struct lfs_inode *in)
{
    return in->flags & (LFS_INODE_IMMUTABLE | LFS_INODE_APPEND) ? -EPERM : 0;
}
/* A name may be added to an append-only directory, not to an immutable
 * one. */
static inline int lfs_may_add_name(const struct lfs_inode *dir)
{
    return dir->flags & LFS_INODE_IMMUTABLE ? -EPERM : 0;
}
/* in's name may leave dir unless either is immutable or append-only. */
static inline int lfs_may_drop_name(const struct lfs_inode *dir, const struct lfs_inode *in)
{
    int rc = lfs_may_modify(dir);
    return rc ? rc : lfs_may_modify(in);
}
/* Data written at off: never into an immutable file, only at the end of
 * an append-only one. */
static inline int lfs_may_write_at(const struct lfs_inode *in, uint64_t off)
{
    return in->flags & LFS_INODE_IMMUTABLE ||
                   (in->flags & LFS_INODE_APPEND && off != in->size)
               ? -EPERM : 0;
}

/* create.c: a new inode of mode named r->name in r->dir (which must not
 * hold that name), with the parent's times and link count updated. */
int lfs_create(struct logfs *fs, struct lfs_path *r, uint32_t mode,
               struct lfs_inode **out);

#endif

/* api_ns.c -- the namespace: mkdir, rmdir, unlink, link, symlink,
 * readlink, readdir, statfs (rename: api_rename.c). */
#include "ops.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

int lfs_drop_link(struct logfs *fs, struct lfs_inode *dir, const char *name,
                     size_t len, struct lfs_inode *in)
{
    int rc = lfs_dir_remove(fs, dir, name, len);
    if (rc)
        return rc;
    int64_t now = lfs_now(fs);
    dir->mtime = dir->ctime = in->ctime = now;
    if (S_ISDIR(in->mode)) {
        in->nlink = 0;
        dir->nlink--;
    } else {
        in->nlink--;
    }
    lfs_inode_dirty(fs, dir);
    lfs_inode_dirty(fs, in);
    if (!in->nlink && lfs_imem_of(in)->opens)
        lfs_orphan_add(fs, in->ino);
    return lfs_inode_release(fs, in);
}

int lfs_resolve_existing(struct logfs *fs, const char *path, int follow,
                         struct lfs_path *r, struct lfs_inode **in)
{
    int rc = lfs_resolve(fs, path, follow, r);
    if (!rc && !r->ino)
        rc = -ENOENT;
    return rc ? rc : lfs_inode_get(fs, r->ino, in);
}

int logfs_mkdir(logfs *fs, const char *path, uint32_t mode)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    int rc = lfs_cannot_write(fs) ? lfs_cannot_write(fs) : lfs_resolve(fs, path, 0, &r);
    if (!rc && r.ino)
        rc = -EEXIST;
    if (!rc)
        rc = lfs_create(fs, &r, S_IFDIR | (mode & 07777), &in);
    return (int)lfs_op_end(fs, rc);
}

int logfs_mknod(logfs *fs, const char *path, uint32_t mode, uint64_t rdev)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    uint32_t type = mode & S_IFMT;
    int rc = type != S_IFREG && type != S_IFIFO && type != S_IFCHR && type != S_IFBLK &&
             type != S_IFSOCK ? -EINVAL
             : lfs_cannot_write(fs) ? lfs_cannot_write(fs) : lfs_resolve(fs, path, 0, &r);
    if (!rc && r.ino)
        rc = -EEXIST;
    if (!rc && !(rc = lfs_create(fs, &r, type | (mode & 07777), &in)))
        in->rdev = type == S_IFCHR || type == S_IFBLK ? rdev : 0;
    return (int)lfs_op_end(fs, rc);
}

int logfs_rmdir(logfs *fs, const char *path)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    int rc = lfs_cannot_write(fs) ? lfs_cannot_write(fs) : lfs_resolve_existing(fs, path, 0, &r, &in);
    if (!rc)
        rc = lfs_may_drop_name(r.dir, in); /* first, as Linux's may_delete */
    if (!rc && !S_ISDIR(in->mode))
        rc = -ENOTDIR;
    if (!rc && !r.len)
        rc = -EBUSY; /* the root */
    if (!rc && in->size)
        rc = -ENOTEMPTY;
    if (!rc)
        rc = lfs_drop_link(fs, r.dir, r.name, r.len, in);
    return (int)lfs_op_end(fs, rc);
}

int logfs_unlink(logfs *fs, const char *path)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    int rc = lfs_cannot_write(fs) ? lfs_cannot_write(fs) : lfs_resolve_existing(fs, path, 0, &r, &in);
    if (!rc)
        rc = lfs_may_drop_name(r.dir, in);
    if (!rc && S_ISDIR(in->mode))
        rc = -EISDIR;
    if (!rc)
        rc = lfs_drop_link(fs, r.dir, r.name, r.len, in);
    return (int)lfs_op_end(fs, rc);
}

int logfs_link(logfs *fs, const char *existing, const char *newpath)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r, t;
    struct lfs_inode *in;
    int rc = lfs_cannot_write(fs) ? lfs_cannot_write(fs) : lfs_resolve_existing(fs, existing, 0, &r, &in);
    if (!rc && S_ISDIR(in->mode))
        rc = -EPERM;
    if (!rc)
        rc = lfs_resolve(fs, newpath, 0, &t);
    if (!rc && t.ino)
        rc = -EEXIST;
    if (!rc) /* after EEXIST, as Linux's vfs_link */
        rc = lfs_may_add_name(t.dir);
    if (!rc)
        rc = lfs_may_modify(in);
    if (!rc && in->nlink >= 65000)
        rc = -EMLINK;
    if (!rc)
        rc = lfs_space_check(fs, fs->g.block_size);
    if (!rc)
        rc = lfs_dir_add(fs, t.dir, t.name, t.len, in->ino, lfs_dtype_of(in->mode));
    if (!rc) {
        in->nlink++;
        in->ctime = t.dir->mtime = t.dir->ctime = lfs_now(fs);
        lfs_inode_dirty(fs, in);
    }
    return (int)lfs_op_end(fs, rc);
}

int logfs_symlink(logfs *fs, const char *target, const char *linkpath)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    size_t tl = target ? strlen(target) : 0;
    int rc = lfs_cannot_write(fs) ? lfs_cannot_write(fs) : !tl || tl >= FS_LINK_MAX ? -ENAMETOOLONG
           : lfs_resolve(fs, linkpath, 0, &r);
    if (!rc && r.ino)
        rc = -EEXIST;
    if (!rc)
        rc = lfs_create(fs, &r, S_IFLNK | 0777, &in);
    if (!rc) {
        int64_t n = lfs_file_pwrite(fs, in, target, tl, 0, UINT64_MAX);
        rc = n < 0 ? (int)n : 0;
    }
    return (int)lfs_op_end(fs, rc);
}

int64_t logfs_readlink(logfs *fs, const char *path, char *buf, uint64_t size)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    int rc = lfs_resolve_existing(fs, path, 0, &r, &in);
    if (!rc && !S_ISLNK(in->mode))
        rc = -EINVAL;
    int64_t n = rc ? rc : lfs_file_pread(fs, in, buf, size < in->size ? size : in->size, 0);
    return lfs_op_end_ro(fs, n);
}

struct readdir_ctx {
    fs_dir_fn fn;
    void *ctx;
};

static int readdir_one(void *ctx, const char *name, size_t len, uint64_t ino,
                       uint8_t type)
{
    struct readdir_ctx *c = ctx;
    (void)len;
    return c->fn(c->ctx, name, ino, (uint32_t)type << 12);
}

int logfs_readdir(logfs *fs, const char *path, uint64_t *cookie,
                  fs_dir_fn fn, void *ctx)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    struct lfs_path r;
    struct lfs_inode *in;
    int rc = lfs_resolve_existing(fs, path, 1, &r, &in);
    if (!rc && !S_ISDIR(in->mode))
        rc = -ENOTDIR;
    struct readdir_ctx c = {fn, ctx};
    if (!rc && *cookie != UINT64_MAX)
        rc = lfs_dir_iterate(fs, in, cookie, readdir_one, &c);
    return (int)lfs_op_end_ro(fs, rc);
}

int logfs_statfs(logfs *fs, struct fs_statfs *st)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    /* what writers may still add: the cleaner makes room up to capacity */
    uint64_t cap = lfs_capacity(fs), used = fs->an.live_bytes + fs->cache.dirty_bytes;
    st->block_size = fs->g.block_size;
    st->total_bytes = cap;
    st->free_bytes = used < cap ? cap - used : 0;
    st->files = fs->an.next_ino - LFS_INO_FIRST_FREE;
    return (int)lfs_op_end_ro(fs, 0);
}

/* ns.c -- the namespace: mkdir, rmdir, unlink, rename, link,
 * symlink, readlink, readdir, statfs (errors as fs/logfs/logfs.h's LogFS). */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int resolve_existing(struct blockfs *fs, const char *path, int follow,
                            struct bf_path *r)
{
    int rc = bf_resolve(fs, path, follow, r);
    return !rc && !r->ino ? -ENOENT : rc;
}

/* Take one link away from ino (slot in dir): the name goes, the inode
 * when nothing holds it. */
static int drop_link(struct blockfs *fs, uint32_t dir, uint32_t slot, uint32_t ino,
                     int remove_name)
{
    int rc = remove_name ? bf_dir_remove(fs, dir, slot) : 0;
    if (rc)
        return rc;
    struct bf_inode *in = &fs->itab[ino];
    in->ctime = bf_now(fs);
    if (S_ISDIR(in->mode)) {
        in->nlink = 0;
        fs->itab[dir].nlink--;
        bf_idirty(fs, dir);
    } else {
        in->nlink--;
    }
    bf_idirty(fs, ino);
    return bf_release(fs, ino);
}

int bf_mkdir(void *vfs, const char *path, uint32_t mode)
{
    struct blockfs *fs = vfs;
    struct bf_path r;
    uint32_t ino;
    int rc = bf_resolve(fs, path, 0, &r);
    if (!rc && r.ino)
        rc = -EEXIST;
    if (!rc)
        rc = bf_create(fs, &r, S_IFDIR | (mode & 07777), &ino);
    return bf_op_end(fs, rc);
}

int bf_rmdir(void *vfs, const char *path)
{
    struct blockfs *fs = vfs;
    struct bf_path r;
    int rc = resolve_existing(fs, path, 0, &r);
    if (!rc && !S_ISDIR(fs->itab[r.ino].mode))
        rc = -ENOTDIR;
    if (!rc && !r.len)
        rc = -EBUSY; /* the root */
    if (!rc && fs->itab[r.ino].size)
        rc = -ENOTEMPTY;
    if (!rc)
        rc = drop_link(fs, r.dir, r.slot, r.ino, 1);
    return bf_op_end(fs, rc);
}

int bf_unlink(void *vfs, const char *path)
{
    struct blockfs *fs = vfs;
    struct bf_path r;
    int rc = resolve_existing(fs, path, 0, &r);
    if (!rc && S_ISDIR(fs->itab[r.ino].mode))
        rc = -EISDIR;
    if (!rc)
        rc = drop_link(fs, r.dir, r.slot, r.ino, 1);
    return bf_op_end(fs, rc);
}

int bf_link(void *vfs, const char *existing, const char *newpath)
{
    struct blockfs *fs = vfs;
    struct bf_path r, t;
    int rc = resolve_existing(fs, existing, 0, &r);
    if (!rc && S_ISDIR(fs->itab[r.ino].mode))
        rc = -EPERM;
    if (!rc)
        rc = bf_resolve(fs, newpath, 0, &t);
    if (!rc && (t.ino || !t.len))
        rc = -EEXIST;
    if (!rc && fs->itab[r.ino].nlink >= BF_MAX_LINKS)
        rc = -EMLINK;
    if (!rc)
        rc = bf_dir_add(fs, t.dir, t.name, t.len, r.ino, fs->itab[r.ino].mode);
    if (!rc) {
        fs->itab[r.ino].nlink++;
        fs->itab[r.ino].ctime = bf_now(fs);
        bf_idirty(fs, r.ino);
    }
    return bf_op_end(fs, rc);
}

int bf_symlink(void *vfs, const char *target, const char *linkpath)
{
    struct blockfs *fs = vfs;
    struct bf_path r;
    uint32_t ino;
    size_t tl = target ? strlen(target) : 0;
    int rc = !tl || tl >= FS_LINK_MAX ? -ENAMETOOLONG : bf_resolve(fs, linkpath, 0, &r);
    if (!rc && r.ino)
        rc = -EEXIST;
    if (!rc && fs->sb.free_blocks < 1)
        rc = -ENOSPC;
    if (!rc)
        rc = bf_create(fs, &r, S_IFLNK | 0777, &ino);
    if (!rc) {
        int64_t n = bf_file_pwrite(fs, ino, target, tl, 0);
        if (n < 0) { /* no room for the target after the name: undo */
            struct bf_path u;
            rc = (int)n;
            if (!bf_resolve(fs, linkpath, 0, &u) && u.ino == ino)
                drop_link(fs, u.dir, u.slot, ino, 1);
        }
    }
    return bf_op_end(fs, rc);
}

int64_t bf_readlink(void *vfs, const char *path, char *buf, uint64_t size)
{
    struct blockfs *fs = vfs;
    struct bf_path r;
    int rc = resolve_existing(fs, path, 0, &r);
    if (!rc && !S_ISLNK(fs->itab[r.ino].mode))
        rc = -EINVAL;
    if (rc)
        return rc;
    uint64_t n = fs->itab[r.ino].size;
    return bf_file_pread(fs, r.ino, buf, size < n ? size : n, 0);
}

/* Whether directory anc is d or one of d's ancestors. */
static int is_ancestor(struct blockfs *fs, uint32_t anc, uint32_t d)
{
    for (uint32_t hops = 0; hops < fs->sb.inodes; hops++) {
        if (d == anc)
            return 1;
        if (d == BF_ROOT || !d || d >= fs->sb.inodes)
            return 0;
        d = fs->itab[d].parent;
    }
    return 0;
}

int bf_rename(void *vfs, const char *from, const char *to)
{
    struct blockfs *fs = vfs;
    struct bf_path s, t;
    int rc = resolve_existing(fs, from, 0, &s);
    if (!rc && !s.len)
        rc = -EBUSY;
    if (!rc)
        rc = bf_resolve(fs, to, 0, &t);
    if (!rc && !t.len)
        rc = -EBUSY;
    if (rc || t.ino == s.ino)
        return rc; /* same file: nothing to do */
    uint32_t ino = s.ino, mode = fs->itab[ino].mode;
    if (S_ISDIR(mode) && is_ancestor(fs, ino, t.dir))
        return -EINVAL; /* a directory into itself */
    if (t.ino) {
        uint32_t vm = fs->itab[t.ino].mode;
        if (S_ISDIR(mode) && !S_ISDIR(vm))
            return -ENOTDIR;
        if (!S_ISDIR(mode) && S_ISDIR(vm))
            return -EISDIR;
        if (S_ISDIR(vm) && fs->itab[t.ino].size)
            return -ENOTEMPTY;
    }
    if (bf_failed(fs))
        return -EIO;
    if (t.ino) { /* take over the victim's slot: no new space needed */
        uint32_t victim = t.ino;
        rc = bf_dir_set(fs, t.dir, t.slot, ino, mode);
        if (!rc)
            rc = drop_link(fs, t.dir, t.slot, victim, 0);
    } else {
        rc = bf_dir_add(fs, t.dir, t.name, t.len, ino, mode);
    }
    if (!rc) { /* the source slot is unchanged by adding elsewhere */
        uint32_t ino2, slot2;
        rc = bf_dir_lookup(fs, s.dir, s.name, s.len, &ino2, &slot2);
        if (!rc && ino2 == ino && (s.dir != t.dir || slot2 != t.slot || !t.ino))
            rc = bf_dir_remove(fs, s.dir, slot2);
    }
    if (!rc) {
        fs->itab[ino].ctime = bf_now(fs);
        bf_idirty(fs, ino);
        if (S_ISDIR(mode) && s.dir != t.dir) {
            fs->itab[s.dir].nlink--;
            fs->itab[t.dir].nlink++;
            fs->itab[ino].parent = t.dir;
            bf_idirty(fs, s.dir);
            bf_idirty(fs, t.dir);
        }
    }
    return bf_op_end(fs, rc);
}

int bf_readdir(void *vfs, const char *path, uint64_t *cookie, fs_dir_fn fn, void *ctx)
{
    struct blockfs *fs = vfs;
    struct bf_path r;
    int rc = resolve_existing(fs, path, 1, &r);
    if (!rc && !S_ISDIR(fs->itab[r.ino].mode))
        rc = -ENOTDIR;
    return rc ? rc : bf_dir_iterate(fs, r.ino, cookie, fn, ctx);
}

int bf_statfs(void *vfs, struct fs_statfs *st)
{
    struct blockfs *fs = vfs;
    st->block_size = fs->bs;
    st->total_bytes = (uint64_t)(fs->nblocks - fs->data_start) * fs->bs;
    st->free_bytes = (uint64_t)fs->sb.free_blocks * fs->bs;
    st->files = fs->sb.inodes - 2 - fs->sb.free_inodes;
    return 0;
}

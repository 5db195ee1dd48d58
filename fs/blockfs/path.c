/*
 * path.c -- path resolution with LogFS's rules (fs/logfs/logfs.h):
 * absolute canonical paths (no "." or ".."), names of at most 255 bytes,
 * paths shorter than FS_PATH_MAX (fs/pathwalk.c splits them), absolute symlink
 * targets followed in every component but the last unless asked, at most
 * 40 of them.
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SYMLINKS 40

/* The target of symlink ino followed by rest, as a new string. */
static char *splice_link(struct blockfs *fs, uint32_t ino, const char *rest, int *err)
{
    uint64_t tl = fs->itab[ino].size;
    size_t rl = strlen(rest);
    if (tl == 0 || tl >= FS_LINK_MAX) {
        *err = tl ? -EIO : -EINVAL;
        return NULL;
    }
    char *np = malloc((size_t)tl + rl + 1);
    if (!np) {
        *err = -ENOMEM;
        return NULL;
    }
    int64_t got = bf_file_pread(fs, ino, np, tl, 0);
    if (got != (int64_t)tl || np[0] != '/') {
        *err = got < 0 ? (int)got : -EINVAL; /* relative targets: unsupported */
        free(np);
        return NULL;
    }
    memcpy(np + tl, rest, rl + 1);
    return np;
}

static int walk(struct blockfs *fs, const char *p, int follow, int depth,
                struct bf_path *r)
{
    int rc = fs_path_check(p);
    if (rc)
        return rc;
    r->dir = BF_ROOT;
    r->ino = BF_ROOT;
    r->slot = 0;
    r->len = 0;
    r->name[0] = 0;
    struct fs_comp c;
    for (size_t pos = 0; (rc = fs_path_comp(p, pos, &c)) == 1; pos = c.next) {
        if (r->len) { /* step into the component resolved last */
            if (!r->ino)
                return -ENOENT;
            if (!S_ISDIR(fs->itab[r->ino].mode))
                return -ENOTDIR;
            r->dir = r->ino;
        }
        if (c.kind != FS_COMP_NAME)
            return -EINVAL;
        memcpy(r->name, c.name, c.len);
        r->name[c.len] = 0;
        r->len = c.len;
        r->ino = 0;
        rc = bf_dir_lookup(fs, r->dir, c.name, c.len, &r->ino, &r->slot);
        if (rc && rc != -ENOENT)
            return rc;
        if (r->ino && !fs->itab[r->ino].mode)
            return -EIO; /* a name of a free inode: corrupt */
        if (r->ino && (!c.last || follow) && S_ISLNK(fs->itab[r->ino].mode)) {
            if (depth >= MAX_SYMLINKS)
                return -ELOOP;
            char *np = splice_link(fs, r->ino, p + c.end, &rc);
            if (!np)
                return rc;
            rc = walk(fs, np, follow, depth + 1, r);
            free(np);
            return rc;
        }
    }
    return rc;
}

int bf_resolve(struct blockfs *fs, const char *path, int follow, struct bf_path *r)
{
    if (!path)
        return -EINVAL;
    return walk(fs, path, follow, 0, r);
}

/* A new inode named r->name in r->dir; nothing changes on ENOSPC. */
int bf_create(struct blockfs *fs, struct bf_path *r, uint32_t mode, uint32_t *out)
{
    if (!r->len)
        return -EEXIST;
    if (bf_failed(fs))
        return -EIO;
    uint32_t ino;
    int rc = bf_ialloc(fs, mode, &ino);
    if (rc)
        return rc;
    struct bf_inode *in = &fs->itab[ino];
    in->nlink = S_ISDIR(mode) ? 2 : 1;
    in->parent = S_ISDIR(mode) ? r->dir : 0;
    if ((rc = bf_dir_add(fs, r->dir, r->name, r->len, ino, mode))) {
        in->nlink = 0;
        bf_ifree(fs, ino);
        return rc;
    }
    if (S_ISDIR(mode)) {
        fs->itab[r->dir].nlink++;
        bf_idirty(fs, r->dir);
    }
    *out = ino;
    return 0;
}

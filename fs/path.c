/* path.c -- path resolution, and what every public call does at its end. */
#include "lfs.h"

#include <errno.h>
#include <sys/stat.h>

#define MAX_SYMLINKS 40

int64_t lfs_now(struct logfs *fs)
{
    return (int64_t)nand_now(fs->dev);
}

/* After a call that changed nothing on flash's behalf: no commit, no
 * cleaning (a stat must not write), only the cache bound. */
/* The memory bound: the node cache keeps cache_bytes of clean nodes, and
 * in-memory inodes get the same budget. */
static void trim(struct logfs *fs)
{
    lfs_cache_trim(fs);
    lfs_inode_trim(fs, fs->cache.max_bytes / sizeof(struct lfs_imem) + 16);
}

int lfs_op_end_ro(struct logfs *fs, int rc)
{
    trim(fs);
    lfs_op_record(fs);
    return rc;
}

int lfs_op_end(struct logfs *fs, int rc)
{
    int crc = 0;
    if (fs->cache.dirty_bytes > fs->dirty_limit && !fs->failed)
        crc = lfs_commit(fs);
    /* clean ahead of need, cheaply: half-empty victims only, so that a
     * device near its fill level does not clean on every call */
    if (!crc && !fs->failed && !fs->readonly &&
        fs->an.free_segments < fs->reserve + fs->gc.free_min)
        crc = lfs_gc(fs, fs->reserve + fs->gc.free_min, fs->g.seg_bytes / 2);
    if (!crc && !fs->failed && !fs->readonly)
        crc = lfs_wear_level(fs);
    trim(fs);
    lfs_op_record(fs);
    return rc ? rc : crc;
}

/* The target of symlink `in` followed by `rest`, as a new string. */
static char *splice_link(struct logfs *fs, struct lfs_inode *in,
                         const char *rest, size_t *cap, int *err)
{
    /* the size comes from flash: a target is 1..4095 bytes (FORMAT.md
     * section 10), anything else is a damaged inode, not an allocation */
    if (in->size == 0 || in->size > 4095) {
        *err = -EIO;
        return NULL;
    }
    size_t tl = (size_t)in->size, rl = strlen(rest);
    *cap = tl + rl + 1;
    char *np = lfs_alloc(fs, *cap);
    if (!np) {
        *err = -ENOMEM;
        return NULL;
    }
    int64_t got = lfs_file_pread(fs, in, np, tl, 0);
    if (got != (int64_t)tl || tl == 0 || np[0] != '/') {
        *err = got < 0 ? (int)got : -EINVAL; /* relative targets: unsupported */
        lfs_free(fs, np, *cap);
        return NULL;
    }
    memcpy(np + tl, rest, rl + 1);
    return np;
}

static int walk(struct logfs *fs, const char *p, int follow, int depth,
                struct lfs_path *r)
{
    if (*p != '/')
        return -EINVAL;
    int rc = lfs_inode_get(fs, LFS_INO_ROOT, &r->dir);
    if (rc)
        return rc;
    r->len = 0;
    r->name[0] = 0;
    r->ino = LFS_INO_ROOT;
    r->type = 0;
    while (*p == '/')
        p++;
    while (*p) {
        const char *end = p;
        while (*end && *end != '/')
            end++;
        size_t len = (size_t)(end - p);
        const char *next = end + strspn(end, "/");
        if (len > LFS_NAME_MAX_BYTES)
            return -ENAMETOOLONG;
        if (r->len) { /* step into the component resolved last */
            if (!r->ino)
                return -ENOENT;
            struct lfs_inode *in;
            if ((rc = lfs_inode_get(fs, r->ino, &in)))
                return rc;
            if (!S_ISDIR(in->mode))
                return -ENOTDIR;
            r->dir = in;
        }
        if ((len == 1 && p[0] == '.') || (len == 2 && !memcmp(p, "..", 2)))
            return -EINVAL; /* paths are canonical: no "." or ".." */
        memcpy(r->name, p, len);
        r->name[len] = 0;
        r->len = len;
        r->ino = 0;
        rc = lfs_dir_lookup(fs, r->dir, p, len, &r->ino, &r->type);
        if (rc && rc != -ENOENT)
            return rc;
        if (r->ino && (*next || follow)) {
            struct lfs_inode *in;
            if ((rc = lfs_inode_get(fs, r->ino, &in)))
                return rc;
            if (S_ISLNK(in->mode)) {
                if (depth >= MAX_SYMLINKS)
                    return -ELOOP;
                size_t cap;
                char *np = splice_link(fs, in, end, &cap, &rc);
                if (!np)
                    return rc;
                rc = walk(fs, np, follow, depth + 1, r);
                lfs_free(fs, np, cap);
                return rc;
            }
        }
        p = next;
    }
    return 0;
}

int lfs_resolve(struct logfs *fs, const char *path, int follow, struct lfs_path *r)
{
    if (!path)
        return -EINVAL;
    return walk(fs, path, follow, 0, r);
}

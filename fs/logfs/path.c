/* path.c -- path resolution: components, symbolic links, "." and "..". */
#include "ns.h"

#include <errno.h>
#include <sys/stat.h>

#define MAX_SYMLINKS 40

/* The directories from the root down to the one the walk is in: ".."
 * pops one (the root is its own parent), so that ".." after a symbolic
 * link is the parent of where the link led, as POSIX has it.  Directories
 * have no ".." entry on flash; this stack is where ".." comes from. */
struct dstack {
    uint64_t *v;
    size_t n, cap;
    uint64_t small[32];
};

static int dstack_push(struct logfs *fs, struct dstack *s, uint64_t ino)
{
    if (s->n == s->cap) {
        uint64_t *nv = lfs_alloc(fs, 2 * s->cap * sizeof *nv);
        if (!nv)
            return -ENOMEM;
        memcpy(nv, s->v, s->n * sizeof *nv);
        if (s->v != s->small)
            lfs_free(fs, s->v, s->cap * sizeof *nv);
        s->v = nv;
        s->cap *= 2;
    }
    s->v[s->n++] = ino;
    return 0;
}

/* Replace what is left of the walk's path (the link's name, which ends at
 * (*buf)[rest], and what follows) by symlink in's target and what follows:
 * *buf becomes target + rest, grown (*cap bytes) when it must be.  The
 * result must fit in LFS_PATH_MAX bytes with its NUL, as a path given by
 * the caller must. */
static int splice_link(struct logfs *fs, struct lfs_inode *in, char **buf, size_t *cap,
                       size_t rest)
{
    /* the size comes from flash: a target is 1..4095 bytes (FORMAT.md
     * section 10), anything else is a damaged inode */
    if (in->size == 0 || in->size >= FS_LINK_MAX)
        return -EIO;
    size_t tl = (size_t)in->size, rl = strlen(*buf + rest);
    if (tl + rl >= LFS_PATH_MAX)
        return -ENAMETOOLONG;
    if (tl + rl + 1 > *cap) {
        char *nb = lfs_alloc(fs, tl + rl + 1);
        if (!nb)
            return -ENOMEM;
        memcpy(nb + tl, *buf + rest, rl + 1);
        lfs_free(fs, *buf, *cap);
        *buf = nb;
        *cap = tl + rl + 1;
    } else {
        memmove(*buf + tl, *buf + rest, rl + 1);
    }
    int64_t got = lfs_file_pread(fs, in, *buf, tl, 0);
    if (got != (int64_t)tl)
        return got < 0 ? (int)got : -EIO;
    if (memchr(*buf, 0, tl))
        return -EIO; /* a target has no NUL */
    return 0;
}

/* Resolve path into r: r->dir is the directory holding the last
 * component, r->name and r->len that component, r->ino its inode (0 when
 * it does not exist) and r->type its type bits.  A path that ends at a
 * directory without naming it in one ("/", "/d/." and "/d/..", a link to
 * "/" followed) gives len 0 and ino and dir both that directory.
 *
 * Symbolic links are followed in every component but the last, and in
 * the last when follow is set; a target is read from the directory that
 * holds the link (relative) or from the root (absolute), with "." and
 * ".." and repeated slashes as POSIX has them, and at most MAX_SYMLINKS
 * links per walk (ELOOP).  When watch is nonzero, *seen says whether
 * directory `watch` is r->dir or one above it. */
static int walk(struct logfs *fs, const char *path, int follow, struct lfs_path *r,
                uint64_t watch, int *seen)
{
    int rc = fs_path_check(path);
    if (rc)
        return rc;
    /* a copy the walk may splice link targets into; on the heap, as a
     * path may be up to LFS_PATH_MAX bytes */
    size_t cap = strlen(path) + 1;
    char *buf = lfs_alloc(fs, cap);
    if (!buf)
        return -ENOMEM;
    memcpy(buf, path, cap);
    struct dstack s = {.cap = 32};
    s.v = s.small;
    s.v[s.n++] = LFS_INO_ROOT;
    int links = 0;
    size_t pos = 0;
    for (;;) {
        if (buf[pos] == '/') /* absolute: from the root again */
            s.n = 1;
        if ((rc = lfs_inode_get(fs, s.v[s.n - 1], &r->dir)))
            break;
        struct fs_comp c;
        int named = fs_path_comp(buf, pos, &c);
        if (named < 0) {
            rc = named;
            break;
        }
        if (!named) { /* nothing named: the directory itself */
            r->len = 0;
            r->name[0] = 0;
            r->ino = r->dir->ino;
            r->type = (uint8_t)(S_IFDIR >> 12);
            break;
        }
        const char *p = c.name;
        size_t len = c.len, end = c.end, next = c.next;
        int last = c.last, slash = c.slash;
        if (c.kind != FS_COMP_NAME) {
            if (c.kind == FS_COMP_DOTDOT && s.n > 1)
                s.n--;
            pos = next;
            if (last) { /* "/d/..": the directory reached */
                if ((rc = lfs_inode_get(fs, s.v[s.n - 1], &r->dir)))
                    break;
                r->len = 0;
                r->name[0] = 0;
                r->ino = r->dir->ino;
                r->type = (uint8_t)(S_IFDIR >> 12);
                break;
            }
            continue;
        }
        memcpy(r->name, p, len);
        r->name[len] = 0;
        r->len = len;
        r->ino = 0;
        r->type = 0;
        rc = lfs_dir_lookup(fs, r->dir, p, len, &r->ino, &r->type);
        if (rc && rc != -ENOENT)
            break;
        rc = 0;
        if (!r->ino) {
            if (!last)
                rc = -ENOENT;
            break;
        }
        /* a trailing slash asks for a directory (a link not followed
         * stays the link: lstat, unlink, rmdir, rename see it) */
        uint32_t t = (uint32_t)r->type << 12;
        if (last && !follow) {
            if (slash && !S_ISDIR(t) && !S_ISLNK(t))
                rc = -ENOTDIR;
            break;
        }
        struct lfs_inode *in;
        if ((rc = lfs_inode_get(fs, r->ino, &in)))
            break;
        if (S_ISLNK(in->mode)) {
            if (++links > MAX_SYMLINKS) {
                rc = -ELOOP;
                break;
            }
            /* the target replaces the link's name; a relative one goes
             * on from the directory on top of the stack */
            if ((rc = splice_link(fs, in, &buf, &cap, end)))
                break;
            pos = 0;
            continue;
        }
        if (last) {
            if (slash && !S_ISDIR(in->mode))
                rc = -ENOTDIR;
            break;
        }
        if (!S_ISDIR(in->mode)) {
            rc = -ENOTDIR;
            break;
        }
        if ((rc = dstack_push(fs, &s, r->ino)))
            break;
        pos = next;
    }
    if (!rc && watch && seen) {
        *seen = 0;
        for (size_t i = 0; i < s.n && !*seen; i++)
            *seen = s.v[i] == watch;
    }
    if (s.v != s.small)
        lfs_free(fs, s.v, s.cap * sizeof *s.v);
    lfs_free(fs, buf, cap);
    return rc;
}

int lfs_resolve(struct logfs *fs, const char *path, int follow, struct lfs_path *r)
{
    if (!path)
        return -EINVAL;
    return walk(fs, path, follow, r, 0, NULL);
}

int lfs_resolve_under(struct logfs *fs, const char *path, struct lfs_path *r,
                      uint64_t ino, int *seen)
{
    *seen = 0;
    if (!path)
        return -EINVAL;
    return walk(fs, path, 0, r, ino, seen);
}

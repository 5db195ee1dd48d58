/* ns.c -- names: path resolution, dirent nodes, and the namespace
 * calls (mkdir, rmdir, unlink, rename, link, symlink, readlink, readdir),
 * with fs/logfs/logfs.h's semantics and error codes. */
#include "jffs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SYMLINKS 40

void jffs_inode_put(struct jffs *fs, struct jffs_inode *in)
{
    if (!in->nlink && !in->opens)
        jffs_inode_free(fs, in);
}

static int walk(struct jffs *fs, const char *p, int follow, int depth, struct jffs_path *r)
{
    int rc = fs_path_check(p);
    if (rc)
        return rc;
    r->dir = jffs_inode_get(fs, JFFS_INO_ROOT);
    r->len = 0;
    r->name[0] = 0;
    r->ino = JFFS_INO_ROOT;
    struct fs_comp c;
    for (size_t pos = 0; (rc = fs_path_comp(p, pos, &c)) == 1; pos = c.next) {
        if (r->len) { /* step into the component resolved last */
            struct jffs_inode *in = jffs_inode_get(fs, r->ino);
            if (!in)
                return -ENOENT;
            if (!S_ISDIR(in->mode))
                return -ENOTDIR;
            r->dir = in;
        }
        if (c.kind != FS_COMP_NAME)
            return -EINVAL; /* canonical paths only */
        memcpy(r->name, c.name, c.len);
        r->name[c.len] = 0;
        r->len = c.len;
        struct jffs_dent *d = jffs_dir_find(r->dir, c.name, c.len);
        r->ino = d && d->ino && !d->hidden ? d->ino : 0;
        struct jffs_inode *in = r->ino ? jffs_inode_get(fs, r->ino) : NULL;
        if (in && S_ISLNK(in->mode) && (!c.last || follow)) {
            if (depth >= MAX_SYMLINKS)
                return -ELOOP;
            /* the target, then the rest of the path from its slash; a
             * relative target (mkfs.jffs2 keeps them) starts from the
             * link's directory, the path up to the link's name */
            const char *rest = p + c.end;
            size_t tl = (size_t)in->size, rl = strlen(rest), dl = (size_t)(c.name - p);
            char *np = malloc(dl + tl + rl + 1);
            if (!np)
                return -ENOMEM;
            int64_t got = jffs_file_pread(fs, in, np + dl, tl, 0);
            rc = got != (int64_t)tl ? (got < 0 ? (int)got : -EIO) : !tl ? -EINVAL : 0;
            if (!rc) {
                char *t = np + dl;
                if (t[0] != '/') {
                    memcpy(np, p, dl);
                    t = np;
                }
                memcpy(np + dl + tl, rest, rl + 1);
                rc = fs_path_check(t) ? -EINVAL : walk(fs, t, follow, depth + 1, r);
            }
            free(np);
            return rc;
        }
    }
    return rc;
}

int jffs_resolve(struct jffs *fs, const char *path, int follow, struct jffs_path *r)
{
    return walk(fs, path, follow, 0, r);
}

/* A dirent node: name in dir now means ino (0: nothing). */
int jffs_dirent_write(struct jffs *fs, struct jffs_inode *dir, const char *name,
                      size_t len, uint32_t ino, uint32_t mode)
{
    uint8_t buf[JFFS_DIRENT_HDR + JFFS_NAME_MAX + 1];
    if (fs->next_version > JFFS_VERSION_MAX)
        return -EOVERFLOW; /* a newer node could not say so */
    struct jffs_raw_dirent rd = {
        .pino = dir->ino, .ino = ino, .version = fs->next_version++,
        .mctime = jffs_now(fs), .type = (uint8_t)((mode & S_IFMT) >> 12),
        .nsize = (uint8_t)len,
    };
    memcpy(rd.name, name, len);
    uint32_t l = jffs_encode_dirent(buf, &rd);
    uint64_t addr;
    int rc = jffs_write_node(fs, buf, l, &addr);
    if (rc)
        return rc;
    struct jffs_dent *d = jffs_dent_new(fs, addr, l, &rd);
    if (!d)
        return -ENOMEM;
    dir->mtime = dir->ctime = rd.mctime;
    return jffs_dir_put(fs, dir, d);
}

/* The inode node first, then its name (JFFS2's order: a cut between
 * leaves an inode no dirent names, which mount drops). */
int jffs_create(struct jffs *fs, struct jffs_path *r, uint32_t mode,
                const void *data, uint32_t dlen, struct jffs_inode **out)
{
    if (!r->len)
        return -EEXIST;
    if (fs->next_ino >= JFFS_INO_MAX)
        return -ENOSPC; /* out of inode numbers */
    struct jffs_inode *in = jffs_inode_make(fs, fs->next_ino);
    if (!in)
        return -ENOMEM;
    in->mode = mode;
    in->nlink = S_ISDIR(mode) ? 2 : 1;
    in->atime = in->mtime = in->ctime = jffs_now(fs);
    in->size = dlen;
    int rc = jffs_write_inode(fs, in, 0, data, dlen, 0);
    if (!rc)
        rc = jffs_dirent_write(fs, r->dir, r->name, r->len, in->ino, mode);
    if (rc) {
        jffs_inode_free(fs, in);
        return rc;
    }
    if (S_ISDIR(mode))
        r->dir->nlink++;
    *out = in;
    return 0;
}

int jffs_drop_link(struct jffs *fs, struct jffs_inode *dir, const char *name,
                   size_t len, struct jffs_inode *in)
{
    int rc = jffs_dirent_write(fs, dir, name, len, 0, 0);
    if (rc)
        return rc;
    in->ctime = jffs_now(fs);
    if (S_ISDIR(in->mode)) {
        in->nlink = 0;
        dir->nlink--;
    } else {
        in->nlink--;
    }
    jffs_inode_put(fs, in);
    return 0;
}

static int existing(struct jffs *fs, const char *path, int follow, struct jffs_path *r,
                    struct jffs_inode **in)
{
    int rc = jffs_resolve(fs, path, follow, r);
    if (!rc && !r->ino)
        rc = -ENOENT;
    if (!rc && !(*in = jffs_inode_get(fs, r->ino)))
        rc = -EIO;
    return rc;
}

int jffs_mkdir(struct jffs *fs, const char *path, uint32_t mode)
{
    struct jffs_path r;
    struct jffs_inode *in;
    int rc = jffs_resolve(fs, path, 0, &r);
    if (!rc && r.ino)
        rc = -EEXIST;
    if (!rc)
        rc = jffs_space_check(fs, 0);
    return rc ? rc : jffs_create(fs, &r, S_IFDIR | (mode & 07777), NULL, 0, &in);
}

int jffs_rmdir(struct jffs *fs, const char *path)
{
    struct jffs_path r;
    struct jffs_inode *in;
    int rc = existing(fs, path, 0, &r, &in);
    if (!rc && !S_ISDIR(in->mode))
        rc = -ENOTDIR;
    if (!rc && !r.len)
        rc = -EBUSY;
    if (!rc && in->nreal)
        rc = -ENOTEMPTY;
    fs->deleting = 1;
    if (!rc)
        rc = jffs_drop_link(fs, r.dir, r.name, r.len, in);
    fs->deleting = 0;
    return rc;
}

int jffs_unlink(struct jffs *fs, const char *path)
{
    struct jffs_path r;
    struct jffs_inode *in;
    int rc = existing(fs, path, 0, &r, &in);
    if (!rc && S_ISDIR(in->mode))
        rc = -EISDIR;
    fs->deleting = 1;
    if (!rc)
        rc = jffs_drop_link(fs, r.dir, r.name, r.len, in);
    fs->deleting = 0;
    return rc;
}

int jffs_link(struct jffs *fs, const char *from, const char *to)
{
    struct jffs_path r, t;
    struct jffs_inode *in;
    int rc = existing(fs, from, 0, &r, &in);
    if (!rc && S_ISDIR(in->mode))
        rc = -EPERM;
    if (!rc)
        rc = jffs_resolve(fs, to, 0, &t);
    if (!rc && t.ino)
        rc = -EEXIST;
    if (!rc && in->nlink >= 65000)
        rc = -EMLINK;
    if (!rc)
        rc = jffs_space_check(fs, 0);
    if (!rc)
        rc = jffs_dirent_write(fs, t.dir, t.name, t.len, in->ino, in->mode);
    if (!rc)
        in->nlink++;
    return rc;
}

int jffs_symlink(struct jffs *fs, const char *target, const char *path)
{
    struct jffs_path r;
    struct jffs_inode *in;
    size_t tl = target ? strlen(target) : 0;
    int rc = !tl || tl > JFFS_DATA_MAX - 1 ? -ENAMETOOLONG : jffs_resolve(fs, path, 0, &r);
    if (!rc && r.ino)
        rc = -EEXIST;
    if (!rc)
        rc = jffs_space_check(fs, tl);
    /* the target is the data of the link's one inode node */
    return rc ? rc : jffs_create(fs, &r, S_IFLNK | 0777, target, (uint32_t)tl, &in);
}

int64_t jffs_readlink(struct jffs *fs, const char *path, char *buf, uint64_t size)
{
    struct jffs_path r;
    struct jffs_inode *in;
    int rc = existing(fs, path, 0, &r, &in);
    if (!rc && !S_ISLNK(in->mode))
        rc = -EINVAL;
    return rc ? rc : jffs_file_pread(fs, in, buf, size < in->size ? size : in->size, 0);
}

/* Whether directory ino is on the way to path's last component. */
static int inside(struct jffs *fs, const char *path, uint32_t ino)
{
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    int found = 0;
    if (!p)
        return 0;
    memcpy(p, path, n + 1);
    for (size_t i = n; i-- > 1 && !found;) {
        if (p[i] != '/')
            continue;
        p[i] = 0;
        struct jffs_path r;
        found = !jffs_resolve(fs, p, 1, &r) && r.ino == ino;
    }
    free(p);
    return found;
}

/* The new name is written and flushed before the old one is deleted: a
 * cut between leaves both names, never neither (mount keeps the newer
 * name of a directory named twice; a file simply has one link more). */
int jffs_rename(struct jffs *fs, const char *from, const char *to)
{
    struct jffs_path s, t;
    struct jffs_inode *in, *victim = NULL;
    int rc = existing(fs, from, 0, &s, &in);
    if (!rc && !s.len)
        rc = -EBUSY;
    if (!rc)
        rc = jffs_resolve(fs, to, 0, &t);
    if (!rc && !t.len)
        rc = -EBUSY;
    if (rc || t.ino == in->ino)
        return rc;
    if (S_ISDIR(in->mode) && (t.dir->ino == in->ino || inside(fs, to, in->ino)))
        return -EINVAL;
    if (t.ino && (victim = jffs_inode_get(fs, t.ino))) {
        if (S_ISDIR(in->mode) && !S_ISDIR(victim->mode))
            return -ENOTDIR;
        if (!S_ISDIR(in->mode) && S_ISDIR(victim->mode))
            return -EISDIR;
        if (S_ISDIR(victim->mode) && victim->nreal)
            return -ENOTEMPTY;
    }
    fs->deleting = 1;
    rc = jffs_dirent_write(fs, t.dir, t.name, t.len, in->ino, in->mode);
    if (!rc && victim) { /* the new dirent replaced the victim's */
        if (S_ISDIR(victim->mode)) {
            victim->nlink = 0;
            t.dir->nlink--;
        } else {
            victim->nlink--;
        }
        jffs_inode_put(fs, victim);
    }
    if (!rc)
        rc = jffs_flush(fs);
    if (!rc)
        rc = jffs_dirent_write(fs, s.dir, s.name, s.len, 0, 0);
    if (!rc && S_ISDIR(in->mode) && s.dir != t.dir) {
        s.dir->nlink--;
        t.dir->nlink++;
    }
    fs->deleting = 0;
    return rc;
}

int jffs_readdir(struct jffs *fs, const char *path, uint64_t *cookie, fs_dir_fn fn,
                 void *ctx)
{
    struct jffs_path r;
    struct jffs_inode *in;
    int rc = existing(fs, path, 1, &r, &in);
    if (!rc && !S_ISDIR(in->mode))
        rc = -ENOTDIR;
    for (uint64_t i = *cookie; !rc && i < in->nent; i++) {
        const struct jffs_dent *d = in->ents[i];
        if (!d->ino || d->hidden)
            continue;
        if (fn(ctx, d->name, d->ino, (uint32_t)d->type << 12)) {
            *cookie = i;
            return 0;
        }
    }
    if (!rc)
        *cookie = UINT64_MAX;
    return rc;
}

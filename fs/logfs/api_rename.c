/* api_rename.c -- rename and renameat2's flags: NOREPLACE, EXCHANGE and
 * WHITEOUT.  Each call checks everything first and then changes the
 * directories in RAM only; the fs commits between calls, never inside
 * one (op.c), so a power cut leaves every name as it was before the call
 * or as it is after it.  Directories keep no ".." on flash (path.c), so
 * moving one changes no entry inside it, only the link counts of the
 * parents. */
#include "ops.h"

#include <errno.h>
#include <sys/stat.h>

/* A directory moves from one parent to another: its ".." link moves. */
static void move_parent_link(struct lfs_inode *in, struct lfs_inode *from,
                             struct lfs_inode *to)
{
    if (S_ISDIR(in->mode) && from != to) {
        from->nlink--;
        to->nlink++;
    }
}

static void touch(struct logfs *fs, struct lfs_inode *sdir, struct lfs_inode *tdir,
                  struct lfs_inode *a, struct lfs_inode *b)
{
    int64_t now = lfs_now(fs);
    sdir->mtime = sdir->ctime = tdir->mtime = tdir->ctime = a->ctime = now;
    lfs_inode_dirty(fs, sdir);
    lfs_inode_dirty(fs, tdir);
    lfs_inode_dirty(fs, a);
    if (b) {
        b->ctime = now;
        lfs_inode_dirty(fs, b);
    }
}

/* Swap the names s and t (both exist; a is s's inode). */
static int exchange(struct logfs *fs, const char *from, const char *to, struct lfs_path *s,
                    struct lfs_inode *a)
{
    struct lfs_path t;
    struct lfs_inode *b;
    int a_holds_b = 0, b_holds_a = 0;
    int rc = lfs_resolve_under(fs, to, &t, a->ino, &a_holds_b);
    if (!rc && !t.ino)
        rc = -ENOENT;
    if (!rc && !t.len)
        rc = -EBUSY;
    if (rc || t.ino == a->ino)
        return rc; /* one file under both names: nothing to swap */
    if ((rc = lfs_inode_get(fs, t.ino, &b)) ||
        (rc = lfs_resolve_under(fs, from, s, b->ino, &b_holds_a)))
        return rc;
    if ((S_ISDIR(a->mode) && a_holds_b) || (S_ISDIR(b->mode) && b_holds_a))
        return -EINVAL; /* a directory would move under itself */
    if ((rc = lfs_may_drop_name(s->dir, a)) || (rc = lfs_may_drop_name(t.dir, b)))
        return rc;
    if ((rc = lfs_space_check(fs, 2ull * fs->g.block_size)))
        return rc; /* may clean and commit: nothing is changed yet */
    /* all checks done: the rest lands in one commit */
    if ((rc = lfs_dir_remove(fs, s->dir, s->name, s->len)) ||
        (rc = lfs_dir_remove(fs, t.dir, t.name, t.len)) ||
        (rc = lfs_dir_add(fs, s->dir, s->name, s->len, b->ino, lfs_dtype_of(b->mode))) ||
        (rc = lfs_dir_add(fs, t.dir, t.name, t.len, a->ino, lfs_dtype_of(a->mode))))
        return rc;
    move_parent_link(a, s->dir, t.dir);
    move_parent_link(b, t.dir, s->dir);
    touch(fs, s->dir, t.dir, a, b);
    return 0;
}

/* Move s (inode in) to `to`, replacing what is there unless NOREPLACE,
 * and leave a whiteout at s when WHITEOUT. */
static int move(struct logfs *fs, const char *to, unsigned flags, struct lfs_path *s,
                struct lfs_inode *in)
{
    struct lfs_path t;
    struct lfs_inode *victim = NULL, *wh;
    int under = 0;
    int rc = lfs_resolve_under(fs, to, &t, in->ino, &under);
    if (!rc && !t.len)
        rc = -EBUSY;
    if (!rc && t.ino && (flags & FS_RENAME_NOREPLACE))
        rc = -EEXIST;
    if (rc || t.ino == in->ino)
        return rc; /* same file: nothing to do */
    if (S_ISDIR(in->mode) && under)
        rc = -EINVAL; /* a directory into itself */
    if (!rc && t.ino && !(rc = lfs_inode_get(fs, t.ino, &victim))) {
        if (S_ISDIR(in->mode) && !S_ISDIR(victim->mode))
            rc = -ENOTDIR;
        else if (!S_ISDIR(in->mode) && S_ISDIR(victim->mode))
            rc = -EISDIR;
        else if (S_ISDIR(victim->mode) && victim->size)
            rc = -ENOTEMPTY;
    }
    if (!rc)
        rc = lfs_may_drop_name(s->dir, in);
    if (!rc)
        rc = victim ? lfs_may_drop_name(t.dir, victim) : lfs_may_add_name(t.dir);
    /* the whiteout's inode: room for it before anything changes, so that
     * lfs_create below need not clean (a cleaning commit in between
     * would make the rename durable without it) */
    if (!rc && (flags & FS_RENAME_WHITEOUT))
        rc = lfs_space_check(fs, 2ull * fs->g.block_size);
    /* all checks done: the rest lands in one commit */
    if (!rc && victim)
        rc = lfs_drop_link(fs, t.dir, t.name, t.len, victim);
    if (!rc)
        rc = lfs_dir_remove(fs, s->dir, s->name, s->len);
    if (!rc)
        rc = lfs_dir_add(fs, t.dir, t.name, t.len, in->ino, lfs_dtype_of(in->mode));
    if (rc)
        return rc;
    move_parent_link(in, s->dir, t.dir);
    touch(fs, s->dir, t.dir, in, NULL);
    if (!(flags & FS_RENAME_WHITEOUT))
        return 0;
    s->ino = 0; /* the name is free again: a character device 0/0 there */
    if (!(rc = lfs_create(fs, s, S_IFCHR, &wh)))
        wh->rdev = 0;
    return rc;
}

static int rename_body(struct logfs *fs, const char *from, const char *to, unsigned flags)
{
    const unsigned all = FS_RENAME_NOREPLACE | FS_RENAME_EXCHANGE | FS_RENAME_WHITEOUT;
    struct lfs_path s;
    struct lfs_inode *in;
    if ((flags & ~all) || ((flags & FS_RENAME_EXCHANGE) && flags != FS_RENAME_EXCHANGE))
        return -EINVAL;
    int rc = lfs_cannot_write(fs) ? lfs_cannot_write(fs)
                                  : lfs_resolve_existing(fs, from, 0, &s, &in);
    if (!rc && !s.len)
        rc = -EBUSY;
    if (rc)
        return rc;
    return flags & FS_RENAME_EXCHANGE ? exchange(fs, from, to, &s, in)
                                      : move(fs, to, flags, &s, in);
}

int logfs_rename(logfs *fs, const char *from, const char *to)
{
    return logfs_rename2(fs, from, to, 0);
}

int logfs_rename2(logfs *fs, const char *from, const char *to, unsigned flags)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return (int)lfs_op_end(fs, rename_body(fs, from, to, flags));
}

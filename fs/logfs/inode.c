/*
 * inode.c -- inodes in memory.  Inode N is block N of the inode file; the
 * inode file's and the segment file's own inodes live in the anchor.
 * Loaded inodes stay in a hash table (memory counted) and are written by
 * the next commit when dirty; the dirty ones are also on a list, so that a
 * commit costs the inodes it writes, not all the loaded ones.
 */
#include "tree.h"

#include <errno.h>
#include <sys/stat.h>

static struct lfs_imem **slot_of(struct logfs *fs, uint64_t ino)
{
    uint64_t h = ino * 0x9e3779b97f4a7c15ULL;
    return &fs->itab[(h ^ (h >> 32)) & (fs->itab_size - 1)];
}

static struct lfs_imem *find(struct logfs *fs, uint64_t ino)
{
    if (!fs->itab_size)
        return NULL;
    struct lfs_imem *m = *slot_of(fs, ino);
    while (m && m->d.ino != ino)
        m = m->hnext;
    return m;
}

static void mark_dirty(struct logfs *fs, struct lfs_imem *m)
{
    if (!m->dirty) {
        m->dnext = fs->idirty;
        fs->idirty = m;
    }
    m->dirty = 1;
}

static int itab_grow(struct logfs *fs)
{
    uint64_t nsize = fs->itab_size ? fs->itab_size * 2 : 256;
    struct lfs_imem **old = fs->itab;
    uint64_t osize = fs->itab_size;
    fs->itab = lfs_zalloc(fs, nsize * sizeof *fs->itab);
    if (!fs->itab) {
        fs->itab = old;
        return -ENOMEM;
    }
    fs->itab_size = nsize;
    for (uint64_t i = 0; i < osize; i++) {
        struct lfs_imem *m = old[i], *next;
        for (; m; m = next) {
            next = m->hnext;
            struct lfs_imem **s = slot_of(fs, m->d.ino);
            m->hnext = *s;
            *s = m;
        }
    }
    lfs_free(fs, old, osize * sizeof *old);
    return 0;
}

static struct lfs_imem *insert(struct logfs *fs, const struct lfs_inode *d)
{
    if (fs->icount >= fs->itab_size && itab_grow(fs))
        return NULL;
    struct lfs_imem *m = lfs_zalloc(fs, sizeof *m);
    if (!m)
        return NULL;
    m->d = *d;
    struct lfs_imem **s = slot_of(fs, d->ino);
    m->hnext = *s;
    *s = m;
    fs->icount++;
    return m;
}

/* The inode, loaded from the inode file if needed; -ENOENT if it does not
 * exist. */
int lfs_inode_get(struct logfs *fs, uint64_t ino, struct lfs_inode **out)
{
    if (ino == LFS_INO_INODEFILE || ino == LFS_INO_SEGFILE) {
        *out = ino ? &fs->an.segfile : &fs->an.inodefile;
        return 0;
    }
    struct lfs_imem *m = find(fs, ino);
    if (!m) {
        struct lfs_node *n;
        int rc = lfs_tree_get(fs, &fs->an.inodefile, 0, ino, 0, &n);
        if (rc)
            return rc;
        if (!n)
            return -ENOENT;
        struct lfs_inode d;
        if (lfs_inode_decode(n->data, n->len, &d) || d.ino != ino)
            return -EIO;
        if (!(m = insert(fs, &d)))
            return -ENOMEM;
    }
    *out = &m->d;
    return 0;
}

/* A new inode with the next inode number (never reused). */
int lfs_inode_new(struct logfs *fs, uint32_t mode, struct lfs_inode **out)
{
    struct lfs_inode d = {0};
    d.ino = fs->an.next_ino;
    d.mode = mode;
    struct lfs_imem *m = insert(fs, &d);
    if (!m)
        return -ENOMEM;
    fs->an.next_ino++;
    mark_dirty(fs, m);
    *out = &m->d;
    return 0;
}

/* Insert an inode with a given number (mkfs's root directory). */
int lfs_inode_create_at(struct logfs *fs, const struct lfs_inode *d)
{
    struct lfs_imem *m = insert(fs, d);
    if (!m)
        return -ENOMEM;
    mark_dirty(fs, m);
    return 0;
}

void lfs_inode_dirty(struct logfs *fs, struct lfs_inode *in)
{
    if (in->ino != LFS_INO_INODEFILE && in->ino != LFS_INO_SEGFILE)
        mark_dirty(fs, lfs_imem_of(in));
}

struct lfs_imem *lfs_imem_of(struct lfs_inode *in)
{
    return (struct lfs_imem *)in; /* d is the first member */
}

/* Write a dirty inode into its block of the inode file, or remove it from
 * there (and forget it) when it has no link and no open file. */
static int flush_one(struct logfs *fs, struct lfs_imem *m)
{
    struct lfs_node *n;
    int rc;
    if (m->d.nlink == 0 && m->opens == 0) {
        if ((rc = lfs_tree_punch(fs, &fs->an.inodefile, m->d.ino)))
            return rc;
        struct lfs_imem **hp = slot_of(fs, m->d.ino);
        while (*hp != m)
            hp = &(*hp)->hnext;
        *hp = m->hnext;
        fs->icount--;
        lfs_free(fs, m, sizeof *m);
        return 0;
    }
    if ((rc = lfs_tree_get(fs, &fs->an.inodefile, 0, m->d.ino, 1, &n)))
        return rc;
    n->len = lfs_inode_encode(&m->d, n->data, fs->sb.read_version);
    lfs_node_dirty(fs, n);
    return 0;
}

/* Every dirty inode, off the list as it is written (so that what the
 * writes dirty is written too); on an error the rest stay dirty. */
int lfs_inode_flush(struct logfs *fs)
{
    while (fs->idirty) {
        struct lfs_imem *m = fs->idirty;
        fs->idirty = m->dnext;
        m->dirty = 0;
        int rc = flush_one(fs, m);
        if (rc) {
            mark_dirty(fs, m);
            return rc;
        }
    }
    return 0;
}

int lfs_inode_any_dirty(const struct logfs *fs)
{
    return fs->idirty != NULL;
}

/* An inode that lost its last link or its last open: once it has
 * neither, its blocks are freed and the next commit removes it. */
int lfs_inode_release(struct logfs *fs, struct lfs_inode *in)
{
    struct lfs_imem *m = lfs_imem_of(in);
    if (in->nlink || m->opens)
        return 0;
    mark_dirty(fs, m);
    in->size = 0;
    lfs_orphan_remove(fs, in->ino);
    int rc = lfs_xattr_drop(fs, in); /* in the same commit */
    return rc ? rc : lfs_file_free_from(fs, in, 0); /* data, or a directory's buckets */
}

void lfs_inode_free_all(struct logfs *fs)
{
    for (uint64_t i = 0; i < fs->itab_size; i++) {
        struct lfs_imem *m = fs->itab[i], *next;
        for (; m; m = next) {
            next = m->hnext;
            lfs_free(fs, m, sizeof *m);
        }
    }
    lfs_free(fs, fs->itab, fs->itab_size * sizeof *fs->itab);
    fs->itab = NULL;
    fs->itab_size = fs->icount = 0;
    fs->idirty = NULL;
}

/* Forget clean inodes that no file holds open, while more than `keep` are
 * in memory: they are read again from the inode file when needed.  Only
 * between calls, when no caller holds an inode pointer. */
void lfs_inode_trim(struct logfs *fs, uint64_t keep)
{
    /* A pass that left more than keep (open or dirty inodes) is not
     * repeated until the table grew by an eighth: with many files open
     * (65,536 O_TMPFILEs in xfstests' generic/531) a pass per call would
     * make each call linear in them.  What is kept stays within 9/8 of
     * what a pass could not drop. */
    if (fs->icount <= keep || fs->icount < fs->itrim_floor)
        return;
    for (uint64_t i = 0; i < fs->itab_size && fs->icount > keep; i++) {
        for (struct lfs_imem **pm = &fs->itab[i]; *pm && fs->icount > keep;) {
            struct lfs_imem *m = *pm;
            if (m->dirty || m->opens) {
                pm = &m->hnext;
                continue;
            }
            *pm = m->hnext;
            fs->icount--;
            lfs_free(fs, m, sizeof *m);
        }
    }
    fs->itrim_floor = fs->icount > keep ? fs->icount + fs->icount / 8 : 0;
}

/* "Now" for timestamps: the mount's clock, else simulated time plus the
 * epoch. */
int64_t lfs_now(struct logfs *fs)
{
    if (fs->clock)
        return fs->clock(fs->clock_ctx);
    return (int64_t)nand_now(fs->dev) + fs->epoch_ns;
}

/* An unlinked file still open is listed in the anchor, so that the mount
 * after a crash deletes it; when the list is full, the anchor asks that
 * mount to scan for them instead. */
void lfs_orphan_add(struct logfs *fs, uint64_t ino)
{
    if (fs->an.norphans < LFS_ORPHAN_MAX)
        fs->an.orphans[fs->an.norphans++] = ino;
    else
        fs->orphan_scan = 1;
}

void lfs_orphan_remove(struct logfs *fs, uint64_t ino)
{
    for (uint32_t i = 0; i < fs->an.norphans; i++)
        if (fs->an.orphans[i] == ino)
            fs->an.orphans[i] = fs->an.orphans[--fs->an.norphans];
}

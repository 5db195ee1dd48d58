/*
 * model_driver.h -- the random-operation driver the model tests share
 * (tests/logfs/test_lfs_model.c on LogFS's own calls, tests/fs/
 * test_fsapi_model.c on every fs of the fsapi table): the random source,
 * the names, the place an operation acts on, the data it writes, and what
 * the model of lfs_model.h says each namespace call must return and does
 * to the namespace.  The tests make the calls themselves.
 */
#ifndef FLASHLAB_MODEL_DRIVER_H
#define FLASHLAB_MODEL_DRIVER_H

#include "lfs_model.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *const md_names[] = {"a", "b", "c", "dir1", "dir2", "x", "longer-name", "z"};
#define MD_NNAMES (sizeof md_names / sizeof md_names[0])

static inline uint64_t md_rnd(uint64_t *rng)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return *rng;
}

/* A random existing directory: its path and model inode. */
static inline int md_pick_dir(const struct model *m, uint64_t *rng, char *path, size_t cap)
{
    int dir = 1;
    snprintf(path, cap, "%s", "");
    for (int depth = 0; depth < 3 && md_rnd(rng) % 2; depth++) {
        const struct m_inode *d = &m->in[dir];
        int subs[M_MAXENT], n = 0;
        for (int i = 0; i < d->nent; i++)
            if (m->in[d->ent[i].ino].type == M_DIR)
                subs[n++] = i;
        if (!n)
            break;
        int k = subs[md_rnd(rng) % (uint64_t)n];
        size_t l = strlen(path);
        snprintf(path + l, cap - l, "/%s", d->ent[k].name);
        dir = d->ent[k].ino;
    }
    return dir;
}

/* Where an operation acts: a random directory, a random name in it, and
 * what the model holds under that name. */
struct md_place {
    char dpath[200], path[256];
    const char *name;
    int dir, ino;
    enum m_type t;
};

static inline void md_pick(const struct model *m, uint64_t *rng, struct md_place *p)
{
    p->dir = md_pick_dir(m, rng, p->dpath, sizeof p->dpath);
    p->name = md_names[md_rnd(rng) % MD_NNAMES];
    snprintf(p->path, sizeof p->path, "%s/%s", p->dpath, p->name);
    p->ino = m_find(m, p->dir, p->name);
    p->t = p->ino ? m->in[p->ino].type : M_NONE;
}

/* n bytes from seed, some zero; compressible: runs of a 4-letter
 * alphabet, some random (data that compresses) */
static inline void md_fill(uint8_t *buf, size_t n, uint64_t seed, int compressible)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[i] = (uint8_t)(seed >> 59) ? (uint8_t)(seed >> 40) : 0;
        if (compressible && (seed >> 61) && i)
            buf[i] = (seed >> 58 & 7) ? buf[i - 1] : (uint8_t)("acgt"[seed >> 56 & 3]);
    }
}

/* A readdir callback: counts the entries of model directory dir and flags
 * one the model lacks or has with the other type. */
struct md_seen { const struct model *m; int dir, count, bad; };
static inline int md_on_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct md_seen *s = ctx;
    (void)ino;
    int mino = m_find(s->m, s->dir, name);
    s->count++;
    if (!mino || (type == S_IFDIR) != (s->m->in[mino].type == M_DIR))
        s->bad = 1;
    return 0;
}

/* The namespace calls: open(O_WRONLY | O_CREAT | O_NOFOLLOW) of a (its
 * result 0 for any fd), unlink, mkdir, rmdir of a; rename and link of a to
 * b; symlink at a. */
enum md_op { MD_CREATE, MD_UNLINK, MD_MKDIR, MD_RMDIR, MD_RENAME, MD_LINK, MD_SYMLINK };
#define MD_ANY 1 /* the model does not say: the directory has no room */

/* What op must return by the model: 0, a negative errno, or MD_ANY.
 * *adds: the call adds data (a full device may refuse it). */
static inline int md_expect(const struct model *m, enum md_op op, const struct md_place *a,
                            const struct md_place *b, int *adds)
{
    int room = m->in[a->dir].nent < M_MAXENT;
    *adds = 0;
    switch (op) {
    case MD_CREATE:
        if (a->t == M_NONE)
            return room ? (*adds = 1, 0) : MD_ANY;
        return a->t == M_DIR ? -EISDIR : a->t == M_LINK ? -ELOOP : 0;
    case MD_UNLINK:
        if (a->t == M_FILE || a->t == M_LINK)
            return 0;
        return a->t == M_DIR ? -EISDIR : -ENOENT;
    case MD_MKDIR:
    case MD_SYMLINK:
        if (a->t != M_NONE)
            return -EEXIST;
        return room ? (*adds = 1, 0) : MD_ANY;
    case MD_RMDIR:
        if (a->t == M_DIR)
            return m->in[a->ino].nent ? -ENOTEMPTY : 0;
        return a->t == M_NONE ? -ENOENT : -ENOTDIR;
    case MD_RENAME: {
        if (a->t == M_NONE)
            return -ENOENT;
        size_t l = strlen(a->path); /* would a directory move into itself? */
        int inside = a->t == M_DIR && !strncmp(b->path, a->path, l) &&
                     (b->path[l] == '/' || b->path[l] == 0);
        if (b->ino == a->ino)
            return 0;
        if (inside)
            return -EINVAL;
        if (b->t != M_NONE && a->t == M_DIR && b->t != M_DIR)
            return -ENOTDIR;
        if (b->t == M_DIR && a->t != M_DIR)
            return -EISDIR;
        if (b->t == M_DIR && m->in[b->ino].nent)
            return -ENOTEMPTY;
        if (b->t == M_NONE && m->in[b->dir].nent >= M_MAXENT)
            return MD_ANY;
        *adds = 1;
        return 0;
    }
    case MD_LINK:
        if (a->t == M_NONE)
            return -ENOENT;
        if (a->t == M_DIR)
            return -EPERM;
        if (b->ino)
            return -EEXIST;
        return m->in[b->dir].nent < M_MAXENT ? (*adds = 1, 0) : MD_ANY;
    }
    return MD_ANY;
}

/* Drops a link of ino (NULL: m_unref); a test that keeps files open
 * keeps their content in the model. */
typedef void (*md_unref_fn)(void *ctx, struct model *m, int ino);

static inline void md_unref(struct model *m, int ino, md_unref_fn unref, void *ctx)
{
    if (unref)
        unref(ctx, m, ino);
    else
        m_unref(m, ino);
}

/* The model after op succeeded (target: the symlink's). */
static inline void md_apply(struct model *m, enum md_op op, const struct md_place *a,
                            const struct md_place *b, const char *target, md_unref_fn unref,
                            void *ctx)
{
    switch (op) {
    case MD_CREATE:
        if (a->t == M_NONE)
            m_add(m, a->dir, a->name, m_new(m, M_FILE));
        break;
    case MD_UNLINK:
        m_del(m, a->dir, a->name);
        md_unref(m, a->ino, unref, ctx);
        break;
    case MD_MKDIR:
        m_add(m, a->dir, a->name, m_new(m, M_DIR));
        m->in[a->dir].nlink++;
        break;
    case MD_RMDIR:
        m_del(m, a->dir, a->name);
        m_unref(m, a->ino);
        m->in[a->dir].nlink--;
        break;
    case MD_RENAME:
        if (b->ino == a->ino)
            break;
        if (b->t != M_NONE) {
            m_del(m, b->dir, b->name);
            if (b->t == M_DIR)
                m->in[b->dir].nlink--;
            md_unref(m, b->ino, unref, ctx);
        }
        m_del(m, a->dir, a->name);
        m_add(m, b->dir, b->name, a->ino);
        if (a->t == M_DIR && a->dir != b->dir) {
            m->in[a->dir].nlink--;
            m->in[b->dir].nlink++;
        }
        break;
    case MD_LINK:
        m_add(m, b->dir, b->name, a->ino);
        m->in[a->ino].nlink++;
        break;
    case MD_SYMLINK: {
        int li = m_new(m, M_LINK);
        m_write(&m->in[li], target, strlen(target), 0);
        m_add(m, a->dir, a->name, li);
        break;
    }
    }
}

#define MD_FULL 2 /* md_step: refused with ENOSPC, as a full device may */

/* Check rc, what op returned, against the model, and on success make the
 * model follow.  full: -ENOSPC passes where the call adds data.  0 (or
 * MD_FULL) when rc is right, -1 when it is wrong. */
static inline int md_step(struct model *m, enum md_op op, const struct md_place *a,
                          const struct md_place *b, const char *target, int rc, int full,
                          md_unref_fn unref, void *ctx)
{
    int adds, want = md_expect(m, op, a, b, &adds);
    if (want == MD_ANY)
        return 0;
    if (rc == want) {
        if (!rc)
            md_apply(m, op, a, b, target, unref, ctx);
        return 0;
    }
    return full && adds && rc == -ENOSPC ? MD_FULL : -1;
}

#endif

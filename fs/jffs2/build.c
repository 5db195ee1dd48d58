/* build.c -- mount's second half: from the nodes found (by scan or
 * summary) to the maps.  Inode nodes are replayed per inode in version
 * order (newest data wins, each node's size truncates); dirents keep the
 * newest per name; then a walk from the root counts links, and whatever it
 * does not reach is garbage. */
#include "jffs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int by_ino_version(const void *a, const void *b)
{
    const struct jffs_rec *x = *(const struct jffs_rec *const *)a;
    const struct jffs_rec *y = *(const struct jffs_rec *const *)b;
    if (x->ri.ino != y->ri.ino)
        return x->ri.ino < y->ri.ino ? -1 : 1;
    if (x->ri.version != y->ri.version)
        return x->ri.version < y->ri.version ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Inode nodes, per inode in version order.  An inode any of whose nodes
 * is known from a summary only is left lazy as a whole (its nodes are
 * read and replayed in order at first use); the others are replayed now. */
static int replay_inodes(struct jffs *fs, struct jffs_recs *rs)
{
    uint32_t n = 0;
    struct jffs_rec **v = malloc(((size_t)rs->n + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    for (uint32_t i = 0; i < rs->n; i++)
        if (rs->v[i].kind == 1 || rs->v[i].kind == 3)
            v[n++] = &rs->v[i];
    qsort(v, n, sizeof *v, by_ino_version);
    int rc = 0, lazy = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        const struct jffs_raw_inode *ri = &v[i]->ri;
        if (!i || v[i - 1]->ri.ino != ri->ino) { /* a new inode: any lazy node? */
            lazy = 0;
            for (uint32_t k = i; k < n && v[k]->ri.ino == ri->ino && !lazy; k++)
                lazy = v[k]->kind == 3;
        }
        if (i && v[i - 1]->ri.ino == ri->ino && v[i - 1]->ri.version == ri->version)
            continue; /* a GC copy whose original was not erased yet */
        if (ri->version >= fs->next_version)
            fs->next_version = (uint64_t)ri->version + 1;
        struct jffs_inode *in = jffs_inode_make(fs, ri->ino);
        struct jffs_node *nd = in ? jffs_node_new(fs, v[i]->addr, v[i]->len, ri) : NULL;
        if (!nd) {
            rc = -ENOMEM;
            break;
        }
        if (lazy) {
            nd->lazy = 1;
            if (jffs_grow(fs, (void **)&in->lazy, &in->caplazy, in->nlazy + 1, sizeof *in->lazy)) {
                jffs_ref_drop(fs, &nd->r);
                jffs_free(fs, nd, sizeof *nd);
                rc = -ENOMEM;
                break;
            }
            in->lazy[in->nlazy++] = nd;
            continue;
        }
        rc = jffs_replay_node(fs, in, nd, ri);
    }
    free(v);
    return rc;
}

static int put_dirents(struct jffs *fs, struct jffs_recs *rs)
{
    for (uint32_t i = 0; i < rs->n; i++) {
        if (rs->v[i].kind != 2)
            continue;
        const struct jffs_raw_dirent *rd = rs->v[i].rd;
        if (rd->version >= fs->next_version)
            fs->next_version = rd->version + 1;
        if (rd->ino >= fs->next_ino && rd->ino < UINT32_MAX)
            fs->next_ino = rd->ino + 1; /* never reuse a number flash mentions */
        struct jffs_inode *dir = jffs_inode_make(fs, rd->pino);
        if (!dir)
            return -ENOMEM;
        struct jffs_dent *e = jffs_dir_find(dir, rd->name, rd->nsize), *d;
        if (e && rd->version <= e->version) {
            if (rd->version < e->version)
                e->pending += rd->ino != 0; /* older, still on flash */
            continue;
        }
        if (!(d = jffs_dent_new(fs, rs->v[i].addr, rs->v[i].len, rd)))
            return -ENOMEM;
        if (e) {
            d->pending = e->pending + (e->ino != 0);
            for (uint32_t k = 0; k < dir->nent; k++)
                if (dir->ents[k] == e)
                    dir->ents[k] = d;
            jffs_dent_free(fs, e);
            continue;
        }
        if (jffs_grow(fs, (void **)&dir->ents, &dir->capent, dir->nent + 1, sizeof *dir->ents)) {
            jffs_dent_free(fs, d);
            return -ENOMEM;
        }
        dir->ents[dir->nent++] = d;
    }
    return 0;
}

/* Whether in has nodes (read or lazy): a dirent naming anything else
 * dangles. */
static int has_nodes(const struct jffs_inode *in)
{
    return in && (in->meta || in->nlazy);
}

/* Link counts from the dirents of reachable directories.  Directories are
 * read now (few nodes each); other lazy inodes stay lazy, typed by their
 * dirents.  A root no node describes is made up, as Linux does for
 * mkfs.jffs2's images, which have none. */
static int walk(struct jffs *fs)
{
    struct jffs_inode *root = jffs_inode_make(fs, JFFS_INO_ROOT);
    if (!root)
        return -ENOMEM;
    if (root->nlazy)
        jffs_inode_load(fs, root);
    if (!root->meta) {
        root->mode = S_IFDIR | 0755;
    } else if (!S_ISDIR(root->mode)) {
        return -EINVAL; /* not a file system of ours */
    }
    for (uint32_t i = 0; i < fs->capino; i++) {
        struct jffs_inode *d = fs->inodes[i];
        for (uint32_t k = 0; d && k < d->nent; k++) {
            struct jffs_dent *e = d->ents[k];
            if (!e->ino)
                continue;
            struct jffs_inode *t = jffs_inode_peek(fs, e->ino);
            if (t && t->nlazy && e->type == (S_IFDIR >> 12))
                jffs_inode_load(fs, t);
        }
    }
    for (uint32_t i = 0; i < fs->capino; i++) {
        struct jffs_inode *d = fs->inodes[i];
        for (uint32_t k = 0; d && k < d->nent; k++) {
            struct jffs_dent *e = d->ents[k];
            if (!e->ino) {
                if (!e->pending) { /* a deletion with nothing left to delete */
                    d->ents[k--] = d->ents[--d->nent];
                    jffs_dent_free(fs, e);
                }
                continue;
            }
            struct jffs_inode *t = jffs_inode_peek(fs, e->ino);
            if (t && t->meta && S_ISDIR(t->mode) && e->version > t->best)
                t->best = e->version;
        }
    }
    uint32_t *q = malloc(((size_t)fs->capino + 1) * sizeof *q), qh = 0, qt = 0;
    if (!q)
        return -ENOMEM;
    root->reached = 1;
    root->nlink = 2;
    q[qt++] = JFFS_INO_ROOT;
    while (qh < qt) {
        struct jffs_inode *d = fs->inodes[q[qh++]];
        for (uint32_t k = 0; k < d->nent; k++) {
            struct jffs_dent *e = d->ents[k];
            if (!e->ino)
                continue;
            struct jffs_inode *t = jffs_inode_peek(fs, e->ino);
            if (t && !t->meta && t->nlazy)
                t->mode = (uint32_t)(e->type == (S_IFDIR >> 12) ? 0 : e->type) << 12;
            if (!has_nodes(t) || (S_ISDIR(t->mode) && (t->reached || e->version != t->best))) {
                e->hidden = 1; /* dangling, or a directory's second name */
                continue;
            }
            d->nreal++;
            if (S_ISDIR(t->mode)) {
                t->reached = 1;
                t->nlink = 2;
                d->nlink++;
                q[qt++] = t->ino;
            } else {
                t->reached = 1;
                t->nlink++;
            }
        }
    }
    free(q);
    for (uint32_t i = 0; i < fs->capino; i++)
        if (fs->inodes[i] && !fs->inodes[i]->reached)
            jffs_inode_free(fs, fs->inodes[i]); /* unlinked: its nodes are garbage */
    return 0;
}

int jffs_build(struct jffs *fs, struct jffs_recs *rs)
{
    int rc = rs->n ? replay_inodes(fs, rs) : -EINVAL; /* no node at all: not JFFS2 */
    if (!rc)
        rc = put_dirents(fs, rs);
    if (!rc)
        rc = walk(fs);
    for (uint32_t i = 0; i < rs->n; i++)
        free(rs->v[i].rd);
    free(rs->v);
    rs->v = NULL;
    rs->n = rs->cap = 0;
    return rc;
}

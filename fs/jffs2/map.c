/* map.c -- the in-RAM maps: counted memory, live refs per erase block,
 * the inode table, per-inode fragment lists and directory tables. */
#include "jffs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory: every allocation counted, for mem_bytes ---------------- */
void *jffs_alloc(struct jffs *fs, size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (p)
        fs->mem += n;
    return p;
}

void jffs_free(struct jffs *fs, void *p, size_t n)
{
    if (p) {
        fs->mem -= n;
        free(p);
    }
}

int jffs_grow(struct jffs *fs, void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t n = *cap ? *cap : 8;
    while (n < need)
        n *= 2;
    void *v = jffs_alloc(fs, (size_t)n * elem);
    if (!v)
        return -ENOMEM;
    if (*cap)
        memcpy(v, *arr, (size_t)*cap * elem);
    jffs_free(fs, *arr, (size_t)*cap * elem);
    *arr = v;
    *cap = n;
    return 0;
}

/* ---- refs: what is live in each erase block ------------------------- */
void jffs_ref_add(struct jffs *fs, struct jffs_ref *r, uint64_t addr, uint32_t len)
{
    struct jffs_block *b = &fs->blk[addr / fs->bs];
    r->addr = addr;
    r->len = JFFS_ALIGN(len);
    r->next = b->list.next;
    r->prev = &b->list;
    b->list.next->prev = r;
    b->list.next = r;
    b->live += r->len;
    fs->live_bytes += r->len;
    fs->live_sum += 4 + (r->len < JFFS_INODE_HDR ? r->len : JFFS_INODE_HDR);
}

void jffs_ref_drop(struct jffs *fs, struct jffs_ref *r)
{
    if (!r->next)
        return;
    r->prev->next = r->next;
    r->next->prev = r->prev;
    r->next = r->prev = NULL;
    fs->blk[r->addr / fs->bs].live -= r->len;
    fs->live_bytes -= r->len;
    fs->live_sum -= 4 + (r->len < JFFS_INODE_HDR ? r->len : JFFS_INODE_HDR);
}

/* ---- inodes --------------------------------------------------------- */
struct jffs_inode *jffs_inode_peek(struct jffs *fs, uint32_t ino)
{
    return ino < fs->capino ? fs->inodes[ino] : NULL;
}

struct jffs_inode *jffs_inode_get(struct jffs *fs, uint32_t ino)
{
    struct jffs_inode *in = jffs_inode_peek(fs, ino);
    if (in && in->nlazy)
        jffs_inode_load(fs, in); /* a node that does not check is dropped */
    return in;
}

/* Replay one inode node, newer than all before it: its attributes, its
 * data range, and its size truncating what lies beyond. */
int jffs_replay_node(struct jffs *fs, struct jffs_inode *in, struct jffs_node *n,
                     const struct jffs_raw_inode *ri)
{
    in->mode = ri->mode;
    in->uid = ri->uid;
    in->gid = ri->gid;
    in->size = ri->isize;
    in->atime = ri->atime;
    in->mtime = ri->mtime;
    in->ctime = ri->ctime;
    /* meta first: a node whose data lies beyond its own size (damage)
     * loses its fragments to the truncation but must stay */
    jffs_set_meta(fs, in, n);
    int rc = jffs_frag_insert(fs, in, n);
    jffs_frag_truncate(fs, in, ri->isize);
    return rc;
}

/* The headers of nodes known from summaries only, read now (JFFS2 reads
 * an inode's nodes at iget).  One that does not check, or is not the node
 * the summary said, is garbage, as a scan would have found it. */
int jffs_inode_load(struct jffs *fs, struct jffs_inode *in)
{
    uint8_t h[JFFS_INODE_HDR];
    int rc = 0;
    uint32_t n = in->nlazy;
    struct jffs_node **v = in->lazy;
    in->lazy = NULL;
    in->nlazy = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct jffs_node *nd = v[i];
        struct jffs_raw_inode ri;
        uint16_t type;
        uint32_t totlen;
        int err = jffs_read_bytes(fs, nd->r.addr, h, sizeof h);
        if (err) {
            rc = err;
        } else if (jffs_decode_hdr(h, 0, &type, &totlen) || type != JFFS_T_INODE ||
                   jffs_decode_inode(h, 0, &ri) || ri.ino != in->ino ||
                   ri.version != nd->version || JFFS_ALIGN(totlen) != nd->r.len) {
            err = -EINVAL;
        }
        if (err) {
            jffs_ref_drop(fs, &nd->r);
            jffs_free(fs, nd, sizeof *nd);
            continue;
        }
        fs->work.bytes_checksummed += 68;
        nd->lazy = 0;
        nd->doff = ri.doff;
        nd->dsize = ri.dsize;
        nd->csize = ri.csize;
        nd->dcrc = ri.dcrc;
        nd->compr = ri.compr;
        nd->hole = ri.compr == JFFS_COMPR_ZERO;
        int r2 = jffs_replay_node(fs, in, nd, &ri);
        if (r2 && !rc)
            rc = r2;
    }
    jffs_free(fs, v, (size_t)in->caplazy * sizeof *v);
    in->caplazy = 0;
    return rc;
}

struct jffs_inode *jffs_inode_make(struct jffs *fs, uint32_t ino)
{
    struct jffs_inode *in = jffs_inode_peek(fs, ino); /* mount: leave it lazy */
    if (in)
        return in;
    if (jffs_grow(fs, (void **)&fs->inodes, &fs->capino, ino + 1, sizeof *fs->inodes))
        return NULL;
    if (!(in = jffs_alloc(fs, sizeof *in)))
        return NULL;
    in->ino = ino;
    fs->inodes[ino] = in;
    if (ino >= fs->next_ino)
        fs->next_ino = ino + 1;
    return in;
}

static void node_release(struct jffs *fs, struct jffs_inode *in, struct jffs_node *n)
{
    if (n && !n->nfrags && in->meta != n) {
        jffs_ref_drop(fs, &n->r);
        if (fs->rnode == n)
            fs->rnode = NULL;
        jffs_free(fs, n, sizeof *n);
    }
}

void jffs_dent_free(struct jffs *fs, struct jffs_dent *d)
{
    jffs_ref_drop(fs, &d->r);
    jffs_free(fs, d->name, (size_t)d->nlen + 1);
    jffs_free(fs, d, sizeof *d);
}

/* Everything of in leaves RAM; its nodes become garbage on flash. */
void jffs_inode_free(struct jffs *fs, struct jffs_inode *in)
{
    for (uint32_t i = 0; i < in->nlazy; i++) {
        jffs_ref_drop(fs, &in->lazy[i]->r);
        jffs_free(fs, in->lazy[i], sizeof *in->lazy[i]);
    }
    jffs_free(fs, in->lazy, (size_t)in->caplazy * sizeof *in->lazy);
    jffs_frag_truncate(fs, in, 0);
    struct jffs_node *m = in->meta;
    in->meta = NULL;
    node_release(fs, in, m);
    for (uint32_t i = 0; i < in->nent; i++)
        jffs_dent_free(fs, in->ents[i]);
    jffs_free(fs, in->ents, (size_t)in->capent * sizeof *in->ents);
    jffs_free(fs, in->frags, (size_t)in->capfrag * sizeof *in->frags);
    fs->inodes[in->ino] = NULL;
    jffs_free(fs, in, sizeof *in);
}

struct jffs_node *jffs_node_new(struct jffs *fs, uint64_t addr, uint32_t len,
                                const struct jffs_raw_inode *ri)
{
    struct jffs_node *n = jffs_alloc(fs, sizeof *n);
    if (!n)
        return NULL;
    n->version = ri->version;
    n->doff = ri->doff;
    n->dsize = ri->dsize;
    n->dcrc = ri->dcrc;
    n->csize = ri->csize;
    n->compr = ri->compr;
    n->hole = ri->compr == JFFS_COMPR_ZERO;
    jffs_ref_add(fs, &n->r, addr, len);
    return n;
}

void jffs_set_meta(struct jffs *fs, struct jffs_inode *in, struct jffs_node *n)
{
    struct jffs_node *old = in->meta;
    in->meta = n;
    if (old != n)
        node_release(fs, in, old);
}

/* ---- fragments: file ranges -> the newest node covering them -------- */

/* first fragment ending after off */
static uint32_t frag_first(const struct jffs_inode *in, uint64_t off)
{
    uint32_t lo = 0, hi = in->nfrag;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (in->frags[mid].off + in->frags[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Replace the coverage of [s, e) by fragment nf (nf.n NULL: nothing). */
static int frag_replace(struct jffs *fs, struct jffs_inode *in, uint64_t s, uint64_t e,
                        struct jffs_node *nn)
{
    uint32_t i = frag_first(in, s), j = i;
    while (j < in->nfrag && in->frags[j].off < e)
        j++;
    struct jffs_frag left = {0}, right = {0}, mid = {s, e - s, nn};
    int hl = 0, hr = 0;
    if (i < j && in->frags[i].off < s) {
        left = in->frags[i];
        left.len = s - left.off;
        hl = 1;
    }
    if (i < j && in->frags[j - 1].off + in->frags[j - 1].len > e) {
        right = in->frags[j - 1];
        right.len = right.off + right.len - e;
        right.off = e;
        hr = 1;
    }
    uint32_t add = (uint32_t)hl + (uint32_t)hr + (nn != NULL);
    if (add > j - i &&
        jffs_grow(fs, (void **)&in->frags, &in->capfrag, in->nfrag + add - (j - i),
                  sizeof *in->frags))
        return -ENOMEM;
    /* references: take the new ones before dropping the old */
    if (hl)
        left.n->nfrags++;
    if (hr)
        right.n->nfrags++;
    if (nn)
        nn->nfrags++;
    for (uint32_t k = i; k < j; k++) {
        struct jffs_node *n = in->frags[k].n;
        n->nfrags--;
        node_release(fs, in, n);
    }
    memmove(in->frags + i + add, in->frags + j, (size_t)(in->nfrag - j) * sizeof *in->frags);
    in->nfrag = in->nfrag - (j - i) + add;
    uint32_t k = i;
    if (hl)
        in->frags[k++] = left;
    if (nn)
        in->frags[k++] = mid;
    if (hr)
        in->frags[k++] = right;
    return 0;
}

int jffs_frag_insert(struct jffs *fs, struct jffs_inode *in, struct jffs_node *n)
{
    if (!n->dsize)
        return 0;
    return frag_replace(fs, in, n->doff, n->doff + n->dsize, n);
}

void jffs_frag_truncate(struct jffs *fs, struct jffs_inode *in, uint64_t size)
{
    if (in->nfrag) {
        struct jffs_frag *l = &in->frags[in->nfrag - 1];
        if (l->off + l->len > size)
            frag_replace(fs, in, size, l->off + l->len, NULL); /* only shrinks */
    }
}

/* ---- directories ---------------------------------------------------- */
struct jffs_dent *jffs_dir_find(struct jffs_inode *dir, const char *name, size_t len)
{
    for (uint32_t i = 0; i < dir->nent; i++) {
        struct jffs_dent *d = dir->ents[i];
        if (d->nlen == len && !memcmp(d->name, name, len))
            return d;
    }
    return NULL;
}

struct jffs_dent *jffs_dent_new(struct jffs *fs, uint64_t addr, uint32_t len,
                                const struct jffs_raw_dirent *rd)
{
    struct jffs_dent *d = jffs_alloc(fs, sizeof *d);
    if (!d || !(d->name = jffs_alloc(fs, (size_t)rd->nsize + 1))) {
        jffs_free(fs, d, sizeof *d);
        return NULL;
    }
    memcpy(d->name, rd->name, rd->nsize);
    d->nlen = rd->nsize;
    d->version = rd->version;
    d->ino = rd->ino;
    d->type = rd->type;
    jffs_ref_add(fs, &d->r, addr, len);
    return d;
}

static int visible(const struct jffs_dent *d) { return d->ino && !d->hidden; }

void jffs_dir_remove(struct jffs *fs, struct jffs_inode *dir, struct jffs_dent *d)
{
    for (uint32_t i = 0; i < dir->nent; i++)
        if (dir->ents[i] == d) {
            dir->ents[i] = dir->ents[--dir->nent];
            break;
        }
    if (visible(d))
        dir->nreal--;
    jffs_dent_free(fs, d);
}

/* d is newer than any dirent of its name: it supersedes the entry, and an
 * older real dirent left on flash keeps a later deletion alive. */
int jffs_dir_put(struct jffs *fs, struct jffs_inode *dir, struct jffs_dent *d)
{
    struct jffs_dent *e = jffs_dir_find(dir, d->name, d->nlen);
    if (e) {
        d->pending = e->pending + (e->ino != 0);
        jffs_dir_remove(fs, dir, e);
    }
    if (!d->ino && !d->pending) { /* nothing to delete on flash */
        jffs_dent_free(fs, d);
        return 0;
    }
    if (jffs_grow(fs, (void **)&dir->ents, &dir->capent, dir->nent + 1, sizeof *dir->ents)) {
        jffs_dent_free(fs, d);
        return -ENOMEM;
    }
    dir->ents[dir->nent++] = d;
    if (visible(d))
        dir->nreal++;
    return 0;
}

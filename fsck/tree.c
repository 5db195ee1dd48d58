/* tree.c -- walking one file's tree (FORMAT.md section 10): direct
 * pointers, then the indirect tree of height h under `indirect`, every
 * object checked against the place it hangs from.  Level-0 blocks go to a
 * callback with their payload. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdlib.h>

struct walk {
    struct fk *k;
    int cls;
    uint64_t ino;
    fk_leaf_fn leaf;
    void *ctx;
    int *complete;
    int prealloc_ok;    /* a regular file of version 6: section 4 */
};

uint64_t fk_tree_cap(const struct fk *k, unsigned h)
{
    uint64_t cap = 1;
    for (unsigned i = 0; i < h; i++) {
        if (cap > UINT64_MAX / k->P)
            return UINT64_MAX;
        cap *= k->P;
    }
    return cap > UINT64_MAX - FK_NDIRECT ? UINT64_MAX : cap + FK_NDIRECT;
}

static int leaf_at(struct walk *w, uint64_t bix, uint64_t p)
{
    struct fk *k = w->k;
    uint32_t len;
    k->walk_blocks++;
    if (w->prealloc_ok && p == FK_PREALLOC(k->bs)) {
        /* allocated, never written: no object, no segment; it reads as
         * zeros, so it may lie past the end (fallocate's KEEP_SIZE) */
        k->walk_prealloc++;
        k->prealloc_bytes += p & 0xffff;
        return 0;
    }
    if (fk_ptr_check(k, p, w->cls, w->ino, 0, bix) ||
        fk_obj_load(k, p, w->cls, w->ino, 0, bix, &len))
        return k->fatal ? -1 : w->leaf(k, w->ctx, bix, p, NULL, 0);
    return w->leaf(k, w->ctx, bix, p, k->obj + FK_HDR, len);
}

/* Indirect node (level, n) at pointer p, and everything under it. */
static int node(struct walk *w, uint8_t level, uint64_t n, uint64_t p)
{
    struct fk *k = w->k;
    char where[96];
    uint32_t len;
    if (fk_ptr_check(k, p, w->cls, w->ino, level, n) ||
        fk_obj_load(k, p, w->cls, w->ino, level, n, &len)) {
        *w->complete = 0;
        return k->fatal ? -1 : 0;
    }
    fk_place(where, sizeof where, w->cls, w->ino, level, n);
    if (len != k->bs) { /* section 9.2: exactly block_size, never trimmed */
        fk_err_at(k, FSCK_K_TREE, p >> 16, w->cls ? FSCK_NONE : (int64_t)w->ino,
                  "indirect block of %u bytes, not %u (%s)", len, k->bs, where);
        *w->complete = 0;
        return 0;
    }
    uint8_t *buf = malloc(k->bs); /* k->obj is reused below */
    if (!buf) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    memcpy(buf, k->obj + FK_HDR, k->bs);
    if (fk_all(buf, k->bs, 0)) {
        char at[96];
        fk_where(k, p >> 16, at, sizeof at);
        fk_msg(k, FSCK_WARNING, FSCK_K_TREE, (int64_t)((p >> 16) / k->seg_bytes),
               FSCK_NONE, w->cls ? FSCK_NONE : (int64_t)w->ino,
               "%s: indirect block with every slot 0 was written (%s)", at, where);
    }
    int rc = 0;
    for (uint32_t s = 0; s < k->P && !rc; s++) {
        uint64_t c = le64_get(buf + 8 * s), child = n * k->P + s;
        if (!c)
            continue;
        rc = level == 1 ? leaf_at(w, FK_NDIRECT + child, c)
                        : node(w, (uint8_t)(level - 1), child, c);
    }
    free(buf);
    return rc;
}

int fk_walk(struct fk *k, int cls, uint64_t ino, const struct fk_inode *in,
            fk_leaf_fn leaf, void *ctx, int *complete)
{
    struct walk w = {k, cls, ino, leaf, ctx, complete,
                     cls == FK_CLS_FILE && (in->mode & FK_IFMT) == FK_IFREG &&
                         k->ver >= FK_VERSION};
    k->walk_blocks = k->walk_prealloc = 0;
    uint64_t direct[FK_NDIRECT], top = in->indirect; /* in may move */
    uint8_t height = in->height;
    memcpy(direct, in->direct, sizeof direct);
    for (unsigned i = 0; i < FK_NDIRECT; i++)
        if (direct[i] && leaf_at(&w, i, direct[i]))
            return -1;
    if (!top)
        return 0;
    if (height == 0 || height > FK_MAX_HEIGHT) {
        char where[96];
        fk_place(where, sizeof where, cls, ino, 0, 0);
        fk_msg(k, FSCK_ERROR, FSCK_K_TREE, FSCK_NONE, FSCK_NONE,
               cls ? FSCK_NONE : (int64_t)ino,
               "%s: indirect pointer 0x%016" PRIx64 " with height %u: not "
               "followed", where, top, height);
        *complete = 0;
        return 0;
    }
    return node(&w, height, 0, top);
}

void fk_check_blocks(struct fk *k, const struct fk_inode *in, int64_t ino)
{
    if (k->ver < FK_VERSION || in->blocks == k->walk_blocks)
        return;
    const char *meta = ino == FSCK_NONE ? (in->ino ? "segment file" : "inode file") : NULL;
    char who[48];
    if (meta)
        snprintf(who, sizeof who, "%s", meta);
    else
        snprintf(who, sizeof who, "inode %" PRIu64, in->ino);
    fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, ino,
           "%s: blocks %" PRIu64 " in its record, its tree has %" PRIu64
           " (%" PRIu64 " preallocated)", who, in->blocks, k->walk_blocks,
           k->walk_prealloc);
}

/*
 * tree.c -- the wandering tree of one file.
 *
 * Level-0 blocks are the file's blocks: block b < 16 hangs from the
 * inode's direct pointers, the others (j = b - 16) from a tree of height h
 * under the inode's indirect pointer, P = block_size / 8 pointers per
 * indirect block.  A level-L node (L >= 1) has index n = j / P^L; its
 * parent is node (L + 1, n / P), slot n % P, or the inode itself when
 * L == h.  Nodes are looked up in the cache and read from flash on a miss;
 * parents are never changed here except by lfs_tree_set_parent (commit)
 * and lfs_tree_punch.
 */
#include "tree.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* Height a tree needs so that level-0 block bix fits. */
static unsigned height_for(const struct logfs *fs, uint64_t bix)
{
    if (bix < LFS_NDIRECT)
        return 0;
    uint64_t j = bix - LFS_NDIRECT, cap = fs->ptrs_per_block;
    unsigned h = 1;
    while (j >= cap && h < LFS_MAX_HEIGHT + 1) {
        cap *= fs->ptrs_per_block;
        h++;
    }
    return h;
}

/* Where the pointer to node (level, n) lives: in the inode (*slot_in),
 * or in slot *slot of the parent node (level + 1, *pn). */
static void parent_of(const struct logfs *fs, const struct lfs_inode *in,
                      uint8_t level, uint64_t n, lfs_ptr **slot_in,
                      uint64_t *pn, uint32_t *slot)
{
    *slot_in = NULL;
    if (level == 0) {
        if (n < LFS_NDIRECT) {
            *slot_in = (lfs_ptr *)&in->direct[n];
            return;
        }
        n -= LFS_NDIRECT;
    }
    if (level >= 1 && level == in->height) {
        *slot_in = (lfs_ptr *)&in->indirect;
        return;
    }
    *pn = n / fs->ptrs_per_block;
    *slot = (uint32_t)(n % fs->ptrs_per_block);
}

/* Grow the tree so that block bix fits: a new top node takes the old
 * top as its slot 0. */
static int grow(struct logfs *fs, struct lfs_inode *in, uint64_t bix)
{
    unsigned need = height_for(fs, bix);
    if (need > LFS_MAX_HEIGHT)
        return -EFBIG;
    while (in->height < need) {
        struct lfs_node *top = lfs_cache_add(fs, in->ino, (uint8_t)(in->height + 1), 0, 1);
        if (!top)
            return -ENOMEM;
        top->len = fs->g.block_size;
        le64_put(top->data, in->indirect);
        in->indirect = LFS_PTR_PENDING;
        in->height++;
        lfs_node_dirty(fs, top);
        lfs_inode_dirty(fs, in);
    }
    return 0;
}

static uint8_t node_type(uint64_t ino, uint8_t level)
{
    if (level)
        return LFS_OBJ_INDIRECT;
    return ino == LFS_INO_INODEFILE ? LFS_OBJ_INODE : LFS_OBJ_DATA;
}

/* Whether node (level, n) lies within a tree of the inode's height. */
static int in_tree(const struct logfs *fs, const struct lfs_inode *in,
                   uint8_t level, uint64_t n)
{
    if (level == 0)
        return height_for(fs, n) <= in->height;
    if (level > in->height)
        return 0;
    uint64_t cap = 1; /* level-L indices run below P^(h - L) */
    for (unsigned l = level; l < in->height; l++)
        cap *= fs->ptrs_per_block;
    return n < cap;
}

/* The pointer to node (level, n), reading parents as needed. */
int lfs_tree_ptr(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                 uint64_t n, lfs_ptr *out)
{
    lfs_ptr *slot_in;
    uint64_t pn = 0;
    uint32_t slot = 0;
    if (!in_tree(fs, in, level, n)) {
        *out = 0; /* beyond the tree: a hole */
        return 0;
    }
    parent_of(fs, in, level, n, &slot_in, &pn, &slot);
    if (slot_in) {
        *out = *slot_in;
        return 0;
    }
    struct lfs_node *parent;
    int rc = lfs_tree_get(fs, in, (uint8_t)(level + 1), pn, 0, &parent);
    if (rc)
        return rc;
    *out = parent ? le64_get(parent->data + 8 * slot) : 0;
    return 0;
}

/* Fill node n (level, bix of in) from its object at p: from held's copy
 * when that is the object and checks, else from flash; the rest of the
 * block is zero. */
static int fill(struct logfs *fs, struct lfs_inode *in, struct lfs_node *n, lfs_ptr p,
                struct lfs_held *held)
{
    uint8_t type = node_type(in->ino, n->level);
    int rc = -EIO;
    if (held && held->p == p &&
        !(rc = lfs_obj_check_decoded(fs, &held->bytes, held->hdr, lfs_ptr_len(p), type,
                                     in->ino, n->level, n->bix, n->data, &n->len,
                                     &n->pcrc)))
        held->filled = 1;
    if (rc)
        rc = lfs_obj_read(fs, p, type, in->ino, n->level, n->bix, n->data, &n->len,
                          &n->pcrc);
    if (!rc)
        memset(n->data + n->len, 0, fs->g.block_size - n->len);
    return rc;
}

int lfs_tree_can_prealloc(const struct logfs *fs, const struct lfs_inode *in)
{
    return fs->sb.read_version >= LFS_PREALLOC_VERSION && S_ISREG(in->mode) &&
           in->ino >= LFS_INO_FIRST_FREE;
}

/* p, at address 0, is a preallocated block where one may be: a level-0
 * pointer of a regular file, of exactly lfs_ptr_prealloc's length. */
static int prealloc_at(const struct logfs *fs, const struct lfs_inode *in, uint8_t level,
                       lfs_ptr p)
{
    return level == 0 && p == lfs_ptr_prealloc(fs->g.block_size) &&
           lfs_tree_can_prealloc(fs, in);
}

static int get_node(struct logfs *fs, struct lfs_inode *in, uint8_t level, uint64_t bix,
                    int create, struct lfs_held *held, struct lfs_node **out)
{
    struct lfs_node *n = lfs_cache_find(fs, in->ino, level, bix);
    *out = NULL;
    if (n) {
        fs->cache.hits++;
        lfs_cache_touch(fs, n);
        *out = n;
        return 0;
    }
    lfs_ptr p;
    int rc = lfs_tree_ptr(fs, in, level, bix, &p);
    if (rc)
        return rc;
    if (p == LFS_PTR_PENDING)
        return -EIO; /* a pending block is always cached */
    /* preallocated: reads as a hole; a write replaces it (its node
     * starts zeroed, and its reservation goes when the object lands) */
    int pre = lfs_ptr_at_zero(p);
    if (pre && !prealloc_at(fs, in, level, p))
        return -EIO;
    if ((!p || pre) && !create)
        return 0;
    if (!p && level == 0 && (rc = grow(fs, in, bix)))
        return rc;
    /* a block the caller overwrites whole needs neither its old copy
     * read nor its buffer zeroed; one read is zeroed past its bytes */
    int whole = create == LFS_TREE_OVERWRITE && level == 0;
    if (!(n = lfs_cache_add(fs, in->ino, level, bix, !p || (pre && !whole))))
        return -ENOMEM;
    n->len = level ? fs->g.block_size : 0;
    if (pre) {
        n->ptr = p;
    } else if (!p) {
        /* link it at once, so that walks of the tree see it */
        lfs_node_dirty(fs, n);
        if ((rc = lfs_tree_set_parent(fs, in, n, LFS_PTR_PENDING))) {
            lfs_cache_remove(fs, n);
            return rc;
        }
    } else if (whole) {
        n->ptr = p; /* its bytes stop being live when the new copy lands */
    } else {
        fs->cache.misses++;
        if ((rc = fill(fs, in, n, p, held))) {
            lfs_cache_remove(fs, n);
            return rc;
        }
        n->ptr = p;
        if (level)
            n->len = fs->g.block_size;
    }
    *out = n;
    return 0;
}

int lfs_tree_get(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                 uint64_t bix, int create, struct lfs_node **out)
{
    return get_node(fs, in, level, bix, create, NULL, out);
}

int lfs_tree_get_held(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                      uint64_t bix, struct lfs_held *held, struct lfs_node **out)
{
    held->filled = 0;
    return get_node(fs, in, level, bix, 0, held, out);
}

/* The inode's block count (format 6) when a level-0 pointer goes from
 * old to p: up when a hole gets a block, down when a block becomes a
 * hole. */
static void count_block(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                        lfs_ptr old, lfs_ptr p)
{
    if (level || !old == !p || fs->sb.read_version < LFS_PREALLOC_VERSION)
        return;
    in->blocks = p ? in->blocks + 1 : in->blocks ? in->blocks - 1 : 0;
    lfs_inode_dirty(fs, in);
}

int lfs_tree_set_parent(struct logfs *fs, struct lfs_inode *in,
                        struct lfs_node *n, lfs_ptr p)
{
    lfs_ptr *slot_in;
    uint64_t pn = 0;
    uint32_t slot = 0;
    parent_of(fs, in, n->level, n->bix, &slot_in, &pn, &slot);
    if (slot_in) {
        count_block(fs, in, n->level, *slot_in, p);
        *slot_in = p;
        lfs_inode_dirty(fs, in);
        return 0;
    }
    struct lfs_node *parent;
    int rc = lfs_tree_get(fs, in, (uint8_t)(n->level + 1), pn, 1, &parent);
    if (rc)
        return rc;
    count_block(fs, in, n->level, le64_get(parent->data + 8 * slot), p);
    le64_put(parent->data + 8 * slot, p);
    if (p)
        parent->set_slot = slot;
    lfs_node_dirty(fs, parent);
    return 0;
}

int lfs_tree_prealloc(struct logfs *fs, struct lfs_inode *in, uint64_t bix)
{
    lfs_ptr p;
    int rc = lfs_tree_ptr(fs, in, 0, bix, &p);
    if (rc || p)
        return rc; /* a block (or a preallocated one) is there */
    if ((rc = grow(fs, in, bix)))
        return rc;
    lfs_ptr pre = lfs_ptr_prealloc(fs->g.block_size);
    struct lfs_node tmp = {.ino = in->ino, .level = 0, .bix = bix};
    if ((rc = lfs_tree_set_parent(fs, in, &tmp, pre)))
        return rc;
    return lfs_seg_account(fs, pre, 1);
}

/* Make level-0 block bix a hole; its old object stops being live. */
int lfs_tree_punch(struct logfs *fs, struct lfs_inode *in, uint64_t bix)
{
    struct lfs_node *n = lfs_cache_find(fs, in->ino, 0, bix);
    if (n)
        lfs_cache_remove(fs, n);
    lfs_ptr p;
    int rc = lfs_tree_ptr(fs, in, 0, bix, &p);
    if (rc || !p)
        return rc;
    if (p != LFS_PTR_PENDING && in->ino != LFS_INO_SEGFILE &&
        (rc = lfs_seg_account(fs, p, 0)))
        return rc;
    struct lfs_node tmp = {.ino = in->ino, .level = 0, .bix = bix};
    return lfs_tree_set_parent(fs, in, &tmp, 0);
}

/* Depth-first search under node (level, n) for the first level-0 block at
 * or after bix; *found = UINT64_MAX if none. */
static int next_under(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                      uint64_t n, uint64_t bix, uint64_t *found)
{
    struct lfs_node *node;
    int rc = lfs_tree_get(fs, in, level, n, 0, &node);
    if (rc || !node)
        return rc;
    uint64_t span = 1; /* level-0 blocks under one slot of this node */
    for (unsigned l = 1; l < level; l++)
        span *= fs->ptrs_per_block;
    uint64_t first = n * fs->ptrs_per_block * span; /* j of slot 0 */
    uint64_t j = bix - LFS_NDIRECT;
    uint32_t s = j > first ? (uint32_t)((j - first) / span) : 0;
    for (; s < fs->ptrs_per_block && *found == UINT64_MAX; s++) {
        if (!le64_get(node->data + 8 * s))
            continue;
        uint64_t child = n * fs->ptrs_per_block + s;
        if (level == 1) {
            *found = LFS_NDIRECT + child;
        } else if ((rc = next_under(fs, in, (uint8_t)(level - 1), child, bix, found))) {
            return rc;
        }
        /* re-find the node: the recursion may have read others */
        if ((rc = lfs_tree_get(fs, in, level, n, 0, &node)) || !node)
            return rc;
    }
    return 0;
}

int lfs_tree_next(struct logfs *fs, struct lfs_inode *in, uint64_t bix,
                  uint64_t *found)
{
    *found = UINT64_MAX;
    for (; bix < LFS_NDIRECT; bix++)
        if (in->direct[bix]) {
            *found = bix;
            return 0;
        }
    if (!in->height || !in->indirect)
        return 0;
    return next_under(fs, in, in->height, 0, bix, found);
}

/* Every on-flash pointer held by node (level, n) and the indirect nodes
 * below it, depth first; data blocks are not read. */
static int walk_under(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                      uint64_t n, lfs_ptr_fn fn, void *ctx)
{
    struct lfs_node *node;
    int rc = lfs_tree_get(fs, in, level, n, 0, &node);
    if (rc || !node)
        return rc;
    for (uint32_t s = 0; s < fs->ptrs_per_block && !rc; s++) {
        lfs_ptr p = le64_get(node->data + 8 * s);
        if (!p || p == LFS_PTR_PENDING || (level == 1 && prealloc_at(fs, in, 0, p)))
            continue;
        if ((rc = fn(fs, ctx, p)))
            return rc;
        if (level > 1)
            rc = walk_under(fs, in, (uint8_t)(level - 1), n * fs->ptrs_per_block + s,
                            fn, ctx);
        /* the recursion may have evicted node: find it again */
        if (!rc && (rc = lfs_tree_get(fs, in, level, n, 0, &node)) == 0 && !node)
            rc = -EIO;
    }
    return rc;
}

int lfs_tree_walk(struct logfs *fs, struct lfs_inode *in, lfs_ptr_fn fn, void *ctx)
{
    int rc = 0;
    for (unsigned i = 0; i < LFS_NDIRECT && !rc; i++)
        if (in->direct[i] && in->direct[i] != LFS_PTR_PENDING &&
            !prealloc_at(fs, in, 0, in->direct[i]))
            rc = fn(fs, ctx, in->direct[i]);
    if (rc || !in->height || !in->indirect || in->indirect == LFS_PTR_PENDING)
        return rc;
    if ((rc = fn(fs, ctx, in->indirect)))
        return rc;
    return walk_under(fs, in, in->height, 0, fn, ctx);
}

const struct lfs_tree_hooks lfs_tree_hooks = {
    .get = lfs_tree_get,
    .walk = lfs_tree_walk,
};

/*
 * file.c -- byte ranges of a file over its level-0 blocks.  A block's
 * bytes past its stored length read as zero, holes read as zero, and a
 * write larger than the dirty limit commits between blocks (the one way a
 * single operation spans commit points; docs/logfs-design.md).
 */
#include "tree.h"

#include <errno.h>

uint64_t lfs_file_max_bytes(uint32_t block_size)
{
    uint64_t p = block_size / 8, reach = 1, cap = LFS_FILE_BYTES_CAP / block_size;
    for (unsigned l = 0; l < LFS_MAX_HEIGHT && reach <= cap; l++)
        reach *= p; /* P^5 blocks under the indirect pointer */
    reach += LFS_NDIRECT;
    return reach > cap ? LFS_FILE_BYTES_CAP : reach * block_size;
}

int64_t lfs_file_pread(struct logfs *fs, struct lfs_inode *in, void *buf,
                       uint64_t len, uint64_t off)
{
    uint32_t bs = fs->g.block_size;
    if (off >= in->size)
        return 0;
    if (len > in->size - off)
        len = in->size - off;
    uint8_t *dst = buf;
    for (uint64_t done = 0; done < len;) {
        uint64_t bix = (off + done) / bs;
        uint32_t boff = (uint32_t)((off + done) % bs);
        uint32_t part = bs - boff;
        if (part > len - done)
            part = (uint32_t)(len - done);
        struct lfs_node *n;
        int rc = lfs_tree_get(fs, in, 0, bix, 0, &n);
        if (rc)
            return rc;
        memset(dst + done, 0, part);
        if (n && boff < n->len)
            memcpy(dst + done, n->data + boff, n->len - boff < part ? n->len - boff : part);
        done += part;
    }
    return (int64_t)len;
}

int64_t lfs_file_pwrite(struct logfs *fs, struct lfs_inode *in, const void *buf,
                        uint64_t len, uint64_t off, uint64_t dirty_limit)
{
    uint32_t bs = fs->g.block_size;
    const uint8_t *src = buf;
    uint64_t since_commit = 0;
    int64_t fit = fs_write_fit(off, len, fs->max_file_bytes);
    if (fit < 0)
        return fit;
    len = (uint64_t)fit; /* a short write up to the largest file */
    for (uint64_t done = 0; done < len;) {
        uint64_t bix = (off + done) / bs;
        uint32_t boff = (uint32_t)((off + done) % bs);
        uint32_t part = bs - boff;
        if (part > len - done)
            part = (uint32_t)(len - done);
        struct lfs_node *n;
        int rc = lfs_tree_get(fs, in, 0, bix, part == bs ? LFS_TREE_OVERWRITE : 1, &n);
        if (rc)
            return done ? (int64_t)done : rc;
        memcpy(n->data + boff, src + done, part);
        if (boff + part > n->len)
            n->len = boff + part;
        lfs_node_dirty(fs, n);
        done += part;
        if (off + done > in->size)
            in->size = off + done;
        lfs_inode_dirty(fs, in);
        /* only a write larger than the dirty limit is split: every
         * dirty_limit bytes of it, at a block boundary */
        since_commit += part;
        if (since_commit >= dirty_limit && done < len) {
            if ((rc = lfs_commit(fs)))
                return rc;
            since_commit = 0;
        }
    }
    return (int64_t)len;
}

/* Make bytes [from, to) of the file zero, freeing the blocks they cover
 * whole (or up to the end of the file).  Past the end only preallocated
 * blocks (fallocate's KEEP_SIZE) are found, and freed the same way. */
int lfs_file_zero(struct logfs *fs, struct lfs_inode *in, uint64_t from, uint64_t to)
{
    uint32_t bs = fs->g.block_size;
    while (from < to) {
        uint64_t bix = from / bs;
        uint32_t boff = (uint32_t)(from % bs);
        uint64_t end = (bix + 1) * bs < to ? (bix + 1) * bs : to;
        int rc;
        if (boff == 0 && (end == (bix + 1) * bs || end >= in->size)) {
            rc = lfs_tree_punch(fs, in, bix);
        } else {
            struct lfs_node *n;
            rc = lfs_tree_get(fs, in, 0, bix, 0, &n);
            if (!rc && n && boff < n->len) {
                uint32_t e = (uint32_t)(end - bix * bs);
                memset(n->data + boff, 0, (e < n->len ? e : n->len) - boff);
                if (e >= n->len)
                    n->len = boff;
                lfs_node_dirty(fs, n);
            }
        }
        if (rc)
            return rc;
        /* the next existing block: skip holes without visiting them */
        uint64_t next;
        if ((rc = lfs_tree_next(fs, in, bix + 1, &next)))
            return rc;
        from = next == UINT64_MAX ? to : next * bs > end ? next * bs : end;
    }
    return 0;
}

/* Free every block from bix on. */
int lfs_file_free_from(struct logfs *fs, struct lfs_inode *in, uint64_t bix)
{
    for (;;) {
        uint64_t found;
        int rc = lfs_tree_next(fs, in, bix, &found);
        if (rc || found == UINT64_MAX)
            return rc;
        if ((rc = lfs_tree_punch(fs, in, found)))
            return rc;
        bix = found + 1;
    }
}

int lfs_file_truncate(struct logfs *fs, struct lfs_inode *in, uint64_t size)
{
    uint32_t bs = fs->g.block_size;
    int rc = 0;
    if (size > fs->max_file_bytes)
        return -EFBIG; /* else a write below the new size would fail */
    if (size < in->size) {
        if (size % bs)
            rc = lfs_file_zero(fs, in, size, (size / bs + 1) * bs);
        if (!rc)
            rc = lfs_file_free_from(fs, in, (size + bs - 1) / bs);
        if (rc)
            return rc;
    }
    in->size = size;
    lfs_inode_dirty(fs, in);
    return 0;
}

/* The blocks [first, end) of the file that are not holes. */
static int count_blocks(struct logfs *fs, struct lfs_inode *in, uint64_t first, uint64_t end,
                        uint64_t *n)
{
    *n = 0;
    for (uint64_t b = first;; b++) {
        int rc = lfs_tree_next(fs, in, b, &b);
        if (rc || b >= end)
            return rc;
        ++*n;
    }
}

/* What allocate refuses before looking at the tree. */
static int allocate_args(struct logfs *fs, struct lfs_inode *in, uint64_t off, uint64_t len)
{
    if (!lfs_tree_can_prealloc(fs, in))
        return -EOPNOTSUPP;
    if (!len)
        return -EINVAL;
    if (off > fs->max_file_bytes || len > fs->max_file_bytes - off)
        return -EFBIG;
    return 0;
}

int lfs_file_allocate(struct logfs *fs, struct lfs_inode *in, uint64_t off, uint64_t len,
                      int keep_size)
{
    uint32_t bs = fs->g.block_size;
    int rc = allocate_args(fs, in, off, len);
    if (rc)
        return rc;
    uint64_t first = off / bs, end = (off + len + bs - 1) / bs, have;
    /* room for every hole first: ENOSPC changes nothing */
    rc = count_blocks(fs, in, first, end, &have);
    if (!rc)
        rc = lfs_space_check(fs, (end - first - have) * bs);
    for (uint64_t b = first; !rc && b < end; b++)
        rc = lfs_tree_prealloc(fs, in, b);
    if (rc)
        return rc;
    if (!keep_size && off + len > in->size)
        in->size = off + len;
    lfs_inode_dirty(fs, in);
    return 0;
}

/* Nodes a run of punches newly dirties, counted from above: a change of
 * key from one punched block to the next may be a node not yet dirty
 * (the keys come in order, so this is at least the distinct ones). */
struct dirtied {
    uint64_t nodes;
    uint64_t last[LFS_MAX_HEIGHT + 1]; /* [0]: segment-file block; [l]: level l */
    uint8_t seen[LFS_MAX_HEIGHT + 1];
};

static void dirtied_add(struct dirtied *d, unsigned i, uint64_t key)
{
    if (!d->seen[i] || d->last[i] != key)
        d->nodes++;
    d->seen[i] = 1;
    d->last[i] = key;
}

/* What lfs_file_zero(off, zend) then an allocation of blocks [first, end)
 * cost, so that the room can be checked before the punch: *need the bytes
 * of blocks that are not left alone (the holes after the punch, and the
 * edge blocks it only zeroes, counted as new) and of the metadata the
 * punch dirties (the segment-file blocks counting the freed objects, the
 * indirect blocks above them); *freed the objects the punch lets go (a
 * block still pending in the cache counts nothing).  Only the non-hole
 * blocks are visited. */
static int zero_range_cost(struct logfs *fs, struct lfs_inode *in, uint64_t off,
                           uint64_t zend, uint64_t first, uint64_t end, uint64_t *need,
                           uint64_t *freed)
{
    uint32_t bs = fs->g.block_size, ents = bs / LFS_SEGENT_BYTES;
    uint64_t alone = 0; /* existing blocks past the punch: allocate skips them */
    struct dirtied d = {0};
    *freed = 0;
    for (uint64_t b = first;; b++) {
        lfs_ptr p;
        int rc = lfs_tree_next(fs, in, b, &b);
        if (rc)
            return rc;
        if (b >= end)
            break;
        if ((rc = lfs_tree_ptr(fs, in, 0, b, &p)))
            return rc;
        uint64_t from = b * bs > off ? b * bs : off;
        uint64_t to = (b + 1) * bs < zend ? (b + 1) * bs : zend;
        if (from >= zend) {
            alone++;
            continue;
        }
        if (from % bs || (to != (b + 1) * bs && to < in->size))
            continue; /* lfs_file_zero zeroes it in place */
        if (p != LFS_PTR_PENDING && !lfs_ptr_at_zero(p)) {
            *freed += lfs_ptr_len(p);
            dirtied_add(&d, 0, lfs_seg_of(fs, p) / ents);
        } else if (lfs_ptr_at_zero(p)) {
            *freed += lfs_ptr_len(p); /* a reservation, taken again */
        }
        uint64_t key = b >= LFS_NDIRECT ? b - LFS_NDIRECT : 0;
        for (unsigned l = 1; b >= LFS_NDIRECT && l <= in->height && l <= LFS_MAX_HEIGHT; l++)
            dirtied_add(&d, l, key /= fs->ptrs_per_block);
    }
    *need = (end - first - alone + d.nodes) * bs;
    return 0;
}

int lfs_file_zero_range(struct logfs *fs, struct lfs_inode *in, uint64_t off, uint64_t len,
                        int keep_size)
{
    uint32_t bs = fs->g.block_size;
    int rc = allocate_args(fs, in, off, len);
    if (rc)
        return rc;
    uint64_t zend = off + len < in->size ? off + len : in->size, need, freed;
    rc = zero_range_cost(fs, in, off, zend, off / bs, (off + len + bs - 1) / bs, &need,
                         &freed);
    if (!rc)
        rc = lfs_space_check_freeing(fs, need, freed);
    if (!rc && off < zend)
        rc = lfs_file_zero(fs, in, off, zend);
    return rc ? rc : lfs_file_allocate(fs, in, off, len, keep_size);
}

int lfs_file_prealloc_bytes(struct logfs *fs, struct lfs_inode *in, uint64_t off,
                            uint64_t len, uint64_t *held)
{
    uint32_t bs = fs->g.block_size;
    lfs_ptr pre = lfs_ptr_prealloc(bs);
    *held = 0;
    for (uint64_t b = off / bs; len && b <= (off + len - 1) / bs; b++) {
        lfs_ptr p;
        int rc = lfs_tree_ptr(fs, in, 0, b, &p);
        if (rc)
            return rc;
        *held += p == pre ? bs : 0;
    }
    if (*held > len)
        *held = len;
    return 0;
}

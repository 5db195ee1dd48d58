/*
 * map.c -- file block -> fs block: 12 direct pointers, one single
 * and one double indirect block (ext2's scheme without the triple level).
 * Pointers are fs block numbers; 0 is a hole (block 0 is the superblock).
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The inode slot at the top of lblk's path, the levels of index blocks
 * below it, and lblk's index within that subtree. */
static int locate(struct blockfs *fs, struct bf_inode *in, uint64_t lblk,
                  uint32_t **slot, int *level, uint64_t *idx)
{
    uint64_t p = fs->ptrs;
    if (lblk < BF_NDIRECT) {
        *slot = &in->direct[lblk];
        *level = 0;
        *idx = 0;
    } else if (lblk < BF_NDIRECT + p) {
        *slot = &in->ind;
        *level = 1;
        *idx = lblk - BF_NDIRECT;
    } else if (lblk < fs->max_blocks) {
        *slot = &in->dind;
        *level = 2;
        *idx = lblk - BF_NDIRECT - p;
    } else {
        return -EFBIG;
    }
    return 0;
}

/* A new block; index blocks are written as zeros at once. */
static int new_block(struct blockfs *fs, int index, uint32_t *b)
{
    int rc = bf_balloc(fs, b);
    if (rc || !index)
        return rc;
    memset(fs->scratch, 0, fs->bs);
    return bf_write_block(fs, *b, fs->scratch);
}

/* Map lblk; with alloc, fill holes on its path (a new data block is only
 * numbered: *fresh tells the caller to write it whole). */
int bf_bmap(struct blockfs *fs, uint32_t ino, uint64_t lblk, int alloc,
            uint32_t *out, int *fresh)
{
    struct bf_inode *in = &fs->itab[ino];
    uint32_t *slot;
    int level;
    uint64_t idx;
    int rc = locate(fs, in, lblk, &slot, &level, &idx);
    *out = 0;
    if (fresh)
        *fresh = 0;
    if (rc)
        return rc;
    uint32_t cur = *slot;
    if (!cur) {
        if (!alloc)
            return 0;
        if ((rc = new_block(fs, level > 0, &cur)))
            return rc;
        *slot = cur;
        bf_idirty(fs, ino);
        if (!level && fresh)
            *fresh = 1;
    }
    uint32_t *buf = NULL;
    for (int l = level; l > 0; l--) {
        if (!bf_valid_block(fs, cur)) {
            rc = -EIO;
            break;
        }
        if (!buf && !(buf = malloc(fs->bs))) {
            rc = -ENOMEM;
            break;
        }
        if ((rc = bf_read_block(fs, cur, buf)))
            break;
        uint64_t span = l == 2 ? fs->ptrs : 1;
        uint32_t e = (uint32_t)(idx / span);
        idx %= span;
        uint32_t child = buf[e];
        if (!child) {
            if (!alloc) {
                cur = 0;
                break;
            }
            if ((rc = new_block(fs, l > 1, &child)))
                break;
            buf[e] = child;
            if ((rc = bf_write_block(fs, cur, buf)))
                break;
            if (l == 1 && fresh)
                *fresh = 1;
        }
        cur = child;
    }
    free(buf);
    if (!rc && cur && !bf_valid_block(fs, cur))
        rc = -EIO;
    if (!rc)
        *out = cur;
    return rc;
}

/* How many new blocks (data and index) writing lblks [first, last] takes:
 * checked before a write so that ENOSPC changes nothing. */
int bf_needs(struct blockfs *fs, uint32_t ino, uint64_t first, uint64_t last,
             uint64_t *n)
{
    struct bf_inode *in = &fs->itab[ino];
    uint64_t p = fs->ptrs, need = 0;
    if (last >= fs->max_blocks)
        return -EFBIG;
    for (uint64_t l = first; l <= last; l++) {
        uint32_t b;
        int rc = bf_bmap(fs, ino, l, 0, &b, NULL);
        if (rc)
            return rc;
        need += !b;
        if (need > fs->sb.free_blocks)
            break; /* enough to say no */
    }
    if (first < BF_NDIRECT + p && last >= BF_NDIRECT && !in->ind)
        need++;
    if (last >= BF_NDIRECT + p) {
        uint64_t g0 = first < BF_NDIRECT + p ? 0 : (first - BF_NDIRECT - p) / p;
        uint64_t g1 = (last - BF_NDIRECT - p) / p;
        uint32_t *buf = NULL;
        if (!in->dind) {
            need += 1 + (g1 - g0 + 1);
        } else {
            if (!(buf = malloc(fs->bs)))
                return -ENOMEM;
            int rc = bf_valid_block(fs, in->dind) ? bf_read_block(fs, in->dind, buf) : -EIO;
            if (rc) {
                free(buf);
                return rc;
            }
            for (uint64_t g = g0; g <= g1; g++)
                need += !buf[g];
            free(buf);
        }
    }
    *n = need;
    return 0;
}

/* Free what of the subtree at *slot (level 0 = a data block) covering
 * lblks from base lies in [first, last); an index block left empty goes
 * too.  *changed: *slot was cleared. */
static int free_tree(struct blockfs *fs, uint32_t *slot, int level, uint64_t base,
                     uint64_t first, uint64_t last, int *changed)
{
    uint64_t p = fs->ptrs;
    uint64_t span = level == 0 ? 1 : level == 1 ? p : p * p;
    if (!*slot || base + span <= first || base >= last)
        return 0;
    if (!bf_valid_block(fs, *slot)) {
        *slot = 0; /* corrupt: drop it */
        *changed = 1;
        return -EIO;
    }
    if (level == 0) {
        bf_bfree(fs, *slot);
        *slot = 0;
        *changed = 1;
        return 0;
    }
    uint32_t *buf = malloc(fs->bs);
    if (!buf)
        return -ENOMEM;
    int rc = bf_read_block(fs, *slot, buf);
    if (rc) {
        free(buf);
        return rc;
    }
    uint64_t cspan = level == 1 ? 1 : p;
    uint64_t j0 = first > base ? (first - base) / cspan : 0;
    int mod = 0, any = 0;
    for (uint64_t j = j0; !rc && j < p && base + j * cspan < last; j++)
        rc = free_tree(fs, &buf[j], level - 1, base + j * cspan, first, last, &mod);
    for (uint64_t j = 0; j < p && !any; j++)
        any = buf[j] != 0;
    if (!any) {
        bf_bfree(fs, *slot);
        *slot = 0;
        *changed = 1;
    } else if (mod) {
        int wrc = bf_write_block(fs, *slot, buf);
        rc = rc ? rc : wrc;
    }
    free(buf);
    return rc;
}

/* Free file blocks [first, last). */
int bf_free_range(struct blockfs *fs, uint32_t ino, uint64_t first, uint64_t last)
{
    struct bf_inode *in = &fs->itab[ino];
    int changed = 0, rc = 0;
    for (uint32_t i = 0; i < BF_NDIRECT && !rc; i++)
        rc = free_tree(fs, &in->direct[i], 0, i, first, last, &changed);
    if (!rc)
        rc = free_tree(fs, &in->ind, 1, BF_NDIRECT, first, last, &changed);
    if (!rc)
        rc = free_tree(fs, &in->dind, 2, BF_NDIRECT + fs->ptrs, first, last, &changed);
    if (changed)
        bf_idirty(fs, ino);
    return rc;
}

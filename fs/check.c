/*
 * check.c -- consistency checks of a synced file system, for tests: walks
 * every tree and compares the bytes each segment really holds for the
 * tree with the segment file's live counts.
 */
#include "lfs.h"

#include <errno.h>

static int add_ptr(struct logfs *fs, uint64_t *live, lfs_ptr p)
{
    if (p == LFS_PTR_PENDING)
        return -EBUSY; /* not synced */
    uint32_t seg = lfs_seg_of(fs, p);
    if (seg >= fs->g.nblocks)
        return -EIO;
    live[seg] += lfs_ptr_len(p);
    return 0;
}

static int walk_node(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                     uint64_t n, uint64_t *live)
{
    struct lfs_node *node;
    int rc = lfs_tree_get(fs, in, level, n, 0, &node);
    if (rc || !node)
        return rc;
    for (uint32_t s = 0; s < fs->ptrs_per_block && !rc; s++) {
        lfs_ptr p = le64_get(node->data + 8 * s);
        if (!p)
            continue;
        if ((rc = add_ptr(fs, live, p)))
            break;
        if (level > 1)
            rc = walk_node(fs, in, (uint8_t)(level - 1), n * fs->ptrs_per_block + s, live);
        /* the recursion may have evicted node: find it again */
        if (!rc && (rc = lfs_tree_get(fs, in, level, n, 0, &node)) == 0 && !node)
            rc = -EIO;
    }
    return rc;
}

static int walk_inode(struct logfs *fs, struct lfs_inode *in, uint64_t *live)
{
    int rc = 0;
    for (unsigned i = 0; i < LFS_NDIRECT && !rc; i++)
        if (in->direct[i])
            rc = add_ptr(fs, live, in->direct[i]);
    if (!rc && in->height && in->indirect) {
        rc = add_ptr(fs, live, in->indirect);
        if (!rc)
            rc = walk_node(fs, in, in->height, 0, live);
    }
    return rc;
}

/* 0 if every segment's live count matches the trees; else the number of
 * segments that differ (the first one in *seg). */
int lfs_check_live(struct logfs *fs, uint32_t *bad_seg, uint64_t *want, uint32_t *have)
{
    uint64_t *live = lfs_zalloc(fs, fs->g.nblocks * sizeof *live);
    if (!live)
        return -ENOMEM;
    int rc = walk_inode(fs, &fs->an.inodefile, live);
    for (uint64_t ino = 0; !rc;) {
        uint64_t found;
        if ((rc = lfs_tree_next(fs, &fs->an.inodefile, ino, &found)) || found == UINT64_MAX)
            break;
        struct lfs_inode *in;
        if (!(rc = lfs_inode_get(fs, found, &in)))
            rc = walk_inode(fs, in, live);
        ino = found + 1;
    }
    int bad = 0;
    for (uint32_t s = 0; !rc && s < fs->g.nblocks; s++) {
        struct lfs_segent e;
        if ((rc = lfs_seg_get(fs, s, &e)))
            break;
        if (e.area == LFS_AREA_SEGFILE && e.state == LFS_SEG_USED)
            continue; /* not counted by design */
        if (e.live != live[s]) {
            if (!bad++) {
                *bad_seg = s;
                *want = live[s];
                *have = e.live;
            }
        }
    }
    lfs_free(fs, live, fs->g.nblocks * sizeof *live);
    return rc ? rc : bad;
}

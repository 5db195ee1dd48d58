/*
 * check.c -- consistency checks of a synced file system, for tests: walks
 * every tree (the segment file's too) and compares the bytes each segment
 * really holds for them with the live counts the fs keeps.
 */
#include "tree.h"

#include <errno.h>

static int add_ptr(struct logfs *fs, void *ctx, lfs_ptr p)
{
    uint64_t *live = ctx;
    uint32_t seg = lfs_seg_of(fs, p);
    if (seg >= fs->g.nblocks)
        return -EIO;
    live[seg] += lfs_ptr_len(p);
    return 0;
}

/* A pointer only in RAM means the fs was not synced. */
static int synced(const struct lfs_inode *in)
{
    for (unsigned i = 0; i < LFS_NDIRECT; i++)
        if (in->direct[i] == LFS_PTR_PENDING)
            return 0;
    return in->indirect != LFS_PTR_PENDING;
}

static int walk_inode(struct logfs *fs, struct lfs_inode *in, uint64_t *live)
{
    return synced(in) ? lfs_tree_walk(fs, in, add_ptr, live) : -EBUSY;
}

/* 0 if every segment's live count matches the trees; else the number of
 * segments that differ (the first one in *seg). */
int lfs_check_live(struct logfs *fs, uint32_t *bad_seg, uint64_t *want, uint32_t *have)
{
    uint64_t *live = lfs_zalloc(fs, fs->g.nblocks * sizeof *live);
    if (!live)
        return -ENOMEM;
    int rc = walk_inode(fs, &fs->an.inodefile, live);
    if (!rc)
        rc = walk_inode(fs, &fs->an.segfile, live);
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
        /* the segment file's own segments are counted in RAM (sflive.c) */
        uint32_t l = e.live;
        if (e.area == LFS_AREA_SEGFILE && (rc = lfs_sflive_get(fs, s, &l)))
            break;
        if (l != live[s] && !bad++) {
            *bad_seg = s;
            *want = live[s];
            *have = l;
        }
    }
    lfs_free(fs, live, fs->g.nblocks * sizeof *live);
    return rc ? rc : bad;
}

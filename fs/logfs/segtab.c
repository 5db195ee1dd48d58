/*
 * segtab.c -- every segment-file entry in RAM, for the cleaner and the
 * allocator, which look at all segments on each decision.
 *
 * Built on first need by reading the whole segment file -- the first
 * cleaning round or pool refill, never mount -- and kept current by every
 * lfs_seg_put, so that it always equals what the segment file would read.
 * It also flags the segments waiting in the freed list, so that the
 * cleaner's scan need not search that list for each segment, and those
 * the cleaner has picked for the commit it is preparing.
 */
#include "storage.h"

#include <errno.h>

int lfs_segtab_build(struct logfs *fs)
{
    struct lfs_segtab *t = &fs->segtab;
    if (t->e)
        return 0;
    uint32_t n = fs->g.nblocks;
    struct lfs_segent *e = lfs_alloc(fs, (size_t)n * sizeof *e);
    uint8_t *flags = lfs_zalloc(fs, n);
    if (!e || !flags) {
        lfs_free(fs, e, (size_t)n * sizeof *e);
        lfs_free(fs, flags, n);
        return -ENOMEM;
    }
    for (uint32_t s = 0; s < n; s++) {
        int rc = lfs_seg_get(fs, s, &e[s]);
        if (rc) {
            lfs_free(fs, e, (size_t)n * sizeof *e);
            lfs_free(fs, flags, n);
            return rc;
        }
    }
    for (uint32_t i = 0; i < fs->nfreed; i++)
        flags[fs->freed[i]] = LFS_SEGT_FREED;
    t->e = e;
    t->flags = flags;
    return 0;
}

void lfs_segtab_free(struct logfs *fs)
{
    struct lfs_segtab *t = &fs->segtab;
    lfs_free(fs, t->e, (size_t)fs->g.nblocks * sizeof *t->e);
    lfs_free(fs, t->flags, fs->g.nblocks);
    t->e = NULL;
    t->flags = NULL;
}

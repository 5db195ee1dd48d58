/*
 * scrubq.c -- the segments scheduled for scrubbing.  A read that needed
 * at least scrub_threshold corrected bits in one ECC codeword (or that
 * failed ECC) puts its segment here, as UBI schedules an erase block after
 * a bit-flip read; scrub.c moves their live data later, never inside the
 * read, so that a call that only reads still writes nothing.
 */
#include "storage.h"

#include <string.h>

/* Most recently met first: a segment that reads keep flagging (one that
 * holds metadata every lookup reads, whose read disturb grows fastest) is
 * moved before those the idle scan found once. */
void lfs_scrub_queue(struct logfs *fs, uint32_t seg)
{
    for (uint32_t i = 0; i < fs->scrub.nqueue; i++)
        if (fs->scrub.queue[i] == seg) {
            memmove(fs->scrub.queue + 1, fs->scrub.queue, i * sizeof *fs->scrub.queue);
            fs->scrub.queue[0] = seg;
            return;
        }
    if (fs->scrub.nqueue == fs->scrub.cap) {
        uint32_t cap = fs->scrub.cap ? fs->scrub.cap * 2 : 16;
        uint32_t *q = lfs_alloc(fs, (size_t)cap * sizeof *q);
        if (!q)
            return; /* missed: the idle scrubber will find it again */
        if (fs->scrub.nqueue)
            memcpy(q, fs->scrub.queue, (size_t)fs->scrub.nqueue * sizeof *q);
        lfs_free(fs, fs->scrub.queue, (size_t)fs->scrub.cap * sizeof *q);
        fs->scrub.queue = q;
        fs->scrub.cap = cap;
    }
    memmove(fs->scrub.queue + 1, fs->scrub.queue, fs->scrub.nqueue * sizeof *fs->scrub.queue);
    fs->scrub.queue[0] = seg;
    fs->scrub.nqueue++;
}

void lfs_scrub_seen(struct logfs *fs, uint32_t seg, int nrc, const struct nand_result *res)
{
    if (!fs->scrub.threshold || seg >= fs->g.nblocks ||
        (nrc != NAND_E_ECC && (nrc || res->max_cw_bits < fs->scrub.threshold)))
        return;
    fs->ctr.scrub_flagged++;
    lfs_scrub_queue(fs, seg);
}

int lfs_scrub_close(struct logfs *fs, uint32_t seg)
{
    for (unsigned i = 0; i < LFS_NAREAS; i++) {
        struct lfs_areaw *a = &fs->area[i];
        if (!a->seg || a->seg != seg)
            continue;
        int rc = lfs_area_flush(fs, i); /* pads and programs its last page */
        if (rc || a->seg != seg)
            return rc; /* failed, or retired (closed) by the failure */
        a->seg = 0; /* the next write opens a fresh segment */
        a->off = 0;
        a->npend = 0;
        lfs_gcidx_update(fs, seg);
    }
    return 0;
}

void lfs_scrub_free(struct logfs *fs)
{
    lfs_free(fs, fs->scrub.queue, (size_t)fs->scrub.cap * sizeof *fs->scrub.queue);
    fs->scrub.queue = NULL;
    fs->scrub.nqueue = fs->scrub.cap = 0;
}

/*
 * scrub.c -- scrubbing, as UBI does (docs/scrubbing.md): the live data of
 * a segment whose reads come close to the ECC limit is moved by the
 * cleaner before the bit errors pass the limit, which frees the segment
 * (it is erased when it is next taken).  Segments come from reads
 * (scrubq.c) and from the idle scrubber below, which reads closed
 * segments round-robin within a budget of pages.
 */
#include "tree.h"

#include <errno.h>

/* Whether seg holds objects and is nobody else's work (open or not). */
static int scrubbable(struct logfs *fs, uint32_t seg)
{
    return fs->segtab.e[seg].state == LFS_SEG_USED && !fs->segtab.flags[seg];
}

/* Pages of seg holding data: all, or those its open area programmed. */
static uint32_t written_pages(const struct logfs *fs, uint32_t seg)
{
    for (unsigned i = 0; i < LFS_NAREAS; i++)
        if (fs->area[i].seg && fs->area[i].seg == seg)
            return fs->area[i].off / fs->g.page_size;
    return fs->g.pages_per_block;
}

static int queued(const struct logfs *fs, uint32_t seg)
{
    for (uint32_t i = 0; i < fs->scrub.nqueue; i++)
        if (fs->scrub.queue[i] == seg)
            return 1;
    return 0;
}

/* Up to this many segments per commit: the moved data of a batch shares
 * the tree, segment-file and anchor writes above it, as the cleaner's;
 * few, because the liveness checks of a batch read the tree, and a
 * segment holding it that reads flag meanwhile goes first in the next. */
#define SCRUB_BATCH 4u

int lfs_scrub_pending(struct logfs *fs)
{
    int rc = lfs_scrub_fixed(fs); /* superblock, anchor ring: few pages */
    if (rc || !fs->scrub.nqueue || fs->readonly || fs->failed)
        return rc;
    rc = lfs_segtab_build(fs);
    if (rc)
        return rc;
    uint32_t batch[SCRUB_BATCH], n = 0, keep = 0;
    for (uint32_t i = 0; i < fs->scrub.nqueue; i++) {
        uint32_t s = fs->scrub.queue[i];
        if (!scrubbable(fs, s))
            continue; /* freed, picked, bad or unreadable since */
        if (n == SCRUB_BATCH) {
            fs->scrub.queue[keep++] = s; /* the next batch */
            continue;
        }
        /* an open segment's written pages age as well: it is closed, and
         * its writer goes on in a fresh one */
        if ((rc = lfs_scrub_close(fs, s)))
            return rc;
        if (scrubbable(fs, s) && !lfs_seg_is_open(fs, s))
            batch[n++] = s;
    }
    fs->scrub.nqueue = keep;
    if (!n)
        return 0;
    /* the copies need room: clean first when the writers' reserve is
     * reached, as a write would */
    if (fs->an.free_segments < fs->reserve &&
        (rc = lfs_gc(fs, fs->reserve + 2, UINT32_MAX)))
        return rc;
    uint64_t moved = 0;
    rc = lfs_gc_relocate(fs, batch, n, &moved);
    fs->ctr.scrub_segments += n;
    fs->ctr.scrub_bytes += moved;
    int more = rc || !fs->scrub.nqueue ? 0 : lfs_scrub_pending(fs);
    return rc ? rc : more < 0 ? more : (int)n + more;
}

int lfs_scrub_scan(struct logfs *fs, uint64_t budget)
{
    if (!fs->scrub.threshold || fs->readonly || fs->failed)
        return 0;
    int rc = lfs_segtab_build(fs);
    if (rc)
        return rc;
    uint32_t ps = fs->g.page_size;
    if (!fs->gc_buf && !(fs->gc_buf = lfs_alloc(fs, fs->g.seg_bytes)))
        return -ENOMEM;
    uint64_t reads = 0;
    /* at most one pass over the device per call */
    for (uint32_t visited = 0; reads < budget && visited <= fs->g.nblocks;) {
        uint32_t s = fs->scrub.seg % fs->g.nblocks, p = fs->scrub.page, end = 0;
        int found = 0;
        if (scrubbable(fs, s) && !queued(fs, s)) {
            end = written_pages(fs, s);
            for (; p < end && reads < budget && !found; p++) {
                struct nand_result res;
                int nrc = nand_read(fs->dev, s, p, fs->gc_buf + (size_t)p * ps, NULL, &res);
                reads++;
                if (nrc && nrc != NAND_E_ECC)
                    return lfs_errno(nrc);
                found = nrc == NAND_E_ECC || res.max_cw_bits >= fs->scrub.threshold;
            }
            if (found)
                lfs_scrub_queue(fs, s);
        } else if ((rc = lfs_scrub_fixed_read(fs, s, &reads))) {
            return rc; /* superblock and ring blocks: page 0, newest record */
        }
        if (!found && p < end) {
            fs->scrub.page = p; /* the budget ran out inside s */
            break;
        }
        fs->scrub.seg = (s + 1) % fs->g.nblocks;
        fs->scrub.page = 0;
        visited++;
    }
    fs->ctr.scrub_reads += reads;
    return lfs_scrub_pending(fs);
}

/*
 * lanes.c -- parallel dies (logfs_options.parallel, docs/logfs-design.md
 * "Parallel dies").
 *
 * With parallel = N > 1 the data area (file data, level 0) keeps N open
 * segments, its lanes, and hands each object to the next lane; segments
 * are allocated on the die with the fewest open segments, so the lanes sit
 * on N different dies.  Every program and segment erase goes through the
 * simulator's queue (nand_submit), so pages of different lanes program at
 * the same time; a commit waits for the queue (lfs_flash_wait) before it
 * writes the anchor, so the root never reaches flash before what it points
 * to.  With parallel = 1 every call here is the synchronous one LogFS
 * always made: the flash operations and their times are unchanged.
 *
 * Lane 0 is fs->area[LFS_AREA_DATA] itself (the anchor records it as
 * always); lanes 1..N-1 live in fs->lane and are never resumed after an
 * unmount: their segments are closed early, and the cleaner takes them
 * like any other.
 */
#include "storage.h"

#include <errno.h>

int lfs_lanes_init(struct logfs *fs, uint32_t parallel, size_t pend_bytes)
{
    uint32_t dies = (uint32_t)nand_dies(nand_get_config(fs->dev));
    if (parallel > dies)
        parallel = dies; /* more lanes than dies would share dies */
    fs->parallel = parallel ? parallel : 1;
    fs->ndies = dies;
    if (fs->parallel == 1)
        return 0;
    size_t n = fs->parallel - 1;
    if (!(fs->lane = lfs_zalloc(fs, n * sizeof *fs->lane)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct lfs_areaw *a = &fs->lane[i];
        if (!(a->page = lfs_alloc(fs, fs->g.page_size)) || !(a->pend = lfs_alloc(fs, pend_bytes)))
            return -ENOMEM;
        memset(a->page, 0xff, fs->g.page_size);
    }
    return 0;
}

void lfs_lanes_free(struct logfs *fs, size_t pend_bytes)
{
    if (!fs->lane)
        return;
    for (uint32_t i = 0; i + 1 < fs->parallel; i++) {
        lfs_free(fs, fs->lane[i].page, fs->g.page_size);
        lfs_free(fs, fs->lane[i].pend, pend_bytes);
    }
    lfs_free(fs, fs->lane, (fs->parallel - 1) * sizeof *fs->lane);
    fs->lane = NULL;
}

struct lfs_areaw *lfs_lane_pick(struct logfs *fs, unsigned area)
{
    if (area != LFS_AREA_DATA || fs->parallel == 1)
        return &fs->area[area];
    uint32_t k = fs->lane_next++ % fs->parallel;
    return k ? &fs->lane[k - 1] : &fs->area[area];
}

struct lfs_areaw *lfs_lane_extra(struct logfs *fs, uint32_t i)
{
    return fs->lane && i + 1 < fs->parallel ? &fs->lane[i] : NULL;
}

int lfs_lane_has(const struct logfs *fs, uint32_t seg)
{
    for (uint32_t i = 0; fs->lane && i + 1 < fs->parallel; i++)
        if (fs->lane[i].seg == seg)
            return 1;
    return 0;
}

uint32_t lfs_die_of(const struct logfs *fs, uint32_t seg)
{
    return (uint32_t)(seg / (fs->g.nblocks / fs->ndies));
}

/* Segments of the free-segment scan, i-th: in parallel mode dies take
 * turns, so that a pool filled in scan order holds every die. */
uint32_t lfs_seg_scan_order(const struct logfs *fs, uint32_t i)
{
    if (fs->parallel == 1)
        return i;
    uint32_t per = (uint32_t)(fs->g.nblocks / fs->ndies);
    return (i % fs->ndies) * per + i / fs->ndies;
}

/* How busy a die is with open segments: a data lane counts far more than
 * another area's segment, so that lanes never share a die while one has
 * none, and the other areas then spread over the rest. */
static uint32_t open_on_die(const struct logfs *fs, uint32_t die)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < LFS_NAREAS; i++)
        if (fs->area[i].seg && lfs_die_of(fs, fs->area[i].seg) == die)
            n += i == LFS_AREA_DATA ? 1024 : 1;
    for (uint32_t i = 0; fs->lane && i + 1 < fs->parallel; i++)
        n += fs->lane[i].seg && lfs_die_of(fs, fs->lane[i].seg) == die ? 1024 : 0;
    return n;
}

uint32_t lfs_pool_pick(const struct logfs *fs, const struct lfs_free_seg *pool,
                       uint32_t n, uint32_t dflt)
{
    if (fs->parallel == 1)
        return dflt;
    uint32_t best = dflt, least = open_on_die(fs, lfs_die_of(fs, pool[dflt].seg));
    for (uint32_t i = 0; i < n && least; i++) {
        uint32_t c = open_on_die(fs, lfs_die_of(fs, pool[i].seg));
        if (c < least) {
            least = c;
            best = i;
        }
    }
    return best;
}

uint8_t *lfs_page_buffer(struct logfs *fs)
{
    uint8_t *b = nand_page_buffer(fs->dev);
    if (b)
        fs->mem_bytes += fs->g.page_size; /* counted as the fs's, as before */
    return b;
}

void lfs_page_buffer_free(struct logfs *fs, uint8_t *buf)
{
    if (buf)
        fs->mem_bytes -= fs->g.page_size;
    nand_page_buffer_free(fs->dev, buf);
}

int lfs_flash_program(struct logfs *fs, uint32_t seg, uint32_t page, uint8_t **buf)
{
    if (fs->parallel == 1) {
        /* the page is handed to the device, not copied, and a fresh
         * buffer takes its place (without one, the page is copied) */
        uint8_t *next = nand_page_buffer(fs->dev);
        if (!next)
            return lfs_flash_rc(nand_program(fs->dev, seg, page, *buf, NULL, NULL));
        int nrc = nand_program_buffer(fs->dev, seg, page, *buf, NULL);
        *buf = next;
        return lfs_flash_rc(nrc);
    }
    /* the simulator takes the bytes at submit: buf may be reused */
    struct nand_op op = {.kind = NAND_OP_PROGRAM, .block = seg, .page = page,
                         .data = *buf};
    return lfs_flash_rc(nand_submit(fs->dev, &op));
}

int lfs_flash_erase(struct logfs *fs, uint32_t seg)
{
    if (fs->parallel == 1)
        return lfs_flash_rc(nand_erase(fs->dev, seg, NULL));
    struct nand_op op = {.kind = NAND_OP_ERASE, .block = seg};
    return lfs_flash_rc(nand_submit(fs->dev, &op));
}

void lfs_flash_wait(struct logfs *fs)
{
    if (fs->parallel > 1)
        nand_wait(fs->dev);
}

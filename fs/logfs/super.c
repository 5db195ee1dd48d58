/*
 * super.c -- mkfs, mount, sync, unmount.
 *
 * mkfs finds the bad blocks once (the only full scan there is), writes the
 * superblock to block 0 and a copy to the last good block, records every
 * block that is not a free segment in the segment file, and commits an
 * empty root directory.  mount reads the superblock and the anchor ring --
 * a bounded number of pages whatever the device size or the data on it --
 * and is ready; the open segments of the previous mount are left closed at
 * the positions the anchor recorded.
 */
#include "ops.h"

_Static_assert(LOGFS_FORMAT_VERSION == LFS_READ_VERSION &&
               LOGFS_FORMAT_OLDEST == LFS_OLDEST_READ_VERSION, "logfs.h and lfs_format.h agree");
#include "rng.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#define SB_BACKUP_SEARCH 64 /* blocks searched from the end for the copy */
/* objects pending in an area: those with bytes in its page buffer and, on
 * paired parts, in the pair_span pages before it -- at most one per
 * header's worth, plus the one running in and the one being added */
#define PEND_MAX(g) ((1 + (g)->pair_span) * (g)->page_size / LFS_OBJ_HDR + 2)

/* The dirty limit unless the mount sets one. */
#define DIRTY_DEFAULT (1u << 20)

static void options_default(const struct logfs_options *in, struct logfs_options *o)
{
    static const struct logfs_options none;
    *o = in ? *in : none;
    if (!o->block_size) o->block_size = 4096;
    if (!o->anchor_blocks) o->anchor_blocks = 4;
    if (!o->reserve_segments) o->reserve_segments = 8;
    if (!o->dirty_bytes) o->dirty_bytes = DIRTY_DEFAULT;
    if (!o->gc_policy) o->gc_policy = "greedy";
    if (!o->gc_window) o->gc_window = 64;
    if (!o->gc_choices) o->gc_choices = 8;
    if (!o->gc_seed) o->gc_seed = 1;
    if (!o->gc_free_min) o->gc_free_min = 4;
    if (!o->wl_threshold) o->wl_threshold = 100;
    if (!o->gc_idle_free) o->gc_idle_free = 16;
}

/* The node cache's bound unless the mount sets one: 4 MiB, or 1/256 of
 * the device when that is more.  The first-level indirect blocks of a
 * full device are 1/512 of it (an 8-byte pointer per block), and a
 * random overwrite whose indirect block is not cached reads it from flash
 * first: with a fixed 4 MiB, an 8 GiB device at steady state read one
 * extra object per host write.  Linux's LogFS keeps them in the page
 * cache, bounded only by memory. */
static uint64_t default_cache(const struct lfs_geo *g)
{
    uint64_t scaled = (uint64_t)g->nblocks * g->seg_bytes / 256;
    return scaled > (4u << 20) ? scaled : 4u << 20;
}

/* The cleaning and wear-leveling choices of one mount. */
static int gc_options(const struct logfs_options *o, struct logfs *fs)
{
    if (!(lfs_gc_of(fs)->policy = gc_policy_find(o->gc_policy)) ||
        (o->wear_leveling != LOGFS_WL_DYNAMIC && o->wear_leveling != LOGFS_WL_NONE &&
         o->wear_leveling != LOGFS_WL_STATIC))
        return -EINVAL;
    lfs_gc_of(fs)->ctx = (struct gc_ctx){.seed = o->gc_seed, .window = o->gc_window,
                                 .choices = o->gc_choices};
    lfs_gc_of(fs)->free_min = o->gc_free_min;
    lfs_gc_of(fs)->idle_free = o->gc_idle_free;
#ifdef LFS_GCIDX_CHECK
    lfs_gc_of(fs)->check_index = 1;
#endif
    lfs_ops_of(fs)->op_kind = LFS_OP_BACKGROUND; /* no call under way */
    lfs_gc_of(fs)->separate = o->gc_separate != 0;
    fs->wear_leveling = o->wear_leveling;
    lfs_gc_of(fs)->wl_threshold = o->wl_threshold;
    fs->scrub.threshold = o->scrub_threshold;
    if (o->max_utilisation &&
        logfs_utilisation_fits(o->max_utilisation, fs->g.seg_bytes, fs->g.block_size, NULL, 0))
        return -EINVAL;
    fs->max_util_ppm = (uint32_t)(o->max_utilisation * 1e6 + 0.5); /* 0: the old bound */
    return 0;
}

const char *logfs_gc_policy_name(unsigned i, const char **summary)
{
    const struct gc_policy *p = gc_policy_at(i);
    if (summary)
        *summary = p ? p->summary : NULL;
    return p ? p->name : NULL;
}

static void fs_free(struct logfs *fs);

/* Writers stop while the next commit could still need every area to open
 * a segment and the dirty data to fill more, beyond the cleaner's reserve
 * chosen at mkfs.  The dirty data's segments come out of those the
 * cleaner would otherwise manage, so a limit the device cannot spare
 * (dirty=1G on a few MiB left writers no room at all) is clamped: to a
 * sixteenth of those segments, or the default limit when that is more
 * and fits in half of them.  Commits then come as space requires. */
static void set_reserve(struct logfs *fs, uint32_t reserve_segments)
{
    uint64_t base = (uint64_t)reserve_segments + LFS_NAREAS + (fs->parallel - 1) + 1;
    uint64_t room = fs->sb.segments > base + 2 ? fs->sb.segments - base - 2 : 0;
    uint64_t most = room / 2 * fs->g.seg_bytes;
    if (most > DIRTY_DEFAULT)
        most = DIRTY_DEFAULT;
    if (most < room / 16 * fs->g.seg_bytes)
        most = room / 16 * fs->g.seg_bytes;
    if (most < fs->g.block_size)
        most = fs->g.block_size;
    if (fs->dirty_limit > most)
        fs->dirty_limit = most;
    fs->reserve = (uint32_t)(base + fs->dirty_limit / fs->g.seg_bytes);
}

/* A fresh in-RAM fs over dev with geometry g (no flash access). */
static int fs_new(nand_dev *dev, const struct lfs_geo *g,
                  const struct logfs_options *o, struct logfs **out)
{
    struct lfs_ops *ops = calloc(1, sizeof *ops);
    if (!ops)
        return -ENOMEM;
    struct logfs *fs = &ops->t.fs;
    fs->mem_bytes = sizeof *ops;
    ops->fds.mem = &fs->mem_bytes; /* the fd table counts what it holds */
    fs->dev = dev;
    fs->tree = &lfs_tree_hooks;
    fs->g = *g;
    fs->ptrs_per_block = g->block_size / 8;
    fs->max_file_bytes = lfs_file_max_bytes(g->block_size);
    fs->dirty_limit = o->dirty_bytes;
    fs->clock = o->clock;
    fs->clock_ctx = o->clock_ctx;
    fs->epoch_ns = o->epoch_ns;
    if (gc_options(o, fs)) {
        free(ops);
        return -EINVAL;
    }
    int ok = !lfs_cache_init(fs, o->cache_bytes ? o->cache_bytes : default_cache(g));
    ok = ok && (fs->scratch = lfs_alloc(fs, LFS_OBJ_HDR + g->block_size));
    for (unsigned i = 0; ok && i < LFS_NAREAS; i++) {
        ok = (fs->area[i].page = lfs_page_buffer(fs)) != NULL &&
             (fs->area[i].pend = lfs_alloc(fs, PEND_MAX(g) * sizeof *fs->area[i].pend));
        if (ok)
            memset(fs->area[i].page, 0xff, g->page_size);
    }
    ok = ok && !lfs_lanes_init(fs, o->parallel, PEND_MAX(g) * sizeof *fs->area[0].pend);
    if (!ok) {
        fs_free(fs);
        return -ENOMEM;
    }
    *out = fs;
    return 0;
}

/* The data blocks' compression: the mount's choice, else mkfs's.  A
 * format-4 image stays format 4: nothing compressed is written to it.  A
 * read-only mount writes nothing: no compressor. */
static int set_compress(struct logfs *fs, const struct logfs_options *o, int readonly)
{
    unsigned m = o->compress ? (unsigned)(o->compress - LOGFS_COMPRESS_NONE) : fs->sb.compress;
    if (m >= LFS_COMPR_METHODS)
        return -EINVAL;
    if (m && fs->sb.read_version < LFS_COMPR_VERSION && !readonly)
        return -EOPNOTSUPP; /* its readers know no compressed objects */
    fs->compress = m;
    if (m && !readonly && (!(fs->cbuf = lfs_alloc(fs, LFS_COMPR_BOUND(fs->g.block_size))) ||
              !(fs->packer = lfs_packer_new(m))))
        return -ENOMEM;
    fs->mem_bytes += lfs_packer_bytes(fs->packer); /* allocated by zlib and lzo */
    return 0;
}

static void fs_free(struct logfs *fs)
{
    lfs_cache_destroy(fs);
    lfs_inode_free_all(fs);
    lfs_gcidx_free(fs);
    lfs_sflive_free(fs);
    lfs_segtab_free(fs);
    for (unsigned i = 0; i < LFS_NAREAS; i++) {
        lfs_page_buffer_free(fs, fs->area[i].page);
        lfs_free(fs, fs->area[i].pend, PEND_MAX(&fs->g) * sizeof *fs->area[i].pend);
    }
    lfs_lanes_free(fs, PEND_MAX(&fs->g) * sizeof *fs->area[0].pend);
    lfs_free(fs, fs->scratch, LFS_OBJ_HDR + fs->g.block_size);
    lfs_free(fs, fs->gc_buf, fs->g.seg_bytes);
    lfs_free(fs, fs->gc_cw, fs->g.pages_per_block * sizeof *fs->gc_cw);
    lfs_free(fs, fs->gc_pages, fs->g.pages_per_block * sizeof *fs->gc_pages);
    lfs_free(fs, fs->cbuf, LFS_COMPR_BOUND(fs->g.block_size));
    fs->mem_bytes -= lfs_packer_bytes(fs->packer);
    lfs_packer_free(fs->packer);
    lfs_free(fs, lfs_gc_of(fs)->cand, (size_t)fs->g.nblocks * sizeof *lfs_gc_of(fs)->cand);
    lfs_free(fs, fs->freed, fs->freed_cap * sizeof *fs->freed);
    lfs_scrub_free(fs);
    fs_fdtab_free(&lfs_ops_of(fs)->fds);
    free(lfs_ops_of(fs));
}

static int geo_from(nand_dev *dev, uint32_t block_size, struct lfs_geo *g)
{
    const struct nand_config *c = nand_get_config(dev);
    g->page_size = c->geo.page_size;
    g->pages_per_block = c->geo.pages_per_block;
    g->seg_bytes = g->page_size * g->pages_per_block;
    g->nblocks = nand_blocks(c);
    g->block_size = block_size;
    /* the superblock's block size, or mkfs's: the options' range */
    if (!block_size ||
        logfs_options_check(&(struct logfs_options){.block_size = block_size}, NULL, 0) ||
        g->page_size < LFS_ANCHOR_BYTES || g->page_size < LFS_SB_SIZE ||
        g->seg_bytes < 4 * (block_size + LFS_OBJ_HDR) || g->nblocks > 0xffffffffu ||
        g->nblocks * g->seg_bytes > LFS_MAX_DEVICE_BYTES)
        return -EINVAL;
    /* pairs of adjacent pages would put each anchor record on the lower
     * page of the next one, which may tear it (FORMAT.md section 6.2) */
    g->pair_span = lfs_pair_span(c);
    if (g->pair_span == 1)
        return -EINVAL;
    return 0;
}

static int write_super(nand_dev *dev, const struct lfs_super *sb, uint32_t block)
{
    const struct nand_config *c = nand_get_config(dev);
    uint8_t *page = malloc(c->geo.page_size);
    if (!page)
        return -ENOMEM;
    memset(page, 0xff, c->geo.page_size);
    lfs_super_encode(sb, page);
    int nrc = nand_erase(dev, block, NULL);
    if (!nrc)
        nrc = nand_program(dev, block, 0, page, NULL, NULL);
    free(page);
    return lfs_errno(nrc);
}

int logfs_mkfs(nand_dev *dev, const struct logfs_options *opt)
{
    struct logfs_options o;
    struct lfs_geo g;
    options_default(opt, &o);
    if (logfs_options_check(&o, NULL, 0) || geo_from(dev, o.block_size, &g))
        return -EINVAL;
    /* the one full scan: factory-bad blocks, and the reserved ones */
    uint8_t *bad = calloc(g.nblocks, 1);
    if (!bad)
        return -ENOMEM;
    struct lfs_super sb = {
        .read_version = LFS_READ_VERSION, .write_version = LFS_WRITE_VERSION,
        .block_size = g.block_size, .page_size = g.page_size,
        .pages_per_block = g.pages_per_block, .nblocks = g.nblocks,
        .anchor_count = o.anchor_blocks, .reserve_segments = o.reserve_segments,
        /* differs per device seed and per mkfs (the clock has moved on) */
        .fs_id = rng_mix(nand_get_config(dev)->seed ^ rng_mix(nand_now(dev) + 1)),
        .compress = o.compress ? (uint32_t)(o.compress - LOGFS_COMPRESS_NONE) : LFS_COMPR_NONE,
    };
    int nrc = 0;
    uint64_t good = 0;
    for (uint64_t b = 0; b < g.nblocks && nrc >= 0; b++)
        if ((nrc = nand_is_bad(dev, (nand_block_t)b)) > 0)
            bad[b] = 1;
        else if (nrc == 0)
            good++;
    if (nrc < 0 || bad[0] || good < o.anchor_blocks + o.reserve_segments + 8) {
        free(bad);
        return nrc < 0 ? lfs_errno(nrc) : -ENOSPC;
    }
    uint32_t na = 0;
    for (uint32_t b = 1; b < g.nblocks && na < o.anchor_blocks; b++)
        if (!bad[b])
            sb.anchor_blocks[na++] = b;
    /* the copy goes where mount looks for it: the last good block among
     * the last SB_BACKUP_SEARCH */
    for (uint64_t b = g.nblocks; b-- > 1 && b + SB_BACKUP_SEARCH >= g.nblocks;)
        if (!bad[b]) {
            sb.backup_block = (uint32_t)b;
            break;
        }
    if (!sb.backup_block || na < o.anchor_blocks) {
        free(bad);
        return -EIO;
    }

    struct logfs *fs;
    int rc = fs_new(dev, &g, &o, &fs);
    if (rc) {
        free(bad);
        return rc;
    }
    fs->sb = sb;
    if ((rc = set_compress(fs, &o, 0))) {
        fs_free(fs);
        free(bad);
        return rc;
    }
    set_reserve(fs, sb.reserve_segments);
    fs->an.next_ino = LFS_INO_FIRST_FREE;
    fs->an.inodefile.ino = LFS_INO_INODEFILE;
    fs->an.segfile.ino = LFS_INO_SEGFILE;
    fs->ring.version = LFS_READ_VERSION;
    fs->ring.count = na;
    memcpy(fs->ring.blocks, sb.anchor_blocks, sizeof fs->ring.blocks);
    fs->ring.cur = na / 2 - 1; /* logical: each mirror has na / 2 */
    fs->ring.next_page = g.pages_per_block; /* first record: blocks[0] */

    /* segment file: only the blocks that are not free need an entry */
    for (uint64_t b = 0; b < g.nblocks && !rc; b++) {
        int reserved = b == 0 || b == sb.backup_block;
        for (uint32_t i = 0; i < na; i++)
            reserved |= sb.anchor_blocks[i] == b;
        struct lfs_segent e = {.state = bad[b] ? LFS_SEG_BAD : LFS_SEG_RESERVED};
        if (bad[b] || reserved)
            rc = lfs_seg_put(fs, (uint32_t)b, &e);
        else
            fs->an.free_segments++;
    }
    fs->sb.segments = sb.segments = (uint32_t)fs->an.free_segments;
    free(bad);
    struct lfs_inode root = {.ino = LFS_INO_ROOT, .mode = S_IFDIR | 0755, .nlink = 2};
    if (o.clock || o.epoch_ns) /* else 0, as before clocks were chosen */
        root.atime = root.mtime = root.ctime = lfs_now(fs);
    if (!rc)
        rc = lfs_inode_create_at(fs, &root);
    if (!rc)
        rc = write_super(dev, &sb, 0);
    if (!rc)
        rc = write_super(dev, &sb, sb.backup_block);
    for (uint32_t i = 0; i < na && !rc; i++)
        rc = lfs_errno(nand_erase(dev, sb.anchor_blocks[i], NULL));
    if (!rc)
        rc = lfs_commit(fs);
    fs_free(fs);
    return rc;
}

/* The superblock from block 0, or the copy in the last good block.
 * *bits: the worst ECC codeword of block 0's read when it gave the
 * superblock, else UINT32_MAX (block 0 is damaged: the copy was used). */
static int super_find(nand_dev *dev, struct lfs_super *sb, uint32_t *bits)
{
    const struct nand_config *c = nand_get_config(dev);
    uint8_t buf[LFS_SB_SIZE];
    uint64_t n = nand_blocks(c);
    int rc = -EINVAL;
    *bits = UINT32_MAX;
    for (uint64_t k = 0; k <= SB_BACKUP_SEARCH && k < n; k++) {
        uint64_t b = k == 0 ? 0 : n - k;
        struct nand_result res = {0};
        int nrc = nand_read_col(dev, (nand_block_t)b, 0, 0, buf, LFS_SB_SIZE, &res);
        if (nrc == NAND_E_POWER)
            return -EIO;
        if (nrc == NAND_OK && (rc = lfs_super_decode(buf, sb)) != -EINVAL) {
            *bits = k == 0 ? res.max_cw_bits : UINT32_MAX;
            return rc;
        }
    }
    return rc;
}

int lfs_super_find(nand_dev *dev, struct lfs_super *sb)
{
    uint32_t bits;
    return super_find(dev, sb, &bits);
}

/* Files unlinked while open when the power went: delete them now.  The
 * anchor lists LFS_ORPHAN_MAX of them; past that it asks for a scan of the
 * inode file (linear in the inodes, only after such a crash). */
static int delete_orphans(struct logfs *fs)
{
    uint64_t orphans[LFS_ORPHAN_MAX];
    uint32_t norphans = fs->an.norphans;
    memcpy(orphans, fs->an.orphans, sizeof orphans);
    for (uint32_t i = 0; i < norphans; i++) {
        struct lfs_inode *in;
        int rc = lfs_inode_get(fs, orphans[i], &in);
        if (!rc && in->nlink == 0)
            rc = lfs_inode_release(fs, in);
        if (rc && rc != -ENOENT)
            return rc;
    }
    for (uint64_t ino = LFS_INO_FIRST_FREE; fs->orphan_scan;) {
        uint64_t found;
        struct lfs_inode *in;
        int rc = lfs_tree_next(fs, &fs->an.inodefile, ino, &found);
        if (!rc && found == UINT64_MAX) {
            fs->orphan_scan = 0; /* the next commit clears the flag */
            break;
        }
        if (!rc && !(rc = lfs_inode_get(fs, found, &in)) && in->nlink == 0)
            rc = lfs_inode_release(fs, in);
        if (rc && rc != -ENOENT)
            return rc;
        lfs_op_end_ro(fs, 0); /* keep the memory bound */
        ino = found + 1;
    }
    return 0;
}

int logfs_mount(nand_dev *dev, const struct logfs_options *opt, logfs **out)
{
    struct logfs_options o;
    struct lfs_super sb;
    struct lfs_geo g;
    options_default(opt, &o);
    uint32_t sb_bits;
    int rc = super_find(dev, &sb, &sb_bits), readonly = rc == -EROFS || o.readonly;
    if (rc && !readonly)
        return rc == -EINVAL ? -EINVAL : rc;
    if (geo_from(dev, sb.block_size, &g) || sb.page_size != g.page_size ||
        sb.pages_per_block != g.pages_per_block || sb.nblocks != g.nblocks)
        return -EINVAL; /* a superblock for another device */
    for (uint32_t i = 0; i < sb.anchor_count; i++)
        if (sb.anchor_blocks[i] == 0 || sb.anchor_blocks[i] >= g.nblocks)
            return -EINVAL;
    struct logfs *fs;
    if ((rc = fs_new(dev, &g, &o, &fs)))
        return rc;
    fs->sb = sb;
    if ((rc = set_compress(fs, &o, readonly))) {
        fs_free(fs);
        return rc;
    }
    fs->readonly = readonly;
    set_reserve(fs, sb.reserve_segments); /* mkfs's choice holds */
    fs->ring.version = sb.read_version;
    fs->ring.count = sb.anchor_count;
    memcpy(fs->ring.blocks, sb.anchor_blocks, sizeof fs->ring.blocks);
    if ((rc = lfs_ring_find(dev, &fs->ring, &fs->an))) {
        fs_free(fs);
        return rc == -ENOENT ? -EINVAL : rc;
    }
    if (fs->an.inodefile.ino != LFS_INO_INODEFILE ||
        fs->an.segfile.ino != LFS_INO_SEGFILE) {
        fs_free(fs);
        return -EINVAL;
    }
    /* the reads mount made, judged as any read when scrubbing is on: a
     * damaged or ageing superblock or newest record is refreshed by the
     * next call that may write (scrubfixed.c) */
    if (fs->scrub.threshold && !readonly) {
        if (sb_bits >= fs->scrub.threshold)
            lfs_scrub_super_due(fs, 0);
        fs->scrub.ring_due = fs->ring.found_bits >= fs->scrub.threshold;
    }
    /* before the flags change below: a clean unmount with more files open
     * unlinked than the list holds asks for the scan too */
    fs->orphan_scan = (fs->an.flags & LFS_ANCHOR_ORPHAN_SCAN) != 0;
    /* after a clean unmount nothing follows the recorded positions: go on
     * filling the open segments; after a crash, pages past them may hold
     * uncommitted or torn data, so those segments stay closed */
    if ((fs->an.flags & LFS_ANCHOR_CLEAN) && !readonly) {
        /* first say on flash that this is no longer a clean state: a
         * crash from here on must not resume past what gets written */
        fs->an.flags &= ~LFS_ANCHOR_CLEAN;
        fs->an.seq++;
        if (lfs_ring_write(dev, &fs->ring, &fs->an, 0)) {
            /* flash that cannot take the record: offer what is there,
             * read-only */
            fs->an.seq--;
            readonly = fs->readonly = 1;
        }
        fs->an.flags = LFS_ANCHOR_CLEAN; /* for the loop below only */
    }
    for (unsigned i = 0; i < LFS_NAREAS && (fs->an.flags & LFS_ANCHOR_CLEAN) && !readonly; i++) {
        const struct lfs_area_pos *ap = &fs->an.area[i];
        if (ap->seg && ap->seg < g.nblocks && ap->off < g.seg_bytes &&
            ap->off % g.page_size == 0)
            lfs_area_resume(fs, i, ap->seg, ap->off);
    }
    fs->an.flags = 0;
    if (!readonly && (rc = delete_orphans(fs))) {
        fs_free(fs);
        return rc;
    }
    *out = fs;
    return 0;
}

int logfs_sync(logfs *fs)
{
    lfs_op_begin(fs, LOGFS_OP_SYNC);
    return (int)lfs_op_end_ro(fs, lfs_sync_all(fs));
}

/* The last commit says it was the last: the next mount may then go on
 * writing the open segments where they stand, since nothing was written
 * after this anchor. */
int logfs_unmount(logfs *fs)
{
    int rc = 0;
    if (!fs->readonly && !fs->failed && (lfs_anything_dirty(fs) || !(fs->an.flags & LFS_ANCHOR_CLEAN)))
        rc = lfs_commit_flags(fs, LFS_ANCHOR_CLEAN);
    else if ((fs->failed || fs->ctr.segfile_unreadable) && lfs_anything_dirty(fs))
        rc = -EIO; /* changes no commit could take are lost */
    fs_free(fs);
    return rc;
}

void logfs_get_stats(const logfs *fs, struct logfs_stats *st)
{
    st->commits = fs->an.seq;
    st->live_bytes = fs->an.live_bytes;
    st->mem_bytes = fs->mem_bytes;
    st->cache_hits = fs->cache.hits;
    st->cache_misses = fs->cache.misses;
    st->next_ino = fs->an.next_ino;
    st->relocations = fs->relocated;
    st->host_bytes = fs->an.host_bytes_written;
    st->pages_data = fs->ctr.pages[LFS_AREA_DATA] + fs->ctr.pages[LFS_AREA_MOVED];
    st->pages_meta = 0;
    for (unsigned i = LFS_AREA_DATA + 1; i <= LFS_AREA_SEGFILE; i++)
        st->pages_meta += fs->ctr.pages[i];
    st->pages_anchor = fs->ring.pages;
    st->pages_gc = fs->ctr.gc_bytes / fs->g.page_size;
    st->erases = fs->ctr.erases + fs->ring.erases;
    st->gc_rounds = fs->ctr.gc_rounds;
    st->gc_objects = fs->ctr.gc_objects;
    st->gc_bytes = fs->ctr.gc_bytes;
    st->gc_time_ns = fs->ctr.gc_time_ns;
    st->wl_moves = fs->ctr.wl_moves;
    st->gc_fallbacks = fs->ctr.gc_fallbacks;
    st->gc_unreadable = fs->ctr.gc_unreadable;
    st->segfile_unreadable = fs->ctr.segfile_unreadable;
    st->scrub_flagged = fs->ctr.scrub_flagged;
    st->scrub_reads = fs->ctr.scrub_reads;
    st->scrub_segments = fs->ctr.scrub_segments;
    st->scrub_pages = (fs->ctr.scrub_bytes + fs->g.page_size - 1) / fs->g.page_size;
    st->scrub_super = fs->ctr.scrub_super;
    st->scrub_anchor = fs->ctr.scrub_anchor;
    st->anchor_bad = fs->ring.bad;
    st->anchor_left = lfs_ring_len(&fs->ring) - fs->ring.bad;
    st->cleanable_bytes = lfs_cleanable_bytes(fs);
    st->cleanable_segments = lfs_cleanable_segments(fs);
    uint64_t bs = fs->g.block_size, obj = bs + LFS_OBJ_HDR;
    st->data_overhead_ppm = (LFS_OBJ_HDR * 1000000 + obj * 1000000 / fs->ptrs_per_block) / bs;
    st->data_raw_bytes = fs->ctr.data_raw;
    st->data_stored_bytes = fs->ctr.data_stored;
    st->compress = LOGFS_COMPRESS_NONE + fs->compress;
    st->free_segments = fs->an.free_segments;
    st->anchor_seq = fs->ring.found_seq;
    st->anchor_fallback = fs->ring.lost;
}

const char *logfs_block_role(const logfs *fs, uint32_t block)
{
    if (block == 0 || block == fs->sb.backup_block)
        return "superblock";
    for (uint32_t i = 0; i < fs->ring.count; i++)
        if (fs->ring.blocks[i] == block)
            return "anchor";
    return "segment";
}

int logfs_format_version(nand_dev *dev, uint32_t *read_version, uint32_t *write_version)
{
    struct lfs_super sb;
    int rc = lfs_super_find(dev, &sb);
    if (rc && rc != -EROFS && rc != -EPROTO)
        return rc;
    *read_version = sb.read_version;
    *write_version = sb.write_version;
    return 0;
}

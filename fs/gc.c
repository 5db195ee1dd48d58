/*
 * gc.c -- the cleaner (greedy; issue 5 makes the policy pluggable).
 *
 * A victim is the closed segment with the fewest live bytes.  Its objects
 * are read front to back; each header says which file, level and block it
 * is, and the object is live when the tree's pointer at that place is this
 * very object.  Live objects are loaded into the cache and dirtied, so the
 * next commit writes them elsewhere; the victim joins the segments freed by
 * that commit.  Nothing on flash changes until that commit, so a power cut
 * during cleaning loses nothing.
 */
#include "lfs.h"

#include <errno.h>

uint64_t lfs_capacity(const struct logfs *fs)
{
    uint64_t segs = fs->sb.segments > fs->reserve + 2 ? fs->sb.segments - fs->reserve - 2 : 0;
    /* keep the cleaner's work bounded: at most 85% of the space it manages
     * may be live, so a victim is at worst 85% full */
    return segs * fs->g.seg_bytes / 100 * 85;
}

static int is_open(const struct logfs *fs, uint32_t seg)
{
    for (unsigned i = 0; i < LFS_NAREAS; i++)
        if (fs->area[i].seg == seg)
            return 1;
    return 0;
}

static int pending(const struct logfs *fs, uint32_t seg)
{
    for (uint32_t i = 0; i < fs->nfreed; i++)
        if (fs->freed[i] == seg)
            return 1;
    return 0;
}

/* The used, closed segment with the fewest live bytes. */
static int pick_victim(struct logfs *fs, uint32_t *victim, uint32_t *live)
{
    *live = UINT32_MAX;
    for (uint32_t s = 0; s < fs->g.nblocks; s++) {
        struct lfs_segent e;
        int rc = lfs_seg_get(fs, s, &e);
        if (rc)
            return rc;
        if ((e.state != LFS_SEG_USED && e.state != LFS_SEG_BAD) || is_open(fs, s) ||
            pending(fs, s))
            continue;
        uint32_t l = e.live;
        if (e.area == LFS_AREA_SEGFILE && (rc = lfs_sflive_get(fs, s, &l)))
            return rc;
        /* a retired (bad) segment is cleaned while it still holds data */
        if (e.state == LFS_SEG_BAD && l == 0)
            continue;
        if (l < *live) {
            *live = l;
            *victim = s;
        }
    }
    return *live == UINT32_MAX ? -ENOSPC : 0;
}

/* Dirty the object at p (header o) if the tree still points to it. */
static int keep_if_live(struct logfs *fs, const struct lfs_obj *o, lfs_ptr p)
{
    struct lfs_inode *in;
    int rc = lfs_inode_get(fs, o->ino, &in);
    if (rc == -ENOENT)
        return 0; /* the file is gone */
    if (rc)
        return rc;
    lfs_ptr cur;
    if ((rc = lfs_tree_ptr(fs, in, o->level, o->bix, &cur)))
        return rc;
    if (cur != p)
        return 0; /* replaced or deleted since */
    struct lfs_node *n;
    if ((rc = lfs_tree_get(fs, in, o->level, o->bix, 0, &n)))
        return rc;
    if (n)
        lfs_node_dirty(fs, n);
    return 0;
}

static int clean_segment(struct logfs *fs, uint32_t seg)
{
    uint32_t ps = fs->g.page_size, sb = fs->g.seg_bytes;
    /* kept between rounds: a fresh segment-sized buffer each time costs
     * page faults that dominated cleaning */
    if (!fs->gc_buf && !(fs->gc_buf = lfs_alloc(fs, sb)))
        return -ENOMEM;
    uint8_t *buf = fs->gc_buf;
    int rc = 0;
    /* read the whole segment; unreadable pages read as garbage */
    for (uint32_t p = 0; p < fs->g.pages_per_block && !rc; p++) {
        int nrc = nand_read(fs->dev, seg, p, buf + (size_t)p * ps, NULL, NULL);
        if (nrc == NAND_E_ECC)
            memset(buf + (size_t)p * ps, 0xff, ps);
        else if (nrc)
            rc = lfs_errno(nrc);
    }
    for (uint32_t off = 0; !rc && off + LFS_OBJ_HDR <= sb;) {
        struct lfs_obj o;
        if (lfs_obj_decode(buf + off, &o)) {
            off = (off / ps + 1) * ps; /* padding or garbage: next page */
            continue;
        }
        uint32_t total = LFS_OBJ_HDR + o.len;
        if (off + total > sb)
            break;
        lfs_ptr p = lfs_ptr_make((uint64_t)seg * sb + off, total);
        rc = keep_if_live(fs, &o, p);
        off += total;
    }
    return rc;
}

int lfs_gc(struct logfs *fs, uint32_t want_free, uint32_t max_live)
{
    /* stop when rounds stop paying: a victim's live data refilling as
     * much as it frees means the device is as full as it can get */
    for (int stalls = 0; fs->an.free_segments < want_free && stalls < 3;) {
        uint64_t before = fs->an.free_segments;
        uint32_t victim = 0, live;
        int rc = pick_victim(fs, &victim, &live);
        if (rc == -ENOSPC || live > max_live || live >= fs->g.seg_bytes - fs->g.page_size)
            return 0; /* nothing (worth it) to gain */
        /* an empty victim is freed at once; otherwise moving its objects
         * takes its count to zero, which frees it */
        if (rc || (rc = clean_segment(fs, victim)) ||
            (!live && (rc = lfs_seg_freed_add(fs, victim))) || (rc = lfs_commit(fs)))
            return rc;
        stalls = fs->an.free_segments > before ? 0 : stalls + 1;
    }
    return 0;
}

int lfs_space_check(struct logfs *fs, uint64_t new_bytes)
{
    if (fs->an.free_segments < fs->reserve) {
        int rc = lfs_gc(fs, fs->reserve + 2, UINT32_MAX);
        if (rc)
            return rc;
        if (fs->an.free_segments < fs->reserve)
            return -ENOSPC;
    }
    if (fs->an.live_bytes + fs->cache.dirty_bytes + new_bytes > lfs_capacity(fs))
        return -ENOSPC;
    return 0;
}

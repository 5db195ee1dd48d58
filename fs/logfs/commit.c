/*
 * commit.c -- one commit point: write what is dirty, bottom-up, then the
 * anchor.
 *
 * Order: ordinary files level by level (data, then indirect 1..5: a level's
 * pointers are known once the level below is written), then the dirty
 * inodes into the inode file and its levels, then the segment file (its
 * entries changed by all of the above), the partial pages of every area,
 * and last the anchor record.  Until the anchor page is programmed the
 * previous tree is intact on flash.
 */
#include "tree.h"

#include <errno.h>

/* Bounds that turn a commit that cannot settle into -EIO instead of a
 * hang: whole passes (each failed page program sends its objects back to
 * the dirty lists for another pass), and rounds of the segment file
 * rewriting its own entries within one pass (each dirties a few blocks at
 * most, so a healthy commit needs two or three). */
#define COMMIT_MAX_PASSES 16
#define SEGFILE_MAX_ROUNDS 64

/* The payload of a file's data block as stored: compressed into
 * fs->cbuf when that is shorter (o says so), else the block itself. */
static const uint8_t *compress_data(struct logfs *fs, const struct lfs_node *n,
                                    struct lfs_obj *o)
{
    uint32_t c = fs->compress ? lfs_compress(fs->packer, n->data, o->len, fs->cbuf,
                                             LFS_COMPR_BOUND(fs->g.block_size)) : 0;
    if (!n->moved) { /* the host's data, not the cleaner's copies */
        fs->ctr.data_raw += o->len;
        fs->ctr.data_stored += c ? c : o->len;
    }
    if (!c)
        return n->data;
    o->compr = (uint8_t)fs->compress;
    o->raw_len = o->len;
    o->len = c;
    return fs->cbuf;
}

/* An indirect block with no pointer left.  The slot last set is looked
 * at first: it is almost always still set, and its line is in the cache. */
static int indirect_empty(const struct logfs *fs, const struct lfs_node *n)
{
    uint32_t at = n->set_slot * 8;
    if (at + 8 <= fs->g.block_size && le64_get(n->data + at))
        return 0;
    return lfs_all_bytes(n->data, fs->g.block_size, 0);
}

/* Write one dirty node; *out is its new pointer, or 0 when it was an
 * empty indirect block, which becomes a hole (and leaves the cache). */
static int write_node(struct logfs *fs, struct lfs_node *n, enum lfs_wclass cls,
                      lfs_ptr *out)
{
    lfs_ptr old = n->ptr, p = 0;
    int rc;
    if (n->level && indirect_empty(fs, n)) {
        lfs_cache_remove(fs, n);
    } else {
        uint32_t len = n->len;
        if (n->level == 0 && cls == LFS_WC_FILE)
            while (len && !n->data[len - 1])
                len--; /* trailing zeros of a data block are implied */
        struct lfs_obj o = {
            .type = n->level ? LFS_OBJ_INDIRECT
                             : cls == LFS_WC_INODEFILE ? LFS_OBJ_INODE : LFS_OBJ_DATA,
            .level = n->level, .len = len,
            .ino = n->ino, .bix = n->bix, .seq = fs->an.seq + 1,
        };
        unsigned area = cls == LFS_WC_SEGFILE ? LFS_AREA_SEGFILE
                      : (cls == LFS_WC_INODEFILE ? LFS_AREA_INODE : LFS_AREA_DATA) + n->level;
        if (cls == LFS_WC_FILE && n->level == 0 && n->moved && lfs_gc_of(fs)->separate)
            area = LFS_AREA_MOVED; /* cold by age: apart from fresh data */
        const uint8_t *payload = n->data;
        if (cls == LFS_WC_FILE && n->level == 0)
            payload = compress_data(fs, n, &o);
        /* a moved node's bytes are those read: their CRC is known */
        if ((rc = lfs_area_write(fs, area, &o, payload, n->moved ? &n->pcrc : NULL, &p)))
            return rc;
        n->pcrc = (struct lfs_objcrc){.crc = o.payload_crc, .len = o.len, .ok = !o.compr};
        n->ptr = p;
        lfs_node_clean(fs, n);
    }
    /* the segment file's own objects are counted in RAM (sflive.c) */
    int (*account)(struct logfs *, lfs_ptr, int) =
        cls == LFS_WC_SEGFILE ? lfs_sflive_account : lfs_seg_account;
    if (old && old != LFS_PTR_PENDING && (rc = account(fs, old, 0)))
        return rc;
    if (p && (rc = account(fs, p, 1)))
        return rc;
    *out = p;
    return 0;
}

/* Write every dirty node of one class, lowest level first, hanging each
 * from its parent (which dirties the parent, one level up). */
/* Start loading the block write_node will look at next: a node was
 * dirtied long before its commit (an indirect block by a random
 * overwrite below it), and the first load of its block missed the
 * caches every time. */
static void prefetch_block(const struct logfs *fs, const struct lfs_node *n)
{
    __builtin_prefetch(n->data);
    if (n->level && n->set_slot * 8 < fs->g.block_size)
        __builtin_prefetch(n->data + n->set_slot * 8);
}

static int write_class(struct logfs *fs, enum lfs_wclass cls)
{
    for (unsigned level = 0; level <= LFS_MAX_HEIGHT; level++) {
        struct lfs_list *l = &fs->cache.dirty[cls][level];
        while (l->count) {
            struct lfs_node *n = l->head.next, place = *n;
            if (n->next != &l->head)
                prefetch_block(fs, n->next);
            struct lfs_inode *in;
            lfs_ptr p;
            int rc = lfs_inode_get(fs, n->ino, &in);
            if (!rc)
                rc = write_node(fs, n, cls, &p);
            if (!rc)
                rc = lfs_tree_set_parent(fs, in, &place, p);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int class_dirty(const struct logfs *fs, enum lfs_wclass cls)
{
    for (unsigned l = 0; l <= LFS_MAX_HEIGHT; l++)
        if (fs->cache.dirty[cls][l].count)
            return 1;
    return 0;
}

int lfs_commit(struct logfs *fs)
{
    return lfs_commit_flags(fs, 0);
}

int lfs_commit_flags(struct logfs *fs, uint32_t flags)
{
    int rc;
    if (fs->readonly)
        return -EROFS;
    if (fs->failed)
        return -EIO;
    /* a page that fails to program sends what was in it back to the dirty
     * lists (area.c), so the whole sequence runs until nothing is left */
    for (int pass = 0;; pass++) {
        if (pass > COMMIT_MAX_PASSES) {
            rc = -EIO;
            goto fail;
        }
        if ((rc = write_class(fs, LFS_WC_FILE)) || (rc = lfs_inode_flush(fs)) ||
            (rc = write_class(fs, LFS_WC_INODEFILE)))
            goto fail;
        /* writing the segment file may open segments and empty some of its
         * own, which changes entries again; each round dirties at most a few
         * blocks, so this ends */
        for (int round = 0; class_dirty(fs, LFS_WC_SEGFILE) || fs->nmarked < fs->nfreed;
             round++) {
            if (round > SEGFILE_MAX_ROUNDS) {
                rc = -EIO;
                goto fail;
            }
            if ((rc = lfs_seg_mark_freed(fs)) || (rc = write_class(fs, LFS_WC_SEGFILE)))
                goto fail;
        }
        if ((rc = lfs_area_flush_all(fs)))
            goto fail;
        if (!class_dirty(fs, LFS_WC_FILE) && !class_dirty(fs, LFS_WC_INODEFILE) &&
            !class_dirty(fs, LFS_WC_SEGFILE))
            break;
    }
    fs->an.seq++;
    fs->an.flags = flags | (fs->orphan_scan ? LFS_ANCHOR_ORPHAN_SCAN : 0);
    /* the segments this commit freed are free on flash with this anchor:
     * count them in it (they join the pool only once it is written) */
    fs->an.free_segments += fs->nfreed;
    for (unsigned i = 0; i < LFS_NAREAS; i++)
        fs->an.area[i] = (struct lfs_area_pos){fs->area[i].seg, fs->area[i].off};
    if ((rc = lfs_ring_write(fs->dev, &fs->ring, &fs->an, 1))) {
        if (rc == -EROFS) /* too few good ring blocks left for two copies */
            fs->readonly = 1;
        goto fail;
    }
    lfs_seg_commit_done(fs);
    fs->itrim_floor = 0; /* the inodes it wrote are clean: a trim may drop them */
    return 0;
fail:
    fs->failed = 1; /* RAM no longer matches any commit; remount */
    return rc;
}

int lfs_anything_dirty(const struct logfs *fs)
{
    return fs->cache.dirty_bytes || fs->nfreed || lfs_inode_any_dirty(fs);
}

int lfs_sync_all(struct logfs *fs)
{
    return lfs_anything_dirty(fs) ? lfs_commit(fs) : 0;
}

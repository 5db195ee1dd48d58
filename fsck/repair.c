/* repair.c -- --repair: one new commit, written the way FORMAT.md
 * section 14 describes one (objects into fresh segments, bottom-up: file
 * blocks, the inode file, the segment file; then an anchor record with
 * seq + 1), carrying the fixes the check planned:
 *
 *   directory entries naming no inode: removed (the bucket rewritten, a
 *   bucket left empty without OVERFLOW becoming a hole), wrong entry types
 *   corrected, directory sizes set to the entry count;
 *   nlink set to what the entries say;
 *   inodes with nlink 0 the anchor does not list: deleted (released);
 *   the segment file rewritten whole from the repaired trees (live counts,
 *   states); the anchor's live_bytes, free_segments, next_ino, pool, orphan
 *   list and bad area positions recomputed.
 *
 * Nothing is repaired when part of the metadata cannot be read: fixing
 * counts from a partial picture could free segments that still hold data. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdlib.h>

struct plan {
    struct fk_anchor na;
    struct fk_writer *w;
    struct fk_change *ch;   /* changes of the inode file */
    size_t nch, ch_cap;
    uint64_t *deleted;
    size_t ndeleted;
    unsigned entries_removed, inodes_written;
};

/* Buckets [a, b) of dents: one bucket, rebuilt without removed entries. */
static int fix_bucket(struct fk *k, struct plan *pl, size_t a, size_t b,
                      uint8_t *out, struct fk_change *c, unsigned *removed)
{
    const struct fk_dent *d0 = &k->dents[a];
    uint32_t len;
    if (fk_obj_load(k, d0->bucket_ptr, FK_CLS_FILE, d0->dir, 0, d0->bucket, &len))
        return -1;
    const uint8_t *in = k->obj + FK_HDR;
    uint32_t o = 1;
    out[0] = in[0];
    for (size_t i = a; i < b; i++) {
        const struct fk_dent *d = &k->dents[i];
        if (d->fix & FK_DFIX_REMOVE) {
            (*removed)++;
            continue;
        }
        memcpy(out + o, in + d->off, 10u + d->name_len);
        if (d->fix & FK_DFIX_TYPE)
            out[o + 8] = d->new_type;
        o += 10u + d->name_len;
    }
    while (o && !out[o - 1])
        o--; /* section 9.1 */
    c->bix = d0->bucket;
    c->ptr = 0; /* section 13: no entries, no OVERFLOW: a hole */
    if (o > 1 || (o == 1 && (out[0] & FK_BUCKET_OVERFLOW)))
        return fk_writer_put(pl->w, 0, FK_DATA, 0, d0->dir, d0->bucket, out, o,
                             &c->ptr);
    return 0;
}

/* A directory's planned entry fixes: its changed buckets, then its tree. */
static int fix_dir(struct fk *k, struct plan *pl, struct fk_ient *ie, size_t first,
                   size_t end)
{
    struct fk_change *ch = malloc((end - first + 1) * sizeof *ch);
    uint8_t *out = malloc(k->bs);
    size_t n = 0;
    unsigned removed = 0;
    int rc = ch && out ? 0 : -1;
    for (size_t a = first; a < end && !rc;) {
        size_t b = a, fix = 0;
        while (b < end && k->dents[b].bucket == k->dents[a].bucket)
            fix |= k->dents[b++].fix;
        if (fix)
            rc = fix_bucket(k, pl, a, b, out, &ch[n++], &removed);
        a = b;
    }
    if (!rc && n)
        rc = fk_cow(pl->w, FK_CLS_FILE, ie->d.ino, &ie->d, ch, n);
    if (!rc && (n || (ie->fix & FK_FIX_SIZE))) {
        ie->d.size = ie->nentries - removed;
        ie->fix |= FK_FIX_TREE;
    }
    pl->entries_removed += removed;
    free(ch);
    free(out);
    return rc;
}

static int dirs(struct fk *k, struct plan *pl)
{
    for (size_t first = 0; first < k->ndents;) {
        size_t end = first, fix = 0;
        while (end < k->ndents && k->dents[end].dir == k->dents[first].dir)
            fix |= k->dents[end++].fix;
        struct fk_ient *ie = fk_find_ino(k, k->dents[first].dir);
        if (fix && ie && fix_dir(k, pl, ie, first, end))
            return -1;
        first = end;
    }
    for (size_t i = 0; i < k->nino; i++) /* size fixes of directories without */
        if ((k->ino[i].fix & FK_FIX_SIZE) && !(k->ino[i].fix & FK_FIX_TREE))
            if (fix_dir(k, pl, &k->ino[i], 0, 0))
                return -1;
    return 0;
}

static int was_deleted(const struct plan *pl, uint64_t ino)
{
    size_t lo = 0, hi = pl->ndeleted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl->deleted[mid] < ino)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pl->ndeleted && pl->deleted[lo] == ino;
}

static int add_change(struct plan *pl, uint64_t bix, uint64_t ptr)
{
    if (fk_grow((void **)&pl->ch, &pl->ch_cap, pl->nch + 1, sizeof *pl->ch))
        return -1;
    pl->ch[pl->nch++] = (struct fk_change){bix, ptr};
    return 0;
}

/* Inode records: rewritten, or deleted; then the inode file's tree. */
static int inodes(struct fk *k, struct plan *pl)
{
    uint8_t rec[FK_INODE_BYTES];
    pl->deleted = malloc((k->nino + 1) * sizeof *pl->deleted);
    if (!pl->deleted)
        return -1;
    for (size_t i = 0; i < k->nino; i++) {
        struct fk_ient *ie = &k->ino[i];
        uint64_t p = 0;
        if (!ie->fix)
            continue;
        if (ie->fix & FK_FIX_DELETE) {
            pl->deleted[pl->ndeleted++] = ie->d.ino;
        } else {
            if (ie->fix & FK_FIX_NLINK)
                ie->d.nlink = ie->new_nlink;
            fk_inode_encode(&ie->d, rec, k->ib);
            if (fk_writer_put(pl->w, FK_AREA_INODE, FK_INODE, 0, 0, ie->d.ino, rec,
                              k->ib, &p))
                return -1;
            pl->inodes_written++;
        }
        if (add_change(pl, ie->d.ino, p))
            return -1;
    }
    if (pl->nch && fk_cow(pl->w, FK_CLS_INODEFILE, 0, &pl->na.inodefile, pl->ch,
                          pl->nch))
        return -1;
    /* the blocks of a deleted inode leave the reachable set with it (the
     * inode numbers came in order, so deleted[] is sorted) */
    for (size_t i = 0; i < k->nrefs && pl->ndeleted; i++)
        if (k->refs[i].cls == FK_CLS_FILE && was_deleted(pl, k->refs[i].ino))
            k->refs[i].dropped = 1;
    for (size_t i = 0; i < k->nino; i++) /* and their reservations */
        if (k->ino[i].fix & FK_FIX_DELETE)
            k->prealloc_bytes -= k->ino[i].prealloc * FK_PREALLOC(k->bs);
    return 0;
}

/* The anchor's counters and lists, from the repaired state. */
static void anchor_fields(struct fk *k, struct plan *pl)
{
    struct fk_anchor *na = &pl->na, old = k->an;
    if (k->nino && na->next_ino <= k->ino[k->nino - 1].d.ino)
        na->next_ino = k->ino[k->nino - 1].d.ino + 1;
    if (na->next_ino < FK_INO_FIRST)
        na->next_ino = FK_INO_FIRST;
    na->norphans = 0;
    for (uint32_t i = 0; i < old.norphans; i++) {
        const struct fk_ient *ie = fk_find_ino(k, old.orphans[i]);
        int dup = 0;
        for (uint32_t j = 0; j < na->norphans; j++)
            dup |= na->orphans[j] == old.orphans[i];
        if (ie && !ie->broken && ie->d.nlink == 0 && !dup &&
            !was_deleted(pl, ie->d.ino))
            na->orphans[na->norphans++] = old.orphans[i];
    }
    memset(na->orphans + na->norphans, 0,
           (FK_ORPHAN_MAX - na->norphans) * sizeof na->orphans[0]);
    na->npool = 0;
    for (uint32_t i = 0; i < old.npool; i++) {
        uint32_t s = old.pool[i].seg;
        int dup = 0;
        for (uint32_t j = 0; j < na->npool; j++)
            dup |= na->pool[j].seg == s;
        if (s < k->nblocks && !fk_reserved_block(k, s) && !dup &&
            k->seg[s].state == FK_FREE && !fk_writer_took(pl->w, s))
            na->pool[na->npool++] = (struct fk_pool_ent){s, k->seg[s].erases};
    }
    memset(na->pool + na->npool, 0, (FK_POOL_MAX - na->npool) * sizeof na->pool[0]);
    na->live_bytes = k->prealloc_bytes;
    for (size_t i = 0; i < k->nrefs; i++)
        if (!k->refs[i].dropped && k->refs[i].cls != FK_CLS_SEGFILE)
            na->live_bytes += k->refs[i].len;
    na->free_segments = 0;
    for (uint64_t s = 0; s < k->nblocks; s++)
        na->free_segments += k->seg[s].state == FK_FREE;
}

static int commit(struct fk *k, struct plan *pl)
{
    pl->na = k->an;
    pl->na.seq = k->an.seq + 1;
    if (!(pl->w = fk_writer_new(k, pl->na.seq, &pl->na.seg_clock)))
        return -1;
    uint16_t keep = (uint16_t)~k->area_bad;
    for (unsigned i = 0; i < FK_NAREAS; i++)
        if (k->area_bad & (1u << i))
            pl->na.area[i] = (struct fk_area_pos){0, 0};
    if (dirs(k, pl) || inodes(k, pl) ||
        fk_write_segfile(k, pl->w, &pl->na, keep) ||
        fk_writer_flush(pl->w, pl->na.area))
        return -1;
    anchor_fields(k, pl);
    if (fk_write_anchor(k, &pl->na))
        return -1;
    fk_msg(k, FSCK_INFO, FSCK_K_OPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
           "repair: commit seq %" PRIu64 " written: %u inode records rewritten, "
           "%zu inodes deleted, %u directory entries removed, segment file "
           "rewritten", pl->na.seq, pl->inodes_written, pl->ndeleted,
           pl->entries_removed);
    return 0;
}

int fk_repair(struct fk *k)
{
    int need_commit = 0;
    for (size_t i = 0; i < k->nplanned; i++)
        need_commit |= k->rep->msgs[k->planned[i]].kind != FSCK_K_SUPER;
    if (!k->nplanned) {
        fk_msg(k, FSCK_WARNING, FSCK_K_OPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "not repaired: none of these errors has a safe repair");
        return 0;
    }
    const char *why = k->readonly ? "the superblock's write version is unknown"
                    : k->fatal    ? "the check could not finish"
                    : k->incomplete || k->walk_lost
                        ? "part of the metadata cannot be read, and fixing counts "
                          "from a partial picture could free segments that hold data"
                        : NULL;
    if (why) {
        fk_msg(k, FSCK_WARNING, FSCK_K_OPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "not repaired: %s", why);
        k->nplanned = 0;
        return 0;
    }
    if (k->sb_copy_bad && fk_write_super(k))
        return -1;
    if (!need_commit)
        return 1;
    struct plan pl;
    memset(&pl, 0, sizeof pl);
    int rc = commit(k, &pl);
    fk_writer_free(pl.w);
    free(pl.ch);
    free(pl.deleted);
    return rc ? -1 : 1;
}

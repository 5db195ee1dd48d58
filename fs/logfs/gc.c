/*
 * gc.c -- the cleaner and static wear leveling.
 *
 * The victim is the mount's policy's choice (gc_policy.h) among the closed
 * segments, seen through the in-RAM segment table.  Its objects
 * are read front to back; each header says which file, level and block it
 * is, and the object is live when the tree's pointer at that place is this
 * very object.  Live objects are loaded into the cache -- one not cached
 * is made from the segment as read, checked as a read is, rather than read
 * again -- and dirtied, so the next commit writes them elsewhere; the
 * victim joins the segments freed by that commit.  Nothing on flash changes until that commit, so a power cut
 * during cleaning loses nothing.
 */
#include "tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Segments the cleaner manages: those usable at mkfs less the writers'
 * reserve and two more. */
uint64_t lfs_cleanable_segments(const struct logfs *fs)
{
    return fs->sb.segments > fs->reserve + 2 ? fs->sb.segments - fs->reserve - 2 : 0;
}

uint64_t lfs_cleanable_bytes(const struct logfs *fs)
{
    /* a segment's tail too short for one more block object never holds
     * file data: it is not capacity */
    uint64_t obj = fs->g.block_size + LFS_OBJ_HDR;
    return lfs_cleanable_segments(fs) * (fs->g.seg_bytes / obj * obj);
}

uint64_t lfs_capacity(const struct logfs *fs)
{
    /* keep the cleaner's work bounded: at most max_utilisation of the space
     * it manages may be live, so a greedy victim is at worst that full.
     * Unset, the bound LogFS always had, to the byte (images and WA of a
     * seed stay the same): 85% of the cleanable segments' bytes. */
    uint64_t ppm = fs->max_util_ppm;
    if (!ppm)
        return lfs_cleanable_segments(fs) * fs->g.seg_bytes / 100 * 85;
    uint64_t c = lfs_cleanable_bytes(fs);
    return c / 1000000 * ppm + c % 1000000 * ppm / 1000000;
}

/* Fill lfs_gc_of(fs)->cand with every segment the cleaner may take: closed ones
 * holding objects, and retired (bad) ones still holding some, in segment
 * order.  Returns the count, or a negative errno. */
static int64_t collect(struct logfs *fs)
{
    int rc = lfs_segtab_build(fs);
    if (rc)
        return rc;
    if (!lfs_gc_of(fs)->cand &&
        !(lfs_gc_of(fs)->cand = lfs_alloc(fs, (size_t)fs->g.nblocks * sizeof *lfs_gc_of(fs)->cand)))
        return -ENOMEM;
    uint64_t clock = fs->an.seg_clock;
    int64_t n = 0;
    for (uint32_t s = 0; s < fs->g.nblocks; s++) {
        const struct lfs_segent *e = &fs->segtab.e[s];
        if ((e->state != LFS_SEG_USED && e->state != LFS_SEG_BAD) ||
            fs->segtab.flags[s] || lfs_seg_is_open(fs, s)) /* freed or picked */
            continue;
        uint32_t live = e->live;
        if (e->area == LFS_AREA_SEGFILE && (rc = lfs_sflive_get(fs, s, &live)))
            return rc;
        if (e->state == LFS_SEG_BAD && live == 0)
            continue;
        /* stamps hold the clock mod 2^32: unwrap against the clock */
        lfs_gc_of(fs)->cand[n++] = (struct gc_seg){
            .id = s, .live = live, .size = fs->g.seg_bytes,
            .stamp = clock - (uint32_t)((uint32_t)clock - e->stamp),
            .erases = e->erases,
        };
    }
    return n;
}

extern const struct gc_policy gcp_greedy;

/* Greedy's victim from the index (gcidx.c); with check_index, compared
 * with the scan it replaces: collect() and gcp_min_live. */
static int pick_greedy(struct logfs *fs, uint32_t *victim, uint32_t *live)
{
    int rc = lfs_gcidx_min(fs, victim, live);
    if (lfs_gc_of(fs)->check_index && (!rc || rc == -ENOSPC)) {
        int64_t n = collect(fs);
        if (n < 0)
            return (int)n;
        size_t i = n ? gcp_min_live(lfs_gc_of(fs)->cand, NULL, (size_t)n) : 0;
        /* the same victim, and every leaf as the scan sees the segment */
        int same = (n ? !rc && lfs_gc_of(fs)->cand[i].id == *victim && lfs_gc_of(fs)->cand[i].live == *live
                      : rc == -ENOSPC) &&
                   !lfs_gcidx_diff(fs, lfs_gc_of(fs)->cand, (size_t)n);
        lfs_gc_of(fs)->index_checks++;
        lfs_gc_of(fs)->index_mismatches += !same;
#ifdef LFS_GCIDX_CHECK
        if (!same)
            abort();
#endif
    }
    return rc;
}

/* The policy's victim among the candidates, or the emptiest one when
 * `greedy` (see lfs_gc). */
static int pick_victim(struct logfs *fs, int greedy, uint32_t *victim, uint32_t *live)
{
    if (greedy || lfs_gc_of(fs)->policy == &gcp_greedy) {
        int rc = pick_greedy(fs, victim, live);
        if (!rc) {
            lfs_gc_of(fs)->ctx.now = fs->an.seg_clock;
            lfs_gc_of(fs)->ctx.round++;
        }
        return rc;
    }
    int64_t n = collect(fs);
    if (n <= 0)
        return n ? (int)n : -ENOSPC;
    lfs_gc_of(fs)->ctx.now = fs->an.seg_clock;
    size_t i = lfs_gc_of(fs)->policy->pick(&lfs_gc_of(fs)->ctx, lfs_gc_of(fs)->cand, (size_t)n);
    lfs_gc_of(fs)->ctx.round++;
    /* a victim that would free less than a page (FIFO's oldest may be
     * full) costs a segment of copying for nothing: take the emptiest */
    if (lfs_gc_of(fs)->cand[i].live >= fs->g.seg_bytes - fs->g.page_size)
        i = gcp_min_live(lfs_gc_of(fs)->cand, NULL, (size_t)n);
    *victim = lfs_gc_of(fs)->cand[i].id;
    *live = lfs_gc_of(fs)->cand[i].live;
    return 0;
}

/* Bytes [off, off + len) of the victim as read (fs->gc_pages: each page's
 * bytes, lent by the simulator or copied into gc_buf): in place when they
 * lie in one page, else gathered at their own place in gc_buf. */
static const uint8_t *victim_bytes(struct logfs *fs, uint32_t off, uint32_t len)
{
    uint32_t ps = fs->g.page_size;
    if (off % ps + len <= ps)
        return fs->gc_pages[off / ps] + off % ps;
    for (uint32_t at = off, part; at < off + len; at += part) {
        part = ps - at % ps < off + len - at ? ps - at % ps : off + len - at;
        const uint8_t *src = fs->gc_pages[at / ps] + at % ps;
        if (src != fs->gc_buf + at) /* not copied there by the read */
            memcpy(fs->gc_buf + at, src, part);
    }
    return fs->gc_buf + off;
}

/* The victim's object at [off, off + len) (header o) as read, in place:
 * one across a page boundary, raw and with its header in the first page,
 * as its two pieces (checked and copied from there into its node);
 * anything else across pages gathered by victim_bytes. */
static struct lfs_objbytes victim_object(struct logfs *fs, uint32_t off, uint32_t len,
                                         const struct lfs_obj *o)
{
    uint32_t ps = fs->g.page_size, in_page = ps - off % ps;
    if (!o->compr && in_page >= LFS_OBJ_HDR && in_page < len && len - in_page <= ps)
        return (struct lfs_objbytes){.obj = fs->gc_pages[off / ps] + off % ps,
                                     .rest = fs->gc_pages[off / ps + 1],
                                     .first = in_page - LFS_OBJ_HDR};
    return (struct lfs_objbytes){.obj = victim_bytes(fs, off, len)};
}

static int keep_if_live_at(struct logfs *fs, const struct lfs_obj *o, lfs_ptr p);

/* Dirty the object at p (header o) if the tree still points to it.  An
 * object that cannot be read (or whose file's inode or tree cannot) is
 * left where it is: it reads as EIO there, and copying it would copy
 * garbage; the segment is marked so that it is not picked again. */
static int keep_if_live(struct logfs *fs, uint32_t seg, const struct lfs_obj *o,
                        lfs_ptr p)
{
    int rc = keep_if_live_at(fs, o, p);
    if (rc == -EIO) {
        fs->segtab.flags[seg] |= LFS_SEGT_UNREADABLE;
        fs->ctr.gc_unreadable++;
        rc = 0;
    }
    return rc;
}

/* The segment read's bit errors on the pages of p, for the scrubber: they
 * are the reads an object taken from the buffer stands on. */
static void scrub_seen_pages(struct logfs *fs, lfs_ptr p)
{
    uint32_t ps = fs->g.page_size, seg = lfs_seg_of(fs, p);
    uint32_t first = (uint32_t)(lfs_ptr_addr(p) % fs->g.seg_bytes) / ps;
    uint32_t last = (uint32_t)((lfs_ptr_addr(p) + lfs_ptr_len(p) - 1) % fs->g.seg_bytes) / ps;
    for (uint32_t pg = first; fs->scrub.threshold && pg <= last; pg++) {
        struct nand_result res = {.max_cw_bits = fs->gc_cw[pg]};
        lfs_scrub_seen(fs, seg, 0, &res);
    }
}

static int keep_if_live_at(struct logfs *fs, const struct lfs_obj *o, lfs_ptr p)
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
    /* only a live object's bytes are gathered (or touched at all) */
    struct lfs_held held = {
        .p = p,
        .bytes = victim_object(fs, (uint32_t)(lfs_ptr_addr(p) % fs->g.seg_bytes),
                               lfs_ptr_len(p), o),
        .hdr = o,
    };
    if ((rc = lfs_tree_get_held(fs, in, o->level, o->bix, &held, &n)))
        return rc;
    if (held.filled)
        scrub_seen_pages(fs, p);
    if (n && !n->dirty) { /* a dirty one is rewritten anyway */
        lfs_node_move(fs, n);
        fs->ctr.gc_objects++;
        fs->ctr.gc_bytes += lfs_ptr_len(p);
    }
    return 0;
}

/* Start loading the header at off while the object before it is looked
 * up: after a dead object (not copied, so not read) it is a cache miss,
 * and was most of lfs_obj_decode's time.  Inlined always: GCC finds a
 * function that only prefetches pure, and drops its calls. */
__attribute__((always_inline)) static inline void prefetch_header(const struct logfs *fs,
                                                                  uint32_t off)
{
    uint32_t ps = fs->g.page_size, last = off + LFS_OBJ_HDR - 1;
    if (last >= fs->g.seg_bytes)
        return;
    __builtin_prefetch(fs->gc_pages[off / ps] + off % ps);
    __builtin_prefetch(fs->gc_pages[last / ps] + last % ps);
}

/* The next object of the victim at or after *off (padding skipped);
 * 0 at the end.  Its header is decoded, and the headers after it
 * prefetched. */
static int next_object(struct logfs *fs, uint32_t *off, struct lfs_obj *o)
{
    uint32_t ps = fs->g.page_size, sb = fs->g.seg_bytes;
    while (*off + LFS_OBJ_HDR <= sb) {
        if (!lfs_obj_decode(victim_bytes(fs, *off, LFS_OBJ_HDR), o)) {
            uint32_t total = LFS_OBJ_HDR + o->len;
            if (*off + total > sb)
                return 0;
            prefetch_header(fs, *off + total);
            /* and where the one after would be if the next is a whole block */
            prefetch_header(fs, *off + total + LFS_OBJ_HDR + fs->g.block_size);
            return 1;
        }
        /* padding (0xFF to the page's end): the next page.  Anything else
         * is the tail of an object whose start was lost (an unreadable or
         * wiped page): the next object may start anywhere, its header is
         * looked for byte by byte (magic and header CRC must match) */
        uint32_t end = (*off / ps + 1) * ps;
        *off = lfs_all_bytes(victim_bytes(fs, *off, end - *off), end - *off, 0xff) ? end
                                                                                    : *off + 1;
    }
    return 0;
}

/* How many objects the walk decodes ahead of the one it looks up. */
#define AHEAD 3

struct ahead {
    uint32_t off;
    struct lfs_obj o;
};

/* Start the liveness lookups of an object a few steps ahead, each a
 * cache miss that waited on the one before (lfs_cache_find and
 * lfs_tree_ptr were 13 % of the steady state): stage 0 the hash buckets
 * of its node and of its parent, stage 1 their first nodes, stage 2 the
 * parent's slot that points to it. */
static void lookahead(struct logfs *fs, const struct lfs_obj *o, uint32_t stage)
{
    uint64_t n = o->bix;
    if (stage < 2)
        lfs_cache_prefetch(fs, o->ino, o->level, n, (int)stage);
    if (o->level == 0) {
        if (n < LFS_NDIRECT)
            return; /* its pointer is in the inode */
        n -= LFS_NDIRECT;
    }
    uint64_t pn = n / fs->ptrs_per_block;
    if (stage < 2) {
        lfs_cache_prefetch(fs, o->ino, (uint8_t)(o->level + 1), pn, (int)stage);
        return;
    }
    const struct lfs_node *parent = lfs_cache_find(fs, o->ino, (uint8_t)(o->level + 1), pn);
    if (parent)
        __builtin_prefetch(parent->data + 8 * (n % fs->ptrs_per_block));
}

static int clean_segment(struct logfs *fs, uint32_t seg)
{
    uint32_t ps = fs->g.page_size, sb = fs->g.seg_bytes;
    /* kept between rounds: a fresh segment-sized buffer each time costs
     * page faults that dominated cleaning */
    if (!fs->gc_buf && !(fs->gc_buf = lfs_alloc(fs, sb)))
        return -ENOMEM;
    if (!fs->gc_cw && !(fs->gc_cw = lfs_alloc(fs, fs->g.pages_per_block * sizeof *fs->gc_cw)))
        return -ENOMEM;
    if (!fs->gc_pages &&
        !(fs->gc_pages = lfs_alloc(fs, fs->g.pages_per_block * sizeof *fs->gc_pages)))
        return -ENOMEM;
    uint8_t *buf = fs->gc_buf;
    int rc = 0;
    /* read the whole segment, the pages lent where the simulator can (the
     * objects found dead are then never copied); unreadable pages read
     * as garbage */
    for (uint32_t p = 0; p < fs->g.pages_per_block && !rc; p++) {
        struct nand_result res = {0};
        const void *data;
        int nrc = nand_read_view(fs->dev, seg, p, buf + (size_t)p * ps, &data, &res);
        fs->gc_pages[p] = data;
        fs->gc_cw[p] = res.max_cw_bits;
        if (nrc == NAND_E_ECC) { /* objects on it are skipped as garbage */
            memset(buf + (size_t)p * ps, 0xff, ps);
            fs->gc_pages[p] = buf + (size_t)p * ps;
            fs->segtab.flags[seg] |= LFS_SEGT_UNREADABLE;
        }
        else if (nrc)
            rc = lfs_errno(nrc);
    }
    /* the walk decodes AHEAD objects in front of the one looked up, and
     * starts each queued object's lookups a step further as it nears */
    struct ahead q[AHEAD + 1];
    uint32_t nq = 0, off = 0;
    int more = 1;
    while (!rc) {
        while (more && nq <= AHEAD && (more = next_object(fs, &off, &q[nq].o))) {
            q[nq].off = off;
            off += LFS_OBJ_HDR + q[nq].o.len;
            nq++;
        }
        if (!nq)
            break;
        for (uint32_t i = 1; i < nq; i++)
            lookahead(fs, &q[i].o, AHEAD - i);
        lfs_ptr p = lfs_ptr_make((uint64_t)seg * sb + q[0].off, LFS_OBJ_HDR + q[0].o.len);
        rc = keep_if_live(fs, seg, &q[0].o, p);
        memmove(q, q + 1, --nq * sizeof q[0]);
    }
    return rc;
}

/* Clean one victim: its live objects are dirtied, so that the next
 * commit writes them elsewhere, which frees it. */
static int clean_one(struct logfs *fs, uint32_t victim, uint32_t live)
{
    int rc = clean_segment(fs, victim);
    if (!rc && !live)
        rc = lfs_seg_freed_add(fs, victim); /* an empty victim is freed at once */
    fs->segtab.flags[victim] |= LFS_SEGT_PICKED;
    lfs_gcidx_update(fs, victim);
    fs->ctr.gc_rounds++;
    return rc;
}

/* Commit what the cleaned victims left dirty; they leave the batch. */
static int batch_commit(struct logfs *fs, const uint32_t *picked, uint32_t n)
{
    int rc = lfs_commit(fs);
    for (uint32_t i = 0; i < n; i++) {
        fs->segtab.flags[picked[i]] &= (uint8_t)~LFS_SEGT_PICKED;
        lfs_gcidx_update(fs, picked[i]);
    }
    return rc;
}

/* One event per victim of a batch; the batch's commit time is shared out
 * evenly, since one commit wrote all their copies. */
static void tell_observer(struct logfs *fs, const uint32_t *seg, const uint32_t *live,
                          uint32_t n, nand_time_t at, nand_time_t commit_ns)
{
    for (uint32_t i = 0; lfs_gc_of(fs)->observer && i < n; i++) {
        struct fs_gc_event ev = {
            .sim_time_ns = at, .segment = seg[i], .live_bytes = live[i],
            .duration_ns = commit_ns / n, .policy = lfs_gc_of(fs)->policy->name,
            .wear_leveling = 0,
        };
        lfs_gc_of(fs)->observer(lfs_gc_of(fs)->observer_ctx, &ev);
    }
}

/* Batches in a row that free nothing before the cleaner's batches turn
 * tight, and as many tight ones before it gives up. */
#define GC_STALLS 8

int lfs_gc(struct logfs *fs, uint32_t want_free, uint32_t max_live)
{
    nand_time_t t0 = nand_now(fs->dev);
    int rc = 0;
    /* victims are cleaned in batches, one commit each: the moved objects
     * of several victims share the tree and anchor writes.  A batch takes
     * as many victims as segments are missing, while their live data fits
     * in a segment or in what is left of the dirty limit */
    uint64_t budget = fs->dirty_limit > fs->cache.dirty_bytes + fs->g.seg_bytes
                          ? fs->dirty_limit - fs->cache.dirty_bytes : fs->g.seg_bytes;
    uint32_t picked[64], picked_live[64];
    /* A batch that frees nothing (the policy chose full victims: FIFO or
     * random near the reserve) is followed by greedy ones until one pays,
     * as firmware falls back to greedy in foreground cleaning; stop when
     * even those do not: the device is as full as it can get. */
    uint64_t best = fs->an.free_segments;
    /* only cleaning the writers wait for (any victim will do) turns
     * tight, and only while they would otherwise stop (ENOSPC) */
    for (int stalls = 0; !rc && fs->an.free_segments < want_free &&
                         (stalls < GC_STALLS ||
                          (max_live == UINT32_MAX && stalls < 2 * GC_STALLS &&
                           fs->an.free_segments < fs->reserve));) {
        uint64_t before = fs->an.free_segments, moved = 0;
        uint32_t n = 0;
        /* after GC_STALLS batches that did not pay, the next take as many
         * victims as their commit needs to gain, within the room it has,
         * so that the commit's fixed cost (the indirect blocks above the
         * copies) is shared out (gcroom.c) */
        struct lfs_gc_room room;
        int tight = stalls >= GC_STALLS;
        if (tight && (rc = lfs_gc_room_start(fs, &room)))
            break;
        while (n < 64 && before + n < want_free + (tight ? lfs_gc_room_need(fs, &room, 0) : 0)) {
            uint32_t victim = 0, live = 0;
            rc = pick_victim(fs, stalls > 0, &victim, &live);
            if (rc == -ENOSPC ||
                (!rc && (live > max_live || live >= fs->g.seg_bytes - fs->g.page_size ||
                         (n && (tight ? !lfs_gc_room_fits(fs, &room, live)
                                      : moved + live > budget))))) {
                rc = 0; /* nothing (more, worth it) to gain */
                break;
            }
            if (rc || (rc = clean_one(fs, victim, live)))
                break;
            picked_live[n] = live;
            picked[n++] = victim;
            moved += live;
        }
        if (!n)
            break;
        nand_time_t tb = nand_now(fs->dev);
#ifdef LFS_GCROOM_CHECK
        uint64_t bound = tight ? lfs_gc_room_need(fs, &room, 0) : 0, clock0 = fs->an.seg_clock;
#endif
        int crc = batch_commit(fs, picked, n);
#ifdef LFS_GCROOM_CHECK
        if (tight && !crc && fs->an.seg_clock - clock0 > bound)
            abort(); /* the commit opened more segments than gcroom.c's bound */
#endif
        tell_observer(fs, picked, picked_live, n, tb, nand_now(fs->dev) - tb);
        rc = rc ? rc : crc;
        /* progress is beating the best count of this call: a count that
         * bounces (a batch frees one, the next uses one) must still end */
        if (fs->an.free_segments > best) {
            best = fs->an.free_segments;
            stalls = 0;
        } else {
            stalls++;
        }
        fs->ctr.gc_fallbacks += stalls > 0;
    }
    fs->ctr.gc_time_ns += nand_now(fs->dev) - t0;
    return rc;
}

/* Move the live data of segs[0..n) (closed, not freed or picked) with one
 * commit: the cleaner's rounds, chosen by the scrubber (scrub.c) instead
 * of a policy.  *moved: the live bytes copied. */
int lfs_gc_relocate(struct logfs *fs, const uint32_t *segs, uint32_t n, uint64_t *moved)
{
    nand_time_t t0 = nand_now(fs->dev);
    uint64_t bytes0 = fs->ctr.gc_bytes;
    int rc = 0;
    uint32_t done = 0;
    for (; done < n && !rc; done++) {
        uint32_t live = fs->segtab.e[segs[done]].live;
        if (fs->segtab.e[segs[done]].area == LFS_AREA_SEGFILE &&
            (rc = lfs_sflive_get(fs, segs[done], &live)))
            break;
        rc = clean_one(fs, segs[done], live);
    }
    int crc = batch_commit(fs, segs, done);
    *moved = fs->ctr.gc_bytes - bytes0;
    fs->ctr.gc_time_ns += nand_now(fs->dev) - t0;
    return rc ? rc : crc;
}

/* Static wear leveling: when the most-worn segment has wl_threshold more
 * erases than the least-worn one holding data, that data is cold (it sat
 * while the rest wore): move it, so that the little-worn segment returns
 * to the pool and takes hot data.  Checked every 32 segment allocations. */
int lfs_wear_level(struct logfs *fs)
{
    if (fs->wear_leveling != LOGFS_WL_STATIC ||
        fs->an.seg_clock < lfs_gc_of(fs)->wl_checked + 32)
        return 0;
    lfs_gc_of(fs)->wl_checked = fs->an.seg_clock;
    int64_t n = collect(fs);
    int rc;
    if (n <= 0)
        return n < 0 ? (int)n : 0;
    uint32_t max = 0;
    for (uint32_t s = 0; s < fs->g.nblocks; s++)
        if (fs->segtab.e[s].state != LFS_SEG_BAD &&
            fs->segtab.e[s].state != LFS_SEG_RESERVED && fs->segtab.e[s].erases > max)
            max = fs->segtab.e[s].erases;
    size_t cold = 0;
    for (size_t i = 1; i < (size_t)n; i++)
        if (lfs_gc_of(fs)->cand[i].erases < lfs_gc_of(fs)->cand[cold].erases)
            cold = i;
    if (max - lfs_gc_of(fs)->cand[cold].erases <= lfs_gc_of(fs)->wl_threshold)
        return 0;
    fs->ctr.wl_moves++;
    nand_time_t t0 = nand_now(fs->dev);
    uint32_t victim = lfs_gc_of(fs)->cand[cold].id;
    uint32_t live = lfs_gc_of(fs)->cand[cold].live;
    rc = clean_one(fs, victim, live);
    nand_time_t tb = nand_now(fs->dev);
    int crc = batch_commit(fs, &victim, 1);
    if (lfs_gc_of(fs)->observer) {
        struct fs_gc_event ev = {
            .sim_time_ns = tb, .segment = victim, .live_bytes = live,
            .duration_ns = nand_now(fs->dev) - tb, .policy = lfs_gc_of(fs)->policy->name,
            .wear_leveling = 1,
        };
        lfs_gc_of(fs)->observer(lfs_gc_of(fs)->observer_ctx, &ev);
    }
    fs->ctr.gc_time_ns += nand_now(fs->dev) - t0;
    return rc ? rc : crc;
}

int lfs_space_check(struct logfs *fs, uint64_t new_bytes)
{
    return lfs_space_check_freeing(fs, new_bytes, 0);
}

int lfs_space_check_freeing(struct logfs *fs, uint64_t new_bytes, uint64_t freed_bytes)
{
    if (fs->an.free_segments < fs->reserve) {
        int rc = lfs_gc(fs, fs->reserve + 2, UINT32_MAX);
        if (rc)
            return rc;
        if (fs->an.free_segments < fs->reserve)
            return -ENOSPC;
    }
    uint64_t pend = fs->cache.dirty_bytes + new_bytes;
    /* max_utilisation caps u, whose live bytes are objects: what the
     * dirty blocks add over the objects they replace (an overwrite adds
     * nothing), and the new bytes as whole objects.  Unset, the old bound
     * counts every dirty block as new, as it always did. */
    if (fs->max_util_ppm)
        pend = fs->cache.dirty_growth + (new_bytes + fs->g.block_size - 1) /
                                            fs->g.block_size * (fs->g.block_size + LFS_OBJ_HDR);
    if (fs->an.live_bytes + pend > lfs_capacity(fs) + freed_bytes)
        return -ENOSPC;
    return 0;
}

/*
 * area.c -- write areas and object reads.
 *
 * Each area appends objects to its open segment through a one-page buffer:
 * a page is programmed when it fills, and on a flush (end of a commit) the
 * partial page is programmed with the rest left 0xFF, so the next object
 * starts on a fresh page and no page is ever programmed twice.  Objects do
 * not cross segment boundaries.  A read of an object still in a page
 * buffer is served from it.
 *
 * When a page fails to program (a worn block), the segment is retired as
 * bad and every object that had bytes in that page is dirtied again, so
 * that the commit writes it elsewhere; objects in pages programmed before
 * stay readable where they are, and the cleaner moves them later.
 *
 * On parts with paired pages (pair.c) a flush also moves past the upper
 * pages of the lower pages just written, so that no later program can
 * damage committed data; and objects stay pending until their lower pages'
 * upper pages are programmed, since a failed upper page damages them too.
 */
#include "storage.h"

#include <errno.h>
#include <stdlib.h>

uint32_t lfs_seg_of(const struct logfs *fs, lfs_ptr p)
{
    return (uint32_t)(lfs_ptr_addr(p) / fs->g.seg_bytes);
}

/* The page failed: retire the segment, requeue what was in the page. */
static int retire(struct logfs *fs, struct lfs_areaw *a)
{
    struct lfs_segent e;
    int rc = lfs_seg_get(fs, a->seg, &e);
    if (rc)
        return rc;
    e.state = LFS_SEG_BAD;
    nand_mark_bad(fs->dev, a->seg);
    if ((rc = lfs_seg_put(fs, a->seg, &e)))
        return rc;
    for (uint32_t i = 0; i < a->npend; i++) {
        struct lfs_pend *p = &a->pend[i];
        struct lfs_node *n = lfs_cache_find(fs, p->ino, p->level, p->bix);
        if (n && n->ptr == p->ptr)
            lfs_node_dirty(fs, n); /* its next write replaces p->ptr */
    }
    a->npend = 0;
    uint32_t old = a->seg;
    a->seg = 0;
    a->off = 0;
    lfs_gcidx_update(fs, old); /* closed */
    memset(a->page, 0xff, fs->g.page_size);
    fs->relocated++;
    return 0;
}

/* Program the buffered page; objects wholly before the next page are then
 * safe on flash, unless a lower page of theirs still awaits its upper. */
static int program_page(struct logfs *fs, struct lfs_areaw *a, unsigned area,
                        uint32_t page)
{
    int rc = lfs_flash_program(fs, a->seg, page, &a->page);
    fs->ctr.pages[area]++;
    if (rc == LFS_E_RETIRE)
        return retire(fs, a);
    uint32_t safe = lfs_pair_exposed_page(nand_get_config(fs->dev), fs->g.pair_span,
                                          page + 1);
    uint64_t end = (uint64_t)a->seg * fs->g.seg_bytes + (uint64_t)safe * fs->g.page_size;
    uint32_t k = 0;
    for (uint32_t i = 0; i < a->npend; i++)
        if (lfs_ptr_addr(a->pend[i].ptr) + lfs_ptr_len(a->pend[i].ptr) > end)
            a->pend[k++] = a->pend[i];
    a->npend = k;
    return rc;
}

/* A commit must not rely on a lower page whose upper page is still to be
 * programmed (its torn program would damage the lower one): go on past
 * such upper pages, which stay erased.  Nothing written is at risk then. */
static void skip_paired(struct logfs *fs, struct lfs_areaw *a)
{
    uint32_t ps = fs->g.page_size, next = a->off / ps;
    if (!fs->g.pair_span)
        return;
    uint32_t safe = lfs_pair_safe_page(nand_get_config(fs->dev), fs->g.pair_span, next);
    fs->ctr.pair_skipped += safe - next;
    a->off = safe * ps;
    a->npend = 0;
}

static int flush_one(struct logfs *fs, struct lfs_areaw *a, unsigned area)
{
    uint32_t ps = fs->g.page_size;
    if (!a->seg)
        return 0;
    if (a->off % ps) {
        uint32_t next = (a->off / ps + 1) * ps;
        /* the page's unwritten tail is programmed erased (0xFF) */
        memset(a->page + a->off % ps, 0xff, ps - a->off % ps);
        int rc = program_page(fs, a, area, a->off / ps);
        if (!a->seg) /* retired */
            return rc;
        a->off = next;
        if (rc)
            return rc;
    }
    skip_paired(fs, a);
    return 0;
}

/* The data area flushes its lanes too (lanes.c). */
int lfs_area_flush(struct logfs *fs, unsigned area)
{
    int rc = flush_one(fs, &fs->area[area], area);
    struct lfs_areaw *l;
    for (uint32_t i = 0; !rc && area == LFS_AREA_DATA && (l = lfs_lane_extra(fs, i)); i++)
        rc = flush_one(fs, l, area);
    return rc;
}

void lfs_area_resume(struct logfs *fs, unsigned area, uint32_t seg, uint32_t off)
{
    struct lfs_areaw *a = &fs->area[area];
    uint32_t old = a->seg;
    a->seg = seg;
    a->off = off;
    lfs_gcidx_update(fs, old);
    lfs_gcidx_update(fs, seg);
    skip_paired(fs, a); /* a writer without it may have stopped mid-pair */
}

int lfs_area_flush_all(struct logfs *fs)
{
    for (unsigned i = 0; i < LFS_NAREAS; i++) {
        int rc = lfs_area_flush(fs, i);
        if (rc)
            return rc;
    }
    lfs_flash_wait(fs); /* the anchor comes next: all of it on flash first */
    return 0;
}

static int area_open(struct logfs *fs, struct lfs_areaw *a, unsigned area)
{
    int rc = flush_one(fs, a, area);
    if (rc)
        return rc;
    uint32_t old = a->seg;
    if (fs->parallel > 1)
        a->seg = 0; /* closed: its die is free for the next (lanes.c) */
    rc = lfs_seg_alloc(fs, area, &a->seg);
    /* the old segment is closed now, the new one open */
    lfs_gcidx_update(fs, old);
    lfs_gcidx_update(fs, a->seg);
    if (rc)
        return rc;
    a->off = 0;
    return 0;
}

/* Whether known is the payload CRC of o's very bytes (a moved, unchanged
 * raw object's). */
static int crc_known(const struct lfs_obj *o, const struct lfs_objcrc *known)
{
    return known && known->ok && known->len == o->len && !o->compr;
}

/* The payload CRC of o: known's when it covers these very bytes, raw. */
static uint32_t payload_crc(const struct lfs_obj *o, const uint8_t *payload,
                            const struct lfs_objcrc *known)
{
    if (!crc_known(o, known))
        return lfs_crc(payload, o->len);
#ifdef LFS_CRC_CHECK /* test builds: a reused CRC is recomputed */
    if (lfs_crc(payload, o->len) != known->crc)
        abort();
#endif
    return known->crc;
}

/* Take o's payload CRC and encode its header.  When the CRC is to be
 * computed and the header fits in the area's page, the header goes there
 * at once with what fits of the payload, the CRC taken as the payload is
 * copied (its bytes are read once); returns the bytes so placed, else 0.
 * The header is in hdr either way. */
static uint32_t place_head(struct logfs *fs, struct lfs_areaw *a, struct lfs_obj *o,
                           const uint8_t *payload, const struct lfs_objcrc *known,
                           uint8_t hdr[LFS_OBJ_HDR])
{
    uint32_t ps = fs->g.page_size, room = ps - a->off % ps;
    if (room < LFS_OBJ_HDR || crc_known(o, known)) {
        o->payload_crc = payload_crc(o, payload, known);
        lfs_obj_encode(o, hdr);
        return 0;
    }
    uint8_t *at = a->page + a->off % ps;
    uint32_t first = room - LFS_OBJ_HDR < o->len ? room - LFS_OBJ_HDR : o->len;
    o->payload_crc = lfs_crc_copy(0, at + LFS_OBJ_HDR, payload, first, o->len);
    /* encoded on the stack: the header CRC reads back what the encoding
     * stored, which in the page buffer waits for its cold cache lines */
    lfs_obj_encode(o, hdr);
    memcpy(at, hdr, LFS_OBJ_HDR);
    return LFS_OBJ_HDR + first;
}

/* Append an object; its payload CRC is taken here, after a new segment is
 * opened, because opening one changes the segment file, and the payload
 * may be a block of the segment file (whose node's known CRC the change
 * clears). */
int lfs_area_write(struct logfs *fs, unsigned area, struct lfs_obj *o,
                   const uint8_t *payload, const struct lfs_objcrc *known,
                   lfs_ptr *out)
{
    struct lfs_areaw *a = lfs_lane_pick(fs, area);
    uint32_t ps = fs->g.page_size, total = LFS_OBJ_HDR + o->len;
    int rc;
again:
    if (!a->seg || a->off + total > fs->g.seg_bytes)
        if ((rc = area_open(fs, a, area)))
            return rc;
    uint32_t seg = a->seg;
    uint8_t hdr[LFS_OBJ_HDR];
    uint32_t placed = place_head(fs, a, o, payload, known, hdr);
    uint64_t addr = (uint64_t)a->seg * fs->g.seg_bytes + a->off;
    *out = lfs_ptr_make(addr, total);
    a->pend[a->npend++] = (struct lfs_pend){o->ino, o->bix, o->level, *out};
    for (uint32_t done = 0; done < total;) {
        const uint8_t *src = done < LFS_OBJ_HDR ? hdr + done
                                                : payload + (done - LFS_OBJ_HDR);
        uint32_t room = ps - a->off % ps;
        uint32_t part = done < LFS_OBJ_HDR ? LFS_OBJ_HDR - done : total - done;
        if (part > room)
            part = room;
        if (done >= placed) /* the parts end where the placed bytes do */
            memcpy(a->page + a->off % ps, src, part);
        a->off += part;
        done += part;
        if (a->off % ps == 0 && (rc = program_page(fs, a, area, a->off / ps - 1)))
            return rc;
        if (a->seg != seg)
            goto again; /* retired under us: this object starts over */
    }
    return 0;
}

/* Copy len bytes at device address addr: from flash, or from an area's
 * page buffer if they have not been programmed yet. */
static int read_bytes(struct logfs *fs, uint64_t addr, uint8_t *dst, uint32_t len)
{
    uint32_t ps = fs->g.page_size;
    while (len) {
        uint32_t seg = (uint32_t)(addr / fs->g.seg_bytes);
        uint32_t soff = (uint32_t)(addr % fs->g.seg_bytes);
        uint32_t page = soff / ps, po = soff % ps, part = ps - po;
        if (part > len)
            part = len;
        const uint8_t *src = NULL;
        for (unsigned i = 0; i < LFS_NAREAS; i++) {
            struct lfs_areaw *a = &fs->area[i];
            if (a->seg == seg && a->off % ps && page == a->off / ps)
                src = a->page;
        }
        const struct lfs_areaw *l;
        for (uint32_t i = 0; (l = lfs_lane_extra(fs, i)); i++)
            if (l->seg == seg && l->off % ps && page == l->off / ps)
                src = l->page;
        if (src) {
            memcpy(dst, src + po, part);
        } else {
            struct nand_result res;
            int nrc = nand_read_col(fs->dev, seg, page, po, dst, part, &res);
            lfs_scrub_seen(fs, seg, nrc, &res);
            if (nrc)
                return lfs_errno(nrc); /* an uncorrectable page too: -EIO */
        }
        dst += part;
        addr += part;
        len -= part;
    }
    return 0;
}

int lfs_obj_check_decoded(struct logfs *fs, const struct lfs_objbytes *b, const struct lfs_obj *o,
                          uint32_t total, uint8_t type, uint64_t ino, uint8_t level,
                          uint64_t bix, uint8_t *payload, uint32_t *len,
                          struct lfs_objcrc *pcrc)
{
    const uint8_t *stored = b->obj + LFS_OBJ_HDR;
#ifdef LFS_CRC_CHECK /* test builds: the caller's header is obj's */
    struct lfs_obj again;
    if (lfs_obj_decode(b->obj, &again) || again.type != o->type || again.level != o->level ||
        again.compr != o->compr || again.raw_len != o->raw_len || again.len != o->len ||
        again.payload_crc != o->payload_crc || again.ino != o->ino || again.bix != o->bix ||
        again.seq != o->seq)
        abort();
#endif
    if (pcrc)
        pcrc->ok = 0;
    if (total < LFS_OBJ_HDR || total - LFS_OBJ_HDR > fs->g.block_size ||
        o->type != type || o->ino != ino ||
        o->level != level || o->bix != bix || o->len != total - LFS_OBJ_HDR ||
        (b->rest && (o->compr || b->first > o->len)))
        return -EIO; /* (a compressed stream is decompressed whole: never in pieces) */
    if (o->compr) { /* the CRC is of what is stored: now the stream itself */
        if (lfs_crc(stored, o->len) != o->payload_crc || o->raw_len > fs->g.block_size ||
            lfs_decompress(o->compr, stored, o->len, payload, o->raw_len))
            return -EIO;
        *len = o->raw_len;
        return 0;
    }
    /* checked as it is copied, in one pass over the bytes as read: the
     * payload holds them even when they do not check, and then is not
     * the block's */
    uint32_t first = b->rest ? b->first : o->len;
    uint32_t crc = lfs_crc_copy(0, payload, stored, first, first);
    if (b->rest)
        crc = lfs_crc_copy(crc, payload + first, b->rest, o->len - first, o->len - first);
    if (crc != o->payload_crc)
        return -EIO;
    *len = o->len;
    if (pcrc)
        *pcrc = (struct lfs_objcrc){.crc = o->payload_crc, .len = o->len, .ok = 1};
    return 0;
}

int lfs_obj_check(struct logfs *fs, const uint8_t *obj, uint32_t total, uint8_t type,
                  uint64_t ino, uint8_t level, uint64_t bix, uint8_t *payload,
                  uint32_t *len, struct lfs_objcrc *pcrc)
{
    struct lfs_obj o;
    if (pcrc)
        pcrc->ok = 0;
    if (total < LFS_OBJ_HDR || lfs_obj_decode(obj, &o))
        return -EIO;
    return lfs_obj_check_decoded(fs, &(struct lfs_objbytes){.obj = obj}, &o, total, type,
                                 ino, level, bix, payload, len, pcrc);
}

int lfs_obj_read(struct logfs *fs, lfs_ptr p, uint8_t type, uint64_t ino,
                 uint8_t level, uint64_t bix, uint8_t *payload, uint32_t *len,
                 struct lfs_objcrc *pcrc)
{
    uint32_t total = lfs_ptr_len(p);
    uint64_t addr = lfs_ptr_addr(p);
    if (total < LFS_OBJ_HDR || total - LFS_OBJ_HDR > fs->g.block_size ||
        addr / fs->g.seg_bytes >= fs->g.nblocks ||
        addr % fs->g.seg_bytes + total > fs->g.seg_bytes)
        return -EIO;
    uint8_t *buf = fs->scratch;
    int rc = read_bytes(fs, addr, buf, total);
    if (rc)
        return rc;
    return lfs_obj_check(fs, buf, total, type, ino, level, bix, payload, len, pcrc);
}

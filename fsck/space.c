/* space.c -- segment accounting (FORMAT.md sections 12 and 14): the
 * live bytes of every segment recomputed from all reachable pointers and
 * compared with the segment file; states; the anchor's counters, pool and
 * area positions; and the device's own view (bad-block markers, erase
 * counts). */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdlib.h>

static const char *state_name(uint8_t s)
{
    static const char *const n[] = {"FREE", "USED", "BAD", "RESERVED"};
    return s < 4 ? n[s] : "an unknown state";
}

/* Objects may not share bytes: each pointer names its own object. */
static void overlaps(struct fk *k)
{
    for (size_t i = 1; i < k->nrefs; i++) {
        const struct fk_ref *a = &k->refs[i - 1], *b = &k->refs[i];
        if (b->addr >= a->addr + a->len)
            continue;
        char pa[96], pb[96];
        fk_place(pa, sizeof pa, a->cls, a->ino, a->level, a->bix);
        fk_place(pb, sizeof pb, b->cls, b->ino, b->level, b->bix);
        fk_err_at(k, FSCK_K_TREE, b->addr, FSCK_NONE, "%s: %s and %s",
                  b->addr == a->addr && b->len == a->len
                      ? "one object is referenced twice"
                      : "objects overlap", pa, pb);
    }
}

static int area_ok(const struct fk_ref *r, uint8_t area)
{
    unsigned want = fk_area_of(r->cls, r->level);
    return area == want || (want == 0 && area == FK_AREA_MOVED);
}

/* One segment's entry against what the trees hold in it. */
static void segment(struct fk *k, uint64_t s, uint64_t live, uint64_t sflive)
{
    const struct fk_segent *e = &k->seg[s];
    int64_t b = (int64_t)s;
    size_t m;
    if (e->state > FK_RESERVED)
        fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
                          "segment %" PRIu64 ": state %u is not a state", s,
                          e->state));
    else if (fk_reserved_block(k, s) && e->state != FK_RESERVED)
        fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
                          "segment %" PRIu64 ": a superblock or anchor block, but "
                          "%s in the segment file (RESERVED expected)", s,
                          state_name(e->state)));
    else if (!fk_reserved_block(k, s) && e->state == FK_RESERVED)
        fk_msg(k, FSCK_WARNING, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
               "segment %" PRIu64 ": RESERVED, but not a superblock or anchor "
               "block", s);
    int holds = e->state == FK_USED || e->state == FK_BAD;
    if ((live || sflive) && !holds && !fk_reserved_block(k, s)) {
        m = fk_msg(k, FSCK_ERROR, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
                   "segment %" PRIu64 ": %s in the segment file, but holds %"
                   PRIu64 " bytes of reachable objects", s, state_name(e->state),
                   live + sflive);
        fk_plan(k, m);
    }
    if (holds && e->area > FK_AREA_MOVED)
        fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
                          "segment %" PRIu64 ": area %u is not an area", s, e->area));
    if (holds && e->area != FK_AREA_SEGFILE && !k->walk_lost && e->live != live)
        fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
                          "segment %" PRIu64 ": live %u in the segment file, %"
                          PRIu64 " reachable", s, e->live, live));
    if (holds && e->area == FK_AREA_SEGFILE && e->live)
        fk_msg(k, FSCK_WARNING, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
               "segment %" PRIu64 ": area 12 with live %u (not maintained there: "
               "0 expected)", s, e->live);
    if (e->state == FK_FREE && e->live)
        fk_msg(k, FSCK_WARNING, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
               "segment %" PRIu64 ": FREE with live %u", s, e->live);
    if (e->resv)
        fk_msg(k, FSCK_WARNING, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
               "segment %" PRIu64 ": reserved entry bytes 10..11 are not zero", s);
    if (k->an.seg_clock <= UINT32_MAX && e->stamp > k->an.seg_clock)
        fk_msg(k, FSCK_WARNING, FSCK_K_SEGMENT, b, FSCK_NONE, FSCK_NONE,
               "segment %" PRIu64 ": stamp %u is past the anchor's seg_clock %"
               PRIu64, s, e->stamp, k->an.seg_clock);
}

/* The device: markers and erase counts (a plausibility check). */
static void device(struct fk *k, uint64_t s)
{
    const struct fk_segent *e = &k->seg[s];
    struct nand_block_info bi;
    if (k->dev_bad[s] && e->state != FK_BAD)
        fk_msg(k, FSCK_WARNING, FSCK_K_DEVICE, (int64_t)s, FSCK_NONE, FSCK_NONE,
               "block %" PRIu64 ": marked bad on the device, %s in the segment "
               "file", s, state_name(e->state));
    else if (!k->dev_bad[s] && e->state == FK_BAD)
        fk_msg(k, FSCK_WARNING, FSCK_K_DEVICE, (int64_t)s, FSCK_NONE, FSCK_NONE,
               "block %" PRIu64 ": BAD in the segment file, not marked bad on the "
               "device", s);
    if (nand_block_info(k->dev, (nand_block_t)s, &bi) == 0 &&
        e->erases > bi.pe_cycles - (bi.pe_cycles < k->initial_pe ? 0 : k->initial_pe))
        fk_msg(k, FSCK_WARNING, FSCK_K_DEVICE, (int64_t)s, FSCK_NONE, FSCK_NONE,
               "segment %" PRIu64 ": erase count %u in the segment file, the "
               "device erased it %" PRIu64 " times", s, e->erases,
               bi.pe_cycles - k->initial_pe);
}

static void counters(struct fk *k, uint64_t total)
{
    const struct fk_anchor *a = &k->an;
    uint64_t nfree = 0, unknown = 0;
    for (uint64_t s = 0; s < k->nblocks; s++) {
        unknown += k->seg[s].unknown;
        nfree += !k->seg[s].unknown && k->seg[s].state == FK_FREE;
    }
    if (!k->walk_lost && a->live_bytes != total)
        fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_COUNTER, k->an_block, k->an_page,
                          FSCK_NONE, "anchor: live_bytes %" PRIu64 ", the trees "
                          "reach %" PRIu64, a->live_bytes, total));
    if (!unknown && a->free_segments != nfree)
        fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_COUNTER, k->an_block, k->an_page,
                          FSCK_NONE, "anchor: free_segments %" PRIu64 ", the "
                          "segment file has %" PRIu64 " FREE", a->free_segments,
                          nfree));
    for (uint32_t i = 0; i < a->npool; i++) {
        uint32_t s = a->pool[i].seg;
        const char *why = NULL;
        for (uint32_t j = 0; j < i && !why; j++)
            if (a->pool[j].seg == s)
                why = "is listed twice";
        if (!why && (s >= k->nblocks || fk_reserved_block(k, s)))
            why = "is not a segment";
        if (!why && !k->seg[s].unknown && k->seg[s].state != FK_FREE)
            why = "is not FREE in the segment file";
        if (why) {
            fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_COUNTER, k->an_block,
                              k->an_page, FSCK_NONE, "anchor: pool entry %u, "
                              "segment %u, %s", i, s, why));
        } else if (!k->seg[s].unknown && a->pool[i].erases != k->seg[s].erases) {
            fk_msg(k, FSCK_WARNING, FSCK_K_COUNTER, k->an_block, k->an_page,
                   FSCK_NONE, "anchor: pool entry %u, segment %u, says %u erases, "
                   "the segment file %u", i, s, a->pool[i].erases,
                   k->seg[s].erases);
        }
    }
}

/* Each area's open segment: USED for that area, nothing reachable past
 * `off`, and after a CLEAN record erased from `off` on (section 7.2). */
static int areas(struct fk *k, const uint32_t *end)
{
    const struct fk_anchor *a = &k->an;
    for (unsigned i = 0; i < FK_NAREAS; i++) {
        uint32_t s = a->area[i].seg, off = a->area[i].off;
        if (!s || s >= k->nblocks || off > k->seg_bytes || off % k->ps)
            continue; /* none, or reported with the anchor */
        const struct fk_segent *e = &k->seg[s];
        if (!e->unknown && (e->state != FK_USED || e->area != i)) {
            fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_ANCHOR, s, FSCK_NONE,
                              FSCK_NONE, "anchor: area %u is open in segment %u, "
                              "which is %s for area %u in the segment file", i, s,
                              state_name(e->state), e->area));
            k->area_bad |= (uint16_t)(1u << i);
        }
        if (end[s] > off)
            fk_msg(k, FSCK_ERROR, FSCK_K_TREE, s, FSCK_NONE, FSCK_NONE,
                   "segment %u: reachable objects end at offset %u, past area "
                   "%u's recorded offset %u", s, end[s], i, off);
        if (!(a->flags & FK_ANCHOR_CLEAN))
            continue;
        for (uint32_t p = off / k->ps; p < k->ppb; p++) {
            int rc = fk_read_page(k, s, p, k->page);
            if (rc && fk_is_oper_err(rc)) {
                fk_oper(k, "reading an open segment", rc);
                return -1;
            }
            if (rc || !fk_all(k->page, k->ps, 0xff)) {
                fk_plan(k, fk_msg(k, FSCK_ERROR, FSCK_K_ANCHOR, s, p, FSCK_NONE,
                                  "block %u page %u: programmed, but the CLEAN "
                                  "anchor says area %u goes on at offset %u", s,
                                  p, i, off));
                k->area_bad |= (uint16_t)(1u << i);
                break;
            }
        }
    }
    return 0;
}

int fk_check_space(struct fk *k)
{
    fk_sort_refs(k);
    overlaps(k);
    uint64_t *live = calloc(k->nblocks, sizeof *live);
    uint64_t *sflive = calloc(k->nblocks, sizeof *sflive);
    uint32_t *end = calloc(k->nblocks, sizeof *end);
    uint8_t *misplaced = calloc(k->nblocks, 1);
    int rc = 0;
    if (!live || !sflive || !end || !misplaced) {
        fk_oper(k, "out of memory", 0);
        rc = -1;
        goto out;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < k->nrefs; i++) {
        const struct fk_ref *r = &k->refs[i];
        uint64_t s = r->addr / k->seg_bytes;
        uint32_t e = (uint32_t)(r->addr % k->seg_bytes) + r->len;
        (r->cls == FK_CLS_SEGFILE ? sflive : live)[s] += r->len;
        total += r->cls == FK_CLS_SEGFILE ? 0 : r->len;
        end[s] = e > end[s] ? e : end[s];
        const struct fk_segent *se = &k->seg[s];
        if (!se->unknown && (se->state == FK_USED || se->state == FK_BAD) &&
            !area_ok(r, se->area) && !misplaced[s]) {
            char pl[96];
            misplaced[s] = 1;
            fk_place(pl, sizeof pl, r->cls, r->ino, r->level, r->bix);
            fk_err_at(k, FSCK_K_SEGMENT, r->addr, FSCK_NONE, "%s lies in a "
                      "segment of area %u, not of area %u", pl, se->area,
                      fk_area_of(r->cls, r->level));
        }
    }
    k->rep->objects = k->nrefs;
    total += k->prealloc_bytes; /* section 6.1: counted as raw objects */
    k->rep->live_bytes = total;
    if (k->walk_lost)
        fk_msg(k, FSCK_WARNING, FSCK_K_SEGMENT, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "live counts are not compared: part of a tree cannot be read");
    for (uint64_t s = 0; s < k->nblocks; s++)
        if (!k->seg[s].unknown) {
            segment(k, s, live[s], sflive[s]);
            device(k, s);
        }
    counters(k, total);
    rc = areas(k, end);
out:
    free(live);
    free(sflive);
    free(end);
    free(misplaced);
    return rc;
}

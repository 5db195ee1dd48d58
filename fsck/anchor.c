/* anchor.c -- the anchor ring (FORMAT.md section 6): find the newest
 * valid record exactly as section 6.3 says a mount does, then read every
 * ring page to see whether the ring is in the shape that search relies
 * on, and check the record's own fields. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdlib.h>

enum { PG_ERASED = 0, PG_VALID = 1, PG_OTHER = -1, PG_FAIL = -2 };

/* The seq an other page's header claims (section 6.3): the page read
 * without an ECC error and its magic and length are right; else 0. */
static uint64_t claimed_seq(const struct fk *k)
{
    if (le32_get(k->page) != FK_ANCHOR_MAGIC || le32_get(k->page + 4) != k->ab)
        return 0;
    return le64_get(k->page + 8);
}

/* Classify one ring page (section 6.3); PG_FAIL is an operational error.
 * *claim (may be NULL): claimed_seq of an other page that read, else 0. */
static int classify_claim(struct fk *k, uint32_t block, uint32_t page,
                          struct fk_anchor *a, uint64_t *claim)
{
    int rc = fk_read_page(k, block, page, k->page);
    k->ring_unreadable = rc != 0;
    if (claim)
        *claim = 0;
    if (rc && fk_is_oper_err(rc)) {
        fk_oper(k, "reading the anchor ring", rc);
        return PG_FAIL;
    }
    if (rc)
        return PG_OTHER;
    if (fk_all(k->page, k->ps, 0xff))
        return PG_ERASED;
    if (!fk_anchor_decode(k->page, a, k->ib))
        return PG_VALID;
    if (claim)
        *claim = claimed_seq(k);
    return PG_OTHER;
}

static int classify(struct fk *k, uint32_t block, uint32_t page,
                    struct fk_anchor *a)
{
    return classify_claim(k, block, page, a, NULL);
}

/* Section 6.3 step 1: a block's first record is page 0's, or when page 0
 * is other, the first valid one of the next pages, in order, before an
 * erased one.  *page: the last page read; *claim: the largest seq the
 * other pages read claim. */
static int first_record(struct fk *k, uint32_t block, struct fk_anchor *a,
                        uint32_t *page, uint64_t *claim)
{
    int c = PG_OTHER;
    uint32_t p;
    uint64_t cl;
    *claim = 0;
    for (p = 0; c == PG_OTHER && p < k->ppb; p++) {
        c = classify_claim(k, block, p, a, &cl);
        *claim = cl > *claim ? cl : *claim;
    }
    *page = p - 1;
    return c;
}

/* What the search found in one mirror (steps 1 to 3 on its blocks). */
struct mres {
    int found;
    struct fk_anchor a;
    uint32_t li, block, page; /* logical ring block, device block, page */
    uint32_t lost;            /* programmed pages after it, none valid */
    uint64_t claim[FK_MAX_ANCHORS];
};

/* The device block of logical ring block i in mirror m (section 6.2). */
static uint32_t ring_block(const struct fk *k, uint32_t m, uint32_t i)
{
    return k->sb.anchor_blocks[m * (k->sb.anchor_count / k->mirrors) + i];
}

/* Section 6.3 steps 1 to 3 on mirror m.  0, or PG_FAIL. */
static int search_mirror(struct fk *k, uint32_t m, struct mres *r)
{
    uint32_t n = k->sb.anchor_count / k->mirrors;
    struct fk_anchor a;
    int best = -1;
    uint64_t best_seq = 0;
    uint32_t best_first = 0;
    memset(r, 0, sizeof *r);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t page, b = ring_block(k, m, i);
        int c = first_record(k, b, &a, &page, &r->claim[i]);
        if (c == PG_FAIL)
            return PG_FAIL;
        if (c == PG_VALID && best >= 0 && a.seq == best_seq)
            fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b, 0,
                   FSCK_NONE, "block %u: its first anchor record, seq %" PRIu64
                   ", also starts block %u", b, a.seq,
                   ring_block(k, m, (uint32_t)best));
        if (c == PG_VALID && (best < 0 || a.seq > best_seq)) {
            best = (int)i;
            best_seq = a.seq;
            best_first = page;
        }
    }
    if (best < 0)
        return 0;
    uint32_t block = ring_block(k, m, (uint32_t)best), lo = best_first, hi = k->ppb;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = classify(k, block, mid, &a);
        if (c == PG_FAIL)
            return PG_FAIL;
        if (c == PG_ERASED)
            hi = mid;
        else
            lo = mid;
    }
    for (uint32_t p = lo + 1; p-- > best_first;) {
        int c = classify(k, block, p, &a);
        if (c == PG_FAIL)
            return PG_FAIL;
        if (c == PG_VALID) {
            r->found = 1;
            r->a = a;
            r->li = (uint32_t)best;
            r->block = block;
            r->page = p;
            r->lost = lo - p;
            r->claim[best] = 0;
            return 0;
        }
    }
    return 0; /* the block held a record: not reached */
}

/* Section 6.3 with the mirrors: steps 1 to 3 on each mirror, the newer
 * record wins (a tie goes to mirror 0, as the mount does); step 4: how
 * far the newest evidence of either mirror lies beyond it (k->an_lost).
 * 0 found, -1 none, PG_FAIL. */
static int search(struct fk *k)
{
    struct mres r[2];
    int best = -1;
    for (uint32_t m = 0; m < k->mirrors; m++) {
        if (search_mirror(k, m, &r[m]) == PG_FAIL)
            return PG_FAIL;
        if (r[m].found && (best < 0 || r[m].a.seq > r[best].a.seq))
            best = (int)m;
    }
    if (best < 0)
        return -1;
    const struct mres *w = &r[best];
    k->an = w->a;
    k->an_mirror = (uint32_t)best;
    k->ring_cur = w->li;
    k->an_block = w->block;
    k->an_page = w->page;
    k->an_lost = 0;
    for (uint32_t m = 0; m < k->mirrors; m++) {
        uint64_t lost = 0, n = k->sb.anchor_count / k->mirrors;
        if (r[m].found && r[m].a.seq + r[m].lost > w->a.seq)
            lost = r[m].a.seq + r[m].lost - w->a.seq;
        for (uint32_t i = 0; i < n; i++)
            lost += r[m].claim[i] > w->a.seq;
        if (lost > k->an_lost)
            k->an_lost = (uint32_t)lost;
    }
    if (k->an_lost)
        fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, w->block, w->page, FSCK_NONE,
               "the newest anchor record is damaged or torn: a mount "
               "uses seq %" PRIu64 " (block %u page %u), %u newer "
               "ring page%s unreadable or corrupt (media damage, or "
               "a commit torn by a power cut)", w->a.seq, w->block, w->page,
               k->an_lost, k->an_lost == 1 ? "" : "s");
    return 0;
}

/* A torn last page (the one after the record found, in either mirror's
 * copy of its logical block) and, on paired parts, its lower page, which
 * the torn program damaged (section 6.3). */
static int torn_by_last_cut(const struct fk *k, uint32_t b, uint32_t p)
{
    nand_page_t lower;
    int mine = 0;
    for (uint32_t m = 0; m < k->mirrors; m++)
        mine |= b == ring_block(k, m, k->ring_cur);
    if (!mine)
        return 0;
    return p == k->an_page + 1 ||
           (nand_page_is_upper(nand_get_config(k->dev), k->an_page + 1, &lower) &&
            lower == p);
}

/* One ring page as scan_ring saw it. */
struct rpage { int c, unreadable; uint64_t seq; };

/* Section 6.2: every record is in both mirrors, at the same page of the
 * same logical block.  A copy missing from mirror 1 is what a cut between
 * the two programs leaves -- erased, or torn (unreadable) -- when it is
 * the last page mirror 0 has in that block (mirror 0 is written first);
 * any other lone copy (a page that reads but is no valid record, or a
 * copy missing from mirror 0) is damage the other mirror covers: a
 * warning. *cut: mirror 1's page is such a cut. */
static void mirror_pair(struct fk *k, const struct rpage *m0, const struct rpage *m1,
                        uint32_t i, uint32_t p, int *cut)
{
    uint32_t b0 = ring_block(k, 0, i), b1 = ring_block(k, 1, i);
    *cut = 0;
    if (m0[p].c == PG_VALID && m1[p].c == PG_VALID) {
        if (m0[p].seq != m1[p].seq)
            fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b1, p, FSCK_NONE,
                   "block %u page %u: anchor seq %" PRIu64 ", but its mirror "
                   "block %u page %u holds seq %" PRIu64 " (the mirrors are "
                   "written in step)", b1, p, m1[p].seq, b0, p, m0[p].seq);
        return;
    }
    if (m0[p].c != PG_VALID && m1[p].c != PG_VALID)
        return;
    if (m0[p].c == PG_VALID && (m1[p].c == PG_ERASED || m1[p].unreadable) &&
        (p + 1 == k->ppb || m0[p + 1].c == PG_ERASED)) {
        *cut = 1; /* a cut between the two copies: normal */
        return;
    }
    int have0 = m0[p].c == PG_VALID;
    uint32_t hb = have0 ? b0 : b1, mb = have0 ? b1 : b0;
    int missing = (have0 ? m1 : m0)[p].c;
    fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, mb, p, FSCK_NONE,
           "block %u page %u: the mirror copy of anchor seq %" PRIu64
           " (block %u page %u) is %s; the other mirror holds the record",
           mb, p, (have0 ? m0 : m1)[p].seq, hb, p,
           missing == PG_ERASED ? "missing (erased)" : "damaged");
}

/* Every page of every ring block: is the ring what the search assumes? */
static int scan_ring(struct fk *k)
{
    const struct fk_super *s = &k->sb;
    struct fk_anchor a;
    uint32_t n = s->anchor_count / k->mirrors;
    struct rpage *pg = calloc((size_t)k->mirrors * n * k->ppb, sizeof *pg);
    if (!pg) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    for (uint32_t m = 0; m < k->mirrors; m++)
        for (uint32_t i = 0; i < n; i++) {
            struct rpage *row = pg + ((size_t)m * n + i) * k->ppb;
            for (uint32_t p = 0; p < k->ppb; p++) {
                row[p].c = classify(k, ring_block(k, m, i), p, &a);
                if (row[p].c == PG_FAIL) {
                    free(pg);
                    return -1;
                }
                row[p].seq = row[p].c == PG_VALID ? a.seq : 0;
                row[p].unreadable = k->ring_unreadable;
            }
        }
    for (uint32_t m = 0; m < k->mirrors; m++)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t b = ring_block(k, m, i);
            const struct rpage *row = pg + ((size_t)m * n + i) * k->ppb;
            int seen_erased = 0, have_prev = 0;
            uint64_t prev = 0;
            for (uint32_t p = 0; p < k->ppb; p++) {
                int c = row[p].c, cut = 0;
                if (k->mirrors == 2 && m == 1)
                    mirror_pair(k, pg + (size_t)i * k->ppb, row, i, p, &cut);
                if (c == PG_ERASED) {
                    seen_erased = 1;
                    continue;
                }
                if (seen_erased)
                    fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b, p, FSCK_NONE,
                           "block %u page %u: programmed after an erased page "
                           "(the ring search assumes a programmed prefix)", b, p);
                if (c == PG_OTHER && !cut && !torn_by_last_cut(k, b, p))
                    fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b, p, FSCK_NONE,
                           "block %u page %u: neither erased nor a valid anchor "
                           "record", b, p);
                if (c != PG_VALID)
                    continue;
                if (have_prev && row[p].seq <= prev)
                    fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b, p, FSCK_NONE,
                           "block %u page %u: anchor seq %" PRIu64 " after seq %"
                           PRIu64 " in the same block", b, p, row[p].seq, prev);
                if (row[p].seq > k->an.seq)
                    fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b, p, FSCK_NONE,
                           "block %u page %u: anchor seq %" PRIu64 " is newer than "
                           "the one a mount finds (seq %" PRIu64 ")", b, p,
                           row[p].seq, k->an.seq);
                have_prev = 1;
                prev = row[p].seq;
            }
        }
    free(pg);
    return 0;
}

/* The record's own fields beyond validity (section 6.1). */
static void fields(struct fk *k)
{
    struct fk_anchor *a = &k->an;
    int64_t b = k->an_block, p = k->an_page;
    if (a->inodefile.ino != 0 || a->segfile.ino != 1) {
        fk_msg(k, FSCK_ERROR, FSCK_K_ANCHOR, b, p, FSCK_NONE,
               "anchor seq %" PRIu64 ": inode file record says ino %" PRIu64
               ", segment file record ino %" PRIu64 " (0 and 1 expected): "
               "LogFS refuses to mount", a->seq, a->inodefile.ino, a->segfile.ino);
        k->incomplete = 1;
    }
    const struct fk_inode *meta[2] = {&a->inodefile, &a->segfile};
    for (int i = 0; i < 2; i++)
        if (meta[i]->mode || meta[i]->size || meta[i]->nlink)
            fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b, p, FSCK_NONE,
                   "anchor: the %s record has mode %o, nlink %u, size %" PRIu64
                   " (0 expected)", i ? "segment file" : "inode file",
                   meta[i]->mode, meta[i]->nlink, meta[i]->size);
    for (uint32_t i = a->npool; i < FK_POOL_MAX; i++)
        if (a->pool[i].seg || a->pool[i].erases) {
            fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b, p, FSCK_NONE,
                   "anchor: unused pool slot %u is not zero", i);
            break;
        }
    for (uint32_t i = a->norphans; i < FK_ORPHAN_MAX; i++)
        if (a->orphans[i]) {
            fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, b, p, FSCK_NONE,
                   "anchor: unused orphan slot %u is not zero", i);
            break;
        }
    for (unsigned i = 0; i < FK_NAREAS; i++) {
        const struct fk_area_pos *ap = &a->area[i];
        if (ap->seg == 0 && ap->off == 0)
            continue;
        if (ap->seg == 0 || ap->seg >= k->nblocks || ap->off > k->seg_bytes ||
            ap->off % k->ps) {
            size_t m = fk_msg(k, FSCK_ERROR, FSCK_K_ANCHOR, b, p, FSCK_NONE,
                              "anchor: area %u position segment %u offset %u "
                              "is not a page boundary of a segment", i, ap->seg,
                              ap->off);
            fk_plan(k, m); /* the new record closes that area */
            k->area_bad |= (uint16_t)(1u << i);
        }
    }
    if (a->next_ino < FK_INO_FIRST) {
        size_t m = fk_msg(k, FSCK_ERROR, FSCK_K_COUNTER, b, p, FSCK_NONE,
                          "anchor: next_ino %" PRIu64 " is below %u", a->next_ino,
                          FK_INO_FIRST);
        fk_plan(k, m);
    }
}

int fk_check_anchor(struct fk *k)
{
    int rc = search(k);
    if (rc == PG_FAIL)
        return -1;
    if (rc) {
        char list[FK_MAX_ANCHORS * 12] = "";
        for (uint32_t i = 0; i < k->sb.anchor_count; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), " %u",
                     k->sb.anchor_blocks[i]);
        fk_msg(k, FSCK_ERROR, FSCK_K_ANCHOR, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "no valid anchor record in any ring block (blocks%s): "
               "no commit to mount", list);
        k->fatal = 1;
        return -1;
    }
    k->rep->seq = k->an.seq;
    fk_msg(k, FSCK_INFO, FSCK_K_ANCHOR, k->an_block, k->an_page, FSCK_NONE,
           "anchor seq %" PRIu64 " in block %u page %u%s%s; seg_clock %" PRIu64
           ", next_ino %" PRIu64 ", %u pooled, %u orphans",
           k->an.seq, k->an_block, k->an_page,
           k->an.flags & FK_ANCHOR_CLEAN ? ", clean" : "",
           k->an.flags & FK_ANCHOR_ORPHAN_SCAN ? ", orphan scan" : "",
           k->an.seg_clock, k->an.next_ino, k->an.npool, k->an.norphans);
    /* re-read the record's page for its tail (classify reused the buffer) */
    int nrc = fk_read_page(k, k->an_block, k->an_page, k->page);
    if (!nrc && !fk_all(k->page + k->ab, k->ps - k->ab, 0xff))
        fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, k->an_block, k->an_page, FSCK_NONE,
               "block %u page %u: bytes after the anchor record are not 0xFF",
               k->an_block, k->an_page);
    fields(k);
    return scan_ring(k);
}

/* Section 6.2: after a mount the next record goes to page 0 of the next
 * logical ring block, erased first, in mirror 0 then in mirror 1 --
 * fsck writes like a mount. */
int fk_write_anchor(struct fk *k, const struct fk_anchor *na)
{
    uint32_t i = (k->ring_cur + 1) % (k->sb.anchor_count / k->mirrors);
    for (uint32_t m = 0; m < k->mirrors; m++) {
        uint32_t b = ring_block(k, m, i);
        memset(k->page, 0xff, k->ps);
        fk_anchor_encode(na, k->page, k->ib);
        int rc = nand_erase(k->dev, b, NULL);
        k->rep->written = 1;
        if (!rc)
            rc = nand_program(k->dev, b, 0, k->page, NULL, NULL);
        if (rc) {
            fk_msg(k, FSCK_ERROR, FSCK_K_OPER, b, 0, FSCK_NONE,
                   "repair: writing the anchor record to block %u failed: %s", b,
                   nand_strerror(rc));
            return -1;
        }
    }
    return 0;
}

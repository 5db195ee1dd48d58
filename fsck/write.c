/* write.c -- writing objects for a repair commit the way FORMAT.md
 * section 7 packs them: one open segment per area, taken from the FREE
 * segments and erased first (its entry: erases + 1, USED, the area, the
 * stamp from seg_clock), objects byte-packed and never across a segment's
 * end, each page programmed once, the last one padded with 0xFF.
 *
 * Only segments that are FREE in the segment file and hold nothing any
 * tree of the current commit reaches are taken, so until the new anchor
 * record is on flash the current commit stays intact. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdlib.h>

struct warea {
    uint32_t seg, off;     /* seg 0: none open */
    uint8_t *page;         /* the page holding off */
    uint32_t *res;         /* reserved segments, used in order */
    uint32_t nres, next;
};

struct fk_writer {
    struct fk *k;
    uint64_t seq, *seg_clock;
    struct warea a[FK_NAREAS];
    uint8_t *taken, *avoid; /* per block */
    uint8_t *obj;
};

struct fk_writer *fk_writer_new(struct fk *k, uint64_t seq, uint64_t *seg_clock)
{
    struct fk_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->k = k;
    w->seq = seq;
    w->seg_clock = seg_clock;
    w->taken = calloc(k->nblocks, 1);
    w->avoid = calloc(k->nblocks, 1);
    w->obj = malloc(FK_HDR + k->bs);
    int ok = w->taken && w->avoid && w->obj;
    for (unsigned i = 0; ok && i < FK_NAREAS; i++) {
        ok = (w->a[i].page = malloc(k->ps)) != NULL;
        if (ok)
            memset(w->a[i].page, 0xff, k->ps);
    }
    if (!ok) {
        fk_writer_free(w);
        return NULL;
    }
    /* whatever the current commit reaches stays where it is */
    for (size_t i = 0; i < k->nrefs; i++)
        w->avoid[k->refs[i].addr / k->seg_bytes] = 1;
    return w;
}

void fk_writer_free(struct fk_writer *w)
{
    if (!w)
        return;
    for (unsigned i = 0; i < FK_NAREAS; i++) {
        free(w->a[i].page);
        free(w->a[i].res);
    }
    free(w->taken);
    free(w->avoid);
    free(w->obj);
    free(w);
}

int fk_writer_took(const struct fk_writer *w, uint32_t seg)
{
    return seg < w->k->nblocks && w->taken[seg];
}

uint32_t fk_writer_open_seg(const struct fk_writer *w, unsigned area)
{
    return w->a[area].seg;
}

/* Take the least-worn usable FREE segment for area and erase it. */
static int take(struct fk_writer *w, unsigned area, uint32_t *out)
{
    struct fk *k = w->k;
    for (;;) {
        uint64_t best = UINT64_MAX;
        for (uint64_t s = 1; s < k->nblocks; s++) {
            const struct fk_segent *e = &k->seg[s];
            if (e->state != FK_FREE || e->unknown || w->avoid[s] || w->taken[s] ||
                k->dev_bad[s] || fk_reserved_block(k, s))
                continue;
            if (best == UINT64_MAX || e->erases < k->seg[best].erases)
                best = s;
        }
        if (best == UINT64_MAX) {
            fk_msg(k, FSCK_ERROR, FSCK_K_OPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
                   "repair: no free segment left to write the repair into");
            return -1;
        }
        struct fk_segent *e = &k->seg[best];
        int rc = nand_erase(k->dev, (nand_block_t)best, NULL);
        k->rep->written = 1;
        e->erases++;
        if (rc == NAND_E_ERASE_FAIL) { /* worn out: retire it, as LogFS does */
            nand_mark_bad(k->dev, (nand_block_t)best);
            e->state = FK_BAD;
            w->avoid[best] = 1;
            continue;
        }
        if (rc) {
            fk_msg(k, FSCK_ERROR, FSCK_K_OPER, (int64_t)best, FSCK_NONE, FSCK_NONE,
                   "repair: erasing block %" PRIu64 " failed: %s", best,
                   nand_strerror(rc));
            return -1;
        }
        e->state = FK_USED;
        e->area = (uint8_t)area;
        e->live = 0;
        e->stamp = (uint32_t)++*w->seg_clock;
        w->taken[best] = 1;
        *out = (uint32_t)best;
        return 0;
    }
}

int fk_writer_reserve(struct fk_writer *w, unsigned area, uint32_t nsegs)
{
    struct warea *a = &w->a[area];
    uint32_t *v = realloc(a->res, (a->nres + nsegs) * sizeof *v);
    if (nsegs && !v)
        return -1;
    a->res = v;
    for (uint32_t i = 0; i < nsegs; i++)
        if (take(w, area, &a->res[a->nres++]))
            return -1;
    return 0;
}

static int program(struct fk_writer *w, struct warea *a, uint32_t page)
{
    int rc = nand_program(w->k->dev, a->seg, page, a->page, NULL, NULL);
    memset(a->page, 0xff, w->k->ps);
    if (rc) /* the repair stops; the current commit is untouched */
        fk_msg(w->k, FSCK_ERROR, FSCK_K_OPER, a->seg, page, FSCK_NONE,
               "repair: programming block %u page %u failed: %s", a->seg, page,
               nand_strerror(rc));
    return rc ? -1 : 0;
}

/* Program the partly filled page; the next object starts a fresh page. */
static int pad(struct fk_writer *w, struct warea *a)
{
    uint32_t ps = w->k->ps;
    if (!a->seg || a->off % ps == 0)
        return 0;
    int rc = program(w, a, a->off / ps);
    a->off = (a->off / ps + 1) * ps;
    return rc;
}

int fk_writer_put(struct fk_writer *w, unsigned area, uint8_t type,
                  uint8_t level, uint64_t ino, uint64_t bix,
                  const uint8_t *payload, uint32_t len, uint64_t *ptr)
{
    struct fk *k = w->k;
    struct warea *a = &w->a[area];
    uint32_t total = FK_HDR + len, ps = k->ps;
    if (!a->seg || a->off + total > k->seg_bytes) {
        if (pad(w, a))
            return -1;
        if (a->next < a->nres) {
            a->seg = a->res[a->next++];
        } else if (a->nres) { /* a reservation must be exact: its entries are written */
            fk_msg(k, FSCK_ERROR, FSCK_K_OPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
                   "repair: more than the %u reserved segments needed for area %u",
                   a->nres, area);
            return -1;
        } else if (take(w, area, &a->seg)) {
            return -1;
        }
        a->off = 0;
    }
    struct fk_obj o = {.type = type, .level = level, .len = len,
                       .pcrc = fk_crc(payload, len), .ino = ino, .bix = bix,
                       .seq = w->seq};
    fk_obj_encode(&o, w->obj);
    memcpy(w->obj + FK_HDR, payload, len);
    uint64_t addr = (uint64_t)a->seg * k->seg_bytes + a->off;
    for (uint32_t done = 0; done < total;) {
        uint32_t col = a->off % ps, part = ps - col < total - done ? ps - col
                                                                    : total - done;
        memcpy(a->page + col, w->obj + done, part);
        a->off += part;
        done += part;
        if (a->off % ps == 0 && program(w, a, a->off / ps - 1))
            return -1;
    }
    *ptr = addr << 16 | total;
    int cls = ino == 0 ? FK_CLS_INODEFILE : ino == 1 ? FK_CLS_SEGFILE : FK_CLS_FILE;
    if (fk_add_ref(k, *ptr, cls, ino, level, bix)) {
        fk_msg(k, FSCK_ERROR, FSCK_K_OPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "repair: out of memory");
        return -1;
    }
    return 0;
}

int fk_writer_flush(struct fk_writer *w, struct fk_area_pos *areas)
{
    for (unsigned i = 0; i < FK_NAREAS; i++) {
        struct warea *a = &w->a[i];
        if (!a->seg)
            continue;
        if (pad(w, a))
            return -1;
        areas[i] = (struct fk_area_pos){a->seg, a->off};
    }
    return 0;
}

struct fk *fk_writer_fk(struct fk_writer *w)
{
    return w->k;
}

/* segwrite.c -- the repair commit's segment file, written whole
 * (FORMAT.md section 12): every entry recomputed from the repaired trees --
 * live bytes from the reachable pointers, USED for a segment that holds
 * some, FREE for one that the trees no longer reach and no area has open
 * -- into area-12 segments reserved first (allocating them changes their
 * own entries), then its tree built bottom-up. */
#include "fsck_int.h"

#include <stdlib.h>

/* Height a tree of nb level-0 blocks needs. */
static unsigned height_for(const struct fk *k, uint64_t nb)
{
    unsigned h = 0;
    while (h < FK_MAX_HEIGHT && fk_tree_cap(k, h) < nb)
        h++;
    return h;
}

/* Objects of the whole segment file: its blocks and indirect nodes. */
static uint64_t objects(const struct fk *k, uint64_t nb, unsigned h)
{
    uint64_t cnt = nb > FK_NDIRECT ? nb - FK_NDIRECT : 0, total = nb;
    for (unsigned l = 1; l <= h && cnt; l++) {
        cnt = (cnt + k->P - 1) / k->P;
        total += cnt;
    }
    return total;
}

/* The new entry of every segment. */
static int entries(struct fk *k, struct fk_writer *w, const struct fk_anchor *na,
                   uint16_t keep_areas)
{
    uint64_t *live = calloc(k->nblocks, sizeof *live);
    uint8_t *holds = calloc(k->nblocks, 1), *area = calloc(k->nblocks, 1);
    uint8_t *open = calloc(k->nblocks, 1);
    int rc = live && holds && area && open ? 0 : -1;
    for (size_t i = 0; !rc && i < k->nrefs; i++) {
        const struct fk_ref *r = &k->refs[i];
        uint64_t s = r->addr / k->seg_bytes;
        if (r->dropped)
            continue;
        holds[s] = 1;
        area[s] = (uint8_t)fk_area_of(r->cls, r->level);
        if (r->cls != FK_CLS_SEGFILE)
            live[s] += r->len;
    }
    for (unsigned i = 0; !rc && i < FK_NAREAS; i++) {
        uint32_t s = fk_writer_open_seg(w, i);
        if (!s && (keep_areas & (1u << i)))
            s = na->area[i].seg;
        if (s && s < k->nblocks)
            open[s] = 1;
    }
    for (uint64_t s = 0; !rc && s < k->nblocks; s++) {
        struct fk_segent *e = &k->seg[s];
        e->resv = 0;
        if (fk_reserved_block(k, s)) {
            e->state = FK_RESERVED;
            e->live = 0;
            continue;
        }
        int kept = holds[s] || open[s] || fk_writer_took(w, (uint32_t)s);
        if (e->state == FK_BAD) {
            e->live = e->area == FK_AREA_SEGFILE ? 0 : (uint32_t)live[s];
        } else if (kept) {
            if (e->state != FK_USED || e->area > FK_AREA_MOVED)
                e->area = holds[s] ? area[s] : e->area > FK_AREA_MOVED ? 0 : e->area;
            e->state = FK_USED;
            e->live = e->area == FK_AREA_SEGFILE ? 0 : (uint32_t)live[s];
        } else {
            e->state = FK_FREE; /* emptied, or already free */
            e->live = 0;
        }
    }
    free(live);
    free(holds);
    free(area);
    free(open);
    return rc;
}

int fk_write_segfile(struct fk *k, struct fk_writer *w, struct fk_anchor *na,
                     uint16_t keep_areas)
{
    uint64_t nb = (k->nblocks + k->E - 1) / k->E;
    unsigned h = height_for(k, nb);
    if (h < na->segfile.height)
        h = na->segfile.height; /* a height is never lowered (section 10) */
    uint64_t per_seg = k->seg_bytes / (FK_HDR + k->bs);
    uint64_t nsegs = (objects(k, nb, h) + per_seg - 1) / per_seg;
    for (size_t i = 0; i < k->nrefs; i++)
        if (k->refs[i].cls == FK_CLS_SEGFILE)
            k->refs[i].dropped = 1; /* all of it is rewritten */
    if (fk_writer_reserve(w, FK_AREA_SEGFILE, (uint32_t)nsegs) ||
        entries(k, w, na, keep_areas))
        return -1;
    uint64_t cnt0 = nb > FK_NDIRECT ? nb - FK_NDIRECT : 0;
    uint64_t *ptrs = calloc(cnt0 ? cnt0 : 1, sizeof *ptrs);
    uint8_t *buf = malloc(k->bs);
    int rc = ptrs && buf ? 0 : -1;
    struct fk_inode *in = &na->segfile;
    memset(in->direct, 0, sizeof in->direct);
    in->indirect = 0;
    in->height = (uint8_t)h;
    for (uint64_t b = 0; b < nb && !rc; b++) {
        memset(buf, 0, k->bs);
        for (uint32_t i = 0; i < k->E && b * k->E + i < k->nblocks; i++) {
            const struct fk_segent *e = &k->seg[b * k->E + i];
            uint8_t *p = buf + i * FK_SEGENT;
            le32_put(p, e->erases);
            le32_put(p + 4, e->live);
            p[8] = e->state;
            p[9] = e->area;
            le32_put(p + 12, e->stamp);
        }
        uint64_t p;
        rc = fk_writer_put(w, FK_AREA_SEGFILE, FK_DATA, 0, 1, b, buf, k->bs, &p);
        if (b < FK_NDIRECT)
            in->direct[b] = p;
        else
            ptrs[b - FK_NDIRECT] = p;
    }
    /* bottom-up: level-L node n holds the pointers n*P .. n*P+P-1 below it */
    uint64_t cnt = cnt0;
    for (unsigned l = 1; l <= h && cnt && !rc; l++) {
        uint64_t up = (cnt + k->P - 1) / k->P;
        for (uint64_t n = 0; n < up && !rc; n++) {
            memset(buf, 0, k->bs);
            for (uint64_t s = 0; s < k->P && n * k->P + s < cnt; s++)
                le64_put(buf + 8 * s, ptrs[n * k->P + s]);
            rc = fk_writer_put(w, FK_AREA_SEGFILE, FK_INDIRECT, (uint8_t)l, 1, n,
                               buf, k->bs, &ptrs[n]);
        }
        cnt = up;
    }
    if (!rc && cnt0)
        in->indirect = ptrs[0];
    in->blocks = k->ver >= FK_VERSION ? nb : 0; /* every block written */
    free(ptrs);
    free(buf);
    return rc;
}

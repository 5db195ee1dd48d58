/*
 * ftl_mount.c -- format, probe and mount.  The superblock sits in page 0
 * of the first and of the last good block and holds the format's options
 * and the logical size; everything else is found by a scan of every
 * page's spare area at mount (docs/ftl.md, "Mount"): for each sector the
 * copy with the highest sequence number wins.
 */
#include "ftl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Page 0 of block b as a superblock copy that b may hold: its spare area
 * erased (a data page's never is), and b one of the copies it names
 * (version 1: the first good block, where that format kept its only
 * copy).  1 yes, 0 no, <0 the device is off. */
static int super_at(nand_dev *dev, uint32_t b, uint32_t first_good, uint8_t *page,
                    uint8_t *oob, struct ftl_super *s)
{
    const struct nand_config *c = nand_get_config(dev);
    int r = nand_read(dev, b, 0, page, oob, NULL);
    if (r == NAND_E_POWER)
        return -EIO;
    for (uint32_t i = 1; r == NAND_OK && i < c->geo.oob_size; i++)
        r = oob[i] == 0xFF ? NAND_OK : -1;
    if (r != NAND_OK || !ftl_super_decode(page, c->geo.page_size, s))
        return 0;
    if (s->version == 1) {
        s->copy[0] = b;
        return b <= first_good;
    }
    return s->copy[0] == b || s->copy[1] == b;
}

/* The copies sit in the first and the last good block of the format; a
 * block that has gone bad since still reads, so each end is searched up
 * to its first block that is good now. */
int ftl_find_super(nand_dev *dev, struct ftl_super *s)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t n = (uint32_t)nand_blocks(c), first = n, last = n;
    uint8_t *page = malloc(c->geo.page_size), *oob = malloc(c->geo.oob_size);
    int rc = page && oob ? 0 : -ENOMEM;
    for (uint32_t b = 0; b < n && !rc && first == n; b++) {
        int bad = nand_is_bad(dev, b);
        rc = bad < 0 ? -EIO : 0;
        first = bad ? first : b;
    }
    for (uint32_t b = n; b-- > first && !rc && last == n;) {
        int bad = nand_is_bad(dev, b);
        rc = bad < 0 ? -EIO : 0;
        last = bad ? last : b;
    }
    for (uint32_t b = 0; !rc && b <= first && b < n; b++)
        rc = super_at(dev, b, first, page, oob, s);
    for (uint32_t b = n; !rc && b-- > first && b >= last;)
        rc = super_at(dev, b, first, page, oob, s);
    free(page);
    free(oob);
    return rc;
}

int blk_ftl_probe(nand_dev *dev)
{
    struct ftl_super s;
    return ftl_find_super(dev, &s);
}

/* The sector size opts asks for on dev's pages, or 0 with err set. */
static uint32_t sector_for(const struct ftl_opts *o, const struct nand_config *c, char *err,
                           size_t errlen)
{
    uint32_t ps = c->geo.page_size;
    uint32_t ss = o->sector == UINT32_MAX ? ps : o->sector ? o->sector : (ps < 4096 ? ps : 4096);
    if (ss > ps || ps % ss || ps / ss > FTL_SLOTS_MAX) {
        snprintf(err, errlen, "ftl: sector=%u does not divide the %u-byte page (in at most %d)",
                 ss, ps, FTL_SLOTS_MAX);
        return 0;
    }
    if (ftl_oob_bytes(ps / ss) > c->geo.oob_size) {
        snprintf(err, errlen, "ftl: sector=%u needs %u spare bytes a page, the device has %u",
                 ss, ftl_oob_bytes(ps / ss), c->geo.oob_size);
        return 0;
    }
    return ss;
}

/* Allocate d's tables for its device and superblock. */
static int setup(struct ftl_dev *d)
{
    const struct nand_config *c = nand_get_config(d->dev);
    d->ps = c->geo.page_size;
    d->ppb = c->geo.pages_per_block;
    d->oob = c->geo.oob_size;
    d->ss = d->sb.sector_size;
    d->spp = d->ps / d->ss;
    d->nblocks = (uint32_t)nand_blocks(c);
    d->ppd = c->geo.planes_per_die;
    d->bpp = c->geo.blocks_per_plane;
    d->nplanes = (uint32_t)nand_dies(c) * d->ppd;
    d->nslots = (uint64_t)d->nblocks * d->ppb * d->spp;
    if (d->nslots >= FTL_TOMB || d->sb.sectors > FTL_SECTOR_MASK)
        return -EFBIG;
    uint32_t thr = (uint32_t)(d->o.gc_threshold * d->bpp);
    d->gc_threshold = thr < 2 ? 2 : thr;
    d->l2p = malloc(d->sb.sectors * sizeof *d->l2p);
    d->stale = calloc(d->sb.sectors ? d->sb.sectors : 1, sizeof *d->stale);
    d->damaged = calloc((d->sb.sectors + 7) / 8 + 1, 1); /* freed after the scan if unused */
    d->p2l = malloc(d->nslots * sizeof *d->p2l);
    d->blk = calloc(d->nblocks, sizeof *d->blk);
    d->plane = calloc(d->nplanes, sizeof *d->plane);
    d->pbuf = malloc(d->ps);
    d->obuf = malloc(d->oob);
    if (!d->l2p || !d->stale || !d->damaged || !d->p2l || !d->blk || !d->plane || !d->pbuf || !d->obuf)
        return -ENOMEM;
    memset(d->l2p, 0xFF, d->sb.sectors * sizeof *d->l2p);
    memset(d->p2l, 0xFF, d->nslots * sizeof *d->p2l);
    for (uint32_t p = 0; p < d->nplanes; p++) {
        struct ftl_plane *pl = &d->plane[p];
        pl->free = malloc(d->bpp * sizeof *pl->free);
        pl->host.buf = malloc(d->ps + d->oob);
        pl->gc.buf = malloc(d->ps + d->oob);
        pl->host.block = pl->gc.block = -1;
        if (!pl->free || !pl->host.buf || !pl->gc.buf)
            return -ENOMEM;
    }
    return 0;
}

int blk_ftl_format(nand_dev *dev, const char *options, char *err, size_t errlen)
{
    const struct nand_config *c = nand_get_config(dev);
    struct ftl_opts o;
    ftl_opts_default(&o);
    if (ftl_opts_parse(options, &o))
        return blk_ftl_check_options(options, err, errlen);
    if (options && strlen(options) >= FTL_OPTS_MAX) {
        snprintf(err, errlen, "ftl: options longer than %d bytes", FTL_OPTS_MAX - 1);
        return -EINVAL;
    }
    uint32_t ss = sector_for(&o, c, err, errlen);
    if (!ss)
        return -EINVAL;
    uint32_t n = (uint32_t)nand_blocks(c), ppd = c->geo.planes_per_die,
             bpp = c->geo.blocks_per_plane;
    uint32_t planes = (uint32_t)nand_dies(c) * ppd, copy[2] = {FTL_NONE, FTL_NONE};
    uint32_t *good = calloc(planes, sizeof *good);
    if (!good)
        return -ENOMEM;
    for (uint32_t b = 0; b < n; b++) {
        int bad = nand_is_bad(dev, b);
        if (bad < 0 || (!bad && nand_erase(dev, b, NULL) == NAND_E_POWER)) {
            free(good);
            snprintf(err, errlen, "ftl: block %u cannot be read or erased", b);
            return -EIO;
        }
        if (bad)
            continue;
        copy[0] = copy[0] == FTL_NONE ? b : copy[0];
        copy[1] = b;
        good[b / (ppd * bpp) * ppd + b % ppd]++;
    }
    /* the superblock's blocks are not data blocks */
    for (int i = 0; i < 2 && copy[1] != copy[0]; i++)
        good[copy[i] / (ppd * bpp) * ppd + copy[i] % ppd]--;
    uint32_t gmin = UINT32_MAX;
    for (uint32_t p = 0; p < planes; p++)
        gmin = good[p] < gmin ? good[p] : gmin;
    free(good);
    uint32_t spp = c->geo.page_size / ss, thr = (uint32_t)(o.gc_threshold * bpp);
    /* GC needs its threshold, two open blocks and one to clean into */
    uint64_t reserve = (uint64_t)((thr < 2 ? 2 : thr) + 3) * c->geo.pages_per_block * spp;
    if (!o.op_set && gmin != UINT32_MAX && gmin) {
        double need = (double)(reserve + c->geo.pages_per_block * spp) /
                      ((double)gmin * c->geo.pages_per_block * spp);
        o.op = need > o.op && need < 0.9 ? need : o.op;
    }
    uint64_t per_plane = (uint64_t)((double)gmin * c->geo.pages_per_block * spp * (1 - o.op));
    if (copy[1] == copy[0] || per_plane + reserve > (uint64_t)gmin * c->geo.pages_per_block * spp) {
        snprintf(err, errlen, "ftl: op=%g leaves GC no room on this device (%u good blocks a "
                 "plane); raise op", o.op, gmin == UINT32_MAX ? 0 : gmin);
        return -ENOSPC;
    }
    struct ftl_super sb = {.version = FTL_VERSION, .copy = {copy[0], copy[1]}, .sector_size = ss,
                           .op_ppm = (uint32_t)(o.op * 1e6 + 0.5), .sectors = per_plane * planes};
    snprintf(sb.options, sizeof sb.options, "%s", options ? options : "");
    uint8_t *page = malloc(c->geo.page_size);
    if (!page)
        return -ENOMEM;
    ftl_super_encode(page, c->geo.page_size, &sb);
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++)
        if ((rc = nand_program(dev, copy[i], 0, page, NULL, NULL)))
            snprintf(err, errlen, "ftl: superblock write to block %u: %s", copy[i],
                     nand_strerror(rc));
    free(page);
    return rc ? ftl_errno(rc) : 0;
}

static void set_damaged(struct ftl_dev *d, uint32_t sec, int on)
{
    if (on)
        d->damaged[sec / 8] |= (uint8_t)(1u << (sec % 8));
    else
        d->damaged[sec / 8] &= (uint8_t)~(1u << (sec % 8));
}

/* Page p of block b (with o decoded) competes for its sectors; a winning
 * copy GC moved with the damaged flag marks its sector damaged. */
static void take_page(struct ftl_dev *d, uint32_t b, uint32_t p, const struct ftl_oob *o,
                      uint64_t *seqs, uint32_t *copies)
{
    for (uint32_t s = 0; s < d->spp; s++) {
        uint32_t lsn = o->lsn[s], sec = lsn & FTL_SECTOR_MASK, slot = ftl_slot(d, b, p, s);
        if (lsn == FTL_NONE || sec >= d->sb.sectors || (lsn & FTL_TOMB && lsn & FTL_DAMAGED))
            continue;
        d->p2l[slot] = lsn & ~FTL_DAMAGED;
        copies[sec] += copies[sec] != UINT32_MAX;
        /* >=: a page can hold two copies of a sector (written twice
         * before the page was programmed); slots fill in order, so the
         * later slot is the newer */
        if (d->l2p[sec] == FTL_NONE || o->seq >= seqs[sec]) {
            seqs[sec] = o->seq;
            d->l2p[sec] = slot | (lsn & FTL_TOMB);
            set_damaged(d, sec, (lsn & FTL_DAMAGED) != 0);
        }
    }
}

/* Pages that failed their read or CRC and that no cut explains. */
struct dmg_list {
    struct dmg {
        uint32_t b, p;
        struct ftl_oob o;
    } *v;
    size_t n, cap;
    uint32_t *bad;            /* scratch: one block's failing pages */
};

/* A page that fails its read or CRC is torn when a cut can explain it: it
 * is the block's last programmed page, or the lower page that last page
 * pairs with (a cut tears only the page being programmed, and pages go in
 * order; after a mount nothing is appended to a block).  Any other such
 * page was damaged after it was written -- when its spare's fields still
 * read and agree with the block's good pages (its erase count; a cut
 * during an erase leaves pages that do not): kept in dl for scan(). */
static int note_damaged(struct ftl_dev *d, uint32_t b, const uint32_t *bad, uint32_t nbad,
                        int64_t last, int known, struct dmg_list *dl)
{
    const struct nand_config *c = nand_get_config(d->dev);
    nand_page_t lower = 0;
    int paired = last >= 0 && nand_page_is_upper(c, (nand_page_t)last, &lower);
    for (uint32_t i = 0; known && i < nbad; i++) {
        uint32_t p = bad[i];
        struct ftl_oob o;
        if ((int64_t)p == last || (paired && p == lower))
            continue;
        nand_read(d->dev, b, p, NULL, d->obuf, NULL);
        if (!ftl_oob_decode(d->obuf, d->spp, NULL, d->ps, &o) || o.erases != d->blk[b].erases)
            continue;
        if (dl->n == dl->cap) {
            size_t cap = dl->cap ? 2 * dl->cap : 16;
            struct dmg *v = realloc(dl->v, cap * sizeof *v);
            if (!v)
                return -ENOMEM;
            dl->v = v;
            dl->cap = cap;
        }
        dl->v[dl->n++] = (struct dmg){b, p, o};
    }
    return 0;
}

/* The damaged pages whose sequence number is one the device issued: their
 * sectors stay mapped to them and are marked damaged, so that a read says
 * -EIO instead of going back to an older copy or handing out bytes that
 * pass ECC but not the page's CRC. */
static int take_damaged(struct ftl_dev *d, const struct dmg_list *dl, uint64_t *seqs,
                        uint32_t *copies)
{
    for (size_t i = 0; i < dl->n; i++) {
        const struct dmg *g = &dl->v[i];
        if (g->o.seq < d->seq)
            take_page(d, g->b, g->p, &g->o, seqs, copies);
    }
    /* a sector whose newest copy is on a damaged page (data, not a trim) */
    for (size_t i = 0; i < dl->n; i++) {
        const struct dmg *g = &dl->v[i];
        for (uint32_t s = 0; g->o.seq < d->seq && s < d->spp; s++) {
            uint32_t lsn = g->o.lsn[s], slot = ftl_slot(d, g->b, g->p, s);
            if (lsn != FTL_NONE && !(lsn & FTL_TOMB) && (lsn &= ~FTL_DAMAGED) < d->sb.sectors &&
                d->l2p[lsn] == slot)
                set_damaged(d, lsn, 1);
        }
    }
    return 0;
}

/* One block's pages: every valid copy of a sector it holds competes for
 * the sector by sequence number (seqs[], copies[] per sector). */
static int scan_block(struct ftl_dev *d, uint32_t b, uint64_t *seqs, uint32_t *copies,
                      uint64_t *esum, uint32_t *eknown, struct dmg_list *dl)
{
    struct ftl_block *fb = &d->blk[b];
    int known = 0, blank_all = 1;
    uint32_t *bad = dl->bad, nbad = 0;
    int64_t last = -1;
    for (uint32_t p = 0; p < d->ppb; p++) {
        int rc = nand_read(d->dev, b, p, NULL, d->obuf, NULL);
        d->st.mount_pages_read++;
        if (rc == NAND_E_POWER)
            return -EIO;
        int blank = 1;
        for (uint32_t i = 1; i < d->oob && blank; i++)
            blank = d->obuf[i] == 0xFF;
        if (blank)
            continue;
        blank_all = 0;
        last = p;
        struct ftl_oob o;
        if (rc || nand_read(d->dev, b, p, d->pbuf, d->obuf, NULL) ||
            !ftl_oob_decode(d->obuf, d->spp, d->pbuf, d->ps, &o)) {
            bad[nbad++] = p; /* torn (as if never written) or damaged: below */
            continue;
        }
        if (o.seq >= d->seq)
            d->seq = o.seq + 1;
        if (o.seq > fb->stamp)
            fb->stamp = o.seq;
        if (!known) {
            known = 1;
            fb->erases = o.erases;
            *esum += o.erases;
            ++*eknown;
        }
        take_page(d, b, p, &o, seqs, copies);
    }
    if (note_damaged(d, b, bad, nbad, last, known, dl))
        return -ENOMEM;
    /* never appended to after a mount: erased (again) when next taken,
     * unless every spare area and page 0's data read erased (then no page
     * was programmed: pages go in order, so page 0 would be) */
    fb->wp = d->ppb;
    if (blank_all) {
        int rc = nand_read(d->dev, b, 0, d->pbuf, NULL, NULL);
        d->st.mount_pages_read++;
        int clean = rc == NAND_OK;
        for (uint32_t i = 0; clean && i < d->ps; i++)
            clean = d->pbuf[i] == 0xFF;
        if (clean)
            fb->wp = 0;
    }
    if (!known)
        fb->erases = UINT32_MAX; /* unknown: the mean of the others */
    return 0;
}

static int scan(struct ftl_dev *d)
{
    uint64_t *seqs = calloc(d->sb.sectors ? d->sb.sectors : 1, sizeof *seqs);
    uint32_t *copies = calloc(d->sb.sectors ? d->sb.sectors : 1, sizeof *copies);
    uint64_t esum = 0;
    uint32_t eknown = 0;
    struct dmg_list dl = {.bad = malloc(d->ppb * sizeof *dl.bad)};
    int rc = seqs && copies && dl.bad ? 0 : -ENOMEM;
    for (uint32_t b = 0; b < d->nblocks && !rc; b++) {
        int super = b == d->sb.copy[0] || b == d->sb.copy[1];
        int bad = super ? 0 : nand_is_bad(d->dev, b);
        if (bad < 0)
            rc = -EIO;
        else if (super)
            d->blk[b].state = FTL_B_SUPER;
        else if (bad) {
            /* a grown bad block's pages still read: what it holds counts */
            struct nand_block_info bi;
            d->blk[b].state = FTL_B_BAD;
            if (!nand_block_info(d->dev, b, &bi) && bi.pages_programmed)
                rc = scan_block(d, b, seqs, copies, &esum, &eknown, &dl);
        } else
            rc = scan_block(d, b, seqs, copies, &esum, &eknown, &dl);
    }
    if (!rc)
        rc = take_damaged(d, &dl, seqs, copies);
    free(dl.v);
    free(dl.bad);
    for (uint64_t s = 0; !rc && s < d->sb.sectors; s++)
        if (d->l2p[s] != FTL_NONE) {
            d->blk[ftl_slot_block(d, d->l2p[s] & ~FTL_TOMB)].valid++;
            d->stale[s] = copies[s] - 1 > UINT16_MAX ? UINT16_MAX : (uint16_t)(copies[s] - 1);
        }
    for (uint32_t b = 0; !rc && b < d->nblocks; b++) {
        struct ftl_block *fb = &d->blk[b];
        if (fb->state == FTL_B_BAD || fb->state == FTL_B_SUPER)
            continue;
        d->plane[ftl_plane_of_block(d, b)].good++;
        if (fb->erases == UINT32_MAX)
            fb->erases = eknown ? (uint32_t)(esum / eknown) : 0;
        if (fb->valid)
            fb->state = FTL_B_CLOSED;
        else
            ftl_put_free(d, b);
    }
    free(seqs);
    free(copies);
    size_t any = 0;
    for (size_t i = 0; i < (d->sb.sectors + 7) / 8 && !any; i++)
        any = d->damaged[i];
    if (!any) { /* RAM only for a device with damaged sectors */
        free(d->damaged);
        d->damaged = NULL;
    }
    return rc;
}

int blk_ftl_open(nand_dev *dev, const char *options, blk_dev **out, char *err, size_t errlen)
{
    struct ftl_dev *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->dev = dev;
    int rc = ftl_find_super(dev, &d->sb);
    if (rc <= 0) {
        snprintf(err, errlen, rc < 0 ? "ftl: the device cannot be read"
                                     : "ftl: no FTL superblock on the device (flashlab mkfs --fs ftl)");
        free(d);
        return rc < 0 ? rc : -EINVAL;
    }
    ftl_opts_default(&d->o);
    if (ftl_opts_parse(d->sb.options, &d->o) || ftl_opts_parse(options, &d->o)) {
        ftl_free(d);
        return blk_ftl_check_options(options, err, errlen);
    }
    d->seq = 1;
    rc = setup(d);
    if (!rc)
        rc = scan(d);
    if (!rc)
        rc = ftl_cache_init(d);
    if (rc) {
        snprintf(err, errlen, "ftl: mount: %s", strerror(-rc));
        ftl_dev_free(d);
        return rc;
    }
    *out = ftl_dev_init(d);
    return 0;
}

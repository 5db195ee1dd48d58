/*
 * image.c -- a device in an image file (format in docs/simulator.md).
 *
 * Every integer is stored as 8 bytes, little-endian (put_u32 too:
 * one field width keeps the reader simple); docs/simulator.md has the
 * layout byte by byte.  In order:
 *   header    magic "FLASHLAB-NAND\0\0\0", version, flags (bit 0: the
 *             device's compress setting; bit 2: its whole_page_reads),
 *             the configuration, the clock,
 *             the statistics
 *   blocks    block count; count of records, then per block that differs
 *             from a fresh one (P/E initial_pe, no reads, nothing programmed,
 *             no flags, the endurance drawn from the seed), in ascending
 *             order: block, pe, reads, next_page, flags, endurance (f64)
 *   contents  count of distinct page buffers, each its length and bytes:
 *             page_size+oob_size bytes of page, or fewer in the run-length
 *             form of store.c (version 2: no length, always the page)
 *   tables    count of blocks holding data, each: block, then per page its
 *             content index (~0 = erased), program time, damaged-codeword
 *             mask, programs since erase
 *   weak      (flags bit 1 only) count of pages with weak cells
 *             (nand_corrupt), each: block, page, codeword, bits
 *   trailer   the CRC-32 of everything before it
 * Erased pages and blocks take no space; shared contents are stored once,
 * compact ones as they are held.  nand_sync appends to IMAGE.journal
 * instead (journal.c), which nand_open replays and nand_save folds.  Version 2 images (no content lengths,
 * flags 0) still open.
 */
#include "nand_internal.h"
#include "crc32.h"
#include "le.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IMAGE_MAGIC "FLASHLAB-NAND\0\0"
#define IMAGE_VERSION 3u
#define IMAGE_V2 2u         /* before compress: still read */
#define IMAGE_F_COMPRESS 1u /* flags: cfg.compress */
#define IMAGE_F_WEAK 2u     /* flags: a weak-cell section follows the tables */
#define IMAGE_F_WHOLE_READS 4u /* flags: cfg.timing.whole_page_reads */
#define NO_PAGE 0xffffffffu

/* ---- checksummed little-endian streams ---------------------------------- */

struct stream {
    FILE *f;
    uint32_t crc;
    int failed; /* short read or write */
};

static void put(struct stream *s, const void *p, size_t n)
{
    if (s->failed || fwrite(p, 1, n, s->f) != n) {
        s->failed = 1;
        return;
    }
    s->crc = flashlab_crc32(s->crc, p, n);
}

static void put_u64(struct stream *s, uint64_t v)
{
    uint8_t b[8];
    le64_put(b, v);
    put(s, b, 8);
}

static void put_u32(struct stream *s, uint32_t v) { put_u64(s, v); }
static void put_f64(struct stream *s, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(s, v);
}

static void get(struct stream *s, void *p, size_t n)
{
    if (s->failed || fread(p, 1, n, s->f) != n) {
        s->failed = 1;
        memset(p, 0, n);
        return;
    }
    s->crc = flashlab_crc32(s->crc, p, n);
}

static uint64_t get_u64(struct stream *s)
{
    uint8_t b[8];
    get(s, b, 8);
    return le64_get(b);
}

static uint32_t get_u32(struct stream *s)
{
    uint64_t v = get_u64(s);
    if (v > 0xffffffffu)
        s->failed = 1;
    return (uint32_t)v;
}

static double get_f64(struct stream *s)
{
    uint64_t v = get_u64(s);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* ---- the configuration and statistics, field by field -------------------- */

/* One table drives both directions so that the two cannot drift apart. */
#define U32F(field) {offsetof(struct nand_config, field), 4}
#define U64F(field) {offsetof(struct nand_config, field), 8}
#define F64F(field) {offsetof(struct nand_config, field), -8}
static const struct { size_t off; int kind; } cfg_fields[] = {
    U32F(geo.channels), U32F(geo.dies_per_channel), U32F(geo.planes_per_die),
    U32F(geo.blocks_per_plane), U32F(geo.pages_per_block), U32F(geo.page_size),
    U32F(geo.oob_size), U32F(cell), U32F(nop), U32F(pair_distance),
    U64F(timing.t_r_ns), U64F(timing.t_r_upper_ns), U64F(timing.t_prog_ns),
    U64F(timing.t_prog_upper_ns), U64F(timing.t_bers_ns), U64F(timing.t_cycle_ns),
    U32F(timing.bus_bytes), U32F(timing.addr_cycles),
    U64F(endurance), F64F(endurance_sigma), F64F(endurance_scale),
    U64F(initial_pe), F64F(factory_bad_fraction),
    F64F(rber.eps), F64F(rber.alpha), F64F(rber.k), F64F(rber.beta), F64F(rber.m),
    F64F(rber.n), F64F(rber.gamma), F64F(rber.p), F64F(rber.q),
    U32F(ecc.codeword_bytes), U32F(ecc.correct_bits), U64F(seed), U32F(dedup),
};

static void put_config(struct stream *s, const struct nand_config *c)
{
    put(s, c->name, sizeof c->name);
    for (size_t i = 0; i < sizeof cfg_fields / sizeof cfg_fields[0]; i++) {
        const char *p = (const char *)c + cfg_fields[i].off;
        if (cfg_fields[i].kind == 4) {
            uint32_t v;
            memcpy(&v, p, 4);
            put_u32(s, v);
        } else if (cfg_fields[i].kind == 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            put_u64(s, v);
        } else {
            double v;
            memcpy(&v, p, 8);
            put_f64(s, v);
        }
    }
}

static void get_config(struct stream *s, struct nand_config *c)
{
    memset(c, 0, sizeof *c);
    get(s, c->name, sizeof c->name);
    c->name[sizeof c->name - 1] = 0;
    for (size_t i = 0; i < sizeof cfg_fields / sizeof cfg_fields[0]; i++) {
        char *p = (char *)c + cfg_fields[i].off;
        if (cfg_fields[i].kind == 4) {
            uint32_t v = get_u32(s);
            memcpy(p, &v, 4);
        } else if (cfg_fields[i].kind == 8) {
            uint64_t v = get_u64(s);
            memcpy(p, &v, 8);
        } else {
            double v = get_f64(s);
            memcpy(p, &v, 8);
        }
    }
}

/* The statistics are a struct of u64 counters. */
#define NSTATS (sizeof(struct nand_stats) / sizeof(uint64_t))
_Static_assert(sizeof(struct nand_stats) % sizeof(uint64_t) == 0,
               "nand_stats must hold only 64-bit counters");

static void put_stats(struct stream *s, const struct nand_stats *st)
{
    uint64_t v[NSTATS];
    memcpy(v, st, sizeof v);
    for (size_t i = 0; i < NSTATS; i++)
        put_u64(s, v[i]);
}

static void get_stats(struct stream *s, struct nand_stats *st)
{
    uint64_t v[NSTATS];
    for (size_t i = 0; i < NSTATS; i++)
        v[i] = get_u64(s);
    memcpy(st, v, sizeof v);
}

/* ---- pointer -> index map for shared page buffers ------------------------ */

struct ptrmap {
    const struct pbuf **key;
    uint32_t *val;
    uint64_t size, count;
};

static uint64_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    return x ^ (x >> 33);
}

static int ptrmap_init(struct ptrmap *m, uint64_t n)
{
    m->size = 16;
    while (m->size < n * 2)
        m->size *= 2;
    m->count = 0;
    m->key = calloc(m->size, sizeof *m->key);
    m->val = calloc(m->size, sizeof *m->val);
    return m->key && m->val ? 0 : -1;
}

/* The value of pg, adding it with value v if new. */
static uint32_t ptrmap_get(struct ptrmap *m, const struct pbuf *pg, uint32_t v)
{
    uint64_t i = ptr_hash(pg) & (m->size - 1);
    while (m->key[i] && m->key[i] != pg)
        i = (i + 1) & (m->size - 1);
    if (!m->key[i]) {
        m->key[i] = pg;
        m->val[i] = v;
        m->count++;
    }
    return m->val[i];
}

/* The index of content pg in the image: contents are numbered in the
 * order a walk over the device's blocks and pages first meets them, and
 * every pass walks the same way, counting in *next.  A buffer that one
 * slot holds (refs 1) is met once and needs no map entry -- the common
 * case, and a random memory access saved per page; a shared one gets the
 * next number where it is first met.  *first: pg is met here first. */
static uint32_t content_index(struct ptrmap *m, const struct pbuf *pg,
                              uint32_t *next, int *first)
{
    uint32_t idx = pg->refs == 1 ? *next : ptrmap_get(m, pg, *next);
    *first = idx == *next;
    if (*first)
        (*next)++;
    return idx;
}

/* ---- save ----------------------------------------------------------------- */

/* A block in the state nand_create leaves a good block in: not stored. */
static int block_is_fresh(const nand_dev *dev, nand_block_t b)
{
    const struct bstate *bs = &dev->bs[b];
    return bs->pe == dev->cfg.initial_pe && !bs->reads && !bs->next_page &&
           !bs->flags && bs->endurance == sim_block_drawn_endurance(dev, b);
}

int nand_save(nand_dev *dev, const char *path)
{
    if (sim_lock_check(path))
        return NAND_E_LOCKED;
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 8);
    if (!tmp)
        return NAND_E_NOMEM;
    snprintf(tmp, plen + 8, "%s.tmpXXX", path);
    struct ptrmap map = {0};
    uint64_t held = 0;
    for (uint64_t b = 0; b < dev->nblocks; b++)
        held += dev->bp[b] != NULL;
    if (ptrmap_init(&map, held * dev->cfg.geo.pages_per_block + 1)) {
        free(map.key);
        free(map.val);
        free(tmp);
        return NAND_E_NOMEM;
    }
    struct stream s = {fopen(tmp, "wb"), 0, 0};
    int rc = NAND_E_IO;
    if (!s.f)
        goto out;

    put(&s, IMAGE_MAGIC, 16);
    put_u32(&s, IMAGE_VERSION);
    /* the weak-cell section is written only when there is one, so an
     * undamaged device's image is what older versions wrote and read */
    uint64_t nweak = sim_corrupt_weak_pages(dev);
    put_u32(&s, (dev->cfg.compress ? IMAGE_F_COMPRESS : 0) |
                    (nweak ? IMAGE_F_WEAK : 0) |
                    (dev->cfg.timing.whole_page_reads ? IMAGE_F_WHOLE_READS : 0));
    put_config(&s, &dev->cfg);
    put_u64(&s, dev->now > dev->queue_end ? dev->now : dev->queue_end);
    put_stats(&s, &dev->st);

    put_u64(&s, dev->nblocks);
    uint64_t nrec = 0;
    for (uint64_t b = 0; b < dev->nblocks; b++)
        nrec += !block_is_fresh(dev, (nand_block_t)b);
    put_u64(&s, nrec);
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        const struct bstate *bs = &dev->bs[b];
        if (block_is_fresh(dev, (nand_block_t)b))
            continue;
        put_u32(&s, (uint32_t)b);
        put_u64(&s, bs->pe);
        put_u64(&s, bs->reads);
        put_u32(&s, bs->next_page);
        put_u32(&s, bs->flags);
        put_f64(&s, bs->endurance);
    }

    /* contents: count them first, then write each once */
    uint32_t next = 0;
    int first;
    for (uint64_t b = 0; b < dev->nblocks; b++)
        for (uint32_t p = 0; dev->bp[b] && p < dev->cfg.geo.pages_per_block; p++)
            if (dev->bp[b]->slot[p].pg)
                content_index(&map, dev->bp[b]->slot[p].pg, &next, &first);
    put_u64(&s, next);
    uint64_t total = next;
    next = 0;
    for (uint64_t b = 0; b < dev->nblocks; b++)
        for (uint32_t p = 0; dev->bp[b] && p < dev->cfg.geo.pages_per_block; p++) {
            const struct pbuf *pg = dev->bp[b]->slot[p].pg;
            if (pg) {
                content_index(&map, pg, &next, &first);
                if (first) {
                    put_u64(&s, pbuf_held(dev, pg));
                    put(&s, pg->bytes, pbuf_held(dev, pg));
                }
            }
        }
    if (next != total)
        goto out;

    put_u64(&s, held);
    next = 0;
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        if (!dev->bp[b])
            continue;
        put_u32(&s, (uint32_t)b);
        for (uint32_t p = 0; p < dev->cfg.geo.pages_per_block; p++) {
            const struct slot *sl = &dev->bp[b]->slot[p];
            put_u32(&s, sl->pg ? content_index(&map, sl->pg, &next, &first) : NO_PAGE);
            put_u64(&s, sl->prog_time);
            put_u64(&s, sl->damaged);
            put(&s, &sl->nprog, 1);
        }
    }
    if (nweak)
        put_u64(&s, nweak);
    for (uint64_t b = 0; nweak && b < dev->nblocks; b++)
        for (uint32_t p = 0; dev->bp[b] && p < dev->cfg.geo.pages_per_block; p++) {
            const struct slot *sl = &dev->bp[b]->slot[p];
            if (!sl->weak_bits)
                continue;
            put_u32(&s, (uint32_t)b);
            put_u32(&s, p);
            put_u32(&s, sl->weak_cw);
            put_u32(&s, sl->weak_bits);
        }
    uint32_t crc = s.crc;
    put_u32(&s, crc);
    struct jimage id = {0, crc};
    off_t size;
    if (s.failed || fflush(s.f) || fsync(fileno(s.f)) || (size = ftello(s.f)) < 0)
        goto out;
    id.size = (uint64_t)size;
    if (fclose(s.f)) {
        s.f = NULL;
        goto out;
    }
    s.f = NULL;
    rc = rename(tmp, path) ? NAND_E_IO : NAND_OK;
    if (!rc) /* the journal's changes are in the image now */
        rc = sim_journal_fold(dev, path, &id);
out:
    if (s.f)
        fclose(s.f);
    if (rc)
        unlink(tmp);
    free(map.key);
    free(map.val);
    free(tmp);
    return rc;
}

/* ---- open ----------------------------------------------------------------- */

static int load_fail(char *err, size_t errlen, const char *path,
                     const char *msg, int rc)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s", path, msg);
    return rc;
}

/* One page content of a version-3 image: its length, then the page or
 * its run-length form; stored compact or in full as the device stores
 * programmed pages (a form is checked, expanded and encoded again, so
 * that what is held is what a program of the same content holds). */
static int load_content(nand_dev *dev, struct stream *s, uint8_t *form,
                        struct pbuf **out, const char **why)
{
    uint64_t n = get_u64(s);
    if (s->failed)
        return NAND_E_CORRUPT;
    if (n == dev->page_bytes) {
        struct pbuf *pg = sim_pbuf_new_uninit(dev);
        if (!pg)
            return NAND_E_NOMEM;
        get(s, pg->bytes, dev->page_bytes);
        *out = sim_pbuf_compact(dev, pg);
        return NAND_OK;
    }
    if (!n || n > dev->page_bytes) {
        *why = "invalid page content length";
        return NAND_E_CORRUPT;
    }
    get(s, form, (size_t)n);
    if (s->failed)
        return NAND_E_CORRUPT;
    if (sim_rle_decode(form, (uint32_t)n, dev->scratch, dev->page_bytes)) {
        *why = "invalid compact page content";
        return NAND_E_CORRUPT;
    }
    if (!(*out = sim_pbuf_from(dev, dev->scratch)))
        return NAND_E_NOMEM;
    return NAND_OK;
}

/* The weak-cell section (flags bit 1): pages that hold data, each once. */
static int load_weak(nand_dev *dev, struct stream *s, const char **why)
{
    uint64_t n = get_u64(s);
    if (s->failed || n > dev->nblocks * dev->cfg.geo.pages_per_block) {
        *why = s->failed ? "truncated" : "too many weak-cell records";
        return NAND_E_CORRUPT;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint32_t b = get_u32(s), p = get_u32(s), cw = get_u32(s);
        uint32_t bits = get_u32(s);
        if (s->failed) {
            *why = "truncated";
            return NAND_E_CORRUPT;
        }
        struct slot *sl = b < dev->nblocks && dev->bp[b] &&
                          p < dev->cfg.geo.pages_per_block
                              ? &dev->bp[b]->slot[p] : NULL;
        if (!sl || !sl->pg || sl->weak_bits || cw > dev->cw_per_page ||
            !bits || bits > 0xffff) {
            *why = "invalid weak-cell record";
            return NAND_E_CORRUPT;
        }
        sl->weak_cw = (uint8_t)cw;
        sl->weak_bits = (uint16_t)bits;
    }
    return NAND_OK;
}

static int load_body(nand_dev *dev, struct stream *s, uint32_t version,
                     uint32_t flags, const char **why)
{
    const struct nand_geometry *g = &dev->cfg.geo;
    struct pbuf **pages = NULL;
    uint8_t *form = NULL; /* a run-length form read */
    uint64_t npages = 0;
    int rc = NAND_E_CORRUPT;

    *why = "truncated";
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        dev->bs[b].pe = dev->cfg.initial_pe;
        sim_block_reset_wear(dev, (nand_block_t)b);
    }
    uint64_t nrec = get_u64(s), prev = 0;
    if (!s->failed && nrec > dev->nblocks) {
        *why = "too many block records";
        return rc;
    }
    for (uint64_t i = 0; i < nrec && !s->failed; i++) {
        uint32_t b = get_u32(s);
        if (s->failed)
            break;
        if (b >= dev->nblocks || (i && b <= prev)) {
            *why = "invalid block record";
            return rc;
        }
        prev = b;
        struct bstate *bs = &dev->bs[b];
        bs->pe = get_u64(s);
        bs->reads = get_u64(s);
        bs->next_page = get_u32(s);
        bs->flags = get_u32(s);
        bs->endurance = get_f64(s);
        if (bs->next_page > g->pages_per_block || !(bs->endurance >= 1.0) ||
            !isfinite(bs->endurance)) {
            *why = "invalid block state";
            return rc;
        }
        sim_biterr_block_wear(dev, (nand_block_t)b);
    }
    npages = get_u64(s);
    if (s->failed || npages > dev->nblocks * g->pages_per_block) {
        *why = s->failed ? "truncated" : "too many page contents";
        return rc;
    }
    pages = calloc(npages ? npages : 1, sizeof *pages);
    if (version > IMAGE_V2)
        form = malloc(dev->page_bytes);
    if (!pages || (version > IMAGE_V2 && !form)) {
        rc = NAND_E_NOMEM;
        goto out;
    }
    for (uint64_t i = 0; i < npages && !s->failed; i++) {
        if (version > IMAGE_V2) {
            if ((rc = load_content(dev, s, form, &pages[i], why)))
                goto out;
            continue;
        }
        if (!(pages[i] = sim_pbuf_new(dev))) {
            rc = NAND_E_NOMEM;
            goto out;
        }
        get(s, pages[i]->bytes, dev->page_bytes); /* v2: compress is off */
    }
    rc = NAND_E_CORRUPT;
    uint64_t held = get_u64(s);
    if (s->failed || held > dev->nblocks)
        goto out;
    for (uint64_t i = 0; i < held && !s->failed; i++) {
        uint32_t b = get_u32(s);
        if (b >= dev->nblocks || dev->bp[b]) {
            *why = "invalid block table";
            goto out;
        }
        struct bpages *bp = sim_bpages_own(dev, b);
        if (!bp) {
            rc = NAND_E_NOMEM;
            goto out;
        }
        for (uint32_t p = 0; p < g->pages_per_block; p++) {
            struct slot *sl = &bp->slot[p];
            uint32_t idx = get_u32(s);
            sl->prog_time = get_u64(s);
            sl->damaged = get_u64(s);
            get(s, &sl->nprog, 1);
            if (idx != NO_PAGE) {
                if (idx >= npages) {
                    *why = "invalid page reference";
                    goto out;
                }
                sim_pbuf_ref(pages[idx]);
                sl->pg = sim_pbuf_intern(dev, pages[idx]);
            }
        }
    }
    if (!s->failed && (flags & IMAGE_F_WEAK) && (rc = load_weak(dev, s, why)))
        goto out;
    rc = NAND_E_CORRUPT;
    if (!s->failed) {
        uint32_t want = s->crc;
        if (get_u32(s) != want || s->failed) {
            *why = s->failed ? "truncated" : "checksum mismatch";
            goto out;
        }
        if (fgetc(s->f) != EOF) {
            *why = "trailing bytes after the checksum";
            goto out;
        }
        rc = NAND_OK;
    }
out:
    for (uint64_t i = 0; pages && i < npages; i++)
        sim_pbuf_unref(dev, pages[i]);
    free(pages);
    free(form);
    return rc;
}

int nand_open(const char *path, nand_dev **out, char *err, size_t errlen)
{
    struct stream s = {fopen(path, "rb"), 0, 0};
    if (!s.f) {
        char msg[160];
        snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
        return load_fail(err, errlen, path, msg, NAND_E_IO);
    }
    char magic[16];
    struct nand_config cfg;
    struct nand_stats st;
    nand_time_t now;
    get(&s, magic, 16);
    if (s.failed || memcmp(magic, IMAGE_MAGIC, 16)) {
        fclose(s.f);
        return load_fail(err, errlen, path, "not a flashlab device image",
                         NAND_E_CORRUPT);
    }
    uint32_t version = get_u32(&s);
    uint32_t flags = get_u32(&s);
    if (version != IMAGE_VERSION && version != IMAGE_V2) {
        fclose(s.f);
        char msg[80];
        snprintf(msg, sizeof msg, "unsupported image version %u", version);
        return load_fail(err, errlen, path, msg, NAND_E_CORRUPT);
    }
    /* version 2 wrote 0 and did not read the flags */
    if (version > IMAGE_V2 && (flags & ~(IMAGE_F_COMPRESS | IMAGE_F_WEAK | IMAGE_F_WHOLE_READS))) {
        fclose(s.f);
        char msg[80];
        snprintf(msg, sizeof msg, "unsupported image flags %#x", flags);
        return load_fail(err, errlen, path, msg, NAND_E_CORRUPT);
    }
    get_config(&s, &cfg);
    cfg.compress = version > IMAGE_V2 && (flags & IMAGE_F_COMPRESS);
    cfg.timing.whole_page_reads = version > IMAGE_V2 && (flags & IMAGE_F_WHOLE_READS);
    now = get_u64(&s);
    get_stats(&s, &st);
    char why[200];
    if (s.failed || nand_config_finish(&cfg, why, sizeof why)) {
        fclose(s.f);
        char msg[240];
        snprintf(msg, sizeof msg, "invalid device configuration: %s",
                 s.failed ? "truncated" : why);
        return load_fail(err, errlen, path, msg, NAND_E_CORRUPT);
    }
    /* checked before allocating: a damaged geometry must not make us
     * allocate for billions of blocks */
    uint64_t nblocks = get_u64(&s);
    if (s.failed || nblocks != nand_blocks(&cfg)) {
        fclose(s.f);
        return load_fail(err, errlen, path,
                         s.failed ? "truncated"
                                  : "block count does not match the geometry",
                         NAND_E_CORRUPT);
    }
    nand_dev *dev;
    int rc = sim_dev_alloc(&cfg, &dev);
    if (rc) {
        fclose(s.f);
        return load_fail(err, errlen, path, "out of memory", rc);
    }
    const char *msg = "";
    struct jimage id;
    rc = load_body(dev, &s, version, version > IMAGE_V2 ? flags : 0, &msg);
    if (!rc && sim_journal_image_id(fileno(s.f), &id)) {
        rc = NAND_E_IO;
        msg = "cannot read";
    }
    fclose(s.f);
    if (rc) {
        nand_close(dev);
        return load_fail(err, errlen, path,
                         rc == NAND_E_NOMEM ? "out of memory" : msg, rc);
    }
    dev->now = now;
    uint64_t pages = dev->st.pages_stored, bytes = dev->st.bytes_stored;
    dev->st = st;
    dev->st.pages_stored = pages;
    dev->st.bytes_stored = bytes;
    /* what nand_sync added since the image was saved */
    if ((rc = sim_journal_replay(dev, path, &id, err, errlen))) {
        nand_close(dev);
        return rc;
    }
    *out = dev;
    return NAND_OK;
}

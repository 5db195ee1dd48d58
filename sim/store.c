/*
 * store.c -- sparse copy-on-write page storage, dedup and snapshots.
 * See nand_internal.h for the three levels of sharing.
 */
#include "crc32.h"
#include "nand_internal.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- page buffers ------------------------------------------------------ */

/* A buffer holding n bytes (the page, or its run-length form), from the
 * arena (arena.c): full pages and run-length forms in slots of their own. */
static struct pbuf *pbuf_alloc(nand_dev *dev, uint32_t n)
{
    struct pbuf *pg = n == dev->page_bytes ? sim_arena_get(dev) : sim_arena_get_small(dev, n);
    if (!pg)
        return NULL;
    pg->refs = 1;
    pg->in_dedup = 0;
    pg->clen = 0;
    pg->hash = 0;
    pg->dnext = NULL;
    dev->st.pages_stored++;
    dev->st.bytes_stored += n;
    return pg;
}

/* Free a buffer nobody holds. */
static void pbuf_release(nand_dev *dev, struct pbuf *pg)
{
    if (pg->clen)
        sim_arena_put_small(dev, pg, pg->clen);
    else
        sim_arena_put(dev, pg);
}

struct pbuf *sim_pbuf_new(nand_dev *dev)
{
    struct pbuf *pg = sim_pbuf_new_uninit(dev);
    if (pg)
        memset(pg->bytes, 0xff, dev->page_bytes);
    return pg;
}

struct pbuf *sim_pbuf_new_uninit(nand_dev *dev)
{
    return pbuf_alloc(dev, dev->page_bytes);
}

void sim_pbuf_ref(struct pbuf *pg)
{
    if (pg)
        pg->refs++;
}

/* ---- the run-length form (compress) -------------------------------------
 * A sequence of tokens, each a header h (LEB128: 7 bits a byte, low
 * first, at most 4 bytes) with len = h >> 1 >= 1 page bytes:
 *   h & 1 == 0  a literal: the len bytes follow;
 *   h & 1 == 1  a run: one byte follows, repeated len times.
 * The tokens cover the page exactly.  The encoder is a function of the
 * content alone (so that dedup may compare forms): a run token for every
 * maximal run of one byte value that contains an 8-byte word aligned to
 * the page (every run of 15 bytes or more does), literals between.  A
 * page is kept in this form when it takes at most dev->clim bytes. */

#define RLE_ONES 0x0101010101010101ULL

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* From e on, past every 64 bytes that all equal v (AVX2: a page's worth
 * of one value takes a quarter of the scalar loop's time, and a page
 * program encodes its whole page). */
__attribute__((target("avx2"))) static uint32_t run_skip_avx2(const uint8_t *src, uint32_t e,
                                                               uint32_t n, uint8_t v)
{
    __m256i vv = _mm256_set1_epi8((char)v);
    while (e + 64 <= n) {
        __m256i a = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(src + e)), vv);
        __m256i b = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(src + e + 32)), vv);
        if ((uint32_t)_mm256_movemask_epi8(_mm256_and_si256(a, b)) != 0xffffffffu)
            break;
        e += 64;
    }
    return e;
}
#endif

/* From e on, past whole 32-byte stretches of v (the caller finds the
 * exact end): where it stops depends on the machine, the end it leads to
 * does not. */
static uint32_t run_skip(const uint8_t *src, uint32_t e, uint32_t n, uint8_t v)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx2"))
        e = run_skip_avx2(src, e, n, v);
#endif
    uint64_t vw = (uint64_t)v * RLE_ONES;
    while (e + 32 <= n && !((load64(src + e) ^ vw) | (load64(src + e + 8) ^ vw) |
                            (load64(src + e + 16) ^ vw) | (load64(src + e + 24) ^ vw)))
        e += 32;
    return e;
}


static int put_header(uint8_t *dst, uint32_t *o, uint32_t cap, uint32_t h)
{
    do {
        if (*o >= cap)
            return -1;
        uint8_t b = (uint8_t)(h & 0x7f);
        h >>= 7;
        dst[(*o)++] = (uint8_t)(b | (h ? 0x80 : 0));
    } while (h);
    return 0;
}

static int put_literal(uint8_t *dst, uint32_t *o, uint32_t cap,
                       const uint8_t *src, uint32_t len)
{
    if (!len)
        return 0;
    if (put_header(dst, o, cap, len << 1) || len > cap - *o)
        return -1;
    memcpy(dst + *o, src, len);
    *o += len;
    return 0;
}

/* The run-length form of src[0..n) in dst, or 0 if it needs more than
 * cap bytes. */
static uint32_t rle_encode(const uint8_t *src, uint32_t n, uint8_t *dst,
                           uint32_t cap)
{
    uint32_t o = 0, lit = 0, i = 0; /* lit: start of the pending literal */
    while (i + 8 <= n) {
        /* words of one byte value; past `stop` the literal alone is too
         * long (it ends at most 7 bytes before the run found) */
        uint32_t stop = n - 8 < lit + cap + 8 ? n - 8 : lit + cap + 8;
        for (; i <= stop; i += 8) {
            uint64_t w = load64(src + i);
            if (w == (w & 0xff) * RLE_ONES)
                break;
        }
        if (i > stop) {
            if (i + 8 <= n)
                return 0;
            break;
        }
        uint8_t v = src[i];
        uint64_t vw = (uint64_t)v * RLE_ONES;
        uint32_t st = i, e = i + 8;
        while (st > lit && src[st - 1] == v)
            st--;
        e = run_skip(src, e, n, v);
        while (e + 8 <= n && load64(src + e) == vw)
            e += 8;
        while (e < n && src[e] == v)
            e++;
        if (put_literal(dst, &o, cap, src + lit, st - lit) ||
            put_header(dst, &o, cap, ((e - st) << 1) | 1) || o >= cap)
            return 0;
        dst[o++] = v;
        lit = e;
        i = (e + 7) & ~7u;
    }
    if (put_literal(dst, &o, cap, src + lit, n - lit))
        return 0;
    return o;
}

static uint32_t get_header(const uint8_t *src, uint32_t *i)
{
    uint32_t h = 0;
    int shift = 0;
    uint8_t b;
    do {
        b = src[(*i)++];
        h |= (uint32_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    return h;
}

/* Bytes [off, off + len) of a form the encoder made (not checked). */
static void rle_range(const uint8_t *src, uint32_t off, uint32_t len,
                      uint8_t *dst)
{
    uint32_t i = 0, pos = 0, end = off + len;
    while (pos < end) {
        uint32_t h = get_header(src, &i), n = h >> 1;
        uint32_t next = pos + n;
        if (next > off) {
            uint32_t from = pos > off ? pos : off, to = next < end ? next : end;
            if (h & 1)
                memset(dst + (from - off), src[i], to - from);
            else
                memcpy(dst + (from - off), src + i + (from - pos), to - from);
        }
        i += h & 1 ? 1 : n;
        pos = next;
    }
}

int sim_rle_decode(const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t out)
{
    uint32_t i = 0, pos = 0;
    while (i < n) {
        uint32_t h = 0;
        int shift = 0;
        uint8_t b;
        do {
            if (i >= n || shift > 21)
                return -1;
            b = src[i++];
            h |= (uint32_t)(b & 0x7f) << shift;
            shift += 7;
        } while (b & 0x80);
        uint32_t len = h >> 1;
        if (!len || len > out - pos)
            return -1;
        if (h & 1) {
            if (i >= n)
                return -1;
            memset(dst + pos, src[i++], len);
        } else {
            if (len > n - i)
                return -1;
            memcpy(dst + pos, src + i, len);
            i += len;
        }
        pos += len;
    }
    return pos == out ? 0 : -1;
}

const uint8_t *sim_pbuf_expand(nand_dev *dev, const struct pbuf *pg)
{
    rle_range(pg->bytes, 0, dev->page_bytes, dev->scratch);
    return dev->scratch;
}

void sim_pbuf_copy(const nand_dev *dev, const struct pbuf *pg, uint32_t off,
               uint32_t len, uint8_t *dst)
{
    if (!pg->clen)
        memcpy(dst, pg->bytes + off, len);
    else if (len)
        rle_range(pg->bytes, off, len, dst);
    (void)dev;
}

/* The compact buffer for page content `bytes`, or NULL when its form is
 * too long (or memory is short). */
static struct pbuf *compact_of(nand_dev *dev, const uint8_t *bytes)
{
    uint32_t n = rle_encode(bytes, dev->page_bytes, dev->enc, dev->clim);
    if (!n)
        return NULL;
    struct pbuf *pg = pbuf_alloc(dev, n);
    if (pg) {
        memcpy(pg->bytes, dev->enc, n);
        pg->clen = n;
    }
    return pg;
}

struct pbuf *sim_pbuf_compact(nand_dev *dev, struct pbuf *pg)
{
    if (!dev->cfg.compress || !pg || pg->clen || pg->refs != 1)
        return pg;
    struct pbuf *c = compact_of(dev, pg->bytes);
    if (!c)
        return pg;
    sim_pbuf_unref(dev, pg);
    return c;
}

struct pbuf *sim_pbuf_from(nand_dev *dev, const uint8_t *bytes)
{
    struct pbuf *pg = dev->cfg.compress ? compact_of(dev, bytes) : NULL;
    if (!pg && (pg = sim_pbuf_new_uninit(dev)))
        memcpy(pg->bytes, bytes, dev->page_bytes);
    return pg;
}

/* The CRC-32 of each half: on the carry-less multiply path that runs at
 * tens of GB/s, where four multiply lanes did about 5 bytes a cycle (the
 * hash was 13 % of a dedup run).  Not a strong hash, but nothing here is
 * adversarial and a collision costs only a comparison: equal contents are
 * always checked byte for byte. */
static uint64_t content_hash(const uint8_t *p, size_t n)
{
    size_t half = n / 2;
    uint64_t h = (uint64_t)flashlab_crc32(0, p, half) << 32 | flashlab_crc32(0, p + half, n - half);
    return rng_mix(h ^ n);
}

/* Remove pg's slot and close the gap (backward shift), so that every
 * entry stays reachable from its home slot without tombstones. */
static void dedup_remove(nand_dev *dev, struct pbuf *pg)
{
    uint64_t mask = dev->dtab_size - 1, i = pg->hash & mask;
    while (dev->dtab[i].pg && dev->dtab[i].pg != pg)
        i = (i + 1) & mask;
    if (!dev->dtab[i].pg)
        return;
    dev->dtab_count--;
    for (uint64_t j = i;;) {
        dev->dtab[i].pg = NULL;
        for (;;) {
            j = (j + 1) & mask;
            if (!dev->dtab[j].pg)
                return;
            uint64_t home = dev->dtab[j].hash & mask;
            /* j's entry may move to i when its home is not in (i, j] */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
                break;
        }
        dev->dtab[i] = dev->dtab[j];
        i = j;
    }
}

void sim_pbuf_unref(nand_dev *dev, struct pbuf *pg)
{
    if (!pg || --pg->refs)
        return;
    if (pg->in_dedup)
        dedup_remove(dev, pg);
    dev->st.pages_stored--;
    dev->st.bytes_stored -= pbuf_held(dev, pg);
    pbuf_release(dev, pg);
}

static int dedup_grow(nand_dev *dev)
{
    uint64_t nsize = dev->dtab_size ? dev->dtab_size * 2 : 1024, mask = nsize - 1;
    struct dslot *nt = calloc(nsize, sizeof *nt);
    if (!nt)
        return -1;
    for (uint64_t i = 0; i < dev->dtab_size; i++) {
        if (!dev->dtab[i].pg)
            continue;
        uint64_t j = dev->dtab[i].hash & mask;
        while (nt[j].pg)
            j = (j + 1) & mask;
        nt[j] = dev->dtab[i];
    }
    free(dev->dtab);
    dev->dtab = nt;
    dev->dtab_size = nsize;
    return 0;
}

/* With compress on, compact pg first (sim_pbuf_compact).  With dedup on,
 * return an existing buffer equal to pg (dropping pg) or register pg;
 * without dedup, return pg.  Equal contents have equal stored forms (the
 * encoder is a function of the content), so comparing forms suffices. */
struct pbuf *sim_pbuf_intern(nand_dev *dev, struct pbuf *pg)
{
    if (dev->cfg.compress)
        pg = sim_pbuf_compact(dev, pg);
    return sim_pbuf_share(dev, pg);
}

struct pbuf *sim_pbuf_share(nand_dev *dev, struct pbuf *pg)
{
    if (!dev->cfg.dedup || !pg)
        return pg;
    /* at most half full, so that probes stay short */
    if (2 * (dev->dtab_count + 1) > dev->dtab_size && dedup_grow(dev))
        return pg; /* no memory for the table: store the page unshared */
    uint32_t n = pbuf_held(dev, pg);
    pg->hash = content_hash(pg->bytes, n);
    uint64_t mask = dev->dtab_size - 1, i = pg->hash & mask;
    for (; dev->dtab[i].pg; i = (i + 1) & mask) {
        /* a probe must not touch the buffer unless the hash matches: each
         * is a cache miss, and compilers load q->clen early otherwise */
        if (__builtin_expect(dev->dtab[i].hash != pg->hash, 1))
            continue;
        struct pbuf *q = dev->dtab[i].pg;
        if (q->clen == pg->clen && !memcmp(q->bytes, pg->bytes, n)) {
            q->refs++;
            sim_pbuf_unref(dev, pg);
            return q;
        }
    }
    pg->in_dedup = 1;
    dev->dtab[i] = (struct dslot){ pg->hash, pg };
    dev->dtab_count++;
    return pg;
}

/* ---- block page tables ------------------------------------------------- */

static size_t bpages_size(const nand_dev *dev)
{
    return sizeof(struct bpages) +
           (size_t)dev->cfg.geo.pages_per_block * sizeof(struct slot);
}

void sim_bpages_unref(nand_dev *dev, struct bpages *bp)
{
    if (!bp || --bp->refs)
        return;
    uint32_t n = dev->cfg.geo.pages_per_block;
    for (uint32_t p = 0; p < n; p++) {
        /* each buffer's count is a cache miss: overlap a few of them */
        if (p + 8 < n && bp->slot[p + 8].pg)
            __builtin_prefetch(bp->slot[p + 8].pg, 1, 3);
        sim_pbuf_unref(dev, bp->slot[p].pg);
    }
    flashlab_slab_put(&dev->bpslab, bp);
}

/* The block's page table, private to the device so it may be written:
 * allocated if the block held nothing, copied if a snapshot shares it.
 * The whole table counts as changed for the journal. */
struct bpages *sim_bpages_own(nand_dev *dev, nand_block_t b)
{
    return sim_bpages_own_page(dev, b, 0);
}

struct bpages *sim_bpages_own_page(nand_dev *dev, nand_block_t b, nand_page_t from)
{
    struct bpages *bp = dev->bp[b];
    dev_touch_page(dev, b, from);
    if (bp && bp->refs == 1)
        return bp;
    struct bpages *nb = flashlab_slab_get(&dev->bpslab);
    if (!nb)
        return NULL;
    if (bp) {
        memcpy(nb, bp, bpages_size(dev));
        for (uint32_t p = 0; p < dev->cfg.geo.pages_per_block; p++)
            sim_pbuf_ref(nb->slot[p].pg);
        bp->refs--;
    } else {
        memset(nb, 0, bpages_size(dev));
    }
    nb->refs = 1;
    dev->bp[b] = nb;
    return nb;
}

/* ---- per-block wear ---------------------------------------------------- */

/* The block's endurance drawn around the rated value (normal, clipped):
 * a pure function of the configuration and the block number. */
double sim_block_drawn_endurance(const nand_dev *dev, nand_block_t b)
{
    const struct nand_config *c = &dev->cfg;
    double z = 0.0;
    if (c->endurance_sigma > 0) {
        double u1 = rng_unit(rng_key(c->seed, RNG_ENDURANCE, b, 0, 0, 0));
        double u2 = rng_unit(rng_key(c->seed, RNG_ENDURANCE, b, 1, 0, 0));
        z = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
    }
    double e = (double)c->endurance * (1.0 + c->endurance_sigma * z);
    return e < 1.0 ? 1.0 : e;
}

void sim_block_reset_wear(nand_dev *dev, nand_block_t b)
{
    dev->bs[b].endurance = sim_block_drawn_endurance(dev, b);
    sim_biterr_block_wear(dev, b);
}

/* MLC/TLC page pairing: the rule is nand_page_is_upper's (config.c). */
uint32_t sim_page_pair_lower(const nand_dev *dev, nand_page_t p, int *is_upper)
{
    nand_page_t lower;
    *is_upper = nand_page_is_upper(&dev->cfg, p, &lower);
    return lower;
}

/* ---- device storage lifetime ------------------------------------------- */

/* The block tables are dense (a few dozen bytes a block, whether the
 * block is ever used or not): a device whose tables alone would take
 * more than half of this machine's memory cannot be simulated here.  So a
 * damaged image header or a config asking for 2^31 blocks is refused at
 * once rather than paged in until the host runs out. */
static int tables_fit(uint64_t nblocks)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
    uint64_t need = nblocks * (sizeof(struct bstate) + sizeof(struct bpages *));
    return pages <= 0 || psz <= 0 || need <= (uint64_t)pages * (uint64_t)psz / 2;
}

int sim_store_init(nand_dev *dev)
{
    if (!tables_fit(dev->nblocks))
        return NAND_E_NOMEM;
    dev->bs = calloc(dev->nblocks, sizeof *dev->bs);
    dev->bp = calloc(dev->nblocks, sizeof *dev->bp);
    dev->die_free = calloc(dev->ndies, sizeof *dev->die_free);
    dev->bus = calloc(dev->cfg.geo.channels, sizeof *dev->bus);
    flashlab_slab_init(&dev->bpslab, bpages_size(dev));
    if (!dev->bs || !dev->bp || !dev->die_free || !dev->bus)
        return NAND_E_NOMEM;
    return NAND_OK;
}

void sim_store_free(nand_dev *dev)
{
    sim_inflight_free(dev);
    if (dev->bp)
        for (uint64_t b = 0; b < dev->nblocks; b++)
            sim_bpages_unref(dev, dev->bp[b]);
    free(dev->bp);
    free(dev->bs);
    free(dev->die_free);
    sim_bus_free_all(dev);
    free(dev->dtab);
    if (flashlab_slab_destroy(&dev->bpslab)) {
        /* a snapshot not freed before its device: its tables are gone */
        fprintf(stderr, "nand: block page tables still held at close\n");
#if defined(__SANITIZE_ADDRESS__)
        abort();
#endif
    }
    sim_arena_free(dev);
}

/* ---- snapshots --------------------------------------------------------- */

int nand_snapshot_take(nand_dev *dev, nand_snapshot **out)
{
    nand_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return NAND_E_NOMEM;
    s->nblocks = dev->nblocks;
    s->owner = dev;
    s->bs = malloc(dev->nblocks * sizeof *s->bs);
    s->bp = malloc(dev->nblocks * sizeof *s->bp);
    s->die_free = malloc(dev->ndies * sizeof *s->die_free);
    if (!s->bs || !s->bp || !s->die_free) {
        nand_snapshot_free(s);
        return NAND_E_NOMEM;
    }
    memcpy(s->bs, dev->bs, dev->nblocks * sizeof *s->bs);
    memcpy(s->bp, dev->bp, dev->nblocks * sizeof *s->bp);
    for (uint64_t b = 0; b < dev->nblocks; b++)
        if (s->bp[b])
            s->bp[b]->refs++;
    memcpy(s->die_free, dev->die_free, dev->ndies * sizeof *s->die_free);
    s->now = dev->now;
    s->queue_end = dev->queue_end;
    s->st = dev->st;
    *out = s;
    return NAND_OK;
}

/* Return the device to the snapshot's state, powered on, no cut armed. */
int nand_snapshot_restore(nand_dev *dev, const nand_snapshot *s)
{
    if (!s || s->owner != dev || s->nblocks != dev->nblocks)
        return NAND_E_INVAL;
    sim_inflight_clear(dev); /* the snapshot's state replaces what they changed */
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        if (s->bp[b])
            s->bp[b]->refs++;
        sim_bpages_unref(dev, dev->bp[b]);
        dev->bp[b] = s->bp[b];
        dev_touch(dev, b);
    }
    memcpy(dev->bs, s->bs, dev->nblocks * sizeof *s->bs);
    memcpy(dev->die_free, s->die_free, dev->ndies * sizeof *s->die_free);
    /* A snapshot is taken between operations: transfers reserved on the
     * bus belong to operations that have already taken effect. */
    sim_bus_reset(dev);
    dev->now = s->now;
    dev->queue_end = s->queue_end;
    /* storage counters describe what is held now, not what the snapshot
     * held; they were recomputed by the unrefs above */
    uint64_t pages = dev->st.pages_stored, bytes = dev->st.bytes_stored;
    dev->st = s->st;
    dev->st.pages_stored = pages;
    dev->st.bytes_stored = bytes;
    dev->powered = 1;
    dev->cut = CUT_NONE;
    return NAND_OK;
}

void nand_snapshot_free(nand_snapshot *s)
{
    if (!s)
        return;
    if (s->bp)
        for (uint64_t b = 0; b < s->nblocks; b++)
            sim_bpages_unref(s->owner, s->bp[b]);
    free(s->bp);
    free(s->bs);
    free(s->die_free);
    free(s);
}

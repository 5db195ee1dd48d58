/*
 * nand_internal.h -- the simulator's private state, shared by the files of sim/ only.
 *
 * Storage is sparse and copy-on-write so that erased blocks cost nothing and
 * a snapshot costs one pointer per block:
 *   - dense per-block counters (struct bstate) live in one array that a
 *     snapshot copies whole (tens of bytes a block);
 *   - the page slots of a block (struct bpages) are refcounted and shared
 *     between the device and its snapshots until one of them writes;
 *   - page contents (struct pbuf) are immutable, refcounted buffers, shared
 *     between blocks, snapshots and (with dedup) equal pages; with
 *     compress, a buffer whose content is mostly long runs of one byte
 *     holds its run-length form instead of the page (store.c).
 * A stored buffer's bytes are read only through pbuf_view (the full page,
 * a compact one expanded into the device's scratch buffer) and sim_pbuf_copy
 * (any range of it); a buffer fresh from sim_pbuf_new is full and is written
 * directly until it is stored (sim_pbuf_intern, sim_pbuf_compact), and image.c
 * writes a buffer's held bytes (pbuf_held) as they are.
 */
#ifndef FLASHLAB_SIM_NAND_INTERNAL_H
#define FLASHLAB_SIM_NAND_INTERNAL_H

#include "nand.h"
#include "slab.h"

/* An immutable page image: page_size + oob_size bytes, or with clen != 0
 * their run-length form in clen bytes (format in store.c). */
struct pbuf {
    uint32_t refs;
    uint32_t in_dedup : 1; /* registered in the dedup table */
    uint32_t clen : 31;    /* 0: bytes is the page in full; else compact */
    uint64_t hash;
    struct pbuf *dnext;    /* the arena's free list (arena.c) */
    uint8_t bytes[];
};

struct slot {
    struct pbuf *pg;      /* NULL: reads as erased (all 0xFF) */
    nand_time_t prog_time;
    uint64_t damaged;     /* codewords that fail ECC whatever the noise */
    uint8_t nprog;        /* programs since erase; >= nop means full */
    /* nand_corrupt's weak cells (corrupt.c): weak_bits raw bit errors in
     * codeword weak_cw on every read, on top of the sampled ones; they
     * fit the padding, so a slot stays 32 bytes */
    uint8_t weak_cw;
    uint16_t weak_bits;
};

struct bpages {
    uint32_t refs;
    struct slot slot[];   /* pages_per_block */
};

enum bflag {
    BF_FACTORY_BAD = 1u << 0,
    BF_GROWN_BAD = 1u << 1,
    BF_MARKED_BAD = 1u << 2,
    BF_ERASE_TORN = 1u << 3,
    BF_FAILING = 1u << 4,  /* nand_corrupt BAD: programs and erases fail */
};

struct bstate {
    uint64_t pe;          /* P/E cycles, real (not scaled) */
    uint64_t reads;       /* reads since erase (read disturb) */
    uint32_t next_page;   /* highest programmed page + 1 */
    uint32_t flags;
    double wear_a, wear_b, wear_g; /* PE-dependent RBER factors, see biterr.c */
    double endurance;     /* drawn endurance, in effective cycles */
};

/* A channel's bus: the transfers reserved on it, sorted, non-overlapping.
 * Intervals that ended before the current time are dropped. */
struct bus {
    nand_time_t *start, *end;
    uint32_t n, cap;
};

enum cut_mode { CUT_NONE, CUT_TIME, CUT_OPS, CUT_CALLBACK };

struct nand_dev {
    struct nand_config cfg;
    uint64_t nblocks, ndies;
    uint32_t cw_per_page;  /* data codewords; the OOB is one more */
    uint32_t page_bytes;   /* page_size + oob_size */
    uint8_t *ff;           /* page_bytes of 0xFF: what an erased page holds */
    uint8_t *scratch;      /* page_bytes: a compact page expanded (pbuf_view) */
    uint8_t *enc;          /* clim bytes: a page being compacted */
    uint32_t clim;         /* largest run-length form kept (< page_bytes / 2) */

    struct bstate *bs;     /* [nblocks] */
    struct bpages **bp;    /* [nblocks]; NULL: block holds no data */

    nand_time_t now;
    nand_time_t queue_end; /* latest completion of submitted operations */
    nand_time_t *die_free; /* [ndies] */
    struct bus *bus;       /* [channels] */
    /* queued programs and erases not yet ended (inflight.c) */
    struct inflight *fl;
    uint32_t nfl, flcap;

    int powered;
    enum cut_mode cut;
    nand_time_t cut_time;
    uint64_t cut_ops_left;
    double cut_frac;
    nand_cut_fn cut_fn;
    void *cut_ctx;

    struct nand_stats st;

    /* dedup table (cfg.dedup): chains of pbufs by content hash */
    /* dedup: open addressing with linear probing; a slot holds the
     * buffer and its hash, so a probe reads no buffer but a match's */
    struct dslot { uint64_t hash; struct pbuf *pg; } *dtab;
    uint64_t dtab_size, dtab_count;
    /* full-page buffers (arena.c): the blocks of a slab; run-length forms
     * in slots of 16-byte size classes carved from a slab's 1 MiB blocks,
     * the free ones chained through dnext */
    struct page_arena {
        struct flashlab_slab pages;
        struct flashlab_slab chunks;  /* the small slots' */
        struct pbuf **small;      /* [nsmall] free small slots by class */
        uint32_t nsmall;
        uint64_t small_held;
        uint8_t *scarve, *scarve_end; /* the newest small chunk's unused bytes */
    } arena;
    /* the blocks' page tables (struct bpages), on huge pages: every
     * read and program touches one at random (slab.c) */
    struct flashlab_slab bpslab;

    /* the image journal (journal.c), set up by nand_open and nand_save:
     * what changed since the last save or sync of the image at jpath */
    char *jpath;           /* NULL: no image yet, nand_sync saves whole */
    uint32_t *jfrom;       /* [nblocks] first page slot changed since the
                            * last sync (JF_CLEAN: none) */
    struct bstate *jbase;  /* [nblocks] block states at the last sync */
    struct jimage { uint64_t size, crc; } jimg; /* the image extended */
    uint64_t jlen, jseq;   /* valid bytes of the journal file, records */
    struct nand_lock *lock; /* the image lock nand_close releases, or NULL */
};

struct nand_snapshot {
    uint64_t nblocks;
    struct bstate *bs;
    struct bpages **bp;
    nand_time_t now, queue_end;
    nand_time_t *die_free;
    struct nand_stats st;
    nand_dev *owner;      /* for the geometry; snapshots outlive nothing */
};

/* A block's page table is about to change, from slot p on (journal.c
 * writes those slots at the next sync); dev_touch: all of it. */
#define JF_CLEAN 0xffffffffu
static inline void dev_touch_page(nand_dev *dev, uint64_t b, uint32_t p)
{
    if (dev->jfrom && p < dev->jfrom[b])
        dev->jfrom[b] = p;
}
static inline void dev_touch(nand_dev *dev, uint64_t b)
{
    dev_touch_page(dev, b, 0);
}

/* journal.c -- IMAGE.journal: nand_sync's incremental saves */
/* The image open on fd: its size and trailing CRC. */
int sim_journal_image_id(int fd, struct jimage *id);
/* After nand_open read the image at path (id): apply the records of its
 * journal, and track changes from here.  Errors name the journal. */
int sim_journal_replay(nand_dev *dev, const char *path, const struct jimage *id,
                   char *err, size_t errlen);
/* NAND_E_LOCKED when another process holds path's image lock (a lock of
 * this process's is its own: imagelock.c), else 0. */
int sim_lock_check(const char *path);
/* After nand_save wrote the image at path (id): drop its journal. */
int sim_journal_fold(nand_dev *dev, const char *path, const struct jimage *id);
void sim_journal_detach(nand_dev *dev);

/* device.c */
int sim_dev_alloc(const struct nand_config *cfg, nand_dev **out);

/* config.c */

/* store.c -- sparse COW storage */
int sim_store_init(nand_dev *dev);
void sim_store_free(nand_dev *dev);
/* arena.c -- full-page buffers (NULL when memory is short) */
struct pbuf *sim_arena_get(nand_dev *dev);
void sim_arena_put(nand_dev *dev, struct pbuf *pg);
/* a buffer of n < page_bytes bytes (a run-length form); put: n again */
struct pbuf *sim_arena_get_small(nand_dev *dev, uint32_t n);
void sim_arena_put_small(nand_dev *dev, struct pbuf *pg, uint32_t n);
void sim_arena_free(nand_dev *dev);
struct pbuf *sim_pbuf_new(nand_dev *dev);                 /* filled with 0xFF */
struct pbuf *sim_pbuf_new_uninit(nand_dev *dev);          /* caller fills it all */
/* compress, then dedup: what a program stores (pg is the caller's) */
struct pbuf *sim_pbuf_intern(nand_dev *dev, struct pbuf *pg);
/* dedup alone, for a buffer already in its stored form (sim_pbuf_from) */
struct pbuf *sim_pbuf_share(nand_dev *dev, struct pbuf *pg);
/* With compress, pg (a full buffer the caller holds alone) replaced by its
 * compact form when that is small enough; otherwise pg unchanged. */
struct pbuf *sim_pbuf_compact(nand_dev *dev, struct pbuf *pg);
/* A stored buffer for the page content `bytes` (compact when it can be). */
struct pbuf *sim_pbuf_from(nand_dev *dev, const uint8_t *bytes);
/* The page's page_bytes bytes (dev->ff for NULL).  For a compact page
 * they are expanded into dev->scratch: valid until the next pbuf_view. */
const uint8_t *sim_pbuf_expand(nand_dev *dev, const struct pbuf *pg);
static inline const uint8_t *pbuf_view(nand_dev *dev, const struct pbuf *pg)
{
    return !pg ? dev->ff : !pg->clen ? pg->bytes : sim_pbuf_expand(dev, pg);
}
/* Copy bytes [off, off + len) of the page to dst (pg not NULL). */
void sim_pbuf_copy(const nand_dev *dev, const struct pbuf *pg, uint32_t off,
               uint32_t len, uint8_t *dst);
/* The bytes pg holds: its run-length form or the whole page. */
static inline uint32_t pbuf_held(const nand_dev *dev, const struct pbuf *pg)
{
    return pg->clen ? pg->clen : dev->page_bytes;
}
/* Expand the run-length form src[0..n) into exactly out bytes at dst,
 * checking it (image files): 0, or -1 if it is not a valid form. */
int sim_rle_decode(const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t out);
void sim_pbuf_ref(struct pbuf *pg);
void sim_pbuf_unref(nand_dev *dev, struct pbuf *pg);
struct bpages *sim_bpages_own(nand_dev *dev, nand_block_t b); /* writable */
/* The same for a change of slot p and later ones only (a program). */
struct bpages *sim_bpages_own_page(nand_dev *dev, nand_block_t b, nand_page_t p);
void sim_bpages_unref(nand_dev *dev, struct bpages *bp);
double sim_block_drawn_endurance(const nand_dev *dev, nand_block_t b);
void sim_block_reset_wear(nand_dev *dev, nand_block_t b);
uint32_t sim_page_pair_lower(const nand_dev *dev, nand_page_t p, int *is_upper);

/* timing.c -- schedules one operation on its die and channel */
struct sched {
    nand_time_t start;      /* die starts (command phase) */
    nand_time_t array_start;/* cells start changing (program/erase) */
    nand_time_t array_end;
    nand_time_t done;
};
int sim_sched_op(nand_dev *dev, enum nand_op_kind kind, nand_block_t b,
             nand_page_t p, uint32_t bytes, struct sched *s);
void sim_bus_reset(nand_dev *dev);
void sim_bus_free_all(nand_dev *dev);

/* A transfer between a page's byte space (data then OOB) and a buffer. */
struct seg {
    uint32_t col, len;
    uint8_t *buf;
};

/* biterr.c -- raw bit errors and ECC */
void sim_biterr_block_wear(nand_dev *dev, nand_block_t b);
double sim_biterr_rber(const nand_dev *dev, nand_block_t b, const struct slot *sl);
/* Sample the errors of every codeword the segments touch, flip the bits
 * that reach the caller (all of them when raw, else those of codewords ECC
 * cannot correct) and return NAND_E_ECC if any codeword is uncorrectable.
 * *max_cw: the most bits corrected in one codeword.  unread (may be NULL):
 * the page's bytes, not yet copied into the segments; they are copied
 * there before the first flip, and *copied tells whether they were (a read
 * that lends the stored page: nand_read_view). */
int sim_biterr_apply(nand_dev *dev, nand_block_t b, nand_page_t p,
                 const struct slot *sl, const struct seg *segs, int nseg,
                 int raw, const uint8_t *unread, int *copied,
                 uint32_t *corrected, uint32_t *raw_errs, uint32_t *max_cw);
/* The codeword that page byte `off` belongs to, and its bounds. */
uint32_t sim_codeword_of(const nand_dev *dev, uint32_t off, uint32_t *start,
               uint32_t *len);

/* damage.c -- what failed and interrupted operations leave behind */
void sim_damage_program(nand_dev *dev, nand_block_t b, nand_page_t p,
                    const uint8_t *intended, const uint8_t *before,
                    double frac, struct slot *sl);
void sim_damage_erase(nand_dev *dev, nand_block_t b, double frac);
void sim_damage_paired(nand_dev *dev, nand_block_t b, nand_page_t lower);
int sim_wear_fails(nand_dev *dev, nand_block_t b, nand_page_t p, uint32_t what);

/* inflight.c -- queued operations a power cut may still tear or undo */
struct inflight;
/* Record what block b (page p) holds before the queued operation
 * scheduled as s changes it; NULL when out of memory. */
struct inflight *sim_inflight_begin(nand_dev *dev, enum nand_op_kind kind,
                                nand_block_t b, nand_page_t p,
                                const struct sched *s);
/* The operation was applied and returned status. */
void sim_inflight_done(nand_dev *dev, struct inflight *e, uint32_t bytes, int status);
/* Forget records whose array time ended before the clock. */
void sim_inflight_retire(nand_dev *dev);
/* The power fails at `at`: undo what had not ended, tear what was under
 * way; no record is left. */
void sim_inflight_cut(nand_dev *dev, nand_time_t at);
void sim_inflight_clear(nand_dev *dev);  /* forget all (snapshot restore) */
void sim_inflight_free(nand_dev *dev);
/* ops.c: the power fails at `at` (>= every completed operation). */
void sim_power_fail(nand_dev *dev, nand_time_t at);

/* corrupt.c -- weak cells in the image (a section after the tables) */
uint64_t sim_corrupt_weak_pages(const nand_dev *dev);

#endif

/*
 * storage.h -- LogFS layer 2, storage: the state the layers share (struct
 * logfs; the tree's and the ops' own embed it, docs/architecture.md
 * "LogFS in layers"), the node cache, the write areas that pack objects into
 * pages, the segment file and table, live-byte counts and the cleaner's
 * index; parallel dies and the flash calls.  Sees format.h and the
 * cleaning policies (gc/gc_policy.h).  Its files: fs/logfs/layers.txt.
 *
 * The one call upward: the segment file is a file in the tree layer's
 * wandering tree, and storage keeps its accounting there.  It reaches
 * that tree only through fs->tree (struct lfs_tree_hooks), which the tree
 * layer provides and the mount installs.
 */
#ifndef FLASHLAB_LFS_LAYER_STORAGE_H
#define FLASHLAB_LFS_LAYER_STORAGE_H

#include "format.h"
#include "fscommon.h"
#include "gc_policy.h"
#include "logfs.h"
#include "slab.h"

/* Write classes: each has its own dirty lists, and a commit writes them
 * in this order (a class's writes dirty the classes after it). */
enum lfs_wclass {
    LFS_WC_FILE = 0,      /* files' data and indirect blocks */
    LFS_WC_INODEFILE = 1, /* the inode file */
    LFS_WC_SEGFILE = 2,   /* the segment file */
    LFS_WCLASSES = 3,
};

/* The payload CRC of a node's bytes as a raw (uncompressed) object of len
 * bytes, when known: verified on a read or computed on a write.  A node the
 * cleaner moves unchanged is written with it instead of a new CRC. */
struct lfs_objcrc {
    uint32_t crc, len;
    uint8_t ok;
};

/* A cached block of a file: data (level 0) or indirect (level >= 1). The
 * inode file's level-0 blocks hold encoded inodes. */
struct lfs_node {
    uint64_t ino, bix;
    uint8_t level, dirty;
    uint8_t moved;             /* dirtied by the cleaner, not by a write */
    uint32_t len;              /* payload bytes that matter */
    uint32_t growth;           /* while dirty: live bytes its write may add */
    uint32_t set_slot;         /* indirect: the slot last set to a pointer, where
                                * write_node looks first for one (a cold block's
                                * first line was 6 % of the steady state) */
    struct lfs_objcrc pcrc;    /* cleared by lfs_node_dirty: bytes changed */
    lfs_ptr ptr;               /* where it is on flash; 0 = not yet */
    uint8_t *data;             /* block_size bytes */
    struct lfs_node *hnext;    /* hash chain */
    struct lfs_node *prev, *next; /* clean LRU list or a dirty list */
};

struct lfs_list { struct lfs_node head; uint64_t count; };

struct lfs_cache {
    struct lfs_node **tab;
    uint64_t size, count;
    struct lfs_list clean;     /* LRU: head.next is the oldest */
    struct lfs_list dirty[LFS_WCLASSES][LFS_MAX_HEIGHT + 1]; /* [class][level] */
    uint64_t bytes, dirty_bytes, max_bytes;
    /* live bytes the dirty nodes may add at the next commit: a whole
     * object each, less the object on flash it replaces */
    uint64_t dirty_growth;
    uint64_t hits, misses;
    /* nodes dropped by the trim, kept with their buffers for the next
     * misses: at steady state every miss follows a drop, and malloc/free
     * of a node and its block was a tenth of the run's time */
    struct lfs_node *spare;
    uint32_t nspare;
    /* node structs: allocated in chunks (cache.c), the unused chained
     * through hnext */
    struct lfs_node_chunk *chunks;
    struct lfs_node *free_structs;
    /* the blocks, on huge pages: a cold block touched at random also
     * missed the TLB when each was malloc'd (slab.h) */
    struct flashlab_slab blocks;
};

struct lfs_imem; /* tree.h */

/* The writer of one area: objects go into a page buffer and are
 * programmed page by page. */
struct lfs_areaw {
    uint32_t seg, off;          /* seg 0: none open */
    uint8_t *page;              /* bytes of the page holding `off` */
    /* objects with bytes not yet programmed: rewritten elsewhere if the
     * page fails to program */
    struct lfs_pend { uint64_t ino, bix; uint8_t level; lfs_ptr ptr; } *pend;
    uint32_t npend;
};

/* A callback for each on-flash pointer of a file's tree. */
typedef int (*lfs_ptr_fn)(struct logfs *fs, void *ctx, lfs_ptr p);

/* What storage may ask of the tree layer (tree.c's lfs_tree_hooks): the
 * blocks of the segment file. */
struct lfs_tree_hooks {
    /* lfs_tree_get: node (level, bix) of in's tree, created if create */
    int (*get)(struct logfs *fs, struct lfs_inode *in, uint8_t level,
               uint64_t bix, int create, struct lfs_node **out);
    /* lfs_tree_walk: fn for every on-flash pointer of in's tree */
    int (*walk)(struct logfs *fs, struct lfs_inode *in, lfs_ptr_fn fn, void *ctx);
};

struct logfs {
    nand_dev *dev;
    const struct lfs_tree_hooks *tree; /* the tree layer, for the segment file */
    struct lfs_geo g;
    struct lfs_super sb;
    struct lfs_anchor an;       /* roots and counters of the next commit */
    struct lfs_ring ring;
    struct lfs_areaw area[LFS_NAREAS];
    /* parallel dies (lanes.c): the data area's lanes 1..parallel-1 (lane
     * 0 is area[LFS_AREA_DATA]), the next lane to take an object */
    struct lfs_areaw *lane;
    uint32_t parallel, ndies, lane_next;
    struct lfs_cache cache;
    struct lfs_imem **itab;
    uint64_t itab_size, icount;
    uint64_t itrim_floor;       /* lfs_inode_trim: no pass below this count */
    struct lfs_imem *idirty;    /* the dirty inodes: a commit writes only these */
    uint32_t *freed;            /* segments emptied since the last commit */
    uint32_t nfreed, freed_cap;
    uint32_t nmarked;           /* of those, recorded free in the segfile */
    uint32_t ptrs_per_block;    /* block_size / 8 */
    uint64_t max_file_bytes;    /* lfs_file_max_bytes(block_size) */
    struct lfs_segtab {         /* see segtab.c; e NULL until built */
        struct lfs_segent *e;
        uint8_t *flags;         /* LFS_SEGT_* */
    } segtab;
    struct lfs_sflive {         /* see sflive.c */
        uint32_t *seg, *live;
        uint32_t size, count;
        int built;
    } sflive;
    struct lfs_gcidx {          /* see gcidx.c; win NULL until built */
        uint32_t *win;          /* tournament tree: [1] the root, leaves from [leaves] */
        uint32_t *live;         /* per segment: its live bytes as a candidate */
        uint32_t leaves;        /* a power of two >= nblocks */
    } gcidx;
    uint64_t mem_bytes;         /* counted allocations */
    uint8_t *scratch;           /* one object: header + block */
    uint8_t *gc_buf;            /* one segment, for the cleaner */
    uint32_t *gc_cw;            /* per page of it: the read's max_cw_bits */
    const uint8_t **gc_pages;   /* per page of it: the bytes read (nand_read_view) */
    unsigned compress;          /* enum lfs_compr for the data blocks written */
    uint8_t *cbuf;              /* a compressed block (compress set) */
    struct lfs_packer *packer;  /* the compressor (compress set) */
    struct lfs_counters {       /* since mount, for logfs_get_stats */
        uint64_t pages[LFS_NAREAS]; /* programmed per area */
        uint64_t erases;        /* segment erases */
        uint64_t gc_rounds, gc_objects, gc_bytes, gc_time_ns, wl_moves, gc_fallbacks;
        uint64_t gc_unreadable, segfile_unreadable;
        uint64_t pair_skipped;  /* upper pages left erased at commits (pair.c) */
        uint64_t scrub_flagged, scrub_reads, scrub_segments, scrub_bytes;
        uint64_t scrub_super, scrub_anchor; /* refreshes (scrubfixed.c) */
        /* payload bytes of the data objects written for files (not the
         * cleaner's copies), before and after compression */
        uint64_t data_raw, data_stored;
    } ctr;
    struct lfs_scrub {          /* see scrubq.c and scrub.c */
        uint32_t threshold;     /* logfs_options.scrub_threshold; 0 off */
        uint32_t *queue;        /* segments scheduled, not yet moved */
        uint32_t nqueue, cap;
        uint32_t seg, page;     /* where logfs_scrub goes on reading */
        /* the blocks that are no segments (scrubfixed.c): the superblock
         * copies are to be rewritten, super_first first; the anchor ring
         * is to go on in a fresh block; super_off: a rewrite failed, no
         * more this mount */
        int super_due, ring_due, super_off;
        uint32_t super_first;
    } scrub;
    int wear_leveling;          /* LOGFS_WL_* */
    int readonly;
    int failed;                 /* an I/O error stopped a commit */
    int orphan_scan;            /* orphans overflowed the anchor's list */
    uint64_t relocated;         /* segments retired by a failed program */
    uint64_t dirty_limit;
    uint32_t reserve;           /* free segments kept back from writers */
    uint32_t max_util_ppm;      /* max_utilisation, in millionths (0: default) */
    int64_t (*clock)(void *ctx); /* timestamps: logfs_options.clock, */
    void *clock_ctx;
    int64_t epoch_ns;           /* or the simulated clock plus this */
    /* the layers above keep their own state after this struct: the
     * cleaner's in struct lfs_treefs (tree.h), the calls' in struct
     * lfs_ops (ops.h) */
};

/* Counting allocator: every allocation of the fs goes through these. */
void *lfs_alloc(struct logfs *fs, size_t n);
void *lfs_zalloc(struct logfs *fs, size_t n);
void lfs_free(struct logfs *fs, void *p, size_t n);

/* cache.c */
int lfs_cache_init(struct logfs *fs, uint64_t max_bytes);
void lfs_cache_destroy(struct logfs *fs);
struct lfs_node *lfs_cache_find(struct logfs *fs, uint64_t ino, uint8_t level,
                                uint64_t bix);
void lfs_cache_prefetch(const struct logfs *fs, uint64_t ino, uint8_t level, uint64_t bix,
                        int stage);
/* A new clean node; its data zeroed unless the caller overwrites all of it. */
struct lfs_node *lfs_cache_add(struct logfs *fs, uint64_t ino, uint8_t level,
                               uint64_t bix, int zero);
void lfs_cache_remove(struct logfs *fs, struct lfs_node *n);
void lfs_node_dirty(struct logfs *fs, struct lfs_node *n);
/* The cleaner's dirtying: the node is written again as it is (moved set,
 * its known CRC kept). */
void lfs_node_move(struct logfs *fs, struct lfs_node *n);
void lfs_node_clean(struct logfs *fs, struct lfs_node *n);
void lfs_cache_touch(struct logfs *fs, struct lfs_node *n);
void lfs_cache_trim(struct logfs *fs);
enum lfs_wclass lfs_node_class(uint64_t ino);

/* area.c */
/* known: the payload's CRC if the caller knows it (may be NULL); it is
 * looked at only after a segment is opened (see area.c). */
int lfs_area_write(struct logfs *fs, unsigned area, struct lfs_obj *o,
                   const uint8_t *payload, const struct lfs_objcrc *known,
                   lfs_ptr *out);
int lfs_area_flush(struct logfs *fs, unsigned area);
int lfs_area_flush_all(struct logfs *fs);
/* Go on writing seg at off (after a CLEAN anchor record). */
void lfs_area_resume(struct logfs *fs, unsigned area, uint32_t seg, uint32_t off);
/* Read the object at p, check that it is what the tree says it is; its
 * payload to payload (decompressed), *len bytes.  pcrc (may be NULL): the
 * verified CRC, when the object is raw. */
int lfs_obj_read(struct logfs *fs, lfs_ptr p, uint8_t type, uint64_t ino,
                 uint8_t level, uint64_t bix, uint8_t *payload, uint32_t *len,
                 struct lfs_objcrc *pcrc);
/* An object already in memory: its header and payload at obj, or, for a
 * raw object across a page boundary that was not gathered, its header and
 * the payload's first `first` bytes at obj and the others at rest. */
struct lfs_objbytes {
    const uint8_t *obj;
    const uint8_t *rest; /* NULL: the whole payload follows the header */
    uint32_t first;
};
/* The same check of an object of total bytes already in memory at obj. */
int lfs_obj_check(struct logfs *fs, const uint8_t *obj, uint32_t total, uint8_t type,
                  uint64_t ino, uint8_t level, uint64_t bix, uint8_t *payload,
                  uint32_t *len, struct lfs_objcrc *pcrc);
/* lfs_obj_check of an object whose header the caller has decoded into o
 * (which checked its CRC): the header's CRC is not computed again. */
int lfs_obj_check_decoded(struct logfs *fs, const struct lfs_objbytes *b, const struct lfs_obj *o,
                          uint32_t total, uint8_t type, uint64_t ino, uint8_t level,
                          uint64_t bix, uint8_t *payload, uint32_t *len,
                          struct lfs_objcrc *pcrc);
uint32_t lfs_seg_of(const struct logfs *fs, lfs_ptr p);

/* lanes.c: parallel dies; with parallel 1 all of it is the synchronous
 * path LogFS always took */
int lfs_lanes_init(struct logfs *fs, uint32_t parallel, size_t pend_bytes);
void lfs_lanes_free(struct logfs *fs, size_t pend_bytes);
/* The writer an object of area goes to (the next lane for the data area). */
struct lfs_areaw *lfs_lane_pick(struct logfs *fs, unsigned area);
/* Extra lane i (0-based), or NULL past the last. */
struct lfs_areaw *lfs_lane_extra(struct logfs *fs, uint32_t i);
int lfs_lane_has(const struct logfs *fs, uint32_t seg);
uint32_t lfs_die_of(const struct logfs *fs, uint32_t seg);
uint32_t lfs_seg_scan_order(const struct logfs *fs, uint32_t i);
/* The pool entry to allocate: dflt, or one on a die with fewer open
 * segments. */
uint32_t lfs_pool_pick(const struct logfs *fs, const struct lfs_free_seg *pool,
                       uint32_t n, uint32_t dflt);
/* Program a page / erase a segment: queued in parallel mode.  0, a
 * negative errno, or LFS_E_RETIRE when the block failed (format.h). */
/* Program *buf as page `page` of seg.  With one lane (parallel 1) *buf is
 * a buffer of lfs_page_buffer's: the device takes it over instead of
 * copying it, and *buf is replaced by a fresh one, whose contents are
 * undefined. */
int lfs_flash_program(struct logfs *fs, uint32_t seg, uint32_t page, uint8_t **buf);
/* A page buffer of the device's (the write areas'), counted as the fs's
 * memory; lfs_page_buffer_free(NULL) does nothing. */
uint8_t *lfs_page_buffer(struct logfs *fs);
void lfs_page_buffer_free(struct logfs *fs, uint8_t *buf);
int lfs_flash_erase(struct logfs *fs, uint32_t seg);
/* Everything queued is on flash when this returns (parallel mode). */
void lfs_flash_wait(struct logfs *fs);

/* segfile.c */
int lfs_seg_get(struct logfs *fs, uint32_t seg, struct lfs_segent *e);
int lfs_seg_put(struct logfs *fs, uint32_t seg, const struct lfs_segent *e);
int lfs_seg_account(struct logfs *fs, lfs_ptr p, int add);
int lfs_seg_freed_add(struct logfs *fs, uint32_t seg);
int lfs_seg_is_open(const struct logfs *fs, uint32_t seg);
int lfs_seg_pending(const struct logfs *fs, uint32_t seg); /* in the freed list */
int lfs_seg_alloc(struct logfs *fs, unsigned area, uint32_t *seg);
int lfs_seg_mark_freed(struct logfs *fs);
void lfs_seg_commit_done(struct logfs *fs);

/* segtab.c: all entries in RAM, built on first need */
#define LFS_SEGT_FREED 1u  /* in the freed list */
#define LFS_SEGT_PICKED 2u /* cleaned in the cleaner's current batch */
/* the cleaner met an object here it could not read (uncorrectable page,
 * CRC mismatch): it moved the rest and takes the segment no more in this
 * mount, since what it holds cannot be moved and must not be copied */
#define LFS_SEGT_UNREADABLE 4u
int lfs_segtab_build(struct logfs *fs);
void lfs_segtab_free(struct logfs *fs);

/* gcidx.c: the greedy cleaner's index over the segment table */
/* Segment s's entry, flags, open state or sflive count changed. */
void lfs_gcidx_update(struct logfs *fs, uint32_t s);
/* The candidate with the fewest live bytes, ties to the lowest segment
 * (what gcp_min_live picks from collect's list); -ENOSPC if none. */
int lfs_gcidx_min(struct logfs *fs, uint32_t *seg, uint32_t *live);
void lfs_gcidx_free(struct logfs *fs);
/* Leaves that differ from collect's list c[0..n) (in segment order). */
uint64_t lfs_gcidx_diff(const struct logfs *fs, const struct gc_seg *c, size_t n);

/* scrubq.c: segments scheduled for scrubbing (their data moved by
 * scrub.c).  seen: a read of seg returned nrc with res; schedules seg when
 * scrubbing is on and the read met the threshold or failed ECC. */
void lfs_scrub_seen(struct logfs *fs, uint32_t seg, int nrc, const struct nand_result *res);
void lfs_scrub_queue(struct logfs *fs, uint32_t seg);
/* Close the area writing seg, if any (its page padded and programmed),
 * so that the cleaner may take seg: its older pages age too.  Only
 * between calls, when every written object is programmed. */
int lfs_scrub_close(struct logfs *fs, uint32_t seg);
void lfs_scrub_free(struct logfs *fs);

/* sflive.c: live bytes of the segment file's own segments, in RAM */
int lfs_sflive_get(struct logfs *fs, uint32_t seg, uint32_t *live);
int lfs_sflive_account(struct logfs *fs, lfs_ptr p, int add);
void lfs_sflive_free(struct logfs *fs);

#endif

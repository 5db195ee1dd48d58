/*
 * lfs.h -- LogFS internals shared by the files of fs/ (never by users:
 * they include fs/logfs/logfs.h).  Reasoning in docs/logfs-design.md, byte
 * layouts in docs/FORMAT.md.
 */
#ifndef FLASHLAB_LFS_H
#define FLASHLAB_LFS_H

#include "gc_policy.h"
#include "lfs_format.h"
#include "logfs.h"
#include "nand.h"

#include <stddef.h>

/* An inode as the fs holds it (encoded in LFS_INODE_BYTES on flash). */
#define LFS_INODE_BYTES 208u
struct lfs_inode {
    uint64_t ino;
    uint32_t mode, uid, gid, nlink, flags;
    uint64_t size;
    int64_t atime, mtime, ctime; /* ns since the epoch */
    uint64_t generation;
    uint8_t height;              /* of the tree under `indirect`, 0..5 */
    lfs_ptr direct[LFS_NDIRECT];
    lfs_ptr indirect;
};
void lfs_inode_encode(const struct lfs_inode *in, uint8_t *out);
int lfs_inode_decode(const uint8_t *buf, uint32_t len, struct lfs_inode *in);

#define LFS_NAME_MAX_BYTES 255

/* Geometry the fs derives from the device and the superblock. */
struct lfs_geo {
    uint32_t page_size, pages_per_block, block_size;
    uint32_t seg_bytes;          /* page_size * pages_per_block */
    uint64_t nblocks;
    uint32_t pair_span;          /* widest upper-lower page distance; 0 = none */
};

struct lfs_super {
    uint32_t read_version, write_version;
    uint32_t block_size, page_size, pages_per_block;
    uint64_t nblocks;
    uint32_t anchor_count;
    uint32_t anchor_blocks[LFS_MAX_ANCHOR_BLOCKS];
    uint32_t backup_block;       /* second copy of the superblock */
    uint32_t reserve_segments;
    uint64_t fs_id;              /* distinguishes file systems */
    uint32_t segments;           /* segments usable for data at mkfs */
};
void lfs_super_encode(const struct lfs_super *sb, uint8_t out[LFS_SB_SIZE]);
/* 0, or -EINVAL (not a superblock: bad magic or CRC), or -EROFS when only
 * the write version is unknown (mount read-only), -EPROTO for an unknown
 * read version. */
int lfs_super_decode(const uint8_t in[LFS_SB_SIZE], struct lfs_super *sb);

/* An object header (LFS_OBJ_HDR bytes before every payload). */
struct lfs_obj {
    uint8_t type, level;
    uint32_t len;                /* payload bytes */
    uint32_t payload_crc;
    uint64_t ino, bix, seq;
};
void lfs_obj_encode(const struct lfs_obj *o, uint8_t out[LFS_OBJ_HDR]);
/* 0, or -EINVAL if the bytes are not a valid header. */
int lfs_obj_decode(const uint8_t in[LFS_OBJ_HDR], struct lfs_obj *o);
uint32_t lfs_crc(const void *buf, size_t len);

/* Where an area's open segment stands: objects end at byte `off`. */
struct lfs_area_pos {
    uint32_t seg;   /* erase block; 0 = no open segment */
    uint32_t off;   /* bytes used, page aligned after a commit */
};

/* A free segment ready for allocation, with its erase count. */
struct lfs_free_seg {
    uint32_t seg;
    uint32_t erases;
};

/* The anchor record: everything mount needs, written once per commit. */
#define LFS_ANCHOR_CLEAN 1u       /* the last commit before an unmount */
#define LFS_ANCHOR_ORPHAN_SCAN 2u /* more orphans than the list holds */
struct lfs_anchor {
    uint64_t seq;                /* commit number, grows by one */
    uint32_t flags;
    uint64_t seg_clock;          /* segments opened since mkfs: the log's age clock */
    struct lfs_inode inodefile;  /* the master inode */
    struct lfs_inode segfile;
    uint64_t next_ino;
    uint64_t live_bytes;         /* sum of live object bytes */
    uint64_t free_segments;      /* segments free or pending */
    uint64_t host_bytes_written;
    struct lfs_area_pos area[LFS_NAREAS];
    uint32_t npool;
    struct lfs_free_seg pool[LFS_POOL_MAX];
    uint32_t norphans;
    uint64_t orphans[LFS_ORPHAN_MAX];
};
#define LFS_ANCHOR_BYTES (32 + 2 * LFS_INODE_BYTES + 32 + 8 * LFS_NAREAS + \
                          4 + 8 * LFS_POOL_MAX + 4 + 8 * LFS_ORPHAN_MAX)
/* Encode into a buffer of at least LFS_ANCHOR_BYTES; returns the length. */
uint32_t lfs_anchor_encode(const struct lfs_anchor *a, uint8_t *out);
/* 0, or -EINVAL if buf does not hold a valid anchor record. */
int lfs_anchor_decode(const uint8_t *buf, uint32_t len, struct lfs_anchor *a);

/* The anchor ring: which block and page the next record goes to. */
struct lfs_ring {
    uint32_t count;
    uint32_t blocks[LFS_MAX_ANCHOR_BLOCKS];
    uint32_t cur;        /* index into blocks of the block being written */
    uint32_t next_page;  /* next page to program in it; pages_per_block = full */
    int next_erased;     /* the block after it is erased already */
    uint64_t pages, erases; /* programmed and erased since mount */
};
/* Find the newest valid anchor in the ring (a bounded number of reads);
 * -ENOENT if there is none. Leaves the ring ready to write the next
 * record after it if it is a clean unmount's, else into a fresh block. */
int lfs_ring_find(nand_dev *dev, struct lfs_ring *ring, struct lfs_anchor *a);
/* Program the record as the next page of the ring.  erase_ahead: a
 * record that fills its block first erases the next one (commits; not the
 * mount's record, so that a mount never erases). */
int lfs_ring_write(nand_dev *dev, struct lfs_ring *ring, const struct lfs_anchor *a,
                   int erase_ahead);

/* pair.c: paired pages (MLC/TLC).  span is lfs_pair_span of the part. */
uint32_t lfs_pair_span(const struct nand_config *c);
/* The first page at or after `next` from which no program can damage a
 * page below `next` (their upper pages in between are skipped). */
uint32_t lfs_pair_safe_page(const struct nand_config *c, uint32_t span, uint32_t next);
/* The lowest page below `next` whose upper page is at or after `next`
 * (still exposed to a torn program); `next` if none. */
uint32_t lfs_pair_exposed_page(const struct nand_config *c, uint32_t span, uint32_t next);

/* Map a nand error to a negative errno. */
int lfs_errno(int nand_err);

/* ---- the mounted file system -------------------------------------------- */

/* Segment-file entry (LFS_SEGENT_BYTES on flash). */
#define LFS_SEGENT_BYTES 16u
enum lfs_seg_state {
    LFS_SEG_FREE = 0,
    LFS_SEG_USED = 1,     /* holds objects of `area` (or is open) */
    LFS_SEG_BAD = 2,
    LFS_SEG_RESERVED = 3, /* superblock and anchor blocks */
};
struct lfs_segent {
    uint32_t erases, live;
    uint8_t state, area;
    uint32_t stamp;     /* seg_clock (mod 2^32) when it was last opened */
};

/* A cached block of a file: data (level 0) or indirect (level >= 1). The
 * inode file's level-0 blocks hold encoded inodes. */
struct lfs_node {
    uint64_t ino, bix;
    uint8_t level, dirty;
    uint8_t moved;             /* dirtied by the cleaner, not by a write */
    uint32_t len;              /* payload bytes that matter */
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
    struct lfs_list dirty[3][LFS_MAX_HEIGHT + 1]; /* [class][level] */
    uint64_t bytes, dirty_bytes, max_bytes;
    uint64_t hits, misses;
};

/* An inode in memory. */
struct lfs_imem {
    struct lfs_inode d;
    int dirty, opens;
    struct lfs_imem *hnext;
    struct lfs_imem *dnext;     /* the dirty list, while dirty */
};

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

struct logfs {
    nand_dev *dev;
    struct lfs_geo g;
    struct lfs_super sb;
    struct lfs_anchor an;       /* roots and counters of the next commit */
    struct lfs_ring ring;
    struct lfs_areaw area[LFS_NAREAS];
    struct lfs_cache cache;
    struct lfs_imem **itab;
    uint64_t itab_size, icount;
    struct lfs_imem *idirty;    /* the dirty inodes: a commit writes only these */
    uint32_t *freed;            /* segments emptied since the last commit */
    uint32_t nfreed, freed_cap;
    uint32_t nmarked;           /* of those, recorded free in the segfile */
    uint32_t ptrs_per_block;    /* block_size / 8 */
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
    struct lfs_gc {             /* see gc.c */
        const struct gc_policy *policy;
        struct gc_ctx ctx;      /* ctx.round counts victims picked */
        struct gc_seg *cand;    /* nblocks candidates, allocated on first use */
        uint32_t free_min, idle_free, wl_threshold;
        int separate;
        uint64_t wl_checked;    /* seg_clock at the last static WL check */
        logfs_gc_observer observer;
        void *observer_ctx;
        /* tests: every greedy pick from the index is checked against the
         * scan (collect + gcp_min_live); on by default when built with
         * -DLFS_GCIDX_CHECK, which also aborts on a mismatch */
        int check_index;
        uint64_t index_checks, index_mismatches;
    } gc;
    struct lfs_counters {       /* since mount, for logfs_get_stats */
        uint64_t pages[LFS_NAREAS]; /* programmed per area */
        uint64_t erases;        /* segment erases */
        uint64_t gc_rounds, gc_objects, gc_bytes, gc_time_ns, wl_moves, gc_fallbacks;
        uint64_t pair_skipped;  /* upper pages left erased at commits (pair.c) */
    } ctr;
    int wear_leveling;          /* LOGFS_WL_* */
    int op_kind;                /* LOGFS_OP_* of the call under way, -1 none */
    nand_time_t op_t0;          /* when it began */
    struct lfs_lathist {        /* see lathist.c */
#define LFS_LAT_BUCKETS (16 + 60 * 16)
        uint64_t n[LFS_LAT_BUCKETS];
        uint64_t count, sum, max;
    } lat[LOGFS_OP_KINDS];
    int readonly;
    int failed;                 /* an I/O error stopped a commit */
    int orphan_scan;            /* orphans overflowed the anchor's list */
    uint64_t relocated;         /* segments retired by a failed program */
    uint64_t dirty_limit;
    uint32_t reserve;           /* free segments kept back from writers */
    struct lfs_fd *fds;
    uint32_t nfds;
};

/* An open file. */
struct lfs_fd {
    uint64_t ino, pos;
    int flags, used;
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
/* A new clean node; its data zeroed unless the caller overwrites all of it. */
struct lfs_node *lfs_cache_add(struct logfs *fs, uint64_t ino, uint8_t level,
                               uint64_t bix, int zero);
void lfs_cache_remove(struct logfs *fs, struct lfs_node *n);
void lfs_node_dirty(struct logfs *fs, struct lfs_node *n);
void lfs_node_clean(struct logfs *fs, struct lfs_node *n);
void lfs_cache_touch(struct logfs *fs, struct lfs_node *n);
void lfs_cache_trim(struct logfs *fs);
int lfs_node_class(uint64_t ino);  /* 0 files, 1 inode file, 2 segment file */

/* area.c */
int lfs_area_write(struct logfs *fs, unsigned area, struct lfs_obj *o,
                   const uint8_t *payload, lfs_ptr *out);
int lfs_area_flush(struct logfs *fs, unsigned area);
int lfs_area_flush_all(struct logfs *fs);
/* Go on writing seg at off (after a CLEAN anchor record). */
void lfs_area_resume(struct logfs *fs, unsigned area, uint32_t seg, uint32_t off);
/* Read the object at p, check that it is what the tree says it is. */
int lfs_obj_read(struct logfs *fs, lfs_ptr p, uint8_t type, uint64_t ino,
                 uint8_t level, uint64_t bix, uint8_t *payload, uint32_t *len);
uint32_t lfs_seg_of(const struct logfs *fs, lfs_ptr p);

/* segfile.c */
int lfs_seg_get(struct logfs *fs, uint32_t seg, struct lfs_segent *e);
int lfs_seg_put(struct logfs *fs, uint32_t seg, const struct lfs_segent *e);
int lfs_seg_account(struct logfs *fs, lfs_ptr p, int add);
int lfs_seg_freed_add(struct logfs *fs, uint32_t seg);
int lfs_seg_is_open(const struct logfs *fs, uint32_t seg);
int lfs_seg_pending(const struct logfs *fs, uint32_t seg); /* in the freed list */

/* segtab.c: all entries in RAM, built on first need */
#define LFS_SEGT_FREED 1u  /* in the freed list */
#define LFS_SEGT_PICKED 2u /* cleaned in the cleaner's current batch */
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

/* sflive.c: live bytes of the segment file's own segments, in RAM */
int lfs_sflive_get(struct logfs *fs, uint32_t seg, uint32_t *live);
int lfs_sflive_account(struct logfs *fs, lfs_ptr p, int add);
void lfs_sflive_free(struct logfs *fs);
int lfs_seg_alloc(struct logfs *fs, unsigned area, uint32_t *seg);
int lfs_seg_mark_freed(struct logfs *fs);
void lfs_seg_commit_done(struct logfs *fs);

/* inode.c */
int lfs_inode_get(struct logfs *fs, uint64_t ino, struct lfs_inode **out);
int lfs_inode_new(struct logfs *fs, uint32_t mode, struct lfs_inode **out);
int lfs_inode_create_at(struct logfs *fs, const struct lfs_inode *d);
void lfs_inode_dirty(struct logfs *fs, struct lfs_inode *in);
int lfs_inode_flush(struct logfs *fs);
int lfs_inode_any_dirty(const struct logfs *fs);
struct lfs_imem *lfs_imem_of(struct lfs_inode *in);
/* Drop one link (or one open): frees the file once neither remains. */
int lfs_inode_release(struct logfs *fs, struct lfs_inode *in);
void lfs_orphan_remove(struct logfs *fs, uint64_t ino);
void lfs_inode_free_all(struct logfs *fs);
void lfs_inode_trim(struct logfs *fs, uint64_t keep);

/* tree.c: the blocks of a file, whatever its class.  lfs_tree_get's
 * create: 0 = only if it exists (else *out = NULL), 1 = create a hole,
 * LFS_TREE_OVERWRITE = the caller replaces every byte of this level-0
 * block, so an uncached old copy need not be read. */
#define LFS_TREE_OVERWRITE 2
int lfs_tree_get(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                 uint64_t bix, int create, struct lfs_node **out);
int lfs_tree_punch(struct logfs *fs, struct lfs_inode *in, uint64_t bix);
/* The pointer to node (level, n): 0 for a hole, LFS_PTR_PENDING for a
 * node only in RAM. */
int lfs_tree_ptr(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                 uint64_t n, lfs_ptr *out);
/* Call fn for every on-flash pointer of the file's tree -- to data and to
 * indirect blocks -- reading only the indirect blocks (pointers only in
 * RAM are skipped). */
typedef int (*lfs_ptr_fn)(struct logfs *fs, void *ctx, lfs_ptr p);
int lfs_tree_walk(struct logfs *fs, struct lfs_inode *in, lfs_ptr_fn fn, void *ctx);
/* The first existing level-0 block at or after bix (UINT64_MAX: none). */
int lfs_tree_next(struct logfs *fs, struct lfs_inode *in, uint64_t bix,
                  uint64_t *found);
int lfs_tree_set_parent(struct logfs *fs, struct lfs_inode *in,
                        struct lfs_node *n, lfs_ptr p);

/* file.c */
int64_t lfs_file_pread(struct logfs *fs, struct lfs_inode *in, void *buf,
                       uint64_t len, uint64_t off);
int64_t lfs_file_pwrite(struct logfs *fs, struct lfs_inode *in, const void *buf,
                        uint64_t len, uint64_t off, uint64_t dirty_limit);
int lfs_file_zero(struct logfs *fs, struct lfs_inode *in, uint64_t from, uint64_t to);
int lfs_file_truncate(struct logfs *fs, struct lfs_inode *in, uint64_t size);
int lfs_file_free_from(struct logfs *fs, struct lfs_inode *in, uint64_t bix);

/* dir.c */
int lfs_dir_lookup(struct logfs *fs, struct lfs_inode *dir, const char *name,
                   size_t len, uint64_t *ino, uint8_t *type);
int lfs_dir_add(struct logfs *fs, struct lfs_inode *dir, const char *name,
                size_t len, uint64_t ino, uint8_t type);
int lfs_dir_remove(struct logfs *fs, struct lfs_inode *dir, const char *name,
                   size_t len);
int lfs_dir_iterate(struct logfs *fs, struct lfs_inode *dir, uint64_t *cookie,
                    int (*fn)(void *ctx, const char *name, size_t len,
                              uint64_t ino, uint8_t type),
                    void *ctx);

/* path.c */
/* Resolve a path: dir is the directory holding the last component, name
 * and len that component (empty for the root), ino its inode or 0 if it
 * does not exist.  follow: resolve a final symbolic link too. */
struct lfs_path {
    struct lfs_inode *dir;
    char name[LFS_NAME_MAX_BYTES + 1];
    size_t len;
    uint64_t ino;
    uint8_t type;
};
int lfs_resolve(struct logfs *fs, const char *path, int follow, struct lfs_path *r);
int64_t lfs_now(struct logfs *fs);
int lfs_create(struct logfs *fs, struct lfs_path *r, uint32_t mode,
               struct lfs_inode **out);
/* After every public call: commit past the dirty limit, trim the cache. */
/* Every public call begins with lfs_op_begin and ends with lfs_op_end or
 * lfs_op_end_ro, which record its latency (lathist.c). */
void lfs_op_begin(struct logfs *fs, int kind);
void lfs_op_record(struct logfs *fs);
void lfs_lat_record(struct lfs_lathist *h, uint64_t ns);
int lfs_op_end(struct logfs *fs, int rc);
int lfs_op_end_ro(struct logfs *fs, int rc);

/* gc.c */
/* Clean until want_free segments are free, taking only victims with at
 * most max_live live bytes, and stopping when rounds stop paying. */
int lfs_gc(struct logfs *fs, uint32_t want_free, uint32_t max_live);
/* Static wear leveling's check (a no-op unless LOGFS_WL_STATIC). */
int lfs_wear_level(struct logfs *fs);
/* Bytes the fs will hold for users: what the cleaner can always sustain. */
uint64_t lfs_capacity(const struct logfs *fs);
/* 0 if new_bytes more may be written (cleaning first if needed), else
 * -ENOSPC. */
int lfs_space_check(struct logfs *fs, uint64_t new_bytes);

/* check.c: after a sync, the number of segments whose live count differs
 * from what the trees hold (first one described), or a negative errno. */
int lfs_check_live(struct logfs *fs, uint32_t *bad_seg, uint64_t *want, uint32_t *have);

/* commit.c */
int lfs_commit(struct logfs *fs);
/* A commit whose anchor carries flags (LFS_ANCHOR_CLEAN at unmount). */
int lfs_commit_flags(struct logfs *fs, uint32_t flags);

#endif

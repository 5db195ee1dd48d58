/*
 * tree.h -- LogFS layer 3, the tree: inodes in memory and the inode file,
 * the wandering tree of every file, file ranges, directories, the commit
 * that writes the tree bottom-up and then the anchor, and the cleaner that
 * moves live objects; the scrubber.  Sees storage.h and below.  Its files:
 * fs/logfs/layers.txt.
 */
#ifndef FLASHLAB_LFS_LAYER_TREE_H
#define FLASHLAB_LFS_LAYER_TREE_H

#include "storage.h"

#include <stddef.h>

/* An inode in memory. */
struct lfs_imem {
    struct lfs_inode d;
    int dirty, opens;
    int linkable;               /* an O_TMPFILE not yet linked (Linux's I_LINKABLE) */
    struct lfs_imem *hnext;
    struct lfs_imem *dnext;     /* the dirty list, while dirty */
};

/* The cleaner's state (gc.c). */
struct lfs_gc {
    const struct gc_policy *policy;
    struct gc_ctx ctx;      /* ctx.round counts victims picked */
    struct gc_seg *cand;    /* nblocks candidates, allocated on first use */
    uint32_t free_min, idle_free, wl_threshold;
    int separate;
    uint64_t wl_checked;    /* seg_clock at the last static WL check */
    fs_gc_observer observer;
    void *observer_ctx;
    /* tests: every greedy pick from the index is checked against the
     * scan (collect + gcp_min_live); on by default when built with
     * -DLFS_GCIDX_CHECK, which also aborts on a mismatch */
    int check_index;
    uint64_t index_checks, index_mismatches;
};

/* The mounted fs as the tree layer holds it: the storage state every
 * layer passes (struct logfs), then the tree layer's own, so that a
 * change to it edits no lower header.  lfs_gc_of goes back from the
 * struct logfs; ops embeds this (struct lfs_ops, ops.h). */
struct lfs_treefs {
    struct logfs fs;
    struct lfs_gc gc;
};

static inline struct lfs_gc *lfs_gc_of(struct logfs *fs)
{
    return &((struct lfs_treefs *)((char *)fs - offsetof(struct lfs_treefs, fs)))->gc;
}

/* inode.c */
/* The time stamped on inodes: the device's simulated clock, in ns. */
int64_t lfs_now(struct logfs *fs);
int lfs_inode_get(struct logfs *fs, uint64_t ino, struct lfs_inode **out);
int lfs_inode_new(struct logfs *fs, uint32_t mode, struct lfs_inode **out);
int lfs_inode_create_at(struct logfs *fs, const struct lfs_inode *d);
void lfs_inode_dirty(struct logfs *fs, struct lfs_inode *in);
int lfs_inode_flush(struct logfs *fs);
int lfs_inode_any_dirty(const struct logfs *fs);
struct lfs_imem *lfs_imem_of(struct lfs_inode *in);
/* Drop one link (or one open): frees the file once neither remains. */
int lfs_inode_release(struct logfs *fs, struct lfs_inode *in);
/* The anchor's list of files unlinked while open (deleted by the mount
 * after a crash); past LFS_ORPHAN_MAX, that mount scans for them. */
void lfs_orphan_add(struct logfs *fs, uint64_t ino);
void lfs_orphan_remove(struct logfs *fs, uint64_t ino);
void lfs_inode_free_all(struct logfs *fs);
void lfs_inode_trim(struct logfs *fs, uint64_t keep);

/* xattr.c: an inode's attribute list (FORMAT.md 13a), whole: load gives
 * a malloc'd copy (NULL, 0 when there is none); store writes it (len 0
 * deletes the attribute inode); drop deletes it with its owner. */
int lfs_xattr_load(struct logfs *fs, struct lfs_inode *owner, uint8_t **buf,
                   uint32_t *len);
int lfs_xattr_store(struct logfs *fs, struct lfs_inode *owner, const uint8_t *buf,
                    uint32_t len);
int lfs_xattr_drop(struct logfs *fs, struct lfs_inode *owner);

/* tree.c: the blocks of a file, whatever its class.  lfs_tree_get's
 * create: 0 = only if it exists (else *out = NULL), 1 = create a hole,
 * LFS_TREE_OVERWRITE = the caller replaces every byte of this level-0
 * block, so an uncached old copy need not be read. */
#define LFS_TREE_OVERWRITE 2
int lfs_tree_get(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                 uint64_t bix, int create, struct lfs_node **out);
/* A copy of the object at p the caller already holds (the cleaner's
 * segment buffer): lfs_tree_get_held fills a miss of the node at p from
 * it, checked as a read is (filled set), and reads the object from flash
 * only when the copy does not check (a page the copy's read lost). */
struct lfs_held {
    lfs_ptr p;
    struct lfs_objbytes bytes;  /* its lfs_ptr_len(p) bytes */
    const struct lfs_obj *hdr;  /* their header, decoded (and so checked) */
    int filled;
};
int lfs_tree_get_held(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                      uint64_t bix, struct lfs_held *held, struct lfs_node **out);
int lfs_tree_punch(struct logfs *fs, struct lfs_inode *in, uint64_t bix);
/* Preallocated blocks (FORMAT.md section 4): whether in may have them (a
 * regular file of a format-6 fs); make level-0 block bix one if it is a
 * hole (live_bytes counts it), leave it as it is if not.  lfs_tree_get
 * gives no node for one unless asked to create it: it reads as a hole. */
int lfs_tree_can_prealloc(const struct logfs *fs, const struct lfs_inode *in);
int lfs_tree_prealloc(struct logfs *fs, struct lfs_inode *in, uint64_t bix);
/* The pointer to node (level, n): 0 for a hole, LFS_PTR_PENDING for a
 * node only in RAM. */
int lfs_tree_ptr(struct logfs *fs, struct lfs_inode *in, uint8_t level,
                 uint64_t n, lfs_ptr *out);
/* Call fn for every on-flash pointer of the file's tree -- to data and to
 * indirect blocks -- reading only the indirect blocks (pointers only in
 * RAM and preallocated blocks, which no segment holds, are skipped). */
int lfs_tree_walk(struct logfs *fs, struct lfs_inode *in, lfs_ptr_fn fn, void *ctx);
/* The first existing level-0 block at or after bix (UINT64_MAX: none). */
int lfs_tree_next(struct logfs *fs, struct lfs_inode *in, uint64_t bix,
                  uint64_t *found);
int lfs_tree_set_parent(struct logfs *fs, struct lfs_inode *in,
                        struct lfs_node *n, lfs_ptr p);

/* The segment file's blocks, for storage (storage.h). */
extern const struct lfs_tree_hooks lfs_tree_hooks;

/* file.c */
/* The largest file, in bytes, with block_size-byte blocks: what the
 * direct pointers and a tree of LFS_MAX_HEIGHT levels address, at most
 * LFS_FILE_BYTES_CAP.  Every call that sets a size or writes checks it
 * (fs->max_file_bytes): truncate past it is -EFBIG, a write that would
 * cross it is short. */
uint64_t lfs_file_max_bytes(uint32_t block_size);
int64_t lfs_file_pread(struct logfs *fs, struct lfs_inode *in, void *buf,
                       uint64_t len, uint64_t off);
int64_t lfs_file_pwrite(struct logfs *fs, struct lfs_inode *in, const void *buf,
                        uint64_t len, uint64_t off, uint64_t dirty_limit);
int lfs_file_zero(struct logfs *fs, struct lfs_inode *in, uint64_t from, uint64_t to);
int lfs_file_truncate(struct logfs *fs, struct lfs_inode *in, uint64_t size);
int lfs_file_free_from(struct logfs *fs, struct lfs_inode *in, uint64_t bix);
/* fallocate: every hole of [off, off + len) becomes a preallocated block,
 * the size grows to off + len unless keep_size.  Room for all of them is
 * checked first (-ENOSPC changes nothing); -EFBIG past the largest file,
 * -EOPNOTSUPP where lfs_tree_can_prealloc says no, -EINVAL for len 0. */
int lfs_file_allocate(struct logfs *fs, struct lfs_inode *in, uint64_t off, uint64_t len,
                      int keep_size);
/* fallocate's ZERO_RANGE: the part of [off, off + len) inside the file
 * zeroed (whole blocks punched), then lfs_file_allocate.  The room the
 * allocation needs after the punch is checked first (-ENOSPC changes
 * nothing); the same errors as lfs_file_allocate. */
int lfs_file_zero_range(struct logfs *fs, struct lfs_inode *in, uint64_t off, uint64_t len,
                        int keep_size);
/* The bytes of [off, off + len) that lie in preallocated blocks, whose
 * room is already counted. */
int lfs_file_prealloc_bytes(struct logfs *fs, struct lfs_inode *in, uint64_t off,
                            uint64_t len, uint64_t *held);

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

/* gc.c */
/* Clean until want_free segments are free, taking only victims with at
 * most max_live live bytes, and stopping when rounds stop paying. */
int lfs_gc(struct logfs *fs, uint32_t want_free, uint32_t max_live);
/* Move the live data of the closed segments segs[0..n) in one commit
 * (the scrubber's relocation); *moved: live bytes copied. */
int lfs_gc_relocate(struct logfs *fs, const uint32_t *segs, uint32_t n, uint64_t *moved);

/* gcroom.c: a tight batch's room.  Segments kept free beyond the bound
 * for what it leaves out: a page that fails to program, an indirect block
 * new since the last commit. */
#define LFS_GC_ROOM_MARGIN 2
struct lfs_gc_room {
    uint64_t meta_segments; /* the bound's part outside the file data */
};
/* The bound's metadata part, from the areas' live bytes: 0 or -errno. */
int lfs_gc_room_start(struct logfs *fs, struct lfs_gc_room *r);
/* The segments the next commit opens at most, with extra more bytes of
 * objects to copy. */
uint64_t lfs_gc_room_need(struct logfs *fs, const struct lfs_gc_room *r, uint64_t extra);
/* Whether the next commit, with extra more bytes of objects to copy,
 * opens at most the free segments less the margin. */
int lfs_gc_room_fits(struct logfs *fs, const struct lfs_gc_room *r, uint64_t extra);

/* scrub.c: scrubbing (docs/scrubbing.md) */
/* Move the live data of the segments reads scheduled; those still open
 * stay scheduled.  Nothing when none is. */
int lfs_scrub_pending(struct logfs *fs);
/* Read up to budget pages of closed segments round-robin, scheduling
 * those whose reads meet the threshold; then lfs_scrub_pending.
 * Returns the segments moved, or a negative errno. */
int lfs_scrub_scan(struct logfs *fs, uint64_t budget);

/* scrubfixed.c: the superblock copies and the anchor ring.  super_due:
 * a read of copy `block` met the threshold (or failed): rewrite both, it
 * first.  fixed_read: the idle scrubber's read of a block that is no
 * segment (*reads counted), flagging what is due.  fixed: the refreshes
 * due (with pending). */
void lfs_scrub_super_due(struct logfs *fs, uint32_t block);
int lfs_scrub_fixed_read(struct logfs *fs, uint32_t block, uint64_t *reads);
int lfs_scrub_fixed(struct logfs *fs);

/* Static wear leveling's check (a no-op unless LOGFS_WL_STATIC). */
int lfs_wear_level(struct logfs *fs);
/* The capacity the cleaner can use (logfs_stats.cleanable_bytes), and the
 * live bytes writers may reach: max_utilisation of it. */
uint64_t lfs_cleanable_bytes(const struct logfs *fs);
uint64_t lfs_cleanable_segments(const struct logfs *fs);
uint64_t lfs_capacity(const struct logfs *fs);
/* 0 if new_bytes more may be written (cleaning first if needed), else
 * -ENOSPC. */
int lfs_space_check(struct logfs *fs, uint64_t new_bytes);
/* The same, once freed_bytes of live objects have been let go (a punch
 * that is to come). */
int lfs_space_check_freeing(struct logfs *fs, uint64_t new_bytes, uint64_t freed_bytes);

/* check.c: after a sync, the number of segments whose live count differs
 * from what the trees hold (first one described), or a negative errno. */
int lfs_check_live(struct logfs *fs, uint32_t *bad_seg, uint64_t *want, uint32_t *have);

/* commit.c */
int lfs_commit(struct logfs *fs);
/* A commit whose anchor carries flags (LFS_ANCHOR_CLEAN at unmount). */
int lfs_commit_flags(struct logfs *fs, uint32_t flags);
/* Whether a commit would write anything; a commit only if it would (one
 * tree: it covers every file). */
int lfs_anything_dirty(const struct logfs *fs);
int lfs_sync_all(struct logfs *fs);

#endif

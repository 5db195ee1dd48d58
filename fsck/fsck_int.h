/*
 * fsck_int.h -- what the files of fsck/ share.  Everything here is written
 * from docs/FORMAT.md (section numbers in the comments); nothing comes
 * from fs/, so that a mistake of the file system is not repeated here.
 */
#ifndef FLASHLAB_FSCK_INT_H
#define FLASHLAB_FSCK_INT_H

#include "fsck.h"
#include "crc32.h"
#include "le.h"
#include "nand.h"

#include <stdint.h>
#include <string.h>

/* ---- FORMAT.md section 3: constants ---------------------------------- */
#define FK_SB_SIZE 256u
#define FK_ANCHOR_MAGIC 0x52434e41u
#define FK_ANCHOR_BYTES 1208u      /* version 4 */
#define FK_ANCHOR_BYTES_V3 1112u
/* section 6.1: the record length for an inode record size */
#define FK_ANCHOR_BYTES_OF(ib) (696u + 2u * (ib))
#define FK_OBJ_MAGIC 0x4a424fu
#define FK_HDR 48u
#define FK_INODE_BYTES 256u       /* version 4 */
#define FK_INODE_BYTES_V3 208u
#define FK_INODE_XATTRS 1u        /* inode flag bit 0 (section 9.4) */
#define FK_INODE_ATTRS 0xf8u      /* bits 3..7, chattr's S i a d A (version 6) */
#define FK_XATTR_LIST_MAX (1u << 20)
#define FK_XATTR_VALUE_MAX 65536u
#define FK_SEGENT 16u
#define FK_VERSION 6u              /* preallocated blocks, inode blocks (sections 4, 9.4) */
#define FK_VERSION_V5 5u          /* compressed data blocks (section 9.1a) */
#define FK_VERSION_V4 4u          /* read-write: version 5 without compression */
/* Section 4: a preallocated block's pointer (address 0, a whole raw
 * object's length). */
#define FK_PREALLOC(bs) ((uint64_t)(FK_HDR + (bs)))
#define FK_VERSION_V3 3u          /* read, read-only (section 15) */
enum { FK_COMPR_NONE = 0, FK_COMPR_ZLIB = 1, FK_COMPR_LZO = 2, FK_COMPR_METHODS = 3 };
#define FK_MAX_ANCHORS 16u
#define FK_NDIRECT 16u
#define FK_MAX_HEIGHT 5u
#define FK_NAREAS 14u
#define FK_POOL_MAX 32u
#define FK_ORPHAN_MAX 32u
#define FK_INO_ROOT 2u
#define FK_INO_FIRST 3u
#define FK_BUCKETS 4096u
#define FK_PROBE 64u
#define FK_SB_SEARCH 64u
#define FK_READ_TRIES 8
#define FK_MAX_OBJ_LEN (65535u - FK_HDR) /* the header decoder's bound */

enum { FK_DATA = 1, FK_INDIRECT = 2, FK_INODE = 3 };           /* section 8 */
enum { FK_FREE = 0, FK_USED = 1, FK_BAD = 2, FK_RESERVED = 3 }; /* section 12 */
enum { FK_AREA_INODE = 6, FK_AREA_SEGFILE = 12, FK_AREA_MOVED = 13 };
#define FK_ANCHOR_CLEAN 1u
#define FK_ANCHOR_ORPHAN_SCAN 2u
#define FK_BUCKET_OVERFLOW 1u

/* Which tree a pointer belongs to. */
enum fk_cls { FK_CLS_FILE = 0, FK_CLS_INODEFILE = 1, FK_CLS_SEGFILE = 2 };

/* POSIX mode types (the values FORMAT.md section 9.4 names). */
#define FK_IFMT 0170000u
#define FK_IFREG 0100000u
#define FK_IFDIR 0040000u
#define FK_IFLNK 0120000u
#define FK_IFIFO 0010000u
#define FK_IFCHR 0020000u
#define FK_IFBLK 0060000u
#define FK_IFSOCK 0140000u

/* little endian (section 1): sim/le.h */
static inline uint32_t fk_crc(const void *p, size_t n)
{
    return flashlab_crc32(0, p, n);
}
static inline int fk_all(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/* ---- records ---------------------------------------------------------- */

/* Section 9.4: the inode record (256 bytes; 208 in version 3), every
 * field; a version-3 record reads as rdev = xattr = 0. */
struct fk_inode {
    uint32_t mode, uid, gid, nlink;
    uint64_t size;
    int64_t atime, mtime, ctime;
    uint32_t flags;
    uint8_t height, resv[3];
    uint64_t generation;
    uint64_t direct[FK_NDIRECT];
    uint64_t indirect;
    uint64_t ino;
    uint64_t rdev, xattr;
    uint64_t blocks;    /* version 6 (bytes 224..231); reserved zero before */
    uint8_t resv2_zero; /* bytes 232..255 are zero (always 1 in version 3) */
};
/* ib: the record size, FK_INODE_BYTES or FK_INODE_BYTES_V3. */
void fk_inode_decode(const uint8_t *b, struct fk_inode *in, uint32_t ib);
void fk_inode_encode(const struct fk_inode *in, uint8_t *b, uint32_t ib);

/* Section 5. */
struct fk_super {
    uint32_t read_version, write_version, block_size, page_size,
        pages_per_block, anchor_count, reserve_segments, backup_block,
        segments, compress; /* compress: version 5's byte 124 */
    uint64_t nblocks, fs_id;
    uint32_t anchor_blocks[FK_MAX_ANCHORS];
    uint8_t raw[FK_SB_SIZE];
    uint32_t found_in; /* the block it was read from */
};

/* Section 6.1. */
struct fk_area_pos { uint32_t seg, off; };
struct fk_pool_ent { uint32_t seg, erases; };
struct fk_anchor {
    uint64_t seq;
    uint32_t flags;
    uint64_t seg_clock;
    struct fk_inode inodefile, segfile;
    uint64_t next_ino, live_bytes, free_segments, host_bytes_written;
    struct fk_area_pos area[FK_NAREAS];
    uint32_t npool;
    struct fk_pool_ent pool[FK_POOL_MAX];
    uint32_t norphans;
    uint64_t orphans[FK_ORPHAN_MAX];
};
/* 0 when buf (FK_ANCHOR_BYTES_OF(ib) bytes) is a valid record by section
 * 6.1, else -1. */
int fk_anchor_decode(const uint8_t *buf, struct fk_anchor *a, uint32_t ib);
void fk_anchor_encode(const struct fk_anchor *a, uint8_t *buf, uint32_t ib);

/* Section 8. */
struct fk_obj {
    uint8_t type, level, compr; /* compr: byte 5, the compression method */
    uint16_t resv;
    uint32_t len, pcrc, raw_len; /* raw_len: bytes 40..43 */
    uint64_t ino, bix, seq;
};
/* 0 valid, -1 bad magic, -2 bad header CRC, -3 bad field values. */
int fk_obj_decode(const uint8_t *h, struct fk_obj *o);
void fk_obj_encode(const struct fk_obj *o, uint8_t *h);

/* Section 12. */
struct fk_segent {
    uint32_t erases, live;
    uint8_t state, area;
    uint16_t resv;
    uint32_t stamp;
    uint8_t unknown; /* fsck's: its segment-file block could not be read */
};

/* ---- the checker's model ------------------------------------------------ */

/* One reachable pointer (its bytes count as live in its segment). */
struct fk_ref {
    uint64_t addr, ino, bix;
    uint32_t len;
    uint8_t cls, level, dropped; /* dropped: not in the repaired tree */
};

/* One inode of the inode file. */
#define FK_FIX_NLINK 1u
#define FK_FIX_SIZE 2u
#define FK_FIX_DELETE 4u
#define FK_FIX_TREE 8u   /* its pointers changed (directories) */
struct fk_ient {
    struct fk_inode d;
    uint64_t ptr;               /* of its inode object */
    uint32_t refs;              /* directory entries naming it */
    uint32_t subdirs;           /* entries in it naming directories */
    uint32_t nentries;          /* entries in it (directories) */
    uint8_t broken;             /* its record could not be read */
    uint8_t walked_ok;          /* its whole tree was readable */
    uint8_t reached;            /* reached from the root (directories) */
    uint8_t fix;                /* FK_FIX_* planned by --repair */
    uint32_t new_nlink;
    uint32_t xnamed;            /* inodes whose xattr field names it */
    uint64_t prealloc;          /* its preallocated blocks (version 6) */
};

/* One directory entry. */
#define FK_DFIX_REMOVE 1u
#define FK_DFIX_TYPE 2u
struct fk_dent {
    uint64_t dir, ino, bucket_ptr;
    uint32_t bucket, off, name; /* name: offset into fk.names */
    uint8_t type, name_len, fix, new_type;
};

/* The walk of one ordinary file (inode.c, dir.c). */
enum { BK_HOLE = 0, BK_UNREADABLE, BK_EMPTY, BK_PLAIN, BK_OVERFLOW };
struct fk_file_walk {
    struct fk_ient *ie;
    uint64_t blocks;
    int data_lost;              /* a level-0 block could not be read */
    size_t first_dent;          /* directories: its entries start here */
    uint8_t bucket[FK_BUCKETS]; /* directories: BK_* of each bucket */
    uint8_t *xlist;             /* attribute inodes: the list (section 13a) */
    uint64_t xlen;              /* its bytes (size, at most 1 MiB) */
};

struct fk {
    nand_dev *dev;
    struct fsck_report *rep;
    int repair;
    uint32_t ps, ppb, seg_bytes, bs, P, E; /* E: segment entries a block */
    uint64_t nblocks;
    uint64_t initial_pe;
    struct fk_super sb;
    int sb_primary_bad, sb_copy_bad, readonly;
    uint32_t ver;               /* the image's format version, 3 to 6 */
    uint32_t ib, ab;            /* its inode and anchor record sizes */
    uint32_t mirrors;           /* 2 (version 4), or 1 (version 3) */
    struct fk_anchor an;
    uint32_t ring_cur, an_block, an_page; /* ring_cur: logical block */
    uint32_t an_mirror;         /* the mirror whose copy was used */
    int ring_unreadable;        /* the last ring page read failed (ECC) */
    uint32_t an_lost;           /* ring pages newer than an: damaged, torn */
    uint8_t *obj;               /* one object: header + payload */
    uint8_t *unz;               /* a decompressed payload (block size) */
    uint8_t *page;              /* one page */
    struct fk_segent *seg;      /* nblocks entries, from the segment file */
    uint8_t *dev_bad;           /* nblocks: the device's bad-block marker */
    struct fk_ref *refs;
    size_t nrefs, refs_cap, nrefs_sorted;
    struct fk_ient *ino;        /* sorted by inode number */
    size_t nino, ino_cap;
    struct fk_dent *dents;
    size_t ndents, dents_cap;
    char *names;
    size_t names_len, names_cap;
    size_t *planned;            /* messages the repair fixes */
    size_t nplanned, planned_cap;
    int incomplete;             /* metadata not readable whole: no repair */
    int walk_lost;              /* an indirect block lost: refs unknown */
    /* fk_walk's last walk: its level-0 pointers that are not holes, and of
     * them the preallocated ones; the bytes live_bytes counts for every
     * preallocated block of the files */
    uint64_t walk_blocks, walk_prealloc, prealloc_bytes;
    int fatal;                  /* the check cannot go on */
    int oper;                   /* an operational error happened */
    uint16_t area_bad;          /* areas whose recorded position is wrong */
};

/* ---- paths.c --------------------------------------------------------- */
/* After the check: each message about an inode some directory entry names
 * gets " (path /a/b)" appended. */
void fk_name_paths(struct fk *k);

/* ---- report.c -------------------------------------------------------- */
/* Add a message; returns its index, or (size_t)-1 when out of memory. */
size_t fk_msg(struct fk *k, enum fsck_severity sev, enum fsck_kind kind,
              int64_t block, int64_t page, int64_t ino, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* An error at device byte address addr (names block, page and column). */
size_t fk_err_at(struct fk *k, enum fsck_kind kind, uint64_t addr, int64_t ino,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Mark message m as one the repair commit fixes. */
void fk_plan(struct fk *k, size_t m);
void fk_oper(struct fk *k, const char *what, int nand_err);

/* ---- io.c ------------------------------------------------------------ */
/* Read len bytes at device address addr (spare excluded), retrying
 * uncorrectable reads; 0, or a nand error (the address of the first
 * failing page part in *bad_addr when not NULL). */
int fk_read(struct fk *k, uint64_t addr, uint8_t *buf, uint32_t len,
            uint64_t *bad_addr);
/* One whole page: 0 valid read, else a nand error. */
int fk_read_page(struct fk *k, uint32_t block, uint32_t page, uint8_t *buf);
int fk_is_oper_err(int nand_err); /* power, memory, argument errors */
void fk_where(const struct fk *k, uint64_t addr, char *buf, size_t n);
int fk_grow(void **v, size_t *cap, size_t need, size_t elem);

/* ---- super.c / anchor.c --------------------------------------- */
int fk_check_super(struct fk *k);   /* 0, or -1: cannot go on */
int fk_check_anchor(struct fk *k);  /* 0, or -1: no anchor */

/* ---- obj.c ------------------------------------------------------------ */
/* Describe a place: "inode 5 block 3", "inode file block 7", ... */
void fk_place(char *buf, size_t n, int cls, uint64_t ino, uint8_t level,
              uint64_t bix);
/* Check pointer p for (cls, ino, level, bix): section 4 checks 1 and 2,
 * then record it as reachable.  0 usable, -1 reported. */
int fk_ptr_check(struct fk *k, uint64_t p, int cls, uint64_t ino, uint8_t level,
                 uint64_t bix);
/* Read and check the object p points to (section 4 checks 3 to 5): 0 with
 * the payload at k->obj + FK_HDR and its length in *len, -1 reported. */
int fk_obj_load(struct fk *k, uint64_t p, int cls, uint64_t ino, uint8_t level,
                uint64_t bix, uint32_t *len);

/* ---- unpack.c ---------------------------------------------------------- */
/* Decompress exactly dlen bytes from in[0..clen) by method (section 9.1a):
 * 0, or -1 when the stream is damaged, shorter or longer. */
int fk_unpack(unsigned method, const uint8_t *in, uint32_t clen, uint8_t *out,
              uint32_t dlen);
const char *fk_compr_name(unsigned method);

/* ---- tree.c ----------------------------------------------------------- */
/* Called for every level-0 block: payload NULL when it could not be read. */
typedef int (*fk_leaf_fn)(struct fk *k, void *ctx, uint64_t bix, uint64_t ptr,
                          const uint8_t *payload, uint32_t len);
/* Walk a tree; returns 0, or -1 when an operational error stopped it.
 * *complete is cleared when an indirect block could not be read. */
int fk_walk(struct fk *k, int cls, uint64_t ino, const struct fk_inode *in,
            fk_leaf_fn leaf, void *ctx, int *complete);
/* Version 6: the inode's blocks against the walk just done (complete);
 * ino FSCK_NONE for the two files in the anchor. */
void fk_check_blocks(struct fk *k, const struct fk_inode *in, int64_t ino);
/* The level-0 blocks a tree of height h can hold: 16 + P^h (capped). */
uint64_t fk_tree_cap(const struct fk *k, unsigned h);

/* ---- seg.c / inode.c / dir.c / links.c / space.c */
int fk_load_segfile(struct fk *k);
int fk_load_inodes(struct fk *k);
int fk_check_files(struct fk *k);
int fk_dir_leaf(struct fk *k, struct fk_file_walk *c, uint64_t bix,
                uint64_t ptr, const uint8_t *payload, uint32_t len);
int fk_dir_done(struct fk *k, struct fk_file_walk *c);
/* A name for a message: printable, escaped, quoted. */
void fk_name_str(const uint8_t *name, size_t len, char *buf, size_t n);
int fk_check_links(struct fk *k);
/* Special files and attribute inodes (section 13a). */
int fk_is_special(uint32_t mode);
int fk_is_xattr_inode(const struct fk_ient *ie);
void fk_check_xattr_names(struct fk *k);
void fk_check_xattr_list(struct fk *k, const struct fk_ient *ie,
                         const uint8_t *list, uint64_t len, int complete);
int fk_check_space(struct fk *k);
struct fk_ient *fk_find_ino(struct fk *k, uint64_t ino);
uint32_t fk_name_hash(const uint8_t *name, size_t len);
/* Area an object of (cls, level) is written through (section 7.1). */
unsigned fk_area_of(int cls, uint8_t level);

/* ---- repair: repair.c, cow.c, write.c, segwrite.c ---- */
int fk_repair(struct fk *k); /* 1 committed, 0 nothing done, -1 failed */

struct fk_writer;
/* Change set of one tree: level-0 block bix gets pointer ptr (0 = hole). */
struct fk_change { uint64_t bix, ptr; };
int fk_cow(struct fk_writer *w, int cls, uint64_t ino, struct fk_inode *in,
           struct fk_change *ch, size_t n);
struct fk_writer *fk_writer_new(struct fk *k, uint64_t seq, uint64_t *seg_clock);
void fk_writer_free(struct fk_writer *w);
/* Reserve segments for area before the segment file is computed. */
int fk_writer_reserve(struct fk_writer *w, unsigned area, uint32_t nsegs);
int fk_writer_put(struct fk_writer *w, unsigned area, uint8_t type,
                  uint8_t level, uint64_t ino, uint64_t bix,
                  const uint8_t *payload, uint32_t len, uint64_t *ptr);
int fk_writer_flush(struct fk_writer *w, struct fk_area_pos *areas);
/* Whether the writer took seg; the segment an area has open (0: none). */
int fk_writer_took(const struct fk_writer *w, uint32_t seg);
uint32_t fk_writer_open_seg(const struct fk_writer *w, unsigned area);
struct fk *fk_writer_fk(struct fk_writer *w);
/* Block 0, the backup and the anchor blocks (section 2). */
int fk_reserved_block(const struct fk *k, uint64_t s);
void fk_drop_ref(struct fk *k, uint64_t ptr);
void fk_sort_refs(struct fk *k);
int fk_add_ref(struct fk *k, uint64_t ptr, int cls, uint64_t ino, uint8_t level,
               uint64_t bix);
/* keep_areas: areas of na whose open segment the new record keeps. */
int fk_write_segfile(struct fk *k, struct fk_writer *w, struct fk_anchor *na,
                     uint16_t keep_areas);
int fk_write_anchor(struct fk *k, const struct fk_anchor *na);
int fk_write_super(struct fk *k);

/* run.c: one checking pass over dev into rep. */
int fk_check(struct fk *k);
void fk_free(struct fk *k);

#endif

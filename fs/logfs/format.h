/*
 * format.h -- LogFS layer 1, the format: what is on flash and how it is
 * coded (inodes, the superblock, object headers, anchor records and the
 * anchor ring, paired pages), with no mounted file system behind it.
 * Sees only sim/nand.h and lfs_format.h (the on-flash constants).  Its
 * files: fs/logfs/layers.txt.  Layers: docs/architecture.md.
 */
#ifndef FLASHLAB_LFS_LAYER_FORMAT_H
#define FLASHLAB_LFS_LAYER_FORMAT_H

#include "lfs_format.h"
#include "nand.h"

#include <stddef.h>

/* An inode as the fs holds it (encoded in LFS_INODE_BYTES on flash;
 * format 3 wrote LFS_INODE_BYTES_V3, without rdev and xattr). */
#define LFS_INODE_BYTES 256u
#define LFS_INODE_BYTES_V3 208u
#define LFS_INODE_XATTRS 1u      /* flags: an owner's xattr stream, no name */
/* flags, format 6: chattr(1)'s attributes, at the values of Linux's
 * FS_*_FL (<linux/fs.h>), so that the ioctl's bits and the record's are
 * the same (FORMAT.md 9.4 says what each does here) */
#define LFS_INODE_SYNC 0x08u      /* S: each write committed before it returns */
#define LFS_INODE_IMMUTABLE 0x10u /* i: nothing about it changes */
#define LFS_INODE_APPEND 0x20u    /* a: data only added at the end */
#define LFS_INODE_NODUMP 0x40u    /* d: kept for backup tools, no effect here */
#define LFS_INODE_NOATIME 0x80u   /* A: kept; LogFS never sets atime on a read */
#define LFS_INODE_ATTRS 0xf8u     /* all of them */
#define LFS_ATTRS_VERSION 6u      /* the first format that keeps them */
struct lfs_inode {
    uint64_t ino;
    uint32_t mode, uid, gid, nlink, flags;
    uint64_t size;
    int64_t atime, mtime, ctime; /* ns since the epoch */
    uint64_t generation;
    uint8_t height;              /* of the tree under `indirect`, 0..5 */
    lfs_ptr direct[LFS_NDIRECT];
    lfs_ptr indirect;
    uint64_t rdev;               /* a device file's device number */
    uint64_t xattr;              /* the inode holding its xattrs, 0 = none */
    uint64_t blocks;             /* level-0 pointers that are not holes (format 6) */
};
/* Encode in the format's inode size (LFS_INODE_BYTES, or
 * LFS_INODE_BYTES_V3 for version 3); returns it.  blocks is written from
 * version 6 on (zero, reserved, before). */
uint32_t lfs_inode_encode(const struct lfs_inode *in, uint8_t *out, uint32_t version);
/* Decode a record of either size (len: the bytes there, the record's own
 * size when it is an inode-file object). */
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
    uint32_t compress;           /* enum lfs_compr writers use (format 5) */
};
void lfs_super_encode(const struct lfs_super *sb, uint8_t out[LFS_SB_SIZE]);
/* 0, or -EINVAL (not a superblock: bad magic or CRC), or -EROFS when only
 * the write version is unknown (mount read-only), -EPROTO for an unknown
 * read version. */
int lfs_super_decode(const uint8_t in[LFS_SB_SIZE], struct lfs_super *sb);

/* An object header (LFS_OBJ_HDR bytes before every payload). */
struct lfs_obj {
    uint8_t type, level;
    uint8_t compr;               /* enum lfs_compr of the payload (DATA only) */
    uint32_t raw_len;            /* compressed: the payload's bytes once
                                    decompressed; 0 when stored raw */
    uint32_t len;                /* payload bytes (as stored) */
    uint32_t payload_crc;
    uint64_t ino, bix, seq;
};
void lfs_obj_encode(const struct lfs_obj *o, uint8_t out[LFS_OBJ_HDR]);
/* 0, or -EINVAL if the bytes are not a valid header. */
int lfs_obj_decode(const uint8_t in[LFS_OBJ_HDR], struct lfs_obj *o);
uint32_t lfs_crc(const void *buf, size_t len);
/* 1 if the n bytes at p all equal v */
int lfs_all_bytes(const uint8_t *p, uint32_t n, uint8_t v);

/* compr.c: payload compression (FORMAT.md 9.1a).  Room the compressor may
 * need for len input bytes (LZO's worst case, above zlib's). */
#define LFS_COMPR_BOUND(len) ((len) + (len) / 16 + 64 + 3)
/* A compressor of one method, kept from block to block (a zlib stream
 * set up once costs far more than the block: docs/compression.md). */
struct lfs_packer;
/* NULL when out of memory (or method is none). */
struct lfs_packer *lfs_packer_new(unsigned method);
void lfs_packer_free(struct lfs_packer *pk);
/* Bytes it holds (zlib's state and window, LZO's work memory). */
size_t lfs_packer_bytes(const struct lfs_packer *pk);
/* Compress in[0..len) into out (cap >= LFS_COMPR_BOUND(len)): the stored
 * length when it is below len, else 0 (store the bytes raw). */
uint32_t lfs_compress(struct lfs_packer *pk, const uint8_t *in, uint32_t len, uint8_t *out,
                      uint32_t cap);
/* Decompress exactly dlen bytes from in[0..clen): 0, or -EIO when the
 * stream is damaged, longer or shorter. */
int lfs_decompress(unsigned method, const uint8_t *in, uint32_t clen, uint8_t *out,
                   uint32_t dlen);
const char *lfs_compr_name(unsigned method); /* "none", "zlib", "lzo"; NULL */

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
#define LFS_ANCHOR_BYTES_OF(inode_bytes) (32 + 2 * (inode_bytes) + 32 + \
    8 * LFS_NAREAS + 4 + 8 * LFS_POOL_MAX + 4 + 8 * LFS_ORPHAN_MAX)
#define LFS_ANCHOR_BYTES LFS_ANCHOR_BYTES_OF(LFS_INODE_BYTES)
#define LFS_ANCHOR_BYTES_V3 LFS_ANCHOR_BYTES_OF(LFS_INODE_BYTES_V3)
/* The record length of a format version (3 or this one). */
uint32_t lfs_anchor_bytes(uint32_t version);
/* Encode in `version`'s layout into a buffer of at least
 * lfs_anchor_bytes(version); returns the length. */
uint32_t lfs_anchor_encode(const struct lfs_anchor *a, uint8_t *out, uint32_t version);
/* 0, or -EINVAL if buf does not hold a valid anchor record of `version`. */
int lfs_anchor_decode(const uint8_t *buf, uint32_t len, struct lfs_anchor *a,
                      uint32_t version);

/* The anchor ring: which block and page the next record goes to. */
struct lfs_ring {
    uint32_t version;    /* the format's: record layout and mirroring */
    uint32_t count;
    uint32_t blocks[LFS_MAX_ANCHOR_BLOCKS];
    uint32_t cur;        /* index into blocks of the block being written */
    uint32_t next_page;  /* next page to program in it; pages_per_block = full */
    int next_erased;     /* the block after it is erased already */
    uint64_t pages, erases; /* programmed and erased since mount */
    uint32_t last_page;  /* page of the newest record, in block cur */
    /* logical blocks left out since mount: a block of one of their
     * mirrors failed a program or erase (bit i: logical block i), and how
     * many are */
    uint32_t unusable, bad;
    /* set by lfs_ring_find: the seq of the record found, and how many ring
     * pages newer than it are programmed but hold no valid record (0 =
     * the newest record programmed is the one found) */
    uint64_t found_seq;
    uint32_t lost;
    /* the worst ECC codeword of the reads that gave the record found, in
     * either mirror (UINT32_MAX: a mirror did not give it) */
    uint32_t found_bits;
};
/* Logical ring blocks (anchor_count, or half of it with two mirrors). */
uint32_t lfs_ring_len(const struct lfs_ring *ring);
/* Which mirror's current block `block` is, or -1 if it is none. */
int lfs_ring_current_mirror(const struct lfs_ring *ring, uint32_t block);
/* Find the newest valid anchor in the ring (a bounded number of reads:
 * anchor_count + log2(pages_per_block) + 2 on a clean ring, at most
 * (anchor_count + 1) * pages_per_block + log2(pages_per_block) when every
 * page is damaged); -ENOENT if there is none.  Sets ring->found_seq and
 * ring->lost (newer records damaged or torn). Leaves the ring ready to write the next
 * record after it if it is a clean unmount's, else into a fresh block. */
int lfs_ring_find(nand_dev *dev, struct lfs_ring *ring, struct lfs_anchor *a);
/* Program the record as the next page of the ring.  erase_ahead: a
 * record that fills its block first erases the next one (commits; not the
 * mount's record, so that a mount never erases).  A ring block that fails
 * a program or an erase is marked bad and its logical block skipped: the
 * record goes to the next one, whole in both mirrors.  -EROFS when no
 * logical block with a good block in every mirror is left. */
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

/* The one conversion from the simulator's codes (enum nand_err, which
 * collide with errno's: NAND_E_ADDR is -2, -ENOENT) to LogFS's: every
 * nand_* result is held in a variable named nrc and passes through one of
 * these before it goes anywhere as an rc.  lfs_errno: a negative errno. */
int lfs_errno(int nrc);
/* A program or erase that failed on a worn block: the caller retires the
 * block (marks it bad, writes elsewhere).  Below -4095, errno's range
 * (Linux's MAX_ERRNO), so no errno equals it; it never reaches a user. */
#define LFS_E_RETIRE (-4096)
/* lfs_errno for a program or erase: LFS_E_RETIRE when the block failed. */
int lfs_flash_rc(int nrc);

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

#endif

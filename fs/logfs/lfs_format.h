/*
 * lfs_format.h -- LogFS on-flash constants (the little-endian accessors are
 * sim/le.h's).
 * docs/FORMAT.md is the normative description; this header must agree.
 */
#ifndef FLASHLAB_LFS_FORMAT_H
#define FLASHLAB_LFS_FORMAT_H

#include "le.h"

#include <stdint.h>
#include <string.h>

#define LFS_SB_MAGIC "FLLOGFS\0"      /* 8 bytes */
#define LFS_ANCHOR_MAGIC 0x52434e41u  /* "ANCR" */
#define LFS_OBJ_MAGIC 0x4a424fu       /* "OBJ" in 24 bits */
#define LFS_READ_VERSION 6u
#define LFS_WRITE_VERSION 6u
/* Format 6 added preallocated blocks (lfs_ptr_prealloc) and the inode's
 * block count.  Format 5 is format 6 without them: this code writes it as
 * it is (never preallocating, the count left zero), so its images stay
 * readable by a format-5 reader. */
#define LFS_PREALLOC_VERSION 6u
#define LFS_COMPR_VERSION 5u
/* Format 4 is format 5 without compressed objects: this code writes it
 * as it is (never compressing, never preallocating), so its images stay
 * readable by a format-4 reader. */
#define LFS_PLAIN_VERSION 4u
/* The oldest format this code reads (read-only): 3, without special
 * files, xattrs and the mirrored anchor ring. */
#define LFS_OLDEST_READ_VERSION 3u

#define LFS_SB_SIZE 256u
#define LFS_MAX_ANCHOR_BLOCKS 16u
#define LFS_OBJ_HDR 48u
#define LFS_NDIRECT 16u
#define LFS_MAX_HEIGHT 5u
/* No file outgrows off_t, whatever the tree could address
 * (lfs_file_max_bytes) */
#define LFS_FILE_BYTES_CAP ((uint64_t)INT64_MAX)
#define LFS_POOL_MAX 32u
#define LFS_ORPHAN_MAX 32u
#define LFS_XATTR_LIST_MAX (1u << 20) /* bytes of one inode's attribute list */
#define LFS_XATTR_VALUE_MAX 65536u

/* Object types */
enum lfs_obj_type {
    LFS_OBJ_DATA = 1,     /* a file's data block (level 0) */
    LFS_OBJ_INDIRECT = 2, /* an indirect block (level 1..5) */
    LFS_OBJ_INODE = 3,    /* an inode: block `ino` of the inode file */
};

/* Compression of a DATA object's payload (object header byte 5, and the
 * superblock's default for writers, format 5). */
enum lfs_compr {
    LFS_COMPR_NONE = 0,
    LFS_COMPR_ZLIB = 1,   /* a zlib stream (RFC 1950), deflate level 3 */
    LFS_COMPR_LZO = 2,    /* LZO1X-1 */
    LFS_COMPR_METHODS = 3,
};

/* Write areas: one open segment each. */
enum lfs_area {
    LFS_AREA_DATA = 0,        /* + level 0..5: file data and indirect */
    LFS_AREA_INODE = 6,       /* + level 0..5: inodes and inode-file indirect */
    LFS_AREA_SEGFILE = 12,    /* the segment file, all levels */
    LFS_AREA_MOVED = 13,      /* file data the cleaner moved (when separating) */
    LFS_NAREAS = 14,
};

/* Well-known inode numbers. */
#define LFS_INO_INODEFILE 0u  /* the master inode (in the anchor) */
#define LFS_INO_SEGFILE 1u    /* the segment file (in the anchor) */
#define LFS_INO_ROOT 2u       /* the root directory */
#define LFS_INO_FIRST_FREE 3u

/* A block pointer: device byte address << 16 | object length. 0 = hole. */
typedef uint64_t lfs_ptr;
#define LFS_MAX_DEVICE_BYTES (1ULL << 48) /* what the address field holds */
/* In RAM only, never on flash: the block exists in the cache and has not
 * been written yet. */
#define LFS_PTR_PENDING ((lfs_ptr)1)
static inline uint64_t lfs_ptr_addr(lfs_ptr p) { return p >> 16; }
static inline uint32_t lfs_ptr_len(lfs_ptr p) { return (uint32_t)(p & 0xffff); }
static inline lfs_ptr lfs_ptr_make(uint64_t addr, uint32_t len)
{
    return addr << 16 | (len & 0xffff);
}
/* A preallocated block (format 6, a regular file's level-0 pointer only):
 * allocated, never written, read as zeros.  Address 0 (the superblock's,
 * never an object's) and the length of a whole raw object, which the
 * anchor's live_bytes counts as if it were one (FORMAT.md section 4). */
static inline lfs_ptr lfs_ptr_prealloc(uint32_t block_size)
{
    return lfs_ptr_make(0, LFS_OBJ_HDR + block_size);
}
/* Address 0 and not LFS_PTR_PENDING: preallocated, or invalid when its
 * length is not lfs_ptr_prealloc's. */
static inline int lfs_ptr_at_zero(lfs_ptr p)
{
    return p > LFS_PTR_PENDING && lfs_ptr_addr(p) == 0;
}

#endif

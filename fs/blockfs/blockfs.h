/*
 * blockfs.h -- a naive in-place block file system on raw NAND (issue 8):
 * the baseline the LWN article warns about.  An ext2-lite layout
 * (superblock, inode table, free-block bitmap, data) on a block device of
 * blk/blk.h: by default the in-place map, where every fs-block write is a
 * read-modify-erase-write of the whole erase block holding it (no wear
 * leveling, no journal, no bad-block handling); or, with dev=ftl, the
 * page-mapped FTL.  docs/blockfs-baseline.md describes the layout and
 * what a power cut loses.
 *
 * Semantics are fs/logfs/logfs.h's through the fsapi table (negative errno, the
 * same stat structs).  Options: block_size (mkfs), inodes (mkfs), cache
 * (0: every block write is an immediate erase-block write-back; 1, the
 * default: one erase block is held dirty in RAM until another is touched
 * or sync/fsync/unmount), dev (inplace or ftl; mkfs, found again at
 * mount) and, with dev=ftl, the FTL's own options.
 */
#ifndef FLASHLAB_BLOCKFS_H
#define FLASHLAB_BLOCKFS_H

#include "blk.h"
#include "fsapi.h"
#include "fscommon.h"

#include <stdint.h>


/* Where things are, in erase blocks of the device. */
struct blockfs_layout {
    uint32_t block_size, blocks_per_eb, pages_per_block; /* pages per fs block */
    uint32_t inodes;
    uint32_t n_ebs;                   /* erase blocks the fs spans */
    uint32_t inode_eb, inode_ebs;     /* the inode table */
    uint32_t bitmap_eb, bitmap_ebs;   /* the free-block bitmap */
    uint32_t data_eb;                 /* data from here to n_ebs */
};
/* Counters since mount. */
struct blockfs_stats {
    uint64_t write_backs;   /* erase-block erase + program-all cycles */
    uint64_t eb_loads;      /* erase blocks read whole for a write */
    uint64_t block_writes;  /* fs-block writes into the erase-block buffer */
    uint64_t pages_lost;    /* reads that found an erased page holding data */
    uint64_t pages_corrupt; /* reads failing ECC or the page CRC */
};
/* fs is what fsapi_blockfs.mount returned. */
void blockfs_get_layout(void *fs, struct blockfs_layout *l);
void blockfs_get_stats(void *fs, struct blockfs_stats *st);
/* "superblock", "inodes", "bitmap", "data" or "unused". */
const char *blockfs_block_role(void *fs, uint32_t eb);

#ifdef BLOCKFS_INTERNAL
/* pagemap.c: the fsapi page map (docs/faults.md) */
int bf_page_map(nand_dev *dev, uint8_t *cls);
extern const char *const bf_page_classes[];
#endif

#ifdef BLOCKFS_INTERNAL
/* ---- internal to fs/blockfs_*.c -------------------------------------- */
#include <stddef.h>

#define BF_MAGIC "BLOCKFS1"
#define BF_VERSION 1u
#define BF_NDIRECT 12u
#define BF_NAME_MAX 255u
_Static_assert(BF_NAME_MAX == FS_NAME_MAX, "the shared walk bounds names");
#define BF_ROOT 1u
#define BF_MAX_LINKS 65000u

/* On flash in host byte order (little-endian everywhere flashlab runs). */
struct bf_super {
    char magic[8];
    uint32_t version, block_size, page_size, pages_per_block;
    uint32_t n_ebs, inodes;
    uint32_t inode_eb, inode_ebs, bitmap_eb, bitmap_ebs, data_eb;
    uint32_t free_blocks, free_inodes, root;
};

struct bf_inode {
    uint32_t mode, nlink, uid, gid;
    uint64_t size;                 /* bytes; a directory: its entries */
    int64_t atime, mtime, ctime;
    uint32_t direct[BF_NDIRECT];   /* fs block numbers, 0 = hole */
    uint32_t ind, dind;            /* single and double indirect */
    uint32_t slots;                /* directory: entry slots in use (high mark) */
    uint32_t parent;               /* directory: its parent */
    uint32_t pad[4];
};
_Static_assert(sizeof(struct bf_inode) == 128, "inode is 128 bytes");

struct bf_dirent {
    uint32_t ino;                  /* 0 = free slot */
    uint8_t type;                  /* mode >> 12 */
    uint8_t len;
    char name[BF_NAME_MAX];
    uint8_t pad[3];
};
_Static_assert(sizeof(struct bf_dirent) == 264, "dirent is 264 bytes");

struct blockfs {
    nand_dev *dev;
    blk_dev *bd;                   /* the block device under the fs */
    uint32_t ps, ppb;              /* device sector, sectors per erase block */
    uint64_t nebs;                 /* erase blocks the device spans */
    struct bf_super sb;
    uint32_t bs, ppfb, bpe;        /* fs block, its pages, fs blocks per eb */
    uint32_t nblocks, data_start;  /* fs blocks; first data block */
    uint32_t inode_start, inode_blocks, bitmap_start, bitmap_blocks;
    uint32_t epb, ptrs;            /* dir entries, pointers per block */
    uint64_t max_blocks;           /* file size limit in blocks */
    struct bf_inode *itab;         /* the whole inode table */
    uint8_t *bitmap;               /* one bit per fs block, 1 = used */
    uint8_t *idirty, *bdirty;      /* per table / bitmap block: to write */
    int sbdirty;
    uint32_t bscan;                /* no free block below this */
    uint32_t *opens;               /* open fds per inode */
    struct fs_fdtab fds;
    uint8_t *scratch;              /* one fs block (superblock writes) */
    int cache;                     /* 0: flush after every block write */
    uint64_t block_writes;         /* fs-block writes since mount */
    struct fsapi_mount_work work;
};

enum { BF_DEV_ANY, BF_DEV_INPLACE, BF_DEV_FTL };
struct bf_opts {
    uint32_t block_size, inodes;
    int cache;
    int dev;                       /* BF_DEV_*: ANY = inplace, at mount the
                                      FTL when no blockfs is found on it */
    char dev_opts[256];            /* the keys blockfs does not know */
};
/* foreign: accept (and collect) keys blockfs does not know */
int bf_parse_opts(const char *s, struct bf_opts *o, int foreign);
int bf_layout(uint32_t ps, uint32_t ppb, uint64_t nebs, uint32_t bs, uint32_t inodes,
              struct bf_super *sb);
void bf_geometry(struct blockfs *fs); /* derived fields from fs->sb */
int64_t bf_now(struct blockfs *fs);

/* the block device (blkio.c): o->dev's, BF_DEV_ANY the in-place map */
int bf_dev_open(nand_dev *dev, const struct bf_opts *o, int mkfs, struct blockfs *fs);
int bf_failed(const struct blockfs *fs); /* a write-back failed: no more writes */
/* fs->sb from the device's first sector: 0, or -EINVAL when it holds no
 * blockfs superblock for the device's geometry (mount.c) */
int bf_read_super(struct blockfs *fs);
int bf_read_block(struct blockfs *fs, uint32_t blk, void *buf);
int bf_write_block(struct blockfs *fs, uint32_t blk, const void *buf);
int bf_cache_flush(struct blockfs *fs);

/* metadata in RAM (meta.c) */
int bf_valid_block(const struct blockfs *fs, uint32_t b);
int bf_balloc(struct blockfs *fs, uint32_t *b);
void bf_bfree(struct blockfs *fs, uint32_t b);
int bf_ialloc(struct blockfs *fs, uint32_t mode, uint32_t *ino);
int bf_ifree(struct blockfs *fs, uint32_t ino);
void bf_idirty(struct blockfs *fs, uint32_t ino);
int bf_meta_flush(struct blockfs *fs);
int bf_op_end(struct blockfs *fs, int rc);
int bf_release(struct blockfs *fs, uint32_t ino); /* free if unlinked, unopened */

/* file data (map.c, data.c) */
int bf_bmap(struct blockfs *fs, uint32_t ino, uint64_t lblk, int alloc,
            uint32_t *out, int *fresh);
int bf_needs(struct blockfs *fs, uint32_t ino, uint64_t first, uint64_t last,
             uint64_t *n);
int bf_free_range(struct blockfs *fs, uint32_t ino, uint64_t first, uint64_t last);
int64_t bf_file_pread(struct blockfs *fs, uint32_t ino, void *buf, uint64_t len,
                      uint64_t off);
/* The largest file (truncate past it is -EFBIG, a write crossing it is
 * short). */
uint64_t bf_max_bytes(const struct blockfs *fs);
int64_t bf_file_pwrite(struct blockfs *fs, uint32_t ino, const void *buf,
                       uint64_t len, uint64_t off);
int bf_file_truncate(struct blockfs *fs, uint32_t ino, uint64_t size);
int bf_file_punch(struct blockfs *fs, uint32_t ino, uint64_t off, uint64_t len);

/* directories (dir.c) */
int bf_dir_lookup(struct blockfs *fs, uint32_t dir, const char *name, size_t len,
                  uint32_t *ino, uint32_t *slot);
int bf_dir_add(struct blockfs *fs, uint32_t dir, const char *name, size_t len,
               uint32_t ino, uint32_t mode);
int bf_dir_remove(struct blockfs *fs, uint32_t dir, uint32_t slot);
int bf_dir_set(struct blockfs *fs, uint32_t dir, uint32_t slot, uint32_t ino,
               uint32_t mode);
int bf_dir_iterate(struct blockfs *fs, uint32_t dir, uint64_t *cookie,
                   fs_dir_fn fn, void *ctx);

/* paths (path.c) */
struct bf_path {
    uint32_t dir, ino, slot;       /* ino 0: the last component is absent */
    size_t len;                    /* 0: the path is the root */
    char name[BF_NAME_MAX + 1];
};
int bf_resolve(struct blockfs *fs, const char *path, int follow, struct bf_path *r);
int bf_create(struct blockfs *fs, struct bf_path *r, uint32_t mode, uint32_t *ino);

/* entry points (file.c, ns.c, mount.c) */
int bf_mkfs(nand_dev *dev, const char *options);
int bf_mount(nand_dev *dev, const char *options, void **out);
int bf_unmount(void *fs);
int bf_sync(void *fs);
int bf_open(void *fs, const char *path, int flags, uint32_t mode);
int bf_close(void *fs, int fd);
int64_t bf_pread(void *fs, int fd, void *buf, uint64_t len, uint64_t off);
int64_t bf_pwrite(void *fs, int fd, const void *buf, uint64_t len, uint64_t off);
int bf_ftruncate(void *fs, int fd, uint64_t size);
int bf_punch(void *fs, int fd, uint64_t off, uint64_t len);
int bf_fsync(void *fs, int fd);
int bf_stat(void *fs, const char *path, struct fs_stat *st);
int bf_lstat(void *fs, const char *path, struct fs_stat *st);
int bf_fstat(void *fs, int fd, struct fs_stat *st);
int bf_mkdir(void *fs, const char *path, uint32_t mode);
int bf_rmdir(void *fs, const char *path);
int bf_unlink(void *fs, const char *path);
int bf_rename(void *fs, const char *from, const char *to);
int bf_link(void *fs, const char *existing, const char *newpath);
int bf_symlink(void *fs, const char *target, const char *linkpath);
int64_t bf_readlink(void *fs, const char *path, char *buf, uint64_t size);
int bf_readdir(void *fs, const char *path, uint64_t *cookie, fs_dir_fn fn, void *ctx);
int bf_statfs(void *fs, struct fs_statfs *st);
uint64_t bf_mem_bytes(void *fs);
void bf_mount_work(void *fs, struct fsapi_mount_work *w);
#endif /* BLOCKFS_INTERNAL */

#endif

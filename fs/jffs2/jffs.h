/*
 * jffs.h -- JFFS2 as Linux writes it on NAND (the mount-time baseline,
 * docs/jffs2-baseline.md), in two variants behind fsapi:
 * "jffs2-scan" (mount reads every node of every used erase block) and
 * "jffs2-summary" (a summary node closes each erase block; mount reads
 * only those, and scans blocks without one).
 *
 * The first part is public; the rest is shared by fs/jffs_*.c only.
 */
#ifndef FLASHLAB_JFFS_H
#define FLASHLAB_JFFS_H

#include "fsapi.h"
#include "fscommon.h"
#include "le.h"
#include "fstypes.h"
#include "nand.h"

#include <stdint.h>

struct jffs_options {
    int summary;             /* 1: write and use erase-block summaries */
    uint32_t reserve_blocks; /* free blocks kept back for the GC (4) */
    int compr;               /* JFFS_COMPR_* new data nodes try (LZO, as Linux) */
    int compr_set;           /* compress= was given */
};
/* "reserve=N,compress=none|zlib|rtime|lzo"; 0 or -EINVAL. */
int jffs_options_parse(struct jffs_options *o, const char *list);

/* ======================= internal ======================================= */

/* ---- on-flash format: Linux's JFFS2 (include/uapi/linux/jffs2.h,
 * fs/jffs2/summary.h), little-endian, nodes 4-byte aligned;
 * docs/jffs2-baseline.md */
#define JFFS_MAGIC 0x1985u
#define JFFS_FEATURE_INCOMPAT 0xc000u
#define JFFS_NODE_ACCURATE 0x2000u
#define JFFS_T_DIRENT 0xE001u      /* INCOMPAT | ACCURATE | 1 */
#define JFFS_T_INODE 0xE002u       /* INCOMPAT | ACCURATE | 2 */
#define JFFS_T_CLEANMARKER 0x2003u /* RWCOMPAT_DELETE | ACCURATE | 3 */
#define JFFS_T_PADDING 0x2004u
#define JFFS_T_SUMMARY 0x2006u
#define JFFS_SUM_MAGIC 0x02851885u
#define JFFS_INODE_HDR 68u  /* struct jffs2_raw_inode; the data follows */
#define JFFS_DIRENT_HDR 40u /* struct jffs2_raw_dirent; the name follows */
#define JFFS_SUM_HDR 32u    /* struct jffs2_raw_summary; entries follow */
#define JFFS_SUM_TAIL 8u    /* struct jffs2_sum_marker: the block's last bytes */
#define JFFS_SUM_INODE 18u  /* struct jffs2_sum_inode_flash (packed) */
#define JFFS_SUM_DIRENT 24u /* struct jffs2_sum_dirent_flash, then the name */
#define JFFS_CLEANMARKER_LEN 8u /* magic, type, totlen = 8: in the OOB */
enum { /* jffs2_raw_inode.compr */
    JFFS_COMPR_NONE = 0, JFFS_COMPR_ZERO = 1, JFFS_COMPR_RTIME = 2,
    JFFS_COMPR_ZLIB = 6, JFFS_COMPR_LZO = 7,
};
/* The largest file: JFFS2's sizes and offsets are 32 bits (truncate past
 * it is -EFBIG, a write crossing it is short) */
#define JFFS_MAX_BYTES 0xffffffffull
#define JFFS_DATA_MAX 4096u /* data per node; nodes never cross a 4 KiB file page */
#define JFFS_CDATA_MAX (JFFS_DATA_MAX + JFFS_DATA_MAX / 16 + 128) /* worst compressed */
#define JFFS_NAME_MAX 255u
_Static_assert(JFFS_NAME_MAX == FS_NAME_MAX, "the shared walk bounds names");
#define JFFS_INO_ROOT 1u
/* Inodes are kept in an array by number: larger numbers (which neither
 * mkfs.jffs2 nor Linux hand out before 2^24 files) make a node invalid. */
#define JFFS_INO_MAX (1u << 24)
#define JFFS_VERSION_MAX 0xffffffffull /* versions are 32 bits on flash */
#define JFFS_ALIGN(x) (((x) + 3u) & ~3u)
#define JFFS_NS 1000000000ll /* times are seconds on flash, ns in RAM */

/* JFFS2's CRC: crc32_le seeded with 0 and not inverted (Linux crc32(0,..)) */
uint32_t jffs_crc(const void *p, size_t n);

struct jffs_raw_inode {
    uint32_t ino, version, mode, isize, doff, csize, dsize, dcrc;
    uint16_t uid, gid, flags;
    uint8_t compr, usercompr;
    int64_t atime, mtime, ctime; /* ns */
};
struct jffs_raw_dirent {
    uint32_t pino, ino, version; /* ino 0: a deletion dirent */
    int64_t mctime;              /* ns */
    uint8_t type, nsize;         /* type: mode >> 12 (DT_*) */
    uint32_t name_crc;
    char name[JFFS_NAME_MAX + 1];
};

/* node.c: encode (CRCs filled in) and decode.  decode checks the
 * header and node CRCs unless trusted; 0 or -EINVAL. */
void jffs_encode_inode(uint8_t *buf, const struct jffs_raw_inode *ri, const void *cdata);
uint32_t jffs_encode_dirent(uint8_t *buf, const struct jffs_raw_dirent *rd);
/* the type and total length of the header at p, after checking magic and
 * header CRC (when !trusted); 0 or -EINVAL */
int jffs_decode_hdr(const uint8_t *p, int trusted, uint16_t *type, uint32_t *totlen);
int jffs_decode_inode(const uint8_t *p, int trusted, struct jffs_raw_inode *ri);
int jffs_decode_dirent(const uint8_t *p, uint32_t avail, int trusted,
                       struct jffs_raw_dirent *rd);
/* the 8 bytes of the NAND cleanmarker (jffs2_write_nand_cleanmarker) */
void jffs_cleanmarker(uint8_t out[JFFS_CLEANMARKER_LEN]);

/* compr.c: data compression as Linux's fs/jffs2/compr_*.c.  compress
 * gives the compressed length, 0 when it would not save space (the node
 * is then stored as JFFS_COMPR_NONE); decompress gives exactly dlen bytes
 * or -EINVAL (unknown method, damaged data). */
uint32_t jffs_compress(int compr, const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap);
int jffs_decompress(int compr, const uint8_t *in, uint32_t clen, uint8_t *out, uint32_t dlen);
const char *jffs_compr_name(int compr); /* NULL: not one we know */
int jffs_compr_parse(const char *s);    /* JFFS_COMPR_* or -EINVAL */

/* ---- in RAM ---------------------------------------------------------- */

/* A node on flash that is live, on its erase block's list (JFFS2's raw
 * node ref): the GC moves what is on the list and drops the rest. */
struct jffs_ref {
    struct jffs_ref *next, *prev;
    uint64_t addr;
    uint32_t len; /* aligned total length */
};
/* An inode node: its data range, referenced by fragments. */
/* lazy: known from a summary only (ino, version, place); its header is
 * read when the inode is first used (jffs_inode_get), as JFFS2's iget
 * reads an inode's nodes. */
struct jffs_node {
    struct jffs_ref r;
    uint64_t version, doff;
    uint32_t dsize, csize, dcrc, nfrags;
    uint8_t hole, compr, lazy;
};
struct jffs_frag {
    uint64_t off, len;
    struct jffs_node *n;
};
/* A directory entry: the newest dirent for its name.  ino 0 is a deletion
 * kept while `pending` older dirents of the name are still on flash;
 * hidden: a dirent mount could not attach (dangling, or a second link to
 * a directory after a cut mid-rename), kept so that versions stay right. */
struct jffs_dent {
    struct jffs_ref r;
    uint64_t version;
    uint32_t ino, pending;
    uint8_t type, nlen, hidden;
    char *name;
};
struct jffs_inode {
    uint32_t ino, mode, uid, gid, nlink, opens;
    uint64_t size;
    int64_t atime, mtime, ctime;
    struct jffs_node *meta; /* the newest inode node: carries the attributes */
    struct jffs_frag *frags;
    uint32_t nfrag, capfrag;
    struct jffs_dent **ents; /* directories */
    uint32_t nent, capent, nreal;
    struct jffs_node **lazy; /* nodes not read yet, in version order */
    uint32_t nlazy, caplazy;
    uint64_t best; /* mount: newest dirent naming this directory */
    uint8_t reached;
};

enum { JB_FREE, JB_UNKNOWN, JB_USED, JB_HEAD, JB_BAD }; /* JB_UNKNOWN: erase first */
struct jffs_block {
    struct jffs_ref list; /* sentinel of the live refs */
    uint32_t live;
    uint8_t state, has_sum;
};
/* the cleanmarker's place in the OOB: Linux's MTD_OPS_AUTO_OOB offset 0,
 * the first free byte of the default layout; 0: none (too small an OOB, or
 * a part that allows one program per page) */
uint32_t jffs_cleanmarker_col(const struct nand_config *c);
/* pagemap.c: the fsapi page map (docs/faults.md) */
int jffs_page_map(nand_dev *dev, uint8_t *cls);
extern const char *const jffs_page_classes[];

struct jffs {
    nand_dev *dev;
    struct jffs_options opt;
    uint32_t ps, ppb, bs, nblocks;
    struct jffs_block *blk;
    uint32_t nbad;        /* blocks in state JB_BAD (jffs_set_bad) */
    uint32_t nfree, rover;
    /* the write head: the open erase block, its image in RAM */
    int64_t head;
    uint32_t hoff, hprog; /* next byte; bytes programmed (page multiple) */
    uint8_t *himg;
    uint8_t *sum; /* summary entries of the head block */
    uint32_t sumlen, sumcap, sumcount;
    int in_gc;
    /* inodes by number */
    struct jffs_inode **inodes;
    uint32_t capino, next_ino;
    uint64_t next_version, live_bytes;
    uint64_t live_sum; /* what the live nodes' summary entries take */
    int deleting;      /* the op frees space: it may use half the reserve */
    struct fs_fdtab fds; /* counted in mem */
    uint8_t *page;  /* a page-sized scratch buffer */
    /* one decoded node's data, to spare rereads of a node */
    uint8_t *rbuf, *cbuf; /* rbuf: decompressed; cbuf: as on flash */
    const struct jffs_node *rnode;
    uint64_t raddr, rversion;
    uint64_t mem;
    struct fsapi_mount_work work;
    uint64_t gc_rounds, gc_bytes;
};

/* map.c: memory, refs, inodes, fragments, directory tables */
void *jffs_alloc(struct jffs *fs, size_t n);
void jffs_free(struct jffs *fs, void *p, size_t n);
int jffs_grow(struct jffs *fs, void **arr, uint32_t *cap, uint32_t need, size_t elem);
void jffs_ref_add(struct jffs *fs, struct jffs_ref *r, uint64_t addr, uint32_t len);
void jffs_ref_drop(struct jffs *fs, struct jffs_ref *r);
/* the inode, its lazy nodes read first */
struct jffs_inode *jffs_inode_get(struct jffs *fs, uint32_t ino);
struct jffs_inode *jffs_inode_peek(struct jffs *fs, uint32_t ino); /* as it is */
/* read the headers of in's lazy nodes and replay them; 0 or -EIO */
int jffs_inode_load(struct jffs *fs, struct jffs_inode *in);
/* replay one inode node (version order) into in */
int jffs_replay_node(struct jffs *fs, struct jffs_inode *in, struct jffs_node *n,
                     const struct jffs_raw_inode *ri);
struct jffs_inode *jffs_inode_make(struct jffs *fs, uint32_t ino);
void jffs_inode_free(struct jffs *fs, struct jffs_inode *in);
struct jffs_node *jffs_node_new(struct jffs *fs, uint64_t addr, uint32_t len,
                                const struct jffs_raw_inode *ri);
/* the newest inode node becomes in's meta (attributes) */
void jffs_set_meta(struct jffs *fs, struct jffs_inode *in, struct jffs_node *n);
int jffs_frag_insert(struct jffs *fs, struct jffs_inode *in, struct jffs_node *n);
void jffs_frag_truncate(struct jffs *fs, struct jffs_inode *in, uint64_t size);
struct jffs_dent *jffs_dir_find(struct jffs_inode *dir, const char *name, size_t len);
/* put d (a newer dirent) in dir's table, superseding an older one */
int jffs_dir_put(struct jffs *fs, struct jffs_inode *dir, struct jffs_dent *d);
void jffs_dir_remove(struct jffs *fs, struct jffs_inode *dir, struct jffs_dent *d);
void jffs_dent_free(struct jffs *fs, struct jffs_dent *d);
struct jffs_dent *jffs_dent_new(struct jffs *fs, uint64_t addr, uint32_t len,
                                const struct jffs_raw_dirent *rd);

/* wbuf.c: the write head */
int jffs_write_node(struct jffs *fs, const uint8_t *node, uint32_t len, uint64_t *addr);
int jffs_flush(struct jffs *fs);     /* program the partial page */
int jffs_close_head(struct jffs *fs); /* summary (if any), block done */
int jffs_read_bytes(struct jffs *fs, uint64_t addr, void *buf, uint32_t len);
int jffs_erase_block(struct jffs *fs, uint32_t b);
int jffs_write_cleanmarker(struct jffs *fs, uint32_t b); /* after an erase */
/* the live dirents in the block image `img` (len bytes) that are older than
 * their name's entry are about to leave flash: lower the pendings */
void jffs_forget_dirents(struct jffs *fs, const uint8_t *img, uint32_t len);

/* sum.c: erase-block summaries */
uint32_t jffs_sum_entry_len(const uint8_t *node); /* 0: no entry for it */
void jffs_sum_record(struct jffs *fs, const uint8_t *node, uint32_t off);
uint32_t jffs_sum_bytes(const struct jffs *fs, uint32_t extra);
void jffs_sum_write(struct jffs *fs); /* into himg, from hoff to the end */

/* scan.c / mount.c: mount */
struct jffs_rec {
    uint8_t kind; /* 1 inode, 2 dirent, 3 inode from a summary (lazy) */
    uint64_t addr;
    uint32_t len;
    struct jffs_raw_inode ri;
    struct jffs_raw_dirent *rd;
};
struct jffs_recs {
    struct jffs_rec *v;
    uint32_t n, cap;
};
int jffs_rec_add(struct jffs *fs, struct jffs_recs *rs, const uint8_t *p, uint64_t addr,
                 uint32_t len, int trusted);
int jffs_read_cleanmarker(struct jffs *fs, uint32_t b); /* 1 found, 0 not, -EIO */
int jffs_scan_block(struct jffs *fs, uint32_t b, int cm, struct jffs_recs *rs);
int jffs_sum_read(struct jffs *fs, uint32_t b, struct jffs_recs *rs); /* 1 used, 0 none */
int jffs_build(struct jffs *fs, struct jffs_recs *rs);
int jffs_mkfs(nand_dev *dev, const struct jffs_options *o);
int jffs_mount(nand_dev *dev, const struct jffs_options *o, struct jffs **out);
int jffs_unmount(struct jffs *fs);
int jffs_sync(struct jffs *fs);

/* gc.c */
int jffs_gc_one(struct jffs *fs);
int jffs_make_room(struct jffs *fs); /* free blocks above the reserve */
int jffs_space_check(struct jffs *fs, uint64_t bytes);
/* Block b is bad from now on (counted, so that the good ones are known
 * without a pass over all blocks). */
void jffs_set_bad(struct jffs *fs, uint32_t b);
uint32_t jffs_good_blocks(const struct jffs *fs);

/* file.c */
int jffs_write_inode(struct jffs *fs, struct jffs_inode *in, uint64_t doff,
                     const void *data, uint64_t dsize, int hole);
int64_t jffs_file_pread(struct jffs *fs, struct jffs_inode *in, void *buf,
                        uint64_t len, uint64_t off);
int64_t jffs_file_pwrite(struct jffs *fs, struct jffs_inode *in, const void *buf,
                         uint64_t len, uint64_t off);
int jffs_file_truncate(struct jffs *fs, struct jffs_inode *in, uint64_t size);
int jffs_file_punch(struct jffs *fs, struct jffs_inode *in, uint64_t off, uint64_t len);
int64_t jffs_now(struct jffs *fs);

/* ns.c: names */
struct jffs_path {
    struct jffs_inode *dir;
    char name[JFFS_NAME_MAX + 1];
    size_t len;    /* 0: the root itself */
    uint32_t ino;  /* 0: no such entry */
};
int jffs_resolve(struct jffs *fs, const char *path, int follow, struct jffs_path *r);
int jffs_dirent_write(struct jffs *fs, struct jffs_inode *dir, const char *name,
                      size_t len, uint32_t ino, uint32_t mode);
int jffs_create(struct jffs *fs, struct jffs_path *r, uint32_t mode,
                const void *data, uint32_t dlen, struct jffs_inode **out);
/* drop one link of in (named name in dir); frees it when unreferenced */
int jffs_drop_link(struct jffs *fs, struct jffs_inode *dir, const char *name,
                   size_t len, struct jffs_inode *in);
void jffs_inode_put(struct jffs *fs, struct jffs_inode *in); /* free if dead */
int jffs_mkdir(struct jffs *fs, const char *path, uint32_t mode);
int jffs_rmdir(struct jffs *fs, const char *path);
int jffs_unlink(struct jffs *fs, const char *path);
int jffs_rename(struct jffs *fs, const char *from, const char *to);
int jffs_link(struct jffs *fs, const char *from, const char *to);
int jffs_symlink(struct jffs *fs, const char *target, const char *path);
int64_t jffs_readlink(struct jffs *fs, const char *path, char *buf, uint64_t size);
int jffs_readdir(struct jffs *fs, const char *path, uint64_t *cookie, fs_dir_fn fn,
                 void *ctx);

#endif

/*
 * ftl.h -- the page-mapped FTL's internals (blk/ftl_*.c).  docs/ftl.md
 * describes the design and the on-flash format.
 */
#ifndef FLASHLAB_FTL_H
#define FLASHLAB_FTL_H

#include "blk.h"
#include "blkdev.h"
#include "gc_policy.h"
#include "nand.h"

#include <stddef.h>
#include <stdint.h>

/* ---- on-flash format (ftl_format.c; docs/ftl.md "On-flash format") ---- */
#define FTL_MAGIC "FLFTL001"
#define FTL_VERSION 2            /* 2: two superblock copies; 1 still mounts */
#define FTL_OOB_VERSION 1
#define FTL_NONE 0xFFFFFFFFu      /* an unmapped sector, an unused slot */
#define FTL_TOMB 0x80000000u      /* slot flag: the sector was trimmed */
#define FTL_DAMAGED 0x40000000u   /* slot flag (on flash only): GC moved a
                                     damaged sector; its data is zeros */
#define FTL_SECTOR_MASK 0x3FFFFFFFu /* a slot's sector number, flags off */
#define FTL_OOB_FIXED 16          /* bytes before the slots' sector numbers */
#define FTL_OPTS_MAX 256

/* The superblock: page 0 of the first and of the last good block. */
struct ftl_super {
    uint32_t version;         /* FTL_VERSION, or 1: one copy */
    uint32_t copy[2];         /* the blocks of its copies (version 1: the
                                 one it was found in, and FTL_NONE) */
    uint32_t sector_size;
    uint32_t op_ppm;          /* over-provisioning, parts per million */
    uint64_t sectors;         /* logical sectors */
    char options[FTL_OPTS_MAX]; /* the format's options, NUL-terminated */
};

/* A page's spare area, decoded. */
struct ftl_oob {
    uint64_t seq;
    uint32_t erases;          /* the block's erase count when it was erased */
    uint32_t lsn[16];         /* per slot: sector | FTL_TOMB or FTL_DAMAGED,
                                 or FTL_NONE */
};
#define FTL_SLOTS_MAX 16

/* bytes of spare a page with spp slots needs */
uint32_t ftl_oob_bytes(uint32_t spp);
void ftl_oob_encode(uint8_t *oob, uint32_t oob_size, uint32_t spp, const struct ftl_oob *o,
                    const void *data, uint32_t page_size);
/* 1 when oob holds a valid FTL spare area for data (CRC over both), 0 not;
 * data NULL: the fields alone, no CRC (a page known damaged, not torn) */
int ftl_oob_decode(const uint8_t *oob, uint32_t spp, const void *data, uint32_t page_size,
                   struct ftl_oob *o);
/* a version-FTL_VERSION superblock page; decode takes version 1 too (its
 * copy[] left to the caller) */
void ftl_super_encode(uint8_t *page, uint32_t page_size, const struct ftl_super *s);
int ftl_super_decode(const uint8_t *page, uint32_t page_size, struct ftl_super *s);

/* ---- options (ftl_opts.c) ---- */
struct ftl_opts {
    uint32_t sector;          /* bytes; 0: 4096 or the page size if smaller */
    double op;                /* over-provisioning ratio */
    int op_set;               /* op given (else: at least what GC needs) */
    const struct gc_policy *policy;
    uint32_t gc_choices, gc_window;
    double gc_threshold;      /* GC when a plane's free blocks < this share */
    int hotcold;              /* GC writes in a frontier of their own */
    uint32_t wl_threshold;    /* static WL when erase spread exceeds it (0 off) */
    int pair_safe;            /* skip paired pages at flush and before erase */
    uint64_t cache_bytes;     /* the write cache (ftl_cache.c), 0: none */
    uint64_t seed;
};
/* parse s over the values already in o (ftl_opts_default first) */
void ftl_opts_default(struct ftl_opts *o);
int ftl_opts_parse(const char *s, struct ftl_opts *o);

/* ---- the mounted device ---- */
enum ftl_bstate { FTL_B_FREE, FTL_B_OPEN, FTL_B_CLOSED, FTL_B_BAD, FTL_B_SUPER };

struct ftl_block {
    uint32_t valid;           /* valid slots (data and tombstones) */
    uint32_t erases;
    uint64_t stamp;           /* seq of its last page */
    uint32_t wp;              /* next page to program */
    uint32_t settled;         /* pages below it are safe from pairing */
    uint8_t state;
};

/* An open block being filled: host writes or GC moves of one plane. */
struct ftl_front {
    int64_t block;            /* -1: none */
    uint32_t staged;          /* slots filled in buf, not yet programmed */
    uint8_t *buf;             /* one page, then its spare area */
    uint32_t lsn[FTL_SLOTS_MAX]; /* as on flash: with FTL_DAMAGED */
};

struct ftl_plane {
    uint32_t *free;           /* free blocks */
    uint32_t nfree, good;     /* free now; good blocks of the plane */
    struct ftl_front host, gc;
    uint64_t gc_round_seed;
};

struct ftl_dev {
    struct blk_dev base;      /* first: a blk_dev * points here */
    nand_dev *dev;
    struct ftl_opts o;
    struct ftl_super sb;
    uint32_t ps, ppb, oob, spp, ss; /* page, pages/block, spare, slots/page, sector */
    uint32_t nblocks, nplanes, ppd, bpp;
    uint64_t nslots;          /* physical slots */
    uint32_t *l2p;            /* sector -> slot | FTL_TOMB, or FTL_NONE */
    uint32_t *p2l;            /* slot -> sector | FTL_TOMB, or FTL_NONE */
    uint16_t *stale;          /* per sector: stale copies on flash (saturating) */
    struct ftl_block *blk;
    struct ftl_plane *plane;
    uint32_t gc_threshold;    /* free blocks per plane under which GC runs */
    uint64_t seq;             /* next page's sequence number */
    uint8_t *pbuf, *obuf;     /* a page and a spare area of scratch */
    struct blk_stats st;
    blk_gc_observer gc_fn;
    void *gc_ctx;
    int in_gc;
    struct ftl_cache *cache;  /* the write cache, NULL: none */
    uint8_t *damaged;         /* bit per sector: its newest copy was on a page
                                 that failed its CRC at mount and no cut
                                 explains (NULL: none found); the host's next
                                 write or trim of the sector clears it; GC
                                 moves it with FTL_DAMAGED, so that later
                                 mounts find it again */
};

/* slots <-> addresses */
static inline uint32_t ftl_slot(const struct ftl_dev *d, uint32_t b, uint32_t p, uint32_t s)
{
    return (b * d->ppb + p) * d->spp + s;
}
static inline uint32_t ftl_slot_block(const struct ftl_dev *d, uint32_t slot)
{
    return slot / d->spp / d->ppb;
}
static inline uint32_t ftl_slot_page(const struct ftl_dev *d, uint32_t slot)
{
    return slot / d->spp % d->ppb;
}
uint32_t ftl_plane_of_block(const struct ftl_dev *d, uint32_t b);
static inline uint32_t ftl_plane_of_sector(const struct ftl_dev *d, uint64_t lsn)
{
    return (uint32_t)(lsn % d->nplanes);
}

/* ftl_alloc.c: free blocks, frontiers, pairing */
int ftl_take_free(struct ftl_dev *d, uint32_t plane, uint32_t *b);
void ftl_put_free(struct ftl_dev *d, uint32_t b);
/* make every page of b programmed so far safe from a torn paired program */
int ftl_settle(struct ftl_dev *d, uint32_t b);
/* the next page of front (opening a block when needed): 0 or -ENOSPC */
int ftl_front_page(struct ftl_dev *d, uint32_t plane, struct ftl_front *f, uint32_t *b,
                   uint32_t *p);
/* program front's staged slots (padding the page); 0 or a negative errno */
int ftl_front_commit(struct ftl_dev *d, uint32_t plane, struct ftl_front *f, int is_gc);
/* add one slot (data NULL: a tombstone, or a damaged sector's zeros with
 * FTL_DAMAGED in lsn) to front, committing when full */
int ftl_front_add(struct ftl_dev *d, uint32_t plane, struct ftl_front *f, uint32_t lsn,
                  const void *data, int is_gc);
/* slot's data, from a staged buffer or flash, into buf */
int ftl_read_slot(struct ftl_dev *d, uint32_t slot, void *buf);
/* point sector lsn (| FTL_TOMB) at slot, retiring its old copy */
void ftl_map(struct ftl_dev *d, uint32_t lsn, uint32_t slot);
/* wait for the queue and fold nand errors into errno */
int ftl_errno(int nand_rc);

/* ftl_gc.c */
int ftl_gc_plane(struct ftl_dev *d, uint32_t plane);
/* move every valid slot out of b and erase it (or retire it when bad) */
int ftl_clean_block(struct ftl_dev *d, uint32_t b, int wear_leveling);
/* b failed a program or erase: move what is valid, mark it bad */
int ftl_retire(struct ftl_dev *d, uint32_t b);

/* ftl_mount.c */
/* 1: a valid copy of the superblock found (s), 0: none, <0: cannot read */
int ftl_find_super(nand_dev *dev, struct ftl_super *s);


/* ftl_io.c: the device's calls (blk.h's semantics); free everything d holds */
int ftl_read(struct ftl_dev *d, uint64_t first, uint32_t count, void *buf);
int ftl_write(struct ftl_dev *d, uint64_t first, uint32_t count, const void *buf);
int ftl_trim(struct ftl_dev *d, uint64_t first, uint64_t count);
int ftl_flush(struct ftl_dev *d);
void ftl_free(struct ftl_dev *d);

/* ftl_cache.c: the write cache in front of ftl_io.c's calls (d->cache) */
int ftl_cache_init(struct ftl_dev *d); /* d->o.cache_bytes of it, if any */
void ftl_cache_free(struct ftl_dev *d);
uint64_t ftl_cache_mem_bytes(const struct ftl_dev *d);
int ftl_cache_read(struct ftl_dev *d, uint64_t first, uint32_t count, void *buf);
int ftl_cache_write(struct ftl_dev *d, uint64_t first, uint32_t count, const void *buf);
int ftl_cache_trim(struct ftl_dev *d, uint64_t first, uint64_t count);
int ftl_cache_flush(struct ftl_dev *d);

/* ftl_dev.c: d as a blk_dev (its table of calls); a host read, -EIO for a
 * sector whose newest copy is on a damaged page; free what ftl_io.c's
 * ftl_free does not (the cache, the damaged pages) */
blk_dev *ftl_dev_init(struct ftl_dev *d);
int ftl_read_host(struct ftl_dev *d, uint64_t first, uint32_t count, void *buf);
void ftl_dev_free(struct ftl_dev *d);

#endif

/*
 * blk.h -- the block layer: a block device of fixed-size logical sectors
 * over the NAND simulator (docs/ftl.md).  Below fs/, above gc/ and sim/.
 *
 * Two devices, one interface (the calls under "any block device"):
 *   - the FTL (blk/ftl*.c): a page-mapped flash translation layer with
 *     over-provisioning, per-plane allocation and garbage collection by
 *     gc/'s policies, wear leveling, bad-block handling and a mapping
 *     rebuilt from the pages' spare areas after any power cut;
 *   - the in-place map (blk/inplace*.c): sector n is page n of the
 *     device, and a write is a read-modify-erase-write of its whole erase
 *     block -- the naive map blockfs is the baseline of.
 *
 * Semantics of the FTL (the contract the tests check):
 *   - a sector read returns what the last write or trim of it left (zeros
 *     for a sector never written or trimmed);
 *   - blk_flush: every sector written or trimmed before a flush that
 *     returned 0 reads back so after any power cut;
 *   - a sector written after the last flush reads after a cut either its
 *     old or its new content: the unit of atomicity is one sector.
 * The in-place map keeps the first rule and flushes as asked, but a cut
 * during the write-back of an erase block loses every sector of it,
 * flushed or not: those sectors then read -EIO (erased or torn pages are
 * detected, never returned as data), and so does a sector never written
 * (an erased page).  Errors are negative errno values.
 */
#ifndef FLASHLAB_BLK_H
#define FLASHLAB_BLK_H

#include "nand.h"

#include <stddef.h>
#include <stdint.h>

/* What the device did since it was opened (or blk_reset_stats). */
struct blk_stats {
    uint64_t host_sectors_written, host_sectors_read, host_sectors_trimmed;
    uint64_t host_bytes_written;   /* as asked by the host (blk_write) */
    uint64_t flushes;
    uint64_t pages_host;           /* pages programmed with host data */
    uint64_t pages_gc;             /* pages programmed by GC (moves) */
    uint64_t pages_pad;            /* pages skipped or padded (pairing, flush) */
    uint64_t sectors_moved;        /* valid sectors GC copied */
    uint64_t gc_rounds;            /* victims cleaned */
    uint64_t wl_moves;             /* victims chosen by static wear leveling */
    uint64_t erases;               /* blocks erased */
    uint64_t grown_bad;            /* blocks retired after a failure */
    uint64_t gc_time_ns;           /* simulated time spent in GC */
    uint64_t free_blocks;          /* free blocks now, over every plane */
    uint64_t bad_blocks;           /* factory and grown, now (FTL only) */
    uint64_t mount_pages_read;     /* pages the last mount read */
    uint64_t cache_absorbed;       /* host sector writes that overwrote one
                                      still in the write cache (FTL cache=) */
    /* the in-place map's own (0 on the FTL) */
    uint64_t blocks_loaded;        /* erase blocks read whole for a write */
    uint64_t pages_lost;           /* reads finding erased a page holding data */
    uint64_t pages_corrupt;        /* reads failing ECC or the page CRC */
    uint64_t bytes_checksummed;    /* page bytes whose CRC was checked */
};

/* One victim of the FTL's GC (reported by the observer below). */
struct blk_gc_event {
    uint64_t sim_time_ns;
    uint32_t block;
    uint32_t live_bytes;
    uint64_t duration_ns;
    const char *policy;
    int wear_leveling;
};
typedef void (*blk_gc_observer)(void *ctx, const struct blk_gc_event *ev);

typedef struct blk_dev blk_dev;

/* ---- the FTL -------------------------------------------------------------
 * options: "key=value,..." (blk_ftl_option_help lists them).  Format-time
 * keys (sector, op) are written into the superblock; the others may be
 * given again at open, and override what the format recorded. */
int blk_ftl_check_options(const char *options, char *err, size_t errlen);
/* the i-th option key and its help, NULL past the end */
const char *blk_ftl_option_help(unsigned i, const char **help);
/* Erase dev and write an empty FTL on it. */
int blk_ftl_format(nand_dev *dev, const char *options, char *err, size_t errlen);
/* 1 when dev carries an FTL superblock, 0 when not, <0 when unreadable. */
int blk_ftl_probe(nand_dev *dev);
/* Mount: rebuild the mapping by scanning every page's spare area. */
int blk_ftl_open(nand_dev *dev, const char *options, blk_dev **out, char *err,
                 size_t errlen);

/* What every page of an FTL device holds, for media-fault campaigns:
 * cls[block * pages_per_block + page] an index into blk_ftl_page_classes
 * (superblock, data: the newest copy of some sector or its trim, stale:
 * programmed but superseded, free, bad-block).  Reads only. */
int blk_ftl_page_map(nand_dev *dev, uint8_t *cls);
extern const char *const blk_ftl_page_classes[];

/* ---- the in-place map ---------------------------------------------------
 * Sectors are the device's pages; there is no format (each page carries
 * its CRC in its spare: docs/blockfs-baseline.md).  One erase block is
 * held dirty in RAM until a write to another or a flush writes it back.
 * It takes no options yet (options must be NULL or ""). */
int blk_inplace_open(nand_dev *dev, const char *options, blk_dev **out, char *err,
                     size_t errlen);

/* ---- any block device ----------------------------------------------------- */
/* "ftl" or "inplace" */
const char *blk_kind(const blk_dev *d);
uint32_t blk_sector_size(const blk_dev *d);
uint64_t blk_sectors(const blk_dev *d);
/* count sectors from sector first; 0 or a negative errno */
int blk_read(blk_dev *d, uint64_t first, uint32_t count, void *buf);
int blk_write(blk_dev *d, uint64_t first, uint32_t count, const void *buf);
int blk_trim(blk_dev *d, uint64_t first, uint64_t count);
int blk_flush(blk_dev *d);
void blk_get_stats(const blk_dev *d, struct blk_stats *st);
void blk_reset_stats(blk_dev *d);
void blk_set_gc_observer(blk_dev *d, blk_gc_observer fn, void *ctx);
/* the GC policy's name */
const char *blk_gc_policy(const blk_dev *d);
/* RAM the device holds (map, buffers) */
uint64_t blk_mem_bytes(const blk_dev *d);
/* what erase block b is to the device: "superblock", "data", "free",
 * "bad" (the in-place map: "data" or "bad"); NULL past the end or when
 * the device cannot say */
const char *blk_block_role(const blk_dev *d, uint32_t b);
/* 1 when a failed write-back left the device refusing writes (the
 * in-place map: RAM and flash disagree); 0 on the FTL, which retires a
 * failing block and goes on */
int blk_write_failed(const blk_dev *d);
/* Flush (unless the device lost power) and free d. 0 or the flush's error. */
int blk_close(blk_dev *d);

#endif

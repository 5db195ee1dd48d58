/*
 * inplace.h -- the in-place map's internals (blk/inplace*.c): sector n is
 * page n of the device, and every write goes into a RAM copy of its whole
 * erase block, written back by erasing the block and programming all of
 * its pages again (docs/blockfs-baseline.md).
 */
#ifndef FLASHLAB_INPLACE_H
#define FLASHLAB_INPLACE_H

#include "blkdev.h"

/* a page's spare: 0xFF (the bad-block byte, left alone), 'B', 'F' (as
 * blockfs wrote it before the map moved here: images stay the same), a
 * flag and the CRC-32 of the data */
#define INPLACE_OOB_BYTES 8u

/* a page's verdict, and the flag its spare keeps across a write-back */
enum { INPLACE_PG_OK, INPLACE_PG_ERASED, INPLACE_PG_CORRUPT };

struct inplace_dev {
    struct blk_dev base;           /* first: a blk_dev * points here */
    nand_dev *dev;
    uint32_t ps, ppb, oob, nblocks;
    int failed;                    /* a write-back failed: no more writes */
    int64_t ceb;                   /* the erase block in the buffer, -1 none */
    uint8_t *cdata, *cstate;       /* its pages, and their verdicts */
    int cdirty;
    uint8_t *oobbuf;
    struct blk_stats st;
};

/* inplace_ebuf.c: the erase-block buffer */
int inplace_read_page(struct inplace_dev *d, uint64_t page, uint8_t *data);
int inplace_load(struct inplace_dev *d, uint32_t eb);
int inplace_write_back(struct inplace_dev *d);

#endif

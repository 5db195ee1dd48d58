/*
 * ftl_pagemap.c -- what every page of an FTL device holds, for media-fault
 * campaigns (docs/faults.md): the mount's scan (ftl_mount.c) says which
 * slots hold the newest copy of a sector; nothing is written.
 */
#include "ftl.h"

#include <errno.h>

enum { PM_SUPER, PM_DATA, PM_STALE, PM_FREE, PM_BAD };
const char *const blk_ftl_page_classes[] = {"superblock", "data", "stale", "free", "bad-block",
                                            NULL};

int blk_ftl_page_map(nand_dev *dev, uint8_t *cls)
{
    char err[256];
    blk_dev *bd;
    int rc = blk_ftl_open(dev, "cache=0", &bd, err, sizeof err); /* no RAM for a cache */
    if (rc)
        return rc;
    struct ftl_dev *d = (struct ftl_dev *)bd;
    for (uint32_t b = 0; b < d->nblocks && !rc; b++) {
        struct nand_block_info bi;
        if (nand_block_info(dev, b, &bi)) {
            rc = -EIO;
            break;
        }
        for (uint32_t p = 0; p < d->ppb; p++) {
            uint8_t c = p >= bi.pages_programmed ? PM_FREE : PM_STALE;
            for (uint32_t s = 0; c == PM_STALE && s < d->spp; s++) {
                uint32_t slot = ftl_slot(d, b, p, s), lsn = d->p2l[slot];
                if (lsn != FTL_NONE && (d->l2p[lsn & ~FTL_TOMB] & ~FTL_TOMB) == slot)
                    c = PM_DATA; /* the newest copy (or trim) of a sector */
            }
            uint8_t st = d->blk[b].state;
            cls[(uint64_t)b * d->ppb + p] = st == FTL_B_BAD     ? PM_BAD
                                          : st == FTL_B_SUPER ? (p ? PM_FREE : PM_SUPER)
                                                              : c;
        }
    }
    ftl_dev_free(d); /* no flush: the map only reads */
    return rc;
}

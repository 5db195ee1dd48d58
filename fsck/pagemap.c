/* pagemap.c -- what every page of a LogFS device holds, for media-fault
 * campaigns (docs/faults.md).  It reuses the checker's walk: the refs list
 * names every object the newest commit reaches, with its tree and level,
 * so the map sees what fsck sees and nothing of fs/. */
#include "fsck_int.h"

#include <stdlib.h>

static const char *const names[FSCK_PG_CLASSES] = {
    "anchor",     "superblock", "segment-file", "inode-file", "indirect-1",
    "indirect-2", "indirect-3", "indirect-4",   "indirect-5", "directory",
    "file-data",  "stale",      "free",         "bad-block"};

const char *fsck_page_class_name(int cls)
{
    return cls >= 0 && cls < FSCK_PG_CLASSES ? names[cls] : NULL;
}

static uint8_t ref_class(struct fk *k, const struct fk_ref *r)
{
    if (r->cls == FK_CLS_SEGFILE)
        return FSCK_PG_SEGFILE;
    if (r->cls == FK_CLS_INODEFILE)
        return FSCK_PG_INODEFILE;
    if (r->level)
        return (uint8_t)(FSCK_PG_INDIRECT1 + (r->level > 5 ? 4 : r->level - 1));
    const struct fk_ient *ie = fk_find_ino(k, r->ino);
    return ie && (ie->d.mode & FK_IFMT) == FK_IFDIR ? FSCK_PG_DIR : FSCK_PG_DATA;
}

/* The lower class number wins: the enum is in priority order. */
static void mark(uint8_t *c, uint8_t v)
{
    if (v < *c)
        *c = v;
}

int fsck_page_map(nand_dev *dev, uint8_t *cls)
{
    struct fsck_report rep;
    struct fk k;
    memset(&rep, 0, sizeof rep);
    memset(&k, 0, sizeof k);
    k.dev = dev;
    k.rep = &rep;
    fk_check(&k);
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ppb = c->geo.pages_per_block, ps = c->geo.page_size;
    uint64_t nb = nand_blocks(c);
    /* programmed pages start as stale, the rest as free */
    for (uint64_t b = 0; b < nb; b++) {
        struct nand_block_info bi;
        int have = nand_block_info(dev, (nand_block_t)b, &bi) == 0;
        for (uint32_t p = 0; p < ppb; p++)
            cls[b * ppb + p] = have && p < bi.pages_programmed ? FSCK_PG_STALE : FSCK_PG_FREE;
    }
    for (size_t i = 0; i < k.nrefs; i++) {
        const struct fk_ref *r = &k.refs[i];
        if (r->dropped || !r->len)
            continue;
        uint8_t v = ref_class(&k, r);
        for (uint64_t pg = r->addr / ps; pg <= (r->addr + r->len - 1) / ps && pg < nb * ppb; pg++)
            mark(&cls[pg], v);
    }
    /* reserved blocks: their programmed pages are what the block is for */
    if (k.sb.anchor_count || k.sb.backup_block) {
        for (uint64_t b = 0; b < nb; b++) {
            int sb = b == 0 || b == k.sb.backup_block, an = 0;
            for (uint32_t i = 0; i < k.sb.anchor_count && i < FK_MAX_ANCHORS; i++)
                an |= k.sb.anchor_blocks[i] == b;
            if (!sb && !an)
                continue;
            for (uint32_t p = 0; p < ppb; p++)
                if (cls[b * ppb + p] != FSCK_PG_FREE)
                    cls[b * ppb + p] = an ? FSCK_PG_ANCHOR : FSCK_PG_SUPER;
        }
    }
    for (uint64_t b = 0; k.dev_bad && b < nb; b++)
        if (k.dev_bad[b])
            memset(cls + b * ppb, FSCK_PG_BAD, ppb);
    int st = k.oper ? FSCK_OPERATIONAL : 0;
    fk_free(&k);
    fsck_report_free(&rep);
    return st;
}

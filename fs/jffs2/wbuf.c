/* wbuf.c -- the write head: nodes are appended to the open erase
 * block's RAM image and a page is programmed when full or on sync (JFFS2's
 * NAND write buffer); program and erase failures retire the block. */
#include "jffs.h"

#include <errno.h>
#include <string.h>

uint32_t jffs_cleanmarker_col(const struct nand_config *c)
{
    if (c->nop < 2) /* the page's data will be a second program */
        return 0;
    if (c->geo.oob_size == 16)
        return c->geo.page_size + 8; /* small-page layout: free bytes 8..15 */
    return c->geo.oob_size >= 32 ? c->geo.page_size + 2 : 0; /* large page: after the marker */
}

/* JFFS2 on NAND marks a cleanly erased block with a cleanmarker in page
 * 0's OOB (jffs2_write_nand_cleanmarker), so that mount need not erase it
 * again.  A block that cannot take it is retired. */
int jffs_write_cleanmarker(struct jffs *fs, uint32_t b)
{
    uint32_t col = jffs_cleanmarker_col(nand_get_config(fs->dev));
    if (!col)
        return 0;
    uint8_t cm[JFFS_CLEANMARKER_LEN];
    jffs_cleanmarker(cm);
    int rc = nand_program_col(fs->dev, b, 0, col, cm, sizeof cm, NULL);
    if (rc == NAND_E_POWER)
        return -EIO;
    if (rc) {
        nand_mark_bad(fs->dev, b);
        if (fs->blk[b].state == JB_FREE || fs->blk[b].state == JB_UNKNOWN)
            fs->nfree--;
        jffs_set_bad(fs, b);
        return -EIO;
    }
    return 0;
}

int jffs_erase_block(struct jffs *fs, uint32_t b)
{
    int rc = nand_erase(fs->dev, b, NULL);
    if (rc == NAND_E_POWER)
        return -EIO;
    if (rc) {
        nand_mark_bad(fs->dev, b);
        if (fs->blk[b].state == JB_FREE || fs->blk[b].state == JB_UNKNOWN)
            fs->nfree--;
        jffs_set_bad(fs, b);
        return -EIO;
    }
    if (fs->blk[b].state != JB_FREE && fs->blk[b].state != JB_UNKNOWN)
        fs->nfree++;
    fs->blk[b].state = JB_FREE;
    fs->blk[b].has_sum = 0;
    return jffs_write_cleanmarker(fs, b);
}

/* A free block, erased if mount could not vouch for it. */
static int open_head(struct jffs *fs)
{
    int rc = jffs_make_room(fs);
    if (rc || fs->head >= 0)
        return rc; /* the GC may have opened one to copy into: use it */
    for (uint32_t i = 0; i < fs->nblocks; i++) {
        uint32_t b = (fs->rover + i) % fs->nblocks;
        uint8_t st = fs->blk[b].state;
        if (st != JB_FREE && st != JB_UNKNOWN)
            continue;
        if (st == JB_UNKNOWN && (rc = jffs_erase_block(fs, b))) {
            if (rc == -EIO && fs->blk[b].state == JB_BAD)
                continue;
            return rc;
        }
        fs->rover = b + 1;
        fs->blk[b].state = JB_HEAD;
        fs->nfree--;
        fs->head = b;
        fs->hoff = fs->hprog = 0;
        fs->sumlen = fs->sumcount = 0;
        memset(fs->himg, 0xff, fs->bs);
        return 0;
    }
    return -ENOSPC;
}

/* The head failed to program: retire it, and append its live nodes (from
 * the RAM image, programmed or not) to a new head. */
static int relocate(struct jffs *fs)
{
    uint32_t b = (uint32_t)fs->head, len = fs->hoff;
    uint8_t *img = jffs_alloc(fs, fs->bs);
    if (!img)
        return -ENOMEM;
    memcpy(img, fs->himg, fs->bs);
    nand_mark_bad(fs->dev, b);
    jffs_set_bad(fs, b);
    fs->head = -1;
    jffs_forget_dirents(fs, img, len);
    int rc = 0;
    uint64_t base = (uint64_t)b * fs->bs;
    while (!rc && fs->blk[b].list.next != &fs->blk[b].list) {
        struct jffs_ref *r = fs->blk[b].list.next;
        uint64_t na;
        uint32_t l = r->len;
        rc = jffs_write_node(fs, img + (r->addr - base), l, &na);
        if (!rc) {
            jffs_ref_drop(fs, r);
            jffs_ref_add(fs, r, na, l);
        }
    }
    jffs_free(fs, img, fs->bs);
    return rc;
}

/* Program the head's pages below `upto` (rounded up to a page). */
static int program(struct jffs *fs, uint32_t upto, int *failed)
{
    *failed = 0;
    while (fs->hprog < upto) {
        uint8_t *pg = fs->himg + fs->hprog;
        int blank = 1;
        for (uint32_t i = 0; i < fs->ps && blank; i += 4)
            blank = le32_get(pg + i) == 0xffffffffu;
        /* blank pages (the gap before a summary) stay erased */
        int rc = blank ? 0 : nand_program(fs->dev, (uint32_t)fs->head, fs->hprog / fs->ps, pg, NULL, NULL);
        if (rc == NAND_E_POWER)
            return -EIO;
        if (rc) {
            *failed = 1;
            return 0;
        }
        fs->hprog += fs->ps;
    }
    return 0;
}

static int fits(struct jffs *fs, const uint8_t *node, uint32_t alen)
{
    uint32_t end = fs->hoff + alen;
    if (end > fs->bs)
        return 0;
    if (!fs->opt.summary)
        return 1;
    return (uint64_t)end + jffs_sum_bytes(fs, jffs_sum_entry_len(node)) <= fs->bs;
}

int jffs_write_node(struct jffs *fs, const uint8_t *node, uint32_t len, uint64_t *addr)
{
    uint32_t alen = JFFS_ALIGN(len);
    for (int tries = 0; tries < 64; tries++) {
        int rc, failed;
        if (fs->head >= 0 && !fits(fs, node, alen) && (rc = jffs_close_head(fs)))
            return rc;
        if (fs->head < 0 && (rc = open_head(fs)))
            return rc;
        if (!fits(fs, node, alen)) {
            if (fs->hoff == 0)
                return -EINVAL; /* a node larger than a block */
            continue; /* the GC's head, already too full */
        }
        uint32_t off = fs->hoff;
        memcpy(fs->himg + off, node, len);
        if (fs->opt.summary)
            jffs_sum_record(fs, node, off);
        fs->hoff += alen;
        if ((rc = program(fs, fs->hoff / fs->ps * fs->ps, &failed)))
            return rc;
        if (failed) { /* the node went down with the block: again elsewhere */
            if ((rc = relocate(fs)))
                return rc;
            continue;
        }
        *addr = (uint64_t)fs->head * fs->bs + off;
        return 0;
    }
    return -EIO;
}

int jffs_flush(struct jffs *fs)
{
    if (fs->head < 0 || fs->hoff == fs->hprog)
        return 0;
    int failed, rc;
    fs->hoff = (fs->hoff + fs->ps - 1) / fs->ps * fs->ps;
    if ((rc = program(fs, fs->hoff, &failed)))
        return rc;
    return failed ? relocate(fs) : 0;
}

int jffs_close_head(struct jffs *fs)
{
    if (fs->head < 0)
        return 0;
    /* A sync may have padded the head past the room its summary had: then
     * it goes without one and is scanned (Linux's JFFS2_SUMMARY_NOSUM_SIZE). */
    int sum = fs->opt.summary && (uint64_t)JFFS_ALIGN(fs->hoff) + jffs_sum_bytes(fs, 0) <= fs->bs;
    if (sum)
        jffs_sum_write(fs);
    fs->hoff = fs->bs;
    int failed, rc;
    if ((rc = program(fs, fs->bs, &failed)))
        return rc;
    if (failed)
        return relocate(fs);
    fs->blk[fs->head].state = JB_USED;
    fs->blk[fs->head].has_sum = (uint8_t)sum;
    fs->head = -1;
    return 0;
}

int jffs_read_bytes(struct jffs *fs, uint64_t addr, void *buf, uint32_t len)
{
    uint8_t *out = buf;
    while (len) {
        uint32_t b = (uint32_t)(addr / fs->bs), off = (uint32_t)(addr % fs->bs);
        uint32_t part = fs->ps - off % fs->ps;
        if (part > len)
            part = len;
        if ((int64_t)b == fs->head && off >= fs->hprog) {
            memcpy(out, fs->himg + off, part); /* still in the write buffer */
        } else {
            int rc = nand_read_col(fs->dev, b, off / fs->ps, off % fs->ps, out, part, NULL);
            if (rc && rc != NAND_E_ECC)
                return -EIO; /* ECC failures: the CRC will tell */
        }
        out += part;
        addr += part;
        len -= part;
    }
    return 0;
}

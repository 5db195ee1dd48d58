/* pagemap.c -- what every page of a JFFS2 device holds, for media-fault
 * campaigns (docs/faults.md): each erase block's nodes walked from its
 * start by their headers, as the scan mount finds them.  Obsolete nodes
 * look like live ones on NAND (nothing is marked on flash), so a node
 * class counts both. */
#include "jffs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* in priority order: a page holding several nodes gets the first */
enum { PM_SUMMARY, PM_DIRENT, PM_INODE, PM_OTHER, PM_PADDING, PM_CLEANMARKER, PM_FREE,
       PM_BAD, PM_UNREADABLE };
const char *const jffs_page_classes[] = {"summary", "dirent-node", "inode-node", "other-node",
                                         "padding", "cleanmarker", "free", "bad-block",
                                         "unreadable", NULL};

static uint8_t node_class(uint16_t type)
{
    return type == JFFS_T_SUMMARY ? PM_SUMMARY : type == JFFS_T_DIRENT ? PM_DIRENT
         : type == JFFS_T_INODE   ? PM_INODE   : type == JFFS_T_PADDING ? PM_PADDING
                                               : PM_OTHER;
}

static uint32_t le32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void block_map(const uint8_t *buf, const uint8_t *ok, uint32_t ps, uint32_t ppb,
                      uint32_t programmed, uint8_t *cls)
{
    uint32_t bs = ps * ppb;
    for (uint32_t p = 0; p < ppb; p++)
        cls[p] = !ok[p] ? PM_UNREADABLE : PM_FREE;
    for (uint32_t off = 0; off + 12 <= bs;) {
        uint16_t magic = (uint16_t)(buf[off] | buf[off + 1] << 8);
        uint16_t type = (uint16_t)(buf[off + 2] | buf[off + 3] << 8);
        uint32_t len = le32(buf + off + 4);
        if (magic != JFFS_MAGIC || len < 12 || len > bs - off) {
            off += 4;
            continue;
        }
        for (uint32_t p = off / ps; p <= (off + len - 1) / ps; p++)
            if (cls[p] != PM_UNREADABLE && node_class(type) < cls[p])
                cls[p] = node_class(type);
        off += (len + 3) & ~3u;
    }
    /* a programmed page 0 holding no node: the cleanmarker (in its OOB) */
    if (programmed && cls[0] == PM_FREE)
        cls[0] = PM_CLEANMARKER;
}

int jffs_page_map(nand_dev *dev, uint8_t *cls)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ps = c->geo.page_size, ppb = c->geo.pages_per_block;
    uint64_t nb = nand_blocks(c);
    uint8_t *buf = malloc((size_t)ps * ppb), *ok = malloc(ppb);
    if (!buf || !ok) {
        free(buf);
        free(ok);
        return -ENOMEM;
    }
    int rc = 0;
    for (uint64_t b = 0; b < nb && !rc; b++) {
        uint8_t *bc = cls + b * ppb;
        struct nand_block_info bi;
        int bad = nand_is_bad(dev, (nand_block_t)b);
        if (bad < 0 || nand_block_info(dev, (nand_block_t)b, &bi)) {
            rc = -EIO;
            break;
        }
        if (bad) {
            memset(bc, PM_BAD, ppb);
            continue;
        }
        memset(buf, 0xff, (size_t)ps * ppb);
        for (uint32_t p = 0; p < ppb; p++) {
            ok[p] = 1;
            if (p < bi.pages_programmed) {
                int r = nand_read(dev, (nand_block_t)b, p, buf + (size_t)p * ps, NULL, NULL);
                ok[p] = r >= 0;
            }
        }
        block_map(buf, ok, ps, ppb, bi.pages_programmed, bc);
    }
    free(buf);
    free(ok);
    return rc;
}

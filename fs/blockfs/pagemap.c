/* pagemap.c -- what every page of a blockfs device holds, for media-fault
 * campaigns (docs/faults.md): the regions its superblock names.  The data
 * region is one class (file data, directories and indirect blocks share
 * it, and the free-block bitmap, not the flash, says which are in use). */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { PM_SUPER, PM_INODES, PM_BITMAP, PM_DATA, PM_FREE, PM_BAD };
const char *const bf_page_classes[] = {"superblock", "inode-table", "bitmap", "data",
                                       "free",       "bad-block",   NULL};

int bf_page_map(nand_dev *dev, uint8_t *cls)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ps = c->geo.page_size, ppb = c->geo.pages_per_block;
    uint64_t nb = nand_blocks(c);
    struct bf_super sb;
    uint8_t *page = malloc(ps);
    if (!page)
        return -ENOMEM;
    int rc = nand_read(dev, 0, 0, page, NULL, NULL);
    memcpy(&sb, page, sizeof sb < ps ? sizeof sb : ps);
    free(page);
    if (rc < 0 || sizeof sb > ps || memcmp(sb.magic, BF_MAGIC, 8))
        return -EIO;
    for (uint64_t b = 0; b < nb; b++) {
        struct nand_block_info bi;
        int bad = nand_is_bad(dev, (nand_block_t)b);
        if (bad < 0 || nand_block_info(dev, (nand_block_t)b, &bi))
            return -EIO;
        uint8_t region = b == 0 ? PM_SUPER
                       : b >= sb.inode_eb && b < (uint64_t)sb.inode_eb + sb.inode_ebs ? PM_INODES
                       : b >= sb.bitmap_eb && b < (uint64_t)sb.bitmap_eb + sb.bitmap_ebs ? PM_BITMAP
                                                                                          : PM_DATA;
        for (uint32_t p = 0; p < ppb; p++)
            cls[b * ppb + p] = bad ? PM_BAD : p < bi.pages_programmed ? region : PM_FREE;
    }
    return 0;
}

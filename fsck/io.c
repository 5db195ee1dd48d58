/* io.c -- reading device bytes.  Objects are addressed by device byte
 * address (FORMAT.md section 1), pages are read through ECC; an
 * uncorrectable read is retried as section 6.3 does for anchor pages, so
 * that read noise is not taken for damage. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdio.h>

int fk_is_oper_err(int e)
{
    return e == NAND_E_POWER || e == NAND_E_NOMEM || e == NAND_E_INVAL ||
           e == NAND_E_ADDR || e == NAND_E_BUSY;
}

int fk_read(struct fk *k, uint64_t addr, uint8_t *buf, uint32_t len,
            uint64_t *bad_addr)
{
    while (len) {
        uint32_t block = (uint32_t)(addr / k->seg_bytes);
        uint32_t off = (uint32_t)(addr % k->seg_bytes);
        uint32_t page = off / k->ps, col = off % k->ps;
        uint32_t part = k->ps - col < len ? k->ps - col : len;
        int rc = NAND_E_ECC;
        for (int t = 0; rc == NAND_E_ECC && t < FK_READ_TRIES; t++)
            rc = nand_read_col(k->dev, block, page, col, buf, part, NULL);
        if (rc) {
            if (bad_addr)
                *bad_addr = addr;
            return rc;
        }
        addr += part;
        buf += part;
        len -= part;
    }
    return 0;
}

int fk_read_page(struct fk *k, uint32_t block, uint32_t page, uint8_t *buf)
{
    int rc = NAND_E_ECC;
    for (int t = 0; rc == NAND_E_ECC && t < FK_READ_TRIES; t++)
        rc = nand_read(k->dev, block, page, buf, NULL, NULL);
    return rc;
}

void fk_where(const struct fk *k, uint64_t addr, char *buf, size_t n)
{
    snprintf(buf, n, "block %" PRIu64 " page %" PRIu64 " offset %" PRIu64,
             addr / k->seg_bytes, addr % k->seg_bytes / k->ps, addr % k->ps);
}

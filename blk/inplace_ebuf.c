/*
 * inplace_ebuf.c -- the in-place map's erase-block buffer: a write loads
 * its whole erase block into RAM, and a write-back erases the block and
 * programs every page again.  A power cut during a write-back loses what
 * the erase block held: the pages not yet programmed stay erased.
 *
 * Every page carries in its spare 0xFF (the bad-block byte), 'B', 'F', a
 * flag and the CRC-32 of the data, so that a read tells a good page from
 * an erased one (data lost to an interrupted write-back) and a torn one.
 * The flag keeps that verdict across a later write-back of the same erase
 * block: 1 = was erased, 2 = was corrupt.
 */
#include "inplace.h"
#include "crc32.h"

#include <errno.h>
#include <string.h>

static int classify(struct inplace_dev *d, int rc, const uint8_t *data, const uint8_t *oob)
{
    if (rc == NAND_E_ECC)
        return INPLACE_PG_CORRUPT;
    int erased = 1;
    for (uint32_t i = 1; i < INPLACE_OOB_BYTES; i++)
        erased &= oob[i] == 0xFF;
    if (erased)
        return INPLACE_PG_ERASED;
    if (oob[1] != 'B' || oob[2] != 'F' || oob[3] > INPLACE_PG_CORRUPT)
        return INPLACE_PG_CORRUPT;
    if (oob[3])
        return oob[3];
    uint32_t crc;
    memcpy(&crc, oob + 4, 4);
    d->st.bytes_checksummed += d->ps;
    return flashlab_crc32(0, data, d->ps) == crc ? INPLACE_PG_OK : INPLACE_PG_CORRUPT;
}

static int count_bad(struct inplace_dev *d, int state)
{
    if (state == INPLACE_PG_OK)
        return 0;
    if (state == INPLACE_PG_ERASED)
        d->st.pages_lost++;
    else
        d->st.pages_corrupt++;
    return -EIO;
}

/* One page (a sector), checked: -EIO if it is not a good page. */
int inplace_read_page(struct inplace_dev *d, uint64_t page, uint8_t *data)
{
    uint32_t eb = (uint32_t)(page / d->ppb), pg = (uint32_t)(page % d->ppb);
    if (d->ceb == (int64_t)eb) {
        memcpy(data, d->cdata + (size_t)pg * d->ps, d->ps);
        return count_bad(d, d->cstate[pg]);
    }
    int rc = nand_read(d->dev, eb, pg, data, d->oobbuf, NULL);
    if (rc && rc != NAND_E_ECC)
        return -EIO;
    return count_bad(d, classify(d, rc, data, d->oobbuf));
}

/* Erase, then program every page from the buffer. */
int inplace_write_back(struct inplace_dev *d)
{
    if (!d->cdirty)
        return 0;
    if (d->failed)
        return -EIO;
    uint32_t eb = (uint32_t)d->ceb;
    d->st.erases++;
    int rc = nand_erase(d->dev, eb, NULL);
    memset(d->oobbuf, 0xFF, d->oob);
    for (uint32_t p = 0; !rc && p < d->ppb; p++) {
        const uint8_t *data = d->cdata + (size_t)p * d->ps;
        uint32_t crc = flashlab_crc32(0, data, d->ps);
        d->oobbuf[1] = 'B';
        d->oobbuf[2] = 'F';
        d->oobbuf[3] = d->cstate[p]; /* INPLACE_PG_* = the flag values */
        memcpy(d->oobbuf + 4, &crc, 4);
        rc = nand_program(d->dev, eb, p, data, d->oobbuf, NULL);
        d->st.pages_host += !rc;
    }
    if (rc) {
        d->failed = 1; /* RAM and flash now disagree: stop writing */
        d->ceb = -1;
        d->cdirty = 0;
        return -EIO;
    }
    d->cdirty = 0;
    return 0;
}

/* Bring erase block eb into the buffer: write back the one there, then
 * read all of eb's pages (remembering which were not good). */
int inplace_load(struct inplace_dev *d, uint32_t eb)
{
    if (d->ceb == (int64_t)eb)
        return 0;
    int rc = inplace_write_back(d);
    if (rc)
        return rc;
    d->ceb = -1;
    d->st.blocks_loaded++;
    for (uint32_t p = 0; p < d->ppb; p++) {
        uint8_t *data = d->cdata + (size_t)p * d->ps;
        rc = nand_read(d->dev, eb, p, data, d->oobbuf, NULL);
        if (rc && rc != NAND_E_ECC)
            return -EIO;
        d->cstate[p] = (uint8_t)classify(d, rc, data, d->oobbuf);
    }
    d->ceb = eb;
    return 0;
}

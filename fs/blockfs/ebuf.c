/*
 * ebuf.c -- the update-in-place write path: every fs-block write
 * goes into a RAM copy of its whole erase block, which is written back by
 * erasing the erase block and programming all of its pages again.  The
 * buffer holds one erase block; with cache=1 it stays dirty until another
 * erase block is written or sync; with cache=0 each block write is written
 * back at once.
 *
 * Every page carries in its spare: 0xFF (the bad-block byte, left alone),
 * 'B', 'F', a flag and the CRC-32 of the data, so that a read tells a good
 * page from an erased one (data lost to an interrupted write-back) and a
 * torn one.  The flag keeps that verdict across a later write-back of the
 * same erase block: 1 = was erased, 2 = was corrupt.
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"
#include "crc32.h"

#include <errno.h>
#include <string.h>

static int classify(struct blockfs *fs, int rc, const uint8_t *data, const uint8_t *oob)
{
    if (rc == NAND_E_ECC)
        return BF_PG_CORRUPT;
    int erased = 1;
    for (uint32_t i = 1; i < BF_OOB_BYTES; i++)
        erased &= oob[i] == 0xFF;
    if (erased)
        return BF_PG_ERASED;
    if (oob[1] != 'B' || oob[2] != 'F' || oob[3] > 2)
        return BF_PG_CORRUPT;
    if (oob[3])
        return oob[3] == 1 ? BF_PG_ERASED : BF_PG_CORRUPT;
    uint32_t crc;
    memcpy(&crc, oob + 4, 4);
    fs->crc_bytes += fs->ps;
    return flashlab_crc32(0, data, fs->ps) == crc ? BF_PG_OK : BF_PG_CORRUPT;
}

static int count_bad(struct blockfs *fs, int state)
{
    if (state == BF_PG_OK)
        return 0;
    if (state == BF_PG_ERASED)
        fs->st.pages_lost++;
    else
        fs->st.pages_corrupt++;
    return -EIO;
}

/* One page, checked: -EIO if it is not a good page of this fs. */
int bf_read_page(struct blockfs *fs, uint32_t eb, uint32_t pg, uint8_t *data)
{
    int rc = nand_read(fs->dev, eb, pg, data, fs->oobbuf, NULL);
    if (rc && rc != NAND_E_ECC)
        return -EIO;
    return count_bad(fs, classify(fs, rc, data, fs->oobbuf));
}

/* Blocks in use always hold written pages: an erased or torn page there
 * is data lost, reported as -EIO. */
int bf_read_block(struct blockfs *fs, uint32_t blk, void *buf)
{
    if (blk >= fs->nblocks)
        return -EIO;
    uint32_t eb = blk / fs->bpe, pg = (blk % fs->bpe) * fs->ppfb;
    if (fs->ceb == (int64_t)eb) {
        memcpy(buf, fs->cdata + (size_t)pg * fs->ps, fs->bs);
        for (uint32_t i = 0; i < fs->ppfb; i++)
            if (count_bad(fs, fs->cstate[pg + i]))
                return -EIO;
        return 0;
    }
    for (uint32_t i = 0; i < fs->ppfb; i++) {
        int rc = bf_read_page(fs, eb, pg + i, (uint8_t *)buf + (size_t)i * fs->ps);
        if (rc)
            return rc;
    }
    return 0;
}

/* Erase, then program every page from the buffer.  A power cut here loses
 * what the erase block held: the pages not yet programmed stay erased. */
int bf_cache_flush(struct blockfs *fs)
{
    if (!fs->cdirty)
        return 0;
    if (fs->failed)
        return -EIO;
    uint32_t eb = (uint32_t)fs->ceb;
    fs->st.write_backs++;
    int rc = nand_erase(fs->dev, eb, NULL);
    memset(fs->oobbuf, 0xFF, fs->oob);
    for (uint32_t p = 0; !rc && p < fs->ppb; p++) {
        const uint8_t *d = fs->cdata + (size_t)p * fs->ps;
        uint32_t crc = flashlab_crc32(0, d, fs->ps);
        fs->oobbuf[1] = 'B';
        fs->oobbuf[2] = 'F';
        fs->oobbuf[3] = (uint8_t)fs->cstate[p]; /* BF_PG_* = the flag values */
        memcpy(fs->oobbuf + 4, &crc, 4);
        rc = nand_program(fs->dev, eb, p, d, fs->oobbuf, NULL);
    }
    if (rc) {
        fs->failed = 1; /* RAM and flash now disagree: stop writing */
        bf_cache_drop(fs);
        return -EIO;
    }
    fs->cdirty = 0;
    return 0;
}

void bf_cache_drop(struct blockfs *fs)
{
    fs->ceb = -1;
    fs->cdirty = 0;
}

/* Bring erase block eb into the buffer: write back the one there, then
 * read all of eb's pages (remembering which were not good). */
static int cache_load(struct blockfs *fs, uint32_t eb)
{
    if (fs->ceb == (int64_t)eb)
        return 0;
    int rc = bf_cache_flush(fs);
    if (rc)
        return rc;
    fs->ceb = -1;
    fs->st.eb_loads++;
    for (uint32_t p = 0; p < fs->ppb; p++) {
        uint8_t *d = fs->cdata + (size_t)p * fs->ps;
        rc = nand_read(fs->dev, eb, p, d, fs->oobbuf, NULL);
        if (rc && rc != NAND_E_ECC)
            return -EIO;
        fs->cstate[p] = (uint8_t)classify(fs, rc, d, fs->oobbuf);
    }
    fs->ceb = eb;
    return 0;
}

int bf_write_block(struct blockfs *fs, uint32_t blk, const void *buf)
{
    if (fs->failed)
        return -EIO;
    if (blk >= fs->nblocks)
        return -EIO;
    uint32_t eb = blk / fs->bpe, pg = (blk % fs->bpe) * fs->ppfb;
    int rc = cache_load(fs, eb);
    if (rc)
        return rc;
    memcpy(fs->cdata + (size_t)pg * fs->ps, buf, fs->bs);
    memset(fs->cstate + pg, BF_PG_OK, fs->ppfb);
    fs->cdirty = 1;
    fs->st.block_writes++;
    return fs->use_cache ? 0 : bf_cache_flush(fs);
}

/* sum.c -- erase-block summaries (JFFS2's CONFIG_JFFS2_SUMMARY): the
 * fixed header of every node written to a block, collected in RAM while
 * the block is the head and written at its end when it is closed, so that
 * mount reads a block's last pages instead of all of it. */
#include "jffs.h"
#include "crc32.h"

#include <errno.h>
#include <string.h>

/* A node goes in: its offset, then its fixed header as written.  A node
 * whose header does not check (a GC copy of a damaged node) is left out. */
void jffs_sum_record(struct jffs *fs, const uint8_t *node, uint32_t off)
{
    uint16_t type;
    uint32_t totlen, fl = jffs_fixed_len(node), el = 4 + JFFS_ALIGN(fl);
    struct jffs_raw_inode ri;
    struct jffs_raw_dirent rd;
    if (jffs_decode_hdr(node, 0, &type, &totlen))
        return;
    if (type == JFFS_T_INODE ? jffs_decode_inode(node, 0, &ri)
                             : type != JFFS_T_DIRENT || jffs_decode_dirent(node, totlen, 0, &rd))
        return;
    if (jffs_grow(fs, (void **)&fs->sum, &fs->sumcap, fs->sumlen + el, 1))
        return; /* out of memory: the block will be scanned instead */
    le32_put(fs->sum + fs->sumlen, off);
    memset(fs->sum + fs->sumlen + 4, 0xff, JFFS_ALIGN(fl));
    memcpy(fs->sum + fs->sumlen + 4, node, fl);
    fs->sumlen += el;
    fs->sumcount++;
}

/* the summary's size with `extra` more entry bytes */
uint32_t jffs_sum_bytes(const struct jffs *fs, uint32_t extra)
{
    return JFFS_SUM_HDR + fs->sumlen + extra + JFFS_SUM_TAIL;
}

/* Layout at the block's end, starting on a page boundary sum_off:
 *   magic u16, type u16, totlen u32 (bs - sum_off), hdr_crc u32,
 *   count u32, entry bytes u32, entries..., 0xFF...,
 *   sum_crc u32 (of [sum_off, bs-12)), sum_off u32, JFFS_SUM_MAGIC u32. */
void jffs_sum_write(struct jffs *fs)
{
    uint32_t total = jffs_sum_bytes(fs, 0), so = (fs->bs - total) / fs->ps * fs->ps;
    uint8_t *p = fs->himg + so;
    memset(p, 0xff, fs->bs - so);
    le16_put(p, JFFS_MAGIC);
    le16_put(p + 2, JFFS_T_SUMMARY);
    le32_put(p + 4, fs->bs - so);
    le32_put(p + 8, flashlab_crc32(0, p, 8));
    le32_put(p + 12, fs->sumcount);
    le32_put(p + 16, fs->sumlen);
    memcpy(p + JFFS_SUM_HDR, fs->sum, fs->sumlen);
    uint8_t *t = fs->himg + fs->bs - JFFS_SUM_TAIL;
    le32_put(t, flashlab_crc32(0, p, fs->bs - JFFS_SUM_TAIL - so));
    le32_put(t + 4, so);
    le32_put(t + 8, JFFS_SUM_MAGIC);
}

/* Mount: block b's nodes from its summary.  1 when it had a valid one, 0
 * when it must be scanned, or a negative errno. */
int jffs_sum_read(struct jffs *fs, uint32_t b, struct jffs_recs *rs)
{
    uint8_t *img = fs->himg; /* unused at mount: a block-sized buffer */
    uint32_t last = fs->ppb - 1;
    int rc = nand_read(fs->dev, b, last, img + (size_t)last * fs->ps, NULL, NULL);
    if (rc && rc != NAND_E_ECC)
        return rc == NAND_E_POWER ? -EIO : 0;
    const uint8_t *t = img + fs->bs - JFFS_SUM_TAIL;
    uint32_t so = le32_get(t + 4);
    if (le32_get(t + 8) != JFFS_SUM_MAGIC || so % fs->ps || so + JFFS_SUM_HDR + JFFS_SUM_TAIL > fs->bs)
        return 0;
    for (uint32_t p = so / fs->ps; p < last; p++) {
        rc = nand_read(fs->dev, b, p, img + (size_t)p * fs->ps, NULL, NULL);
        if (rc && rc != NAND_E_ECC)
            return rc == NAND_E_POWER ? -EIO : 0;
    }
    const uint8_t *s = img + so;
    uint32_t clen = fs->bs - JFFS_SUM_TAIL - so;
    fs->work.bytes_checksummed += clen;
    uint16_t type;
    uint32_t totlen;
    if (le32_get(t) != flashlab_crc32(0, s, clen) || jffs_decode_hdr(s, 1, &type, &totlen) ||
        type != JFFS_T_SUMMARY)
        return 0;
    uint32_t count = le32_get(s + 12), elen = le32_get(s + 16), pos = 0;
    if (elen > clen - JFFS_SUM_HDR)
        return 0;
    s += JFFS_SUM_HDR;
    for (uint32_t i = 0; i < count && pos + 4 + 12 <= elen; i++) {
        uint32_t off = le32_get(s + pos);
        const uint8_t *h = s + pos + 4;
        if (jffs_decode_hdr(h, 1, &type, &totlen) || off + totlen > so)
            return 0;
        uint32_t fl = jffs_fixed_len(h);
        if (pos + 4 + fl > elen)
            return 0;
        if ((rc = jffs_rec_add(fs, rs, h, (uint64_t)b * fs->bs + off, totlen, 1)) < 0)
            return rc;
        pos += 4 + JFFS_ALIGN(fl);
    }
    return 1;
}

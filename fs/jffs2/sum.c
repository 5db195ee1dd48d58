/* sum.c -- erase-block summaries (JFFS2's CONFIG_JFFS2_SUMMARY, as Linux
 * and sumtool write them): an entry per node written to a block, collected
 * in RAM while the block is the head and written as a summary node after
 * its last node when it is closed; the block's last 8 bytes (the marker)
 * say where that node starts, so that mount reads a block's last pages
 * instead of all of it. */
#include "jffs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint32_t jffs_sum_entry_len(const uint8_t *node)
{
    uint16_t type = le16_get(node + 2);
    return type == JFFS_T_INODE ? JFFS_SUM_INODE
         : type == JFFS_T_DIRENT ? JFFS_SUM_DIRENT + node[28] : 0;
}

/* A node goes in: jffs2_sum_inode_flash or jffs2_sum_dirent_flash.  A
 * node whose header does not check (a GC copy of a damaged node) is left
 * out. */
void jffs_sum_record(struct jffs *fs, const uint8_t *node, uint32_t off)
{
    uint16_t type;
    uint32_t totlen, el = jffs_sum_entry_len(node);
    struct jffs_raw_inode ri;
    struct jffs_raw_dirent rd;
    if (jffs_decode_hdr(node, 0, &type, &totlen))
        return;
    if (type == JFFS_T_INODE ? jffs_decode_inode(node, 0, &ri)
                             : type != JFFS_T_DIRENT || jffs_decode_dirent(node, totlen, 0, &rd))
        return;
    if (jffs_grow(fs, (void **)&fs->sum, &fs->sumcap, fs->sumlen + el, 1))
        return; /* out of memory: the block will be scanned instead */
    uint8_t *e = fs->sum + fs->sumlen;
    le16_put(e, type);
    if (type == JFFS_T_INODE) {
        le32_put(e + 2, ri.ino);
        le32_put(e + 6, ri.version);
        le32_put(e + 10, off);
        le32_put(e + 14, totlen);
    } else {
        le32_put(e + 2, totlen);
        le32_put(e + 6, off);
        le32_put(e + 10, rd.pino);
        le32_put(e + 14, rd.version);
        le32_put(e + 18, rd.ino);
        e[22] = rd.nsize;
        e[23] = rd.type;
        memcpy(e + 24, rd.name, rd.nsize);
    }
    fs->sumlen += el;
    fs->sumcount++;
}

/* the summary's size with `extra` more entry bytes */
uint32_t jffs_sum_bytes(const struct jffs *fs, uint32_t extra)
{
    return JFFS_SUM_HDR + fs->sumlen + extra + JFFS_SUM_TAIL;
}

/* jffs2_sum_write_data: at hoff (after the last node) to the block's end,
 *   magic, type 0x2006, totlen (bs - hoff), hdr_crc, sum_num, cln_mkr,
 *   padded, sum_crc (of everything after the 32-byte header), node_crc
 *   (of the first 24 bytes), entries..., 0xFF..., marker: hoff, magic. */
void jffs_sum_write(struct jffs *fs)
{
    uint32_t so = JFFS_ALIGN(fs->hoff);
    uint8_t *p = fs->himg + so;
    memset(p, 0xff, fs->bs - so);
    le16_put(p, JFFS_MAGIC);
    le16_put(p + 2, JFFS_T_SUMMARY);
    le32_put(p + 4, fs->bs - so);
    le32_put(p + 8, jffs_crc(p, 8));
    le32_put(p + 12, fs->sumcount);
    le32_put(p + 16, 0); /* the cleanmarker is in the OOB, not in the block */
    le32_put(p + 20, 0); /* no padding nodes: pages are padded with 0xFF */
    memcpy(p + JFFS_SUM_HDR, fs->sum, fs->sumlen);
    uint8_t *t = fs->himg + fs->bs - JFFS_SUM_TAIL;
    le32_put(t, so);
    le32_put(t + 4, JFFS_SUM_MAGIC);
    le32_put(p + 24, jffs_crc(p + JFFS_SUM_HDR, fs->bs - so - JFFS_SUM_HDR));
    le32_put(p + 28, jffs_crc(p, 24));
}

static int push(struct jffs *fs, struct jffs_recs *rs, struct jffs_rec *r)
{
    if (rs->n == rs->cap) {
        uint32_t cap = rs->cap ? rs->cap * 2 : 256;
        struct jffs_rec *v = realloc(rs->v, (size_t)cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        rs->v = v;
        rs->cap = cap;
    }
    rs->v[rs->n++] = *r;
    fs->work.nodes_indexed++;
    return 0;
}

/* One entry at e (avail bytes left) into rs; its length, 0 when it is not
 * valid (the block is then scanned), or -ENOMEM. */
static int sum_entry(struct jffs *fs, uint32_t b, uint32_t so, const uint8_t *e,
                     uint32_t avail, struct jffs_recs *rs)
{
    struct jffs_rec r = {0};
    uint16_t type = avail >= 2 ? le16_get(e) : 0;
    uint32_t off, totlen, len;
    if (type == JFFS_T_INODE && avail >= JFFS_SUM_INODE) {
        r.kind = 3;
        r.ri.ino = le32_get(e + 2);
        r.ri.version = le32_get(e + 6);
        off = le32_get(e + 10);
        totlen = le32_get(e + 14);
        len = JFFS_SUM_INODE;
        if (!r.ri.ino || r.ri.ino >= JFFS_INO_MAX || totlen < JFFS_INODE_HDR)
            return 0;
    } else if (type == JFFS_T_DIRENT && avail >= JFFS_SUM_DIRENT &&
               avail >= JFFS_SUM_DIRENT + e[22]) {
        totlen = le32_get(e + 2);
        off = le32_get(e + 6);
        len = JFFS_SUM_DIRENT + e[22];
        /* the dirent node as it is on flash, from the entry: decode checks it */
        uint8_t node[JFFS_DIRENT_HDR + JFFS_NAME_MAX];
        memset(node, 0, JFFS_DIRENT_HDR);
        le16_put(node, JFFS_MAGIC);
        le16_put(node + 2, JFFS_T_DIRENT);
        le32_put(node + 4, JFFS_DIRENT_HDR + e[22]);
        memcpy(node + 12, e + 10, 4);      /* pino */
        memcpy(node + 16, e + 14, 4);      /* version */
        memcpy(node + 20, e + 18, 4);      /* ino */
        node[28] = e[22];
        node[29] = e[23];
        memcpy(node + JFFS_DIRENT_HDR, e + 24, e[22]);
        r.kind = 2;
        if (totlen != JFFS_DIRENT_HDR + e[22] || !(r.rd = malloc(sizeof *r.rd)))
            return totlen != JFFS_DIRENT_HDR + e[22] ? 0 : -ENOMEM;
        if (jffs_decode_dirent(node, sizeof node, 1, r.rd)) {
            free(r.rd);
            return 0;
        }
    } else {
        return 0; /* xattr entries, damage: Linux gives up on the summary too */
    }
    if (off % 4 || off >= so || totlen > so - off) {
        free(r.rd);
        return 0;
    }
    r.addr = (uint64_t)b * fs->bs + off;
    r.len = totlen;
    if (push(fs, rs, &r)) {
        free(r.rd);
        return -ENOMEM;
    }
    return (int)len;
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
    uint32_t so = le32_get(t);
    if (le32_get(t + 4) != JFFS_SUM_MAGIC || so % 4 || so > fs->bs - JFFS_SUM_HDR - JFFS_SUM_TAIL)
        return 0;
    for (uint32_t p = so / fs->ps; p < last; p++) {
        rc = nand_read(fs->dev, b, p, img + (size_t)p * fs->ps, NULL, NULL);
        if (rc && rc != NAND_E_ECC)
            return rc == NAND_E_POWER ? -EIO : 0;
    }
    const uint8_t *s = img + so;
    uint32_t dlen = fs->bs - so - JFFS_SUM_HDR;
    fs->work.bytes_checksummed += 8 + 24 + dlen;
    uint16_t type;
    uint32_t totlen;
    if (jffs_decode_hdr(s, 0, &type, &totlen) || type != JFFS_T_SUMMARY ||
        totlen != fs->bs - so || le32_get(s + 28) != jffs_crc(s, 24) ||
        le32_get(s + 24) != jffs_crc(s + JFFS_SUM_HDR, dlen) || le32_get(s + 16))
        return 0; /* a cleanmarker inside the block: not a NAND summary */
    uint32_t count = le32_get(s + 12), pos = 0, room = dlen - JFFS_SUM_TAIL;
    s += JFFS_SUM_HDR;
    for (uint32_t i = 0; i < count; i++) {
        if ((rc = sum_entry(fs, b, so, s + pos, room - pos, rs)) <= 0)
            return rc;
        pos += (uint32_t)rc;
    }
    return 1;
}

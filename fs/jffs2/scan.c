/* scan.c -- mount's full scan of an erase block: every page up to the
 * first erased one is read and every node header, node and data CRC is
 * checked, as JFFS2's jffs2_scan_eraseblock does. */
#include "jffs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A node found (decoded from p) goes into the mount's record list; the
 * list is transient (freed by jffs_build), so it is not counted. */
int jffs_rec_add(struct jffs *fs, struct jffs_recs *rs, const uint8_t *p, uint64_t addr,
                 uint32_t len, int trusted)
{
    struct jffs_rec r = {0};
    uint16_t type = le16_get(p + 2);
    r.addr = addr;
    r.len = len;
    if (type == JFFS_T_INODE) {
        r.kind = 1;
        if (jffs_decode_inode(p, trusted, &r.ri))
            return 0;
    } else if (type == JFFS_T_DIRENT) {
        r.kind = 2;
        if (!(r.rd = malloc(sizeof *r.rd)))
            return -ENOMEM;
        if (jffs_decode_dirent(p, len, trusted, r.rd)) {
            free(r.rd);
            return 0;
        }
    } else {
        return 0;
    }
    if (rs->n == rs->cap) {
        uint32_t cap = rs->cap ? rs->cap * 2 : 256;
        struct jffs_rec *v = realloc(rs->v, (size_t)cap * sizeof *v);
        if (!v) {
            free(r.rd);
            return -ENOMEM;
        }
        rs->v = v;
        rs->cap = cap;
    }
    rs->v[rs->n++] = r;
    fs->work.nodes_indexed++;
    return 1;
}

static int blank(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i += 4)
        if (le32_get(p + i) != 0xffffffffu)
            return 0;
    return 1;
}

struct scan {
    struct jffs *fs;
    uint32_t b, loaded; /* pages read into img */
    uint8_t *img;
};

/* Read pages until [0, upto) is in; 0 or -EIO. */
static int need(struct scan *s, uint32_t upto)
{
    struct jffs *fs = s->fs;
    while (s->loaded * fs->ps < upto && s->loaded < fs->ppb) {
        int rc = nand_read(fs->dev, s->b, s->loaded, s->img + (size_t)s->loaded * fs->ps,
                           NULL, NULL);
        if (rc == NAND_E_POWER)
            return -EIO;
        if (rc && rc != NAND_E_ECC) /* unreadable: garbage the CRCs reject */
            memset(s->img + (size_t)s->loaded * fs->ps, 0, fs->ps);
        s->loaded++;
    }
    return upto <= s->loaded * fs->ps ? 0 : 1;
}

/* Read page p's spare alone into fs->page (page-sized: the spare fits,
 * checked at mount); 0 or -EIO. */
static int read_spare(struct jffs *fs, uint32_t b, uint32_t p)
{
    memset(fs->page, 0xff, nand_get_config(fs->dev)->geo.oob_size);
    int rc = nand_read(fs->dev, b, p, NULL, fs->page, NULL);
    return rc == NAND_E_POWER ? -EIO : 0;
}

/* Linux's jffs2_check_nand_cleanmarker: page 0's spare, read on its own
 * before anything else of the block.  1 when it holds JFFS2's cleanmarker
 * at its place, 0 when not, -EIO. */
int jffs_read_cleanmarker(struct jffs *fs, uint32_t b)
{
    uint32_t col = jffs_cleanmarker_col(nand_get_config(fs->dev));
    uint8_t cm[JFFS_CLEANMARKER_LEN];
    jffs_cleanmarker(cm);
    int rc = read_spare(fs, b, 0);
    return rc < 0 ? rc : col && !memcmp(fs->page + (col - fs->ps), cm, sizeof cm);
}

/* Linux's jffs2_check_oob_empty for a block whose page 0 reads erased:
 * the spares of its first 4 pages (NR_OOB_SCAN_PAGES), each read on its
 * own, must be erased but for the cleanmarker (cm: found).  1 empty, 0
 * not (the block is erased before use), -EIO. */
static int spares_empty(struct jffs *fs, uint32_t b, int cm)
{
    const struct nand_config *c = nand_get_config(fs->dev);
    uint32_t at = cm ? jffs_cleanmarker_col(c) - fs->ps : 0, empty = 1;
    for (uint32_t p = 0; p < 4 && p < fs->ppb; p++) {
        int rc = read_spare(fs, b, p);
        if (rc < 0)
            return rc;
        for (uint32_t i = 0; i < c->geo.oob_size; i++)
            if (fs->page[i] != 0xff && !(p == 0 && cm && i >= at && i < at + JFFS_CLEANMARKER_LEN))
                empty = 0;
    }
    return (int)empty;
}

/* Scan block b into rs, as Linux's jffs2_scan_eraseblock does on NAND
 * once the cleanmarker is checked (cm: jffs_read_cleanmarker's answer)
 * and no summary served: page 0 first; when it reads erased, the first
 * spares (spares_empty); else the whole block.  Returns 1 when it holds
 * anything (programmed), 0 when its first page is erased (to be erased
 * before use), 2 when it is erased and carries a cleanmarker (free as it
 * is), <0. */
int jffs_scan_block(struct jffs *fs, uint32_t b, int cm, struct jffs_recs *rs)
{
    struct scan s = {fs, b, 0, fs->himg};
    uint32_t pos = 0, first = rs->n;
    int64_t torn = -1; /* a node with bad data CRC and nothing valid after it */
    int rc;
    if ((rc = need(&s, fs->ps)) < 0)
        return rc;
    if (blank(s.img, fs->ps)) {
        if ((rc = spares_empty(fs, b, cm)) < 0)
            return rc;
        return cm && rc ? 2 : 0;
    }
    /* Linux reads the rest of the block in one go, erased pages too */
    if ((rc = need(&s, fs->bs)) < 0)
        return rc;
    while (pos + 12 <= fs->bs) {
        if (pos % fs->ps == 0) {
            if ((rc = need(&s, pos + fs->ps)) < 0)
                return rc;
            if (blank(s.img + pos, fs->ps))
                break; /* the first erased page: the end of what was written */
        }
        if ((rc = need(&s, pos + 12)) < 0)
            return rc;
        const uint8_t *p = s.img + pos;
        uint16_t type;
        uint32_t totlen;
        if (le32_get(p) == 0xffffffffu) { /* padding up to the page end */
            pos = (pos / fs->ps + 1) * fs->ps;
            continue;
        }
        fs->work.bytes_checksummed += 8;
        if (jffs_decode_hdr(p, 0, &type, &totlen) || totlen < 12 || totlen > fs->bs - pos ||
            (rc = need(&s, pos + totlen))) {
            if (rc < 0)
                return rc;
            pos += 4; /* resynchronise, as JFFS2 does, a word at a time */
            continue;
        }
        int ok = 1, bad_data = 0;
        if (type == JFFS_T_INODE && totlen >= JFFS_INODE_HDR) {
            struct jffs_raw_inode ri;
            fs->work.bytes_checksummed += 60;
            ok = !jffs_decode_inode(p, 0, &ri);
            if (ok && ri.compr != JFFS_COMPR_ZERO && ri.csize) {
                fs->work.bytes_checksummed += ri.csize;
                bad_data = jffs_crc(p + JFFS_INODE_HDR, ri.csize) != ri.dcrc;
            }
        } else if (type == JFFS_T_DIRENT) {
            fs->work.bytes_checksummed += 32 + (totlen > JFFS_DIRENT_HDR ? totlen - JFFS_DIRENT_HDR : 0);
        } else if (type == JFFS_T_INODE) {
            ok = 0;
        }
        /* Other types (summary, padding, cleanmarker, xattrs, obsolete
         * nodes) are passed over whole, as JFFS2 marks them obsolete. */
        if (!ok) {
            pos += 4;
            continue;
        }
        if (type == JFFS_T_INODE || type == JFFS_T_DIRENT) {
            if ((rc = jffs_rec_add(fs, rs, p, (uint64_t)b * fs->bs + pos, totlen, 0)) < 0)
                return rc;
            if (rc > 0)
                torn = bad_data ? (int64_t)rs->n - 1 : -1;
        }
        pos += JFFS_ALIGN(totlen);
    }
    /* A bad data CRC in the last node is a program torn by a power cut:
     * that node never was (older data stays); anywhere else it is damage,
     * and reading the node gives EIO. */
    if (torn >= 0 && torn == (int64_t)rs->n - 1 && rs->n > first) {
        free(rs->v[rs->n - 1].rd);
        rs->n--;
        fs->work.nodes_indexed--;
    }
    return 1;
}

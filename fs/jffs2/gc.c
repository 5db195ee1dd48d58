/* gc.c -- the garbage collector: the used block with the least live
 * data is the victim; its live nodes (the refs on its list) are copied to
 * the write head as they are, and the block is erased.  A few blocks are
 * kept back so that the GC always has somewhere to copy to. */
#include "jffs.h"

#include <errno.h>
#include <string.h>

/* The dirents in img (a block's contents) about to leave flash: a deletion
 * whose last older dirent goes need not be kept any more. */
void jffs_forget_dirents(struct jffs *fs, const uint8_t *img, uint32_t len)
{
    struct jffs_raw_dirent rd;
    for (uint32_t pos = 0; pos + JFFS_DIRENT_HDR <= len;) {
        uint16_t type;
        uint32_t totlen;
        if (jffs_decode_hdr(img + pos, 0, &type, &totlen) || totlen < 12 || pos + totlen > len) {
            pos += 4;
            continue;
        }
        if (type == JFFS_T_DIRENT && !jffs_decode_dirent(img + pos, len - pos, 0, &rd) && rd.ino) {
            struct jffs_inode *dir = jffs_inode_peek(fs, rd.pino);
            struct jffs_dent *e = dir ? jffs_dir_find(dir, rd.name, rd.nsize) : NULL;
            if (e && e->version > rd.version && e->pending && !--e->pending && !e->ino)
                jffs_dir_remove(fs, dir, e);
        }
        pos += JFFS_ALIGN(totlen);
    }
}

static int64_t pick_victim(struct jffs *fs)
{
    int64_t best = -1;
    for (uint32_t b = 0; b < fs->nblocks; b++)
        if (fs->blk[b].state == JB_USED && (best < 0 || fs->blk[b].live < fs->blk[best].live))
            best = b;
    return best;
}

int jffs_gc_one(struct jffs *fs)
{
    int64_t v = pick_victim(fs);
    if (v < 0 || fs->blk[v].live >= fs->bs - fs->ps)
        return -ENOSPC; /* nothing worth collecting */
    uint32_t b = (uint32_t)v;
    uint8_t *img = jffs_alloc(fs, fs->bs);
    if (!img)
        return -ENOMEM;
    int rc = 0;
    for (uint32_t p = 0; p < fs->ppb && !rc; p++) {
        rc = nand_read(fs->dev, b, p, img + (size_t)p * fs->ps, NULL, NULL);
        rc = rc == NAND_E_POWER ? -EIO : 0; /* ECC failures: copied, CRCs tell */
    }
    fs->in_gc++;
    if (!rc)
        jffs_forget_dirents(fs, img, fs->bs);
    uint64_t base = (uint64_t)b * fs->bs;
    while (!rc && fs->blk[b].list.next != &fs->blk[b].list) {
        struct jffs_ref *r = fs->blk[b].list.next;
        uint32_t l = r->len;
        uint64_t na;
        if (!(rc = jffs_write_node(fs, img + (r->addr - base), l, &na))) {
            jffs_ref_drop(fs, r);
            jffs_ref_add(fs, r, na, l);
            fs->gc_bytes += l;
        }
    }
    fs->in_gc--;
    jffs_free(fs, img, fs->bs);
    if (!rc) {
        rc = jffs_erase_block(fs, b);
        if (rc == -EIO && fs->blk[b].state == JB_BAD)
            rc = 0; /* worn out: retired, the GC goes on */
        fs->gc_rounds++;
    }
    return rc;
}

/* Free blocks above the reserve before a new head is taken; the GC itself
 * and calls that free space (fs->deleting) may dip into it. */
int jffs_make_room(struct jffs *fs)
{
    uint32_t want = fs->in_gc ? 0 : fs->deleting ? fs->opt.reserve_blocks / 2 : fs->opt.reserve_blocks;
    for (uint32_t i = 0; fs->nfree <= want; i++) {
        if (fs->in_gc || i > fs->nblocks)
            return -ENOSPC;
        int rc = jffs_gc_one(fs);
        if (rc)
            return rc;
    }
    return 0;
}

/* Whether `bytes` more of file data fit once the GC has compacted
 * everything: each block loses the tail a node did not fit in, a page of
 * sync padding and, with summaries, the entries of its nodes. */
void jffs_set_bad(struct jffs *fs, uint32_t b)
{
    if (fs->blk[b].state != JB_BAD)
        fs->nbad++;
    fs->blk[b].state = JB_BAD;
}

uint32_t jffs_good_blocks(const struct jffs *fs)
{
    return fs->nblocks - fs->nbad;
}

int jffs_space_check(struct jffs *fs, uint64_t bytes)
{
    uint32_t good = jffs_good_blocks(fs);
    uint64_t slack = JFFS_INODE_HDR + JFFS_DATA_MAX + 2 * fs->ps + JFFS_SUM_HDR + JFFS_SUM_TAIL;
    uint64_t nodes = bytes / JFFS_DATA_MAX + 2;
    uint64_t need = bytes + nodes * (JFFS_INODE_HDR + 4) + 2 * (JFFS_DIRENT_HDR + 260);
    uint64_t have = 0, used = fs->live_bytes;
    if (fs->opt.summary) {
        need += nodes * (JFFS_INODE_HDR + 4);
        used += fs->live_sum;
    }
    if (good > fs->opt.reserve_blocks + 1)
        have = (uint64_t)(good - fs->opt.reserve_blocks - 1) * (fs->bs - slack);
    return used + need <= have ? 0 : -ENOSPC;
}

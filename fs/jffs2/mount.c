/* mount.c -- mkfs, mount (find the nodes of every block, by summary
 * or scan, then build the maps), sync and unmount. */
#include "jffs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void fs_free(struct jffs *fs)
{
    for (uint32_t i = 0; i < fs->capino; i++)
        if (fs->inodes[i])
            jffs_inode_free(fs, fs->inodes[i]);
    jffs_free(fs, fs->inodes, (size_t)fs->capino * sizeof *fs->inodes);
    fs_fdtab_free(&fs->fds);
    jffs_free(fs, fs->sum, fs->sumcap);
    jffs_free(fs, fs->blk, (size_t)fs->nblocks * sizeof *fs->blk);
    jffs_free(fs, fs->himg, fs->bs);
    jffs_free(fs, fs->page, fs->ps);
    jffs_free(fs, fs->rbuf, JFFS_DATA_MAX);
    jffs_free(fs, fs->cbuf, JFFS_CDATA_MAX);
    free(fs);
}

static int fs_new(nand_dev *dev, const struct jffs_options *o, struct jffs **out)
{
    const struct nand_config *c = nand_get_config(dev);
    struct jffs *fs = calloc(1, sizeof *fs);
    if (!fs)
        return -ENOMEM;
    fs->dev = dev;
    if (o)
        fs->opt = *o;
    if (!fs->opt.reserve_blocks)
        fs->opt.reserve_blocks = 4;
    if (!fs->opt.compr_set)
        fs->opt.compr = JFFS_COMPR_LZO; /* Debian's kernel prefers LZO */
    fs->ps = c->geo.page_size;
    fs->ppb = c->geo.pages_per_block;
    fs->bs = fs->ps * fs->ppb;
    fs->nblocks = (uint32_t)nand_blocks(c);
    fs->head = -1;
    fs->next_ino = JFFS_INO_ROOT + 1;
    fs->next_version = 1;
    fs->mem = sizeof *fs;
    fs->fds.mem = &fs->mem;
    fs->blk = jffs_alloc(fs, (size_t)fs->nblocks * sizeof *fs->blk);
    fs->himg = jffs_alloc(fs, fs->bs);
    fs->page = jffs_alloc(fs, fs->ps);
    fs->rbuf = jffs_alloc(fs, JFFS_DATA_MAX);
    fs->cbuf = jffs_alloc(fs, JFFS_CDATA_MAX);
    if (!fs->blk || !fs->himg || !fs->page || !fs->rbuf || !fs->cbuf || fs->ps % 4 || fs->ps < 512 || c->geo.oob_size > fs->ps ||
        fs->nblocks < fs->opt.reserve_blocks + 4 || fs->bs < 4 * (JFFS_INODE_HDR + JFFS_DATA_MAX)) {
        fs_free(fs);
        return -EINVAL;
    }
    for (uint32_t b = 0; b < fs->nblocks; b++)
        fs->blk[b].list.next = fs->blk[b].list.prev = &fs->blk[b].list;
    *out = fs;
    return 0;
}

int jffs_mkfs(nand_dev *dev, const struct jffs_options *o)
{
    struct jffs *fs;
    int rc = fs_new(dev, o, &fs);
    if (rc)
        return rc;
    for (uint32_t b = 0; b < fs->nblocks && !rc; b++) {
        int bad = nand_is_bad(dev, b);
        if (bad < 0) {
            rc = -EIO;
        } else if (!bad && nand_erase(dev, b, NULL) == 0) {
            fs->blk[b].state = JB_FREE;
            fs->nfree++;
            if ((rc = jffs_write_cleanmarker(fs, b)) == -EIO && fs->blk[b].state == JB_BAD)
                rc = 0; /* it failed to program: retired */
        } else {
            if (!bad)
                nand_mark_bad(dev, b);
            jffs_set_bad(fs, b);
        }
    }
    struct jffs_inode *root = rc ? NULL : jffs_inode_make(fs, JFFS_INO_ROOT);
    if (!rc && !root)
        rc = -ENOMEM;
    if (!rc) {
        root->mode = S_IFDIR | 0755;
        root->nlink = 2;
        root->atime = root->mtime = root->ctime = jffs_now(fs);
        rc = jffs_write_inode(fs, root, 0, NULL, 0, 0);
    }
    if (!rc)
        rc = fs->opt.summary ? jffs_close_head(fs) : jffs_flush(fs);
    fs_free(fs);
    return rc;
}

int jffs_mount(nand_dev *dev, const struct jffs_options *o, struct jffs **out)
{
    struct jffs *fs;
    int rc = fs_new(dev, o, &fs);
    if (rc)
        return rc;
    struct jffs_recs rs = {0};
    for (uint32_t b = 0; b < fs->nblocks && !rc; b++) {
        int bad = nand_is_bad(dev, b); /* JFFS2 checks every block's marker */
        if (bad) {
            jffs_set_bad(fs, b);
            rc = bad < 0 ? -EIO : 0;
            continue;
        }
        uint32_t keep = rs.n;
        int got = 0, cm = jffs_read_cleanmarker(fs, b); /* first, as Linux */
        if (cm < 0) {
            rc = cm;
            continue;
        }
        if (fs->opt.summary && (got = jffs_sum_read(fs, b, &rs)) == 0) {
            for (uint32_t i = keep; i < rs.n; i++) /* a summary that failed midway */
                free(rs.v[i].rd);
            fs->work.nodes_indexed -= rs.n - keep;
            rs.n = keep;
        }
        if (got == 0)
            got = jffs_scan_block(fs, b, cm, &rs);
        if (got < 0)
            rc = got;
        else if (got == 0 || got == 2) {
            /* erased with a cleanmarker: free; just looking erased (an
             * interrupted erase can): erase before use */
            fs->blk[b].state = got == 2 ? JB_FREE : JB_UNKNOWN;
            fs->nfree++;
        } else {
            fs->blk[b].state = JB_USED;
        }
    }
    if (!rc) {
        rc = jffs_build(fs, &rs); /* frees rs */
    } else {
        for (uint32_t i = 0; i < rs.n; i++)
            free(rs.v[i].rd);
        free(rs.v);
    }
    if (rc) {
        fs_free(fs);
        return rc;
    }
    memset(fs->himg, 0xff, fs->bs);
    *out = fs;
    return 0;
}

int jffs_sync(struct jffs *fs)
{
    return jffs_flush(fs);
}

/* A clean unmount closes the head: with summaries, the next mount reads
 * only summaries.  The head is not reopened after mount either way (its
 * last page may be torn), so closing it costs nothing more. */
int jffs_unmount(struct jffs *fs)
{
    int rc = fs->opt.summary ? jffs_close_head(fs) : jffs_flush(fs);
    fs_free(fs);
    return rc;
}

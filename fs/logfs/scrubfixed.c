/*
 * scrubfixed.c -- scrubbing the blocks that are no segments: the two
 * superblock copies (programmed by mkfs, by no commit) and the anchor
 * ring's current block (programmed only when commits come).  Retention
 * and read disturb age them as any page; a file system whose segments are
 * scrubbed but whose superblock rots does not mount again
 * (docs/scrubbing.md).  They are judged as segments are: a read at the
 * threshold (or failing ECC, or not holding what it should) calls for a
 * refresh.
 *
 * The superblock is refreshed copy by copy, the one that read worse
 * first: erase, program page 0 with the same bytes, read it back; only
 * when it reads back whole is the other copy touched.  A power cut at any
 * instant so leaves one valid copy, and mount falls back to the other
 * (docs/FORMAT.md section 5).  The ring is refreshed by a commit into a
 * fresh block (erased first, mirror by mirror), as when a block fills.
 */
#include "tree.h"

#include <errno.h>

/* Whether a read of a fixed block calls for its refresh. */
static int read_due(const struct logfs *fs, int nrc, const struct nand_result *res)
{
    return nrc == NAND_E_ECC || (nrc == NAND_OK && res->max_cw_bits >= fs->scrub.threshold);
}

static int is_super(const struct logfs *fs, uint32_t block)
{
    return block == 0 || block == fs->sb.backup_block;
}

void lfs_scrub_super_due(struct logfs *fs, uint32_t block)
{
    if (!fs->scrub.threshold || fs->scrub.super_off || fs->scrub.super_due)
        return;
    fs->scrub.super_due = 1;
    fs->scrub.super_first = block;
}

int lfs_scrub_fixed_read(struct logfs *fs, uint32_t block, uint64_t *reads)
{
    struct nand_result res = {0};
    if (is_super(fs, block)) {
        uint8_t want[LFS_SB_SIZE], got[LFS_SB_SIZE];
        lfs_super_encode(&fs->sb, want);
        int nrc = nand_read_col(fs->dev, block, 0, 0, got, LFS_SB_SIZE, &res);
        ++*reads;
        if (nrc && nrc != NAND_E_ECC)
            return lfs_errno(nrc);
        if (read_due(fs, nrc, &res) || memcmp(got, want, LFS_SB_SIZE))
            lfs_scrub_super_due(fs, block);
        return 0;
    }
    if (lfs_ring_current_mirror(&fs->ring, block) < 0 || fs->scrub.ring_due)
        return 0;
    /* the newest record, in this mirror's copy */
    struct lfs_anchor a;
    uint8_t *buf = lfs_alloc(fs, fs->g.page_size);
    if (!buf)
        return -ENOMEM;
    int nrc = nand_read(fs->dev, block, fs->ring.last_page, buf, NULL, &res);
    ++*reads;
    if (!nrc || nrc == NAND_E_ECC)
        fs->scrub.ring_due = read_due(fs, nrc, &res) ||
                             lfs_anchor_decode(buf, fs->g.page_size, &a, fs->ring.version) ||
                             a.seq != fs->an.seq;
    lfs_free(fs, buf, fs->g.page_size);
    return nrc && nrc != NAND_E_ECC ? lfs_errno(nrc) : 0;
}

/* Rewrite one superblock copy and read it back: 0 when it holds page's
 * bytes, 1 when the block failed, or an errno (power cut). */
static int rewrite_copy(struct logfs *fs, uint32_t block, const uint8_t *page)
{
    uint8_t got[LFS_SB_SIZE];
    int nrc = nand_erase(fs->dev, block, NULL);
    if (!nrc)
        nrc = nand_program(fs->dev, block, 0, page, NULL, NULL);
    if (!nrc)
        nrc = nand_read_col(fs->dev, block, 0, 0, got, LFS_SB_SIZE, NULL);
    if (nrc == NAND_E_POWER || nrc == NAND_E_NOMEM || nrc == NAND_E_IO)
        return lfs_errno(nrc);
    return nrc || memcmp(got, page, LFS_SB_SIZE) ? 1 : 0;
}

static int refresh_super(struct logfs *fs)
{
    uint8_t *page = lfs_alloc(fs, fs->g.page_size);
    if (!page)
        return -ENOMEM;
    memset(page, 0xff, fs->g.page_size);
    lfs_super_encode(&fs->sb, page);
    uint32_t order[2] = {fs->scrub.super_first, 0};
    order[1] = order[0] == 0 ? fs->sb.backup_block : 0;
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        rc = rewrite_copy(fs, order[i], page);
        fs->ctr.scrub_super++;
    }
    /* a copy that would not take its bytes: the other one is left as it
     * was, and neither is touched again in this mount */
    if (rc > 0) {
        fs->scrub.super_off = 1;
        rc = 0;
    }
    lfs_free(fs, page, fs->g.page_size);
    return rc;
}

int lfs_scrub_fixed(struct logfs *fs)
{
    int rc = 0;
    if (fs->readonly || fs->failed)
        return 0;
    if (fs->scrub.super_due) {
        fs->scrub.super_due = 0;
        rc = refresh_super(fs);
    }
    if (!rc && fs->scrub.ring_due) {
        fs->scrub.ring_due = 0;
        fs->ring.next_page = fs->g.pages_per_block; /* a fresh block */
        fs->ctr.scrub_anchor++;
        rc = lfs_commit(fs);
    }
    return rc;
}

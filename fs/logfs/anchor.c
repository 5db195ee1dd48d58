/*
 * anchor.c -- the anchor ring: versioned root records in a few fixed
 * erase blocks.
 *
 * Each commit programs the next page of the current ring block with one
 * record.  Mount reads page 0 of every ring block (the block whose first
 * record is newest is current), then binary-searches that block for its
 * last programmed page -- pages are programmed in order, so the programmed
 * pages are a prefix -- and steps back over a torn page if there is one.
 * The next record after a mount always starts a fresh block: a torn page
 * may read as erased and must never be programmed again.
 *
 * A block's first record is page 0's, but when page 0 is neither erased nor
 * a valid record -- torn by the program of its upper page on a part with
 * paired pages, or damaged on the medium (bit flips past what ECC corrects,
 * an uncorrectable page) -- it is the first valid record among the block's
 * next pages (first_record): records in a block only grow, so any of them
 * orders the block as well as page 0 would.  Trusting page 0 alone mounted
 * an older commit, silently, when one page 0 went bad.
 *
 * Cost, in page reads (an uncorrectable read is tried up to
 * RECORD_READ_TRIES times): a clean ring takes anchor_count +
 * ceil(log2(pages_per_block)) + 1 or 2, as before.  Each damaged page costs
 * one more; the worst case, every ring page damaged, is anchor_count *
 * pages_per_block (step 1) + ceil(log2(pages_per_block)) (step 2) +
 * pages_per_block (step 3): bounded by the ring, never by the device.
 *
 * When the record found is evidently not the newest one programmed --
 * pages after it in its block are programmed but not valid, or a damaged
 * page elsewhere in the ring has a header that claims a newer seq -- the
 * ring says so (lfs_ring.lost): damage on the medium and a power cut that
 * tore the last record look the same on flash, and neither is passed over
 * silently.  (A newer block that is wholly unreadable cannot be told from
 * an older one; fsck, which reads every ring page, reports it.)
 */
#include "format.h"

#include <errno.h>
#include <stdlib.h>

#define RECORD_READ_TRIES 8

/* Record layout (docs/FORMAT.md):
 *   0 u32 magic  4 u32 length  8 u64 sequence  16 u32 CRC (over the record
 *   with these 4 bytes zero)  20 u32 flags (bit 0: written by unmount, bit 1: orphans
 *   beyond the list, scan at mount)
 *   24 u64 segment clock
 *   32 master inode  240 segment-file inode  448 u64 next inode
 *   456 u64 live bytes  464 u64 free segments  472 u64 host bytes written
 *   480 areas: 14 x (u32 segment, u32 offset)
 *   592 u32 pool count, 32 x (u32 segment, u32 erase count)
 *   852 u32 orphan count, 32 x u64 inode */

uint32_t lfs_anchor_encode(const struct lfs_anchor *a, uint8_t *out)
{
    uint8_t *p = out;
    memset(out, 0, LFS_ANCHOR_BYTES);
    le32_put(p, LFS_ANCHOR_MAGIC);
    le32_put(p + 4, LFS_ANCHOR_BYTES);
    le64_put(p + 8, a->seq);
    le32_put(p + 20, a->flags);
    le64_put(p + 24, a->seg_clock);
    p += 32;
    lfs_inode_encode(&a->inodefile, p);
    p += LFS_INODE_BYTES;
    lfs_inode_encode(&a->segfile, p);
    p += LFS_INODE_BYTES;
    le64_put(p, a->next_ino);
    le64_put(p + 8, a->live_bytes);
    le64_put(p + 16, a->free_segments);
    le64_put(p + 24, a->host_bytes_written);
    p += 32;
    for (unsigned i = 0; i < LFS_NAREAS; i++, p += 8) {
        le32_put(p, a->area[i].seg);
        le32_put(p + 4, a->area[i].off);
    }
    le32_put(p, a->npool);
    p += 4;
    for (unsigned i = 0; i < LFS_POOL_MAX; i++, p += 8) {
        le32_put(p, i < a->npool ? a->pool[i].seg : 0);
        le32_put(p + 4, i < a->npool ? a->pool[i].erases : 0);
    }
    le32_put(p, a->norphans);
    p += 4;
    for (unsigned i = 0; i < LFS_ORPHAN_MAX; i++, p += 8)
        le64_put(p, i < a->norphans ? a->orphans[i] : 0);
    le32_put(out + 16, lfs_crc(out, LFS_ANCHOR_BYTES));
    return LFS_ANCHOR_BYTES;
}

int lfs_anchor_decode(const uint8_t *buf, uint32_t len, struct lfs_anchor *a)
{
    if (len < LFS_ANCHOR_BYTES || le32_get(buf) != LFS_ANCHOR_MAGIC ||
        le32_get(buf + 4) != LFS_ANCHOR_BYTES)
        return -EINVAL;
    uint8_t *copy = malloc(LFS_ANCHOR_BYTES);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, buf, LFS_ANCHOR_BYTES);
    memset(copy + 16, 0, 4);
    int ok = lfs_crc(copy, LFS_ANCHOR_BYTES) == le32_get(buf + 16);
    free(copy);
    if (!ok)
        return -EINVAL;
    const uint8_t *p = buf;
    memset(a, 0, sizeof *a);
    a->seq = le64_get(p + 8);
    a->flags = le32_get(p + 20);
    a->seg_clock = le64_get(p + 24);
    if (a->flags & ~(LFS_ANCHOR_CLEAN | LFS_ANCHOR_ORPHAN_SCAN))
        return -EINVAL;
    p += 32;
    if (lfs_inode_decode(p, LFS_INODE_BYTES, &a->inodefile) ||
        lfs_inode_decode(p + LFS_INODE_BYTES, LFS_INODE_BYTES, &a->segfile))
        return -EINVAL;
    p += 2 * LFS_INODE_BYTES;
    a->next_ino = le64_get(p);
    a->live_bytes = le64_get(p + 8);
    a->free_segments = le64_get(p + 16);
    a->host_bytes_written = le64_get(p + 24);
    p += 32;
    for (unsigned i = 0; i < LFS_NAREAS; i++, p += 8) {
        a->area[i].seg = le32_get(p);
        a->area[i].off = le32_get(p + 4);
    }
    a->npool = le32_get(p);
    p += 4;
    for (unsigned i = 0; i < LFS_POOL_MAX; i++, p += 8) {
        a->pool[i].seg = le32_get(p);
        a->pool[i].erases = le32_get(p + 4);
    }
    a->norphans = le32_get(p);
    p += 4;
    for (unsigned i = 0; i < LFS_ORPHAN_MAX; i++, p += 8)
        a->orphans[i] = le64_get(p);
    if (a->npool > LFS_POOL_MAX || a->norphans > LFS_ORPHAN_MAX)
        return -EINVAL;
    return 0;
}

/* ---- the ring ---------------------------------------------------------- */

static int page_erased(const uint8_t *buf, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (buf[i] != 0xff)
            return 0;
    return 1;
}

/* Read one ring page: 1 = valid record (in *a), 0 = erased, -1 = other
 * (torn, unreadable, garbage), or a negative errno when the device fails
 * in a way that is not about this page.  *claim: for an other page that
 * reads without an ECC error and whose magic and length are right, the
 * seq its header claims (a record the medium damaged after it was
 * written); else 0. */
static int read_record(nand_dev *dev, uint32_t block, uint32_t page,
                       uint8_t *buf, struct lfs_anchor *a, uint64_t *claim)
{
    const struct nand_config *c = nand_get_config(dev);
    /* An uncorrectable read is retried (as a controller's read retry
     * would): noise passes, while a page torn by a power cut stays
     * unreadable and is then taken for what it is.  Giving up on a page
     * that only read badly once would mount an older commit. */
    int rc = NAND_E_ECC;
    *claim = 0;
    for (int tries = 0; rc == NAND_E_ECC && tries < RECORD_READ_TRIES; tries++)
        rc = nand_read(dev, block, page, buf, NULL, NULL);
    if (rc == NAND_E_POWER || rc == NAND_E_NOMEM)
        return lfs_errno(rc);
    if (rc == NAND_OK && page_erased(buf, c->geo.page_size))
        return 0;
    if (rc == NAND_OK && lfs_anchor_decode(buf, c->geo.page_size, a) == 0)
        return 1;
    if (rc == NAND_OK && le32_get(buf) == LFS_ANCHOR_MAGIC &&
        le32_get(buf + 4) == LFS_ANCHOR_BYTES)
        *claim = le64_get(buf + 8);
    return -1; /* programmed but not a record */
}

/* The first record of a ring block, as read_record answers: 1 (in *a, its
 * page in *page), 0 when the reads ended at an erased page (*page: which;
 * 0 = the block is erased), -1 when every page is other, or an errno.
 * Page 0, but if page 0 is neither erased nor valid, the next pages in
 * order until one is: a torn program of page 0's upper page, or damage on
 * the medium, leaves the records after page 0 intact.  At most
 * pages_per_block reads.  *claim: the largest seq the headers of the other
 * pages read claim (read_record), 0 if none. */
static int first_record(nand_dev *dev, uint32_t block, uint8_t *buf,
                        struct lfs_anchor *a, uint32_t *page, uint64_t *claim)
{
    const struct nand_config *c = nand_get_config(dev);
    int rc = -1;
    uint32_t p;
    uint64_t cl;
    *claim = 0;
    for (p = 0; rc == -1 && p < c->geo.pages_per_block; p++) {
        rc = read_record(dev, block, p, buf, a, &cl);
        *claim = cl > *claim ? cl : *claim;
    }
    *page = p - 1;
    return rc;
}

int lfs_ring_find(nand_dev *dev, struct lfs_ring *ring, struct lfs_anchor *out)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ppb = c->geo.pages_per_block;
    uint8_t *buf = malloc(c->geo.page_size);
    struct lfs_anchor a;
    int best = -1, rc = 0;
    uint64_t best_seq = 0;
    uint32_t best_first = 0; /* page of the current block's first record */
    uint32_t erased = 0;     /* bit i: block i's first page reads erased */
    uint64_t claim[LFS_MAX_ANCHOR_BLOCKS], cl;
    if (!buf)
        return -ENOMEM;
    ring->lost = 0;
    ring->found_seq = 0;
    for (uint32_t i = 0; i < ring->count; i++) {
        uint32_t page;
        rc = first_record(dev, ring->blocks[i], buf, &a, &page, &claim[i]);
        if (rc < -1)
            goto out;
        erased |= (uint32_t)(rc == 0 && page == 0) << i;
        if (rc == 1 && (best < 0 || a.seq > best_seq)) {
            best = (int)i;
            best_seq = a.seq;
            best_first = page;
        }
    }
    if (best < 0) {
        rc = -ENOENT;
        goto out;
    }
    /* last programmed page of the current block: the programmed pages are
     * a prefix, so "not erased" is monotone; the first record's page is
     * programmed */
    uint32_t lo = best_first, hi = ppb; /* lo programmed, hi the first erased */
    uint32_t block = ring->blocks[best];
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        rc = read_record(dev, block, mid, buf, &a, &cl);
        if (rc < -1)
            goto out;
        if (rc == 0)
            hi = mid;
        else
            lo = mid;
    }
    /* newest valid record at or below lo: a cut leaves at most the last
     * programmed page torn, so this loop reads one or two pages unless the
     * medium damaged more; it stops at the first record at the latest */
    for (uint32_t p = lo + 1; p-- > best_first;) {
        rc = read_record(dev, block, p, buf, &a, &cl);
        if (rc < -1)
            goto out;
        if (rc == 1) {
            *out = a;
            ring->cur = (uint32_t)best;
            /* after a clean unmount nothing follows the record: go on in
             * its block, or, if it filled the block, in the next one, which
             * lfs_ring_write erased before writing it (a mount then costs
             * no erase); after a crash a torn page may follow it, so start
             * a fresh block */
            int clean = (a.flags & LFS_ANCHOR_CLEAN) && p == lo;
            uint32_t next = (uint32_t)(best + 1) % ring->count;
            ring->next_page = clean ? p + 1 : ppb;
            ring->next_erased = clean && p + 1 == ppb && next != (uint32_t)best &&
                                (erased >> next & 1);
            /* newer than the record: the programmed pages after it in
             * its block, and in another block, at least one if a damaged
             * page there claims a newer seq (a block that is wholly
             * unreadable cannot be told from an older one) */
            ring->lost = lo - p;
            for (uint32_t i = 0; i < ring->count; i++)
                ring->lost += i != (uint32_t)best && claim[i] > a.seq;
            ring->found_seq = a.seq;
            rc = 0;
            goto out;
        }
    }
    rc = -ENOENT; /* unreachable while the block held a record */
out:
    free(buf);
    return rc;
}

static int erase(nand_dev *dev, struct lfs_ring *ring, uint32_t i)
{
    ring->erases++;
    return lfs_errno(nand_erase(dev, ring->blocks[i], NULL));
}

int lfs_ring_write(nand_dev *dev, struct lfs_ring *ring, const struct lfs_anchor *a,
                   int erase_ahead)
{
    const struct nand_config *c = nand_get_config(dev);
    uint8_t *buf = malloc(c->geo.page_size);
    int rc;
    if (!buf)
        return -ENOMEM;
    memset(buf, 0xff, c->geo.page_size);
    lfs_anchor_encode(a, buf);
    uint32_t ppb = c->geo.pages_per_block, next = (ring->cur + 1) % ring->count;
    if (ring->next_page >= ppb) {
        ring->cur = next;
        next = (ring->cur + 1) % ring->count;
        ring->next_page = 0;
        if (!ring->next_erased && (rc = erase(dev, ring, ring->cur)))
            goto out;
        ring->next_erased = 0;
    }
    /* a commit's record that fills the block: erase the next one first,
     * so that the record after it (the next mount's, after a clean
     * unmount) costs no erase; a crash in this erase leaves the older
     * records there torn, and this block still holds the newest.  A
     * mount's record leaves that erase to the next commit. */
    if (erase_ahead && ring->next_page == ppb - 1 && next != ring->cur) {
        if ((rc = erase(dev, ring, next)))
            goto out;
        ring->next_erased = 1;
    }
    rc = lfs_errno(nand_program(dev, ring->blocks[ring->cur], ring->next_page,
                                buf, NULL, NULL));
    ring->next_page++; /* a failed page is never retried */
    ring->pages++;
out:
    free(buf);
    return rc;
}

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
 * ceil(log2(pages_per_block)) + 2 or 3 (one more per ring block whose page 0
 * reads erased: page 1 says whether it was wiped).  Each damaged page costs
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
 *
 * Format 4 keeps two mirrors of the ring (ring_mirrors): every record is
 * programmed twice, to the same page of the same logical block of each,
 * so the newest commit survives any single damaged page, as UBIFS keeps
 * two master nodes.  Cost: two pages per commit instead of one, twice the
 * erases of the ring, and twice the mount's reads above.  The mirrors are
 * searched alone and the newer record wins; a commit is durable once its
 * first copy is programmed.
 */
#include "format.h"
#include "crc32.h"

#include <errno.h>
#include <stdlib.h>

#define RECORD_READ_TRIES 8

/* Record layout (docs/FORMAT.md; I = the format's inode bytes, 256 or
 * 208 in format 3):
 *   0 u32 magic  4 u32 length  8 u64 sequence  16 u32 CRC (over the record
 *   with these 4 bytes zero)  20 u32 flags (bit 0: written by unmount, bit 1: orphans
 *   beyond the list, scan at mount)
 *   24 u64 segment clock
 *   32 master inode  32+I segment-file inode  32+2I u64 next inode,
 *   u64 live bytes, u64 free segments, u64 host bytes written
 *   64+2I areas: 14 x (u32 segment, u32 offset)
 *   176+2I u32 pool count, 32 x (u32 segment, u32 erase count)
 *   436+2I u32 orphan count, 32 x u64 inode */

uint32_t lfs_anchor_bytes(uint32_t version)
{
    return version == 3 ? LFS_ANCHOR_BYTES_V3 : LFS_ANCHOR_BYTES;
}

uint32_t lfs_anchor_encode(const struct lfs_anchor *a, uint8_t *out, uint32_t version)
{
    uint32_t n = lfs_anchor_bytes(version);
    uint8_t *p = out;
    memset(out, 0, n);
    le32_put(p, LFS_ANCHOR_MAGIC);
    le32_put(p + 4, n);
    le64_put(p + 8, a->seq);
    le32_put(p + 20, a->flags);
    le64_put(p + 24, a->seg_clock);
    p += 32;
    p += lfs_inode_encode(&a->inodefile, p, version);
    p += lfs_inode_encode(&a->segfile, p, version);
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
    le32_put(out + 16, lfs_crc(out, n));
    return n;
}

/* The CRC of a record with its CRC field taken as zero. */
static uint32_t record_crc(const uint8_t *buf, uint32_t n)
{
    static const uint8_t zero[4];
    uint32_t c = flashlab_crc32(0, buf, 16);
    c = flashlab_crc32(c, zero, 4);
    return flashlab_crc32(c, buf + 20, n - 20);
}

int lfs_anchor_decode(const uint8_t *buf, uint32_t len, struct lfs_anchor *a,
                      uint32_t version)
{
    uint32_t n = lfs_anchor_bytes(version);
    uint32_t ib = version == 3 ? LFS_INODE_BYTES_V3 : LFS_INODE_BYTES;
    if (len < n || le32_get(buf) != LFS_ANCHOR_MAGIC || le32_get(buf + 4) != n ||
        record_crc(buf, n) != le32_get(buf + 16))
        return -EINVAL;
    const uint8_t *p = buf;
    memset(a, 0, sizeof *a);
    a->seq = le64_get(p + 8);
    a->flags = le32_get(p + 20);
    a->seg_clock = le64_get(p + 24);
    if (a->flags & ~(LFS_ANCHOR_CLEAN | LFS_ANCHOR_ORPHAN_SCAN))
        return -EINVAL;
    p += 32;
    if (lfs_inode_decode(p, ib, &a->inodefile) ||
        lfs_inode_decode(p + ib, ib, &a->segfile))
        return -EINVAL;
    p += 2 * ib;
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

/* The ring of format 4 is two mirrors: blocks[0 .. count/2) and
 * blocks[count/2 .. count), written alike, each record to the same page of
 * the same logical block of both, mirror 0 first.  Format 3 had one. */
static uint32_t ring_mirrors(const struct lfs_ring *r)
{
    return r->version == 3 ? 1 : 2;
}

static uint32_t ring_len(const struct lfs_ring *r)
{
    return r->count / ring_mirrors(r);
}

uint32_t lfs_ring_len(const struct lfs_ring *ring)
{
    return ring_len(ring);
}

static uint32_t ring_block(const struct lfs_ring *r, uint32_t m, uint32_t i)
{
    return r->blocks[m * ring_len(r) + i];
}

/* Read one ring page: 1 = valid record (in *a), 0 = erased, -1 = other
 * (torn, unreadable, garbage), or a negative errno when the device fails
 * in a way that is not about this page.  *claim: for an other page that
 * reads without an ECC error and whose magic and length are right, the
 * seq its header claims (a record the medium damaged after it was
 * written); else 0. */
static int read_record_bits(nand_dev *dev, const struct lfs_ring *ring, uint32_t block,
                            uint32_t page, uint8_t *buf, struct lfs_anchor *a,
                            uint64_t *claim, uint32_t *bits)
{
    const struct nand_config *c = nand_get_config(dev);
    /* An uncorrectable read is retried (as a controller's read retry
     * would): noise passes, while a page torn by a power cut stays
     * unreadable and is then taken for what it is.  Giving up on a page
     * that only read badly once would mount an older commit. */
    int rc = NAND_E_ECC;
    struct nand_result res = {0};
    *claim = 0;
    for (int tries = 0; rc == NAND_E_ECC && tries < RECORD_READ_TRIES; tries++)
        rc = nand_read(dev, block, page, buf, NULL, &res);
    *bits = rc == NAND_OK ? res.max_cw_bits : UINT32_MAX;
    if (rc == NAND_E_POWER || rc == NAND_E_NOMEM)
        return lfs_errno(rc);
    if (rc == NAND_OK && page_erased(buf, c->geo.page_size))
        return 0;
    if (rc == NAND_OK && lfs_anchor_decode(buf, c->geo.page_size, a, ring->version) == 0)
        return 1;
    if (rc == NAND_OK && le32_get(buf) == LFS_ANCHOR_MAGIC &&
        le32_get(buf + 4) == lfs_anchor_bytes(ring->version))
        *claim = le64_get(buf + 8);
    return -1; /* programmed but not a record */
}

static int read_record(nand_dev *dev, const struct lfs_ring *ring, uint32_t block,
                       uint32_t page, uint8_t *buf, struct lfs_anchor *a,
                       uint64_t *claim)
{
    uint32_t bits;
    return read_record_bits(dev, ring, block, page, buf, a, claim, &bits);
}

/* The first record of a ring block, as read_record answers: 1 (in *a, its
 * page in *page), 0 when the reads ended at an erased page (*page: which;
 * 0 = the block is erased), -1 when every page is other, or an errno.
 * Page 0, but if page 0 is neither erased nor valid, the next pages in
 * order until one is: a torn program of page 0's upper page, or damage on
 * the medium, leaves the records after page 0 intact.  At most
 * pages_per_block reads.  *claim: the largest seq the headers of the other
 * pages read claim (read_record), 0 if none. */
static int first_record(nand_dev *dev, const struct lfs_ring *ring, uint32_t block,
                        uint8_t *buf, struct lfs_anchor *a, uint32_t *page,
                        uint64_t *claim)
{
    const struct nand_config *c = nand_get_config(dev);
    int rc = -1;
    uint32_t p;
    uint64_t cl;
    *claim = 0;
    for (p = 0; rc == -1 && p < c->geo.pages_per_block; p++) {
        rc = read_record(dev, ring, block, p, buf, a, &cl);
        *claim = cl > *claim ? cl : *claim;
        /* page 0 reads erased: the block is erased, unless page 1 is
         * programmed -- page 0 was then wiped on the medium (it reads as
         * if never programmed) and the block is searched from page 1 */
        if (rc == 0 && p == 0 && c->geo.pages_per_block > 1) {
            uint8_t *probe = malloc(c->geo.page_size);
            if (!probe)
                return -ENOMEM;
            int r1 = read_record(dev, ring, block, 1, probe, a, &cl);
            free(probe);
            if (r1 < -1)
                return r1;
            if (r1 != 0)
                rc = -1;
        }
    }
    *page = p - 1;
    return rc;
}

/* What one mirror holds: its newest valid record and where. */
struct mirror_find {
    int found;               /* a record is in *a */
    struct lfs_anchor a;
    uint32_t cur, page;      /* its logical block and page */
    uint32_t bits;           /* the worst codeword of its read */
    int resumable;           /* a clean unmount's record, nothing after it */
    int next_erased;         /* the logical block after cur reads erased */
    uint64_t newest;         /* the newest seq evidence says was programmed */
};

static int find_in_mirror(nand_dev *dev, const struct lfs_ring *ring, uint32_t m,
                          uint8_t *buf, struct mirror_find *f)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ppb = c->geo.pages_per_block, len = ring_len(ring);
    struct lfs_anchor a;
    int best = -1, rc;
    uint64_t best_seq = 0, cl, claim[LFS_MAX_ANCHOR_BLOCKS], top_claim = 0;
    uint32_t best_first = 0; /* page of the current block's first record */
    uint32_t erased = 0;     /* bit i: block i's first page reads erased */
    f->found = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t page;
        rc = first_record(dev, ring, ring_block(ring, m, i), buf, &a, &page, &claim[i]);
        if (rc < -1)
            return rc;
        top_claim = claim[i] > top_claim ? claim[i] : top_claim;
        erased |= (uint32_t)(rc == 0 && page == 0) << i;
        if (rc == 1 && (best < 0 || a.seq > best_seq)) {
            best = (int)i;
            best_seq = a.seq;
            best_first = page;
        }
    }
    f->newest = top_claim;
    if (best < 0)
        return 0;
    /* last programmed page of the current block: the programmed pages are
     * a prefix, so "not erased" is monotone; the first record's page is
     * programmed */
    uint32_t lo = best_first, hi = ppb; /* lo programmed, hi the first erased */
    uint32_t block = ring_block(ring, m, (uint32_t)best);
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((rc = read_record(dev, ring, block, mid, buf, &a, &cl)) < -1)
            return rc;
        if (rc == 0)
            hi = mid;
        else
            lo = mid;
    }
    /* a page wiped on the medium reads erased amid programmed ones and
     * breaks the prefix: when the page after the first erased one is
     * programmed, the rest of the block is read page by page */
    if (lo + 2 < ppb) {
        if ((rc = read_record(dev, ring, block, lo + 2, buf, &a, &cl)) < -1)
            return rc;
        for (uint32_t p = lo + 2, first = p; rc != 0 && p < ppb; p++) {
            if (p > first && (rc = read_record(dev, ring, block, p, buf, &a, &cl)) < -1)
                return rc;
            if (rc != 0)
                lo = p;
        }
    }
    /* newest valid record at or below lo: a cut leaves at most the last
     * programmed page torn, so this loop reads one or two pages unless the
     * medium damaged more; it stops at the first record at the latest */
    for (uint32_t p = lo + 1; p-- > best_first;) {
        uint32_t bits;
        if ((rc = read_record_bits(dev, ring, block, p, buf, &a, &cl, &bits)) < -1)
            return rc;
        if (rc != 1)
            continue;
        uint32_t next = ((uint32_t)best + 1) % len;
        f->found = 1;
        f->a = a;
        f->cur = (uint32_t)best;
        f->page = p;
        f->bits = bits;
        f->resumable = (a.flags & LFS_ANCHOR_CLEAN) && p == lo;
        f->next_erased = next != (uint32_t)best && (erased >> next & 1);
        /* newer than the record: the programmed pages after it in its
         * block, and a damaged page elsewhere whose header claims more (a
         * block that is wholly unreadable cannot be told from an older
         * one) */
        uint64_t after = a.seq + (lo - p);
        f->newest = after > top_claim ? after : top_claim;
        return 0;
    }
    return 0; /* unreachable while the block held a record */
}

int lfs_ring_find(nand_dev *dev, struct lfs_ring *ring, struct lfs_anchor *out)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ppb = c->geo.pages_per_block, nm = ring_mirrors(ring);
    uint8_t *buf = malloc(c->geo.page_size);
    struct mirror_find f[2];
    int rc = 0, best = -1;
    uint64_t newest = 0;
    if (!buf)
        return -ENOMEM;
    for (uint32_t m = 0; m < nm && !rc; m++) {
        rc = find_in_mirror(dev, ring, m, buf, &f[m]);
        newest = f[m].newest > newest ? f[m].newest : newest;
        if (!rc && f[m].found && (best < 0 || f[m].a.seq > f[best].a.seq))
            best = (int)m;
    }
    free(buf);
    if (rc)
        return rc;
    if (best < 0)
        return -ENOENT;
    const struct mirror_find *b = &f[best];
    *out = b->a;
    ring->found_seq = b->a.seq;
    ring->lost = newest > b->a.seq ? (uint32_t)(newest - b->a.seq) : 0;
    ring->cur = b->cur;
    ring->last_page = b->page;
    ring->found_bits = 0;
    for (uint32_t m = 0; m < nm; m++) {
        uint32_t bits = f[m].found && f[m].a.seq == b->a.seq ? f[m].bits : UINT32_MAX;
        ring->found_bits = bits > ring->found_bits ? bits : ring->found_bits;
    }
    /* after a clean unmount nothing follows the record: go on in its
     * block, or, if it filled the block, in the next one, which
     * lfs_ring_write erased before writing it (a mount then costs no
     * erase); after a crash a torn page may follow it -- and the mirrors
     * must stand at the same page -- so start a fresh block */
    int resume = 1, next_erased = 1;
    for (uint32_t m = 0; m < nm; m++) {
        resume &= f[m].found && f[m].resumable && f[m].a.seq == b->a.seq &&
                  f[m].cur == b->cur && f[m].page == b->page;
        next_erased &= f[m].found && f[m].next_erased;
    }
    ring->next_page = resume ? b->page + 1 : ppb;
    ring->next_erased = resume && b->page + 1 == ppb && next_erased;
    return 0;
}

int lfs_ring_current_mirror(const struct lfs_ring *ring, uint32_t block)
{
    for (uint32_t m = 0; m < ring_mirrors(ring); m++)
        if (ring->cur < ring_len(ring) && ring_block(ring, m, ring->cur) == block)
            return (int)m;
    return -1;
}

/* A ring block that failed a program or an erase: marked bad on flash, as
 * the segments' are, and its logical block left out of the ring until the
 * next mount (which finds out again by trying: see lfs_ring_write). */
static void drop(nand_dev *dev, struct lfs_ring *ring, uint32_t i, uint32_t block)
{
    nand_mark_bad(dev, block); /* best effort: a failing block may refuse it */
    if (!(ring->unusable >> i & 1))
        ring->bad++;
    ring->unusable |= 1u << i;
}

/* The next logical block after i that the ring may use (i itself when it
 * is the only one left), or UINT32_MAX when none is. */
static uint32_t next_usable(const struct lfs_ring *ring, uint32_t i)
{
    uint32_t len = ring_len(ring);
    for (uint32_t k = 1; k <= len; k++) {
        uint32_t j = (i + k) % len;
        if (!(ring->unusable >> j & 1))
            return j;
    }
    return UINT32_MAX;
}

/* Erase logical block i in both mirrors (the erase ahead); a mirror's
 * block that fails is dropped and so is i. */
static int erase(nand_dev *dev, struct lfs_ring *ring, uint32_t i)
{
    for (uint32_t m = 0; m < ring_mirrors(ring); m++) {
        uint32_t block = ring_block(ring, m, i);
        ring->erases++;
        /* a failed block is dropped, the device's failures (power) returned */
        int rc = lfs_flash_rc(nand_erase(dev, block, NULL));
        if (rc == LFS_E_RETIRE) {
            drop(dev, ring, i, block);
            return 0;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* One try at programming the record (in buf) as the next page: 0, 1 when
 * a ring block failed (it is dropped; the caller tries again in a fresh
 * block), or an errno. */
static int write_once(nand_dev *dev, struct lfs_ring *ring, const uint8_t *buf,
                      int erase_ahead)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ppb = c->geo.pages_per_block;
    int erase_cur = 0;
    if (ring->next_page >= ppb) {
        uint32_t n = next_usable(ring, ring->cur);
        if (n == UINT32_MAX)
            return -EROFS;
        /* the erase ahead was of the block after cur, which n is unless
         * that one was dropped since */
        erase_cur = !ring->next_erased || n != (ring->cur + 1) % ring_len(ring);
        ring->cur = n;
        ring->next_page = 0;
        ring->next_erased = 0;
    }
    /* a commit's record that fills the block: erase the next one first,
     * so that the record after it (the next mount's, after a clean
     * unmount) costs no erase; a crash in this erase leaves the older
     * records there torn, and this block still holds the newest.  A
     * mount's record leaves that erase to the next commit. */
    uint32_t next = next_usable(ring, ring->cur);
    if (erase_ahead && ring->next_page == ppb - 1 && next != ring->cur && next != UINT32_MAX) {
        int rc = erase(dev, ring, next);
        if (rc)
            return rc;
        ring->next_erased = !(ring->unusable >> next & 1) && next == (ring->cur + 1) % ring_len(ring);
    }
    /* mirror by mirror, so that a cut while one is erased or torn leaves
     * the other whole -- with one block per mirror too */
    for (uint32_t m = 0; m < ring_mirrors(ring); m++) {
        uint32_t block = ring_block(ring, m, ring->cur);
        int nrc = NAND_OK;
        if (erase_cur) {
            ring->erases++;
            nrc = nand_erase(dev, block, NULL);
        }
        if (!nrc) {
            nrc = nand_program(dev, block, ring->next_page, buf, NULL, NULL);
            ring->pages++;
        }
        int rc = lfs_flash_rc(nrc);
        if (rc == LFS_E_RETIRE) {
            /* the record goes to a fresh block, whole in both mirrors; a
             * copy already programmed here is the same record */
            drop(dev, ring, ring->cur, block);
            ring->next_page = ppb;
            ring->next_erased = 0;
            return 1;
        }
        if (rc) {
            ring->next_page++; /* a failed page is never retried */
            return rc;
        }
    }
    ring->last_page = ring->next_page;
    ring->next_page++;
    return 0;
}

int lfs_ring_write(nand_dev *dev, struct lfs_ring *ring, const struct lfs_anchor *a,
                   int erase_ahead)
{
    const struct nand_config *c = nand_get_config(dev);
    uint8_t *buf = malloc(c->geo.page_size);
    int rc = 1;
    if (!buf)
        return -ENOMEM;
    memset(buf, 0xff, c->geo.page_size);
    lfs_anchor_encode(a, buf, ring->version);
    /* each failure drops a logical block: at most ring_len tries */
    for (uint32_t tries = 0; rc == 1 && tries <= ring_len(ring); tries++)
        rc = write_once(dev, ring, buf, erase_ahead);
    free(buf);
    return rc == 1 ? -EROFS : rc;
}

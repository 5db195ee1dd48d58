/*
 * test_lfs_scrub.c -- scrubbing (issue #21 item 5, docs/scrubbing.md): a
 * read that needs at least scrub_threshold corrected bits in a codeword
 * schedules its segment and the cleaner moves its live data (content
 * intact, segment freed and later erased, stats counted); the idle
 * scrubber keeps data ageing on simulated time readable where the same
 * ageing without it gives EIO; and scrubbing off adds no flash operation.
 */
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>

#define NF 8
#define FBYTES 4096u
#define HOUR 3600000000000ull

static void content(uint8_t *buf, uint32_t n, int i)
{
    uint64_t s = (uint64_t)i * 104729 + 3;
    for (uint32_t k = 0; k < n; k++)
        buf[k] = (uint8_t)(fx_next(&s) >> 24);
}

static int put(logfs *fs, const char *name, uint32_t n, int i)
{
    static uint8_t buf[128 * 1024];
    content(buf, n, i);
    int fd = logfs_open(fs, name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return fd;
    int64_t w = logfs_write(fs, fd, buf, n);
    logfs_close(fs, fd);
    return w == (int64_t)n ? 0 : -EIO;
}

/* Reads /f<i> whole: 1 when it has the bytes written, 0 on EIO (never
 * other bytes: a CHECK fails then). */
static int intact(logfs *fs, int i)
{
    uint8_t want[FBYTES], got[FBYTES];
    char name[16];
    snprintf(name, sizeof name, "/f%d", i);
    content(want, FBYTES, i);
    int fd = logfs_open(fs, name, O_RDONLY, 0);
    if (fd < 0)
        return 0;
    int64_t n = logfs_pread(fs, fd, got, FBYTES, 0);
    logfs_close(fs, fd);
    if (n == -EIO)
        return 0;
    CHECK_EQ_INT(n, FBYTES);
    CHECK(memcmp(got, want, FBYTES) == 0);
    return n == FBYTES && !memcmp(got, want, FBYTES);
}

/* NF files, then a filler written and removed, so that the files'
 * segments are closed; synced. */
static int populate(logfs *fs)
{
    char name[16];
    for (int i = 0; i < NF; i++) {
        snprintf(name, sizeof name, "/f%d", i);
        if (put(fs, name, FBYTES, i))
            return -1;
    }
    if (put(fs, "/fill", 128 * 1024, 99) || logfs_unlink(fs, "/fill") || logfs_sync(fs))
        return -1;
    return 0;
}

/* Where the first block of /f<i> is: its pointer. */
static lfs_ptr where(struct logfs *fs, int i)
{
    char name[16];
    struct fs_stat st;
    struct lfs_inode *in;
    lfs_ptr p = 0;
    snprintf(name, sizeof name, "/f%d", i);
    if (logfs_stat(fs, name, &st) || lfs_inode_get(fs, st.ino, &in) ||
        lfs_tree_ptr(fs, in, 0, 0, &p))
        return 0;
    return p;
}

static const struct logfs_options base = {.block_size = 512, .cache_bytes = 4096};

/* ---- a read above the threshold ------------------------------------------ */

TEST(scrub_read_above_threshold_moves_the_segment)
{
    nand_dev *d = FX_DEVICE(.blocks = 128, .pages = 32, .quiet = 1, .ecc_bits = 4, .seed = 5);
    REQUIRE(d);
    struct logfs_options o = base;
    logfs *fs;
    REQUIRE(logfs_mkfs(d, &o) == 0 && logfs_mount(d, &o, &fs) == 0);
    REQUIRE(populate(fs) == 0);
    lfs_ptr p0 = where(fs, 0), p1 = where(fs, NF - 1);
    REQUIRE(p0 && p1);
    uint32_t seg = lfs_seg_of(fs, p0), ps = fs->g.page_size;
    uint64_t a0 = lfs_ptr_addr(p0) % fs->g.seg_bytes;
    REQUIRE(logfs_unmount(fs) == 0);
    /* 2 weak cells under /f0's first block: corrected, at the threshold */
    char err[256];
    struct nand_corrupt c = {.mode = NAND_CORRUPT_FLIP, .block = seg,
                             .page = (nand_page_t)(a0 / ps), .bits = 2,
                             .offset = (uint32_t)(a0 % ps) + 1, .seed = 1};
    REQUIRE(nand_corrupt(d, &c, err, sizeof err) == 0);

    /* below the threshold (3): read, nothing scheduled */
    o.scrub_threshold = 3;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    CHECK(intact(fs, 0));
    CHECK_EQ_INT(fs->scrub.nqueue, 0);
    REQUIRE(logfs_unmount(fs) == 0);

    o.scrub_threshold = 2;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    struct nand_stats n0, n1;
    nand_get_stats(d, &n0);
    CHECK(intact(fs, 0));
    nand_get_stats(d, &n1);
    /* the read wrote nothing: the segment is only scheduled */
    CHECK_EQ_INT(n1.programs, n0.programs);
    CHECK_EQ_INT(n1.erases, n0.erases);
    REQUIRE(fs->scrub.nqueue == 1);
    CHECK_EQ_INT(fs->scrub.queue[0], seg);
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    CHECK(st.scrub_flagged >= 1);
    CHECK_EQ_INT(st.scrub_segments, 0);
    uint32_t live = 0;
    REQUIRE(lfs_segtab_build(fs) == 0);
    live = fs->segtab.e[seg].live;
    CHECK(live > 0);

    /* idle time: the cleaner moves it */
    CHECK_EQ_INT(logfs_idle(fs, 0), 0);
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.scrub_segments, 1);
    CHECK_EQ_INT(st.scrub_pages, (live + ps - 1) / ps);
    CHECK_EQ_INT(fs->scrub.nqueue, 0);
    lfs_ptr q0 = where(fs, 0);
    CHECK(q0 && lfs_seg_of(fs, q0) != seg);
    CHECK(fs->segtab.e[seg].live == 0);
    for (int i = 0; i < NF; i++)
        CHECK(intact(fs, i));
    /* freed at the next commit, erased when taken again */
    REQUIRE(put(fs, "/x", 600, 50) == 0 && logfs_sync(fs) == 0);
    CHECK_EQ_INT(fs->segtab.e[seg].state, LFS_SEG_FREE);
    uint32_t bad_seg;
    uint64_t want;
    uint32_t have;
    CHECK_EQ_INT(lfs_check_live(fs, &bad_seg, &want, &have), 0);
    struct nand_block_info bi0, bi;
    REQUIRE(nand_block_info(d, seg, &bi0) == 0);
    for (int k = 0; k < 400; k++) {
        REQUIRE(put(fs, "/churn", 16 * 1024, k) == 0 && logfs_sync(fs) == 0);
        REQUIRE(nand_block_info(d, seg, &bi) == 0);
        if (bi.pe_cycles > bi0.pe_cycles)
            break;
    }
    CHECK(bi.pe_cycles > bi0.pe_cycles);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    for (int i = 0; i < NF; i++)
        CHECK(intact(fs, i));
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* ---- ageing on simulated time -------------------------------------------- */

/* A part whose raw bit errors come from retention alone, linear in time:
 * about one bit per 512-byte codeword per day, 8 corrected. */
static nand_dev *ageing_device(uint64_t seed)
{
    struct nand_config c;
    fx_config(&c, &(struct fx_dev){.blocks = 128, .pages = 32, .ecc_bits = 8, .seed = seed});
    memset(&c.rber, 0, sizeof c.rber);
    c.rber.beta = 1.0 / (4096.0 * 24);
    c.rber.n = 1;
    c.initial_pe = 1; /* the retention term grows with wear: PE^0 = 1 */
    return fx_create(&c);
}

/* Files written, then `days` of idle time in steps of 12 h, a scrub of
 * every page at each when scrub_threshold is set; the files that still
 * read afterwards.  *remount: whether the fs mounts again then. */
static int age_and_count(uint32_t threshold, int days, struct logfs_stats *st, int *remount)
{
    nand_dev *d = ageing_device(9);
    struct logfs_options o = base;
    o.scrub_threshold = threshold;
    logfs *fs;
    if (!d || logfs_mkfs(d, &o) || logfs_mount(d, &o, &fs))
        return -1;
    if (populate(fs))
        return -1;
    for (int s = 0; s < days * 2; s++) {
        if (logfs_scrub(fs, UINT64_MAX) < 0 || logfs_idle(fs, 12 * HOUR))
            return -1;
    }
    int ok = 0;
    for (int i = 0; i < NF; i++)
        ok += intact(fs, i);
    logfs_get_stats(fs, st);
    logfs_unmount(fs); /* may fail: the unscrubbed metadata is lost too */
    *remount = logfs_mount(d, &o, &fs) == 0;
    if (*remount)
        logfs_unmount(fs);
    nand_close(d);
    return ok;
}

TEST(idle_scrubber_keeps_ageing_data_readable)
{
    struct logfs_stats with, without;
    int mounts_with, mounts_without;
    int kept = age_and_count(4, 20, &with, &mounts_with);
    int lost = NF - age_and_count(0, 20, &without, &mounts_without);
    CHECK_EQ_INT(kept, NF);
    CHECK(lost > 0); /* the same ageing without scrubbing: EIO */
    /* the superblock ages as the data does: scrubbed, it was rewritten
     * and the fs mounts after the 20 days; not scrubbed, it does not */
    CHECK(mounts_with);
    CHECK(!mounts_without);
    CHECK(with.scrub_super >= 2);
    CHECK_EQ_INT(without.scrub_super + without.scrub_anchor, 0);
    CHECK(with.scrub_segments > 0);
    CHECK(with.scrub_pages > 0);
    CHECK(with.scrub_reads > 0);
    CHECK_EQ_INT(without.scrub_segments + without.scrub_reads + without.scrub_flagged, 0);
}

/* ---- the superblock and the anchor ring ---------------------------------- */

/* 2 weak cells in page `page` of `block` (at the threshold of 2). */
static void weaken(nand_dev *d, uint32_t block, uint32_t page)
{
    char err[256];
    struct nand_corrupt c = {.mode = NAND_CORRUPT_FLIP, .block = block, .page = page,
                             .bits = 2, .offset = 1, .seed = 1};
    REQUIRE(nand_corrupt(d, &c, err, sizeof err) == 0);
}

/* The worst codeword of a read of the superblock copy in `block`. */
static uint32_t super_bits(nand_dev *d, uint32_t block)
{
    uint8_t buf[LFS_SB_SIZE];
    struct nand_result res = {0};
    return nand_read_col(d, block, 0, 0, buf, sizeof buf, &res) ? UINT32_MAX : res.max_cw_bits;
}

TEST(scrub_refreshes_superblock_and_anchor_ring)
{
    nand_dev *d = FX_DEVICE(.blocks = 128, .pages = 32, .quiet = 1, .ecc_bits = 4, .seed = 5);
    REQUIRE(d);
    struct logfs_options o = base;
    logfs *fs;
    struct logfs_stats st;
    REQUIRE(logfs_mkfs(d, &o) == 0 && logfs_mount(d, &o, &fs) == 0);
    REQUIRE(populate(fs) == 0);
    uint32_t backup = fs->sb.backup_block;
    REQUIRE(logfs_unmount(fs) == 0);

    /* block 0, as mount reads it: below the threshold nothing is due */
    weaken(d, 0, 0);
    CHECK_EQ_INT(super_bits(d, 0), 2);
    o.scrub_threshold = 3;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    CHECK_EQ_INT(logfs_idle(fs, 0), 0);
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.scrub_super, 0);
    REQUIRE(logfs_unmount(fs) == 0);
    /* at it: both copies rewritten by the next call that may write */
    o.scrub_threshold = 2;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    CHECK_EQ_INT(fs->scrub.super_due, 1);
    CHECK_EQ_INT(logfs_idle(fs, 0), 0);
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.scrub_super, 2);
    CHECK_EQ_INT(super_bits(d, 0), 0);
    CHECK_EQ_INT(super_bits(d, backup), 0);
    REQUIRE(logfs_unmount(fs) == 0);

    /* the copy, which only the idle scrubber reads */
    weaken(d, backup, 0);
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    CHECK_EQ_INT(fs->scrub.super_due, 0);
    CHECK(logfs_scrub(fs, UINT64_MAX) >= 0);
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.scrub_super, 2);
    CHECK_EQ_INT(super_bits(d, backup), 0);

    /* the newest anchor record, in the second mirror: the idle scrubber
     * reads it, and a commit goes on in a fresh ring block */
    uint32_t len = fs->ring.count / 2, cur = fs->ring.cur;
    weaken(d, fs->ring.blocks[len + cur], fs->ring.last_page);
    CHECK(logfs_scrub(fs, UINT64_MAX) >= 0);
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.scrub_anchor, 1);
    CHECK(fs->ring.cur != cur || len == 1);
    CHECK_EQ_INT(fs->ring.last_page, 0);
    REQUIRE(logfs_unmount(fs) == 0);

    /* the record the mount finds, in the first mirror (where it is: a
     * read-only mount writes nothing) */
    struct logfs_options ro = o;
    ro.readonly = 1;
    REQUIRE(logfs_mount(d, &ro, &fs) == 0);
    cur = fs->ring.cur;
    uint32_t page = fs->ring.last_page, block = fs->ring.blocks[cur];
    REQUIRE(logfs_unmount(fs) == 0);
    weaken(d, block, page);
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    CHECK_EQ_INT(fs->ring.found_bits, 2);
    CHECK_EQ_INT(fs->scrub.ring_due, 1);
    CHECK_EQ_INT(logfs_idle(fs, 0), 0);
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.scrub_anchor, 1);
    CHECK(fs->ring.cur != cur || len == 1);
    uint64_t seq = fs->an.seq;
    REQUIRE(logfs_unmount(fs) == 0);
    /* the newest record is found, with no bits to correct, the files read */
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.anchor_seq, seq + 1); /* the unmount's record */
    CHECK_EQ_INT(st.anchor_fallback, 0);
    CHECK_EQ_INT(fs->scrub.ring_due, 0);
    CHECK_EQ_INT(fs->scrub.super_due, 0);
    for (int i = 0; i < NF; i++)
        CHECK(intact(fs, i));
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* A power cut at each flash operation of a superblock refresh, torn early
 * and late: the fs mounts with the same superblock and files, and the
 * next scrubbing mount finishes the refresh. */
TEST(scrub_superblock_refresh_survives_a_cut)
{
    nand_dev *d = FX_DEVICE(.blocks = 128, .pages = 32, .quiet = 1, .ecc_bits = 4, .seed = 6);
    REQUIRE(d);
    struct logfs_options o = base;
    logfs *fs;
    REQUIRE(logfs_mkfs(d, &o) == 0 && logfs_mount(d, &o, &fs) == 0);
    REQUIRE(populate(fs) == 0);
    struct lfs_super sb = fs->sb;
    REQUIRE(logfs_unmount(fs) == 0);
    weaken(d, 0, 0);
    nand_snapshot *start;
    REQUIRE(nand_snapshot_take(d, &start) == 0);
    o.scrub_threshold = 2;
    /* the operations of the refresh, uncut */
    struct nand_stats a, b;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    nand_get_stats(d, &a);
    CHECK_EQ_INT(logfs_idle(fs, 0), 0);
    nand_get_stats(d, &b);
    REQUIRE(logfs_unmount(fs) == 0);
    uint64_t ops = b.programs + b.erases - a.programs - a.erases;
    CHECK_EQ_INT(ops, 4); /* erase and program, per copy */
    const double fracs[] = {0.1, 0.9};
    int cuts = 0;
    for (uint64_t cut = 0; cut < ops; cut++)
        for (unsigned f = 0; f < 2; f++) {
            REQUIRE(nand_snapshot_restore(d, start) == 0);
            REQUIRE(logfs_mount(d, &o, &fs) == 0);
            nand_cut_after_ops(d, cut, fracs[f]);
            CHECK(logfs_idle(fs, 0) != 0); /* the power went */
            cuts += !nand_is_powered(d);
            logfs_unmount(fs); /* fails: the power is off; frees the fs */
            nand_cut_disarm(d);
            nand_power_on(d);
            int rc = logfs_mount(d, NULL, &fs);
            CHECK_EQ_INT(rc, 0);
            if (rc)
                continue;
            CHECK(fs->sb.fs_id == sb.fs_id && fs->sb.backup_block == sb.backup_block);
            for (int i = 0; i < NF; i++)
                CHECK(intact(fs, i));
            REQUIRE(logfs_unmount(fs) == 0);
            /* scrubbing again: both copies whole (a torn block 0 is seen
             * by the mount, a torn copy by the idle scrubber) */
            REQUIRE(logfs_mount(d, &o, &fs) == 0);
            CHECK(logfs_scrub(fs, UINT64_MAX) >= 0);
            REQUIRE(logfs_unmount(fs) == 0);
            CHECK_EQ_INT(super_bits(d, 0), 0);
            CHECK_EQ_INT(super_bits(d, sb.backup_block), 0);
        }
    CHECK_EQ_INT(cuts, 2 * (int)ops);
    nand_snapshot_free(start);
    nand_close(d);
}

/* ---- off: nothing changes ------------------------------------------------ */

/* A workload on the ageing part with reads of aged data; scrub_calls: also
 * call logfs_scrub (a no-op when scrubbing is off). */
static int workload(int scrub_calls, struct nand_stats *out)
{
    nand_dev *d = ageing_device(4);
    struct logfs_options o = base;
    logfs *fs;
    if (!d || logfs_mkfs(d, &o) || logfs_mount(d, &o, &fs) || populate(fs))
        return -1;
    for (int s = 0; s < 6; s++) {
        if (scrub_calls && logfs_scrub(fs, UINT64_MAX) != 0)
            return -1;
        if (logfs_idle(fs, 12 * HOUR))
            return -1;
        for (int i = 0; i < NF; i++)
            intact(fs, i);
        if (put(fs, "/w", 3000, s) || logfs_sync(fs))
            return -1;
    }
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    if (logfs_unmount(fs) || st.scrub_flagged || st.scrub_reads)
        return -1;
    nand_get_stats(d, out);
    out->busy_ns += nand_now(d); /* the clock too */
    nand_close(d);
    return 0;
}

TEST(scrubbing_off_changes_nothing)
{
    struct nand_stats a, b;
    REQUIRE(workload(1, &a) == 0 && workload(0, &b) == 0);
    CHECK(a.bits_corrected > 0); /* the reads met bit errors */
    CHECK_EQ_INT(a.reads, b.reads);
    CHECK_EQ_INT(a.programs, b.programs);
    CHECK_EQ_INT(a.erases, b.erases);
    CHECK_EQ_INT(a.bits_corrected, b.bits_corrected);
    CHECK_EQ_INT(a.bytes_read, b.bytes_read);
    CHECK_EQ_INT(a.busy_ns, b.busy_ns);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(scrub_read_above_threshold_moves_the_segment);
    RUN(idle_scrubber_keeps_ageing_data_readable);
    RUN(scrub_refreshes_superblock_and_anchor_ring);
    RUN(scrub_superblock_refresh_survives_a_cut);
    RUN(scrubbing_off_changes_nothing);
    return test_summary(argv[0]);
}

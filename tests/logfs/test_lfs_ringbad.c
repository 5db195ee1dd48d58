/*
 * test_lfs_ringbad.c -- a grown bad block in the anchor ring (issue #21):
 * the ring skips it and goes on in the logical blocks whose blocks are good
 * in both mirrors, commit after commit, and the next mount finds the newest
 * record with every file intact and fsck clean; only when no such logical
 * block is left does the fs turn read-only, and what it committed before
 * stays.  A power cut at any flash operation while the ring moves away
 * from the bad block loses nothing synced.
 */
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fsck.h"
#include "lfs_fixture.h"

#include <errno.h>
#include <fcntl.h>

#define PAGES 16 /* ring block pages: a few commits wrap the ring */

static void content(uint8_t *buf, uint32_t n, int i)
{
    uint64_t s = (uint64_t)i * 6151 + 5;
    for (uint32_t k = 0; k < n; k++)
        buf[k] = (uint8_t)(fx_next(&s) >> 24);
}

/* /f<i>: 1000 + i bytes; written and committed. */
static int put_sync(logfs *fs, int i)
{
    uint8_t buf[2000];
    char name[16];
    snprintf(name, sizeof name, "/f%d", i);
    content(buf, 1000 + (uint32_t)i, i);
    int fd = logfs_open(fs, name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return fd;
    int64_t w = logfs_write(fs, fd, buf, 1000 + (uint32_t)i);
    logfs_close(fs, fd);
    return w != 1000 + i ? -EIO : logfs_sync(fs);
}

static int intact(logfs *fs, int i)
{
    uint8_t want[2000], got[2000];
    char name[16];
    snprintf(name, sizeof name, "/f%d", i);
    content(want, 1000 + (uint32_t)i, i);
    int fd = logfs_open(fs, name, O_RDONLY, 0);
    if (fd < 0)
        return 0;
    int64_t n = logfs_pread(fs, fd, got, sizeof got, 0);
    logfs_close(fs, fd);
    return n == 1000 + i && !memcmp(got, want, (size_t)n);
}

/* Ring block of logical block i in the mirror of blocks[k] (the ring has
 * len logical blocks; mirrors are blocks[0..len) and [len..2 len)). */
static uint32_t ring_at(nand_dev *d, uint32_t i, uint32_t len, uint32_t k)
{
    struct logfs *fs;
    uint32_t b = 0;
    if (logfs_mount(d, &(struct logfs_options){.readonly = 1}, &fs) == 0) {
        b = fs->ring.blocks[(k / len) * len + i];
        logfs_unmount(fs);
    }
    return b;
}

static void make_bad(nand_dev *d, uint32_t block)
{
    char err[256];
    struct nand_corrupt c = {.mode = NAND_CORRUPT_BAD, .block = block};
    REQUIRE(nand_corrupt(d, &c, err, sizeof err) == 0);
}

/* Each ring block made bad in turn: commits go on for three turns of the
 * ring and a remount has them all. */
TEST(ring_skips_a_grown_bad_block)
{
    for (uint32_t k = 0; k < 4; k++) {
        nand_dev *d;
        logfs *fs = LFS_FX_MOUNTED(&d, .blocks = 128, .pages = PAGES, .quiet = 1, .seed = 40 + k);
        REQUIRE(fs);
        REQUIRE(fs->ring.count == 4);
        int n = 0;
        for (; n < 5; n++)
            REQUIRE(put_sync(fs, n) == 0);
        uint32_t block = fs->ring.blocks[k];
        make_bad(d, block);
        for (; n < 5 + 3 * 2 * PAGES; n++) {
            int rc = put_sync(fs, n);
            CHECK_EQ_INT(rc, 0);
            if (rc)
                break;
        }
        struct logfs_stats st;
        logfs_get_stats(fs, &st);
        CHECK_EQ_INT(st.anchor_bad, 1);
        CHECK_EQ_INT(st.anchor_left, 1);
        uint64_t seq = fs->an.seq;
        CHECK_EQ_INT(logfs_unmount(fs), 0);
        CHECK_EQ_INT(nand_is_bad(d, block), 1);
        /* the newest record, whichever ring block holds older ones */
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
        logfs_get_stats(fs, &st);
        CHECK_EQ_INT(st.anchor_seq, seq + 1); /* the mount's own record */
        CHECK_EQ_INT(st.anchor_fallback, 0);
        for (int i = 0; i < n; i++)
            CHECK(intact(fs, i));
        /* and writing goes on after the mount, which learns of the bad
         * block again when it reaches it */
        for (int i = 0; i < 2 * PAGES; i++)
            CHECK_EQ_INT(put_sync(fs, n + i), 0);
        CHECK_EQ_INT(logfs_unmount(fs), 0);
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
        for (int i = 0; i < n + 2 * PAGES; i++)
            CHECK(intact(fs, i));
        CHECK_EQ_INT(logfs_unmount(fs), 0);
        /* and fsck finds the image as it should be */
        char msg[512] = "";
        CHECK_EQ_INT(fsck_verdict(d, msg, sizeof msg), FSCK_CLEAN);
        if (msg[0])
            fprintf(stderr, "ring block %u bad: fsck: %s\n", k, msg);
        nand_close(d);
    }
}

/* A bad block in each logical block (one per mirror): no logical block has
 * two good copies left, the commit that needs a fresh one fails read-only,
 * and the commits before it are what the next mount finds. */
TEST(ring_without_two_good_blocks_turns_read_only)
{
    nand_dev *d;
    logfs *fs = LFS_FX_MOUNTED(&d, .blocks = 128, .pages = PAGES, .quiet = 1, .seed = 50);
    REQUIRE(fs);
    int n = 0;
    for (; n < 3; n++)
        REQUIRE(put_sync(fs, n) == 0);
    make_bad(d, fs->ring.blocks[0]); /* mirror 0, logical block 0 */
    make_bad(d, fs->ring.blocks[3]); /* mirror 1, logical block 1 */
    CHECK_EQ_INT(put_sync(fs, n), -EROFS);
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.anchor_bad, 2);
    CHECK_EQ_INT(st.anchor_left, 0);
    CHECK_EQ_INT(put_sync(fs, 1000), -EROFS);
    logfs_unmount(fs); /* the failed commit's changes are lost */
    REQUIRE(logfs_mount(d, &(struct logfs_options){.readonly = 1}, &fs) == 0);
    for (int i = 0; i < n; i++)
        CHECK(intact(fs, i));
    CHECK_EQ_INT(logfs_unmount(fs), 0);
    nand_close(d);
}

/* A power cut at each flash operation while the ring moves away from a
 * block that went bad (the mount's record, then a commit, fail on it):
 * the next mount finds a record, the files synced before are intact, and
 * so is the one whose sync returned. */
TEST(ring_skipping_a_bad_block_survives_a_cut_at_every_op)
{
    for (uint32_t k = 0; k < 4; k += 2) { /* the current block, in each mirror */
        nand_dev *d;
        logfs *fs = LFS_FX_MOUNTED(&d, .blocks = 128, .pages = PAGES, .quiet = 1, .seed = 60 + k);
        REQUIRE(fs);
        for (int i = 0; i < 3; i++)
            REQUIRE(put_sync(fs, i) == 0);
        uint32_t cur = fs->ring.cur, len = fs->ring.count / 2;
        REQUIRE(logfs_unmount(fs) == 0);
        make_bad(d, ring_at(d, cur, len, k));
        nand_snapshot *start;
        REQUIRE(nand_snapshot_take(d, &start) == 0);
        struct nand_stats a, b;
        nand_get_stats(d, &a);
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
        REQUIRE(put_sync(fs, 3) == 0 && put_sync(fs, 4) == 0);
        struct logfs_stats st;
        logfs_get_stats(fs, &st);
        CHECK_EQ_INT(st.anchor_bad, 1); /* the mount's record met it */
        REQUIRE(logfs_unmount(fs) == 0);
        nand_get_stats(d, &b);
        CHECK_EQ_INT(b.program_fails - a.program_fails, 1);
        uint64_t ops = b.programs + b.erases + b.program_fails + b.erase_fails -
                       a.programs - a.erases - a.program_fails - a.erase_fails;
        for (uint64_t cut = 0; cut < ops + 2; cut++) {
            REQUIRE(nand_snapshot_restore(d, start) == 0);
            nand_cut_after_ops(d, cut, 0.5);
            int synced = 0;
            if (logfs_mount(d, NULL, &fs) == 0) {
                synced = put_sync(fs, 3) == 0;
                synced += synced && put_sync(fs, 4) == 0;
                logfs_unmount(fs);
            }
            nand_cut_disarm(d);
            nand_power_on(d);
            int rc = logfs_mount(d, NULL, &fs);
            CHECK_EQ_INT(rc, 0);
            if (rc)
                continue;
            for (int i = 0; i < 3 + synced; i++)
                CHECK(intact(fs, i));
            CHECK_EQ_INT(logfs_unmount(fs), 0);
        }
        nand_snapshot_free(start);
        nand_close(d);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(ring_skips_a_grown_bad_block);
    RUN(ring_without_two_good_blocks_turns_read_only);
    RUN(ring_skipping_a_bad_block_survives_a_cut_at_every_op);
    return test_summary(argv[0]);
}

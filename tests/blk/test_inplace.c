/*
 * test_inplace.c -- the in-place map (blk/blk.h, blk/inplace*.c) against
 * a reference model: random writes, trims and flushes with reopens, every
 * sector checked (a sector never written reads -EIO, as an erased page);
 * the write-back accounting (one erase and a block's programs per
 * write-back, none while one erase block is held); a power cut at every
 * flash operation of a write-back, after which every sector reads its
 * old content, its new one or -EIO -- never other data.
 */
#include "blk.h"
#include "fixture.h"

#include <errno.h>

#define PAGES 8u
#define PS 2048u

static void content(uint8_t *buf, uint64_t sec, uint32_t ver)
{
    if (ver == UINT32_MAX)
        memset(buf, 0, PS);
    else
        fx_fill(buf, PS, sec * 1000003u + ver);
}

static nand_dev *mkdev(uint64_t seed)
{
    return FX_DEVICE(.blocks = 16, .pages = PAGES, .page_size = PS, .oob_size = 64,
                     .quiet = 1, .seed = seed);
}

static blk_dev *open_dev(nand_dev *n)
{
    blk_dev *d = NULL;
    char err[256] = "";
    int rc = blk_inplace_open(n, NULL, &d, err, sizeof err);
    if (rc)
        fprintf(stderr, "blk_inplace_open: %d %s\n", rc, err);
    return d;
}

/* ver: 0 never written, UINT32_MAX trimmed (zeros), else a version */
static int check_all(blk_dev *d, const uint32_t *ver, uint64_t n)
{
    uint8_t got[PS], want[PS];
    int bad = 0;
    for (uint64_t s = 0; s < n; s++) {
        int rc = blk_read(d, s, 1, got);
        if (!ver[s]) {
            bad += rc != -EIO;
            continue;
        }
        content(want, s, ver[s]);
        bad += rc != 0 || memcmp(got, want, PS);
    }
    return bad;
}

TEST(model_reopen)
{
    nand_dev *n = mkdev(3);
    REQUIRE(n);
    blk_dev *d = open_dev(n);
    REQUIRE(d);
    CHECK_EQ_INT(blk_sector_size(d), PS);
    CHECK(!strcmp(blk_kind(d), "inplace"));
    uint64_t ns = blk_sectors(d);
    CHECK_EQ_INT(ns, 16 * PAGES);
    uint32_t *ver = calloc(ns, sizeof *ver);
    uint8_t *buf = malloc(4 * PS);
    uint64_t rng = 11;
    for (int op = 0; op < 1500; op++) {
        uint64_t r = fx_next(&rng);
        uint32_t cnt = 1 + (uint32_t)(r >> 8) % 4;
        uint64_t first = (r >> 16) % (ns - cnt + 1);
        if (r % 10 == 0) {
            CHECK_EQ_INT(blk_trim(d, first, cnt), 0);
            for (uint32_t i = 0; i < cnt; i++)
                ver[first + i] = UINT32_MAX;
        } else if (r % 10 == 1) {
            CHECK_EQ_INT(blk_flush(d), 0);
        } else {
            for (uint32_t i = 0; i < cnt; i++)
                content(buf + (size_t)i * PS, first + i, ver[first + i] = (uint32_t)op + 1);
            CHECK_EQ_INT(blk_write(d, first, cnt, buf), 0);
        }
        if (op % 500 == 499) {
            CHECK_EQ_INT(blk_close(d), 0);
            REQUIRE((d = open_dev(n)));
        }
    }
    CHECK_EQ_INT(check_all(d, ver, ns), 0);
    CHECK_EQ_INT(blk_close(d), 0);
    REQUIRE((d = open_dev(n)));
    CHECK_EQ_INT(check_all(d, ver, ns), 0);
    CHECK(blk_read(d, ns, 1, buf) == -EINVAL);
    blk_close(d);
    free(ver);
    free(buf);
    nand_close(n);
}

/* One erase block is held: no flash write until another is touched or a
 * flush; each write-back is one erase and all of the block's programs. */
TEST(write_back_accounting)
{
    nand_dev *n = mkdev(5);
    REQUIRE(n);
    blk_dev *d = open_dev(n);
    REQUIRE(d);
    uint8_t buf[PS];
    struct nand_stats a, b;
    struct blk_stats st;
    nand_get_stats(n, &a);
    for (uint32_t p = 0; p < PAGES; p++) {
        content(buf, p, 1);
        CHECK_EQ_INT(blk_write(d, p, 1, buf), 0);
    }
    nand_get_stats(n, &b);
    CHECK_EQ_INT(b.erases - a.erases, 0);
    content(buf, PAGES, 1);
    CHECK_EQ_INT(blk_write(d, PAGES, 1, buf), 0); /* block 1: block 0 goes back */
    CHECK_EQ_INT(blk_flush(d), 0);
    nand_get_stats(n, &b);
    CHECK_EQ_INT(b.erases - a.erases, 2);
    CHECK_EQ_INT(b.programs - a.programs, 2 * PAGES);
    blk_get_stats(d, &st);
    CHECK_EQ_INT(st.erases, 2);
    CHECK_EQ_INT(st.pages_host, 2 * PAGES);
    CHECK_EQ_INT(st.blocks_loaded, 2);
    CHECK_EQ_INT(st.host_sectors_written, PAGES + 1);
    /* page 1 of block 1 was never written: an erased page, -EIO */
    CHECK(blk_read(d, PAGES + 1, 1, buf) == -EIO);
    blk_get_stats(d, &st);
    CHECK_EQ_INT(st.pages_lost, 1);
    blk_close(d);
    nand_close(n);
}

/* A cut at every flash operation of a write-back over an erase block of
 * flushed data: each sector reads its old content, its new one, or -EIO
 * (the map's weakness: the whole erase block is at risk), never other
 * data; sectors of other erase blocks keep their flushed content. */
TEST(power_cut_write_back)
{
    nand_dev *n = mkdev(9);
    REQUIRE(n);
    blk_dev *d = open_dev(n);
    REQUIRE(d);
    uint8_t buf[PS];
    for (uint64_t s = 0; s < 2 * PAGES; s++) {
        content(buf, s, 1);
        CHECK_EQ_INT(blk_write(d, s, 1, buf), 0);
    }
    CHECK_EQ_INT(blk_close(d), 0);
    nand_snapshot *base;
    REQUIRE(nand_snapshot_take(n, &base) == 0);
    int points = 0, eio = 0, wrong = 0;
    for (uint64_t k = 0; k <= PAGES + 1; k++) {
        REQUIRE(nand_snapshot_restore(n, base) == 0);
        REQUIRE((d = open_dev(n)));
        nand_cut_after_ops(n, k, -1);
        content(buf, 3, 2);
        int rc = blk_write(d, 3, 1, buf);
        rc = rc ? rc : blk_flush(d);
        blk_close(d);
        nand_cut_disarm(n);
        nand_power_on(n);
        points += rc != 0;
        REQUIRE((d = open_dev(n)));
        uint8_t got[PS], want[PS];
        for (uint64_t s = 0; s < 2 * PAGES; s++) {
            int r = blk_read(d, s, 1, got);
            if (r == -EIO && s < PAGES) {
                eio++;
                continue;
            }
            content(want, s, 1);
            int ok = r == 0 && !memcmp(got, want, PS);
            content(want, s, 2);
            ok |= s == 3 && r == 0 && !memcmp(got, want, PS);
            wrong += !ok;
        }
        blk_close(d);
    }
    printf("%d cut points, %d sectors read -EIO, %d wrong\n", points, eio, wrong);
    CHECK_EQ_INT(points, PAGES + 1);  /* the erase and every program */
    CHECK(eio > 0);                   /* the map loses unflushed neighbours */
    CHECK_EQ_INT(wrong, 0);
    nand_snapshot_free(base);
    nand_close(n);
}

TEST(open_errors)
{
    nand_dev *n = mkdev(1);
    REQUIRE(n);
    blk_dev *d = NULL;
    char err[256] = "";
    CHECK(blk_inplace_open(n, "hold=1", &d, err, sizeof err) == -EINVAL);
    CHECK(strstr(err, "hold=1") != NULL);
    nand_close(n);
    n = FX_DEVICE(.blocks = 4, .pages = PAGES, .page_size = PS, .oob_size = 4, .quiet = 1);
    REQUIRE(n);
    CHECK(blk_inplace_open(n, NULL, &d, err, sizeof err) == -EINVAL);
    CHECK(strstr(err, "spare") != NULL);
    nand_close(n);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(model_reopen);
    RUN(write_back_accounting);
    RUN(power_cut_write_back);
    RUN(open_errors);
    return test_summary(argv[0]);
}

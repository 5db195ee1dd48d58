/*
 * test_sim_store.c -- the page store under churn: full-page buffers come
 * from chunks that grow as the device fills (sim/arena.c) and are reused
 * after erases.  Every page must read back what was last programmed
 * there, in any read order, with snapshots sharing buffers, and the
 * stored-page count must follow.
 */
#include "nand.h"
#include "fixture.h"

#define BLOCKS 128u /* fx_small_dev: 2 dies of 64 */
#define PAGES 16u

static void content(uint8_t *buf, uint32_t b, uint32_t p, uint32_t round)
{
    fx_fill(buf, PB, ((uint64_t)round << 32) ^ ((uint64_t)b << 8) ^ p ^ 0x5eed);
}

static int program_blocks(nand_dev *d, uint32_t first, uint32_t step, uint32_t round)
{
    uint8_t buf[PB];
    for (uint32_t b = first; b < BLOCKS; b += step)
        for (uint32_t p = 0; p < PAGES; p++) {
            content(buf, b, p, round);
            if (nand_program(d, b, p, buf, buf + PS, NULL) != NAND_OK)
                return -1;
        }
    return 0;
}

/* Pages that do not read back round[b]'s content (0: erased), read in
 * block order (forward), backwards, or striding across blocks. */
enum order { FORWARD, BACKWARD, ACROSS };
static uint32_t mismatches(nand_dev *d, const uint32_t *round, enum order order)
{
    uint8_t want[PB], got[PB];
    uint32_t bad = 0, n = BLOCKS * PAGES;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = order == BACKWARD ? n - 1 - i : i;
        uint32_t b = order == ACROSS ? k % BLOCKS : k / PAGES;
        uint32_t p = order == ACROSS ? k / BLOCKS : k % PAGES;
        if (round[b])
            content(want, b, p, round[b]);
        else
            memset(want, 0xff, PB);
        if (nand_read(d, b, p, got, got + PS, NULL) != NAND_OK || memcmp(got, want, PB))
            bad++;
    }
    return bad;
}

static uint64_t stored(nand_dev *d)
{
    struct nand_stats st;
    nand_get_stats(d, &st);
    return st.pages_stored;
}

TEST(pages_read_back_through_growth_and_reuse)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint32_t round[BLOCKS] = {0};
    /* 2,048 pages: more than the first five chunks hold (64 .. 1,024) */
    REQUIRE(program_blocks(d, 0, 1, 1) == 0);
    for (uint32_t b = 0; b < BLOCKS; b++)
        round[b] = 1;
    CHECK_EQ_INT(stored(d), BLOCKS * PAGES);
    CHECK_EQ_INT(mismatches(d, round, FORWARD), 0);
    CHECK_EQ_INT(mismatches(d, round, BACKWARD), 0);
    CHECK_EQ_INT(mismatches(d, round, ACROSS), 0);

    /* erase every other block: their buffers go back for reuse */
    for (uint32_t b = 1; b < BLOCKS; b += 2) {
        REQUIRE(nand_erase(d, b, NULL) == NAND_OK);
        round[b] = 0;
    }
    CHECK_EQ_INT(stored(d), BLOCKS / 2 * PAGES);
    CHECK_EQ_INT(mismatches(d, round, FORWARD), 0);

    /* new contents in reused buffers; a snapshot then shares them all */
    REQUIRE(program_blocks(d, 1, 2, 2) == 0);
    for (uint32_t b = 1; b < BLOCKS; b += 2)
        round[b] = 2;
    CHECK_EQ_INT(stored(d), BLOCKS * PAGES);
    CHECK_EQ_INT(mismatches(d, round, ACROSS), 0);
    nand_snapshot *snap = NULL;
    REQUIRE(nand_snapshot_take(d, &snap) == NAND_OK);

    /* erase and rewrite everything: the snapshot's buffers stay intact */
    for (uint32_t b = 0; b < BLOCKS; b++)
        REQUIRE(nand_erase(d, b, NULL) == NAND_OK);
    REQUIRE(program_blocks(d, 0, 1, 3) == 0);
    uint32_t now[BLOCKS];
    for (uint32_t b = 0; b < BLOCKS; b++)
        now[b] = 3;
    CHECK_EQ_INT(mismatches(d, now, FORWARD), 0);
    CHECK_EQ_INT(stored(d), 2 * BLOCKS * PAGES);
    REQUIRE(nand_snapshot_restore(d, snap) == NAND_OK);
    CHECK_EQ_INT(mismatches(d, round, FORWARD), 0);
    CHECK_EQ_INT(mismatches(d, round, BACKWARD), 0);
    nand_snapshot_free(snap);
    CHECK_EQ_INT(stored(d), BLOCKS * PAGES);
    nand_close(d); /* with ASan: aborts if a buffer were still held */
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(pages_read_back_through_growth_and_reuse);
    return test_summary(argv[0]);
}

/*
 * test_sim_handover.c -- nand_program_buffer, the program that hands its
 * page buffer to the device (sim/nand.h): twin devices, one programmed
 * with nand_program (spare left erased) and one with nand_page_buffer +
 * nand_program_buffer, must hold the same pages, time, statistics and
 * results, through failing programs too, with dedup and compress off and
 * on; every buffer must end in the device or back in the store (closing a
 * device with a buffer still out aborts under ASan).
 */
#include "nand.h"
#include "fixture.h"

static int same_result(const struct nand_result *a, const struct nand_result *b)
{
    return a->start == b->start && a->done == b->done;
}

/* Program the same pages on both twins, the second by hand-over: random
 * pages, pages of one byte value (compact, shared under dedup), a page
 * twice (not erased), a page out of range, and after a power cut. */
static void program_twins(int dedup, int compress)
{
    struct nand_config c;
    fx_small_config(&c);
    c.dedup = dedup;
    c.compress = compress;
    nand_dev *d[2] = {fx_create(&c), fx_create(&c)};
    REQUIRE(d[0] && d[1]);
    uint8_t data[PS], a[PB], b[PB];
    int diff = 0, taken = 0;
    for (int i = 0; i < 40; i++) {
        nand_block_t blk = (nand_block_t)(3 + i / 16);
        nand_page_t p = (nand_page_t)(i % 16);
        if (i == 20)
            p = 3; /* programmed already: NOT_ERASED on both */
        if (i == 30)
            blk = 100000; /* out of range */
        if (i % 3)
            fx_fill(data, PS, 70 + (uint64_t)i);
        else
            memset(data, 0x40 + i % 2, PS);
        struct nand_result ra, rb;
        int rca = nand_program(d[0], blk, p, data, NULL, &ra);
        uint8_t *buf = nand_page_buffer(d[1]);
        REQUIRE(buf);
        memcpy(buf, data, PS);
        memset(buf + PS, 0x00, OS); /* the spare is not the caller's: stays erased */
        int rcb = nand_program_buffer(d[1], blk, p, buf, &rb);
        diff += rca != rcb || !same_result(&ra, &rb);
        taken += rcb == NAND_OK;
    }
    CHECK_EQ_INT(diff, 0);
    CHECK_EQ_INT(taken, 38);
    /* what the twins hold reads the same, spare included */
    for (nand_block_t blk = 3; blk < 6; blk++)
        for (nand_page_t p = 0; p < 16; p++) {
            int rca = nand_read(d[0], blk, p, a, a + PS, NULL);
            int rcb = nand_read(d[1], blk, p, b, b + PS, NULL);
            diff += rca != rcb || memcmp(a, b, PB) != 0;
        }
    CHECK_EQ_INT(diff, 0);
    /* (both twins read again, so that their clocks stay in step) */
    CHECK(nand_read(d[0], 3, 0, a, a + PS, NULL) == NAND_OK);
    CHECK(nand_read(d[1], 3, 0, b, b + PS, NULL) == NAND_OK && fx_all(b + PS, OS, 0xff));
    /* after a cut the program fails and the buffer goes back all the same */
    nand_power_cut(d[0]);
    nand_power_cut(d[1]);
    uint8_t *buf = nand_page_buffer(d[1]);
    REQUIRE(buf);
    CHECK(nand_program(d[0], 7, 0, data, NULL, NULL) == NAND_E_POWER);
    CHECK(nand_program_buffer(d[1], 7, 0, buf, NULL) == NAND_E_POWER);
    /* and one never programmed is given back */
    nand_page_buffer_free(d[1], nand_page_buffer(d[1]));
    nand_page_buffer_free(d[1], NULL);
    struct nand_stats sa, sb;
    nand_get_stats(d[0], &sa);
    nand_get_stats(d[1], &sb);
    CHECK(sa.programs == sb.programs && sa.bytes_written == sb.bytes_written);
    CHECK(sa.violations_not_erased == 1 && sb.violations_not_erased == 1);
    CHECK(sa.violations_addr == sb.violations_addr && sa.busy_ns == sb.busy_ns);
    CHECK(sa.pages_stored == sb.pages_stored && sa.bytes_stored == sb.bytes_stored);
    CHECK(nand_now(d[0]) == nand_now(d[1]));
    nand_close(d[0]);
    nand_close(d[1]);
}

TEST(handed_over_pages_are_programmed_pages)
{
    for (int dedup = 0; dedup <= 1; dedup++)
        for (int compress = 0; compress <= 1; compress++)
            program_twins(dedup, compress);
}

TEST(the_device_keeps_the_buffer_it_took)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t *buf = nand_page_buffer(d);
    REQUIRE(buf);
    fx_fill(buf, PS, 5);
    const void *view = NULL;
    uint8_t tmp[PS];
    REQUIRE(nand_program_buffer(d, 9, 0, buf, NULL) == NAND_OK);
    REQUIRE(nand_read_view(d, 9, 0, tmp, &view, NULL) == NAND_OK);
    CHECK(view == buf); /* stored as it was handed over: no copy */
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(handed_over_pages_are_programmed_pages);
    RUN(the_device_keeps_the_buffer_it_took);
    return test_summary(argv[0]);
}

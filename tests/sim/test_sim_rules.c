/*
 * test_sim_rules.c -- the NAND rules the simulator enforces: erase, program
 * and read contents, column access, NOP, program order, address checks,
 * violation counters and bad blocks.
 */
#include "nand.h"
#include "fixture.h"


TEST(fresh_page_reads_erased)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PS], oob[OS];
    memset(data, 0x5a, sizeof data);
    memset(oob, 0x5a, sizeof oob);
    struct nand_result r;
    CHECK_EQ_INT(nand_read(d, 7, 3, data, oob, &r), NAND_OK);
    CHECK(fx_all(data, PS, 0xff));
    CHECK(fx_all(oob, OS, 0xff));
    CHECK_EQ_INT(r.raw_bit_errors, 0);
    CHECK_EQ_INT(r.corrected_bits, 0);
    /* the last page of the last block too */
    memset(data, 0, sizeof data);
    CHECK_EQ_INT(nand_read(d, 127, 15, data, NULL, NULL), NAND_OK);
    CHECK(fx_all(data, PS, 0xff));
    nand_close(d);
}

TEST(erase_sets_block_to_ff)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PS], oob[OS], buf[PS], obuf[OS];
    for (uint32_t p = 0; p < 16; p++) {
        fx_fill(data, PS, 100 + p);
        fx_fill(oob, OS, 200 + p);
        REQUIRE(nand_program(d, 9, p, data, oob, NULL) == NAND_OK);
    }
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 9, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.pages_programmed, 16);
    CHECK_EQ_INT(bi.pe_cycles, 0);

    CHECK_EQ_INT(nand_erase(d, 9, NULL), NAND_OK);
    REQUIRE(nand_block_info(d, 9, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.pages_programmed, 0);
    CHECK_EQ_INT(bi.pe_cycles, 1);
    CHECK_EQ_INT(bi.reads_since_erase, 0);
    for (uint32_t p = 0; p < 16; p++) {
        memset(buf, 0, sizeof buf);
        memset(obuf, 0, sizeof obuf);
        CHECK_EQ_INT(nand_read(d, 9, p, buf, obuf, NULL), NAND_OK);
        CHECK(fx_all(buf, PS, 0xff));
        CHECK(fx_all(obuf, OS, 0xff));
    }
    REQUIRE(nand_block_info(d, 9, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.reads_since_erase, 16);
    /* erased pages are programmable again, in order from page 0 */
    fx_fill(data, PS, 7);
    CHECK_EQ_INT(nand_program(d, 9, 0, data, NULL, NULL), NAND_OK);
    CHECK_EQ_INT(nand_read(d, 9, 0, buf, NULL, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PS));
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.erases, 1);
    CHECK_EQ_INT(st.programs, 17);
    CHECK_EQ_INT(st.reads, 17);
    nand_close(d);
}

TEST(program_read_round_trip)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PS], oob[OS], buf[PS], obuf[OS];
    fx_fill(data, PS, 1);
    fx_fill(oob, OS, 2);

    /* together */
    REQUIRE(nand_program(d, 3, 0, data, oob, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_read(d, 3, 0, buf, obuf, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PS));
    CHECK(!memcmp(obuf, oob, OS));
    /* read the parts apart */
    memset(buf, 0, PS);
    memset(obuf, 0, OS);
    CHECK_EQ_INT(nand_read(d, 3, 0, buf, NULL, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PS));
    CHECK_EQ_INT(nand_read(d, 3, 0, NULL, obuf, NULL), NAND_OK);
    CHECK(!memcmp(obuf, oob, OS));

    /* data only: the spare stays erased */
    REQUIRE(nand_program(d, 3, 1, data, NULL, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_read(d, 3, 1, buf, obuf, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PS));
    CHECK(fx_all(obuf, OS, 0xff));

    /* spare only: the data stays erased */
    REQUIRE(nand_program(d, 3, 2, NULL, oob, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_read(d, 3, 2, buf, obuf, NULL), NAND_OK);
    CHECK(fx_all(buf, PS, 0xff));
    CHECK(!memcmp(obuf, oob, OS));

    /* neighbours untouched */
    CHECK_EQ_INT(nand_read(d, 3, 3, buf, obuf, NULL), NAND_OK);
    CHECK(fx_all(buf, PS, 0xff));
    CHECK(fx_all(obuf, OS, 0xff));
    CHECK_EQ_INT(nand_read(d, 4, 0, buf, obuf, NULL), NAND_OK);
    CHECK(fx_all(buf, PS, 0xff));

    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.programs, 3);
    CHECK_EQ_INT(st.bytes_written, PB + PS + OS);
    nand_close(d);
}

TEST(column_access_across_the_spare_boundary)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t pat[40], buf[PS], obuf[OS], cbuf[64];
    fx_fill(pat, sizeof pat, 3);
    /* 24 bytes of data area and 16 of spare */
    REQUIRE(nand_program_col(d, 5, 0, PS - 24, pat, 40, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_read(d, 5, 0, buf, obuf, NULL), NAND_OK);
    CHECK(fx_all(buf, PS - 24, 0xff));
    CHECK(!memcmp(buf + PS - 24, pat, 24));
    CHECK(!memcmp(obuf, pat + 24, 16));
    CHECK(fx_all(obuf + 16, OS - 16, 0xff));

    /* a column read across the boundary, offset from the write */
    memset(cbuf, 0, sizeof cbuf);
    CHECK_EQ_INT(nand_read_col(d, 5, 0, PS - 30, cbuf, 50, NULL), NAND_OK);
    CHECK(fx_all(cbuf, 6, 0xff));
    CHECK(!memcmp(cbuf + 6, pat, 40));
    CHECK(fx_all(cbuf + 46, 4, 0xff));

    /* the very end of the byte space is addressable */
    uint8_t tail[4] = {1, 2, 3, 4}, t2[4];
    REQUIRE(nand_program_col(d, 5, 1, PB - 4, tail, 4, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_read_col(d, 5, 1, PB - 4, t2, 4, NULL), NAND_OK);
    CHECK(!memcmp(t2, tail, 4));
    CHECK_EQ_INT(nand_read(d, 5, 1, NULL, obuf, NULL), NAND_OK);
    CHECK(!memcmp(obuf + OS - 4, tail, 4));

    /* the column transfer is what goes over the bus */
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.bytes_written, 44);
    CHECK_EQ_INT(st.bytes_read, PB + 50 + 4 + OS);
    nand_close(d);
}

TEST(reprogram_with_nop1_is_not_erased)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t a[PS], b[PS], buf[PS];
    fx_fill(a, PS, 10);
    memset(b, 0, PS);
    REQUIRE(nand_program(d, 2, 0, a, NULL, NULL) == NAND_OK);
    nand_time_t t0 = nand_now(d);
    CHECK_EQ_INT(nand_program(d, 2, 0, b, NULL, NULL), NAND_E_NOT_ERASED);
    /* a column program of the spare alone is a program of the page too */
    uint8_t z = 0;
    CHECK_EQ_INT(nand_program_col(d, 2, 0, PS, &z, 1, NULL), NAND_E_NOT_ERASED);
    CHECK_EQ_INT(nand_now(d), t0); /* refused before it reached the die */
    CHECK_EQ_INT(nand_read(d, 2, 0, buf, NULL, NULL), NAND_OK);
    CHECK(!memcmp(buf, a, PS));
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.violations_not_erased, 2);
    CHECK_EQ_INT(st.violations_nop, 0);
    CHECK_EQ_INT(st.programs, 1);
    /* a program of nothing still uses up the page */
    REQUIRE(nand_program(d, 2, 1, NULL, NULL, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_program(d, 2, 1, a, NULL, NULL), NAND_E_NOT_ERASED);
    nand_close(d);
}

TEST(nop4_partial_programs_and_the_fifth)
{
    struct nand_config c;
    fx_small_config(&c);
    c.nop = 4;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t pat[4][PB], want[PB], got[PB];
    memset(want, 0xff, PB);
    for (int i = 0; i < 4; i++) {
        fx_fill(pat[i], PB, 40 + (uint64_t)i);
        /* keep plenty of ones so that the AND is not trivially zero */
        for (uint32_t j = 0; j < PB; j++)
            pat[i][j] |= (uint8_t)(0x11u << (i % 4));
        CHECK_EQ_INT(nand_program(d, 6, 2, pat[i], pat[i] + PS, NULL), NAND_OK);
        for (uint32_t j = 0; j < PB; j++)
            want[j] &= pat[i][j];
        CHECK_EQ_INT(nand_read(d, 6, 2, got, got + PS, NULL), NAND_OK);
        CHECK(!memcmp(got, want, PB));
    }
    CHECK(!fx_all(want, PB, 0));
    nand_time_t t0 = nand_now(d);
    uint8_t zeros[PS];
    memset(zeros, 0, PS);
    CHECK_EQ_INT(nand_program(d, 6, 2, zeros, NULL, NULL), NAND_E_NOP);
    CHECK_EQ_INT(nand_now(d), t0);
    CHECK_EQ_INT(nand_read(d, 6, 2, got, got + PS, NULL), NAND_OK);
    CHECK(!memcmp(got, want, PB));
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.violations_nop, 1);
    CHECK_EQ_INT(st.violations_not_erased, 0);
    CHECK_EQ_INT(st.programs, 4);

    /* the usual use of NOP: one 512-byte sector per partial program */
    uint8_t sec[512];
    for (int i = 0; i < 4; i++) {
        fx_fill(sec, sizeof sec, 60 + (uint64_t)i);
        CHECK_EQ_INT(nand_program_col(d, 6, 3, (uint32_t)i * 512, sec, 512, NULL),
                     NAND_OK);
    }
    CHECK_EQ_INT(nand_read(d, 6, 3, got, got + PS, NULL), NAND_OK);
    for (int i = 0; i < 4; i++) {
        fx_fill(sec, sizeof sec, 60 + (uint64_t)i);
        CHECK(!memcmp(got + i * 512, sec, 512));
    }
    CHECK(fx_all(got + PS, OS, 0xff));
    CHECK_EQ_INT(nand_program_col(d, 6, 3, PS, sec, 4, NULL), NAND_E_NOP);
    nand_close(d);
}

TEST(program_order_within_a_block)
{
    struct nand_config c;
    fx_small_config(&c);
    c.nop = 4;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PS], buf[PS];
    fx_fill(data, PS, 5);

    /* skipping upward is allowed */
    CHECK_EQ_INT(nand_program(d, 1, 0, data, NULL, NULL), NAND_OK);
    CHECK_EQ_INT(nand_program(d, 1, 5, data, NULL, NULL), NAND_OK);
    CHECK_EQ_INT(nand_program(d, 1, 9, data, NULL, NULL), NAND_OK);
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 1, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.pages_programmed, 10);

    /* below the highest programmed page: refused, erased or not */
    nand_time_t t0 = nand_now(d);
    CHECK_EQ_INT(nand_program(d, 1, 3, data, NULL, NULL), NAND_E_ORDER);
    CHECK_EQ_INT(nand_program(d, 1, 8, data, NULL, NULL), NAND_E_ORDER);
    CHECK_EQ_INT(nand_program(d, 1, 5, data, NULL, NULL), NAND_E_ORDER);
    CHECK_EQ_INT(nand_now(d), t0);
    CHECK_EQ_INT(nand_read(d, 1, 3, buf, NULL, NULL), NAND_OK);
    CHECK(fx_all(buf, PS, 0xff));

    /* the highest page may take more partial programs */
    CHECK_EQ_INT(nand_program(d, 1, 9, data, NULL, NULL), NAND_OK);
    /* and higher pages are still fine */
    CHECK_EQ_INT(nand_program(d, 1, 15, data, NULL, NULL), NAND_OK);

    /* other blocks keep their own order */
    CHECK_EQ_INT(nand_program(d, 2, 0, data, NULL, NULL), NAND_OK);

    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.violations_order, 3);
    CHECK_EQ_INT(st.programs, 6);

    /* a lower page after a higher one with NOP 1 too */
    struct nand_config c1;
    fx_small_config(&c1);
    nand_dev *d1 = fx_create(&c1);
    REQUIRE(d1);
    CHECK_EQ_INT(nand_program(d1, 0, 4, data, NULL, NULL), NAND_OK);
    CHECK_EQ_INT(nand_program(d1, 0, 2, data, NULL, NULL), NAND_E_ORDER);
    nand_get_stats(d1, &st);
    CHECK_EQ_INT(st.violations_order, 1);
    nand_close(d1);
    nand_close(d);
}

TEST(addresses_out_of_range)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PB], b1[8];
    fx_fill(data, sizeof data, 9);
    uint32_t nb = (uint32_t)nand_blocks(nand_get_config(d));
    CHECK_EQ_INT(nb, 128);
    nand_time_t t0 = nand_now(d);
    int n = 0;
#define ADDR_VIOL(expr)                                                      \
    do {                                                                     \
        CHECK_EQ_INT(expr, NAND_E_ADDR);                                     \
        n++;                                                                 \
    } while (0)
    ADDR_VIOL(nand_read(d, nb, 0, data, NULL, NULL));
    ADDR_VIOL(nand_read(d, 0, 16, data, NULL, NULL));
    ADDR_VIOL(nand_read(d, 0xffffffffu, 0, NULL, data, NULL));
    ADDR_VIOL(nand_read_raw(d, nb, 0, data, NULL, NULL));
    ADDR_VIOL(nand_program(d, nb, 0, data, NULL, NULL));
    ADDR_VIOL(nand_program(d, 0, 16, data, data + PS, NULL));
    ADDR_VIOL(nand_erase(d, nb, NULL));
    ADDR_VIOL(nand_erase(d, 0xffffffffu, NULL));
    /* neither buffer: still an address, still checked */
    ADDR_VIOL(nand_read(d, nb + 1000000, 0, NULL, NULL, NULL));
    ADDR_VIOL(nand_program(d, nb + 1000000, 0, NULL, NULL, NULL));
    ADDR_VIOL(nand_program(d, 0, 99, NULL, NULL, NULL));
    /* columns */
    ADDR_VIOL(nand_read_col(d, 0, 0, PB, b1, 1, NULL));
    ADDR_VIOL(nand_read_col(d, 0, 0, PB - 4, b1, 5, NULL));
    ADDR_VIOL(nand_read_col(d, 0, 0, PB + 1, b1, 0, NULL));
    ADDR_VIOL(nand_read_col(d, 0, 0, 4, b1, 0xfffffffeu, NULL));
    ADDR_VIOL(nand_program_col(d, 0, 0, PB - 2, b1, 3, NULL));
    ADDR_VIOL(nand_program_col(d, 0, 0, 0xfffffff0u, b1, 0x20, NULL));
    ADDR_VIOL(nand_read_col(d, nb, 0, 0, b1, 1, NULL));
    ADDR_VIOL(nand_mark_bad(d, nb));
    ADDR_VIOL(nand_is_bad(d, nb));
    struct nand_op op = {.kind = NAND_OP_PROGRAM, .block = nb, .page = 0,
                         .data = data};
    ADDR_VIOL(nand_submit(d, &op));
    CHECK_EQ_INT(op.status, NAND_E_ADDR);
    op = (struct nand_op){.kind = NAND_OP_READ, .block = 0, .page = 16};
    ADDR_VIOL(nand_submit(d, &op));
    op = (struct nand_op){.kind = NAND_OP_ERASE, .block = nb};
    ADDR_VIOL(nand_submit(d, &op));

    /* metadata calls refuse without counting a bus violation */
    struct nand_block_info bi;
    CHECK_EQ_INT(nand_block_info(d, nb, &bi), NAND_E_ADDR);
    CHECK_EQ_INT(nand_set_wear(d, nb, 5), NAND_E_ADDR);

    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.violations_addr, n);
    CHECK_EQ_INT(st.reads + st.programs + st.erases, 0);
    CHECK_EQ_INT(st.busy_ns, 0);
    CHECK_EQ_INT(nand_now(d), t0);
    CHECK_EQ_INT(nand_wait(d), t0);

    /* in-range edges work and nothing was changed */
    uint8_t buf[PS];
    CHECK_EQ_INT(nand_program(d, nb - 1, 15, data, NULL, NULL), NAND_OK);
    CHECK_EQ_INT(nand_read(d, nb - 1, 15, buf, NULL, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PS));
    CHECK_EQ_INT(nand_read(d, 0, 0, buf, NULL, NULL), NAND_OK);
    CHECK(fx_all(buf, PS, 0xff));
    CHECK_EQ_INT(nand_read_col(d, 0, 0, PB, b1, 0, NULL), NAND_OK);
    nand_close(d);
}

TEST(violations_are_counted_and_never_abort)
{
    struct nand_config c;
    fx_small_config(&c);
    c.nop = 2;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PS], buf[PS];
    fx_fill(data, PS, 77);
    /* a hundred violations of each kind, interleaved with real work */
    for (int i = 0; i < 100; i++) {
        nand_block_t b = (nand_block_t)(i % 50);
        if (i < 50) {
            REQUIRE(nand_program(d, b, 7, data, NULL, NULL) == NAND_OK);
            REQUIRE(nand_program(d, b, 7, data, NULL, NULL) == NAND_OK);
        }
        CHECK_EQ_INT(nand_program(d, b, 7, data, NULL, NULL), NAND_E_NOP);
        CHECK_EQ_INT(nand_program(d, b, 6, data, NULL, NULL), NAND_E_ORDER);
        CHECK_EQ_INT(nand_read(d, b, 77, buf, NULL, NULL), NAND_E_ADDR);
    }
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.violations_nop, 100);
    CHECK_EQ_INT(st.violations_order, 100);
    CHECK_EQ_INT(st.violations_addr, 100);
    CHECK_EQ_INT(st.programs, 100);
    for (nand_block_t b = 0; b < 50; b++) {
        CHECK_EQ_INT(nand_read(d, b, 7, buf, NULL, NULL), NAND_OK);
        CHECK(!memcmp(buf, data, PS));
    }
    nand_reset_stats(d);
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.violations_nop + st.violations_order + st.violations_addr, 0);
    CHECK(st.pages_stored > 0); /* what is held stays counted */
    nand_close(d);
}

TEST(mark_bad_and_is_bad)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PS], oob[OS], buf[PS], obuf[OS];
    for (nand_block_t b = 0; b < 128; b++)
        CHECK_EQ_INT(nand_is_bad(d, b), 0);

    /* is_bad is a real timed read */
    nand_time_t t0 = nand_now(d);
    CHECK_EQ_INT(nand_is_bad(d, 3), 0);
    CHECK(nand_now(d) > t0);

    fx_fill(data, PS, 1);
    memset(oob, 0xff, OS); /* the marker position stays 0xff */
    oob[1] = 0x12;
    REQUIRE(nand_program(d, 3, 0, data, oob, NULL) == NAND_OK);
    REQUIRE(nand_program(d, 3, 1, data, oob, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_is_bad(d, 3), 0);
    CHECK_EQ_INT(nand_mark_bad(d, 3), NAND_OK);
    CHECK_EQ_INT(nand_is_bad(d, 3), 1);
    CHECK_EQ_INT(nand_is_bad(d, 4), 0);
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 3, &bi) == NAND_OK);
    CHECK(bi.marked_bad);
    CHECK(!bi.factory_bad);
    CHECK(!bi.grown_bad);
    /* only the marker byte changed */
    CHECK_EQ_INT(nand_read(d, 3, 0, buf, obuf, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PS));
    CHECK_EQ_INT(obuf[0], 0x00);
    CHECK(!memcmp(obuf + 1, oob + 1, OS - 1));
    CHECK_EQ_INT(nand_read(d, 3, 1, NULL, obuf, NULL), NAND_OK);
    CHECK(!memcmp(obuf, oob, OS));

    /* marking an erased block, and the marker as a spare-byte program */
    CHECK_EQ_INT(nand_mark_bad(d, 10), NAND_OK);
    CHECK_EQ_INT(nand_is_bad(d, 10), 1);
    CHECK_EQ_INT(nand_read_col(d, 10, 0, PS, obuf, 1, NULL), NAND_OK);
    CHECK_EQ_INT(obuf[0], 0x00);

    /* a driver writing 0 into spare byte 0 of page 0 marks it too */
    memset(oob, 0xff, OS);
    oob[0] = 0x00;
    REQUIRE(nand_program(d, 11, 0, data, oob, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_is_bad(d, 11), 1);

    /* the marker lives in the flash: erasing the block erases it */
    CHECK_EQ_INT(nand_erase(d, 10, NULL), NAND_OK);
    CHECK_EQ_INT(nand_is_bad(d, 10), 0);
    REQUIRE(nand_block_info(d, 10, &bi) == NAND_OK);
    CHECK(!bi.marked_bad);
    nand_close(d);
}

static uint64_t count_factory_bad(nand_dev *d, uint64_t nb, int *block0_bad)
{
    uint64_t n = 0;
    for (uint64_t b = 0; b < nb; b++) {
        struct nand_block_info bi;
        if (nand_block_info(d, (nand_block_t)b, &bi))
            return ~0ull;
        n += bi.factory_bad != 0;
        if (b == 0 && bi.factory_bad)
            *block0_bad = 1;
    }
    return n;
}

TEST(factory_bad_fraction)
{
    struct nand_config c;
    fx_small_config(&c);
    c.geo.blocks_per_plane = 2048; /* 4096 blocks */
    c.factory_bad_fraction = 0.05;
    const double f = c.factory_bad_fraction;
    const uint64_t nb = 4096;
    int block0_bad = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        c.seed = seed;
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        uint64_t n = count_factory_bad(d, nb, &block0_bad);
        /* block 0 is never a candidate: nb - 1 Bernoulli(f) trials */
        double mean = (double)(nb - 1) * f;
        double sd = sqrt((double)(nb - 1) * f * (1 - f));
        CHECK_NEAR((double)n, mean, 4 * sd);
        nand_close(d);
    }
    CHECK(!block0_bad);

    /* the seed chooses which blocks: two seeds, two different sets */
    nand_dev *d1 = NULL, *d2 = NULL;
    c.seed = 1;
    REQUIRE(nand_create(&c, &d1) == NAND_OK);
    c.seed = 2;
    REQUIRE(nand_create(&c, &d2) == NAND_OK);
    uint64_t differ = 0;
    for (nand_block_t b = 0; b < nb; b++) {
        struct nand_block_info i1, i2;
        nand_block_info(d1, b, &i1);
        nand_block_info(d2, b, &i2);
        differ += i1.factory_bad != i2.factory_bad;
    }
    /* independent sets differ in about 2f(1-f) of the blocks */
    CHECK(differ > (uint64_t)(nb * 2 * f * (1 - f) / 2));
    nand_close(d1);
    nand_close(d2);

    /* a fraction near the maximum still leaves block 0 good */
    c.factory_bad_fraction = 0.49;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        c.seed = seed;
        c.geo.blocks_per_plane = 8;
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        struct nand_block_info bi;
        REQUIRE(nand_block_info(d, 0, &bi) == NAND_OK);
        CHECK(!bi.factory_bad);
        nand_close(d);
    }

    /* zero fraction: none */
    c.factory_bad_fraction = 0;
    c.geo.blocks_per_plane = 2048;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    CHECK_EQ_INT(count_factory_bad(d, nb, &block0_bad), 0);
    nand_close(d);
}

TEST(factory_bad_blocks_behave_bad)
{
    struct nand_config c;
    fx_small_config(&c);
    c.factory_bad_fraction = 0.2;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    int nbad = 0;
    uint8_t data[PS], buf[PS], obuf[OS];
    fx_fill(data, PS, 3);
    for (nand_block_t b = 0; b < 128; b++) {
        struct nand_block_info bi;
        REQUIRE(nand_block_info(d, b, &bi) == NAND_OK);
        CHECK_EQ_INT(nand_is_bad(d, b), bi.factory_bad);
        if (!bi.factory_bad)
            continue;
        nbad++;
        CHECK(bi.marked_bad);
        /* the vendor marker: page 0 programmed to zeros */
        CHECK_EQ_INT(nand_read(d, b, 0, buf, obuf, NULL), NAND_OK);
        CHECK(fx_all(buf, PS, 0));
        CHECK(fx_all(obuf, OS, 0));
        CHECK_EQ_INT(nand_erase(d, b, NULL), NAND_E_ERASE_FAIL);
        CHECK_EQ_INT(nand_is_bad(d, b), 1);  /* the marker survives */
        CHECK_EQ_INT(nand_program(d, b, 1, data, NULL, NULL), NAND_E_PROGRAM_FAIL);
        CHECK_EQ_INT(nand_program(d, b, 0, data, NULL, NULL),
                     NAND_E_NOT_ERASED);
    }
    CHECK(nbad > 5);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.erase_fails, nbad);
    CHECK_EQ_INT(st.program_fails, nbad);
    CHECK_EQ_INT(st.erases, 0);
    nand_close(d);
}

TEST(config_validation)
{
    struct nand_config c;
    char err[200];
    nand_config_init(&c);
    err[0] = 0;
    CHECK_EQ_INT(nand_config_finish(&c, err, sizeof err), NAND_E_INVAL);
    CHECK(strstr(err, "geometry") != NULL);
    nand_dev *d = (nand_dev *)&c; /* must stay untouched on failure */
    CHECK_EQ_INT(nand_create(&c, &d), NAND_E_INVAL);
    CHECK(d == (nand_dev *)&c);

    fx_small_config(&c);
    CHECK_EQ_INT(nand_config_finish(&c, err, sizeof err), NAND_OK);
    CHECK_EQ_INT(nand_blocks(&c), 128);
    CHECK_EQ_INT(nand_dies(&c), 2);
    CHECK_EQ_INT(nand_capacity_bytes(&c), 128ull * 16 * 2048);

    fx_small_config(&c);
    c.ecc.codeword_bytes = 1000; /* does not divide 2048 */
    CHECK_EQ_INT(nand_config_finish(&c, err, sizeof err), NAND_E_INVAL);
    fx_small_config(&c);
    c.geo.oob_size = 0;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.pair_distance = 16;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.factory_bad_fraction = 0.5;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.endurance = 0;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    /* NaN compares false with everything: it must not slip through */
    fx_small_config(&c);
    c.factory_bad_fraction = NAN;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.endurance_sigma = NAN;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.endurance_scale = NAN;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.rber.eps = NAN;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.rber.beta = INFINITY;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.rber.q = NAN;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    fx_small_config(&c);
    c.endurance_scale = -1;
    CHECK_EQ_INT(nand_config_finish(&c, NULL, 0), NAND_E_INVAL);
    CHECK(strcmp(nand_strerror(NAND_E_NOP), nand_strerror(NAND_E_ORDER)));
    CHECK(strcmp(nand_strerror(12345), "success"));
}

/* A device whose block tables cannot fit in this machine's memory is
 * refused at once (not paged in until the host runs out), by nand_create
 * and so also by an image whose header asks for it. */
TEST(impossible_device_is_refused_not_allocated)
{
    struct nand_config c;
    fx_small_config(&c);
    c.geo.channels = 8;
    c.geo.dies_per_channel = 16;
    c.geo.planes_per_die = 4;
    c.geo.blocks_per_plane = 1u << 22; /* 2^31 blocks: over 100 GB of tables */
    nand_dev *d = NULL;
    CHECK_EQ_INT(nand_create(&c, &d), NAND_E_NOMEM);
    CHECK(d == NULL);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(fresh_page_reads_erased);
    RUN(erase_sets_block_to_ff);
    RUN(program_read_round_trip);
    RUN(column_access_across_the_spare_boundary);
    RUN(reprogram_with_nop1_is_not_erased);
    RUN(nop4_partial_programs_and_the_fifth);
    RUN(program_order_within_a_block);
    RUN(addresses_out_of_range);
    RUN(violations_are_counted_and_never_abort);
    RUN(mark_bad_and_is_bad);
    RUN(factory_bad_fraction);
    RUN(factory_bad_blocks_behave_bad);
    RUN(config_validation);
    RUN(impossible_device_is_refused_not_allocated);
    return test_summary(argv[0]);
}

/*
 * test_sim_view.c -- nand_read_view, the read that lends the stored page
 * (sim/nand.h): twin devices, one read with nand_read and one with
 * nand_read_view, must see the same bytes, results, clock and statistics
 * read after read, through correctable and uncorrectable bit errors,
 * damaged and erased pages, with and without the compact store; and the
 * view must really lend the page where no bit error reaches the caller.
 */
#include "nand.h"
#include "fixture.h"

#define CWB 512u

/* Twins with bit errors: 2 flips per data codeword on average, t = 4, so
 * that reads mix clean, corrected and uncorrectable codewords. */
static int twins(nand_dev *d[2], int compress)
{
    struct nand_config c;
    fx_small_config(&c);
    memset(&c.rber, 0, sizeof c.rber);
    c.rber.eps = 2.0 / (CWB * 8);
    c.ecc.codeword_bytes = CWB;
    c.ecc.correct_bits = 4;
    c.compress = compress;
    d[0] = fx_create(&c);
    d[1] = fx_create(&c);
    return d[0] && d[1] ? 0 : -1;
}

/* Page p of block 5 on both twins: random bytes (p even), a page of one
 * byte value (p odd, which the compact store keeps run-length), erased
 * from page 8 on; page 2 damaged beyond ECC, page 3 changed silently. */
static int program_both(nand_dev *d[2])
{
    uint8_t data[PB];
    for (int k = 0; k < 2; k++) {
        for (nand_page_t p = 0; p < 8; p++) {
            if (p % 2)
                memset(data, (int)(0x10 + p), PB);
            else
                fx_fill(data, PB, 40 + p);
            if (nand_program(d[k], 5, p, data, NULL, NULL) != NAND_OK)
                return -1;
        }
        struct nand_corrupt u = {.mode = NAND_CORRUPT_UNCORRECTABLE, .block = 5,
                                 .page = 2, .seed = 1};
        struct nand_corrupt s = {.mode = NAND_CORRUPT_SILENT, .block = 5, .page = 3,
                                 .bits = 3, .seed = 2};
        if (nand_corrupt(d[k], &u, NULL, 0) || nand_corrupt(d[k], &s, NULL, 0))
            return -1;
    }
    return 0;
}

static int same_result(const struct nand_result *a, const struct nand_result *b)
{
    return a->start == b->start && a->done == b->done &&
           a->corrected_bits == b->corrected_bits &&
           a->raw_bit_errors == b->raw_bit_errors && a->max_cw_bits == b->max_cw_bits;
}

/* Read every page of block 5 rounds times on both twins; *lent counts
 * the views that pointed at the device's bytes, *copied those in buf. */
static void read_both(nand_dev *d[2], int rounds, int *lent, int *copied)
{
    static uint8_t want[PS], buf[PS];
    int diff_rc = 0, diff_bytes = 0, diff_res = 0, ecc = 0;
    for (int i = 0; i < rounds; i++) {
        for (nand_page_t p = 0; p < 10; p++) {
            struct nand_result ra, rb;
            const void *view = NULL;
            int a = nand_read(d[0], 5, p, want, NULL, &ra);
            memset(buf, 0xa5, PS);
            int b = nand_read_view(d[1], 5, p, buf, &view, &rb);
            diff_rc += a != b;
            diff_bytes += !view || memcmp(want, view, PS) != 0;
            diff_res += !same_result(&ra, &rb);
            ecc += a == NAND_E_ECC;
            if (view == buf)
                (*copied)++;
            else
                (*lent)++;
        }
    }
    CHECK_EQ_INT(diff_rc, 0);
    CHECK_EQ_INT(diff_bytes, 0);
    CHECK_EQ_INT(diff_res, 0);
    CHECK(ecc > rounds); /* the damaged page, and random failures too */
    CHECK(nand_now(d[0]) == nand_now(d[1]));
    struct nand_stats sa, sb;
    nand_get_stats(d[0], &sa);
    nand_get_stats(d[1], &sb);
    CHECK(sa.reads == sb.reads && sa.bytes_read == sb.bytes_read);
    CHECK(sa.bits_corrected == sb.bits_corrected && sa.ecc_failures == sb.ecc_failures);
    CHECK(sa.uncorrectable_reads == sb.uncorrectable_reads);
    CHECK(sa.busy_ns == sb.busy_ns);
}

TEST(view_reads_as_nand_read_does)
{
    for (int compress = 0; compress <= 1; compress++) {
        nand_dev *d[2];
        REQUIRE(twins(d, compress) == 0);
        REQUIRE(program_both(d) == 0);
        int lent = 0, copied = 0;
        read_both(d, 200, &lent, &copied);
        /* pages without an uncorrectable codeword, stored in full (and the
         * erased ones) are lent; the rest come as copies */
        fprintf(stderr, "  compress %d: %d reads lent, %d copied\n", compress, lent, copied);
        CHECK(lent > 200 * 3);
        CHECK(copied > 200);
        if (compress)
            CHECK(copied > 200 * 4); /* the one-byte pages are run-length */
        nand_close(d[0]);
        nand_close(d[1]);
    }
}

TEST(view_lends_the_stored_page)
{
    nand_dev *d = fx_small_dev(); /* no bit errors */
    REQUIRE(d);
    uint8_t data[PS], buf[PS];
    fx_fill(data, PS, 9);
    REQUIRE(nand_program(d, 7, 0, data, NULL, NULL) == NAND_OK);
    const void *v1 = NULL, *v2 = NULL;
    memset(buf, 0, PS);
    REQUIRE(nand_read_view(d, 7, 0, buf, &v1, NULL) == NAND_OK);
    REQUIRE(nand_read_view(d, 7, 0, buf, &v2, NULL) == NAND_OK);
    CHECK(v1 != buf);
    CHECK(v1 == v2); /* the page itself, both times */
    CHECK(memcmp(v1, data, PS) == 0);
    CHECK(fx_all(buf, PS, 0)); /* and nothing copied */
    /* an erased page lends the erased bytes */
    REQUIRE(nand_read_view(d, 7, 1, buf, &v1, NULL) == NAND_OK);
    CHECK(v1 != buf && fx_all(v1, PS, 0xff));
    /* errors are still errors */
    CHECK(nand_read_view(d, 7, 99, buf, &v1, NULL) == NAND_E_ADDR);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(view_reads_as_nand_read_does);
    RUN(view_lends_the_stored_page);
    return test_summary(argv[0]);
}

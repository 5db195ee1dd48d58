/*
 * test_sim_dump.c -- nanddump and raw page dumps (nand_export,
 * nand_import; docs/simulator.md "Exchanging images with mtd-utils and
 * nandsim"): round trips of data, OOB and bad blocks, export leaving the
 * device untouched, and the errors for files of the wrong size, truncated
 * files and data on factory-bad blocks.
 */
#include "nand.h"
#include "fixture.h"

#define NB 64u  /* blocks of the fx default device */
#define NP 16u  /* pages per block */

static void path_in_tmp(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmp_dir, name);
}

/* A quiet device with 10 % factory bad blocks, some programmed pages (data
 * and OOB, data only, OOB only), one block marked bad on top of data. */
static void test_config(struct nand_config *c)
{
    fx_config(c, &(struct fx_dev){.quiet = 1, .bad = 0.1, .seed = 77});
}

static nand_block_t first_good(nand_dev *d, nand_block_t from)
{
    struct nand_block_info bi;
    for (nand_block_t b = from; b < NB; b++)
        if (nand_block_info(d, b, &bi) == 0 && !bi.factory_bad)
            return b;
    return NB;
}

static nand_dev *populated(nand_block_t *marked)
{
    struct nand_config c;
    test_config(&c);
    nand_dev *d = fx_create(&c);
    if (!d)
        return NULL;
    uint8_t data[PS], oob[OS];
    nand_block_t b1 = first_good(d, 1), b2 = first_good(d, b1 + 1),
                 b3 = first_good(d, b2 + 1);
    for (nand_page_t p = 0; p < 5; p++) {
        fx_fill(data, PS, 100 + p);
        fx_fill(oob, OS, 200 + p);
        oob[0] = 0xff; /* keep the marker byte good */
        CHECK_EQ_INT(nand_program(d, b1, p, data, oob, NULL), NAND_OK);
    }
    fx_fill(data, PS, 300);
    CHECK_EQ_INT(nand_program(d, b2, 3, data, NULL, NULL), NAND_OK); /* data only */
    fx_fill(oob, OS, 301);
    oob[0] = 0xff;
    CHECK_EQ_INT(nand_program(d, b2, 7, NULL, oob, NULL), NAND_OK);  /* OOB only */
    fx_fill(data, PS, 400);
    CHECK_EQ_INT(nand_program(d, b3, 0, data, NULL, NULL), NAND_OK);
    CHECK_EQ_INT(nand_program(d, b3, 2, data, NULL, NULL), NAND_OK);
    CHECK_EQ_INT(nand_mark_bad(d, b3), NAND_OK);
    *marked = b3;
    return d;
}

/* Raw page contents; reads of a quiet device are exact. */
static void page_of(nand_dev *d, nand_block_t b, nand_page_t p, uint8_t *buf)
{
    memset(buf, 0xa5, PB);
    int rc = nand_read_raw(d, b, p, buf, buf + PS, NULL);
    CHECK(rc == NAND_OK || rc == NAND_E_ECC);
}

TEST(nanddump_round_trip_keeps_data_oob_and_bad_blocks)
{
    nand_block_t marked;
    nand_dev *a = populated(&marked);
    REQUIRE(a);
    char path[512], err[256];
    path_in_tmp(path, sizeof path, "a.nanddump");
    CHECK_EQ_INT(nand_export(a, path, NAND_DUMP_NANDDUMP, err, sizeof err), NAND_OK);
    CHECK_EQ_INT(fx_file_size(path), (long long)NB * NP * PB);

    struct nand_config c;
    test_config(&c);
    nand_dev *b = NULL;
    CHECK_EQ_INT(nand_import(&c, path, NAND_DUMP_NANDDUMP, &b, err, sizeof err), NAND_OK);
    REQUIRE(b);
    uint8_t x[PB], y[PB];
    int diff = 0, bad_a = 0;
    for (nand_block_t blk = 0; blk < NB; blk++) {
        int ba = nand_is_bad(a, blk), bb = nand_is_bad(b, blk);
        diff += ba != bb;
        bad_a += ba;
        struct nand_block_info ia, ib;
        nand_block_info(a, blk, &ia);
        nand_block_info(b, blk, &ib);
        diff += ia.marked_bad != ib.marked_bad;
        for (nand_page_t p = 0; p < NP; p++) {
            page_of(a, blk, p, x);
            page_of(b, blk, p, y);
            diff += memcmp(x, y, PB) != 0;
        }
    }
    CHECK_EQ_INT(diff, 0);
    CHECK(bad_a >= 2); /* factory bad blocks and the marked one */
    CHECK_EQ_INT(nand_is_bad(b, marked), 1);
    /* erased pages stay erased: a later program of one works */
    nand_block_t g = first_good(b, 1);
    CHECK_EQ_INT(nand_program(b, g, 5, x, NULL, NULL), NAND_OK);
    nand_close(a);
    nand_close(b);
}

TEST(raw_round_trip_keeps_data_and_erases_oob)
{
    nand_block_t marked;
    nand_dev *a = populated(&marked);
    REQUIRE(a);
    char path[512], err[256];
    path_in_tmp(path, sizeof path, "a.raw");
    CHECK_EQ_INT(nand_export(a, path, NAND_DUMP_RAW, err, sizeof err), NAND_OK);
    CHECK_EQ_INT(fx_file_size(path), (long long)NB * NP * PS);

    struct nand_config c;
    test_config(&c);
    nand_dev *b = NULL;
    CHECK_EQ_INT(nand_import(&c, path, NAND_DUMP_RAW, &b, err, sizeof err), NAND_OK);
    REQUIRE(b);
    uint8_t x[PB], y[PB];
    int diff = 0, oob = 0;
    for (nand_block_t blk = 0; blk < NB; blk++) {
        struct nand_block_info ia;
        nand_block_info(a, blk, &ia);
        for (nand_page_t p = 0; p < NP; p++) {
            page_of(a, blk, p, x);
            page_of(b, blk, p, y);
            if (ia.factory_bad) {
                diff += memcmp(x, y, PB) != 0; /* the same factory marker */
            } else if (blk == marked) {
                diff += !fx_all(y, PB, 0xff); /* a bad block exports as 0xFF */
            } else {
                diff += memcmp(x, y, PS) != 0;
                oob += !fx_all(y + PS, OS, 0xff);
            }
        }
    }
    CHECK_EQ_INT(diff, 0);
    CHECK_EQ_INT(oob, 0);
    /* the OOB-only page was all 0xFF data: left erased, so programmable */
    nand_block_t b1 = first_good(b, 1), b2 = first_good(b, b1 + 1);
    CHECK_EQ_INT(nand_program(b, b2, 7, NULL, x + PS, NULL), NAND_OK);
    nand_close(a);
    nand_close(b);
}

TEST(export_leaves_the_device_untouched)
{
    nand_block_t marked;
    nand_dev *a = populated(&marked);
    REQUIRE(a);
    struct nand_stats s0, s1;
    nand_get_stats(a, &s0);
    nand_time_t t0 = nand_now(a);
    char path[512];
    path_in_tmp(path, sizeof path, "u.nanddump");
    CHECK_EQ_INT(nand_export(a, path, NAND_DUMP_NANDDUMP, NULL, 0), NAND_OK);
    nand_get_stats(a, &s1);
    CHECK(memcmp(&s0, &s1, sizeof s0) == 0);
    CHECK(nand_now(a) == t0);
    struct nand_block_info bi;
    for (nand_block_t blk = 0; blk < NB; blk++) {
        nand_block_info(a, blk, &bi);
        CHECK(bi.reads_since_erase == 0);
    }
    nand_close(a);
}

TEST(export_writes_stored_bits_without_noise)
{
    /* a noisy, worn device: raw reads would show bit errors */
    struct nand_config c;
    fx_config(&c, &(struct fx_dev){.seed = 5, .blocks = 4});
    c.rber.eps = 1e-3;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PS];
    fx_fill(data, PS, 9);
    CHECK_EQ_INT(nand_program(d, 1, 0, data, NULL, NULL), NAND_OK);
    char path[512];
    path_in_tmp(path, sizeof path, "n.raw");
    CHECK_EQ_INT(nand_export(d, path, NAND_DUMP_RAW, NULL, 0), NAND_OK);
    size_t n;
    uint8_t *f = fx_slurp(path, &n);
    REQUIRE(f);
    CHECK_EQ_INT((long long)n, 4LL * NP * PS);
    CHECK(memcmp(f + (size_t)NP * PS, data, PS) == 0);
    free(f);
    nand_close(d);
}

/* nand_import of a file of n bytes (from a good dump's start); 0 or the
 * error code, with the message in err. */
static int import_bytes(const char *name, size_t n, enum nand_dump_format fmt,
                        char *err, size_t errlen)
{
    struct nand_config c;
    fx_config(&c, &(struct fx_dev){.quiet = 1, .seed = 3});
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return -100;
    memset(buf, 0xff, n);
    for (size_t i = 0; i < n && i < 100; i++)
        buf[i] = (uint8_t)i;
    char path[512];
    path_in_tmp(path, sizeof path, name);
    fx_spit(path, buf, n);
    free(buf);
    nand_dev *d = NULL;
    err[0] = 0;
    int rc = nand_import(&c, path, fmt, &d, err, errlen);
    CHECK((rc == 0) == (d != NULL));
    nand_close(d);
    return rc;
}

TEST(wrong_sizes_are_refused_with_the_unit)
{
    char err[512];
    CHECK_EQ_INT(import_bytes("ok.nd", 3 * PB, NAND_DUMP_NANDDUMP, err, sizeof err), 0);
    CHECK_EQ_INT(import_bytes("ok.raw", 17 * PS, NAND_DUMP_RAW, err, sizeof err), 0);
    CHECK_EQ_INT(import_bytes("empty.nd", 0, NAND_DUMP_NANDDUMP, err, sizeof err), 0);

    CHECK_EQ_INT(import_bytes("short.nd", 3 * PB - 1, NAND_DUMP_NANDDUMP, err, sizeof err),
                 NAND_E_CORRUPT);
    CHECK(strstr(err, "short.nd: 6335 bytes is not a whole number of 2112-byte pages "
                      "(2048 + 64 OOB)"));
    /* a raw file is whole pages of data: a nanddump of it is not */
    CHECK_EQ_INT(import_bytes("nd.raw", 2 * PB, NAND_DUMP_RAW, err, sizeof err),
                 NAND_E_CORRUPT);
    CHECK(strstr(err, "nd.raw: 4224 bytes is not a whole number of 2048-byte pages"));
    CHECK_EQ_INT(import_bytes("big.nd", (size_t)(NB * NP + 1) * PB, NAND_DUMP_NANDDUMP,
                              err, sizeof err), NAND_E_CORRUPT);
    CHECK(strstr(err, "big.nd: 2164800 bytes is larger than"));

    struct nand_config c;
    fx_config(&c, &(struct fx_dev){.seed = 3});
    nand_dev *d = (nand_dev *)1;
    CHECK_EQ_INT(nand_import(&c, "/nonexistent/x.nd", NAND_DUMP_NANDDUMP, &d, err,
                             sizeof err), NAND_E_IO);
    CHECK(d == NULL);
    CHECK(strstr(err, "/nonexistent/x.nd: cannot open"));
    CHECK_EQ_INT(nand_import(&c, "/nonexistent/x.nd", (enum nand_dump_format)9, &d, err,
                             sizeof err), NAND_E_INVAL);
}

TEST(data_on_a_factory_bad_block_is_refused)
{
    struct nand_config c;
    test_config(&c);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    nand_block_t bad = NB;
    struct nand_block_info bi;
    for (nand_block_t b = 1; b < NB && bad == NB; b++)
        if (nand_block_info(d, b, &bi) == 0 && bi.factory_bad)
            bad = b;
    nand_close(d);
    REQUIRE(bad < NB);
    /* raw: data in every page of every block lands on the bad one */
    size_t n = (size_t)NB * NP * PS;
    uint8_t *buf = malloc(n);
    REQUIRE(buf);
    memset(buf, 0x11, n);
    char path[512], err[512], want[128];
    path_in_tmp(path, sizeof path, "full.raw");
    fx_spit(path, buf, n);
    free(buf);
    CHECK_EQ_INT(nand_import(&c, path, NAND_DUMP_RAW, &d, err, sizeof err), NAND_E_CORRUPT);
    snprintf(want, sizeof want, "block %u holds data, but block %u of", bad, bad);
    CHECK(strstr(err, want));
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("dump")) {
        perror("mkdtemp");
        return 1;
    }
    RUN(nanddump_round_trip_keeps_data_oob_and_bad_blocks);
    RUN(raw_round_trip_keeps_data_and_erases_oob);
    RUN(export_leaves_the_device_untouched);
    RUN(export_writes_stored_bits_without_noise);
    RUN(wrong_sizes_are_refused_with_the_unit);
    RUN(data_on_a_factory_bad_block_is_refused);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

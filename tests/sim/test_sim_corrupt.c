/*
 * test_sim_corrupt.c -- damage injection (nand_corrupt, docs/simulator.md
 * "Damage injection"): what each mode does to reads, and that the damage
 * is part of the device: it survives save and open, and is deterministic.
 */
#include "nand.h"
#include "fixture.h"

#include <unistd.h>

#define NS_PER_HOUR 3600000000000ull

/* A quiet device (no sampled errors) with t = 4 bits per 512 bytes, and
 * block 3 page 2 programmed with a pattern. */
static nand_dev *damaged_dev(uint8_t *data)
{
    nand_dev *d = FX_DEVICE(.quiet = 1, .ecc_bits = 4, .seed = 21);
    if (!d)
        return NULL;
    fx_fill(data, PB, 5);
    for (nand_page_t p = 0; p <= 2; p++)
        if (nand_program(d, 3, p, data, data + PS, NULL) != NAND_OK) {
            nand_close(d);
            return NULL;
        }
    return d;
}

static int corrupt(nand_dev *d, enum nand_corrupt_mode m, uint32_t bits,
                   uint32_t offset)
{
    struct nand_corrupt c = {.mode = m, .block = 3, .page = 2, .bits = bits,
                             .offset = offset, .frac = -1, .seed = 7};
    return nand_corrupt(d, &c, NULL, 0);
}

TEST(flip_within_ecc_is_corrected_and_counted)
{
    uint8_t data[PB], buf[PB];
    nand_dev *d = damaged_dev(data);
    REQUIRE(d);
    REQUIRE(corrupt(d, NAND_CORRUPT_FLIP, 3, 600) == NAND_OK);
    struct nand_result r;
    for (int i = 0; i < 3; i++) { /* every read, not just the first */
        CHECK(nand_read(d, 3, 2, buf, buf + PS, &r) == NAND_OK);
        CHECK(r.corrected_bits == 3);
        CHECK(memcmp(buf, data, PB) == 0);
    }
    /* raw: the three bits, all in codeword 1 (bytes 512..1023) */
    CHECK(nand_read_raw(d, 3, 2, buf, buf + PS, &r) == NAND_OK);
    CHECK(fx_bitdiff(buf, data, PB) == 3);
    CHECK(fx_bitdiff(buf + 512, data + 512, 512) == 3);
    /* the neighbour is untouched */
    CHECK(nand_read(d, 3, 1, buf, buf + PS, &r) == NAND_OK && !r.corrected_bits);
    nand_close(d);
}

TEST(beyond_ecc_is_uncorrectable_with_really_wrong_data)
{
    uint8_t data[PB], buf[PB];
    nand_dev *d = damaged_dev(data);
    REQUIRE(d);
    REQUIRE(corrupt(d, NAND_CORRUPT_BEYOND, 0, 0) == NAND_OK);
    struct nand_result r;
    CHECK(nand_read(d, 3, 2, buf, buf + PS, &r) == NAND_E_ECC);
    CHECK(fx_bitdiff(buf, data, PB) == 5); /* t + 1 */
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK(st.uncorrectable_reads == 1);
    /* flip with more bits than t is the same thing */
    nand_close(d);
    d = damaged_dev(data);
    REQUIRE(d);
    REQUIRE(corrupt(d, NAND_CORRUPT_FLIP, 9, 0) == NAND_OK);
    CHECK(nand_read(d, 3, 2, buf, buf + PS, &r) == NAND_E_ECC);
    nand_close(d);
}

TEST(uncorrectable_page_fails_every_read)
{
    uint8_t data[PB], buf[PB];
    nand_dev *d = damaged_dev(data);
    REQUIRE(d);
    REQUIRE(corrupt(d, NAND_CORRUPT_UNCORRECTABLE, 0, 0) == NAND_OK);
    CHECK(nand_read(d, 3, 2, buf, buf + PS, NULL) == NAND_E_ECC);
    CHECK(nand_read(d, 3, 2, NULL, buf + PS, NULL) == NAND_E_ECC); /* spare too */
    CHECK(nand_read_col(d, 3, 2, 1500, buf, 10, NULL) == NAND_E_ECC);
    CHECK(nand_read(d, 3, 1, buf, buf + PS, NULL) == NAND_OK);
    /* an erase heals the cells */
    CHECK(nand_erase(d, 3, NULL) == NAND_OK);
    CHECK(nand_program(d, 3, 0, data, data + PS, NULL) == NAND_OK);
    CHECK(nand_read(d, 3, 0, buf, buf + PS, NULL) == NAND_OK);
    nand_close(d);
}

TEST(silent_change_passes_ecc)
{
    uint8_t data[PB], buf[PB];
    nand_dev *d = damaged_dev(data);
    REQUIRE(d);
    struct nand_corrupt c = {.mode = NAND_CORRUPT_SILENT, .block = 3, .page = 2,
                             .bits = 6, .offset = 100, .length = 20, .seed = 3};
    REQUIRE(nand_corrupt(d, &c, NULL, 0) == NAND_OK);
    struct nand_result r;
    CHECK(nand_read(d, 3, 2, buf, buf + PS, &r) == NAND_OK);
    CHECK(r.corrected_bits == 0);
    CHECK(fx_bitdiff(buf, data, PB) == 6);
    CHECK(fx_bitdiff(buf + 100, data + 100, 20) == 6);
    nand_close(d);
}

TEST(wipe_reads_erased_and_tear_is_uncorrectable)
{
    uint8_t data[PB], buf[PB];
    nand_dev *d = damaged_dev(data);
    REQUIRE(d);
    REQUIRE(corrupt(d, NAND_CORRUPT_WIPE, 0, 0) == NAND_OK);
    CHECK(nand_read(d, 3, 2, buf, buf + PS, NULL) == NAND_OK);
    CHECK(fx_all(buf, PB, 0xff));
    /* the block was not erased: the page cannot be programmed again */
    CHECK(nand_program(d, 3, 2, data, NULL, NULL) < 0);
    /* damage of an erased page is refused with a message naming it */
    char err[200] = "";
    struct nand_corrupt c = {.mode = NAND_CORRUPT_SILENT, .block = 3, .page = 2};
    CHECK(nand_corrupt(d, &c, err, sizeof err) == NAND_E_INVAL);
    CHECK(strstr(err, "block 3 page 2") != NULL);

    struct nand_corrupt t = {.mode = NAND_CORRUPT_TEAR, .block = 3, .page = 1,
                             .frac = 0.5, .seed = 1};
    REQUIRE(nand_corrupt(d, &t, NULL, 0) == NAND_OK);
    CHECK(nand_read(d, 3, 1, buf, buf + PS, NULL) == NAND_E_ECC);
    CHECK(nand_read(d, 3, 0, buf, buf + PS, NULL) == NAND_OK);
    nand_close(d);
}

TEST(bad_marks_a_grown_bad_block)
{
    uint8_t data[PB];
    nand_dev *d = damaged_dev(data);
    REQUIRE(d);
    REQUIRE(nand_program(d, 10, 0, data, NULL, NULL) == NAND_OK);
    CHECK(nand_is_bad(d, 10) == 0);
    struct nand_corrupt c = {.mode = NAND_CORRUPT_BAD, .block = 10};
    REQUIRE(nand_corrupt(d, &c, NULL, 0) == NAND_OK);
    CHECK(nand_is_bad(d, 10) == 1);
    uint8_t buf[PB];
    CHECK(nand_read(d, 10, 0, buf, NULL, NULL) == NAND_OK);
    CHECK(memcmp(buf, data, PS) == 0); /* the data stays */
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 10, &bi) == NAND_OK);
    CHECK(bi.grown_bad && bi.marked_bad && !bi.factory_bad);
    /* a bad block fails what is asked of it */
    CHECK(nand_program(d, 10, 1, data, NULL, NULL) == NAND_E_PROGRAM_FAIL);
    CHECK(nand_erase(d, 10, NULL) == NAND_E_ERASE_FAIL);
    /* an erased block too */
    c.block = 9;
    REQUIRE(nand_corrupt(d, &c, NULL, 0) == NAND_OK);
    CHECK(nand_is_bad(d, 9) == 1);
    nand_close(d);
}

TEST(age_adds_retention_time_and_read_disturb)
{
    struct nand_config cfg;
    fx_config(&cfg, &(struct fx_dev){.quiet = 1, .ecc_bits = 8, .seed = 4});
    cfg.rber.beta = 1e-7;
    cfg.rber.m = 0.5;
    cfg.rber.n = 1;
    cfg.rber.gamma = 1e-9;
    cfg.rber.p = 0.5;
    cfg.rber.q = 1;
    nand_dev *d = fx_create(&cfg);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 1);
    REQUIRE(nand_set_wear(d, 2, 1000) == NAND_OK);
    REQUIRE(nand_set_wear(d, 5, 1000) == NAND_OK);
    REQUIRE(nand_program(d, 2, 0, data, data + PS, NULL) == NAND_OK);
    REQUIRE(nand_program(d, 5, 0, data, data + PS, NULL) == NAND_OK);
    struct nand_result r;
    REQUIRE(nand_read_raw(d, 2, 0, buf, buf + PS, &r) == NAND_OK);
    CHECK(r.raw_bit_errors == 0);
    nand_time_t t0 = nand_now(d);
    struct nand_corrupt c = {.mode = NAND_CORRUPT_AGE, .age_ns = 1000 * NS_PER_HOUR};
    REQUIRE(nand_corrupt(d, &c, NULL, 0) == NAND_OK);
    CHECK(nand_now(d) == t0 + 1000 * NS_PER_HOUR);
    uint32_t aged = 0;
    for (int i = 0; i < 20; i++) {
        REQUIRE(nand_read_raw(d, 2, 0, buf, buf + PS, &r) == NAND_OK);
        aged += r.raw_bit_errors;
    }
    CHECK(aged > 20); /* ~3.2 a read expected */
    /* read disturb on block 5 only */
    struct nand_corrupt rd = {.mode = NAND_CORRUPT_AGE, .block = 5, .reads = 1000000};
    REQUIRE(nand_corrupt(d, &rd, NULL, 0) == NAND_OK);
    struct nand_block_info b2, b5;
    nand_block_info(d, 2, &b2);
    nand_block_info(d, 5, &b5);
    CHECK(b5.reads_since_erase >= 1000000 && b2.reads_since_erase < 100);
    uint32_t disturbed = 0;
    for (int i = 0; i < 20; i++) {
        REQUIRE(nand_read_raw(d, 5, 0, buf, buf + PS, &r) == NAND_OK);
        disturbed += r.raw_bit_errors;
    }
    CHECK(disturbed > aged + 100);
    rd.all_blocks = 1;
    REQUIRE(nand_corrupt(d, &rd, NULL, 0) == NAND_OK);
    nand_block_info(d, 2, &b2);
    CHECK(b2.reads_since_erase >= 1000000);
    nand_close(d);
}

TEST(bad_addresses_and_modes_are_refused_with_a_message)
{
    uint8_t data[PB];
    nand_dev *d = damaged_dev(data);
    REQUIRE(d);
    char err[200] = "";
    struct nand_corrupt c = {.mode = NAND_CORRUPT_FLIP, .block = 64};
    CHECK(nand_corrupt(d, &c, err, sizeof err) == NAND_E_ADDR);
    CHECK(strstr(err, "block 64") != NULL);
    c.block = 3;
    c.page = 16;
    CHECK(nand_corrupt(d, &c, err, sizeof err) == NAND_E_ADDR);
    CHECK(strstr(err, "page 16") != NULL);
    c.page = 2;
    c.offset = PB;
    CHECK(nand_corrupt(d, &c, err, sizeof err) == NAND_E_ADDR);
    c.mode = 99;
    CHECK(nand_corrupt(d, &c, err, sizeof err) == NAND_E_INVAL);
    CHECK(nand_corrupt_mode_parse("silent") == NAND_CORRUPT_SILENT);
    CHECK(nand_corrupt_mode_parse("tear") == NAND_CORRUPT_TEAR);
    CHECK(nand_corrupt_mode_parse("sideways") == 0);
    nand_close(d);
}

/* Every mode at once, saved and opened: reads agree exactly. */
TEST(damage_survives_save_and_open)
{
    uint8_t data[PB], a[PB], b[PB];
    nand_dev *d = damaged_dev(data);
    REQUIRE(d);
    for (nand_page_t p = 3; p < 8; p++)
        REQUIRE(nand_program(d, 3, p, data, data + PS, NULL) == NAND_OK);
    static const enum nand_corrupt_mode modes[] = {
        NAND_CORRUPT_FLIP, NAND_CORRUPT_BEYOND, NAND_CORRUPT_UNCORRECTABLE,
        NAND_CORRUPT_WIPE, NAND_CORRUPT_TEAR, NAND_CORRUPT_SILENT,
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        struct nand_corrupt c = {.mode = modes[i], .block = 3,
                                 .page = (nand_page_t)(i + 2), .bits = 2,
                                 .frac = -1, .seed = 11};
        REQUIRE(nand_corrupt(d, &c, NULL, 0) == NAND_OK);
    }
    struct nand_corrupt bad = {.mode = NAND_CORRUPT_BAD, .block = 7};
    struct nand_corrupt old = {.mode = NAND_CORRUPT_AGE, .age_ns = NS_PER_HOUR,
                               .block = 3, .reads = 50};
    REQUIRE(nand_corrupt(d, &bad, NULL, 0) == NAND_OK);
    REQUIRE(nand_corrupt(d, &old, NULL, 0) == NAND_OK);
    char path[300];
    snprintf(path, sizeof path, "%s/damaged.img", tmp_dir);
    REQUIRE(nand_save(d, path) == NAND_OK);
    nand_dev *e = NULL;
    char err[300];
    REQUIRE(nand_open(path, &e, err, sizeof err) == NAND_OK);
    CHECK(nand_now(e) == nand_now(d));
    CHECK(nand_is_bad(e, 7) == 1);
    for (nand_page_t p = 0; p < 8; p++) {
        struct nand_result ra, rb;
        int rca = nand_read(d, 3, p, a, a + PS, &ra);
        int rcb = nand_read(e, 3, p, b, b + PS, &rb);
        CHECK(rca == rcb);
        CHECK(memcmp(a, b, PB) == 0);
        CHECK(ra.corrected_bits == rb.corrected_bits);
    }
    /* page 2 has 2 weak bits: corrected; page 3 beyond: uncorrectable */
    struct nand_result r;
    CHECK(nand_read(e, 3, 2, a, a + PS, &r) == NAND_OK && r.corrected_bits == 2);
    CHECK(nand_read(e, 3, 3, a, a + PS, NULL) == NAND_E_ECC);
    CHECK(nand_read(e, 3, 4, a, a + PS, NULL) == NAND_E_ECC);
    nand_close(e);

    /* an undamaged device's image has no weak-cell section: flags 0 */
    nand_dev *f = FX_DEVICE(.quiet = 1, .seed = 2);
    REQUIRE(f);
    REQUIRE(nand_save(f, path) == NAND_OK);
    size_t n;
    uint8_t *img = fx_slurp(path, &n);
    REQUIRE(img && n > 32);
    CHECK(img[24] == 0); /* flags, after magic and version */
    free(img);
    nand_close(f);
    nand_close(d);
}

TEST(same_seed_same_damage)
{
    uint8_t data[PB], a[PB], b[PB];
    nand_dev *d = damaged_dev(data), *e = damaged_dev(data);
    REQUIRE(d && e);
    struct nand_corrupt c = {.mode = NAND_CORRUPT_SILENT, .block = 3, .page = 2,
                             .bits = 5, .seed = 99};
    REQUIRE(nand_corrupt(d, &c, NULL, 0) == NAND_OK);
    REQUIRE(nand_corrupt(e, &c, NULL, 0) == NAND_OK);
    CHECK(nand_read(d, 3, 2, a, a + PS, NULL) == NAND_OK);
    CHECK(nand_read(e, 3, 2, b, b + PS, NULL) == NAND_OK);
    CHECK(memcmp(a, b, PB) == 0);
    c.page = 1;
    c.seed = 100; /* another seed, other bits */
    REQUIRE(nand_corrupt(e, &c, NULL, 0) == NAND_OK);
    CHECK(nand_read(e, 3, 1, b, b + PS, NULL) == NAND_OK);
    c.seed = 99;
    REQUIRE(nand_corrupt(d, &c, NULL, 0) == NAND_OK);
    CHECK(nand_read(d, 3, 1, a, a + PS, NULL) == NAND_OK);
    CHECK(memcmp(a, b, PB) != 0);
    nand_close(d);
    nand_close(e);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("corrupt")) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    RUN(flip_within_ecc_is_corrected_and_counted);
    RUN(beyond_ecc_is_uncorrectable_with_really_wrong_data);
    RUN(uncorrectable_page_fails_every_read);
    RUN(silent_change_passes_ecc);
    RUN(wipe_reads_erased_and_tear_is_uncorrectable);
    RUN(bad_marks_a_grown_bad_block);
    RUN(age_adds_retention_time_and_read_disturb);
    RUN(bad_addresses_and_modes_are_refused_with_a_message);
    RUN(damage_survives_save_and_open);
    RUN(same_seed_same_damage);
    int rc = test_summary(argv[0]);
    tmp_dir_remove();
    return rc;
}

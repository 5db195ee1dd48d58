/*
 * test_sim_image.c -- device image files (docs/simulator.md "Image file
 * format"): save/open round trips of everything a device holds, images
 * saved after a power cut, corrupt and missing images, dedup, and sparse
 * storage of a 64 GiB device.
 */
#include "nand.h"
#include "fixture.h"

#include <sys/stat.h>
#include <unistd.h>


static void path_in_tmp(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmp_dir, name);
}

/* Compare two devices block by block and, reading both in lockstep, page
 * by page: with the same seed, wear, read counts and clock, even the
 * noise must agree.  Returns the number of differences. */
static int compare_devices(nand_dev *a, nand_dev *b)
{
    int diff = 0;
    const struct nand_config *ca = nand_get_config(a), *cb = nand_get_config(b);
    /* field by field: the structs have padding */
    diff += strcmp(ca->name, cb->name) != 0;
    diff += memcmp(&ca->geo, &cb->geo, sizeof ca->geo) != 0;
    diff += memcmp(&ca->timing, &cb->timing, sizeof ca->timing) != 0;
    diff += memcmp(&ca->rber, &cb->rber, sizeof ca->rber) != 0;
    diff += memcmp(&ca->ecc, &cb->ecc, sizeof ca->ecc) != 0;
    diff += ca->cell != cb->cell || ca->nop != cb->nop ||
            ca->pair_distance != cb->pair_distance ||
            ca->endurance != cb->endurance ||
            ca->endurance_sigma != cb->endurance_sigma ||
            ca->endurance_scale != cb->endurance_scale ||
            ca->initial_pe != cb->initial_pe ||
            ca->factory_bad_fraction != cb->factory_bad_fraction ||
            ca->seed != cb->seed || ca->dedup != cb->dedup ||
            ca->compress != cb->compress;
    diff += nand_now(a) != nand_now(b);
    struct nand_stats sa, sb;
    nand_get_stats(a, &sa);
    nand_get_stats(b, &sb);
    diff += memcmp(&sa, &sb, sizeof sa) != 0;
    uint64_t nb = nand_blocks(ca);
    for (nand_block_t blk = 0; blk < nb; blk++) {
        struct nand_block_info ia, ib;
        nand_block_info(a, blk, &ia);
        nand_block_info(b, blk, &ib);
        diff += ia.pe_cycles != ib.pe_cycles || ia.endurance != ib.endurance ||
                ia.reads_since_erase != ib.reads_since_erase ||
                ia.pages_programmed != ib.pages_programmed ||
                ia.factory_bad != ib.factory_bad ||
                ia.grown_bad != ib.grown_bad ||
                ia.marked_bad != ib.marked_bad ||
                ia.erase_torn != ib.erase_torn;
    }
    uint8_t x[PB], y[PB];
    for (nand_block_t blk = 0; blk < nb; blk++) {
        for (nand_page_t p = 0; p < ca->geo.pages_per_block; p++) {
            struct nand_result ra, rb;
            memset(x, 0, sizeof x);
            memset(y, 0, sizeof y);
            int rca = nand_read_raw(a, blk, p, x, x + PS, &ra);
            int rcb = nand_read_raw(b, blk, p, y, y + PS, &rb);
            diff += rca != rcb || memcmp(x, y, PB) != 0 ||
                    ra.raw_bit_errors != rb.raw_bit_errors;
            rca = nand_read(a, blk, p, x, x + PS, &ra);
            rcb = nand_read(b, blk, p, y, y + PS, &rb);
            diff += rca != rcb || memcmp(x, y, PB) != 0 ||
                    ra.corrected_bits != rb.corrected_bits;
        }
    }
    return diff;
}

/* A device with a bit of everything. */
static nand_dev *busy_device(struct nand_config *c, double eps)
{
    fx_small_config(c);
    c->nop = 4;
    c->factory_bad_fraction = 0.1;
    c->endurance = 100;
    c->endurance_sigma = 0.1; /* fresh blocks' draws must come back */
    c->initial_pe = 7;
    c->rber.eps = eps;
    c->rber.beta = eps ? 1e-6 : 0;
    c->rber.m = 0.5;
    c->rber.n = 0.5;
    c->seed = 99;
    /* a setting carried in the header's flags: it must come back too
     * (compare_devices compares the timing) */
    c->timing.whole_page_reads = eps > 0;
    snprintf(c->name, sizeof c->name, "image-test");
    nand_dev *d = fx_create(c);
    if (!d)
        return NULL;
    uint8_t data[PB];
    int fb = 0;
    for (nand_block_t b = 1; b < 128; b++) {
        struct nand_block_info bi;
        nand_block_info(d, b, &bi);
        fb += bi.factory_bad;
    }
    if (!fb)
        return NULL; /* the test relies on some factory-bad blocks */
    for (nand_block_t b = 70; b <= 75; b++) {
        struct nand_block_info bi;
        nand_block_info(d, b, &bi);
        if (bi.factory_bad)
            return NULL; /* and on these being good: pick another seed */
    }
    for (nand_block_t b = 0; b < 6; b++) {
        if (nand_is_bad(d, b) == 1)
            continue;
        for (uint32_t i = 0; i < 3 + b; i++)
            nand_erase(d, b, NULL);
        for (nand_page_t p = 0; p < 2 * b + 1; p += 1 + b % 2) {
            fx_fill(data, PB, b * 100 + p);
            nand_program(d, b, p, data, data + PS, NULL);
        }
    }
    /* a partially programmed page (2 of 4 programs) */
    fx_fill(data, PB, 7000);
    nand_program(d, 70, 0, data, data + PS, NULL);
    nand_program_col(d, 70, 0, 0, data + 100, 100, NULL);
    /* wear, marks, grown bad, read counts, time */
    nand_set_wear(d, 71, 12345);
    nand_mark_bad(d, 72);
    nand_set_wear(d, 73, 1000);
    nand_erase(d, 73, NULL); /* far past endurance 100: fails */
    for (int i = 0; i < 7; i++)
        nand_read(d, 1, 0, data, NULL, NULL);
    nand_advance(d, 50ull * 3600 * 1000000000ull);
    /* a torn program and a torn erase */
    nand_cut_after_ops(d, 0, 0.5);
    fx_fill(data, PB, 8000);
    nand_program(d, 74, 0, data, data + PS, NULL);
    nand_power_on(d);
    nand_program(d, 75, 0, data, data + PS, NULL);
    nand_cut_after_ops(d, 0, 0.5);
    nand_erase(d, 75, NULL);
    nand_power_on(d);
    nand_advance(d, 1000);
    return d;
}

TEST(save_open_round_trip)
{
    for (int noisy = 0; noisy <= 1; noisy++) {
        struct nand_config c;
        nand_dev *d = busy_device(&c, noisy ? 1e-4 : 0);
        REQUIRE(d);
        struct nand_block_info bi;
        REQUIRE(nand_block_info(d, 73, &bi) == NAND_OK);
        CHECK(bi.grown_bad);
        char path[300], err[400];
        path_in_tmp(path, sizeof path, "rt.img");
        REQUIRE(nand_save(d, path) == NAND_OK);
        nand_dev *e = NULL;
        err[0] = 0;
        REQUIRE(nand_open(path, &e, err, sizeof err) == NAND_OK);
        CHECK(nand_is_powered(e));
        CHECK(!strcmp(nand_get_config(e)->name, "image-test"));
        CHECK_EQ_INT(compare_devices(d, e), 0);

        /* the states that matter, spelled out (after the lockstep reads) */
        uint8_t buf[PB], data[PB];
        if (!noisy) {
            fx_fill(data, PB, 2 * 100 + 2);
            CHECK_EQ_INT(nand_read(e, 2, 2, buf, buf + PS, NULL), NAND_OK);
            CHECK(!memcmp(buf, data, PB));
        }
        REQUIRE(nand_block_info(e, 71, &bi) == NAND_OK);
        CHECK_EQ_INT(bi.pe_cycles, 12345);
        REQUIRE(nand_block_info(e, 72, &bi) == NAND_OK);
        CHECK(bi.marked_bad);
        CHECK_EQ_INT(nand_is_bad(e, 72), 1);
        REQUIRE(nand_block_info(e, 73, &bi) == NAND_OK);
        CHECK(bi.grown_bad && bi.erase_torn);
        REQUIRE(nand_block_info(e, 75, &bi) == NAND_OK);
        CHECK(bi.erase_torn);
        CHECK(nand_program(e, 75, 3, buf, NULL, NULL) < 0);
        CHECK_EQ_INT(nand_read(e, 74, 0, buf, buf + PS, NULL), NAND_E_ECC);
        /* a torn program used one of the page's 4 programs */
        for (int i = 0; i < 3; i++)
            CHECK_EQ_INT(nand_program_col(e, 74, 0, 0, buf, 1, NULL), NAND_OK);
        CHECK_EQ_INT(nand_program_col(e, 74, 0, 0, buf, 1, NULL), NAND_E_NOP);
        /* the partial page takes exactly its remaining 2 programs */
        CHECK_EQ_INT(nand_program_col(e, 70, 0, 500, buf, 10, NULL), NAND_OK);
        CHECK_EQ_INT(nand_program_col(e, 70, 0, 600, buf, 10, NULL), NAND_OK);
        CHECK_EQ_INT(nand_program_col(e, 70, 0, 700, buf, 10, NULL), NAND_E_NOP);
        int fbad = 0;
        for (nand_block_t b = 0; b < 128; b++) {
            struct nand_block_info i1;
            nand_block_info(e, b, &i1);
            if (i1.factory_bad) {
                fbad++;
                CHECK_EQ_INT(nand_erase(e, b, NULL), NAND_E_ERASE_FAIL);
                CHECK_EQ_INT(nand_is_bad(e, b), 1);
            }
        }
        CHECK(fbad > 0);
        /* a second save of the reopened device is byte-identical in size
         * and reopens to the same state */
        char p2[300];
        path_in_tmp(p2, sizeof p2, "rt2.img");
        REQUIRE(nand_save(e, p2) == NAND_OK);
        nand_dev *f = NULL;
        REQUIRE(nand_open(p2, &f, err, sizeof err) == NAND_OK);
        CHECK_EQ_INT(compare_devices(e, f), 0);
        nand_close(f);
        nand_close(e);
        nand_close(d);
        unlink(path);
        unlink(p2);
    }
}

TEST(image_saved_after_a_power_cut)
{
    struct nand_config c;
    fx_small_config(&c);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 1);
    REQUIRE(nand_program(d, 3, 0, data, data + PS, NULL) == NAND_OK);
    nand_cut_after_ops(d, 0, 0.5);
    CHECK_EQ_INT(nand_program(d, 3, 1, data, data + PS, NULL), NAND_E_POWER);
    CHECK(!nand_is_powered(d));
    nand_time_t cut = nand_now(d);
    char path[300], err[400];
    path_in_tmp(path, sizeof path, "cut.img");
    CHECK_EQ_INT(nand_save(d, path), NAND_OK);
    nand_dev *e = NULL;
    REQUIRE(nand_open(path, &e, err, sizeof err) == NAND_OK);
    CHECK(nand_is_powered(e));
    CHECK_EQ_INT(nand_now(e), cut);
    struct nand_stats st;
    nand_get_stats(e, &st);
    CHECK_EQ_INT(st.torn_programs, 1);
    CHECK_EQ_INT(st.power_cuts, 1);
    CHECK_EQ_INT(nand_read(e, 3, 0, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PB));
    CHECK_EQ_INT(nand_read(e, 3, 1, buf, buf + PS, NULL), NAND_E_ECC);
    CHECK_EQ_INT(nand_program(e, 3, 1, data, NULL, NULL), NAND_E_NOT_ERASED);
    CHECK_EQ_INT(nand_program(e, 3, 2, data, NULL, NULL), NAND_OK);
    /* and the original, powered on, agrees */
    nand_power_on(d);
    CHECK_EQ_INT(nand_read(d, 3, 1, buf, buf + PS, NULL), NAND_E_ECC);
    nand_close(e);
    nand_close(d);
    unlink(path);
}

/* A small device so that every byte of its image can be tried. */
static nand_dev *tiny_device(void)
{
    struct nand_config c;
    nand_config_init(&c);
    c.geo.blocks_per_plane = 4;
    c.geo.pages_per_block = 4;
    c.geo.page_size = 512;
    c.geo.oob_size = 16;
    c.ecc.codeword_bytes = 512;
    nand_dev *d = fx_create(&c);
    if (!d)
        return NULL;
    uint8_t data[528];
    fx_fill(data, sizeof data, 2);
    nand_program(d, 1, 0, data, data + 512, NULL);
    nand_program(d, 1, 1, data, NULL, NULL);
    nand_erase(d, 2, NULL);
    nand_advance(d, 777);
    return d;
}

/* Open must fail cleanly: nonzero, a message naming the path, no device. */
static int open_fails(const char *path, int *rc_out)
{
    char err[512];
    memset(err, 0, sizeof err);
    nand_dev *e = (nand_dev *)(uintptr_t)1;
    int rc = nand_open(path, &e, err, sizeof err);
    if (rc_out)
        *rc_out = rc;
    if (rc == NAND_OK) {
        nand_close(e);
        return 0;
    }
    return rc < 0 && strstr(err, path) != NULL &&
           e == (nand_dev *)(uintptr_t)1;
}

TEST(corrupt_images_are_refused)
{
    nand_dev *d = tiny_device();
    REQUIRE(d);
    char good[300], bad[300];
    path_in_tmp(good, sizeof good, "tiny.img");
    path_in_tmp(bad, sizeof bad, "bad.img");
    REQUIRE(nand_save(d, good) == NAND_OK);
    size_t n = 0;
    uint8_t *img = fx_slurp(good, &n);
    REQUIRE(img && n > 100);
    nand_dev *e = NULL;
    char err[512];
    REQUIRE(nand_open(good, &e, err, sizeof err) == NAND_OK);
    CHECK_EQ_INT(compare_devices(d, e), 0);
    nand_close(e);

    /* truncated at every length */
    int fails = 0, rc;
    for (size_t len = 0; len < n; len++) {
        REQUIRE(fx_spit(bad, img, len) == 0);
        if (!open_fails(bad, &rc)) {
            fails++;
            fprintf(stderr, "  truncated to %zu: rc %d\n", len, rc);
        }
    }
    CHECK_EQ_INT(fails, 0);

    /* one byte flipped anywhere (a CRC-32 catches every single-byte
     * error; fields checked before it must refuse too) */
    fails = 0;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            img[i] ^= k ? 0x80 : 0x01;
            REQUIRE(fx_spit(bad, img, n) == 0);
            if (!open_fails(bad, &rc)) {
                fails++;
                fprintf(stderr, "  byte %zu ^ %#x: rc %d\n", i, k ? 0x80 : 1, rc);
            }
            img[i] ^= k ? 0x80 : 0x01;
        }
    }
    CHECK_EQ_INT(fails, 0);

    /* trailing garbage */
    uint8_t *longer = malloc(n + 1);
    REQUIRE(longer);
    memcpy(longer, img, n);
    longer[n] = 0;
    REQUIRE(fx_spit(bad, longer, n + 1) == 0);
    CHECK(open_fails(bad, NULL));
    free(longer);

    /* the specific header checks, with their messages */
    img[0] ^= 0x20; /* magic */
    REQUIRE(fx_spit(bad, img, n) == 0);
    memset(err, 0, sizeof err);
    CHECK_EQ_INT(nand_open(bad, &e, err, sizeof err), NAND_E_CORRUPT);
    CHECK(strstr(err, bad) && strstr(err, "not a flashlab"));
    img[0] ^= 0x20;
    uint8_t version = img[16]; /* a u64 after the 16-byte magic */
    CHECK(version >= 1);
    img[16] = (uint8_t)(version + 1);
    REQUIRE(fx_spit(bad, img, n) == 0);
    CHECK_EQ_INT(nand_open(bad, &e, err, sizeof err), NAND_E_CORRUPT);
    CHECK(strstr(err, bad) && strstr(err, "version"));
    img[16] = version;
    img[n / 2] ^= 0x10; /* somewhere in the middle */
    REQUIRE(fx_spit(bad, img, n) == 0);
    CHECK_EQ_INT(nand_open(bad, &e, err, sizeof err), NAND_E_CORRUPT);
    CHECK(strstr(err, bad) != NULL);
    img[n / 2] ^= 0x10;
    REQUIRE(fx_spit(bad, img, 0) == 0); /* zero length */
    CHECK_EQ_INT(nand_open(bad, &e, err, sizeof err), NAND_E_CORRUPT);
    CHECK(strstr(err, bad) != NULL);

    /* missing file, a directory, no error buffer */
    char missing[300];
    path_in_tmp(missing, sizeof missing, "no-such.img");
    memset(err, 0, sizeof err);
    CHECK_EQ_INT(nand_open(missing, &e, err, sizeof err), NAND_E_IO);
    CHECK(strstr(err, missing) != NULL);
    CHECK(open_fails(tmp_dir, NULL));
    CHECK(nand_open(missing, &e, NULL, 0) == NAND_E_IO);

    /* the good image still opens */
    REQUIRE(fx_spit(bad, img, n) == 0);
    REQUIRE(nand_open(bad, &e, err, sizeof err) == NAND_OK);
    nand_close(e);

    /* save to a directory that does not exist: an error, not a crash */
    char nodir[300];
    path_in_tmp(nodir, sizeof nodir, "no/such/dir.img");
    CHECK_EQ_INT(nand_save(d, nodir), NAND_E_IO);
    free(img);
    nand_close(d);
    unlink(good);
    unlink(bad);
}

TEST(save_replaces_atomically_and_leaves_no_temporary)
{
    nand_dev *d = tiny_device();
    REQUIRE(d);
    char path[300];
    path_in_tmp(path, sizeof path, "atomic.img");
    REQUIRE(fx_spit(path, (const uint8_t *)"old", 3) == 0);
    REQUIRE(nand_save(d, path) == NAND_OK);
    CHECK(fx_file_size(path) > 3);
    char tmp[320];
    snprintf(tmp, sizeof tmp, "%s.tmpXXX", path);
    CHECK_EQ_INT(fx_file_size(tmp), -1);
    /* a device saved twice gives the same bytes */
    size_t n1, n2;
    uint8_t *a = fx_slurp(path, &n1);
    REQUIRE(nand_save(d, path) == NAND_OK);
    uint8_t *b = fx_slurp(path, &n2);
    REQUIRE(a && b);
    CHECK(n1 == n2 && !memcmp(a, b, n1));
    free(a);
    free(b);
    nand_close(d);
    unlink(path);
}

TEST(dedup_stores_equal_pages_once)
{
    struct nand_config c;
    fx_small_config(&c);
    c.nop = 2;
    uint8_t same[PB], other[PB], buf[PB];
    fx_fill(same, PB, 1);
    fx_fill(other, PB, 2);
    long long size[2];
    for (int dd = 0; dd <= 1; dd++) {
        c.dedup = dd;
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        for (nand_block_t b = 0; b < 10; b++)
            for (nand_page_t p = 0; p < 10; p++)
                REQUIRE(nand_program(d, b, p, p == 9 ? other : same,
                                     (p == 9 ? other : same) + PS, NULL) == NAND_OK);
        struct nand_stats st;
        nand_get_stats(d, &st);
        CHECK_EQ_INT(st.pages_stored, dd ? 2 : 100);
        CHECK_EQ_INT(st.bytes_stored, (dd ? 2ull : 100ull) * PB);

        /* a partial program of one sharer must not change the others */
        uint8_t patch[16];
        memset(patch, 0, sizeof patch);
        REQUIRE(nand_program_col(d, 3, 9, 0, patch, 16, NULL) == NAND_OK);
        CHECK_EQ_INT(nand_read(d, 4, 9, buf, buf + PS, NULL), NAND_OK);
        CHECK(!memcmp(buf, other, PB));
        CHECK_EQ_INT(nand_read(d, 3, 9, buf, buf + PS, NULL), NAND_OK);
        CHECK(fx_all(buf, 16, 0));
        CHECK(!memcmp(buf + 16, other + 16, PB - 16));
        /* erasing sharers keeps the rest */
        REQUIRE(nand_erase(d, 0, NULL) == NAND_OK);
        CHECK_EQ_INT(nand_read(d, 1, 5, buf, buf + PS, NULL), NAND_OK);
        CHECK(!memcmp(buf, same, PB));
        nand_get_stats(d, &st);
        CHECK_EQ_INT(st.pages_stored, dd ? 3 : 90);

        char path[300], err[400];
        path_in_tmp(path, sizeof path, dd ? "dedup.img" : "nodedup.img");
        REQUIRE(nand_save(d, path) == NAND_OK);
        size[dd] = fx_file_size(path);
        nand_dev *e = NULL;
        REQUIRE(nand_open(path, &e, err, sizeof err) == NAND_OK);
        CHECK(nand_get_config(e)->dedup == dd);
        struct nand_stats se;
        nand_get_stats(e, &se);
        CHECK_EQ_INT(se.pages_stored, st.pages_stored);
        CHECK_EQ_INT(se.bytes_stored, st.bytes_stored);
        CHECK_EQ_INT(compare_devices(d, e), 0);
        /* the reopened dedup device keeps sharing new equal pages */
        nand_get_stats(e, &se);
        REQUIRE(nand_program(e, 20, 0, same, same + PS, NULL) == NAND_OK);
        struct nand_stats se2;
        nand_get_stats(e, &se2);
        CHECK_EQ_INT(se2.pages_stored, se.pages_stored + (dd ? 0 : 1));
        nand_close(e);
        nand_close(d);
        unlink(path);
    }
    /* 87 fewer page contents in the dedup image (each its length and
     * its bytes) */
    CHECK(size[1] > 0 && size[0] - size[1] == 87ll * (8 + PB));
}

TEST(sparse_64gib_device)
{
    struct nand_config c;
    nand_config_init(&c);
    c.geo.channels = 2;
    c.geo.dies_per_channel = 2;
    c.geo.blocks_per_plane = 131072; /* 524288 blocks of 64 x 2 KiB */
    c.geo.pages_per_block = 64;
    c.geo.page_size = PS;
    c.geo.oob_size = OS;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    CHECK_EQ_INT(nand_capacity_bytes(nand_get_config(d)), 64ull << 30);
    uint8_t data[PB], buf[PB];
    static const nand_block_t blocks[] = {0, 1, 262143, 262144, 524287};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        fx_fill(data, PB, blocks[i]);
        REQUIRE(nand_program(d, blocks[i], 0, data, data + PS, NULL) == NAND_OK);
        REQUIRE(nand_program(d, blocks[i], 63, data, data + PS, NULL) == NAND_OK);
    }
    REQUIRE(nand_erase(d, 400000, NULL) == NAND_OK);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.pages_stored, 10);
    CHECK_EQ_INT(st.bytes_stored, 10ull * PB);
    char path[300], err[400];
    path_in_tmp(path, sizeof path, "big.img");
    REQUIRE(nand_save(d, path) == NAND_OK);
    long long sz = fx_file_size(path);
    fprintf(stderr, "  64 GiB image with 10 pages: %lld bytes\n", sz);
    CHECK(sz > 10ll * PB);
    CHECK(sz < 4ll << 20);
    nand_dev *e = NULL;
    REQUIRE(nand_open(path, &e, err, sizeof err) == NAND_OK);
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        fx_fill(data, PB, blocks[i]);
        CHECK_EQ_INT(nand_read(e, blocks[i], 63, buf, buf + PS, NULL), NAND_OK);
        CHECK(!memcmp(buf, data, PB));
    }
    struct nand_block_info bi;
    REQUIRE(nand_block_info(e, 400000, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.pe_cycles, 1);
    nand_get_stats(e, &st);
    CHECK_EQ_INT(st.bytes_stored, 10ull * PB);
    nand_close(e);
    nand_close(d);
    unlink(path);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("image")) {
        perror("mkdtemp");
        return 1;
    }
    RUN(save_open_round_trip);
    RUN(image_saved_after_a_power_cut);
    RUN(corrupt_images_are_refused);
    RUN(save_replaces_atomically_and_leaves_no_temporary);
    RUN(dedup_stores_equal_pages_once);
    RUN(sparse_64gib_device);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

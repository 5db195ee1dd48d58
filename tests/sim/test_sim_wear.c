/*
 * test_sim_wear.c -- P/E counting, initial and set wear, the per-block
 * endurance draw, wear-out failures past endurance (docs/simulator.md
 * "Wear") and the endurance_scale acceleration.
 */
#include "nand.h"
#include "fixture.h"


static uint64_t pe_of(nand_dev *d, nand_block_t b)
{
    struct nand_block_info bi;
    if (nand_block_info(d, b, &bi))
        return ~0ull;
    return bi.pe_cycles;
}

TEST(pe_counter_counts_erases_per_block)
{
    struct nand_config c;
    fx_small_config(&c);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    for (int i = 0; i < 10; i++)
        REQUIRE(nand_erase(d, 5, NULL) == NAND_OK);
    for (int i = 0; i < 3; i++)
        REQUIRE(nand_erase(d, 100, NULL) == NAND_OK);
    CHECK_EQ_INT(pe_of(d, 5), 10);
    CHECK_EQ_INT(pe_of(d, 100), 3);
    CHECK_EQ_INT(pe_of(d, 4), 0);
    CHECK_EQ_INT(pe_of(d, 6), 0);
    /* programs and reads do not count as cycles */
    uint8_t data[PS];
    fx_fill(data, PS, 1);
    REQUIRE(nand_program(d, 5, 0, data, NULL, NULL) == NAND_OK);
    REQUIRE(nand_read(d, 5, 0, data, NULL, NULL) == NAND_OK);
    CHECK_EQ_INT(pe_of(d, 5), 10);
    /* a refused erase does not count either */
    CHECK_EQ_INT(nand_erase(d, 128, NULL), NAND_E_ADDR);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.erases, 13);
    nand_close(d);
}

TEST(initial_pe_and_set_wear)
{
    struct nand_config c;
    fx_small_config(&c);
    c.initial_pe = 500;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    for (nand_block_t b = 0; b < 128; b++)
        CHECK_EQ_INT(pe_of(d, b), 500);
    REQUIRE(nand_erase(d, 7, NULL) == NAND_OK);
    CHECK_EQ_INT(pe_of(d, 7), 501);
    CHECK_EQ_INT(nand_set_wear(d, 7, 12345), NAND_OK);
    CHECK_EQ_INT(pe_of(d, 7), 12345);
    REQUIRE(nand_erase(d, 7, NULL) == NAND_OK);
    CHECK_EQ_INT(pe_of(d, 7), 12346);
    CHECK_EQ_INT(nand_set_wear(d, 8, 0), NAND_OK);
    CHECK_EQ_INT(pe_of(d, 8), 0);
    CHECK_EQ_INT(pe_of(d, 9), 500);
    /* set_wear keeps the contents: it is bookkeeping, not an erase */
    uint8_t data[PS], buf[PS];
    fx_fill(data, PS, 2);
    REQUIRE(nand_program(d, 9, 0, data, NULL, NULL) == NAND_OK);
    REQUIRE(nand_set_wear(d, 9, 900) == NAND_OK);
    REQUIRE(nand_read(d, 9, 0, buf, NULL, NULL) == NAND_OK);
    CHECK(!memcmp(buf, data, PS));
    nand_close(d);
}

TEST(endurance_is_drawn_around_the_rated_value)
{
    struct nand_config c;
    fx_small_config(&c);
    c.geo.blocks_per_plane = 1024; /* 2048 blocks */
    c.endurance = 100000;
    c.endurance_sigma = 0;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    for (nand_block_t b = 0; b < 2048; b += 97) {
        struct nand_block_info bi;
        REQUIRE(nand_block_info(d, b, &bi) == NAND_OK);
        CHECK_EQ_INT(bi.endurance, 100000);
    }
    nand_close(d);

    c.endurance_sigma = 0.1;
    const double E = (double)c.endurance, sd = c.endurance_sigma * E;
    const int n = 2048;
    double first[2048];
    for (uint64_t seed = 1; seed <= 2; seed++) {
        c.seed = seed;
        d = fx_create(&c);
        REQUIRE(d);
        double sum = 0, sum2 = 0, lo = 1e300, hi = 0;
        uint64_t differ = 0;
        for (nand_block_t b = 0; b < (nand_block_t)n; b++) {
            struct nand_block_info bi;
            REQUIRE(nand_block_info(d, b, &bi) == NAND_OK);
            double e = (double)bi.endurance;
            sum += e;
            sum2 += e * e;
            lo = e < lo ? e : lo;
            hi = e > hi ? e : hi;
            if (seed == 1)
                first[b] = e;
            else
                differ += first[b] != e;
        }
        double mean = sum / n;
        double var = (sum2 - n * mean * mean) / (n - 1);
        /* standard error of the mean sd/sqrt(n); of the sample sd about
         * sd/sqrt(2n) for a normal distribution */
        CHECK_NEAR(mean, E, 4 * sd / sqrt((double)n));
        CHECK_NEAR(sqrt(var), sd, 4 * sd / sqrt(2.0 * n));
        /* a normal sample of 2048 spans about +-3.5 sd */
        CHECK(lo < E - 2.5 * sd && lo > E - 5 * sd);
        CHECK(hi > E + 2.5 * sd && hi < E + 5 * sd);
        if (seed == 2)
            CHECK(differ > (uint64_t)n * 9 / 10);
        nand_close(d);
    }
}

/* Fraction of blocks whose one operation at effective excess `x` past an
 * endurance of E fails; checks the documented flags on each outcome. */
static int wear_trials(int erase, double E, uint64_t x, int nblocks,
                       int *fails)
{
    struct nand_config c;
    fx_small_config(&c);
    c.geo.blocks_per_plane = (uint32_t)nblocks / 2;
    c.endurance = (uint64_t)E;
    c.seed = 1000 + x + (uint64_t)erase;
    nand_dev *d = fx_create(&c);
    if (!d)
        return -1;
    uint8_t data[PB];
    fx_fill(data, sizeof data, 3);
    *fails = 0;
    int bad_flags = 0;
    for (nand_block_t b = 0; b < (nand_block_t)nblocks; b++) {
        int rc;
        if (erase) {
            /* the erase itself adds the cycle that reaches E + x */
            nand_set_wear(d, b, (uint64_t)E + x - 1);
            rc = nand_erase(d, b, NULL);
        } else {
            nand_set_wear(d, b, (uint64_t)E + x);
            rc = nand_program(d, b, 0, data, data + PS, NULL);
        }
        struct nand_block_info bi;
        nand_block_info(d, b, &bi);
        if (rc == (erase ? NAND_E_ERASE_FAIL : NAND_E_PROGRAM_FAIL)) {
            (*fails)++;
            bad_flags += !bi.grown_bad;
            if (erase)
                bad_flags += !bi.erase_torn; /* left half-erased */
        } else if (rc == NAND_OK) {
            bad_flags += bi.grown_bad || bi.erase_torn;
        } else {
            bad_flags++;
        }
        bad_flags += bi.pe_cycles != (uint64_t)E + x;
    }
    struct nand_stats st;
    nand_get_stats(d, &st);
    if ((erase ? st.erase_fails : st.program_fails) != (uint64_t)*fails)
        bad_flags++;
    if ((erase ? st.erases : st.programs) != (uint64_t)(nblocks - *fails))
        bad_flags++;
    nand_close(d);
    return bad_flags;
}

TEST(wear_out_past_endurance_with_rising_probability)
{
    const double E = 1000;
    const int n = 512;
    static const uint64_t excess[] = {0, 10, 50, 150};
    for (int erase = 0; erase <= 1; erase++) {
        double prev = -1;
        for (size_t i = 0; i < sizeof excess / sizeof excess[0]; i++) {
            int fails = 0;
            int bad = wear_trials(erase, E, excess[i], n, &fails);
            CHECK_EQ_INT(bad, 0);
            /* documented: 1 - exp(-excess / (0.05 * endurance)) */
            double p = 1 - exp(-(double)excess[i] / (0.05 * E));
            double frac = (double)fails / n;
            if (excess[i] == 0) {
                CHECK_EQ_INT(fails, 0); /* at rated wear nothing fails */
            } else {
                double sd = sqrt(p * (1 - p) / n);
                CHECK_NEAR(frac, p, 4 * sd + 1.0 / n);
            }
            CHECK(frac > prev);
            prev = frac;
        }
    }
}

TEST(a_worn_block_stays_grown_bad)
{
    struct nand_config c;
    fx_small_config(&c);
    c.endurance = 40;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    int first_fail = 0;
    for (int i = 1; i <= 200 && !first_fail; i++) {
        int rc = nand_erase(d, 20, NULL);
        if (rc == NAND_E_ERASE_FAIL)
            first_fail = i;
        else
            REQUIRE(rc == NAND_OK);
    }
    /* never before rated wear; 1 - exp(-x/2) makes it very likely by 55 */
    CHECK(first_fail > 40);
    CHECK(first_fail <= 55);
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 20, &bi) == NAND_OK);
    CHECK(bi.grown_bad);
    CHECK(bi.erase_torn);
    CHECK_EQ_INT(bi.pe_cycles, (uint64_t)first_fail);
    /* until an erase succeeds the block cannot be programmed */
    uint8_t data[PS];
    fx_fill(data, PS, 9);
    int rc = nand_program(d, 20, 0, data, NULL, NULL);
    CHECK(rc == NAND_E_NOT_ERASED || rc == NAND_E_NOP);
    /* a later successful erase clears erase_torn but not grown_bad */
    for (int i = 0; i < 200; i++)
        if (nand_erase(d, 20, NULL) == NAND_OK)
            break;
    REQUIRE(nand_block_info(d, 20, &bi) == NAND_OK);
    CHECK(bi.grown_bad);
    /* neighbours are unaffected */
    REQUIRE(nand_block_info(d, 21, &bi) == NAND_OK);
    CHECK(!bi.grown_bad);
    CHECK_EQ_INT(bi.pe_cycles, 0);
    nand_close(d);
}

TEST(endurance_scale_accelerates_wear_out)
{
    struct nand_config c;
    fx_small_config(&c);
    c.endurance = 1000;
    c.endurance_scale = 0.01;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 0, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.endurance, 10); /* reported in real cycles */
    const int n = 128;
    int at[16] = {0};
    for (nand_block_t b = 0; b < (nand_block_t)n; b++) {
        int i;
        for (i = 1; i <= 15; i++)
            if (nand_erase(d, b, NULL) != NAND_OK)
                break;
        CHECK(i > 10);  /* 10 erases = 1000 effective cycles: still good */
        CHECK(i <= 13); /* survival past 13 has probability e^-12 */
        at[i < 16 ? i : 15]++;
    }
    /* effective excess 100 at the 11th erase: p = 1 - exp(-100/50) */
    double p11 = 1 - exp(-2.0);
    CHECK_NEAR((double)at[11] / n, p11, 4 * sqrt(p11 * (1 - p11) / n));
    nand_close(d);

    /* the same part unscaled survives those erases easily */
    c.endurance_scale = 1;
    d = fx_create(&c);
    REQUIRE(d);
    for (nand_block_t b = 0; b < 16; b++)
        for (int i = 0; i < 15; i++)
            CHECK_EQ_INT(nand_erase(d, b, NULL), NAND_OK);
    REQUIRE(nand_block_info(d, 0, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.endurance, 1000);
    nand_close(d);
}

/* Mean raw bit errors per full-page raw read of block b (page 0, data
 * already programmed), over `reads` reads. */
static double mean_raw_errors(nand_dev *d, nand_block_t b, int reads)
{
    uint8_t buf[PB];
    double sum = 0;
    for (int i = 0; i < reads; i++) {
        struct nand_result r;
        if (nand_read_raw(d, b, 0, buf, buf + PS, &r) != NAND_OK)
            return -1;
        sum += r.raw_bit_errors;
    }
    return sum / reads;
}

TEST(endurance_scale_also_scales_bit_errors)
{
    /* alpha term only: RBER = alpha * (PE / scale)^k */
    struct nand_config c;
    fx_small_config(&c);
    c.rber.alpha = 1e-10;
    c.rber.k = 2;
    c.endurance = 100000;
    uint8_t data[PB];
    fx_fill(data, sizeof data, 4);
    const int reads = 2000;
    const double bits = PB * 8.0;
    double mean[2];
    for (int i = 0; i < 2; i++) {
        c.endurance_scale = i ? 0.01 : 1;
        uint64_t pe = i ? 100 : 10000; /* same effective wear */
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        REQUIRE(nand_set_wear(d, 3, pe) == NAND_OK);
        REQUIRE(nand_program(d, 3, 0, data, data + PS, NULL) == NAND_OK);
        mean[i] = mean_raw_errors(d, 3, reads);
        double lam = bits * c.rber.alpha * pow(pe / c.endurance_scale, c.rber.k);
        CHECK_NEAR(mean[i], lam, 4 * sqrt(lam / reads));
        /* and at that wear unscaled the block would be nearly clean */
        if (i) {
            REQUIRE(nand_set_wear(d, 4, pe) == NAND_OK);
            REQUIRE(nand_program(d, 4, 0, data, data + PS, NULL) == NAND_OK);
            nand_close(d);
            c.endurance_scale = 1;
            d = fx_create(&c);
            REQUIRE(d);
            REQUIRE(nand_set_wear(d, 4, pe) == NAND_OK);
            REQUIRE(nand_program(d, 4, 0, data, data + PS, NULL) == NAND_OK);
            CHECK(mean_raw_errors(d, 4, reads) < lam / 100);
        }
        nand_close(d);
    }
    CHECK(mean[0] > 0.5);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(pe_counter_counts_erases_per_block);
    RUN(initial_pe_and_set_wear);
    RUN(endurance_is_drawn_around_the_rated_value);
    RUN(wear_out_past_endurance_with_rising_probability);
    RUN(a_worn_block_stays_grown_bad);
    RUN(endurance_scale_accelerates_wear_out);
    RUN(endurance_scale_also_scales_bit_errors);
    return test_summary(argv[0]);
}

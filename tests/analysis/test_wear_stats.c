/*
 * test_wear_stats.c -- erase-count summaries against values worked out by
 * hand and against a direct O(n^2) Gini (mean absolute difference).
 */
#include "nand.h"
#include "fixture.h"
#include "wear_stats.h"

/* Gini as half the relative mean absolute difference: the definition. */
static double gini_direct(const uint64_t *x, size_t n)
{
    double diff = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += (double)x[i];
        for (size_t j = 0; j < n; j++)
            diff += fabs((double)x[i] - (double)x[j]);
    }
    return sum > 0 ? diff / (2.0 * (double)n * sum) : 0;
}

TEST(summary_by_hand)
{
    struct wear_summary s;
    const uint64_t equal[] = {7, 7, 7, 7};
    wear_summarize(equal, 4, &s);
    CHECK(s.n == 4 && s.min == 7 && s.max == 7);
    CHECK_NEAR(s.mean, 7, 1e-12);
    CHECK_NEAR(s.stdev, 0, 1e-12);
    CHECK_NEAR(s.gini, 0, 1e-12);
    const uint64_t one[] = {0, 0, 0, 10}; /* one block took all: (n-1)/n */
    wear_summarize(one, 4, &s);
    CHECK_NEAR(s.gini, 0.75, 1e-12);
    CHECK_NEAR(s.mean, 2.5, 1e-12);
    CHECK_NEAR(s.stdev, sqrt((3 * 2.5 * 2.5 + 7.5 * 7.5) / 4), 1e-12);
    const uint64_t v[] = {2, 4, 4, 4, 5, 5, 7, 9}; /* the textbook stdev 2 */
    wear_summarize(v, 8, &s);
    CHECK_NEAR(s.mean, 5, 1e-12);
    CHECK_NEAR(s.stdev, 2, 1e-12);
    CHECK(s.min == 2 && s.max == 9);
    wear_summarize(v, 0, &s);
    CHECK(s.n == 0 && s.gini == 0 && s.max == 0);
}

TEST(gini_matches_the_definition)
{
    uint64_t x[500], seed = 3;
    for (int round = 0; round < 20; round++) {
        size_t n = 1 + (size_t)round * 25;
        for (size_t i = 0; i < n; i++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            x[i] = round % 2 ? seed % 1000 : (seed % 50) * (seed % 50); /* skewed */
        }
        struct wear_summary s;
        wear_summarize(x, n, &s);
        CHECK_NEAR(s.gini, gini_direct(x, n), 1e-9);
    }
}

TEST(histogram_bins)
{
    const uint64_t v[] = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 19};
    uint64_t bins[5], lo;
    double w;
    wear_histogram(v, 11, 5, bins, &lo, &w);
    CHECK_EQ_INT(lo, 10);
    CHECK_NEAR(w, 2.0, 1e-12);
    CHECK(bins[0] == 2 && bins[1] == 2 && bins[2] == 2 && bins[3] == 2 && bins[4] == 3);
    uint64_t tot = 0;
    const uint64_t same[] = {5, 5, 5};
    wear_histogram(same, 3, 4, bins, &lo, &w);
    for (int i = 0; i < 4; i++)
        tot += bins[i];
    CHECK(tot == 3 && bins[0] == 3 && lo == 5);
}

TEST(device_counts_skip_bad_blocks)
{
    struct nand_config c;
    fx_small_config(&c); /* 2 dies of 64 blocks */
    c.factory_bad_fraction = 0.1;
    c.seed = 4;
    nand_dev *d;
    REQUIRE(nand_create(&c, &d) == 0);
    size_t bad = 0;
    for (nand_block_t b = 0; b < 128; b++) {
        if (nand_is_bad(d, b)) {
            bad++;
            continue;
        }
        for (unsigned k = 0; k < b % 5; k++)
            REQUIRE(nand_erase(d, b, NULL) == 0);
    }
    uint64_t out[128];
    size_t n = wear_read_device(d, out, 128);
    CHECK(bad > 0);
    CHECK_EQ_INT(n, 128 - bad);
    struct wear_summary s;
    wear_summarize(out, n, &s);
    CHECK(s.max >= 4 && s.min == 0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(summary_by_hand);
    RUN(gini_matches_the_definition);
    RUN(histogram_bins);
    RUN(device_counts_skip_bad_blocks);
    return test_summary(argv[0]);
}

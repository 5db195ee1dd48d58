/*
 * test_gc_model.c -- the cleaner's policy modules in the page-level harness
 * (analysis/gc_model.c) against Desnoyers' write-amplification models, the
 * models against the numbers in docs/references.md section 3, and every
 * registered policy for sanity and determinism.  Numbers are printed for
 * docs/validation.md.
 */
#include "gc_model.h"
#include "fixture.h"

#define NP 64
#define BLOCKS 300
#define SEEDS 3

/* The models: docs/references.md section 3 examples (two decimals). */
TEST(models_match_references)
{
    CHECK_NEAR(gc_model_fifo_wa(gc_model_alpha(0.1)), 5.18, 0.01);
    CHECK_NEAR(gc_model_fifo_wa(gc_model_alpha(0.2)), 2.69, 0.01);
    CHECK_NEAR(gc_model_fifo_wa(gc_model_alpha(0.3)), 1.88, 0.01);
    CHECK_NEAR(gc_model_greedy_wa(gc_model_alpha(0.1), NP), 4.82, 0.01);
    CHECK_NEAR(gc_model_greedy_wa(gc_model_alpha(0.2), NP), 2.60, 0.01);
    CHECK_NEAR(gc_model_hotcold_lru_wa(gc_model_alpha(0.1), 0.9, 0.1), 6.17, 0.01);
    /* r = f is uniform; greedy tends to FIFO as Np grows. */
    for (double sf = 0.02; sf < 0.9; sf += 0.07) {
        double a = gc_model_alpha(sf), fifo = gc_model_fifo_wa(a);
        CHECK_NEAR(gc_model_hotcold_lru_wa(a, 0.3, 0.3), fifo, 1e-9 * fifo);
        CHECK_NEAR(gc_model_greedy_wa(a, 1u << 30), fifo, 1e-6 * fifo);
        CHECK(gc_model_greedy_wa(a, NP) < fifo);
        CHECK(fifo > 1);
    }
    CHECK(isinf(gc_model_fifo_wa(1.0)));
    CHECK(isinf(gc_model_hotcold_lru_wa(0.9, 0.9, 0.1)));
    CHECK(isnan(gc_model_greedy_wa(1.2, 0)));
    CHECK(isnan(gc_model_hotcold_lru_wa(1.2, 0.9, 1.0)));
    /* Near alpha = 1, A ~ 1/(2(alpha-1)): the root solver must not lose it. */
    CHECK_NEAR(gc_model_fifo_wa(1.0001) * 2e-4, 1.0, 0.01);
}

static double mean_wa(struct gc_harness_cfg c, const char *policy, double *alpha)
{
    double sum = 0;
    for (uint64_t s = 1; s <= SEEDS; s++) {
        struct gc_harness_result r;
        c.seed = s;
        if (gc_harness_run(&c, gc_policy_find(policy), &r))
            return NAN;
        sum += r.wa;
        *alpha = r.alpha;
    }
    return sum / SEEDS;
}

/* FIFO within 3% and greedy within 5% of the models, mean of SEEDS seeds
 * (measured: FIFO ~0.3% high, greedy up to ~0.9% high at this size). */
TEST(harness_matches_models)
{
    static const double sfs[] = { 0.05, 0.1, 0.2, 0.3 };
    fprintf(stderr, "  N=%d Np=%d, %d seeds: Sf alpha | fifo model err | greedy model err\n",
            BLOCKS, NP, SEEDS);
    for (size_t i = 0; i < sizeof sfs / sizeof sfs[0]; i++) {
        struct gc_harness_cfg c = { .blocks = BLOCKS, .np = NP, .spare = sfs[i] };
        double alpha = 0;
        double fifo = mean_wa(c, "fifo", &alpha), greedy = mean_wa(c, "greedy", &alpha);
        double mf = gc_model_fifo_wa(alpha), mg = gc_model_greedy_wa(alpha, NP);
        fprintf(stderr, "  %.2f %.4f | %.3f %.3f %+.2f%% | %.3f %.3f %+.2f%%\n", sfs[i], alpha,
                fifo, mf, 100 * (fifo / mf - 1), greedy, mg, 100 * (greedy / mg - 1));
        CHECK_NEAR(alpha, gc_model_alpha(sfs[i]), 1e-3);
        CHECK_NEAR(fifo, mf, 0.03 * mf);
        CHECK_NEAR(greedy, mg, 0.05 * mg);
    }
}

/* 90% of the writes to 10% of the data, Sf 0.1.  Measured: unseparated,
 * cost-benefit is only ~1% below greedy, so that is reported, not asserted;
 * with the cleaner's copies in their own blocks it is far below. */
TEST(hot_cold)
{
    struct gc_harness_cfg c = { .blocks = BLOCKS, .np = NP, .spare = 0.1,
                                .hot_writes = 0.9, .hot_data = 0.1 };
    double alpha = 0, fifo = mean_wa(c, "fifo", &alpha);
    double lru = gc_model_hotcold_lru_wa(alpha, 0.9, 0.1);
    fprintf(stderr, "  fifo %.3f, LRU hot/cold model %.3f (%+.2f%%)\n", fifo, lru,
            100 * (fifo / lru - 1));
    CHECK_NEAR(fifo, lru, 0.03 * lru);
    static const char *const mode[] = { "none", "gc", "hot", "gc+hot" };
    for (int sep = 0; sep < 4; sep++) {
        c.sep_gc = sep & 1;
        c.sep_hot = sep >> 1;
        double g = mean_wa(c, "greedy", &alpha), cb = mean_wa(c, "cost-benefit", &alpha);
        fprintf(stderr, "  separation %-6s: greedy %.3f cost-benefit %.3f\n", mode[sep], g, cb);
        CHECK(isfinite(g) && g >= 1);
        CHECK(isfinite(cb) && cb >= 1);
        if (c.sep_gc || c.sep_hot)
            CHECK(cb < 0.8 * g);
    }
}

/* Every registered policy cleans, A >= 1, the same seeds give the same run,
 * and only the random policies change with the policy's own seed. */
TEST(every_policy_runs)
{
    struct gc_harness_cfg c = { .blocks = 100, .np = 32, .spare = 0.15, .seed = 7,
                                .policy_seed = 11, .warm = 2, .measure = 2,
                                .hot_writes = 0.8, .hot_data = 0.2, .sep_gc = 1 };
    const struct gc_policy *p;
    for (size_t i = 0; (p = gc_policy_at(i)) != NULL; i++) {
        struct gc_harness_result a, b, d;
        struct gc_harness_cfg c2 = c;
        c2.policy_seed = 12;
        REQUIRE(gc_harness_run(&c, p, &a) == 0);
        REQUIRE(gc_harness_run(&c, p, &b) == 0);
        REQUIRE(gc_harness_run(&c2, p, &d) == 0);
        fprintf(stderr, "  %-13s WA %.3f, erases/block %u..%u (mean %.1f)\n", p->name, a.wa,
                a.erase_min, a.erase_max, a.erase_mean);
        CHECK(isfinite(a.wa) && a.wa >= 1);
        CHECK(a.host > 0 && a.erases > 0);
        CHECK(a.erase_min <= a.erase_mean && a.erase_mean <= a.erase_max);
        CHECK(a.host == b.host && a.copies == b.copies && a.erases == b.erases &&
              a.erase_min == b.erase_min && a.erase_max == b.erase_max);
        int randomised = !strcmp(p->name, "random") || !strcmp(p->name, "d-choices");
        CHECK_EQ_INT(a.copies != d.copies, randomised);
    }
}

TEST(bad_configs_refused)
{
    struct gc_harness_result r;
    const struct gc_policy *g = gc_policy_find("greedy");
    struct gc_harness_cfg c = { .blocks = 50, .np = 16, .spare = 0.1 };
    CHECK(gc_harness_run(&c, g, &r) == 0);
    CHECK(gc_harness_run(&c, NULL, &r) == -1);
    struct gc_harness_cfg full = c; /* no spare space: nothing to clean */
    full.spare = 0;
    CHECK(gc_harness_run(&full, g, &r) == -1);
    struct gc_harness_cfg tiny = c;
    tiny.blocks = 3;
    CHECK(gc_harness_run(&tiny, g, &r) == -1);
    struct gc_harness_cfg hot = c; /* r without f */
    hot.hot_writes = 0.9;
    CHECK(gc_harness_run(&hot, g, &r) == -1);
    CHECK_EQ_INT(gc_harness_reserve(&c), 2);
    CHECK_NEAR(gc_harness_log_pages(&c), 48.0 * 16, 0);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(models_match_references);
    RUN(harness_matches_models);
    RUN(hot_cold);
    RUN(every_policy_runs);
    RUN(bad_configs_refused);
    return test_summary(argv[0]);
}

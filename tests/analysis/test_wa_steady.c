/*
 * test_wa_steady.c -- interval WA and the warm-up rule (analysis/wa_steady.h)
 * on synthetic counter series whose answers are worked out by hand.
 */
#include "fixture.h"
#include "wa_steady.h"

#include <math.h>

#define W 1000.0 /* host bytes per window */

/* Boundaries of windows whose data WA is wa[i] (total WA twice that),
 * from counters at zero. */
static size_t series(const double *wa, size_t n, struct wa_point *b)
{
    b[0] = (struct wa_point){0, 0, 0};
    for (size_t i = 0; i < n; i++)
        b[i + 1] = (struct wa_point){
            .host_bytes = b[i].host_bytes + W,
            .data_bytes = b[i].data_bytes + wa[i] * W,
            .total_bytes = b[i].total_bytes + 2 * wa[i] * W,
        };
    return n + 1;
}

TEST(interval_wa_by_hand)
{
    struct wa_point a = {100, 300, 500}, b = {300, 900, 1700};
    CHECK_NEAR(wa_steady_between(&a, &b, 0), 3.0, 1e-12);  /* 600 / 200 */
    CHECK_NEAR(wa_steady_between(&a, &b, 1), 6.0, 1e-12);  /* 1200 / 200 */
    CHECK(isnan(wa_steady_between(&a, &a, 0)));            /* no host bytes */
    struct wa_point nodata = {300, -1, 1700};
    CHECK(isnan(wa_steady_between(&a, &nodata, 0)));       /* kind without data pages */
    CHECK_NEAR(wa_steady_between(&a, &nodata, 1), 6.0, 1e-12);
}

TEST(settles_after_the_warmup)
{
    /* rising, then within 2% of each other from window 3 on */
    const double wa[] = {1.5, 3.0, 4.0, 4.05, 4.02, 4.06};
    struct wa_point b[8];
    size_t n = series(wa, 6, b);
    struct wa_steady s;
    wa_steady_windows(b, n, &b[n - 1], &s);
    CHECK(s.reached);
    CHECK_EQ_INT(s.warmup, 2); /* windows 1 and 2; 2 -> 3 differs by 33% */
    CHECK_NEAR(s.wa, (4.0 + 4.05 + 4.02 + 4.06) / 4, 1e-12);
    CHECK_NEAR(s.wa_total, 2 * s.wa, 1e-12);
    /* a partial window at the end counts as steady */
    struct wa_point end = {b[n - 1].host_bytes + W / 2, b[n - 1].data_bytes + 4.1 * W / 2,
                           b[n - 1].total_bytes + 8.2 * W / 2};
    wa_steady_windows(b, n, &end, &s);
    CHECK_NEAR(s.wa, (4.0 + 4.05 + 4.02 + 4.06 + 4.1 / 2) / 4.5, 1e-12);
}

TEST(settled_from_the_start)
{
    /* the first two windows agree: no warm-up; a later 3% step is part of
     * the steady state (noise must not undo it) */
    const double wa[] = {4.0, 4.0, 4.0, 4.12, 4.13, 4.12};
    struct wa_point b[8];
    size_t n = series(wa, 6, b);
    struct wa_steady s;
    wa_steady_windows(b, n, &b[n - 1], &s);
    CHECK(s.reached);
    CHECK_EQ_INT(s.warmup, 0);
    CHECK_NEAR(s.wa, (3 * 4.0 + 4.12 + 4.13 + 4.12) / 6, 1e-12);
}

TEST(no_window_settles)
{
    struct wa_steady s;
    struct wa_point b[8];
    /* still rising by more than 2% a window */
    const double rising[] = {1.0, 2.0, 2.5, 2.7, 2.8};
    size_t n = series(rising, 5, b);
    wa_steady_windows(b, n, &b[n - 1], &s);
    CHECK(!s.reached);
    CHECK(isnan(s.wa) && isnan(s.wa_total));
    /* the last window differs from the one before: no pair within 2% */
    const double last[] = {1.0, 2.0, 3.0};
    n = series(last, 3, b);
    wa_steady_windows(b, n, &b[n - 1], &s);
    CHECK(!s.reached);
    /* one window, and none at all */
    n = series(last, 1, b);
    wa_steady_windows(b, n, &b[n - 1], &s);
    CHECK(!s.reached);
    wa_steady_windows(b, 0, &b[0], &s);
    CHECK(!s.reached);
    /* exactly 2% apart is not under 2% */
    const double edge[] = {1.0, 2.0, 2.04};
    n = series(edge, 3, b);
    wa_steady_windows(b, n, &b[n - 1], &s);
    CHECK(!s.reached);
}

TEST(total_wa_decides_where_data_is_not_counted)
{
    const double wa[] = {1.0, 3.0, 3.01, 3.02};
    struct wa_point b[8];
    size_t n = series(wa, 4, b);
    for (size_t i = 0; i < n; i++)
        b[i].data_bytes = -1;
    struct wa_steady s;
    wa_steady_windows(b, n, &b[n - 1], &s);
    CHECK(s.reached);
    CHECK_EQ_INT(s.warmup, 1);
    CHECK(isnan(s.wa));
    CHECK_NEAR(s.wa_total, 2 * (3.0 + 3.01 + 3.02) / 3, 1e-12);
}

TEST(age_rule_takes_the_whole_phase)
{
    struct wa_point a = {0, 0, 0}, e = {4000, 12000, 20000};
    struct wa_steady s;
    wa_steady_after_age(&a, &e, &s);
    CHECK(s.reached);
    CHECK_NEAR(s.wa, 3.0, 1e-12);
    CHECK_NEAR(s.wa_total, 5.0, 1e-12);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(interval_wa_by_hand);
    RUN(settles_after_the_warmup);
    RUN(settled_from_the_start);
    RUN(no_window_settles);
    RUN(total_wa_decides_where_data_is_not_counted);
    RUN(age_rule_takes_the_whole_phase);
    return test_summary(argv[0]);
}

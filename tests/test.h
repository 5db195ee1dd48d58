/*
 * test.h -- a minimal test harness.  Each tests/test_*.c is one executable
 * holding TEST(name) functions listed in RUN_TESTS; CHECK records a failure
 * and continues, REQUIRE stops the current test.  The program prints
 * "name: N passed, N failed" and exits non-zero on any failure; tests/run.sh
 * adds the counts up across executables.
 */
#ifndef FLASHLAB_TEST_H
#define FLASHLAB_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_now;
static int test_passed, test_failed, test_skipped;
static const char *test_current;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__,       \
                    __LINE__, test_current, #cond);                          \
            test_failed_now = 1;                                             \
        }                                                                    \
    } while (0)

#define REQUIRE(cond)                                                        \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: %s: REQUIRE failed: %s\n", __FILE__,     \
                    __LINE__, test_current, #cond);                          \
            test_failed_now = 1;                                             \
            return;                                                          \
        }                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
    do {                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                  \
        if (a_ != b_) {                                                      \
            fprintf(stderr, "%s:%d: %s: %s == %lld, expected %s == %lld\n",  \
                    __FILE__, __LINE__, test_current, #a, a_, #b, b_);       \
            test_failed_now = 1;                                             \
        }                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                \
    do {                                                                     \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);       \
        if (!(fabs(a_ - b_) <= t_)) {                                        \
            fprintf(stderr, "%s:%d: %s: %s = %g, expected %g +- %g\n",       \
                    __FILE__, __LINE__, test_current, #a, a_, b_, t_);       \
            test_failed_now = 1;                                             \
        }                                                                    \
    } while (0)

/* Mark the running test skipped (counted and reported, never silent). */
#define SKIP(why)                                                            \
    do {                                                                     \
        fprintf(stderr, "%s: SKIPPED: %s\n", test_current, why);             \
        test_failed_now = -1;                                                \
        return;                                                              \
    } while (0)

#define TEST(name) static void name(void)

static inline void test_run_one(void (*fn)(void), const char *name)
{
    test_current = name;
    test_failed_now = 0;
    fn();
    if (test_failed_now > 0) {
        test_failed++;
        fprintf(stderr, "FAIL %s\n", name);
    } else if (test_failed_now < 0) {
        test_skipped++;
    } else {
        test_passed++;
    }
}

#define RUN(fn) test_run_one(fn, #fn)

static inline int test_summary(const char *prog)
{
    printf("%s: %d passed, %d failed, %d skipped\n", prog, test_passed,
           test_failed, test_skipped);
    return test_failed ? 1 : 0;
}

/* True when FLASHLAB_LONG is set (make check-long): heavier variants. */
static inline int test_long(void)
{
    const char *s = getenv("FLASHLAB_LONG");
    return s && *s && strcmp(s, "0");
}

#endif

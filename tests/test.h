/*
 * test.h -- a minimal test harness.  Each tests/<layer>/test_*.c is one
 * executable holding TEST(name) functions that main runs with RUN(name)
 * after test_init(argc, argv); CHECK records a failure and continues,
 * REQUIRE stops the current test.  The program prints
 * "name: N passed, N failed, N skipped" and exits non-zero on any failure;
 * tests/run.sh adds the counts up across executables.
 *
 * Arguments pick the cases to run: each is a pattern, a substring of the
 * case name, or a shell glob (fnmatch) matched against the whole name when
 * it holds one of * ? [.  With no pattern every case runs.  A pattern that
 * matches no case is an error (exit 2).  --list prints the names of the
 * cases (those that match, if patterns are given) and runs none.
 */
#ifndef FLASHLAB_TEST_H
#define FLASHLAB_TEST_H

#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_now;
static int test_passed, test_failed, test_skipped;
static const char *test_current;
static int test_listing;       /* --list */
static int test_npatterns;     /* the patterns given as arguments */
static char **test_patterns;
static unsigned char test_matched[64]; /* which patterns matched some case */

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

/* 1 if pattern matches name: a substring, or a glob over the whole name. */
static inline int test_match(const char *pattern, const char *name)
{
    if (strpbrk(pattern, "*?["))
        return fnmatch(pattern, name, 0) == 0;
    return strstr(name, pattern) != NULL;
}

/* Read the arguments: patterns and --list.  Exits on a bad argument. */
static int test_inited;
static inline void test_init(int argc, char **argv)
{
    test_inited = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--list")) {
            test_listing = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [--list] [PATTERN...]\n"
                    "  PATTERN: a substring of a case name, or a shell glob over the\n"
                    "  whole name if it holds * ? or [; no pattern: every case\n", argv[0]);
            exit(strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0);
        } else if (test_npatterns < (int)sizeof test_matched) {
            argv[1 + test_npatterns++] = argv[i];
        } else {
            fprintf(stderr, "%s: too many patterns\n", argv[0]);
            exit(2);
        }
    }
    test_patterns = argv + 1;
}

/* Run (or list) the case fn if it matches the patterns. */
static inline void test_run_one(void (*fn)(void), const char *name)
{
    if (!test_inited) { /* else names and --list would be ignored */
        fprintf(stderr, "%s: main() must call test_init(argc, argv) first\n", name);
        exit(2);
    }
    int want = !test_npatterns;
    for (int i = 0; i < test_npatterns; i++)
        if (test_match(test_patterns[i], name))
            want = test_matched[i] = 1;
    if (!want)
        return;
    if (test_listing) {
        printf("%s\n", name);
        return;
    }
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

/* Print the summary line (none for --list); the exit code: 2 if a
 * pattern matched no case, else 1 if a case failed, else 0. */
static inline int test_summary(const char *prog)
{
    int unmatched = 0;
    for (int i = 0; i < test_npatterns; i++)
        if (!test_matched[i]) {
            fprintf(stderr, "%s: no test case matches '%s' (--list shows them)\n", prog,
                    test_patterns[i]);
            unmatched = 1;
        }
    if (!test_listing)
        printf("%s: %d passed, %d failed, %d skipped\n", prog, test_passed,
               test_failed, test_skipped);
    return unmatched ? 2 : test_failed ? 1 : 0;
}

/* True when FLASHLAB_LONG is set (make check-long): heavier variants. */
static inline int test_long(void)
{
    const char *s = getenv("FLASHLAB_LONG");
    return s && *s && strcmp(s, "0");
}

#endif

/*
 * wa_steady.h -- write amplification over an interval and after the
 * warm-up (docs/validation.md, "Three kinds of WA"; docs/results-schema.md).
 *
 * A run's counters are cumulative from the start of its measured phase:
 * host bytes written, bytes programmed in file-data pages (host data and
 * the cleaner's copies of it: data WA, what the GC models predict) and
 * bytes programmed in all pages (total WA).  The warm-up rule cuts the
 * measured phase into device-fill windows -- consecutive spans of host
 * bytes, each as long as the capacity the cleaner can use -- and ends the
 * warm-up after the first window k (k >= 0) such that the two windows
 * after it, k+1 and k+2, differ by under WA_STEADY_TOL (relative to the
 * earlier one).  The steady WA is then measured from the end of window k
 * to the end of the run.
 */
#ifndef FLASHLAB_WA_STEADY_H
#define FLASHLAB_WA_STEADY_H

#include <stddef.h>

#define WA_STEADY_TOL 0.02 /* successive windows differ by under 2% */
/* The rules as stored with a run (kv warmup_rule). */
#define WA_STEADY_RULE_WINDOWS "device-fill windows within 2%"
#define WA_STEADY_RULE_AGE "age phase"

/* Cumulative counters at one moment of the measured phase.  data_bytes
 * < 0: the kind does not count file-data pages. */
struct wa_point {
    double host_bytes, data_bytes, total_bytes;
};

/* programmed / host bytes between a and b: data (total = 0) or all pages
 * (total = 1); NAN when no host byte was written between them or the kind
 * does not count data pages. */
double wa_steady_between(const struct wa_point *a, const struct wa_point *b, int total);

struct wa_steady {
    int reached;         /* 1: a window settled (or the age rule) */
    size_t warmup;       /* windows of warm-up: the steady state begins at
                            bound[warmup] */
    double wa, wa_total; /* data and total WA from there to the end; NAN
                            when not reached */
};

/* bound[0..n): the counters at the window boundaries, bound[0] the start
 * of the measured phase and bound[i] the end of window i; end: at the end
 * of the run (at or after bound[n-1]).  The windows' WA is data WA, or
 * total WA for a kind that does not count data pages. */
void wa_steady_windows(const struct wa_point *bound, size_t n, const struct wa_point *end,
                       struct wa_steady *out);
/* The age rule: the warm-up was the experiment's age: phase, so the whole
 * measured phase (bound = its start) is steady. */
void wa_steady_after_age(const struct wa_point *start, const struct wa_point *end,
                         struct wa_steady *out);

#endif

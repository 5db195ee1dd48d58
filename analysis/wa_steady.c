/*
 * wa_steady.c -- interval and steady-state write amplification (see
 * wa_steady.h).
 */
#include "wa_steady.h"

#include <math.h>

double wa_between(const struct wa_point *a, const struct wa_point *b, int total)
{
    double host = b->host_bytes - a->host_bytes;
    if (!(host > 0) || (!total && (a->data_bytes < 0 || b->data_bytes < 0)))
        return NAN;
    return total ? (b->total_bytes - a->total_bytes) / host
                 : (b->data_bytes - a->data_bytes) / host;
}

/* The window's WA: data, or total where data pages are not counted. */
static double window_wa(const struct wa_point *a, const struct wa_point *b)
{
    double w = wa_between(a, b, 0);
    return isnan(w) ? wa_between(a, b, 1) : w;
}

static void measure_from(const struct wa_point *start, const struct wa_point *end,
                         struct wa_steady *out)
{
    out->reached = 1;
    out->wa = wa_between(start, end, 0);
    out->wa_total = wa_between(start, end, 1);
}

void wa_steady_windows(const struct wa_point *bound, size_t n, const struct wa_point *end,
                       struct wa_steady *out)
{
    *out = (struct wa_steady){.reached = 0, .warmup = 0, .wa = NAN, .wa_total = NAN};
    size_t windows = n ? n - 1 : 0;
    /* the last window k + j + 1 that differs from its predecessor by 2% or
     * more: the steady state begins after it (or after window 0) */
    size_t from = 0;
    for (size_t i = 2; i <= windows; i++) {
        double prev = window_wa(&bound[i - 2], &bound[i - 1]);
        double cur = window_wa(&bound[i - 1], &bound[i]);
        if (!(fabs(cur - prev) < WA_STEADY_TOL * prev))
            from = i - 1;
    }
    /* at least two windows after the warm-up, compared with each other */
    if (windows < 2 || windows - from < 2)
        return;
    out->warmup = from;
    measure_from(&bound[from], end, out);
}

void wa_steady_after_age(const struct wa_point *start, const struct wa_point *end,
                         struct wa_steady *out)
{
    out->warmup = 0;
    measure_from(start, end, out);
}

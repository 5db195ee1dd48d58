/*
 * wa_steady.c -- interval and steady-state write amplification (see
 * wa_steady.h).
 */
#include "wa_steady.h"

#include <math.h>

double wa_steady_between(const struct wa_point *a, const struct wa_point *b, int total)
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
    double w = wa_steady_between(a, b, 0);
    return isnan(w) ? wa_steady_between(a, b, 1) : w;
}

static void measure_from(const struct wa_point *start, const struct wa_point *end,
                         struct wa_steady *out)
{
    out->reached = 1;
    out->wa = wa_steady_between(start, end, 0);
    out->wa_total = wa_steady_between(start, end, 1);
}

void wa_steady_windows(const struct wa_point *bound, size_t n, const struct wa_point *end,
                       struct wa_steady *out)
{
    *out = (struct wa_steady){.reached = 0, .warmup = 0, .wa = NAN, .wa_total = NAN};
    /* windows k+1 and k+2 (bound[k..k+2]) within the tolerance: the
     * warm-up is windows 1..k */
    for (size_t k = 0; k + 2 < n; k++) {
        double a = window_wa(&bound[k], &bound[k + 1]);
        double b = window_wa(&bound[k + 1], &bound[k + 2]);
        if (fabs(b - a) < WA_STEADY_TOL * a) {
            out->warmup = k;
            measure_from(&bound[k], end, out);
            return;
        }
    }
}

void wa_steady_after_age(const struct wa_point *start, const struct wa_point *end,
                         struct wa_steady *out)
{
    out->warmup = 0;
    measure_from(start, end, out);
}

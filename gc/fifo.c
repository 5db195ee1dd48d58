/* fifo.c -- clean the oldest segment whatever it holds: the circular
 * log of JFFS2 (Desnoyers 2012 eq. 4 gives its write amplification). */
#include "gc_policy.h"

size_t gcp_oldest(const struct gc_seg *c, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (c[i].stamp < c[best].stamp)
            best = i;
    return best;
}

static size_t pick(const struct gc_ctx *ctx, const struct gc_seg *c, size_t n)
{
    (void)ctx;
    return gcp_oldest(c, n);
}

const struct gc_policy gcp_fifo = {
    "fifo", "oldest segment first: a circular log, as JFFS2", pick, 0,
};

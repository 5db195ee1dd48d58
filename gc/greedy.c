/* greedy.c -- clean the segment with the fewest live units: the least
 * copying now (Desnoyers 2012 eq. 12 gives its write amplification). */
#include "gc_policy.h"

size_t gcp_min_live(const struct gc_seg *c, const size_t *idx, size_t n)
{
    size_t best = idx ? idx[0] : 0;
    for (size_t i = 1; i < n; i++) {
        size_t j = idx ? idx[i] : i;
        if (c[j].live < c[best].live || (c[j].live == c[best].live && j < best))
            best = j;
    }
    return best;
}

static size_t pick(const struct gc_ctx *ctx, const struct gc_seg *c, size_t n)
{
    (void)ctx;
    return gcp_min_live(c, NULL, n);
}

const struct gc_policy gcp_greedy = {
    "greedy", "fewest live blocks (least copying now)", pick, 0,
};

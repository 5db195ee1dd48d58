/* dchoices.c -- d-choices greedy: the fewest live among d segments
 * drawn at random (with replacement), so that a pick costs O(d), not O(n);
 * d = 1 is random, large d tends to greedy. */
#include "gc_policy.h"

static size_t pick(const struct gc_ctx *ctx, const struct gc_seg *c, size_t n)
{
    uint32_t d = ctx->choices ? ctx->choices : 8;
    size_t best = (size_t)(gcp_random(ctx, 0) % n);
    for (uint32_t k = 1; k < d; k++) {
        size_t j = (size_t)(gcp_random(ctx, k) % n);
        if (c[j].live < c[best].live || (c[j].live == c[best].live && j < best))
            best = j;
    }
    return best;
}

const struct gc_policy gcp_dchoices = {
    "d-choices", "fewest live among d random segments (choices, default 8)", pick, 1,
};

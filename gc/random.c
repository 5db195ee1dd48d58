/* random.c -- a uniformly random candidate: the baseline any policy
 * that looks at the segments must beat. */
#include "gc_policy.h"

static size_t pick(const struct gc_ctx *ctx, const struct gc_seg *c, size_t n)
{
    (void)c;
    return (size_t)(gcp_random(ctx, 0) % n);
}

const struct gc_policy gcp_random_policy = {
    "random", "a uniformly random segment (seeded)", pick, 1,
};

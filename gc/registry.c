/* registry.c -- the list of victim-selection policies, and the small
 * helpers they share. */
#include "gc_policy.h"
#include "rng.h"

#include <string.h>

extern const struct gc_policy gcp_greedy, gcp_cost_benefit, gcp_cat, gcp_fifo,
    gcp_random_policy, gcp_window, gcp_dchoices;

static const struct gc_policy *const policies[] = {
    &gcp_greedy, &gcp_cost_benefit, &gcp_cat, &gcp_fifo,
    &gcp_random_policy, &gcp_window, &gcp_dchoices,
};
#define NPOLICIES (sizeof policies / sizeof policies[0])

const struct gc_policy *gc_policy_at(size_t i)
{
    return i < NPOLICIES ? policies[i] : NULL;
}

const struct gc_policy *gc_policy_find(const char *name)
{
    for (size_t i = 0; name && i < NPOLICIES; i++)
        if (!strcmp(policies[i]->name, name))
            return policies[i];
    return NULL;
}

uint64_t gcp_age(const struct gc_ctx *ctx, const struct gc_seg *s)
{
    return ctx->now > s->stamp ? ctx->now - s->stamp + 1 : 1;
}

uint64_t gcp_random(const struct gc_ctx *ctx, uint64_t k)
{
    return rng_key(ctx->seed, RNG_GC_POLICY, ctx->round, k, 0, 0);
}

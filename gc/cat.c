/* cat.c -- Cost-Age-Times (Chiang, Lee & Chang 1999): minimise
 * u/(1-u) * 1/age * erases, so that worn blocks are spared and cold ones
 * wait.  A fresh block counts one erase, or every fresh block would tie
 * at zero whatever its contents. */
#include "gc_policy.h"

static size_t pick(const struct gc_ctx *ctx, const struct gc_seg *c, size_t n)
{
    size_t best = 0;
    double best_cost = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].live >= c[i].size)
            continue; /* nothing to gain */
        double u = (double)c[i].live / c[i].size;
        double cost = u / (1.0 - u) / (double)gcp_age(ctx, &c[i]) *
                      (double)(c[i].erases ? c[i].erases : 1);
        if (i == 0 || c[best].live >= c[best].size || cost < best_cost) {
            best_cost = cost;
            best = i;
        }
    }
    return best;
}

const struct gc_policy gcp_cat = {
    "cat", "min u/(1-u) * erases/age: cost-age-times (Chiang et al. 1999)", pick, 0,
};

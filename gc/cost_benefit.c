/* cost_benefit.c -- Rosenblum & Ousterhout's LFS cleaner: maximise
 * (1-u)*age/(1+u), the space freed times its age per unit of work, so
 * that cold segments are cleaned at a higher utilisation than hot ones. */
#include "gc_policy.h"

static size_t pick(const struct gc_ctx *ctx, const struct gc_seg *c, size_t n)
{
    size_t best = 0;
    double best_score = -1.0;
    for (size_t i = 0; i < n; i++) {
        double u = c[i].size ? (double)c[i].live / c[i].size : 1.0;
        double age = (double)gcp_age(ctx, &c[i]);
        double score = (1.0 - u) * age / (1.0 + u);
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    return best;
}

const struct gc_policy gcp_cost_benefit = {
    "cost-benefit", "max (1-u)*age/(1+u) (Rosenblum & Ousterhout 1992)", pick, 0,
};

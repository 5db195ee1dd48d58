/* window.c -- windowed greedy (Hu et al. 2009): the fewest live among
 * the W oldest segments; W = 1 is FIFO, W = all is greedy. */
#include "gc_policy.h"

#include <stdlib.h>

/* Keep the W oldest in a max-heap on (stamp, index), so that the newest of
 * them is at the root and is replaced by anything older. */
static int older(const struct gc_seg *c, size_t a, size_t b)
{
    return c[a].stamp < c[b].stamp || (c[a].stamp == c[b].stamp && a < b);
}

static void sift_down(const struct gc_seg *c, size_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, top = i;
        if (l < n && older(c, h[top], h[l]))
            top = l;
        if (r < n && older(c, h[top], h[r]))
            top = r;
        if (top == i)
            return;
        size_t t = h[i];
        h[i] = h[top];
        h[top] = t;
        i = top;
    }
}

static size_t pick(const struct gc_ctx *ctx, const struct gc_seg *c, size_t n)
{
    size_t w = ctx->window ? ctx->window : 64;
    if (w >= n)
        return gcp_min_live(c, NULL, n);
    size_t *h = malloc(w * sizeof *h);
    if (!h) /* no memory for the window: plain FIFO still cleans */
        return gcp_oldest(c, n);
    for (size_t i = 0; i < w; i++)
        h[i] = i;
    for (size_t i = w / 2; i-- > 0;)
        sift_down(c, h, w, i);
    for (size_t i = w; i < n; i++) {
        if (older(c, i, h[0])) {
            h[0] = i;
            sift_down(c, h, w, 0);
        }
    }
    size_t best = gcp_min_live(c, h, w);
    free(h);
    return best;
}

const struct gc_policy gcp_window = {
    "window", "fewest live among the W oldest segments (window, default 64)", pick, 0,
};

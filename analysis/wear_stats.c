/*
 * wear_stats.c -- erase-count summaries.  The Gini coefficient is computed
 * from the sorted counts, G = sum_i (2i - n - 1) x_i / (n sum x) (1-based i),
 * exact and O(n log n); the mean and variance with Welford's update so
 * that large counts lose no precision.
 */
#include "wear_stats.h"
#include "nand.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void wear_summarize(const uint64_t *counts, size_t n, struct wear_summary *out)
{
    memset(out, 0, sizeof *out);
    if (!n)
        return;
    out->n = n;
    out->min = UINT64_MAX;
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = counts[i];
        out->min = x < out->min ? x : out->min;
        out->max = x > out->max ? x : out->max;
        double d = (double)x - mean;
        mean += d / (double)(i + 1);
        m2 += d * ((double)x - mean);
    }
    out->mean = mean;
    out->stdev = sqrt(m2 / (double)n);
    uint64_t *s = malloc(n * sizeof *s);
    if (!s) {
        out->gini = NAN; /* no memory to sort: say so rather than guess */
        return;
    }
    memcpy(s, counts, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    double num = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        num += (2.0 * (double)(i + 1) - (double)n - 1.0) * (double)s[i];
        sum += (double)s[i];
    }
    free(s);
    out->gini = sum > 0 ? num / ((double)n * sum) : 0;
}

void wear_histogram(const uint64_t *counts, size_t n, uint32_t nbins, uint64_t *bins,
                    uint64_t *lo, double *width)
{
    memset(bins, 0, nbins * sizeof *bins);
    uint64_t mn = UINT64_MAX, mx = 0;
    for (size_t i = 0; i < n; i++) {
        mn = counts[i] < mn ? counts[i] : mn;
        mx = counts[i] > mx ? counts[i] : mx;
    }
    if (!n)
        mn = 0;
    *lo = mn;
    /* integer counts: a bin is never narrower than one erase */
    double w = (double)(mx - mn + 1) / nbins;
    *width = w < 1 ? 1 : w;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = (uint64_t)((double)(counts[i] - mn) / *width);
        bins[b < nbins ? b : nbins - 1]++;
    }
}

size_t wear_read_device(nand_dev *dev, uint64_t *out, size_t cap)
{
    size_t k = 0;
    uint64_t nb = nand_blocks(nand_get_config(dev));
    for (uint64_t b = 0; b < nb && k < cap; b++) {
        struct nand_block_info bi;
        if (nand_is_bad(dev, (nand_block_t)b) == 0 &&
            !nand_block_info(dev, (nand_block_t)b, &bi))
            out[k++] = bi.pe_cycles;
    }
    return k;
}

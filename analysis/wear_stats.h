/*
 * wear_stats.h -- summaries of per-block erase counts: min, max, mean,
 * standard deviation, Gini coefficient and a histogram, as the runner logs
 * them and the plots draw them.
 */
#ifndef FLASHLAB_WEAR_STATS_H
#define FLASHLAB_WEAR_STATS_H

#include <stddef.h>
#include <stdint.h>

struct wear_summary {
    size_t n;             /* blocks counted */
    uint64_t min, max;
    double mean, stdev;   /* population standard deviation */
    double gini;          /* 0: all equal; (n-1)/n: one block has all erases */
};

/* Summary of counts[0..n); n = 0 gives all zeros. */
void wear_summarize(const uint64_t *counts, size_t n, struct wear_summary *out);

/* Histogram of counts into nbins equal bins over [min, max] of the data:
 * bin i covers [lo + i*w, lo + (i+1)*w), the last one closed; *lo and *width
 * describe them.  nbins >= 1; bins[] gets the counts. */
void wear_histogram(const uint64_t *counts, size_t n, uint32_t nbins, uint64_t *bins,
                    uint64_t *lo, double *width);

/* The erase counts of a device's blocks (nand_block_info pe_cycles), bad
 * blocks left out; returns how many were written to out (at most cap). */
struct nand_dev;
size_t wear_read_device(struct nand_dev *dev, uint64_t *out, size_t cap);

#endif

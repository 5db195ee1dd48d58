/*
 * plot_kv.h -- what the runner records for the figures (kv workload,
 * erase_block_bytes, fs_block_bytes; docs/results-schema.md), for the plot
 * tests' hand-made runs: a uniform random workload on a part whose
 * segments hold PLOT_KV_NP fs blocks (128 KiB erase blocks, 2 KiB fs
 * blocks), so that wa-util draws the uniform models with that Np.
 */
#ifndef FLASHLAB_TEST_PLOT_KV_H
#define FLASHLAB_TEST_PLOT_KV_H

#include "results.h"

#define PLOT_KV_NP 64

static inline int plot_kv_uniform(struct results *r, int64_t run)
{
    return results_set_kv_text(r, run, "workload", "uniform") |
           results_set_kv(r, run, "erase_block_bytes", 131072.0) |
           results_set_kv(r, run, "fs_block_bytes", 131072.0 / PLOT_KV_NP);
}

#endif

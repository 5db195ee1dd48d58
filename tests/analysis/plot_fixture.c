/*
 * plot_fixture.c -- writes a small results database for
 * tests/cli/test_plot_cli.sh (built by that test against libflashlab.a;
 * not a unit test, so the Makefile leaves it alone).
 *
 * usage: plot_fixture OUT.db [empty|seeds]
 *
 * Runs 1-6 of experiment "wa-sweep": greedy, fifo and cost-benefit at
 * utilisation 0.7 and 0.85 (params {"fs":{"gc_policy":P},"utilisation":U}),
 * 20 samples each (host_bytes (k+1) GiB, wa 1 + U*P/(...) rising to its
 * final value, wa_interval 10 + k), a last erase snapshot of 256 blocks, kv stop_reason
 * 'wear-out' on the complete ones and kv lifetime_host_bytes on greedy
 * 0.85.  Run 7 (experiment "mount"): mounts of logfs, jffs2-scan and yaffs
 * at 16 MiB..1 GiB.  "empty" writes only the schema.
 *
 * "seeds" writes a sweep as `flashlab run` stores one (params with a
 * "sweep" object): experiment "seeds", gc_policy greedy and fifo x
 * wear_leveling dynamic and static x workload.fill 0.6 and 0.8, seeds 1-3
 * (24 runs).  Setting (p, w, f) has base 2 + p + 0.25 w + 0.5 f (indices
 * from 0); seed s writes 4 samples, host (k+1) GiB, wa base + (s - 2) +
 * k/4, so the seeds' mean is base + k/4 and their standard deviation
 * exactly 1; an erase snapshot of 4 blocks all at 10 + s; kv
 * lifetime_host_bytes (p + 1) GiB + (s - 2) MiB.
 */
#include "plot_kv.h"
#include "results.h"
#include "plot_steady.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const policies[] = {"greedy", "fifo", "cost-benefit"};
static const double utils[] = {0.7, 0.85};
static const char *const fs_kinds[] = {"logfs", "jffs2-scan", "yaffs"};

static int sweep(struct results *r)
{
    int64_t exp, id;
    int bad = results_begin_experiment(r, "wa-sweep", "sweep.yaml", "sweep: 1\n", NULL, &exp);
    int ri = 0;
    for (int p = 0; p < 3; p++)
        for (int u = 0; u < 2; u++, ri++) {
            char params[128];
            snprintf(params, sizeof params, "{\"fs\":{\"gc_policy\":\"%s\"},\"utilisation\":%g}",
                     policies[p], utils[u]);
            bad |= results_begin_run(r, exp, ri, params, 100 + (uint64_t)ri, NULL, &id);
            bad |= plot_kv_uniform(r, id);
            double final = 1 + utils[u] / (1 - utils[u]) / (2.0 + p);
            for (int k = 0; k < 20; k++) {
                struct results_sample s = {
                    .seq = k, .sim_time_ns = (int64_t)(k + 1) * 500000000,
                    .host_bytes = (int64_t)(k + 1) << 30,
                    .wa = 1 + (final - 1) * (1 - 1.0 / (k + 1)),
                    .wa_interval = 10 + k, .wa_total_interval = NAN, .utilisation = NAN};
                bad |= results_add_sample(r, id, &s);
            }
            uint32_t c[256];
            for (uint32_t b = 0; b < 256; b++)
                c[b] = 1000 + (uint32_t)(p * 40) + (b * 37 + (uint32_t)ri * 11) % (60 + 30 * p);
            bad |= results_add_erase_counts(r, id, 19, c, 256);
            bad |= results_set_kv_text(r, id, "stop_reason", "wear-out");
            if (p == 0 && u == 1)
                bad |= results_set_kv(r, id, "lifetime_host_bytes", 5e12);
            bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
        }
    return bad;
}

static int seeds(struct results *r)
{
    static const char *const pol[] = {"greedy", "fifo"}, *const wl[] = {"dynamic", "static"};
    static const double fill[] = {0.6, 0.8};
    int64_t exp, id;
    int bad = results_begin_experiment(r, "seeds", "seeds.yaml", "seeds: [1, 2, 3]\n", NULL,
                                       &exp), i = 0;
    for (int p = 0; p < 2; p++)
        for (int w = 0; w < 2; w++)
            for (int f = 0; f < 2; f++)
                for (int seed = 1; seed <= 3; seed++, i++) {
                    char params[512];
                    snprintf(params, sizeof params,
                             "{\"fs\":{\"gc_policy\":\"%s\",\"wear_leveling\":\"%s\"},"
                             "\"workload\":{\"fill\":%g},\"seed\":%d,\"sweep\":{"
                             "\"fs.gc_policy\":\"%s\",\"fs.wear_leveling\":\"%s\","
                             "\"workload.fill\":%g}}", pol[p], wl[w], fill[f], seed, pol[p],
                             wl[w], fill[f]);
                    bad |= results_begin_run(r, exp, i, params, (uint64_t)seed, NULL, &id);
                    bad |= plot_kv_uniform(r, id);
                    double base = 2 + p + 0.25 * w + 0.5 * f;
                    for (int k = 0; k < 4; k++) {
                        struct results_sample s = {
                            .seq = k, .sim_time_ns = (int64_t)(k + 1) * 1000000000,
                            .host_bytes = (int64_t)(k + 1) << 30,
                            .wa = base + (seed - 2) + k / 4.0};
                        bad |= results_add_sample(r, id, &s);
                    }
                    uint32_t c[4] = {10 + (uint32_t)seed, 10 + (uint32_t)seed,
                                     10 + (uint32_t)seed, 10 + (uint32_t)seed};
                    bad |= results_add_erase_counts(r, id, 0, c, 4);
                    bad |= results_set_kv(r, id, "lifetime_host_bytes",
                                          (double)((int64_t)(p + 1) << 30) +
                                              (double)((seed - 2) * (1 << 20)));
                    bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
                }
    return bad;
}

static int mounts(struct results *r)
{
    int64_t exp, id;
    int bad = results_begin_experiment(r, "mount", NULL, "mount: 1\n", NULL, &exp);
    bad |= results_begin_run(r, exp, 0, "{\"what\":\"mount\"}", 1, NULL, &id);
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 4; s++) {
            int64_t size = (int64_t)16 << (20 + 2 * s);
            struct results_mount m = {
                .fs_kind = fs_kinds[k], .device_bytes = size, .fill_fraction = 0.5,
                .clean = 1,
                /* logfs ~constant, the scans linear in the size */
                .sim_latency_ns = k == 0 ? 2000000 + s * 100000 : size / (64 * (k + 1))};
            bad |= results_add_mount(r, id, &m);
        }
    bad |= results_end_run(r, id, RESULTS_COMPLETE, NULL);
    return bad;
}

int main(int argc, char **argv)
{
    char err[512];
    struct results *r;
    if (argc < 2 || argc > 3 ||
        (argc == 3 && strcmp(argv[2], "empty") && strcmp(argv[2], "seeds"))) {
        fprintf(stderr, "usage: plot_fixture OUT.db [empty|seeds]\n");
        return 2;
    }
    if (results_open(argv[1], &r, err, sizeof err)) {
        fprintf(stderr, "plot_fixture: %s\n", err);
        return 1;
    }
    int bad = argc == 3 ? (!strcmp(argv[2], "seeds") ? seeds(r) : 0) : sweep(r) | mounts(r);
    if (bad)
        fprintf(stderr, "plot_fixture: %s\n", results_error(r));
    bad |= plot_fixture_steady(results_db(r));
    return results_close(r) || bad;
}

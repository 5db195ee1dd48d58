/*
 * test_experiment.c -- the experiment loader (experiment/experiment.c):
 * sweep expansion and run numbering, seeds and repetitions, the settings
 * each run sees, the params JSON, and errors naming file, line, column and
 * key for every kind of mistake, before anything runs.
 */
#include "experiment.h"
#include "fixture.h"
#include "logfs/logfs.h"

#include <fcntl.h>

/* LogFS's options as the run makes and mounts it with (r->fs_options) */
static struct logfs_options lopts(const struct exp_run *r)
{
    struct logfs_options o = {0};
    char err[256];
    if (logfs_options_parse(&o, r->fs_options, err, sizeof err))
        fprintf(stderr, "fs_options '%s': %s\n", r->fs_options, err);
    return o;
}


#define BASE                                                                   \
    "device: configs/devices/test-64m.yaml\n"                                  \
    "workload:\n"                                                              \
    "  kind: uniform\n"                                                        \
    "  fill: 0.5\n"                                                            \
    "stop:\n"                                                                  \
    "  ops: 1000\n"

TEST(sweep_seeds_and_repetitions_number_the_runs)
{
    const char *p = tmp_write("sweep.yaml", "name: sw\n" BASE
                               "fs: {reserve: 6}\n"
                               "seeds: [10, 20]\n"
                               "repetitions: 2\n"
                               "sweep:\n"
                               "  fs.gc_policy: [greedy, fifo, cost-benefit]\n"
                               "  workload.fill: [0.3, 0.6]\n");
    char err[1024] = "";
    struct experiment *e;
    REQUIRE(p && experiment_load(p, &e, err, sizeof err) == 0);
    CHECK(!strcmp(experiment_name(e), "sw"));
    REQUIRE(experiment_runs(e) == 3 * 2 * 2 * 2);
    static const char *const pol[] = {"greedy", "fifo", "cost-benefit"};
    static const double fill[] = {0.3, 0.6};
    for (uint32_t k = 0; k < experiment_runs(e); k++) {
        struct exp_run r;
        REQUIRE(experiment_run(e, k, &r, err, sizeof err) == 0);
        /* combinations first (last key fastest), then seeds, then reps */
        uint32_t rep = k % 2, seed = k / 2 % 2, combo = k / 4;
        CHECK_EQ_INT(r.index, k);
        CHECK_EQ_INT(r.seed, (seed ? 20 : 10) + rep);
        CHECK(!strcmp(lopts(&r).gc_policy, pol[combo / 2]));
        CHECK_NEAR(r.wl.fill, fill[combo % 2], 1e-12);
        CHECK_EQ_INT(lopts(&r).reserve_segments, 6); /* the file's own setting stays */
        CHECK(r.stop.ops == 1000 && r.dev.geo.blocks_per_plane == 512);
        char want[128];
        snprintf(want, sizeof want, "\"sweep\":{\"fs.gc_policy\":\"%s\",\"workload.fill\":%s}}",
                 pol[combo / 2], combo % 2 ? "0.6" : "0.3");
        CHECK(strstr(r.params_json, want) != NULL);
        CHECK(strstr(r.params_json, "\"fs\":{\"reserve\":6,\"gc_policy\":") != NULL);
        exp_run_free(&r);
    }
    struct exp_run r;
    CHECK(experiment_run(e, experiment_runs(e), &r, err, sizeof err) == -1);
    experiment_free(e);
}

TEST(sections_are_read)
{
    const char *p = tmp_write("full.yaml",
        "device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 256, seed: 9, dedup: true}\n"
        "fs: {gc_policy: window, gc_window: 16, wear_leveling: static, cache: 2M}\n"
        "age:\n"
        "  workload: {kind: sequential, fill: 0.7}\n"
        "  stop: {device_fills: 1}\n"
        "workload:\n"
        "  kind: hotcold\n"
        "  hot_writes: 0.9\n"
        "  hot_data: 0.1\n"
        "  request_size: {sizes: [4K, 16K], weights: [3, 1]}\n"
        "stop: {host_bytes: 64M, sim_time: 30s, wear_out: true}\n"
        "sample: {every_ops: 500, erase_snapshots: 4}\n");
    char err[1024] = "";
    struct experiment *e;
    REQUIRE(p && experiment_load(p, &e, err, sizeof err) == 0);
    CHECK(!strcmp(experiment_name(e), "full")); /* from the file name */
    struct exp_run r;
    REQUIRE(experiment_run(e, 0, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(r.dev.geo.blocks_per_plane, 256);
    CHECK_EQ_INT(r.dev.seed, 9);
    CHECK_EQ_INT(r.dev.dedup, 1);
    struct logfs_options lo = lopts(&r);
    CHECK(!strcmp(lo.gc_policy, "window") && lo.gc_window == 16);
    CHECK_EQ_INT(lo.wear_leveling, LOGFS_WL_STATIC);
    CHECK_EQ_INT(lo.cache_bytes, 2u << 20);
    CHECK(r.has_age && !strcmp(r.age.kind, "sequential"));
    CHECK_NEAR(r.age.fill, 0.7, 1e-12);
    CHECK_NEAR(r.age_stop.device_fills, 1, 1e-12);
    CHECK(!strcmp(r.wl.kind, "hotcold"));
    CHECK_NEAR(r.wl.hot_writes, 0.9, 1e-12);
    CHECK(r.wl.req.n == 2 && r.wl.req.size[0] == 4096 && r.wl.req.size[1] == 16384);
    CHECK_NEAR(r.wl.req.weight[0], 3, 1e-12);
    CHECK_EQ_INT(r.stop.host_bytes, 64u << 20);
    CHECK_EQ_INT(r.stop.sim_ns, 30ull * 1000000000);
    CHECK_EQ_INT(r.stop.wear_out, 1);
    CHECK_EQ_INT(r.sample_ops, 500);
    CHECK_EQ_INT(r.erase_snapshots, 4);
    exp_run_free(&r);
    experiment_free(e);
}

/* The file fails to load with a message containing want. */
static int refused(const char *text, const char *want)
{
    const char *p = tmp_write("bad.yaml", text);
    char err[1024] = "";
    struct experiment *e = NULL;
    int rc = experiment_load(p, &e, err, sizeof err);
    experiment_free(e);
    if (rc == 0 || !strstr(err, want)) {
        fprintf(stderr, "wanted '%s', got rc %d: %s\n", want, rc, err);
        return 0;
    }
    return 1;
}

TEST(mistakes_are_named_with_their_place)
{
    CHECK(refused(BASE "colour: red\n", "bad.yaml:7:1: unknown key 'colour' (valid keys: name,"));
    CHECK(refused(BASE "seeed: 2\n", "unknown key 'seeed' (did you mean 'seed'?)"));
    CHECK(refused(BASE "fs: {gc_policy: lru}\n", "bad.yaml:7:17: fs.gc_policy: unknown policy 'lru'"));
    CHECK(refused(BASE "fs: {nosuch: 1}\n", "bad.yaml:7:6: unknown key 'nosuch' in fs"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: uniform, fill: lots}\n"
                  "stop: {ops: 1}\n", "bad.yaml:2:33: workload.fill: expected a number, got 'lots'"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: uniform, fill: 1.5}\n"
                  "stop: {ops: 1}\n", "workload.fill: 1.5 is outside 0..1"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: nope}\n"
                  "stop: {ops: 1}\n", "bad.yaml:2:18: workload.kind: unknown workload kind 'nope'"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: uniform}\n",
                  "stop: missing"));
    CHECK(refused(BASE "stop: {ops: 0}\n", "duplicate key 'stop'"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: uniform}\n"
                  "stop: {ops: 0}\n", "stop: give at least one nonzero condition"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: uniform}\n"
                  "stop: {sim_time: 30}\n", "stop.sim_time: '30' needs a unit"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: uniform}\n"
                  "stop: {host_bytes: 4Q}\n", "stop.host_bytes: unknown unit 'Q'"));
    CHECK(refused("device: nowhere.yaml\nworkload: {kind: uniform}\nstop: {ops: 1}\n",
                  "nowhere.yaml: no such file (looked for "));
    CHECK(refused(BASE "device: {file: configs/devices/test-64m.yaml, blocks: 4}\n",
                  "duplicate key 'device'"));
    CHECK(refused("device: {file: configs/devices/test-64m.yaml, blocks: 4}\n"
                  "workload: {kind: uniform}\nstop: {ops: 1}\n", "unknown key 'blocks' in device"));
    CHECK(refused(BASE "sweep:\n  fs.gc_polcy: [greedy]\n",
                  "sweep: 'fs.gc_polcy' is not a setting (unknown key 'gc_polcy' in fs) "
                  "(did you mean 'gc_policy'?)"));
    CHECK(refused(BASE "sweep:\n  workload.size: [1]\n", "unknown key 'size' in workload"));
    CHECK(refused(BASE "sweep:\n  fs.gc_policy: greedy\n", "sweep.fs.gc_policy: expected a non-empty list"));
    /* run 1 of the sweep is the bad one: still nothing runs */
    CHECK(refused(BASE "sweep:\n  fs.gc_policy: [greedy, nope]\n", "bad.yaml:8:26: fs.gc_policy: unknown policy 'nope'"));
    CHECK(refused(BASE "seed: 1\nseeds: [2]\n", "give seed or seeds, not both"));
    CHECK(refused(BASE "seeds: [1, x]\n", "seeds: expected a whole number, got 'x'"));
    CHECK(refused(BASE "x: &a 1\ny: *a\n", "aliases (*name) are not allowed"));
    CHECK(refused(BASE "---\nname: two\n", "only one document is allowed"));
    CHECK(refused("device: [unclosed\n", "bad.yaml:2:1:"));
    CHECK(refused("", "empty file"));
    CHECK(refused("- a list\n", "the top level must be a mapping"));
    CHECK(refused(BASE "workload: {kind: trace}\n", "duplicate key 'workload'"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: trace}\nstop: {ops: 1}\n",
                  "workload.trace: a trace kind needs the file"));
    CHECK(refused("device: configs/devices/test-64m.yaml\n"
                  "workload: {kind: uniform, request_size: {min: 8K, max: 4K}}\nstop: {ops: 1}\n",
                  "workload.request_size: need 0 < min <= max"));
    CHECK(refused(BASE "fs: {kind: ext4}\n", "bad.yaml:7:12: fs.kind: unknown file system "
                  "\"ext4\" (one of: logfs, blockfs, jffs2-scan, jffs2-summary, ftl)"));
    /* a kind takes its own keys by name (fsapi's option_help), no other's */
    CHECK(refused(BASE "fs: {kind: jffs2-scan, gc_policy: greedy}\n",
                  "unknown key 'gc_policy' in fs"));
    CHECK(refused(BASE "fs: {kind: jffs2-scan, reserve: 1}\n",
                  "bad.yaml:7:33: fs.jffs2-scan: bad option 'reserve=1'"));
    CHECK(refused(BASE "fs: {kind: blockfs, options: \"block_size=4096,colour=red\"}\n",
                  "bad.yaml:7:30: fs.options: \"block_size=4096,colour=red\" is not valid for blockfs"));
    CHECK(refused(BASE "fs: {options: \"x=1\"}\n", "fs.options: \"x=1\" is not valid for logfs: "));
    CHECK(refused(BASE "mount: {unclean: maybe}\n", "mount.unclean"));
    CHECK(refused(BASE "mount: {dirty: true}\n", "unknown key 'dirty' in mount"));
    char err[256];
    struct experiment *e = NULL;
    CHECK(experiment_load("/nonexistent/x.yaml", &e, err, sizeof err) == -1);
    CHECK(strstr(err, "/nonexistent/x.yaml: cannot open") != NULL);
}

/* Configs that cannot mean what they say (issue #29): refused at load,
 * so that `run --list-runs` fails too; what they would mean instead is
 * accepted. */
static int accepted(const char *text)
{
    const char *p = tmp_write("good.yaml", text);
    char err[1024] = "";
    struct experiment *e = NULL;
    int rc = experiment_load(p, &e, err, sizeof err);
    experiment_free(e);
    if (rc)
        fprintf(stderr, "refused: %s\n", err);
    return rc == 0;
}

#define TRACE_BASE                                                             \
    "device: configs/devices/test-64m.yaml\n"                                  \
    "workload: {kind: trace, trace: configs/traces/git.fstrace}\n"             \
    "stop: {ops: 10}\n"

TEST(configs_that_cannot_mean_what_they_say_are_refused)
{
    /* the same seed twice: one run counted as two */
    CHECK(refused(BASE "seeds: [1, 2, 1]\n", "bad.yaml:7:15: seeds: 1 is given twice (items 1 "
                  "and 3)"));
    CHECK(refused(BASE "seeds: [1, 2]\nrepetitions: 2\n", "bad.yaml:8:14: seeds 1 and 2 with "
                  "repetitions: 2 overlap"));
    CHECK(accepted(BASE "seeds: [1, 3]\nrepetitions: 2\n"));
    /* a key the kind ignores names the kinds that read it */
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: uniform, theta: 0.9}\n"
                  "stop: {ops: 1}\n", "bad.yaml:2:34: workload.theta: the uniform workload "
                  "ignores it; it is read by kind zipf only"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: zipf, hot_writes: 0.8}\n"
                  "stop: {ops: 1}\n", "workload.hot_writes: the zipf workload ignores it; it is "
                  "read by kind hotcold only"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: churn, files: 2}\n"
                  "stop: {ops: 1}\n", "read by kind uniform, sequential, zipf, hotcold only"));
    CHECK(refused(BASE "age:\n  workload: {kind: uniform, max_files: 3}\n  stop: {ops: 1}\n",
                  "age.workload.max_files: the uniform workload ignores it"));
    /* a swept kind: the run whose kind ignores the key */
    CHECK(refused("device: configs/devices/test-64m.yaml\nworkload: {kind: zipf, theta: 0.8}\n"
                  "stop: {ops: 1}\nsweep:\n  workload.kind: [zipf, hotcold]\n",
                  "workload.theta: the hotcold workload ignores it"));
    CHECK(accepted("device: configs/devices/test-64m.yaml\nworkload: {kind: zipf, theta: 0.8, "
                   "compressible: 0.5}\nstop: {ops: 1}\n"));
    {   /* op_mix is a churn kind's: read there */
        const char *p = tmp_write("mix.yaml", "device: configs/devices/test-64m.yaml\n"
                                  "workload: {kind: churn, op_mix: {create: 1, delete: 2}}\n"
                                  "stop: {ops: 1}\n");
        char err[512];
        struct experiment *e = NULL;
        struct exp_run r;
        REQUIRE(p && experiment_load(p, &e, err, sizeof err) == 0);
        REQUIRE(experiment_run(e, 0, &r, err, sizeof err) == 0);
        CHECK_NEAR(r.wl.op_create, 1, 1e-12);
        CHECK_NEAR(r.wl.op_delete, 2, 1e-12);
        exp_run_free(&r);
        experiment_free(e);
    }
    /* several seeds over a trace are identical runs, unless something is sampled */
    CHECK(refused(TRACE_BASE "seeds: [1, 2, 3]\n", "bad.yaml:4:8: the 3 runs per setting (seeds "
                  "x repetitions) over a trace would be identical"));
    CHECK(refused(TRACE_BASE "repetitions: 2\n", "the 2 runs per setting"));
    CHECK(accepted(TRACE_BASE));
    CHECK(accepted(TRACE_BASE "seeds: [1, 2]\nfs: {gc_policy: random}\n"));
    CHECK(accepted(TRACE_BASE "seeds: [1, 2]\nage:\n  workload: {kind: uniform}\n"
                   "  stop: {ops: 5}\n"));
    CHECK(refused(TRACE_BASE "seeds: [1, 2]\nfs: {gc_policy: greedy}\n", "would be identical"));
    /* a device too small for the fs names the smallest that works */
    CHECK(refused("device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 8}\n"
                  "workload: {kind: uniform}\nstop: {ops: 1}\n",
                  "bad.yaml:1:9: device: too small for logfs with this workload: 1 MiB "
                  "(blocks_per_plane 8) gives \"mkfs: No space left on device\"; the smallest "
                  "that works is"));
    CHECK(refused("device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 24}\n"
                  "workload: {kind: uniform}\nstop: {ops: 1}\n",
                  "gives \"workload: uniform: files of 0 bytes cannot hold a request of 4096\""));
    /* the minimum named is the minimum: it loads, one block less does not */
    char err[1024] = "", text[512];
    struct experiment *e = NULL;
    for (int k = 0; k < 3; k++) {
        static const char *const kinds[] = {"logfs", "blockfs", "jffs2-scan"};
        snprintf(text, sizeof text, "device: {file: configs/devices/test-64m.yaml, "
                 "blocks_per_plane: 2}\nfs: {kind: %s}\nworkload: {kind: uniform}\n"
                 "stop: {ops: 1}\n", kinds[k]);
        const char *p = tmp_write("small.yaml", text);
        CHECK(experiment_load(p, &e, err, sizeof err) == -1);
        experiment_free(e);
        e = NULL;
        const char *m = strstr(err, "(device.blocks_per_plane: ");
        unsigned min = 0;
        REQUIRE(m && sscanf(m, "(device.blocks_per_plane: %u)", &min) == 1);
        CHECK(strstr(err, kinds[k]) != NULL);
        snprintf(text, sizeof text, "device: {file: configs/devices/test-64m.yaml, "
                 "blocks_per_plane: %u}\nfs: {kind: %s}\nworkload: {kind: uniform}\n"
                 "stop: {ops: 1}\n", min, kinds[k]);
        CHECK(accepted(text));
        snprintf(text, sizeof text, "device: {file: configs/devices/test-64m.yaml, "
                 "blocks_per_plane: %u}\nfs: {kind: %s}\nworkload: {kind: uniform}\n"
                 "stop: {ops: 1}\n", min - 1, kinds[k]);
        CHECK(refused(text, "too small"));
    }
}

/* fs.kind picks the file system; a baseline takes its options string. */
TEST(fs_kind_selects_the_file_system)
{
    const char *p = tmp_write("kinds.yaml", BASE
        "fs: {kind: jffs2-summary, options: \"reserve=6\"}\n"
        "mount: {unclean: true}\n"
        "sweep:\n  fs.kind: [logfs, jffs2-scan, jffs2-summary]\n");
    char err[1024] = "";
    struct experiment *e;
    REQUIRE(experiment_load(p, &e, err, sizeof err) == 0);
    static const char *const want[] = {"logfs", "jffs2-scan", "jffs2-summary"};
    CHECK_EQ_INT(experiment_runs(e), 3);
    for (uint32_t i = 0; i < 3; i++) {
        struct exp_run r;
        REQUIRE(experiment_run(e, i, &r, err, sizeof err) == 0);
        CHECK(!strcmp(r.fs_api->name, want[i]));
        /* the kind's own string, after the run's defaults (LogFS: epoch, gc_seed) */
        size_t n = strlen(r.fs_options);
        CHECK(n >= 9 && !strcmp(r.fs_options + n - 9, "reserve=6"));
        CHECK_EQ_INT(!strcmp(r.fs_options, "reserve=6"), i != 0);
        CHECK_EQ_INT(r.unclean_mount, 1);
        CHECK(strstr(r.params_json, want[i]) != NULL);
        exp_run_free(&r);
    }
    experiment_free(e);
}

/* fs.epoch: LogFS's timestamps are the simulated clock plus the epoch
 * (2024-01-01 unless given), recorded in params; the same run made twice
 * stamps its files with identical times. */
TEST(epoch_is_deterministic_and_recorded)
{
    const char *p = tmp_write("epoch.yaml", "name: ep\n" BASE
                              "sweep:\n  fs.epoch: [\"\", \"2030-06-01T12:00:00Z\"]\n");
    const char *q = tmp_write("epoch0.yaml", "name: ep0\n" BASE);
    char err[1024] = "";
    struct experiment *e;
    REQUIRE(q && experiment_load(q, &e, err, sizeof err) == 0);
    struct exp_run r;
    REQUIRE(experiment_run(e, 0, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(lopts(&r).epoch_ns, EXP_DEFAULT_EPOCH_NS);
    CHECK_EQ_INT(r.fs_epoch_ns, EXP_DEFAULT_EPOCH_NS);
    CHECK(lopts(&r).clock == NULL);
    CHECK(strstr(r.params_json, "\"fs_epoch_ns\":1704067200000000000,") != NULL);
    int64_t mt[2];
    for (int i = 0; i < 2; i++) {
        nand_dev *d;
        struct exp_mounted m;
        REQUIRE(nand_create(&r.dev, &d) == 0);
        REQUIRE(exp_run_mkfs(&r, d) == 0 && exp_run_mount(&r, d, &m) == 0);
        const struct fsapi *a = m.fs.api;
        int fd = a->open(m.fs.fs, "/f", O_CREAT | O_RDWR, 0644);
        struct fs_stat st = {0};
        CHECK(fd >= 0 && a->pwrite(m.fs.fs, fd, "x", 1, 0) == 1);
        CHECK(a->fstat(m.fs.fs, fd, &st) == 0 && a->close(m.fs.fs, fd) == 0);
        mt[i] = st.mtime;
        CHECK(st.mtime > EXP_DEFAULT_EPOCH_NS &&
              st.mtime <= EXP_DEFAULT_EPOCH_NS + (int64_t)nand_now(d));
        CHECK_EQ_INT(exp_run_unmount(&m), 0);
        nand_close(d);
    }
    CHECK_EQ_INT(mt[0], mt[1]);
    exp_run_free(&r);
    experiment_free(e);

    /* a given epoch; an empty one is a mistake */
    REQUIRE(p);
    CHECK(experiment_load(p, &e, err, sizeof err) == -1);
    CHECK(strstr(err, "fs.epoch") != NULL);
    p = tmp_write("epoch2.yaml", "name: ep2\n" BASE "fs: {epoch: \"2030-06-01T12:00:00Z\"}\n");
    REQUIRE(p && experiment_load(p, &e, err, sizeof err) == 0);
    REQUIRE(experiment_run(e, 0, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(lopts(&r).epoch_ns, 1906545600LL * 1000000000);
    CHECK_EQ_INT(r.fs_epoch_ns, 1906545600LL * 1000000000);
    CHECK(strstr(r.params_json, "\"fs_epoch_ns\":1906545600000000000,") != NULL);
    exp_run_free(&r);
    experiment_free(e);
}

/* workload.utilisation beside fill, on a kind that ignores it, and
 * fs.max_utilisation out of range: refused at load, by place */
TEST(utilisation_keys_are_checked)
{
    CHECK(refused("device: configs/devices/test-64m.yaml\n"
                  "workload: {kind: uniform, fill: 0.5, utilisation: 0.8}\nstop: {ops: 1}\n",
                  "bad.yaml:2:51: workload.utilisation: give fill or utilisation, not both"));
    CHECK(refused("device: configs/devices/test-64m.yaml\n"
                  "workload: {kind: churn, utilisation: 0.8}\nstop: {ops: 1}\n",
                  "bad.yaml:2:38: workload.utilisation: the churn workload ignores it; it is "
                  "read by kind uniform, sequential, zipf, hotcold only"));
    CHECK(refused("device: configs/devices/test-64m.yaml\nfs: {max_utilisation: 1.5}\n"
                  "workload: {kind: uniform}\nstop: {ops: 1}\n",
                  "max_utilisation: '1.5' is not a fraction in 0.05..0.99"));
    /* accepted: utilisation alone, swept */
    const char *p = tmp_write("ok.yaml", "device: configs/devices/test-64m.yaml\n"
                              "fs: {max_utilisation: 0.95}\n"
                              "workload: {kind: uniform, utilisation: 0.5}\nstop: {ops: 1}\n"
                              "sweep:\n  workload.utilisation: [0.5, 0.9]\n");
    char err[1024] = "";
    struct experiment *e = NULL;
    REQUIRE(experiment_load(p, &e, err, sizeof err) == 0);
    struct exp_run r;
    REQUIRE(experiment_run(e, 1, &r, err, sizeof err) == 0);
    CHECK_NEAR(r.wl.utilisation, 0.9, 1e-12);
    exp_run_free(&r);
    experiment_free(e);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("exp") || tmp_link_configs())
        return 1;
    RUN(sweep_seeds_and_repetitions_number_the_runs);
    RUN(sections_are_read);
    RUN(mistakes_are_named_with_their_place);
    RUN(configs_that_cannot_mean_what_they_say_are_refused);
    RUN(fs_kind_selects_the_file_system);
    RUN(epoch_is_deterministic_and_recorded);
    RUN(utilisation_keys_are_checked);
    tmp_dir_remove();
    return test_summary(argv[0]);
}

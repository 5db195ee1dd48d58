/*
 * bench_steady.c -- the whole stack at a standard SSD simulator's load, in
 * steady state (docs/performance.md).
 *
 * Runs configs/steady-state.yaml (LogFS on configs/devices/mqsim-8g.yaml,
 * uniform random 4 KiB writes over 0.75 of the free space, a sync every
 * 64, content-light payloads) through the experiment layer's own pieces
 * (experiment_load, exp_run_mkfs/mount, workload_create, wl_exec_apply),
 * and times the steady window: operations stop.ops/3 .. stop.ops of the
 * measured phase (1M..3M), by when the cleaner has long been running.
 * Prints WA per 256k writes so that the steadiness shows, then:
 *   - host writes per wall-second over the window,
 *   - page programs + erases per wall-second over the window,
 *   - WA over the window (flash bytes programmed / host bytes),
 *   - in the same run: the raw simulator's programs + erases per second
 *     (nand_program of content-light pages and nand_erase on the same
 *     device configuration) and memcpy's page copies per second,
 *   - peak RSS.
 * Rows go to results/bench.csv, named steady_<variant>_<what>.
 *
 * Variants: the device as configured ("off"), with device.dedup, and
 * with device.dedup + device.compress ("dedup+compress"); the dedup
 * variants also report their rate against off's (goal >= 0.8).
 *
 *   bench_steady [--quick] [--variants off,dedup,compress,both] [CONFIG]
 *
 * --quick (or FLASHLAB_BENCH_QUICK=1 in the environment, `make bench
 * QUICK=1`): the same device with 64 blocks per plane (2 GiB) and a
 * quarter of the operations (window 250k..750k, WA per 64k): about a
 * tenth of the time.  FLASHLAB_BENCH_STEADY_VARIANTS sets the variants
 * (default: all three full, off and dedup quick).
 */
#include "bench_util.h"
#include "experiment.h"
#include "nand.h"
#include "workload.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_CONFIG "configs/steady-state.yaml"

struct variant {
    const char *name;
    int dedup, compress;
};

static const struct variant all_variants[] = {
    { "off", 0, 0 },
    { "dedup", 1, 0 },
    { "compress", 0, 1 },
    { "both", 1, 1 },
};

struct result {
    double host_wps, flash_ops_ps, host_wpcs, flash_ops_pcs, wa, raw_ops_ps, memcpy_pps, rss_mib, setup_s, sim_wps;
    /* at the window's end: the fs's used bytes (live data and metadata)
     * and the device's programmed pages, in GiB, for memory per GiB */
    double live_gib, programmed_gib;
    /* the window's flash operations: a change that must not alter what
     * the fs writes is checked against these */
    uint64_t programs, erases, reads, bytes_read;
};

/* CPU seconds of this process: on a machine shared with other jobs the
 * wall clock also counts their time. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* FLASHLAB_BENCH_PERF_CTL=FIFO: write "enable" / "disable" to perf's
 * control fifo at the window's ends, so that `perf record -D -1
 * --control fifo:FIFO` profiles the steady window only
 * (docs/performance.md). */
static void perf_ctl(const char *cmd)
{
    const char *path = getenv("FLASHLAB_BENCH_PERF_CTL");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", cmd);
        fclose(f);
    }
}

/* Peak RSS: VmHWM of /proc/self/status, which reset_peak_rss can reset
 * (ru_maxrss cannot); getrusage where there is no /proc. */
static long peak_rss_kib(void)
{
    long kib = proc_status_kib("VmHWM");
    if (kib >= 0)
        return kib;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Forget the peak so far (Linux's clear_refs 5 resets VmHWM): the raw
 * simulator's and memcpy's buffers are not the run's memory. */
static void reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

/* Content-light page i (of seed x): a header of 40..99 unique bytes, then
 * one byte value, as LogFS's objects of content-light data look. */
static void light_page(uint8_t *p, uint32_t page, uint32_t oob, uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    uint32_t hdr = 40 + (uint32_t)(*x % 60);
    uint8_t v = (uint8_t)(*x >> 32 | 1);
    for (uint32_t i = 0; i < hdr; i++) {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        p[i] = (uint8_t)*x;
    }
    memset(p + hdr, v, page - hdr);
    memset(p + page, 0xff, oob);
}

/* The raw simulator on the run's device configuration: program every page
 * of `blocks` blocks and erase them, best of three after a warm-up;
 * programs + erases per second. */
static int raw_rate(const struct nand_config *cfg0, uint32_t blocks, double *ops_ps)
{
    struct nand_config cfg = *cfg0;
    cfg.factory_bad_fraction = 0; /* every block of the run takes its programs */
    nand_dev *dev;
    int rc = nand_create(&cfg, &dev);
    if (rc) {
        fprintf(stderr, "bench_steady: raw nand_create: %s\n", nand_strerror(rc));
        return 1;
    }
    uint32_t page = cfg.geo.page_size, oob = cfg.geo.oob_size, ppb = cfg.geo.pages_per_block;
    uint32_t pool_pages = 1024;
    uint8_t *pool = malloc((size_t)pool_pages * (page + oob));
    if (!pool)
        return 1;
    uint64_t x = 88172645463325252ULL, fails = 0;
    for (uint32_t i = 0; i < pool_pages; i++)
        light_page(pool + (size_t)i * (page + oob), page, oob, &x);
    double best = 1e30;
    uint64_t ops = 0;
    for (int rep = 0; rep < 4; rep++) {
        double t0 = wall();
        ops = 0;
        for (uint32_t b = 0; b < blocks; b++) {
            for (uint32_t p = 0; p < ppb; p++, ops++) {
                const uint8_t *pg = pool + (size_t)((b * ppb + p) % pool_pages) * (page + oob);
                fails += nand_program(dev, b, p, pg, pg + page, NULL) != 0;
            }
        }
        for (uint32_t b = 0; b < blocks; b++, ops++)
            fails += nand_erase(dev, b, NULL) != 0;
        double dt = wall() - t0;
        if (rep && dt < best)
            best = dt;
    }
    nand_close(dev);
    free(pool);
    if (fails) {
        fprintf(stderr, "bench_steady: %" PRIu64 " raw operations failed\n", fails);
        return 1;
    }
    *ops_ps = (double)ops / best;
    return 0;
}

/* memcpy of pages in and out of a buffer as large as the raw run's
 * data: page copies per second (one in + one out counts as one). */
static double memcpy_rate(uint32_t page, uint64_t pages)
{
    uint8_t *big = malloc(page * pages), *buf = malloc(page);
    if (!big || !buf)
        return 0;
    memset(big, 0x5a, page * pages);
    memset(buf, 0xa5, page);
    double best = 1e30;
    volatile uint8_t sink = 0;
    for (int rep = 0; rep < 4; rep++) {
        double t0 = wall();
        for (uint64_t i = 0; i < pages; i++)
            memcpy(big + i * page, buf, page);
        for (uint64_t i = 0; i < pages; i++) {
            memcpy(buf, big + i * page, page);
            sink ^= buf[i % page];
        }
        double dt = wall() - t0;
        if (rep && dt < best)
            best = dt;
    }
    (void)sink;
    free(big);
    free(buf);
    return (double)pages / best;
}

static int run_variant(struct experiment *e, const struct variant *v, int quick,
                       struct result *res)
{
    char err[1024];
    struct exp_run r;
    if (experiment_run(e, 0, &r, err, sizeof err)) {
        fprintf(stderr, "bench_steady: %s\n", err);
        return 1;
    }
    r.dev.dedup = v->dedup;
    r.dev.compress = v->compress;
    uint64_t total = r.stop.ops ? r.stop.ops : 3000000;
    if (quick) {
        r.dev.geo.blocks_per_plane = 64;
        total /= 4;
    }
    uint64_t start = total / 3, every = quick ? 65536 : 262144;
    memset(res, 0, sizeof *res);

    /* the raw simulator and memcpy, in the same run, before the fs's
     * device takes the memory */
    uint32_t raw_blocks = 256;
    if (raw_rate(&r.dev, raw_blocks, &res->raw_ops_ps))
        return 1;
    res->memcpy_pps = memcpy_rate(r.dev.geo.page_size,
                                  (uint64_t)raw_blocks * r.dev.geo.pages_per_block);
    reset_peak_rss();

    nand_dev *dev;
    int rc = nand_create(&r.dev, &dev);
    if (rc) {
        fprintf(stderr, "bench_steady: nand_create: %s\n", nand_strerror(rc));
        return 1;
    }
    struct exp_mounted m;
    if ((rc = exp_run_mkfs(&r, dev)) || (rc = exp_run_mount(&r, dev, &m))) {
        fprintf(stderr, "bench_steady: mkfs/mount: %s\n", strerror(-rc));
        return 1;
    }
    struct workload *w;
    struct wl_exec *x;
    if (workload_create(&r.wl, r.seed, &m.fs, &w, err, sizeof err)) {
        fprintf(stderr, "bench_steady: workload: %s\n", err);
        return 1;
    }
    if (wl_exec_create(&m.fs, &x))
        return 1;
    wl_exec_set_content_light(x, r.wl.content_light);

    uint32_t page = r.dev.geo.page_size;
    uint64_t host = 0, ops = 0, host_mark = 0, host_w0 = 0;
    struct nand_stats st_mark, st_w0, st;
    nand_time_t sim_w0 = 0;
    double t_setup = wall(), t_w0 = 0, c_w0 = 0;
    int in_setup = 1;
    printf("  %-15s WA per %" PRIu64 "k writes:", v->name, every >> 10);
    fflush(stdout);
    for (;;) {
        struct trace_rec op;
        int n = workload_next(w, &op, err, sizeof err);
        if (n <= 0) {
            fprintf(stderr, "bench_steady: workload_next: %s\n", n ? err : "ended");
            return 1;
        }
        int setup = workload_in_setup(w);
        if (in_setup && !setup) {
            in_setup = 0;
            res->setup_s = wall() - t_setup;
            host = 0;
            nand_get_stats(dev, &st_mark);
        }
        wl_exec_set_setup(x, setup);
        int64_t got = wl_exec_apply(x, &op, &host);
        if (got < 0) {
            fprintf(stderr, "bench_steady: %s %s: %s (op %" PRIu64 ")\n",
                    trace_op_name(op.op) ? trace_op_name(op.op) : "op",
                    op.path ? op.path : "", strerror((int)-got), ops);
            nand_get_stats(dev, &st);
            fprintf(stderr, "bench_steady: device: %" PRIu64 " uncorrectable reads, %" PRIu64
                            " bits corrected, %" PRIu64 " program and %" PRIu64 " erase fails\n",
                    st.uncorrectable_reads, st.bits_corrected, st.program_fails, st.erase_fails);
            return 1;
        }
        if (setup)
            continue;
        ops++;
        if (ops % every == 0) {
            nand_get_stats(dev, &st);
            double wa = (double)(st.programs - st_mark.programs) * page /
                        (double)(host - host_mark);
            printf(" %.2f", wa);
            fflush(stdout);
            st_mark = st;
            host_mark = host;
        }
        if (ops == start) {
            nand_get_stats(dev, &st_w0);
            host_w0 = host;
            sim_w0 = nand_now(dev);
            t_w0 = wall();
            c_w0 = cpu();
            perf_ctl("enable");
        }
        if (ops == total)
            break;
    }
    double dt = wall() - t_w0, dc = cpu() - c_w0;
    perf_ctl("disable");
    nand_get_stats(dev, &st);
    printf("\n");
    uint64_t progs = st.programs - st_w0.programs, erases = st.erases - st_w0.erases;
    res->host_wps = (double)(total - start) / dt;
    res->flash_ops_ps = (double)(progs + erases) / dt;
    res->host_wpcs = (double)(total - start) / dc;
    res->flash_ops_pcs = (double)(progs + erases) / dc;
    res->wa = (double)progs * page / (double)(host - host_w0);
    res->sim_wps = (double)(total - start) / ((double)(nand_now(dev) - sim_w0) / 1e9);
    res->rss_mib = (double)peak_rss_kib() / 1024;
    res->programs = progs;
    res->erases = erases;
    res->reads = st.reads - st_w0.reads;
    res->bytes_read = st.bytes_read - st_w0.bytes_read;
    struct fs_statfs sf;
    if (!m.fs.api->statfs(m.fs.fs, &sf))
        res->live_gib = (double)(sf.total_bytes - sf.free_bytes) / (1 << 30);
    uint64_t pages = 0;
    for (nand_block_t b = 0; b < nand_blocks(&r.dev); b++) {
        struct nand_block_info bi;
        if (nand_block_info(dev, b, &bi) == NAND_OK)
            pages += bi.pages_programmed;
    }
    res->programmed_gib = (double)pages * (page + r.dev.geo.oob_size) / (1 << 30);
    wl_exec_free(x);
    workload_free(w);
    if ((rc = exp_run_unmount(&m))) {
        fprintf(stderr, "bench_steady: unmount: %s\n", strerror(-rc));
        return 1;
    }
    nand_close(dev);
    exp_run_free(&r);
    return 0;
}

int main(int argc, char **argv)
{
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    const char *config = DEFAULT_CONFIG, *vlist = getenv("FLASHLAB_BENCH_STEADY_VARIANTS");
    const char *q = getenv("FLASHLAB_BENCH_QUICK");
    int quick = q && *q && strcmp(q, "0");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--variants") && i + 1 < argc)
            vlist = argv[++i];
        else if (argv[i][0] != '-')
            config = argv[i];
        else {
            fprintf(stderr, "usage: bench_steady [--quick] [--variants off,dedup,compress,both] "
                            "[CONFIG]\n");
            return 2;
        }
    }
    if (!vlist)
        vlist = quick ? "off,dedup" : "off,dedup,both";
    char err[1024];
    struct experiment *e;
    if (experiment_load(config, &e, err, sizeof err)) {
        fprintf(stderr, "bench_steady: %s\n", err);
        return 1;
    }
    printf("steady state (%s%s): WA per window, then the window's rates\n", config,
           quick ? ", quick: 2 GiB, ops 250k..750k" : ", ops 1M..3M");
    double off_wps = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", vlist);
    for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const struct variant *v = NULL;
        for (size_t i = 0; i < sizeof all_variants / sizeof all_variants[0]; i++)
            if (!strcmp(all_variants[i].name, tok))
                v = &all_variants[i];
        if (!v) {
            fprintf(stderr, "bench_steady: unknown variant '%s'\n", tok);
            return 2;
        }
        /* each variant in a child of its own, so that its peak RSS is its
         * own */
        struct result res;
        int fds[2];
        if (pipe(fds))
            return 1;
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0) {
            close(fds[0]);
            int crc = run_variant(e, v, quick, &res);
            if (!crc && write(fds[1], &res, sizeof res) != (ssize_t)sizeof res)
                crc = 1;
            fflush(stdout);
            _exit(crc);
        }
        close(fds[1]);
        ssize_t got = read(fds[0], &res, sizeof res);
        close(fds[0]);
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
            got != (ssize_t)sizeof res)
            return 1;
        if (!strcmp(v->name, "off"))
            off_wps = res.host_wps;
        printf("  %-15s per CPU-second: host %.0f writes/s, flash %.0f programs+erases/s\n",
               v->name, res.host_wpcs, res.flash_ops_pcs);
        printf("  %-15s host %.0f writes/s, flash %.0f programs+erases/s, WA %.3f "
               "(simulated device %.0f writes/s); raw sim %.0f programs+erases/s, "
               "memcpy %.0f pages/s; setup %.1f s; peak RSS %.0f MiB\n",
               v->name, res.host_wps, res.flash_ops_ps, res.wa, res.sim_wps, res.raw_ops_ps,
               res.memcpy_pps, res.setup_s, res.rss_mib);
        printf("  %-15s window: %" PRIu64 " programs, %" PRIu64 " erases, %" PRIu64
               " reads (%.0f MiB)\n", v->name, res.programs, res.erases, res.reads,
               (double)res.bytes_read / (1 << 20));
        /* the memory goals, against what the chip holds: every
         * programmed page, stale or not, is data a simulator must keep */
        double per_live = res.live_gib > 0 ? res.rss_mib / res.live_gib : 0;
        double per_prog = res.programmed_gib > 0 ? res.rss_mib / res.programmed_gib : 0;
        printf("  %-15s memory: %.0f MiB per GiB of live data (%.2f GiB), %.0f MiB per GiB "
               "programmed (%.2f GiB); goal %s\n", v->name, per_live, res.live_gib, per_prog,
               res.programmed_gib,
               v->compress ? (per_prog <= 50 ? "<= 50 MiB per GiB programmed met"
                                             : "<= 50 MiB per GiB programmed not met")
                           : (per_prog <= 1.1 * 1024 ? "<= 1.1 GiB per GiB programmed met"
                                                     : "<= 1.1 GiB per GiB programmed not met"));
        if (off_wps > 0 && strcmp(v->name, "off"))
            printf("  %-15s %.2fx of off's host writes/s (goal >= 0.8)\n", v->name,
                   res.host_wps / off_wps);
        printf("  %-15s goals (one core): >= 100k host writes/s %s, >= 600k "
               "programs+erases/s %s\n", v->name, res.host_wps >= 100e3 ? "met" : "not met",
               res.flash_ops_ps >= 600e3 ? "met" : "not met");
        fflush(stdout);
        char name[96];
        const char *pre = quick ? "steady_quick" : "steady";
#define ROW(what, val, unit)                                                  \
    do {                                                                      \
        snprintf(name, sizeof name, "%s_%s_%s", pre, v->name, what);          \
        record(name, val, unit);                                              \
    } while (0)
        ROW("host_writes", res.host_wps, "writes/s");
        ROW("flash_ops", res.flash_ops_ps, "ops/s");
        ROW("host_writes_cpu", res.host_wpcs, "writes/cpu-s");
        ROW("flash_ops_cpu", res.flash_ops_pcs, "ops/cpu-s");
        ROW("wa", res.wa, "ratio");
        ROW("raw_sim_ops", res.raw_ops_ps, "ops/s");
        ROW("memcpy_pages", res.memcpy_pps, "pages/s");
        ROW("peak_rss", res.rss_mib, "MiB");
        ROW("rss_per_live_gib", per_live, "MiB/GiB");
        ROW("rss_per_programmed_gib", per_prog, "MiB/GiB");
        if (off_wps > 0 && strcmp(v->name, "off"))
            ROW("vs_off", res.host_wps / off_wps, "ratio");
#undef ROW
    }
    experiment_free(e);
    return 0;
}

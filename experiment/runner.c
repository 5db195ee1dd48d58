/*
 * runner.c -- one run (see runner.h).  Samples count from the start of the
 * measured phase (after the workload's setup and the optional ageing), so
 * that a run's WA is that of the workload on the aged device.
 */
#include "runner.h"
#include "retention.h"
#include "wa_steady.h"
#include "rng.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROGRESS_EVERY 4096u /* operations between progress calls */

/* A snapshot of the mounted fs's named counters. */
struct fs_counts {
    struct fsapi_counter c[FSAPI_COUNTERS_MAX];
    size_t n;
};

struct run_state {
    const struct exp_run *r;
    struct results *db;
    int64_t run_id;
    nand_dev *dev;
    struct exp_mounted m; /* any fs of the table (and LogFS's own handle) */
    uint64_t capacity, page_size;
    /* the measured phase's origin */
    struct nand_stats st0;
    struct fs_counts c0;
    nand_time_t t0;
    uint64_t host, ops;           /* measured phase */
    int64_t sample_seq, snap_seq;
    uint64_t next_host, next_ops; /* next sample due */
    nand_time_t next_sim;
    uint32_t snaps_done;
    const struct exp_progress *progress;
    int measuring, gc_db_failed; /* gc events go to the db while measuring */
    /* WA over intervals and after the warm-up (analysis/wa_steady.h) */
    struct wa_point origin, prev;  /* at the start, at the previous sample */
    struct wa_point *bound;        /* at the device-fill window boundaries */
    size_t nbound, capbound;
    uint64_t window_bytes;         /* a window's host bytes: the cleanable capacity */
    double u_sum;                  /* utilisation at the samples, summed */
    uint64_t u_n;
    char *err;
    size_t errlen;
};

/* "what: strerror(-rc)" (or just what when rc is 0) into the run's err. */
static int fail(struct run_state *s, const char *what, int rc)
{
    snprintf(s->err, s->errlen, "%s%s%s", what, rc ? ": " : "", rc ? strerror(-rc) : "");
    return -1;
}

static int db_fail(struct run_state *s)
{
    snprintf(s->err, s->errlen, "results: %s", results_error(s->db));
    return -1;
}

/* 0..1: how far the measured phase is towards its nearest stop. */
static double done_fraction(const struct run_state *s, const struct exp_stop *st,
                            uint64_t host, uint64_t ops, nand_time_t sim)
{
    double f = 0;
    if (st->host_bytes)
        f = (double)host / (double)st->host_bytes;
    if (st->ops && (double)ops / (double)st->ops > f)
        f = (double)ops / (double)st->ops;
    if (st->device_fills > 0 && (double)host / ((double)s->capacity * st->device_fills) > f)
        f = (double)host / ((double)s->capacity * st->device_fills);
    if (st->sim_ns && (double)sim / (double)st->sim_ns > f)
        f = (double)sim / (double)st->sim_ns;
    return f;
}

/* The fs's own counters (fsapi's stats hook); a kind that keeps none has
 * samples with the device's counts only. */
static void fs_stats(const struct run_state *s, struct fs_counts *f)
{
    f->n = fsapi_stats(&s->m.fs, f->c, FSAPI_COUNTERS_MAX);
}

static uint64_t count(const struct fs_counts *f, const char *name)
{
    return fsapi_counter_value(f->c, f->n, name);
}

/* since the measured phase's origin */
static int64_t since(const struct run_state *s, const struct fs_counts *f, const char *name)
{
    return (int64_t)(count(f, name) - count(&s->c0, name));
}

/* The cumulative counters of the measured phase (analysis/wa_steady.h):
 * data bytes -1 for a kind that does not count its file-data pages. */
static struct wa_point point_now(const struct run_state *s, const struct fs_counts *f,
                                 const struct nand_stats *st)
{
    uint64_t unused;
    int has_data = !fsapi_counter(&s->m.fs, "pages_data", &unused);
    return (struct wa_point){
        .host_bytes = (double)s->host,
        .data_bytes = has_data ? (double)since(s, f, "pages_data") * (double)s->page_size : -1,
        .total_bytes = (double)(st->programs - s->st0.programs) * (double)s->page_size,
    };
}

/* live bytes / the capacity the cleaner can use (NAN: the kind has no
 * such accounting): the u that LogFS's max_utilisation caps */
static double utilisation(const struct fs_counts *f)
{
    uint64_t cap = count(f, "cleanable_bytes");
    return cap ? (double)count(f, "live_bytes") / (double)cap : NAN;
}

/* At each device-fill window's end, the counters (the warm-up rule). */
static int maybe_window(struct run_state *s)
{
    if (!s->window_bytes || s->host < s->nbound * s->window_bytes)
        return 0;
    if (s->nbound == s->capbound) {
        size_t cap = s->capbound ? 2 * s->capbound : 16;
        struct wa_point *b = realloc(s->bound, cap * sizeof *b);
        if (!b)
            return fail(s, "out of memory", 0);
        s->bound = b;
        s->capbound = cap;
    }
    struct nand_stats st;
    struct fs_counts ls;
    nand_get_stats(s->dev, &st);
    fs_stats(s, &ls);
    s->bound[s->nbound] = s->nbound ? point_now(s, &ls, &st) : s->origin;
    s->nbound++;
    return 0;
}

static int take_sample(struct run_state *s)
{
    struct nand_stats st;
    struct fs_counts ls;
    nand_get_stats(s->dev, &st);
    fs_stats(s, &ls);
    uint64_t progs = st.programs - s->st0.programs;
    struct wa_point now = point_now(s, &ls, &st);
    double u = utilisation(&ls);
    if (!isnan(u)) {
        s->u_sum += u;
        s->u_n++;
    }
    struct results_sample smp = {
        .seq = s->sample_seq++,
        .sim_time_ns = (int64_t)(nand_now(s->dev) - s->t0),
        .host_bytes = (int64_t)s->host,
        .flash_bytes_programmed = (int64_t)(progs * s->page_size),
        .data_pages = since(s, &ls, "pages_data"),
        .meta_pages = since(s, &ls, "pages_meta"),
        .anchor_pages = since(s, &ls, "pages_anchor"),
        .gc_pages = since(s, &ls, "pages_gc"),
        .erases = (int64_t)(st.erases - s->st0.erases),
        .wa = s->host ? (double)(progs * s->page_size) / (double)s->host : 0,
        .free_segments = (int64_t)count(&ls, "free_segments"),
        .gc_time_ns = since(s, &ls, "gc_time_ns"),
        .gc_invocations = since(s, &ls, "gc_rounds"),
        .wa_interval = wa_steady_between(&s->prev, &now, 0),
        .wa_total_interval = wa_steady_between(&s->prev, &now, 1),
        .utilisation = u,
    };
    s->prev = now;
    return results_add_sample(s->db, s->run_id, &smp) ? db_fail(s) : 0;
}

static int erase_snapshot(struct run_state *s)
{
    uint32_t nb = (uint32_t)nand_blocks(nand_get_config(s->dev));
    uint32_t *c = malloc((size_t)nb * sizeof *c);
    if (!c)
        return fail(s, "out of memory", 0);
    for (uint32_t b = 0; b < nb; b++) {
        struct nand_block_info bi;
        c[b] = nand_block_info(s->dev, b, &bi) ? 0
             : bi.pe_cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)bi.pe_cycles;
    }
    int rc = results_add_erase_counts(s->db, s->run_id, s->snap_seq++, c, nb);
    free(c);
    return rc ? db_fail(s) : 0;
}

/* Samples and snapshots due after the latest operation. */
static int maybe_sample(struct run_state *s, double done)
{
    const struct exp_run *r = s->r;
    nand_time_t sim = nand_now(s->dev) - s->t0;
    int due = (r->sample_host_bytes && s->host >= s->next_host) ||
              (r->sample_ops && s->ops >= s->next_ops) ||
              (r->sample_sim_ns && sim >= s->next_sim);
    if (due) {
        while (r->sample_host_bytes && s->next_host <= s->host)
            s->next_host += r->sample_host_bytes;
        while (r->sample_ops && s->next_ops <= s->ops)
            s->next_ops += r->sample_ops;
        while (r->sample_sim_ns && s->next_sim <= sim)
            s->next_sim += r->sample_sim_ns;
        if (take_sample(s))
            return -1;
    }
    /* snapshots at done = k/n for k < n; the last one at the end */
    if (r->erase_snapshots > 1 && s->snaps_done + 1 < r->erase_snapshots &&
        done >= (double)(s->snaps_done + 1) / r->erase_snapshots) {
        s->snaps_done++;
        return erase_snapshot(s);
    }
    return 0;
}

static void on_gc(void *ctx, const struct fs_gc_event *ev)
{
    struct run_state *s = ctx;
    if (!s->measuring || s->gc_db_failed)
        return;
    struct results_gc_event e = {
        .sim_time_ns = (int64_t)(ev->sim_time_ns - s->t0),
        .victim = ev->segment,
        .live_units = ev->live_bytes,
        .moved_pages = (int64_t)((ev->live_bytes + s->page_size - 1) / s->page_size),
        .duration_ns = (int64_t)ev->duration_ns,
        .policy = ev->wear_leveling ? "wear-leveling" : ev->policy,
    };
    s->gc_db_failed = results_add_gc_event(s->db, s->run_id, &e) != 0;
}

static void mark_origin(struct run_state *s)
{
    s->measuring = 1;
    nand_get_stats(s->dev, &s->st0);
    fs_stats(s, &s->c0);
    s->t0 = nand_now(s->dev);
    s->host = s->ops = 0;
    s->next_host = s->r->sample_host_bytes;
    s->next_ops = s->r->sample_ops;
    s->next_sim = s->r->sample_sim_ns;
    fsapi_reset_latency(&s->m.fs);
    s->origin = s->prev = point_now(s, &s->c0, &s->st0);
    /* a device-fill window: host bytes equal to the capacity the cleaner
     * can use, or the device's where the kind does not say */
    s->window_bytes = count(&s->c0, "cleanable_bytes");
    if (!s->window_bytes)
        s->window_bytes = s->capacity;
    s->nbound = 0;
}

/* Run spec until stop; measured: sample and count (else ageing). *reason
 * says why it ended. */
static int run_phase(struct run_state *s, const struct wl_spec *spec, const struct exp_stop *stop,
                     uint64_t seed, int measured, const char **reason)
{
    struct workload *w;
    struct wl_exec *x;
    char werr[512];
    if (workload_create(spec, seed, &s->m.fs, &w, werr, sizeof werr)) {
        snprintf(s->err, s->errlen, "workload: %s", werr);
        return -1;
    }
    if (wl_exec_create(&s->m.fs, &x)) {
        workload_free(w);
        return fail(s, "out of memory", 0);
    }
    wl_exec_set_content_light(x, spec->content_light);
    wl_exec_set_compressible(x, spec->compressible);
    int rc = 0, in_setup = 1;
    uint64_t host = 0, ops = 0;
    nand_time_t t0 = nand_now(s->dev);
    *reason = "stop";
    for (;;) {
        struct trace_rec op;
        int n = workload_next(w, &op, werr, sizeof werr);
        if (n < 0) {
            snprintf(s->err, s->errlen, "workload: %s", werr);
            rc = -1;
            break;
        }
        if (n == 0) {
            /* A replayed program's data reached flash at its unmount: sync,
             * so that its last writes count in the run's final figures. */
            *reason = "workload-end";
            if (measured && (rc = s->m.fs.api->sync(s->m.fs.fs)))
                snprintf(s->err, s->errlen, "sync at the end of the workload: %s",
                         strerror(-rc));
            break;
        }
        int setup = workload_in_setup(w);
        if (in_setup && !setup) { /* the workload proper begins */
            in_setup = 0;
            host = 0; /* stop conditions count from here (docs/experiments.md) */
            t0 = nand_now(s->dev);
            if (measured)
                mark_origin(s);
        }
        uint64_t before = host;
        wl_exec_set_setup(x, setup); /* setup may find what ageing made */
        int64_t res = wl_exec_apply(x, &op, &host);
        if (res == -ENOSPC && !setup) {
            *reason = "enospc";
            break;
        }
        if (res == -EIO && stop->wear_out && !setup) {
            *reason = "wear-out";
            break;
        }
        if (res < 0) {
            /* data sized by utilisation fills the fs up to that u: if its
             * cap is no higher, what the fs adds while writing it (tree,
             * headers) overshoots the cap */
            char hint[160] = "";
            if (res == -ENOSPC && setup && spec->utilisation > 0)
                snprintf(hint, sizeof hint, "; workload.utilisation %g leaves the file system "
                         "no room under its cap: raise fs.max_utilisation above it (by 0.01) "
                         "or lower it", spec->utilisation);
            snprintf(s->err, s->errlen, "%s %s: %s (during %s)%s", trace_op_name(op.op) ?
                     trace_op_name(op.op) : "op", op.path ? op.path : "", strerror((int)-res),
                     setup ? "the workload's setup" : measured ? "the workload" : "ageing", hint);
            rc = -1;
            break;
        }
        if (setup)
            continue;
        ops++;
        nand_time_t sim = nand_now(s->dev) - t0;
        double done = done_fraction(s, stop, host, ops, sim);
        if (measured) {
            s->host += host - before;
            s->ops = ops;
            if ((rc = maybe_window(s)) || (rc = maybe_sample(s, done)))
                break;
        }
        if (s->progress && ops % PROGRESS_EVERY == 0) {
            struct nand_stats st;
            nand_get_stats(s->dev, &st);
            struct exp_report p = {
                .phase = measured ? EXP_PHASE_MEASURE : EXP_PHASE_AGEING,
                .done = done > 1 ? 1 : done, .ops = ops,
                .wa = measured && s->host ? (double)((st.programs - s->st0.programs) * s->page_size) /
                                                (double)s->host : 0,
            };
            exp_progress_report(s->progress, &p);
        }
        if (done >= 1)
            break;
        if (stop->wear_out) {
            struct nand_stats st;
            nand_get_stats(s->dev, &st);
            if (st.uncorrectable_reads || st.erase_fails || st.program_fails) {
                *reason = "wear-out";
                break;
            }
        }
    }
    wl_exec_free(x);
    workload_free(w);
    return rc;
}



/* Mount (the fs is unmounted, cleanly or by a power cut) and record the
 * mount's simulated latency -- flash time plus the CPU model's time for
 * the work the fs reports -- pages and bytes read, RAM and wall time. */
static int measure_mount(struct run_state *s, int clean)
{
    struct nand_stats a, b;
    nand_wait(s->dev); /* a mount begins on an idle chip: the unmount's
                          queued operations are not its cost */
    nand_get_stats(s->dev, &a);
    nand_time_t t0 = nand_now(s->dev);
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    int rc = exp_run_mount(s->r, s->dev, &s->m);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    if (rc)
        return fail(s, clean ? "remount" : "mount after the power cut", rc);
    nand_get_stats(s->dev, &b);
    struct fsapi_mount_work work;
    s->m.fs.api->mount_work(s->m.fs.fs, &work);
    double cpu = fsapi_cpu_ns(&fsapi_cpu_geode_lx, &work);
    struct fs_statfs sf;
    if ((rc = s->m.fs.api->statfs(s->m.fs.fs, &sf)))
        return fail(s, "statfs after the mount", rc);
    struct results_mount m = {
        .fs_kind = s->m.fs.api->name,
        .device_bytes = (int64_t)s->capacity,
        .fill_fraction = sf.total_bytes ? 1.0 - (double)sf.free_bytes / (double)sf.total_bytes : 0,
        .clean = clean,
        .sim_latency_ns = (int64_t)(nand_now(s->dev) - t0) + (int64_t)cpu,
        .flash_time_ns = (int64_t)(b.busy_ns - a.busy_ns),
        .cpu_time_ns = (int64_t)cpu,
        .pages_read = (int64_t)(b.reads - a.reads),
        .bytes_read = (int64_t)(b.bytes_read - a.bytes_read),
        .ram_bytes = (int64_t)s->m.fs.api->mem_bytes(s->m.fs.fs),
        .wall_ns = (int64_t)((w1.tv_sec - w0.tv_sec) * 1000000000LL + (w1.tv_nsec - w0.tv_nsec)),
    };
    return results_add_mount(s->db, s->run_id, &m) ? db_fail(s) : 0;
}

/* An unclean shutdown: a file written and synced, a second write whose
 * sync the power cut tears (after UNCLEAN_OPS flash operations of it, half
 * way through the next), then the fs dropped without unmounting. */
#define UNCLEAN_OPS 2
static int power_cut(struct run_state *s)
{
    const struct fsapi *api = s->m.fs.api;
    void *fs = s->m.fs.fs;
    uint64_t len = 16 * s->page_size;
    uint8_t *buf = malloc(len);
    if (!buf)
        return fail(s, "out of memory", 0);
    memset(buf, 0x5a, len);
    int fd = api->open(fs, "/unclean-shutdown", O_CREAT | O_RDWR | O_TRUNC, 0644);
    int64_t n = fd < 0 ? fd : api->pwrite(fs, fd, buf, len, 0);
    int rc = n < 0 ? (int)n : api->sync(fs);
    if (!rc) {
        nand_cut_after_ops(s->dev, UNCLEAN_OPS, 0.5);
        memset(buf, 0xa5, len);
        api->pwrite(fs, fd, buf, len, len / 2); /* may fail: the power is off */
        api->sync(fs);
        nand_power_cut(s->dev); /* if the writes needed fewer operations */
    }
    free(buf);
    if (rc)
        return fail(s, "write before the power cut", rc);
    exp_run_unmount(&s->m); /* frees the fs; its writes fail, the device is off */
    nand_cut_disarm(s->dev);
    nand_power_on(s->dev);
    return 0;
}

/* Unmount and mount again, measured; then, if the experiment asks, the
 * same after a power cut. */
static int measure_mounts(struct run_state *s)
{
    int rc = exp_run_unmount(&s->m);
    if (rc)
        return fail(s, "unmount", rc);
    if (measure_mount(s, 1))
        return -1;
    if (!s->r->unclean_mount)
        return 0;
    return power_cut(s) || measure_mount(s, 0) ? -1 : 0;
}

static int write_latency(struct run_state *s)
{
    static const char *const names[FS_OP_KINDS] = {"read", "write", "sync", "meta"};
    for (int k = 0; k < FS_OP_KINDS; k++) {
        struct fs_latency l;
        if (fsapi_latency(&s->m.fs, k, &l) || !l.count)
            continue;
        struct results_latency rl = {
            .op = names[k], .count = (int64_t)l.count, .p50_ns = (int64_t)l.p50_ns,
            .p99_ns = (int64_t)l.p99_ns, .p999_ns = (int64_t)l.p999_ns,
            .max_ns = (int64_t)l.max_ns, .mean_ns = l.mean_ns,
        };
        if (results_add_latency(s->db, s->run_id, &rl))
            return db_fail(s);
    }
    return 0;
}

/* The data blocks before and after compression (equal without it), their
 * ratio, and the flash bytes programmed per byte stored: the write
 * amplification with compression's gain taken out (docs/compression.md);
 * for a kind that counts them (LogFS). */
static int compression_kv(struct run_state *s, const struct fs_counts *ls)
{
    uint64_t unused;
    if (fsapi_counter(&s->m.fs, "data_raw_bytes", &unused))
        return 0;
    struct nand_stats st;
    nand_get_stats(s->dev, &st);
    double raw = (double)since(s, ls, "data_raw_bytes");
    double stored = (double)since(s, ls, "data_stored_bytes");
    double flash = (double)(st.programs - s->st0.programs) * s->page_size;
    return results_set_kv(s->db, s->run_id, "data_raw_bytes", raw) ||
           results_set_kv(s->db, s->run_id, "data_stored_bytes", stored) ||
           results_set_kv(s->db, s->run_id, "compress_ratio", raw ? stored / raw : 1) ||
           results_set_kv(s->db, s->run_id, "wa_stored", stored ? flash / stored : 0);
}

/* What the plots need to name the device and the workload and to pick
 * the GC models that apply (docs/plots.md): the part's name and size
 * (a config may resize a preset: device.blocks_per_plane), its erase
 * block and the fs's block, whose ratio is the models' Np (fs blocks per
 * segment) unless the kind counts its segments' blocks (segment_blocks),
 * and the measured workload's kind with its hot/cold split as resolved
 * (defaults included). */
static int figure_kv(struct run_state *s)
{
    struct fs_statfs sf;
    /* without it the figures only lack the greedy model: no reason to fail the run */
    int no_fs = s->m.fs.api->statfs(s->m.fs.fs, &sf) != 0;
    const struct nand_geometry *g = &s->r->dev.geo;
    const struct wl_spec *w = &s->r->wl;
    int hotcold = !strcmp(w->kind, "hotcold");
    /* Np as the cleaner sees it, where the kind reports its segments */
    uint64_t cap, segs;
    int np_known = !no_fs && !fsapi_counter(&s->m.fs, "cleanable_bytes", &cap) &&
                   !fsapi_counter(&s->m.fs, "cleanable_segments", &segs) && segs &&
                   sf.block_size;
    return results_set_kv_text(s->db, s->run_id, "device", s->r->dev.name) ||
                   (np_known && results_set_kv(s->db, s->run_id, "segment_blocks",
                                               (double)(cap / segs / sf.block_size))) ||
                   results_set_kv(s->db, s->run_id, "device_bytes", (double)s->capacity) ||
                   results_set_kv(s->db, s->run_id, "erase_block_bytes",
                                  (double)g->page_size * g->pages_per_block) ||
                   (!no_fs && results_set_kv(s->db, s->run_id, "fs_block_bytes", sf.block_size)) ||
                   results_set_kv_text(s->db, s->run_id, "workload", w->kind) ||
                   (hotcold && (results_set_kv(s->db, s->run_id, "hot_writes", w->hot_writes) ||
                                results_set_kv(s->db, s->run_id, "hot_data", w->hot_data)))
               ? db_fail(s)
               : 0;
}

/* The run's utilisation (the mean of its samples') and steady-state WA
 * with the warm-up rule that found it (docs/validation.md). */
static int steady_kv(struct run_state *s)
{
    struct nand_stats st;
    struct fs_counts ls;
    nand_get_stats(s->dev, &st);
    fs_stats(s, &ls);
    struct wa_point end = point_now(s, &ls, &st);
    struct wa_steady w;
    if (s->r->has_age)
        wa_steady_after_age(&s->origin, &end, &w);
    else
        wa_steady_windows(s->bound, s->nbound, &end, &w);
    struct results *db = s->db;
    int64_t id = s->run_id;
    uint64_t segs;
    return (s->u_n && results_set_kv(db, id, "utilisation", s->u_sum / (double)s->u_n)) ||
           (!fsapi_counter(&s->m.fs, "cleanable_segments", &segs) &&
            results_set_kv(db, id, "cleanable_segments", (double)segs)) ||
           results_set_kv_text(db, id, "warmup_rule",
                               s->r->has_age ? WA_STEADY_RULE_AGE : WA_STEADY_RULE_WINDOWS) ||
           results_set_kv(db, id, "window_bytes", (double)s->window_bytes) ||
           results_set_kv(db, id, "steady_reached", w.reached) ||
           (w.reached && results_set_kv(db, id, "warmup_windows", (double)w.warmup)) ||
           (!isnan(w.wa) && results_set_kv(db, id, "wa_steady", w.wa)) ||
           (!isnan(w.wa_total) && results_set_kv(db, id, "wa_total_steady", w.wa_total));
}

static int finish(struct run_state *s, const char *reason)
{
    s->measuring = 0;
    if (s->gc_db_failed)
        return db_fail(s);
    struct fs_counts ls;
    fs_stats(s, &ls);
    if (take_sample(s) || erase_snapshot(s) || write_latency(s) || figure_kv(s))
        return -1;
    if (steady_kv(s))
        return db_fail(s);
    if (results_set_kv_text(s->db, s->run_id, "stop_reason", reason) ||
        results_set_kv(s->db, s->run_id, "host_bytes", (double)s->host) ||
        results_set_kv(s->db, s->run_id, "ops", (double)s->ops) ||
        results_set_kv(s->db, s->run_id, "wl_moves", (double)since(s, &ls, "wl_moves")) ||
        /* lifetimes of accelerated devices must say so */
        results_set_kv(s->db, s->run_id, "endurance_scale", s->r->dev.endurance_scale) ||
        results_set_kv(s->db, s->run_id, "endurance", (double)s->r->dev.endurance) ||
        (!strcmp(reason, "wear-out") &&
         results_set_kv(s->db, s->run_id, "lifetime_host_bytes", (double)s->host)) ||
        compression_kv(s, &ls))
        return db_fail(s);
    if (s->r->ret.present) /* months of retention: does it still mount? */
        return exp_retention_remount(s->r, s->dev, &s->m, s->db, s->run_id, s->err, s->errlen);
    return measure_mounts(s);
}

int exp_runner_run(const struct exp_run *r, struct results *db, int64_t run_id,
               const struct exp_progress *progress, char *err, size_t errlen)
{
    struct run_state s = {
        .r = r, .db = db, .run_id = run_id, .progress = progress,
        .err = err, .errlen = errlen,
    };
    int rc = nand_create(&r->dev, &s.dev);
    if (rc) {
        snprintf(err, errlen, "device: %s", nand_strerror(rc));
        return -1;
    }
    s.capacity = nand_capacity_bytes(&r->dev);
    s.page_size = r->dev.geo.page_size;
    const char *reason = "stop";
    char derr[512];
    if (fsapi_check_device(r->fs_api, s.dev, r->fs_options, derr, sizeof derr)) {
        snprintf(err, errlen, "fs: %s", derr);
        rc = -1;
    } else if ((rc = exp_run_mkfs(r, s.dev))) {
        fail(&s, "mkfs", rc);
    } else if ((rc = exp_run_mount(s.r, s.dev, &s.m))) {
        fail(&s, "mount", rc);
    } else {
        fsapi_set_gc_observer(&s.m.fs, on_gc, &s); /* -ENOTSUP: no cleaner events */
        const char *age_reason;
        rc = r->has_age ? run_phase(&s, &r->age, &r->age_stop, rng_mix(r->seed ^ 0x616765u), 0,
                                    &age_reason) : 0;
        if (!rc)
            rc = run_phase(&s, &r->wl, &r->stop, r->seed, 1, &reason);
        if (!rc && r->ret.present)
            rc = exp_retention_run(r, s.dev, &s.m, db, run_id, err, errlen);
        if (!rc)
            rc = finish(&s, reason);
    }
    exp_run_unmount(&s.m);
    nand_close(s.dev);
    free(s.bound);
    return rc ? -1 : 0;
}

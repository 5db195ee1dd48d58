/* mount_stats.c -- the text of /.flashlab-stats, and the trace recorder of
 * `flashlab mount`.  The stats text is "key value" lines, one counter a
 * line, so that scripts can pick a key with awk or `flashlab stats MNT KEY`. */
#include "mount_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct buf {
    char *p;
    size_t len, cap;
    int nomem;
};

static void put(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = b->nomem ? 0 : vsnprintf(b->p + b->len, room, fmt, ap);
        va_end(ap);
        if (b->nomem || n < 0)
            return;
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = 2 * b->cap + (size_t)n + 1;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->nomem = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
}

#define U(key, v) put(&b, "%s %" PRIu64 "\n", key, (uint64_t)(v))

char *mnt_stats_text(struct mnt *m, size_t *len)
{
    struct buf b = {malloc(4096), 0, 4096, 0};
    if (!b.p)
        return NULL;
    struct fsapi_counter fc[FSAPI_COUNTERS_MAX];
    size_t nc = fsapi_stats(&m->fs, fc, FSAPI_COUNTERS_MAX);
    struct nand_stats ns;
    struct fs_statfs sf = {0};
    nand_get_stats(m->dev, &ns);
    int sfrc = MNT_CALL(m, statfs, &sf);
    nand_time_t now = nand_now(m->dev);

    put(&b, "flashlab-stats 1\n");
    put(&b, "image %s\n", m->image);
    put(&b, "mountpoint %s\n", m->mountpoint);
    put(&b, "fs_kind %s\n", m->fs.api->name);
    put(&b, "fs_options %s\n", *m->fs_opts ? m->fs_opts : "-");
    U("sim_time_ns", now);
    U("mounted_ns", now - m->t0);
    U("powered", nand_is_powered(m->dev));
    U("readonly", m->readonly || m->started_ro);
    U("fs_readonly", m->readonly);
    U("block", m->block);
    U("io_flusher", m->io_flusher);
    if (m->cut.random) { /* what reproduces the cut: seed and age */
        put(&b, "powercut random\n");
        U("powercut.seed", m->cut.seed);
        U("powercut.mean_ops", m->cut.mean_ops);
        U("powercut.age", m->cut.age);
        U("powercut.after_ops", m->cut.after_ops);
    }

    /* the fs's own counters, whatever its kind keeps */
    for (size_t i = 0; i < nc; i++) {
        put(&b, "fs.%s %" PRIu64 "\n", fc[i].name, fc[i].value);
        if (!strcmp(fc[i].name, "host_bytes"))
            U("fs.host_bytes_mount", fc[i].value - m->host0);
    }

    if (!sfrc) {
        U("space.block_size", sf.block_size);
        U("space.total_bytes", sf.total_bytes);
        U("space.free_bytes", sf.free_bytes);
        U("space.files", sf.files);
    }

    U("nand.reads", ns.reads);
    U("nand.programs", ns.programs);
    U("nand.erases", ns.erases);
    U("nand.bytes_read", ns.bytes_read);
    U("nand.bytes_written", ns.bytes_written);
    U("nand.bits_corrected", ns.bits_corrected);
    U("nand.ecc_failures", ns.ecc_failures);
    U("nand.uncorrectable_reads", ns.uncorrectable_reads);
    U("nand.program_fails", ns.program_fails);
    U("nand.erase_fails", ns.erase_fails);
    U("nand.violations", ns.violations_not_erased + ns.violations_order +
                             ns.violations_nop + ns.violations_addr);
    U("nand.power_cuts", ns.power_cuts);
    U("nand.torn_programs", ns.torn_programs);
    U("nand.torn_erases", ns.torn_erases);
    U("nand.state_ops", ns.state_ops);
    U("nand.pages_stored", ns.pages_stored);
    U("nand.busy_ns", ns.busy_ns);
    const struct nand_config *cfg = nand_get_config(m->dev);
    U("nand.page_size", cfg->geo.page_size);
    /* an accelerated part's wear must not pass for a real one's */
    put(&b, "nand.endurance_scale %.15g\n", cfg->endurance_scale);
    U("nand.endurance", cfg->endurance);

    /* wear: the erase counts of the good blocks */
    uint64_t nb = nand_blocks(cfg), good = 0, wmin = UINT64_MAX, wmax = 0, wsum = 0;
    for (uint64_t blk = 0; blk < nb; blk++) {
        struct nand_block_info bi;
        if (nand_block_info(m->dev, (nand_block_t)blk, &bi) || bi.factory_bad ||
            bi.grown_bad || bi.marked_bad)
            continue;
        good++;
        wsum += bi.pe_cycles;
        wmin = bi.pe_cycles < wmin ? bi.pe_cycles : wmin;
        wmax = bi.pe_cycles > wmax ? bi.pe_cycles : wmax;
    }
    U("wear.good_blocks", good);
    U("wear.bad_blocks", nb - good);
    U("wear.erases_min", good ? wmin : 0);
    put(&b, "wear.erases_mean %.2f\n", good ? (double)wsum / (double)good : 0.0);
    U("wear.erases_max", wmax);

    static const char *const kinds[FS_OP_KINDS] = {"read", "write", "sync", "meta"};
    for (int k = 0; k < FS_OP_KINDS; k++) {
        struct fs_latency l;
        if (fsapi_latency(&m->fs, k, &l))
            continue;
        put(&b, "latency.%s.count %" PRIu64 "\n", kinds[k], l.count);
        put(&b, "latency.%s.mean_ns %.0f\n", kinds[k], l.mean_ns);
        put(&b, "latency.%s.p50_ns %" PRIu64 "\n", kinds[k], l.p50_ns);
        put(&b, "latency.%s.p99_ns %" PRIu64 "\n", kinds[k], l.p99_ns);
        put(&b, "latency.%s.p999_ns %" PRIu64 "\n", kinds[k], l.p999_ns);
        put(&b, "latency.%s.max_ns %" PRIu64 "\n", kinds[k], l.max_ns);
    }

    U("mount.fuse_ops", m->fuse_ops);
    U("mount.errors", m->errors);
    U("mount.eio", m->eio);
    U("mount.lock_wait_ns", m->lock_wait_ns);
    U("mount.lock_held_ns", m->lock_held_ns);
    U("mount.trace_records", m->trace_records);
    U("mount.trace_dropped", m->trace_dropped);
    if (b.nomem) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

uint32_t mnt_trace_flags(int oflags)
{
    int acc = oflags & O_ACCMODE;
    uint32_t f = 0;
    if (acc == O_RDONLY || acc == O_RDWR)
        f |= TRACE_F_READ;
    if (acc == O_WRONLY || acc == O_RDWR)
        f |= TRACE_F_WRITE;
    if (oflags & O_APPEND)
        f |= TRACE_F_APPEND;
    if (oflags & O_CREAT)
        f |= TRACE_F_CREAT;
    if (oflags & O_EXCL)
        f |= TRACE_F_EXCL;
    if (oflags & O_TRUNC)
        f |= TRACE_F_TRUNC;
    if ((oflags & O_SYNC) == O_SYNC)
        f |= TRACE_F_SYNC;
    return f;
}

void mnt_trace(struct mnt *m, const struct trace_rec *r)
{
    if (!m->trace || m->trace_failed)
        return;
    struct trace_rec rec = *r;
    rec.time_ns = m->op_start - m->t0;
    /* an op on an unlinked open file, or an O_TMPFILE's, has no name to
     * record */
    int rc = rec.path && *rec.path && !mnt_tmp_hidden(rec.path) &&
                     !mnt_tmp_hidden(rec.path2)
                 ? trace_write_fsop(m->trace, &rec)
                 : -EINVAL;
    if (rc == -EIO)
        m->trace_failed = 1; /* a full disk: stop, say so at unmount */
    if (rc)
        m->trace_dropped++;
    else
        m->trace_records++;
}

/*
 * test_lfs_powercut.c -- a power cut at every flash operation of a short
 * workload.  After each cut the device powers on and LogFS must mount
 * without repair to exactly the state after some operation between the
 * last completed sync and the cut (never older than that sync, never a
 * mixture: a renamed file is under one name), and must go on working.
 */
#include "fixture.h"
#include "fsck.h"
#include "fsdigest.h"
#include "logfs/logfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#define MAXCALLS 4096

/* The whole visible state of the fs (workloads/fsdigest.c: every path,
 * its type and mode, links, size and a hash of its content); 0 if it
 * could not be read.  text (may be NULL) gets the state as text. */
static int digest_fs(logfs *fs, uint64_t *h, char **text)
{
    struct fsapi_fs f = {&fsapi_logfs, fs};
    int rc = wl_fs_digest(&f, h, text);
    if (rc)
        fprintf(stderr, "digest: %d\n", rc);
    return rc == 0;
}

/* The workload, one file-system call at a time.  Calls are numbered as
 * they complete; the fs commits only between calls, so its commit points
 * are states after some call.  Stops after `stop` calls or when the power
 * goes; returns the number of calls completed before the one that lost
 * power (or `stop`), and the number completed by the last sync that did. */
struct wl {
    logfs *fs;
    nand_dev *dev;
    int done, stop, last_sync, cut;
    uint64_t *record; /* if set: the state after every call */
    char *record_ok;  /* ... and whether it could be read */
};

/* After each call: 1 if the workload must stop. */
static int next(struct wl *w, int is_sync, int rc)
{
    if (!nand_is_powered(w->dev)) {
        w->cut = 1; /* this call may or may not have reached flash */
        return 1;
    }
    w->done++;
    if (is_sync && rc == 0)
        w->last_sync = w->done;
    /* the digest only reads: read-only calls never write flash, so the
     * reference run does the same flash operations as the cut runs */
    if (w->record && w->done <= MAXCALLS)
        w->record_ok[w->done] = (char)digest_fs(w->fs, &w->record[w->done], NULL);
    return w->done >= w->stop;
}

#define CALL(w, is_sync, expr)                                               \
    do {                                                                     \
        int rc_ = (int)(expr);                                               \
        last_rc = rc_;                                                       \
        if (next(w, is_sync, rc_))                                           \
            return;                                                          \
    } while (0)

/* Set: the workload also changes modes, owners, device nodes and
 * extended attributes (the state format 4 added). */
static int meta_ops;
/* Set: calls 9 and 10 of each round of 16 preallocate (mode 0, then
 * KEEP_SIZE and a write into part of it), and every recovered image must
 * also pass fsck (block counts, live_bytes with the reservations). */
static int prealloc_ops;
/* Set: a device of that many dies (blocks split among them), LogFS
 * mounted with parallel = that many: queued programs in flight at cuts. */
static uint32_t par_dies;

/* One of those: slot k of call i, on the file slot 1 of its round of 16
 * wrote. */
static int meta_call(struct wl *w, int k, int i, const uint8_t *buf)
{
    char name[32], node[64], a[64];
    int base = i - k + 1;
    snprintf(a, sizeof a, "/d%d/f%d", base % 3, base % 7);
    snprintf(name, sizeof name, "user.k%d", base % 4);
    switch (k) {
    case 2: return logfs_chmod(w->fs, a, 0600 | (uint32_t)(i % 8) << 3);
    case 3: return logfs_chown(w->fs, a, (uint32_t)(i % 5), (uint32_t)(i % 3));
    case 4: return logfs_setxattr(w->fs, a, name, buf, (uint64_t)(i * 131) % 3000, 0);
    case 10: return logfs_removexattr(w->fs, a, name);
    default:
        snprintf(node, sizeof node, "/d%d/n%d", i % 3, i % 4);
        return logfs_mknod(w->fs, node, (i % 2 ? S_IFIFO : S_IFCHR) | 0644,
                           (uint64_t)i << 8 | 1);
    }
}

static void workload(struct wl *w, int ops)
{
    uint8_t buf[6000];
    int last_rc = 0;
    w->done = 0;
    w->last_sync = 0;
    w->cut = 0;
    for (int i = 0; i < ops; i++) {
        char a[64], b[64];
        int k = i % 16;
        snprintf(a, sizeof a, "/d%d/f%d", i % 3, i % 7);
        snprintf(b, sizeof b, "/d%d/g%d", (i + 1) % 3, i % 5);
        for (size_t j = 0; j < sizeof buf; j++)
            buf[j] = (uint8_t)(i * 31 + j);
        if (k == 0 || k == 8) {
            char dn[16];
            snprintf(dn, sizeof dn, "/d%d", (i / 8) % 3);
            CALL(w, 0, logfs_mkdir(w->fs, dn, 0755));
        } else if (meta_ops && (k == 2 || k == 3 || k == 4 || k == 9 || k == 10)) {
            CALL(w, 0, meta_call(w, k, i, buf));
        } else if (prealloc_ops && (k == 9 || k == 10)) {
            CALL(w, 0, logfs_open(w->fs, a, O_WRONLY | O_CREAT, 0644));
            int fd = last_rc;
            uint64_t off = (uint64_t)(i % 4) * 3000, len = 2000 + (uint64_t)(i * 397) % 6000;
            if (fd >= 0) {
                CALL(w, 0, logfs_allocate(w->fs, fd, off, len, k == 10 ? FS_ALLOC_KEEP_SIZE : 0));
                if (k == 10)
                    CALL(w, 0, logfs_pwrite(w->fs, fd, buf, len / 2, off + 100));
                CALL(w, 0, logfs_close(w->fs, fd));
            }
        } else if (k < 5 || k == 9 || k == 10) {
            CALL(w, 0, logfs_open(w->fs, a, O_WRONLY | O_CREAT, 0644));
            int fd = last_rc;
            if (fd >= 0) {
                CALL(w, 0, logfs_pwrite(w->fs, fd, buf, 1000 + (uint64_t)(i * 397) % 5000,
                                        (uint64_t)(i % 4) * 3000));
                CALL(w, 0, logfs_close(w->fs, fd));
            }
        } else if (k == 5 || k == 11) {
            CALL(w, 0, logfs_rename(w->fs, a, b));
        } else if (k == 6) {
            CALL(w, 0, logfs_link(w->fs, a, b));
        } else if (k == 12) {
            CALL(w, 0, logfs_unlink(w->fs, b));
        } else if (k == 13) {
            CALL(w, 0, logfs_truncate(w->fs, a, 1234));
        } else {
            CALL(w, 1, logfs_sync(w->fs));
        }
    }
    w->stop = w->done; /* ran to the end */
}

/* Run the workload once per cut point (every stride-th flash operation)
 * and check each outcome.  pair > 0: an MLC part whose torn upper-page
 * programs also damage the lower page pair pages before. */
static void campaign(uint32_t blocks, int ops, uint64_t stride, int want_reuse,
                     uint32_t pair)
{
    uint32_t dies = par_dies ? par_dies : 1;
    nand_dev *d = FX_DEVICE(.blocks = blocks / dies, .dies = dies, .pages = 16, .bad = 0.02,
                            .seed = 3, .pair = pair);
    REQUIRE(d != NULL);
    struct logfs_options opt = {.block_size = 1024, .dirty_bytes = 16 << 10,
                                .parallel = par_dies};
    REQUIRE(logfs_mkfs(d, &opt) == 0);
    nand_snapshot *start;
    REQUIRE(nand_snapshot_take(d, &start) == 0);

    /* the reference run: the state after every call */
    static uint64_t after[MAXCALLS + 1];
    static char after_ok[MAXCALLS + 1];
    memset(after_ok, 0, sizeof after_ok);
    logfs *fs;
    REQUIRE(logfs_mount(d, &opt, &fs) == 0);
    REQUIRE((after_ok[0] = (char)digest_fs(fs, &after[0], NULL)));
    struct wl w = {.fs = fs, .dev = d, .stop = 1 << 30, .record = after, .record_ok = after_ok};
    struct nand_stats s0, s1;
    nand_get_stats(d, &s0);
    workload(&w, ops);
    nand_get_stats(d, &s1);
    int ncalls = w.done;
    REQUIRE(ncalls <= MAXCALLS);
    for (int n = 0; n <= ncalls; n++)
        REQUIRE(after_ok[n]);
    REQUIRE(logfs_unmount(fs) == 0);

    int checked = 0, bad = 0;
    uint64_t total = 0, paired = 0, torn_more = 0;
    for (uint64_t cut = 0;; cut += stride) {
        REQUIRE(nand_snapshot_restore(d, start) == 0);
        REQUIRE(logfs_mount(d, &opt, &fs) == 0);
        nand_cut_after_ops(d, cut, -1.0);
        w = (struct wl){.fs = fs, .dev = d, .stop = 1 << 30};
        struct nand_stats p0, p1;
        nand_get_stats(d, &p0);
        workload(&w, ops);
        nand_get_stats(d, &p1);
        paired += p1.paired_corruptions - p0.paired_corruptions;
        uint64_t torn = p1.torn_programs + p1.torn_erases - p0.torn_programs - p0.torn_erases;
        torn_more += torn > 1 ? torn - 1 : 0; /* queued ones torn with the counted one */
        nand_cut_disarm(d);
        REQUIRE(w.cut || w.done == ncalls); /* the same calls as the reference */
        logfs_unmount(fs); /* fails when the power is off; frees the fs */
        if (!w.cut) { /* the cut point lies beyond the workload */
            total = cut;
            break;
        }
        nand_power_on(d);
        struct fsck_report fr;
        if (prealloc_ops && fsck_run(d, 0, &fr) != FSCK_CLEAN) {
            fprintf(stderr, "cut %" PRIu64 ": fsck: %s\n", cut,
                    fr.nmsgs ? fr.msgs[0].text : "not clean");
            bad++;
        }
        if (prealloc_ops)
            fsck_report_free(&fr);
        if (logfs_mount(d, &opt, &fs)) {
            fprintf(stderr, "cut %" PRIu64 ": mount failed\n", cut);
            bad++;
            continue;
        }
        /* allowed: after the last completed sync, up to and including the
         * call that was running when the power went */
        uint64_t got;
        char *text = NULL;
        int got_ok = digest_fs(fs, &got, &text);
        int match = 0;
        for (int j = w.last_sync; got_ok && j <= w.done + 1 && j <= ncalls && !match; j++)
            match = got == after[j];
        if (!match) {
            fprintf(stderr, "cut %" PRIu64 " (during call %d, last sync after %d): state "
                    "matches no commit point\n%s", cut, w.done + 1, w.last_sync,
                    text ? text : "(unreadable)\n");
            bad++;
        }
        /* and it goes on working */
        int fd = logfs_open(fs, "/after-cut", O_WRONLY | O_CREAT, 0644);
        int ok = fd >= 0 && logfs_write(fs, fd, "x", 1) == 1 && logfs_close(fs, fd) == 0;
        ok = logfs_unmount(fs) == 0 && ok; /* frees fs, even when it fails */
        fs = NULL;
        ok = ok && logfs_mount(d, &opt, &fs) == 0;
        struct fs_stat sst;
        ok = ok && logfs_stat(fs, "/after-cut", &sst) == 0 && sst.size == 1;
        if (!ok) {
            fprintf(stderr, "cut %" PRIu64 ": fs does not go on working\n", cut);
            bad++;
        }
        if (fs)
            logfs_unmount(fs);
        free(text);
        checked++;
    }
    fprintf(stderr, "power cuts: %d checked (%" PRIu64 " flash operations, %d calls, %"
            PRIu64 " erases, %" PRIu64 " lower pages damaged, %" PRIu64 " more torn in flight), "
            "%d bad\n", checked, total, ncalls, s1.erases - s0.erases, paired, torn_more, bad);
    CHECK_EQ_INT(bad, 0);
    CHECK(checked > 100);
    /* the paired campaigns must really tear upper pages over data */
    if (pair)
        CHECK(paired > 0);
    /* the parallel campaigns must really cut queued programs in flight */
    if (par_dies)
        CHECK(torn_more > 0);
    /* the reuse campaign must really erase segments it wrote before */
    if (want_reuse)
        CHECK(s1.erases - s0.erases > blocks);
    nand_snapshot_free(start);
    nand_close(d);
}

TEST(cut_at_every_operation)
{
    campaign(96, 80, 1, 0, 0);
}

/* A small device overwritten until the cleaner reuses segments: cut at
 * every third flash operation, so that cuts land in cleaning too. */
/* The same with chmod, chown, mknod and xattr set/remove in the mix: the
 * digest covers modes, owners, devices and attributes. */
TEST(cut_at_every_operation_metadata)
{
    meta_ops = 1;
    campaign(96, 96, 1, 0, 0);
    meta_ops = 0;
}

/* The same with fallocate (both modes) and writes into what it
 * allocated: each cut leaves the state before or after a call, fsck clean. */
TEST(cut_at_every_operation_prealloc)
{
    prealloc_ops = 1;
    campaign(96, 96, 1, 0, 0);
    prealloc_ops = 0;
}

TEST(cut_during_cleaning)
{
    campaign(64, test_long() ? 2000 : 700, test_long() ? 1 : 7, 1, 0);
}

/* MLC: a torn upper page damages its lower page, which may hold data an
 * earlier sync made durable, or the anchor record that starts a ring
 * block.  Distance 2 as configs/devices/mlc-2g.yaml; distance 3 leaves
 * the last pages of a 16-page block without upper pages. */
TEST(cut_with_paired_pages)
{
    campaign(96, 80, 1, 0, 2);
    campaign(96, 80, 1, 0, 3);
}

/* ... and with the cleaner reusing segments. */
TEST(cut_with_paired_pages_during_cleaning)
{
    campaign(64, test_long() ? 2000 : 700, test_long() ? 1 : 7, 1, 2);
}

/* Four dies, the data area on all four through the queue: a cut tears
 * every program in flight on them (sim/inflight.c), and the state must
 * still be that of a call after the last sync. */
TEST(cut_with_parallel_dies)
{
    par_dies = 4;
    campaign(96, 80, 1, 0, 0);
    campaign(64, test_long() ? 2000 : 700, test_long() ? 1 : 7, 1, 0);
    campaign(96, 80, 1, 0, 2);
    par_dies = 0;
}

/* Pairs of adjacent pages would put each anchor record on the lower page
 * of the next: LogFS refuses such parts rather than lose commits. */
TEST(adjacent_pairs_refused)
{
    nand_dev *d = FX_DEVICE(.blocks = 64, .pages = 16, .seed = 1, .pair = 1);
    REQUIRE(d != NULL);
    CHECK_EQ_INT(logfs_mkfs(d, NULL), -EINVAL);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(cut_at_every_operation);
    RUN(cut_at_every_operation_metadata);
    RUN(cut_at_every_operation_prealloc);
    RUN(cut_during_cleaning);
    RUN(cut_with_paired_pages);
    RUN(cut_with_paired_pages_during_cleaning);
    RUN(cut_with_parallel_dies);
    RUN(adjacent_pairs_refused);
    return test_summary(argv[0]);
}

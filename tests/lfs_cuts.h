/*
 * lfs_cuts.h -- a power cut at every flash operation of one step on LogFS,
 * for the tests that a call is one step (test_lfs_rename2.c,
 * test_lfs_tmpfile.c, test_lfs_chattr.c): the step runs once uncut, which gives the digest
 * (fsdigest.h) of the state before it and after it; then, from the same
 * image each time, once per flash operation with the power cut after it.
 * Every cut image must be clean under fsck, mount, and be in the state
 * before or the state after, and both must occur.
 */
#ifndef FLASHLAB_TESTS_LFS_CUTS_H
#define FLASHLAB_TESTS_LFS_CUTS_H

#include "fixture.h"
#include "fsapi.h"
#include "fsck.h"
#include "fsdigest.h"

#include <inttypes.h>

/* The step: 0, or a negative errno (expected only when cut). */
typedef int (*lfs_cut_step)(const struct fsapi_fs *m, void *ctx);
/* What a digest does not show of the state before (after 0) or after
 * (after 1) the step: 1 when m holds it.  NULL: nothing more. */
typedef int (*lfs_cut_check)(const struct fsapi_fs *m, int after, void *ctx);

static inline struct fsapi_fs lfs_cut_mount(nand_dev *d)
{
    struct fsapi_fs m = {&fsapi_logfs, NULL};
    if (fsapi_logfs.mount(d, NULL, &m.fs))
        m.fs = NULL;
    return m;
}

/* d: an unmounted LogFS image, left as it was.  what names the step in
 * the line of counts printed. */
static inline void lfs_cut_every_op(nand_dev *d, const char *what, lfs_cut_step step,
                                    lfs_cut_check check, void *ctx)
{
    nand_snapshot *snap;
    REQUIRE(nand_snapshot_take(d, &snap) == 0);
    uint64_t before, after, got;
    struct fsapi_fs m = lfs_cut_mount(d);
    REQUIRE(m.fs && wl_fs_digest(&m, &before, NULL) == 0);
    REQUIRE(!check || check(&m, 0, ctx));
    REQUIRE(step(&m, ctx) == 0);
    /* a step the digest does not see (a file's flags) needs a check */
    REQUIRE(wl_fs_digest(&m, &after, NULL) == 0 && (after != before || check));
    REQUIRE(!check || check(&m, 1, ctx));
    REQUIRE(m.api->unmount(m.fs) == 0);
    int n_before = 0, n_after = 0, bad = 0;
    for (uint64_t cut = 0;; cut++) {
        REQUIRE(nand_snapshot_restore(d, snap) == 0);
        m = lfs_cut_mount(d);
        REQUIRE(m.fs);
        nand_cut_after_ops(d, cut, -1.0);
        int rc = step(&m, ctx);
        int was_cut = !nand_is_powered(d);
        nand_cut_disarm(d);
        m.api->unmount(m.fs); /* fails when the power is off; frees the fs */
        if (!was_cut) {
            CHECK_EQ_INT(rc, 0);
            break;
        }
        nand_power_on(d);
        char msg[256];
        if (fsck_verdict(d, msg, sizeof msg)) {
            fprintf(stderr, "cut %" PRIu64 ": fsck: %s\n", cut, msg);
            bad++;
        }
        m = lfs_cut_mount(d);
        if (!m.fs || wl_fs_digest(&m, &got, NULL)) {
            fprintf(stderr, "cut %" PRIu64 ": does not mount or read\n", cut);
            bad++;
        } else if (got == before && (!check || check(&m, 0, ctx))) {
            n_before++;
        } else if (got == after && (!check || check(&m, 1, ctx))) {
            n_after++;
        } else {
            fprintf(stderr, "cut %" PRIu64 ": neither the state before nor after\n", cut);
            bad++;
        }
        if (m.fs)
            m.api->unmount(m.fs);
    }
    fprintf(stderr, "%s: %d cuts before, %d after, %d bad\n", what, n_before, n_after, bad);
    CHECK_EQ_INT(bad, 0);
    CHECK(n_before > 0 && n_after > 0);
    REQUIRE(nand_snapshot_restore(d, snap) == 0);
    nand_snapshot_free(snap);
}

#endif

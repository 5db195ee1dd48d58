/*
 * lfs_fixture.h -- a fresh LogFS on a device built in code, for the LogFS
 * tests: the device's options are fixture.h's (struct fx_dev, with its
 * defaults), the file system is made, and mounted, with LogFS's default
 * options.  A test that needs other LogFS options calls logfs_mkfs itself.
 * And the file system's counters as a value (lfs_fx_stats), and fsck's
 * strictest verdict on an image (lfs_fx_fsck_clean).
 */
#ifndef FLASHLAB_TESTS_LFS_FIXTURE_H
#define FLASHLAB_TESTS_LFS_FIXTURE_H

#include "fixture.h"
#include "fsck.h"
#include "logfs/logfs.h"

/* A device with options o holding a fresh LogFS, unmounted; or NULL. */
static inline nand_dev *lfs_fx_device(const struct fx_dev *o)
{
    nand_dev *d = fx_device(o);
    if (d && logfs_mkfs(d, NULL)) {
        nand_close(d);
        return NULL;
    }
    return d;
}

/* LFS_FX_DEVICE(.blocks = 128, .pages = 64, .seed = 8): the same. */
#define LFS_FX_DEVICE(...) lfs_fx_device(&(struct fx_dev){__VA_ARGS__})

/* lfs_fx_device's LogFS, mounted: the file system, its device in *d; or
 * NULL, and *d NULL. */
static inline logfs *lfs_fx_mounted(const struct fx_dev *o, nand_dev **d)
{
    logfs *fs = NULL;
    *d = lfs_fx_device(o);
    if (*d && logfs_mount(*d, NULL, &fs)) {
        nand_close(*d);
        *d = NULL;
        fs = NULL;
    }
    return fs;
}

/* LFS_FX_MOUNTED(&d, .blocks = 96, .pages = 16, .seed = 4): the same. */
#define LFS_FX_MOUNTED(d, ...) lfs_fx_mounted(&(struct fx_dev){__VA_ARGS__}, d)

/* fs's counters, as a value: lfs_fx_stats(fs).commits. */
static inline struct logfs_stats lfs_fx_stats(logfs *fs)
{
    struct logfs_stats s;
    logfs_get_stats(fs, &s);
    return s;
}

/* d's unmounted image is clean under fsck without even a warning (a
 * preallocated block past the end of a file gives one); what fsck says
 * above its notes goes to stderr. */
static inline void lfs_fx_fsck_clean(nand_dev *d)
{
    struct fsck_report r;
    CHECK_EQ_INT(fsck_run(d, 0, &r), FSCK_CLEAN);
    for (size_t i = 0; i < r.nmsgs; i++)
        if (r.msgs[i].severity != FSCK_INFO)
            fprintf(stderr, "fsck: %s\n", r.msgs[i].text);
    CHECK_EQ_INT(r.nwarnings, 0);
    fsck_report_free(&r);
}

#endif

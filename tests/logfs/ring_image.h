/*
 * ring_image.h -- the LogFS anchor-ring image the ring tests share
 * (test_lfs_core.c damages it by hand, test_lfs_corrupt.c with
 * nand_corrupt): a ring of 8 blocks of 16 pages, two mirrors of 4
 * (blocks[0..3] and blocks[4..7], FORMAT.md 6.2), written alike: mkfs's
 * record (seq 1) in logical block 0, one commit per file in logical
 * blocks 1 and 2 (full), and 5 more plus the clean unmount's record in
 * logical block 3 (pages 0..5).  nfiles[seq]: files /f0.. that the commit
 * with that seq holds.
 */
#ifndef FLASHLAB_TEST_RING_IMAGE_H
#define FLASHLAB_TEST_RING_IMAGE_H

#include "fixture.h"
#include "logfs/lfs.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#define RING_COMMITS 37
struct ring_image {
    nand_dev *d;
    nand_snapshot *snap;
    uint32_t blocks[8];    /* mirror 0: 0..3, mirror 1: 4..7 */
    uint32_t nfiles[64];
    uint64_t newest;       /* the seq of the newest record */
};

static void file_text(char *buf, size_t n, int i)
{
    snprintf(buf, n, "file %d, written by commit %d of the ring test", i, i);
}

static int ring_image(struct ring_image *ri)
{
    memset(ri, 0, sizeof *ri);
    ri->d = FX_DEVICE(.blocks = 128, .pages = 16, .quiet = 1, .seed = 5);
    logfs *fs;
    struct logfs_stats st;
    if (!ri->d || logfs_mkfs(ri->d, &(struct logfs_options){.anchor_blocks = 8}) ||
        logfs_mount(ri->d, NULL, &fs))
        return -1;
    if (fs->ring.count != 8)
        return -1;
    memcpy(ri->blocks, fs->ring.blocks, sizeof ri->blocks);
    logfs_get_stats(fs, &st);
    ri->nfiles[st.commits] = 0;
    for (int i = 0; i < RING_COMMITS; i++) {
        char name[16], text[96];
        snprintf(name, sizeof name, "/f%d", i);
        file_text(text, sizeof text, i);
        int fd = logfs_open(fs, name, O_CREAT | O_WRONLY, 0644);
        if (fd < 0 || logfs_write(fs, fd, text, strlen(text)) != (int64_t)strlen(text) ||
            logfs_close(fs, fd) || logfs_sync(fs))
            return -1;
        logfs_get_stats(fs, &st);
        if (st.commits >= 63)
            return -1;
        ri->nfiles[st.commits] = (uint32_t)i + 1;
    }
    if (logfs_unmount(fs))
        return -1;
    ri->newest = st.commits + 1; /* the unmount's record */
    ri->nfiles[ri->newest] = RING_COMMITS;
    return nand_snapshot_take(ri->d, &ri->snap);
}

/* The files of the commit with n files read back right, and /f<n> is not
 * there.  0, or -1. */
static int commit_files_ok(logfs *fs, uint32_t n)
{
    for (uint32_t i = 0; i <= n && i < RING_COMMITS; i++) {
        char name[16], want[96], got[128];
        snprintf(name, sizeof name, "/f%u", i);
        file_text(want, sizeof want, (int)i);
        int fd = logfs_open(fs, name, O_RDONLY, 0);
        if (i == n) {
            if (fd >= 0)
                return -1;
            continue;
        }
        if (fd < 0)
            return -1;
        int64_t len = logfs_read(fs, fd, got, sizeof got);
        logfs_close(fs, fd);
        if (len != (int64_t)strlen(want) || memcmp(got, want, (size_t)len))
            return -1;
    }
    return 0;
}

/* Mount: the seq found and the fallback count, and the files of that
 * commit checked; then unmount and mount again, which finds the newer
 * state the first mount left, with no fallback. */
static int mount_check(struct ring_image *ri, uint64_t *seq, uint64_t *fallback)
{
    logfs *fs;
    struct logfs_stats st;
    if (logfs_mount(ri->d, NULL, &fs))
        return -1;
    logfs_get_stats(fs, &st);
    *seq = st.anchor_seq;
    *fallback = st.anchor_fallback;
    int rc = st.anchor_seq < 64 ? commit_files_ok(fs, ri->nfiles[st.anchor_seq]) : -1;
    uint32_t n = st.anchor_seq < 64 ? ri->nfiles[st.anchor_seq] : 0;
    if (logfs_unmount(fs) || rc)
        return -1;
    if (logfs_mount(ri->d, NULL, &fs))
        return -1;
    logfs_get_stats(fs, &st);
    rc = st.anchor_fallback == 0 && st.anchor_seq > *seq ? commit_files_ok(fs, n) : -1;
    return logfs_unmount(fs) || rc ? -1 : 0;
}

#endif

/*
 * test_lfs_tmpfile.c -- O_TMPFILE through fsapi (LogFS's tmpfile and
 * linkfd): a file with no name takes one later and keeps its data across
 * a remount; one never named is gone after a remount, space and all,
 * whether it was closed or the power went (also past the anchor's orphan
 * list); link(2)'s errors and Linux's I_LINKABLE rule; then a power cut
 * at every flash operation of tmpfile + write + fsync + linkfd + sync:
 * afterwards there is no name or the whole file, and fsck is clean.
 */
#include "fsapi.h"
#include "fsck.h"
#include "lfs_cuts.h"
#include "lfs_fixture.h"
#include "logfs/logfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

/* A fresh LogFS with the directory /d, mounted in *m. */
static nand_dev *start(struct fsapi_fs *m)
{
    nand_dev *d = LFS_FX_DEVICE(.blocks = 96, .pages = 16, .seed = 7);
    *m = d ? lfs_cut_mount(d) : (struct fsapi_fs){0};
    if (!m->fs || m->api->mkdir(m->fs, "/d", 0755) || m->api->sync(m->fs)) {
        if (m->fs)
            m->api->unmount(m->fs);
        nand_close(d);
        return NULL;
    }
    return d;
}

/* Unmount, fsck must find the image clean, close. */
static void finish(nand_dev *d, struct fsapi_fs *m)
{
    CHECK_EQ_INT(m->api->unmount(m->fs), 0);
    char msg[256];
    CHECK_EQ_INT(fsck_verdict(d, msg, sizeof msg), 0);
    nand_close(d);
}

/* Free space once what is dirty is committed (until then the commit's
 * own bytes count as used). */
static uint64_t free_bytes(const struct fsapi_fs *m)
{
    struct fs_statfs sf;
    return m->api->sync(m->fs) || m->api->statfs(m->fs, &sf) ? 0 : sf.free_bytes;
}

/* How many entries readdir lists in dir. */
static int count_one(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    (void)name, (void)ino, (void)type;
    ++*(int *)ctx;
    return 0;
}
static int entries(const struct fsapi_fs *m, const char *dir)
{
    int n = 0;
    uint64_t cookie = 0;
    return m->api->readdir(m->fs, dir, &cookie, count_one, &n) ? -1 : n;
}

#define DATA_LEN 10000
static void fill(uint8_t *buf, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 9));
}

/* Whether path holds exactly the DATA_LEN bytes of fill(seed). */
static int holds(const struct fsapi_fs *m, const char *path, uint64_t seed)
{
    static uint8_t want[DATA_LEN], got[DATA_LEN + 1];
    fill(want, sizeof want, seed);
    int fd = m->api->open(m->fs, path, O_RDONLY, 0);
    int64_t n = fd < 0 ? fd : m->api->pread(m->fs, fd, got, sizeof got, 0);
    if (fd >= 0)
        m->api->close(m->fs, fd);
    return n == DATA_LEN && !memcmp(want, got, DATA_LEN);
}

static int tmp_with_data(const struct fsapi_fs *m, const char *dir, int flags, uint64_t seed)
{
    static uint8_t buf[DATA_LEN];
    fill(buf, sizeof buf, seed);
    int fd = m->api->tmpfile(m->fs, dir, flags, 0640, 1000, 100);
    if (fd >= 0 && m->api->pwrite(m->fs, fd, buf, sizeof buf, 0) != DATA_LEN) {
        m->api->close(m->fs, fd);
        return -EIO;
    }
    return fd;
}

TEST(tmpfile_linked_survives_remount)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    int fd = tmp_with_data(&m, "/d", O_RDWR, 1);
    REQUIRE(fd >= 0);
    struct fs_stat st;
    REQUIRE(m.api->fstat(m.fs, fd, &st) == 0);
    CHECK_EQ_INT(st.nlink, 0);
    CHECK_EQ_INT(st.mode, S_IFREG | 0640);
    CHECK_EQ_INT(st.uid, 1000);
    CHECK_EQ_INT(st.gid, 100);
    CHECK_EQ_INT(st.size, DATA_LEN);
    CHECK_EQ_INT(entries(&m, "/d"), 0); /* no name anywhere */
    REQUIRE(m.api->fsync(m.fs, fd) == 0);
    CHECK_EQ_INT(m.api->linkfd(m.fs, fd, "/d/named"), 0);
    REQUIRE(m.api->fstat(m.fs, fd, &st) == 0);
    CHECK_EQ_INT(st.nlink, 1);
    CHECK_EQ_INT(entries(&m, "/d"), 1);
    CHECK(holds(&m, "/d/named", 1));
    REQUIRE(m.api->close(m.fs, fd) == 0);
    CHECK(holds(&m, "/d/named", 1)); /* the last close keeps a named file */
    REQUIRE(m.api->unmount(m.fs) == 0);
    m = lfs_cut_mount(d);
    REQUIRE(m.fs);
    CHECK(holds(&m, "/d/named", 1));
    CHECK(m.api->lstat(m.fs, "/d/named", &st) == 0 && st.nlink == 1 && st.uid == 1000);
    finish(d, &m);
}

/* Never named: closing it gives its space back at once; a power cut or
 * an unmount with it open leaves an orphan the next mount deletes, and
 * one past the anchor's list of LFS_ORPHAN_MAX (32) too, through the
 * orphan scan.  how: 0 close, 1 power cut, 2 unmount. */
static void never_linked(int files, int how)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    uint64_t free0 = free_bytes(&m);
    int fds[40];
    REQUIRE(files <= 40);
    for (int i = 0; i < files; i++)
        REQUIRE((fds[i] = tmp_with_data(&m, i % 2 ? "/d" : "/", O_WRONLY, (uint64_t)i)) >= 0);
    REQUIRE(m.api->fsync(m.fs, fds[0]) == 0);
    CHECK(free_bytes(&m) < free0);
    if (how) {
        if (how == 1)
            nand_power_cut(d);
        m.api->unmount(m.fs); /* a cut: fails, no power; frees the fs */
        nand_power_on(d);
        char msg[256];
        CHECK_EQ_INT(fsck_verdict(d, msg, sizeof msg), 0); /* orphans are legal */
        m = lfs_cut_mount(d);
        REQUIRE(m.fs);
    } else {
        for (int i = 0; i < files; i++)
            REQUIRE(m.api->close(m.fs, fds[i]) == 0);
        CHECK_EQ_INT(free_bytes(&m), free0);
        REQUIRE(m.api->unmount(m.fs) == 0);
        m = lfs_cut_mount(d);
        REQUIRE(m.fs);
    }
    CHECK_EQ_INT(free_bytes(&m), free0);
    CHECK_EQ_INT(entries(&m, "/"), 1);
    CHECK_EQ_INT(entries(&m, "/d"), 0);
    finish(d, &m);
}

TEST(tmpfile_closed_unlinked_is_gone) { never_linked(3, 0); }
TEST(tmpfile_power_cut_unlinked_is_gone) { never_linked(3, 1); }
TEST(tmpfile_power_cut_past_orphan_list) { never_linked(40, 1); }
TEST(tmpfile_unmounted_open_past_orphan_list) { never_linked(40, 2); }

TEST(tmpfile_refused_as_linux_does)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    CHECK_EQ_INT(m.api->tmpfile(m.fs, "/d", O_RDONLY, 0600, 0, 0), -EINVAL);
    CHECK_EQ_INT(m.api->tmpfile(m.fs, "/nodir", O_RDWR, 0600, 0, 0), -ENOENT);
    int fd = m.api->open(m.fs, "/f", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(m.api->tmpfile(m.fs, "/f", O_RDWR, 0600, 0, 0), -ENOTDIR);
    /* linkfd of a named file: one more name, as linkat AT_EMPTY_PATH */
    CHECK_EQ_INT(m.api->linkfd(m.fs, fd, "/f2"), 0);
    struct fs_stat st;
    CHECK(m.api->fstat(m.fs, fd, &st) == 0 && st.nlink == 2);
    /* unlinked while open: no new name (ENOENT, as Linux) */
    REQUIRE(m.api->unlink(m.fs, "/f") == 0 && m.api->unlink(m.fs, "/f2") == 0);
    CHECK_EQ_INT(m.api->linkfd(m.fs, fd, "/f3"), -ENOENT);
    REQUIRE(m.api->close(m.fs, fd) == 0);
    CHECK_EQ_INT(m.api->linkfd(m.fs, fd, "/f3"), -EBADF);

    int t = m.api->tmpfile(m.fs, "/d", O_RDWR, 0600, 0, 0);
    REQUIRE(t >= 0);
    CHECK_EQ_INT(m.api->linkfd(m.fs, t, "/d"), -EEXIST);
    CHECK_EQ_INT(m.api->linkfd(m.fs, t, "/nodir/x"), -ENOENT);
    CHECK(m.api->fstat(m.fs, t, &st) == 0 && st.nlink == 0); /* still an orphan */
    CHECK_EQ_INT(m.api->linkfd(m.fs, t, "/d/t"), 0);
    /* named, unnamed again: never linkable again (I_LINKABLE is gone) */
    REQUIRE(m.api->unlink(m.fs, "/d/t") == 0);
    CHECK_EQ_INT(m.api->linkfd(m.fs, t, "/d/t2"), -ENOENT);
    REQUIRE(m.api->close(m.fs, t) == 0);

    /* O_EXCL: never linkable */
    t = m.api->tmpfile(m.fs, "/d", O_RDWR | O_EXCL, 0600, 0, 0);
    REQUIRE(t >= 0);
    CHECK_EQ_INT(m.api->linkfd(m.fs, t, "/d/x"), -ENOENT);
    REQUIRE(m.api->close(m.fs, t) == 0);
    CHECK_EQ_INT(entries(&m, "/d"), 0);
    CHECK_EQ_INT(entries(&m, "/"), 1);

    /* a set-group-ID directory gives its group, as create does */
    REQUIRE(fsapi_chown(&m, "/d", 0, 55, 1) == 0 && fsapi_chmod(&m, "/d", 02775) == 0);
    t = m.api->tmpfile(m.fs, "/d", O_RDWR, 0600, 1000, 100);
    REQUIRE(t >= 0);
    CHECK(m.api->fstat(m.fs, t, &st) == 0 && st.uid == 1000 && st.gid == 55);
    REQUIRE(m.api->close(m.fs, t) == 0);
    finish(d, &m);
}

TEST(tmpfile_read_only_mount)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    REQUIRE(m.api->unmount(m.fs) == 0);
    m.fs = NULL;
    REQUIRE(fsapi_logfs.mount(d, "readonly=1", &m.fs) == 0);
    CHECK_EQ_INT(m.api->tmpfile(m.fs, "/d", O_RDWR, 0600, 0, 0), -EROFS);
    finish(d, &m);
}

/* tmpfile, write, fsync, linkfd and sync; 0 or the first error. */
static int tmp_and_link(const struct fsapi_fs *m)
{
    int fd = tmp_with_data(m, "/d", O_RDWR, 9);
    int rc = fd < 0 ? fd : m->api->fsync(m->fs, fd);
    if (!rc)
        rc = m->api->linkfd(m->fs, fd, "/d/t");
    if (!rc)
        rc = m->api->sync(m->fs);
    return rc;
}

/* The states before and after tmp_and_link beyond their digests: before,
 * the space is free again (the orphan deleted); after, /d/t holds the
 * whole file. */
static int tmp_state(const struct fsapi_fs *m, int after, void *ctx)
{
    const uint64_t *free0 = ctx;
    return after ? holds(m, "/d/t", 9) : free_bytes(m) == *free0;
}

static int tmp_step(const struct fsapi_fs *m, void *ctx)
{
    (void)ctx;
    return tmp_and_link(m);
}

/* A power cut at every flash operation of tmp_and_link: no name (and the
 * space free again) or the whole file under its name (lfs_cuts.h). */
TEST(tmpfile_cut_at_every_operation)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    uint64_t free0 = free_bytes(&m);
    REQUIRE(m.api->unmount(m.fs) == 0);
    lfs_cut_every_op(d, "tmpfile, write, fsync, linkfd, sync", tmp_step, tmp_state, &free0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(tmpfile_linked_survives_remount);
    RUN(tmpfile_closed_unlinked_is_gone);
    RUN(tmpfile_power_cut_unlinked_is_gone);
    RUN(tmpfile_power_cut_past_orphan_list);
    RUN(tmpfile_unmounted_open_past_orphan_list);
    RUN(tmpfile_refused_as_linux_does);
    RUN(tmpfile_read_only_mount);
    RUN(tmpfile_cut_at_every_operation);
    return test_summary(argv[0]);
}

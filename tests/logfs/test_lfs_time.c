/*
 * test_lfs_time.c -- where LogFS's timestamps come from (the caller's
 * clock, or the simulated clock plus an epoch) and which call changes
 * which time (POSIX, as pjdfstest checks it): create, write, truncate,
 * link, unlink, rename, chmod/chown, utimens with LOGFS_TIME_NOW and
 * LOGFS_TIME_OMIT; group inheritance from a set-group-ID directory;
 * directory link counts.
 */
#include "logfs/logfs.h"
#include "lfs_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

/* A clock that moves by 1000 ns at every reading. */
static int64_t tick(void *ctx)
{
    int64_t *t = ctx;
    return *t += 1000;
}

static nand_dev *mkdev(void)
{
    return LFS_FX_DEVICE(.blocks = 128, .pages = 64, .seed = 8);
}

static struct fs_stat st_of(logfs *fs, const char *path)
{
    struct fs_stat st = {0};
    if (logfs_lstat(fs, path, &st))
        st.ino = 0;
    return st;
}

static int mkfile(logfs *fs, const char *path)
{
    int fd = logfs_open(fs, path, O_CREAT | O_RDWR, 0644);
    return fd < 0 ? fd : logfs_close(fs, fd);
}

/* The caller's clock sets every time; without one, simulated time plus
 * the epoch, the same for the same device and calls. */
TEST(clock_and_epoch)
{
    nand_dev *d = mkdev();
    int64_t now = 5000000000000000000;
    struct logfs_options o = {.clock = tick, .clock_ctx = &now};
    logfs *fs;
    REQUIRE(d && logfs_mount(d, &o, &fs) == 0);
    REQUIRE(mkfile(fs, "/f") == 0);
    struct fs_stat st = st_of(fs, "/f");
    CHECK(st.mtime > 5000000000000000000 && st.mtime <= now);
    CHECK_EQ_INT(st.atime, st.mtime);
    CHECK_EQ_INT(st.ctime, st.mtime);
    REQUIRE(logfs_unmount(fs) == 0);

    /* the host clock: within seconds of time() */
    o = (struct logfs_options){.clock = logfs_host_clock};
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    REQUIRE(mkfile(fs, "/h") == 0);
    st = st_of(fs, "/h");
    int64_t host = (int64_t)time(NULL) * 1000000000;
    CHECK(st.mtime > host - 5000000000 && st.mtime < host + 5000000000);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);

    /* simulated time plus the epoch: identical on two identical devices */
    int64_t t[2];
    for (int i = 0; i < 2; i++) {
        d = mkdev();
        o = (struct logfs_options){0};
        char err[128];
        REQUIRE(logfs_option_set(&o, "epoch", "2024-01-01T00:00:00Z", err, sizeof err) == 0);
        CHECK_EQ_INT(o.epoch_ns, 1704067200LL * 1000000000);
        REQUIRE(d && logfs_mount(d, &o, &fs) == 0);
        REQUIRE(mkfile(fs, "/e") == 0);
        st = st_of(fs, "/e");
        CHECK(st.mtime >= o.epoch_ns && st.mtime <= o.epoch_ns + (int64_t)nand_now(d));
        t[i] = st.mtime;
        REQUIRE(logfs_unmount(fs) == 0);
        nand_close(d);
    }
    CHECK_EQ_INT(t[0], t[1]);
    /* no clock, no epoch: the simulated clock alone, as before */
    d = mkdev();
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(mkfile(fs, "/s") == 0);
    CHECK(st_of(fs, "/s").mtime <= (int64_t)nand_now(d));
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(epoch_option_values)
{
    struct logfs_options o = {0};
    char err[256];
    CHECK_EQ_INT(logfs_option_set(&o, "epoch", "2024-01-01", err, sizeof err), 0);
    CHECK_EQ_INT(o.epoch_ns, 1704067200LL * 1000000000);
    CHECK_EQ_INT(logfs_option_set(&o, "epoch", "2000-02-29T12:34:56", err, sizeof err), 0);
    CHECK_EQ_INT(o.epoch_ns, 951827696LL * 1000000000);
    CHECK_EQ_INT(logfs_option_set(&o, "epoch", "86400", err, sizeof err), 0);
    CHECK_EQ_INT(o.epoch_ns, 86400LL * 1000000000);
    CHECK_EQ_INT(logfs_options_parse(&o, "epoch=1970-01-02", err, sizeof err), 0);
    CHECK_EQ_INT(o.epoch_ns, 86400LL * 1000000000);
    static const char *const bad[] = {"", "2024-13-01", "2024-1-1", "1969-12-31",
                                      "2024-01-01T25:00:00", "2024-01-01Tx", "2024-01-01Z",
                                      "-5", "tomorrow", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        CHECK_EQ_INT(logfs_option_set(&o, "epoch", bad[i], err, sizeof err), -EINVAL);
        CHECK(strstr(err, "epoch") != NULL);
    }
    CHECK_EQ_INT(logfs_options_check(&o, err, sizeof err), 0);
}

/* Each call's times: t0 before the call, then which of a/m/ctime moved. */
#define MOVED(before, after, field) ((after).field > (before).field)

TEST(posix_timestamp_rules)
{
    nand_dev *d = mkdev();
    int64_t now = 1000000;
    struct logfs_options o = {.clock = tick, .clock_ctx = &now};
    logfs *fs;
    REQUIRE(d && logfs_mount(d, &o, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/a", 0755) == 0 && logfs_mkdir(fs, "/b", 0755) == 0);

    /* create: the new file's three times, the parent's mtime and ctime */
    struct fs_stat p0 = st_of(fs, "/a"), f, p1;
    REQUIRE(mkfile(fs, "/a/f") == 0);
    f = st_of(fs, "/a/f");
    p1 = st_of(fs, "/a");
    CHECK(f.atime == f.mtime && f.mtime == f.ctime && f.mtime > p0.mtime);
    CHECK(MOVED(p0, p1, mtime) && MOVED(p0, p1, ctime) && !MOVED(p0, p1, atime));
    CHECK_EQ_INT(p1.mtime, f.mtime);

    /* write: mtime and ctime; a write of 0 bytes changes nothing */
    struct fs_stat s0 = st_of(fs, "/a/f"), s1;
    int fd = logfs_open(fs, "/a/f", O_RDWR, 0);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(logfs_pwrite(fs, fd, "abc", 3, 0), 3);
    s1 = st_of(fs, "/a/f");
    CHECK(MOVED(s0, s1, mtime) && MOVED(s0, s1, ctime) && !MOVED(s0, s1, atime));
    s0 = s1;
    CHECK_EQ_INT(logfs_pwrite(fs, fd, "", 0, 0), 0);
    s1 = st_of(fs, "/a/f");
    CHECK(!MOVED(s0, s1, mtime) && !MOVED(s0, s1, ctime));

    /* ftruncate and truncate: mtime and ctime, even to the same size */
    s0 = s1;
    CHECK_EQ_INT(logfs_ftruncate(fs, fd, 3), 0);
    s1 = st_of(fs, "/a/f");
    CHECK(MOVED(s0, s1, mtime) && MOVED(s0, s1, ctime));
    s0 = s1;
    CHECK_EQ_INT(logfs_truncate(fs, "/a/f", 1), 0);
    s1 = st_of(fs, "/a/f");
    CHECK(MOVED(s0, s1, mtime) && MOVED(s0, s1, ctime) && s1.size == 1);
    /* a failed truncate changes nothing */
    s0 = s1;
    CHECK_EQ_INT(logfs_truncate(fs, "/a", 0), -EISDIR);
    CHECK_EQ_INT(logfs_close(fs, fd), 0);

    /* open with O_TRUNC: mtime and ctime, even of an empty file */
    REQUIRE(mkfile(fs, "/a/empty") == 0);
    s0 = st_of(fs, "/a/empty");
    fd = logfs_open(fs, "/a/empty", O_WRONLY | O_TRUNC, 0);
    REQUIRE(fd >= 0 && logfs_close(fs, fd) == 0);
    s1 = st_of(fs, "/a/empty");
    CHECK(MOVED(s0, s1, mtime) && MOVED(s0, s1, ctime));
    s0 = s1; /* without O_TRUNC: nothing */
    fd = logfs_open(fs, "/a/empty", O_WRONLY, 0);
    REQUIRE(fd >= 0 && logfs_close(fs, fd) == 0);
    s1 = st_of(fs, "/a/empty");
    CHECK(!MOVED(s0, s1, mtime) && !MOVED(s0, s1, ctime));

    /* link: the file's ctime, the new parent's mtime and ctime; not the
     * old parent's */
    s0 = st_of(fs, "/a/f");
    p0 = st_of(fs, "/b");
    struct fs_stat a0 = st_of(fs, "/a"), a1;
    CHECK_EQ_INT(logfs_link(fs, "/a/f", "/b/g"), 0);
    s1 = st_of(fs, "/a/f");
    p1 = st_of(fs, "/b");
    a1 = st_of(fs, "/a");
    CHECK(MOVED(s0, s1, ctime) && !MOVED(s0, s1, mtime) && s1.nlink == 2);
    CHECK(MOVED(p0, p1, mtime) && MOVED(p0, p1, ctime));
    CHECK(!MOVED(a0, a1, mtime) && !MOVED(a0, a1, ctime));

    /* unlink: the file's ctime (seen through its other name), the
     * parent's mtime and ctime */
    s0 = s1;
    p0 = p1;
    CHECK_EQ_INT(logfs_unlink(fs, "/b/g"), 0);
    s1 = st_of(fs, "/a/f");
    p1 = st_of(fs, "/b");
    CHECK(MOVED(s0, s1, ctime) && !MOVED(s0, s1, mtime) && s1.nlink == 1);
    CHECK(MOVED(p0, p1, mtime) && MOVED(p0, p1, ctime));

    /* rename: both parents' mtime and ctime, the moved file's ctime */
    s0 = s1;
    a0 = st_of(fs, "/a");
    p0 = st_of(fs, "/b");
    CHECK_EQ_INT(logfs_rename(fs, "/a/f", "/b/f"), 0);
    s1 = st_of(fs, "/b/f");
    a1 = st_of(fs, "/a");
    p1 = st_of(fs, "/b");
    CHECK(MOVED(s0, s1, ctime) && !MOVED(s0, s1, mtime));
    CHECK(MOVED(a0, a1, mtime) && MOVED(a0, a1, ctime));
    CHECK(MOVED(p0, p1, mtime) && MOVED(p0, p1, ctime));
    /* rename over a file: the replaced file loses a link and its ctime moves */
    REQUIRE(mkfile(fs, "/b/victim") == 0 && logfs_link(fs, "/b/victim", "/a/keep") == 0);
    struct fs_stat v0 = st_of(fs, "/a/keep"), v1;
    CHECK_EQ_INT(logfs_rename(fs, "/b/f", "/b/victim"), 0);
    v1 = st_of(fs, "/a/keep");
    CHECK(MOVED(v0, v1, ctime) && v1.nlink == 1);

    /* chmod, chown: ctime only */
    s0 = st_of(fs, "/b/victim");
    CHECK_EQ_INT(logfs_chmod(fs, "/b/victim", 0600), 0);
    s1 = st_of(fs, "/b/victim");
    CHECK(MOVED(s0, s1, ctime) && !MOVED(s0, s1, mtime) && !MOVED(s0, s1, atime));
    s0 = s1;
    CHECK_EQ_INT(logfs_chown(fs, "/b/victim", 7, 8), 0);
    s1 = st_of(fs, "/b/victim");
    CHECK(MOVED(s0, s1, ctime) && !MOVED(s0, s1, mtime));
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(utimens_now_and_omit)
{
    nand_dev *d = mkdev();
    int64_t now = 1000000;
    struct logfs_options o = {.clock = tick, .clock_ctx = &now};
    logfs *fs;
    REQUIRE(d && logfs_mount(d, &o, &fs) == 0);
    REQUIRE(mkfile(fs, "/f") == 0);
    CHECK_EQ_INT(logfs_utimens(fs, "/f", 111, 222), 0);
    struct fs_stat s0 = st_of(fs, "/f"), s1;
    CHECK(s0.atime == 111 && s0.mtime == 222 && s0.ctime > 1000000);
    /* OMIT keeps that time; the other is set; ctime moves */
    CHECK_EQ_INT(logfs_utimens(fs, "/f", LOGFS_TIME_OMIT, 333), 0);
    s1 = st_of(fs, "/f");
    CHECK(s1.atime == 111 && s1.mtime == 333 && MOVED(s0, s1, ctime));
    s0 = s1;
    CHECK_EQ_INT(logfs_utimens(fs, "/f", 444, LOGFS_TIME_OMIT), 0);
    s1 = st_of(fs, "/f");
    CHECK(s1.atime == 444 && s1.mtime == 333 && MOVED(s0, s1, ctime));
    /* NOW: the clock's now, for both, equal to the new ctime */
    s0 = s1;
    CHECK_EQ_INT(logfs_utimens(fs, "/f", LOGFS_TIME_NOW, LOGFS_TIME_NOW), 0);
    s1 = st_of(fs, "/f");
    CHECK(s1.atime == s1.ctime && s1.mtime == s1.ctime && MOVED(s0, s1, ctime));
    CHECK_EQ_INT(logfs_utimens(fs, "/f", LOGFS_TIME_NOW, 5), 0);
    s1 = st_of(fs, "/f");
    CHECK(s1.atime == s1.ctime && s1.mtime == 5);
    /* both OMIT: nothing at all changes, not even ctime */
    s0 = s1;
    CHECK_EQ_INT(logfs_utimens(fs, "/f", LOGFS_TIME_OMIT, LOGFS_TIME_OMIT), 0);
    s1 = st_of(fs, "/f");
    CHECK(s1.atime == s0.atime && s1.mtime == s0.mtime && s1.ctime == s0.ctime);
    /* the same through lutimens on a link itself */
    REQUIRE(logfs_symlink(fs, "f", "/l") == 0);
    CHECK_EQ_INT(logfs_lutimens(fs, "/l", LOGFS_TIME_OMIT, 77), 0);
    s1 = st_of(fs, "/l");
    CHECK(s1.mtime == 77 && s1.atime != 77);
    CHECK_EQ_INT(st_of(fs, "/f").mtime, 5);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* A set-group-ID directory gives new entries its group, and new
 * directories the bit; a plain one gives neither.  Link counts of
 * directories: 2 + subdirectories, through mkdir, rename and rmdir. */
TEST(setgid_directories_and_link_counts)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/g", 0755) == 0);
    REQUIRE(logfs_chown(fs, "/g", 10, 1234) == 0 && logfs_chmod(fs, "/g", 02775) == 0);
    REQUIRE(mkfile(fs, "/g/f") == 0 && logfs_mkdir(fs, "/g/sub", 0755) == 0);
    REQUIRE(logfs_symlink(fs, "f", "/g/l") == 0);
    struct fs_stat st = st_of(fs, "/g/f");
    CHECK_EQ_INT(st.gid, 1234);
    CHECK_EQ_INT(st.mode & 07777, 0644); /* files do not get the bit */
    st = st_of(fs, "/g/sub");
    CHECK_EQ_INT(st.gid, 1234);
    CHECK_EQ_INT(st.mode & 07777, 02755);
    CHECK_EQ_INT(st_of(fs, "/g/l").gid, 1234);
    REQUIRE(mkfile(fs, "/g/sub/deeper") == 0);
    CHECK_EQ_INT(st_of(fs, "/g/sub/deeper").gid, 1234);
    REQUIRE(logfs_mkdir(fs, "/plain", 0755) == 0 && logfs_chown(fs, "/plain", 0, 99) == 0);
    REQUIRE(logfs_mkdir(fs, "/plain/d", 0755) == 0);
    st = st_of(fs, "/plain/d");
    CHECK_EQ_INT(st.gid, 0);
    CHECK_EQ_INT(st.mode & 07777, 0755);

    /* link counts */
    CHECK_EQ_INT(st_of(fs, "/plain").nlink, 3);
    CHECK_EQ_INT(st_of(fs, "/plain/d").nlink, 2);
    CHECK_EQ_INT(logfs_rename(fs, "/plain/d", "/g/d"), 0);
    CHECK_EQ_INT(st_of(fs, "/plain").nlink, 2);
    CHECK_EQ_INT(st_of(fs, "/g").nlink, 4);
    REQUIRE(logfs_mkdir(fs, "/plain/e", 0755) == 0);
    CHECK_EQ_INT(logfs_rename(fs, "/g/d", "/plain/e"), 0); /* over an empty dir */
    CHECK_EQ_INT(st_of(fs, "/plain").nlink, 3);
    CHECK_EQ_INT(st_of(fs, "/g").nlink, 3);
    CHECK_EQ_INT(logfs_rmdir(fs, "/plain/e"), 0);
    CHECK_EQ_INT(st_of(fs, "/plain").nlink, 2);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0); /* all of it on flash */
    CHECK_EQ_INT(st_of(fs, "/g/sub").mode & 07777, 02755);
    CHECK_EQ_INT(st_of(fs, "/g").nlink, 3);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(clock_and_epoch);
    RUN(epoch_option_values);
    RUN(posix_timestamp_rules);
    RUN(utimens_now_and_omit);
    RUN(setgid_directories_and_link_counts);
    return test_summary(argv[0]);
}

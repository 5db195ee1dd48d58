/*
 * test_lfs_posix.c -- POSIX details the model test does not cover: open
 * flags (O_EXCL, O_TRUNC, O_APPEND), lseek, attributes through remount,
 * punch-hole, and an unlinked file that stays readable while open and is
 * deleted at close, or at the next mount when the power went first.
 */
#include "logfs.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static nand_dev *mkdev(void)
{
    struct nand_config c;
    nand_config_init(&c);
    c.geo.blocks_per_plane = 128;
    c.geo.pages_per_block = 64;
    c.geo.page_size = 2048;
    c.geo.oob_size = 64;
    c.seed = 8;
    nand_dev *d = NULL;
    if (nand_create(&c, &d) || logfs_mkfs(d, NULL)) {
        nand_close(d);
        return NULL;
    }
    return d;
}

TEST(open_flags_and_seek)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/f", O_RDWR | O_CREAT | O_EXCL, 0600);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(logfs_open(fs, "/f", O_RDWR | O_CREAT | O_EXCL, 0600), -EEXIST);
    CHECK_EQ_INT(logfs_open(fs, "/missing", O_RDONLY, 0), -ENOENT);
    CHECK_EQ_INT(logfs_write(fs, fd, "hello", 5), 5);
    CHECK_EQ_INT(logfs_lseek(fs, fd, 1, SEEK_SET), 1);
    char buf[16] = {0};
    CHECK_EQ_INT(logfs_read(fs, fd, buf, 3), 3);
    CHECK(!memcmp(buf, "ell", 3));
    CHECK_EQ_INT(logfs_lseek(fs, fd, -1, SEEK_END), 4);
    CHECK_EQ_INT(logfs_lseek(fs, fd, -10, SEEK_CUR), -EINVAL);
    CHECK_EQ_INT(logfs_close(fs, fd), 0);
    CHECK_EQ_INT(logfs_close(fs, fd), -EBADF);
    fd = logfs_open(fs, "/f", O_WRONLY | O_APPEND, 0);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(logfs_lseek(fs, fd, 0, SEEK_SET), 0);
    CHECK_EQ_INT(logfs_write(fs, fd, "!", 1), 1); /* appends whatever the position */
    CHECK_EQ_INT(logfs_read(fs, fd, buf, 1), -EBADF); /* write-only */
    logfs_close(fs, fd);
    struct logfs_stat st;
    REQUIRE(logfs_stat(fs, "/f", &st) == 0);
    CHECK_EQ_INT(st.size, 6);
    fd = logfs_open(fs, "/f", O_WRONLY | O_TRUNC, 0);
    REQUIRE(fd >= 0);
    logfs_close(fs, fd);
    REQUIRE(logfs_stat(fs, "/f", &st) == 0);
    CHECK_EQ_INT(st.size, 0);
    CHECK_EQ_INT(logfs_open(fs, "/", O_WRONLY, 0), -EISDIR);
    REQUIRE(logfs_mkdir(fs, "/d", 0755) == 0);
    CHECK_EQ_INT(logfs_open(fs, "/f/x", O_RDONLY, 0), -ENOTDIR);
    CHECK_EQ_INT(logfs_rmdir(fs, "/"), -EBUSY);
    CHECK_EQ_INT(logfs_rename(fs, "/d", "/d/e"), -EINVAL);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(attributes_survive_remount)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/a", O_WRONLY | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    logfs_close(fs, fd);
    CHECK_EQ_INT(logfs_chmod(fs, "/a", 04711), 0);
    CHECK_EQ_INT(logfs_chown(fs, "/a", 1000, 100), 0);
    CHECK_EQ_INT(logfs_utimens(fs, "/a", 111, 222), 0);
    CHECK_EQ_INT(logfs_symlink(fs, "/a", "/l"), 0);
    CHECK_EQ_INT(logfs_chmod(fs, "/l", 0600), 0); /* follows the link */
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    struct logfs_stat st;
    REQUIRE(logfs_stat(fs, "/a", &st) == 0);
    CHECK_EQ_INT(st.mode, S_IFREG | 0600);
    CHECK_EQ_INT(st.uid, 1000);
    CHECK_EQ_INT(st.gid, 100);
    CHECK_EQ_INT(st.atime, 111);
    CHECK_EQ_INT(st.mtime, 222);
    REQUIRE(logfs_lstat(fs, "/l", &st) == 0);
    CHECK(S_ISLNK(st.mode));
    REQUIRE(logfs_unmount(fs) == 0);
    struct logfs_options ro = {.readonly = 1};
    REQUIRE(logfs_mount(d, &ro, &fs) == 0);
    CHECK_EQ_INT(logfs_chmod(fs, "/a", 0), -EROFS);
    CHECK_EQ_INT(logfs_mkdir(fs, "/x", 0755), -EROFS);
    CHECK_EQ_INT(logfs_open(fs, "/a", O_WRONLY, 0), -EROFS);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(punch_hole_frees_and_reads_zero)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/p", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    static uint8_t buf[64 << 10], got[64 << 10];
    memset(buf, 0xab, sizeof buf);
    REQUIRE(logfs_pwrite(fs, fd, buf, sizeof buf, 0) == sizeof buf);
    REQUIRE(logfs_sync(fs) == 0);
    struct logfs_stats a, b;
    logfs_get_stats(fs, &a);
    CHECK_EQ_INT(logfs_punch(fs, fd, 1000, 40000), 0);
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &b);
    CHECK(b.live_bytes + 8 * 4096 <= a.live_bytes); /* whole blocks were freed */
    REQUIRE(logfs_pread(fs, fd, got, sizeof got, 0) == sizeof got);
    memset(buf + 1000, 0, 40000);
    CHECK(!memcmp(got, buf, sizeof got));
    struct logfs_stat st;
    REQUIRE(logfs_fstat(fs, fd, &st) == 0);
    CHECK_EQ_INT(st.size, sizeof buf); /* size unchanged */
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(unlinked_open_file)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/tmp", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    static uint8_t buf[20000], got[20000];
    memset(buf, 0x42, sizeof buf);
    REQUIRE(logfs_write(fs, fd, buf, sizeof buf) == sizeof buf);
    REQUIRE(logfs_sync(fs) == 0);
    struct logfs_stats before;
    logfs_get_stats(fs, &before);
    CHECK_EQ_INT(logfs_unlink(fs, "/tmp"), 0);
    struct logfs_stat st;
    CHECK_EQ_INT(logfs_stat(fs, "/tmp", &st), -ENOENT);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(logfs_pread(fs, fd, got, sizeof got, 0), sizeof got);
    CHECK(!memcmp(got, buf, sizeof got));
    REQUIRE(logfs_fstat(fs, fd, &st) == 0);
    CHECK_EQ_INT(st.nlink, 0);
    /* the power goes while it is open: the next mount deletes it */
    nand_power_cut(d);
    logfs_unmount(fs);
    nand_power_on(d);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    struct logfs_stats after;
    logfs_get_stats(fs, &after);
    CHECK(after.live_bytes + sizeof buf <= before.live_bytes);
    REQUIRE(logfs_unmount(fs) == 0);
    /* and without a crash: deleted at close */
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    fd = logfs_open(fs, "/tmp2", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0 && logfs_write(fs, fd, buf, sizeof buf) == sizeof buf);
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &before);
    REQUIRE(logfs_unlink(fs, "/tmp2") == 0);
    REQUIRE(logfs_close(fs, fd) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &after);
    CHECK(after.live_bytes + sizeof buf <= before.live_bytes);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* More open unlinked files than the anchor's orphan list holds: the mount
 * after the crash still deletes every one (by scanning), and only then. */
TEST(many_orphans_after_crash)
{
    enum { N = 3 * 32 / 2 };
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    static uint8_t buf[6000];
    memset(buf, 0x5a, sizeof buf);
    int fds[N];
    char name[32];
    struct logfs_stats empty, full, after;
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &empty);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "/o%d", i);
        fds[i] = logfs_open(fs, name, O_RDWR | O_CREAT, 0644);
        REQUIRE(fds[i] >= 0 && logfs_write(fs, fds[i], buf, sizeof buf) == sizeof buf);
    }
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &full);
    CHECK(full.live_bytes >= empty.live_bytes + N * sizeof buf);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "/o%d", i);
        REQUIRE(logfs_unlink(fs, name) == 0);
    }
    REQUIRE(logfs_sync(fs) == 0);
    nand_power_cut(d);
    logfs_unmount(fs);
    nand_power_on(d);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &after);
    /* every file's data is gone: what is left is what an empty fs holds,
     * give or take the directory's and inode file's blocks */
    CHECK(after.live_bytes < empty.live_bytes + sizeof buf);
    /* and a clean remount has nothing left to scan or delete */
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    struct logfs_stats again;
    logfs_get_stats(fs, &again);
    CHECK_EQ_INT(again.live_bytes, after.live_bytes);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

struct listing {
    int n, stop_at;
    char names[4096][16];
};

static int list_one(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct listing *l = ctx;
    (void)ino;
    (void)type;
    if (l->n == l->stop_at)
        return 1; /* stop here: the cookie names this entry */
    if (l->n < 4096)
        snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
    l->n++;
    return 0;
}

/* A cookie names an entry, not a slot: deleting entries already listed
 * (rm -rf lists and deletes as it goes) skips nothing. */
TEST(readdir_resumes_past_deleted_entries)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    /* two names in one bucket (FNV-1a mod 4096 = 1812), the first listed
     * deleted before resuming at the second */
    REQUIRE(logfs_mkdir(fs, "/b", 0755) == 0);
    int fd = logfs_open(fs, "/b/a0", O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0 && logfs_close(fs, fd) == 0);
    fd = logfs_open(fs, "/b/b1989", O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0 && logfs_close(fs, fd) == 0);
    static struct listing l;
    memset(&l, 0, sizeof l);
    l.stop_at = 1;
    uint64_t cookie = 0;
    REQUIRE(logfs_readdir(fs, "/b", &cookie, list_one, &l) == 0);
    REQUIRE(l.n == 1 && cookie != UINT64_MAX);
    char first[32];
    snprintf(first, sizeof first, "/b/%s", l.names[0]);
    REQUIRE(logfs_unlink(fs, first) == 0);
    l.n = 0;
    l.stop_at = -1;
    REQUIRE(logfs_readdir(fs, "/b", &cookie, list_one, &l) == 0);
    CHECK_EQ_INT(l.n, 1);
    /* and at scale: 3000 files, listed 7 at a time, each batch deleted */
    REQUIRE(logfs_mkdir(fs, "/many", 0755) == 0);
    for (int i = 0; i < 3000; i++) {
        char p[32];
        snprintf(p, sizeof p, "/many/f%d", i);
        fd = logfs_open(fs, p, O_CREAT | O_WRONLY, 0644);
        REQUIRE(fd >= 0 && logfs_close(fs, fd) == 0);
    }
    int seen = 0;
    cookie = 0;
    while (cookie != UINT64_MAX) {
        l.n = 0;
        l.stop_at = 7;
        REQUIRE(logfs_readdir(fs, "/many", &cookie, list_one, &l) == 0);
        for (int i = 0; i < l.n; i++) {
            char p[32];
            snprintf(p, sizeof p, "/many/%s", l.names[i]);
            CHECK_EQ_INT(logfs_unlink(fs, p), 0);
        }
        seen += l.n;
    }
    CHECK_EQ_INT(seen, 3000);
    CHECK_EQ_INT(logfs_rmdir(fs, "/many"), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    (void)argc;
    RUN(open_flags_and_seek);
    RUN(attributes_survive_remount);
    RUN(punch_hole_frees_and_reads_zero);
    RUN(unlinked_open_file);
    RUN(many_orphans_after_crash);
    RUN(readdir_resumes_past_deleted_entries);
    return test_summary(argv[0]);
}

/*
 * test_lfs_posix.c -- POSIX details the model test does not cover: open
 * flags (O_EXCL, O_TRUNC, O_APPEND), lseek, attributes through remount,
 * punch-hole, and an unlinked file that stays readable while open and is
 * deleted at close, or at the next mount when the power went first; and
 * the path walk: relative symlink targets, "." and "..", loops, trailing
 * slashes, checked against the host's own file system (host POSIX is the
 * spec), and lchown/lutimens against chown/utimens.
 */
#include "fscommon.h"
#include "logfs/logfs.h"
#include "lfs_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static nand_dev *mkdev(void)
{
    return LFS_FX_DEVICE(.blocks = 128, .pages = 64, .seed = 8);
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
    struct fs_stat st;
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
    struct fs_stat st;
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
    struct fs_stat st;
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
    struct fs_stat st;
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

/* ---- the path walk against the host ------------------------------------ */

/* The tree, the same on LogFS and in a host directory: directories, files
 * whose sizes tell them apart, and links (target "@..." is absolute: the
 * host's gets the temporary directory in front). */
static const struct {
    char kind; /* 'd' directory, 'f' file (size = strlen(arg)), 'l' link */
    const char *path, *arg;
} tree[] = {
    {'d', "/d", NULL},
    {'d', "/d/sub", NULL},
    {'d', "/d/sub/deep", NULL},
    {'f', "/d/f", "hello"},
    {'f', "/d/sub/g", "seven b"},
    {'f', "/d/sub/deep/h", "nine byte"},
    {'l', "/d/lf", "f"},
    {'l', "/d/ld", "sub"},
    {'l', "/d/lup", "../d/f"},
    {'l', "/d/sub/lup2", "../f"},
    {'l', "/d/sub/ldot", "./g"},
    {'l', "/d/chain1", "chain2"},
    {'l', "/d/chain2", "lf"},
    {'l', "/d/sub/chainup", "../chain1"},
    {'l', "/d/dangling", "nowhere"},
    {'l', "/d/dangdir", "nowhere/x"},
    {'l', "/d/loop1", "loop2"},
    {'l', "/d/loop2", "loop1"},
    {'l', "/d/self", "./self"},
    {'l', "/d/abs", "@/d/sub"},
    {'l', "/d/absrel", "@/d/sub/lup2"},
    {'l', "/d/ldd", ".."},
    {'l', "/d/slashes", "sub//.///g"},
    {'l', "/d/sub/up2", "../../d/sub/../f"},
    {'l', "/d/ldir2", "ld/.."},
    {'l', "/d/lfx", "f/x"},
    {'l', "/d/lfslash", "f/"},
    {'l', "/d/ldslash", "sub/"},
    {'l', "/d/sub/deep/ddup", "../.."},
    {'l', "/d/sub/deep/viald", "../../ld/deep/h"},
    {'l', "/d/sub/deep/toroot", "../../../../../.."},
    {'l', "/d/lnd", "ld/deep"},
};

/* Paths looked up with stat and lstat on both (not above the tree's
 * root: the host's goes on up, LogFS's is the root). */
static const char *const queries[] = {
    "/d/lf", "/d/ld", "/d/ld/g", "/d/ld/deep/h", "/d/lup", "/d/sub/lup2",
    "/d/sub/ldot", "/d/chain1", "/d/chain2", "/d/sub/chainup", "/d/dangling",
    "/d/dangdir", "/d/loop1", "/d/loop1/x", "/d/self", "/d/abs", "/d/abs/g",
    "/d/absrel", "/d/ldd", "/d/ldd/d/f", "/d/ldd/d/ld/g", "/d/slashes", "/d/sub/up2",
    "/d/ldir2", "/d/ldir2/f", "/d/lfx", "/d/lfslash", "/d/ldslash", "/d/ldslash/g",
    "/d/sub/deep/ddup", "/d/sub/deep/ddup/f", "/d/sub/deep/viald",
    "/d/lnd", "/d/lnd/h",
    "/d/lnd/..", "/d/lnd/../g", "/d/ld/..", "/d/ld/../f", "/d/ld/../sub/g",
    "/d/ld/deep/../../f", "/d//sub///g", "/d/./f", "/d/../d/f",
    "/.", "/", "//", "/d/.", "/d/sub/..", "/d/f/..", "/d/f/.", "/d/missing/..",
    "/d/missing", "/d/f/x", "/d/lf/x", "/d/lf/", "/d/f/", "/d/ld/", "/d/sub/",
    "/d/dangling/", "/d/ldd/", "/d/chain1/",
};

/* The lstat of the tree's entries, to name what a lookup found. */
struct ident {
    uint64_t ino[sizeof tree / sizeof tree[0] + 1];
};

/* "error N", or the tree entry found (by inode number) and its type. */
static void describe(char *out, size_t n, int rc, uint64_t ino, uint32_t mode,
                     const struct ident *id)
{
    if (rc) {
        snprintf(out, n, "error %d", -rc);
        return;
    }
    const char *what = "?";
    if (ino == id->ino[0])
        what = "/";
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++)
        if (ino == id->ino[i + 1])
            what = tree[i].path;
    snprintf(out, n, "%s %s", what, S_ISDIR(mode) ? "dir" : S_ISLNK(mode) ? "link" : "file");
}

static int lfs_build(logfs *fs)
{
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
        int rc = 0;
        const char *a = tree[i].arg;
        if (tree[i].kind == 'd') {
            rc = logfs_mkdir(fs, tree[i].path, 0755);
        } else if (tree[i].kind == 'f') {
            int fd = logfs_open(fs, tree[i].path, O_CREAT | O_WRONLY, 0644);
            rc = fd < 0 ? fd : logfs_write(fs, fd, a, strlen(a)) != (int64_t)strlen(a);
            if (fd >= 0)
                logfs_close(fs, fd);
        } else {
            rc = logfs_symlink(fs, a[0] == '@' ? a + 1 : a, tree[i].path);
        }
        if (rc)
            return -1;
    }
    return 0;
}

static int host_build(void)
{
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
        const char *p = tmp_path(tree[i].path + 1), *a = tree[i].arg;
        char target[600];
        int rc;
        if (tree[i].kind == 'd') {
            rc = mkdir(p, 0755);
        } else if (tree[i].kind == 'f') {
            rc = tmp_write(tree[i].path + 1, a) ? 0 : -1;
        } else {
            if (a[0] == '@')
                snprintf(target, sizeof target, "%s%s", tmp_dir, a + 1);
            else
                snprintf(target, sizeof target, "%s", a);
            rc = symlink(target, p);
        }
        if (rc)
            return -1;
    }
    return 0;
}

static int host_stat(const char *path, int follow, uint64_t *ino, uint32_t *mode)
{
    char p[1024];
    snprintf(p, sizeof p, "%s%s", tmp_dir, path);
    struct stat st;
    if ((follow ? stat : lstat)(p, &st))
        return -errno;
    *ino = st.st_ino;
    *mode = st.st_mode;
    return 0;
}

static int lfs_stat_of(logfs *fs, const char *path, int follow, uint64_t *ino, uint32_t *mode)
{
    struct fs_stat st;
    int rc = (follow ? logfs_stat : logfs_lstat)(fs, path, &st);
    if (!rc) {
        *ino = st.ino;
        *mode = st.mode;
    }
    return rc;
}

/* A chain of n links c0 -> c1 -> ... -> c{n-1} -> f, named /d/<tag>0... */
static void chain_names(char *link, char *target, size_t n, const char *tag, int i, int len)
{
    snprintf(link, n, "/d/%s%d", tag, i);
    if (i + 1 < len)
        snprintf(target, n, "%s%d", tag, i + 1);
    else
        snprintf(target, n, "f");
}

TEST(symlinks_resolve_as_the_host_does)
{
    if (tmp_dir_make("posix"))
        SKIP("no temporary directory");
    REQUIRE(mkdir(tmp_path("d"), 0755) == 0 || errno == EEXIST);
    rmdir(tmp_path("d"));
    REQUIRE(host_build() == 0);
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(lfs_build(fs) == 0);
    /* chains of 40 links (followed) and 41 (ELOOP), as SYMLOOP_MAX */
    char link[64], target[64];
    for (int i = 0; i < 40; i++) {
        chain_names(link, target, sizeof link, "a", i, 40);
        REQUIRE(logfs_symlink(fs, target, link) == 0);
        REQUIRE(symlink(target, tmp_path(link + 1)) == 0);
    }
    for (int i = 0; i < 41; i++) {
        chain_names(link, target, sizeof link, "b", i, 41);
        REQUIRE(logfs_symlink(fs, target, link) == 0);
        REQUIRE(symlink(target, tmp_path(link + 1)) == 0);
    }
    struct ident hid, lid;
    uint32_t mode;
    REQUIRE(host_stat("/", 0, &hid.ino[0], &mode) == 0);
    REQUIRE(lfs_stat_of(fs, "/", 0, &lid.ino[0], &mode) == 0);
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
        REQUIRE(host_stat(tree[i].path, 0, &hid.ino[i + 1], &mode) == 0);
        REQUIRE(lfs_stat_of(fs, tree[i].path, 0, &lid.ino[i + 1], &mode) == 0);
    }
    int compared = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t nq = sizeof queries / sizeof queries[0];
        for (size_t i = 0; i < nq + 2; i++) {
            const char *q = i < nq ? queries[i] : i == nq ? "/d/a0" : "/d/b0";
            for (int follow = 0; follow < 2; follow++) {
                /* lstat of "link/": Linux follows the link, LogFS lstat
                 * gives the link itself (docs/logfs-design.md) */
                size_t ql = strlen(q);
                if (!follow && ql > 1 && q[ql - 1] == '/')
                    continue;
                uint64_t hino = 0, lino = 0;
                uint32_t hmode = 0, lmode = 0;
                int hrc = host_stat(q, follow, &hino, &hmode);
                int lrc = lfs_stat_of(fs, q, follow, &lino, &lmode);
                char hs[128], ls[128];
                describe(hs, sizeof hs, hrc, hino, hmode, &hid);
                describe(ls, sizeof ls, lrc, lino, lmode, &lid);
                if (strcmp(hs, ls))
                    fprintf(stderr, "  %s %s: host %s, logfs %s\n", follow ? "stat" : "lstat",
                            q, hs, ls);
                CHECK(!strcmp(hs, ls));
                compared++;
            }
        }
        /* and again from flash, with a cold cache */
        REQUIRE(logfs_unmount(fs) == 0);
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    }
    CHECK(compared > 200);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
    tmp_dir_remove();
}

/* What each call does with a final link, relative targets through the
 * other calls, and the limits. */
TEST(symlink_calls_and_limits)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/d", 0755) == 0);
    REQUIRE(logfs_mkdir(fs, "/d/sub", 0755) == 0);
    int fd = logfs_open(fs, "/d/f", O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0 && logfs_write(fs, fd, "hello", 5) == 5 && logfs_close(fs, fd) == 0);
    REQUIRE(logfs_symlink(fs, "f", "/d/lf") == 0);
    REQUIRE(logfs_symlink(fs, "../f", "/d/sub/up") == 0);
    REQUIRE(logfs_symlink(fs, "sub", "/d/ld") == 0);
    REQUIRE(logfs_symlink(fs, "new", "/d/dangling") == 0);
    REQUIRE(logfs_symlink(fs, "loop", "/d/loop") == 0);
    /* open follows a relative link, O_NOFOLLOW does not */
    char buf[16] = {0};
    fd = logfs_open(fs, "/d/sub/up", O_RDONLY, 0);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(logfs_read(fs, fd, buf, sizeof buf), 5);
    CHECK(!memcmp(buf, "hello", 5));
    logfs_close(fs, fd);
    CHECK_EQ_INT(logfs_open(fs, "/d/lf", O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
    CHECK_EQ_INT(logfs_open(fs, "/d/loop", O_RDONLY, 0), -ELOOP);
    /* creating through a dangling link makes its target; O_EXCL does not */
    CHECK_EQ_INT(logfs_open(fs, "/d/dangling", O_CREAT | O_EXCL | O_WRONLY, 0644), -EEXIST);
    fd = logfs_open(fs, "/d/dangling", O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0);
    logfs_close(fs, fd);
    struct fs_stat st, st2;
    CHECK_EQ_INT(logfs_stat(fs, "/d/new", &st), 0);
    /* through a link to a directory: create, readdir, truncate, rename */
    fd = logfs_open(fs, "/d/ld/x", O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0);
    logfs_close(fs, fd);
    CHECK_EQ_INT(logfs_stat(fs, "/d/sub/x", &st), 0);
    CHECK_EQ_INT(logfs_truncate(fs, "/d/ld/../lf", 3), 0);
    CHECK_EQ_INT(logfs_stat(fs, "/d/f", &st), 0);
    CHECK_EQ_INT(st.size, 3);
    CHECK_EQ_INT(logfs_rename(fs, "/d/ld/x", "/d/ld/../y"), 0);
    CHECK_EQ_INT(logfs_stat(fs, "/d/y", &st), 0);
    CHECK_EQ_INT(logfs_rename(fs, "/d", "/d/ld/z"), -EINVAL);     /* into itself */
    CHECK_EQ_INT(logfs_rename(fs, "/d/sub", "/d/sub/../s2"), 0); /* not into itself */
    CHECK_EQ_INT(logfs_rename(fs, "/d/s2", "/d/sub"), 0);
    CHECK_EQ_INT(logfs_mkdir(fs, "/d/sub/..", 0755), -EEXIST);
    CHECK_EQ_INT(logfs_rmdir(fs, "/d/sub/."), -EBUSY);
    /* unlink, rename and readlink take the link itself */
    CHECK_EQ_INT(logfs_readlink(fs, "/d/sub/up", buf, sizeof buf), 4);
    CHECK(!memcmp(buf, "../f", 4));
    CHECK_EQ_INT(logfs_readlink(fs, "/d/ld/up", buf, sizeof buf), 4); /* via the link */
    CHECK_EQ_INT(logfs_rmdir(fs, "/d/ld"), -ENOTDIR);
    CHECK_EQ_INT(logfs_rename(fs, "/d/lf", "/d/lf2"), 0);
    CHECK_EQ_INT(logfs_lstat(fs, "/d/lf2", &st), 0);
    CHECK(S_ISLNK(st.mode));
    CHECK_EQ_INT(logfs_unlink(fs, "/d/lf2"), 0);
    CHECK_EQ_INT(logfs_stat(fs, "/d/f", &st), 0); /* the target stays */
    CHECK_EQ_INT(logfs_unlink(fs, "/d/f/"), -ENOTDIR);
    /* ENAMETOOLONG: a path, and a target that makes one, of FS_PATH_MAX
     * bytes; a path longer than the host's PATH_MAX is fine (a FUSE mount
     * passes such paths from its root) */
    static char longp[FS_PATH_MAX + 8], target[FS_LINK_MAX + 1];
    memset(longp, 0, sizeof longp);
    for (size_t i = 0; i + 2 < FS_PATH_MAX; i += 2)
        memcpy(longp + i, "/.", 2);
    longp[FS_PATH_MAX - 2] = '/';
    CHECK_EQ_INT(logfs_stat(fs, longp, &st), 0); /* 65535 bytes: the root */
    longp[FS_PATH_MAX - 1] = '.';
    CHECK_EQ_INT(logfs_stat(fs, longp, &st), -ENAMETOOLONG);
    memset(target, 0, sizeof target);
    for (size_t i = 0; i + 2 <= FS_LINK_MAX - 2; i += 2)
        memcpy(target + i, "./", 2);
    target[FS_LINK_MAX - 2] = 'f'; /* 4095 bytes: the longest target */
    REQUIRE(logfs_symlink(fs, target, "/d/long") == 0);
    CHECK_EQ_INT(logfs_stat(fs, "/d/long", &st), 0);
    CHECK_EQ_INT(st.size, 3);
    target[FS_LINK_MAX - 1] = 'f'; /* 4096: too long for a target */
    CHECK_EQ_INT(logfs_symlink(fs, target, "/d/long2"), -ENAMETOOLONG);
    target[FS_LINK_MAX - 1] = 0;
    REQUIRE(logfs_symlink(fs, target, "/d/sub/long") == 0);
    CHECK_EQ_INT(logfs_stat(fs, "/d/long/", &st), -ENOTDIR); /* target + "/" */
    /* the target spliced into a path near the limit passes it */
    memset(longp, 0, sizeof longp);
    memcpy(longp, "/d/long", 7);
    for (size_t i = 7; i + 2 < FS_PATH_MAX - 100; i += 2)
        memcpy(longp + i, "/.", 2);
    CHECK_EQ_INT(logfs_stat(fs, longp, &st), -ENAMETOOLONG);
    REQUIRE(logfs_symlink(fs, "/d/sub/long", "/d/abslong") == 0);
    CHECK_EQ_INT(logfs_stat(fs, "/d/abslong", &st), -ENOENT); /* /d/sub/f */
    /* ".." of the root is the root, from a path or a link */
    REQUIRE(logfs_symlink(fs, "../../../../..", "/d/sub/toroot") == 0);
    REQUIRE(logfs_stat(fs, "/", &st2) == 0);
    CHECK_EQ_INT(logfs_stat(fs, "/d/sub/toroot", &st), 0);
    CHECK_EQ_INT(st.ino, st2.ino);
    CHECK_EQ_INT(logfs_stat(fs, "/..", &st), 0);
    CHECK_EQ_INT(st.ino, st2.ino);
    CHECK_EQ_INT(logfs_stat(fs, "/../../d/sub/toroot/d/f", &st), 0);
    CHECK_EQ_INT(st.size, 3);
    CHECK_EQ_INT(logfs_rmdir(fs, "/.."), -EBUSY);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* chown and utimens follow a final link; lchown and lutimens change the
 * link itself; both survive a remount. */
TEST(lchown_lutimens_change_the_link)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/d", 0755) == 0);
    int fd = logfs_open(fs, "/d/f", O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0 && logfs_close(fs, fd) == 0);
    REQUIRE(logfs_symlink(fs, "f", "/d/l") == 0);
    REQUIRE(logfs_symlink(fs, "nowhere", "/d/dangling") == 0);
    CHECK_EQ_INT(logfs_chown(fs, "/d/l", 10, 20), 0);
    CHECK_EQ_INT(logfs_utimens(fs, "/d/l", 100, 200), 0);
    CHECK_EQ_INT(logfs_lchown(fs, "/d/l", 30, 40), 0);
    CHECK_EQ_INT(logfs_lutimens(fs, "/d/l", 300, 400), 0);
    CHECK_EQ_INT(logfs_chown(fs, "/d/dangling", 1, 1), -ENOENT);
    CHECK_EQ_INT(logfs_lchown(fs, "/d/dangling", 50, 60), 0);
    CHECK_EQ_INT(logfs_lutimens(fs, "/d/dangling", 500, 600), 0);
    CHECK_EQ_INT(logfs_lchown(fs, "/d/f", 70, 80), 0); /* not a link: the file */
    CHECK_EQ_INT(logfs_lchown(fs, "/d/missing", 1, 1), -ENOENT);
    for (int pass = 0; pass < 2; pass++) {
        struct fs_stat st;
        REQUIRE(logfs_stat(fs, "/d/l", &st) == 0);
        CHECK(S_ISREG(st.mode));
        CHECK_EQ_INT(st.uid, 70);
        CHECK_EQ_INT(st.gid, 80);
        CHECK_EQ_INT(st.atime, 100);
        CHECK_EQ_INT(st.mtime, 200);
        REQUIRE(logfs_lstat(fs, "/d/l", &st) == 0);
        CHECK(S_ISLNK(st.mode));
        CHECK_EQ_INT(st.uid, 30);
        CHECK_EQ_INT(st.gid, 40);
        CHECK_EQ_INT(st.atime, 300);
        CHECK_EQ_INT(st.mtime, 400);
        REQUIRE(logfs_lstat(fs, "/d/dangling", &st) == 0);
        CHECK_EQ_INT(st.uid, 50);
        CHECK_EQ_INT(st.mtime, 600);
        REQUIRE(logfs_unmount(fs) == 0);
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    }
    REQUIRE(logfs_unmount(fs) == 0);
    struct logfs_options ro = {.readonly = 1};
    REQUIRE(logfs_mount(d, &ro, &fs) == 0);
    CHECK_EQ_INT(logfs_lchown(fs, "/d/l", 1, 1), -EROFS);
    CHECK_EQ_INT(logfs_lutimens(fs, "/d/l", 1, 1), -EROFS);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(open_flags_and_seek);
    RUN(attributes_survive_remount);
    RUN(punch_hole_frees_and_reads_zero);
    RUN(unlinked_open_file);
    RUN(many_orphans_after_crash);
    RUN(readdir_resumes_past_deleted_entries);
    RUN(symlinks_resolve_as_the_host_does);
    RUN(symlink_calls_and_limits);
    RUN(lchown_lutimens_change_the_link);
    return test_summary(argv[0]);
}

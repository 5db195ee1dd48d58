/*
 * test_lfs_chattr.c -- file attributes on LogFS (format 6, chattr's S, i,
 * a, d, A): every change an immutable or append-only file or directory
 * forbids answers EPERM and changes nothing, what stays allowed works,
 * the flags survive a remount, each change is one commit (a power cut at
 * any of its flash operations leaves the old flags or the new), a SYNC file
 * commits each write, a format-5 image keeps none, and fsck accepts the
 * bits and names an unknown one.
 */
#include "crc32.h"
#include "fsck.h"
#include "le.h"
#include "lfs_cuts.h"
#include "lfs_fixture.h"
#include "logfs/lfs.h"
#include "logfs/logfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

static nand_dev *mkdev(void)
{
    return LFS_FX_DEVICE(.blocks = 128, .pages = 64, .seed = 31);
}

static void put(logfs *fs, const char *path, const char *text)
{
    int fd = logfs_open(fs, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(logfs_write(fs, fd, text, strlen(text)), strlen(text));
    CHECK_EQ_INT(logfs_close(fs, fd), 0);
}

/* path holds exactly text. */
static void check_text(logfs *fs, const char *path, const char *text)
{
    char buf[256] = {0};
    int fd = logfs_open(fs, path, O_RDONLY, 0);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK_EQ_INT(logfs_pread(fs, fd, buf, sizeof buf - 1, 0), strlen(text));
    CHECK(!strcmp(buf, text));
    logfs_close(fs, fd);
}

static unsigned flags_of(logfs *fs, const char *path)
{
    unsigned f = 0xdead;
    CHECK_EQ_INT(logfs_getflags(fs, path, &f), 0);
    return f;
}

/* What neither an immutable nor an append-only file allows, each EPERM:
 * truncate, attribute and xattr changes, links, unlink and rename of it. */
static void check_locked(logfs *fs, const char *path, int wfd)
{
    CHECK_EQ_INT(logfs_truncate(fs, path, 0), -EPERM);
    CHECK_EQ_INT(logfs_ftruncate(fs, wfd, 1), -EPERM);
    CHECK_EQ_INT(logfs_punch(fs, wfd, 0, 4096), -EPERM);
    CHECK_EQ_INT(logfs_open(fs, path, O_WRONLY | O_APPEND | O_TRUNC, 0), -EPERM);
    CHECK_EQ_INT(logfs_chmod(fs, path, 0600), -EPERM);
    CHECK_EQ_INT(logfs_chown(fs, path, 1, 1), -EPERM);
    CHECK_EQ_INT(logfs_lchown(fs, path, 1, 1), -EPERM);
    CHECK_EQ_INT(logfs_utimens(fs, path, 5, 5), -EPERM);
    CHECK_EQ_INT(logfs_setxattr(fs, path, "user.k", "w", 1, 0), -EPERM);
    CHECK_EQ_INT(logfs_setxattr(fs, path, "user.new", "w", 1, 0), -EPERM);
    CHECK_EQ_INT(logfs_removexattr(fs, path, "user.k"), -EPERM);
    CHECK_EQ_INT(logfs_link(fs, path, "/other-name"), -EPERM);
    CHECK_EQ_INT(logfs_unlink(fs, path), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, path, "/moved"), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, "/victim", path), -EPERM); /* replacing it */
    CHECK_EQ_INT(logfs_rename2(fs, "/victim", path, FS_RENAME_EXCHANGE), -EPERM);
    /* what stays: reading, its attribute, and touching utimens' OMIT */
    char v[4] = {0};
    CHECK_EQ_INT(logfs_getxattr(fs, path, "user.k", v, sizeof v), 1);
    CHECK_EQ_INT(v[0], 'v');
    CHECK_EQ_INT(logfs_utimens(fs, path, LOGFS_TIME_OMIT, LOGFS_TIME_OMIT), 0);
    struct fs_stat st;
    CHECK_EQ_INT(logfs_stat(fs, "/moved", &st), -ENOENT);
    CHECK_EQ_INT(logfs_stat(fs, "/other-name", &st), -ENOENT);
    CHECK_EQ_INT(logfs_stat(fs, "/victim", &st), 0); /* not moved either */
}

TEST(chattr_immutable_file)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    put(fs, "/f", "hello");
    put(fs, "/victim", "v");
    REQUIRE(logfs_setxattr(fs, "/f", "user.k", "v", 1, 0) == 0);
    int wfd = logfs_open(fs, "/f", O_RDWR, 0); /* open before the flag */
    REQUIRE(wfd >= 0);
    CHECK_EQ_INT(flags_of(fs, "/f"), 0);
    struct fs_stat before, after;
    REQUIRE(logfs_stat(fs, "/f", &before) == 0);
    CHECK_EQ_INT(logfs_setflags(fs, "/f", FS_FL_IMMUTABLE), 0);
    CHECK_EQ_INT(flags_of(fs, "/f"), FS_FL_IMMUTABLE);
    REQUIRE(logfs_stat(fs, "/f", &before) == 0); /* setflags moved ctime */
    check_locked(fs, "/f", wfd);
    /* beyond what append-only forbids: any write, any open for writing,
     * an allocation, times set to now */
    CHECK_EQ_INT(logfs_pwrite(fs, wfd, "x", 1, 5), -EPERM);
    CHECK_EQ_INT(logfs_pwrite(fs, wfd, "x", 1, 0), -EPERM);
    CHECK_EQ_INT(logfs_allocate(fs, wfd, 0, 8192, FS_ALLOC_KEEP_SIZE), -EPERM);
    CHECK_EQ_INT(logfs_open(fs, "/f", O_WRONLY, 0), -EPERM);
    CHECK_EQ_INT(logfs_open(fs, "/f", O_RDWR, 0), -EPERM);
    CHECK_EQ_INT(logfs_open(fs, "/f", O_WRONLY | O_APPEND, 0), -EPERM);
    CHECK_EQ_INT(logfs_open(fs, "/f", O_RDONLY | O_TRUNC, 0), -EPERM);
    CHECK_EQ_INT(logfs_utimens(fs, "/f", LOGFS_TIME_NOW, LOGFS_TIME_NOW), -EPERM);
    /* only clearing i changes its attributes */
    CHECK_EQ_INT(logfs_setflags(fs, "/f", FS_FL_IMMUTABLE | FS_FL_NODUMP), -EPERM);
    CHECK_EQ_INT(flags_of(fs, "/f"), FS_FL_IMMUTABLE);
    REQUIRE(logfs_stat(fs, "/f", &after) == 0);
    CHECK_EQ_INT(after.size, before.size);
    CHECK_EQ_INT(after.mode, before.mode);
    CHECK_EQ_INT(after.nlink, 1);
    CHECK_EQ_INT(after.uid, before.uid);
    CHECK_EQ_INT(after.mtime, before.mtime);
    CHECK_EQ_INT(after.ctime, before.ctime);
    check_text(fs, "/f", "hello");
    /* cleared: everything works again */
    CHECK_EQ_INT(logfs_setflags(fs, "/f", FS_FL_NODUMP), 0);
    CHECK_EQ_INT(logfs_pwrite(fs, wfd, "!", 1, 5), 1);
    CHECK_EQ_INT(logfs_close(fs, wfd), 0);
    check_text(fs, "/f", "hello!");
    CHECK_EQ_INT(logfs_chmod(fs, "/f", 0600), 0);
    CHECK_EQ_INT(logfs_unlink(fs, "/f"), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(chattr_append_only_file)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    put(fs, "/f", "log1");
    put(fs, "/victim", "v");
    REQUIRE(logfs_setxattr(fs, "/f", "user.k", "v", 1, 0) == 0);
    int wfd = logfs_open(fs, "/f", O_RDWR, 0);
    REQUIRE(wfd >= 0);
    CHECK_EQ_INT(logfs_setflags(fs, "/f", FS_FL_APPEND), 0);
    check_locked(fs, "/f", wfd);
    /* an open for writing needs O_APPEND, as Linux */
    CHECK_EQ_INT(logfs_open(fs, "/f", O_WRONLY, 0), -EPERM);
    CHECK_EQ_INT(logfs_open(fs, "/f", O_RDWR, 0), -EPERM);
    /* only at the end */
    CHECK_EQ_INT(logfs_pwrite(fs, wfd, "x", 1, 0), -EPERM);
    CHECK_EQ_INT(logfs_pwrite(fs, wfd, "x", 1, 5), -EPERM); /* past it */
    CHECK_EQ_INT(logfs_pwrite(fs, wfd, ",2", 2, 4), 2);
    int afd = logfs_open(fs, "/f", O_WRONLY | O_APPEND, 0);
    CHECK(afd >= 0);
    CHECK_EQ_INT(logfs_write(fs, afd, ",3", 2), 2);
    CHECK_EQ_INT(logfs_close(fs, afd), 0);
    check_text(fs, "/f", "log1,2,3");
    /* allocating adds no data; touching sets no chosen time; other flags
     * change freely */
    CHECK_EQ_INT(logfs_allocate(fs, wfd, 0, 8192, FS_ALLOC_KEEP_SIZE), 0);
    CHECK_EQ_INT(logfs_utimens(fs, "/f", LOGFS_TIME_NOW, LOGFS_TIME_NOW), 0);
    CHECK_EQ_INT(logfs_setflags(fs, "/f", FS_FL_APPEND | FS_FL_NOATIME), 0);
    CHECK_EQ_INT(flags_of(fs, "/f"), FS_FL_APPEND | FS_FL_NOATIME);
    check_text(fs, "/f", "log1,2,3");
    CHECK_EQ_INT(logfs_close(fs, wfd), 0);
    CHECK_EQ_INT(logfs_setflags(fs, "/f", 0), 0);
    CHECK_EQ_INT(logfs_truncate(fs, "/f", 0), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* In an immutable directory no name comes or goes; its files' data
 * still changes.  In an append-only one names come, never go. */
TEST(chattr_directories)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/i", 0755) == 0 && logfs_mkdir(fs, "/i/sub", 0755) == 0);
    REQUIRE(logfs_mkdir(fs, "/a", 0755) == 0 && logfs_mkdir(fs, "/a/sub", 0755) == 0);
    put(fs, "/i/f", "in i");
    put(fs, "/a/f", "in a");
    put(fs, "/out", "out");
    put(fs, "/out2", "out2");
    CHECK_EQ_INT(logfs_setflags(fs, "/i", FS_FL_IMMUTABLE), 0);
    CHECK_EQ_INT(logfs_setflags(fs, "/a", FS_FL_APPEND), 0);
    /* immutable: nothing added ... */
    CHECK_EQ_INT(logfs_open(fs, "/i/new", O_WRONLY | O_CREAT, 0644), -EPERM);
    CHECK_EQ_INT(logfs_mkdir(fs, "/i/newdir", 0755), -EPERM);
    CHECK_EQ_INT(logfs_mknod(fs, "/i/fifo", S_IFIFO | 0644, 0), -EPERM);
    CHECK_EQ_INT(logfs_symlink(fs, "/out", "/i/ln"), -EPERM);
    CHECK_EQ_INT(logfs_link(fs, "/out", "/i/hard"), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, "/out", "/i/moved"), -EPERM);
    /* ... nothing removed or replaced, nothing about it changed */
    CHECK_EQ_INT(logfs_unlink(fs, "/i/f"), -EPERM);
    CHECK_EQ_INT(logfs_rmdir(fs, "/i/sub"), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, "/i/f", "/moved"), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, "/out", "/i/f"), -EPERM);
    CHECK_EQ_INT(logfs_rename2(fs, "/out", "/i/f", FS_RENAME_EXCHANGE), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, "/i", "/i2"), -EPERM);
    CHECK_EQ_INT(logfs_rmdir(fs, "/i"), -EPERM);
    CHECK_EQ_INT(logfs_chmod(fs, "/i", 0700), -EPERM);
    /* its files are not immutable */
    int fd = logfs_open(fs, "/i/f", O_WRONLY | O_TRUNC, 0);
    CHECK(fd >= 0);
    CHECK_EQ_INT(logfs_write(fs, fd, "changed", 7), 7);
    CHECK_EQ_INT(logfs_close(fs, fd), 0);
    check_text(fs, "/i/f", "changed");
    CHECK_EQ_INT(logfs_mkdir(fs, "/i/sub/deeper", 0755), 0);
    struct fs_stat st;
    CHECK_EQ_INT(logfs_stat(fs, "/i", &st), 0);
    CHECK_EQ_INT(st.size, 2); /* f and sub */
    CHECK_EQ_INT(logfs_stat(fs, "/out", &st), 0);
    /* append-only: names come ... */
    fd = logfs_open(fs, "/a/new", O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0);
    CHECK_EQ_INT(logfs_close(fs, fd), 0);
    CHECK_EQ_INT(logfs_mkdir(fs, "/a/newdir", 0755), 0);
    CHECK_EQ_INT(logfs_symlink(fs, "/out", "/a/ln"), 0);
    CHECK_EQ_INT(logfs_link(fs, "/out", "/a/hard"), 0);
    CHECK_EQ_INT(logfs_rename(fs, "/out2", "/a/moved"), 0);
    /* ... and never go */
    CHECK_EQ_INT(logfs_unlink(fs, "/a/f"), -EPERM);
    CHECK_EQ_INT(logfs_unlink(fs, "/a/hard"), -EPERM);
    CHECK_EQ_INT(logfs_rmdir(fs, "/a/sub"), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, "/a/f", "/moved"), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, "/a/f", "/a/f2"), -EPERM);
    CHECK_EQ_INT(logfs_rename(fs, "/out", "/a/f"), -EPERM); /* replacing */
    CHECK_EQ_INT(logfs_stat(fs, "/a", &st), 0);
    CHECK_EQ_INT(st.size, 7);
    /* cleared, the names go */
    CHECK_EQ_INT(logfs_setflags(fs, "/i", 0), 0);
    CHECK_EQ_INT(logfs_setflags(fs, "/a", 0), 0);
    CHECK_EQ_INT(logfs_unlink(fs, "/i/f"), 0);
    CHECK_EQ_INT(logfs_unlink(fs, "/a/f"), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* Every flag kept across a remount, each set in a commit of its own;
 * fsck takes them; unknown bits are refused. */
TEST(chattr_flags_survive_remount)
{
    static const unsigned each[] = {FS_FL_SYNC, FS_FL_IMMUTABLE, FS_FL_APPEND, FS_FL_NODUMP,
                                    FS_FL_NOATIME};
    const unsigned all = FS_FL_SYNC | FS_FL_APPEND | FS_FL_NODUMP | FS_FL_NOATIME;
    char path[32];
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/dir", 0755) == 0);
    for (unsigned i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "/f%u", i);
        put(fs, path, "data");
        uint64_t c = lfs_fx_stats(fs).commits;
        CHECK_EQ_INT(logfs_setflags(fs, path, each[i]), 0);
        CHECK_EQ_INT(lfs_fx_stats(fs).commits, c + 1);
    }
    put(fs, "/all", "data");
    CHECK_EQ_INT(logfs_setflags(fs, "/all", all), 0);
    CHECK_EQ_INT(logfs_setflags(fs, "/dir", FS_FL_APPEND | FS_FL_NODUMP), 0);
    /* no change, no commit */
    uint64_t c = lfs_fx_stats(fs).commits;
    CHECK_EQ_INT(logfs_setflags(fs, "/all", all), 0);
    CHECK_EQ_INT(lfs_fx_stats(fs).commits, c);
    /* refused: bits LogFS does not keep (Linux's SECRM, COMPR, DIRSYNC) */
    CHECK_EQ_INT(logfs_setflags(fs, "/all", all | 0x1), -EOPNOTSUPP);
    CHECK_EQ_INT(logfs_setflags(fs, "/all", 0x4), -EOPNOTSUPP);
    CHECK_EQ_INT(logfs_setflags(fs, "/all", 0x10000), -EOPNOTSUPP);
    CHECK_EQ_INT(logfs_setflags(fs, "/none", 0), -ENOENT);
    unsigned f;
    CHECK_EQ_INT(logfs_getflags(fs, "/none", &f), -ENOENT);
    /* a symbolic link is followed, as ioctl on an open file */
    REQUIRE(logfs_symlink(fs, "/f3", "/ln") == 0);
    CHECK_EQ_INT(flags_of(fs, "/ln"), FS_FL_NODUMP);
    REQUIRE(logfs_unmount(fs) == 0);
    lfs_fx_fsck_clean(d);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    for (unsigned i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "/f%u", i);
        CHECK_EQ_INT(flags_of(fs, path), each[i]);
    }
    CHECK_EQ_INT(flags_of(fs, "/all"), all);
    CHECK_EQ_INT(flags_of(fs, "/dir"), FS_FL_APPEND | FS_FL_NODUMP);
    CHECK_EQ_INT(logfs_unlink(fs, "/f1"), -EPERM);
    CHECK_EQ_INT(logfs_truncate(fs, "/f2", 0), -EPERM);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* A flag set and the power cut before any other commit: it is there. */
TEST(chattr_change_is_durable_at_once)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    put(fs, "/f", "data");
    CHECK_EQ_INT(logfs_setflags(fs, "/f", FS_FL_IMMUTABLE), 0);
    nand_power_cut(d);
    logfs_unmount(fs); /* the flash is dead: nothing more reaches it */
    nand_power_on(d);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    CHECK_EQ_INT(flags_of(fs, "/f"), FS_FL_IMMUTABLE);
    check_text(fs, "/f", "data");
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* A power cut at every flash operation of one setflags: the image mounts,
 * fsck finds it clean, and the file's flags are the old ones or the new
 * ones, never others; both occur. */
static const unsigned cut_from = FS_FL_APPEND, cut_to = FS_FL_IMMUTABLE | FS_FL_NODUMP;

static int cut_step(const struct fsapi_fs *m, void *ctx)
{
    (void)ctx;
    return fsapi_setflags(m, "/f", cut_to);
}

static int cut_flags_are(const struct fsapi_fs *m, int after, void *ctx)
{
    (void)ctx;
    unsigned got;
    return !fsapi_getflags(m, "/f", &got) && got == (after ? cut_to : cut_from);
}

TEST(chattr_cut_at_every_operation)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    put(fs, "/f", "data");
    REQUIRE(logfs_setflags(fs, "/f", cut_from) == 0 && logfs_unmount(fs) == 0);
    lfs_cut_every_op(d, "setflags", cut_step, cut_flags_are, NULL);
    nand_close(d);
}

/* chattr +S: each write returns committed; without it, writes wait for
 * the dirty limit. */
TEST(chattr_sync_commits_each_write)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    put(fs, "/plain", "");
    put(fs, "/sync", "");
    REQUIRE(logfs_setflags(fs, "/sync", FS_FL_SYNC) == 0);
    int p = logfs_open(fs, "/plain", O_WRONLY, 0), s = logfs_open(fs, "/sync", O_WRONLY, 0);
    REQUIRE(p >= 0 && s >= 0);
    uint64_t c = lfs_fx_stats(fs).commits;
    for (unsigned i = 0; i < 3; i++)
        CHECK_EQ_INT(logfs_pwrite(fs, p, "abcd", 4, 4 * i), 4);
    CHECK_EQ_INT(lfs_fx_stats(fs).commits, c);
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ_INT(logfs_pwrite(fs, s, "abcd", 4, 4 * i), 4);
        CHECK_EQ_INT(lfs_fx_stats(fs).commits, c + 1 + i);
    }
    logfs_close(fs, p);
    logfs_close(fs, s);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* ---- a seeded random run against a model of Linux's rules ------------- */

/* Two directories of three names each; a name holds an inode (hard links
 * share one).  The model keeps every inode's flags and bytes. */
#define R_DIRS 2
#define R_NAMES 3
#define R_SLOTS (R_DIRS * R_NAMES)
#define R_MAXB 256
struct r_inode {
    unsigned flags;
    uint32_t size;
    uint8_t data[R_MAXB];
};
struct r_model {
    unsigned dflags[R_DIRS];
    int slot[R_SLOTS]; /* inode index, -1: no such name */
    struct r_inode in[4096];
    int nin;
};

static void r_path(int slot, char *p, size_t n)
{
    snprintf(p, n, "/d%d/f%d", slot / R_NAMES, slot % R_NAMES);
}

static int r_frozen(unsigned fl)
{
    return (fl & (FS_FL_IMMUTABLE | FS_FL_APPEND)) != 0;
}

/* Linux's may_delete and may_create for the model's names */
static int r_may_drop(const struct r_model *m, int slot)
{
    return r_frozen(m->dflags[slot / R_NAMES]) || r_frozen(m->in[m->slot[slot]].flags)
               ? -EPERM : 0;
}
static int r_may_add(const struct r_model *m, int slot)
{
    return m->dflags[slot / R_NAMES] & FS_FL_IMMUTABLE ? -EPERM : 0;
}

/* One random operation, its result against the model's, and the model
 * moved on when it succeeded: 0 or -1. */
static int r_step(logfs *fs, struct r_model *m, uint64_t *rng)
{
    static const unsigned pick[] = {0, FS_FL_IMMUTABLE, FS_FL_APPEND, FS_FL_NODUMP,
                                    FS_FL_IMMUTABLE | FS_FL_APPEND, FS_FL_SYNC};
    int a = (int)(fx_next(rng) % R_SLOTS), b = (int)(fx_next(rng) % R_SLOTS);
    int ia = m->slot[a], ib = m->slot[b];
    char pa[32], pb[32];
    r_path(a, pa, sizeof pa);
    r_path(b, pb, sizeof pb);
    int op = (int)(fx_next(rng) % 7), want, rc;
    switch (op) {
    case 0: { /* setflags on a name or a directory */
        unsigned fl = pick[fx_next(rng) % 6];
        int dir = fx_next(rng) % 4 == 0;
        unsigned *old = dir ? &m->dflags[a / R_NAMES] : ia < 0 ? NULL : &m->in[ia].flags;
        char pd[8];
        snprintf(pd, sizeof pd, "/d%d", a / R_NAMES);
        want = !old ? -ENOENT
             : (*old & fl & FS_FL_IMMUTABLE) && fl != *old ? -EPERM : 0;
        rc = logfs_setflags(fs, dir ? pd : pa, fl);
        if (!rc && !want)
            *old = fl;
        break;
    }
    case 1: { /* open for writing, with or without O_APPEND, and write */
        int app = (int)(fx_next(rng) % 2);
        uint8_t buf[32];
        uint32_t len = 1 + (uint32_t)(fx_next(rng) % sizeof buf);
        fx_fill(buf, len, fx_next(rng));
        if (ia < 0) {
            want = r_may_add(m, a);
            rc = logfs_open(fs, pa, O_WRONLY | O_CREAT | (app ? O_APPEND : 0), 0644);
        } else {
            unsigned fl = m->in[ia].flags;
            want = fl & FS_FL_IMMUTABLE || (fl & FS_FL_APPEND && !app) ? -EPERM : 0;
            rc = logfs_open(fs, pa, O_WRONLY | (app ? O_APPEND : 0), 0);
        }
        if (rc < 0 || want)
            break;
        int fd = rc;
        if (ia < 0) {
            ia = m->slot[a] = m->nin++;
            memset(&m->in[ia], 0, sizeof m->in[ia]);
        }
        struct r_inode *in = &m->in[ia];
        uint32_t off = app ? in->size : (uint32_t)(fx_next(rng) % (in->size + 2));
        if (off + len > R_MAXB) {
            rc = logfs_close(fs, fd);
            break;
        }
        int64_t n = app ? logfs_write(fs, fd, buf, len) : logfs_pwrite(fs, fd, buf, len, off);
        want = in->flags & FS_FL_APPEND && off != in->size ? -EPERM : (int)len;
        if (n == want && n > 0) {
            memset(in->data + in->size, 0, off > in->size ? off - in->size : 0);
            memcpy(in->data + off, buf, len);
            in->size = off + len > in->size ? off + len : in->size;
        }
        rc = logfs_close(fs, fd) ? -1000 : (int)n;
        if (rc == want)
            return 0;
        break;
    }
    case 2: { /* truncate */
        uint32_t size = (uint32_t)(fx_next(rng) % 64);
        want = ia < 0 ? -ENOENT : r_frozen(m->in[ia].flags) ? -EPERM : 0;
        rc = logfs_truncate(fs, pa, size);
        if (!rc && !want) {
            struct r_inode *in = &m->in[ia];
            if (size > in->size)
                memset(in->data + in->size, 0, size - in->size);
            in->size = size;
        }
        break;
    }
    case 3: /* unlink */
        want = ia < 0 ? -ENOENT : r_may_drop(m, a);
        rc = logfs_unlink(fs, pa);
        if (!rc && !want)
            m->slot[a] = -1;
        break;
    case 4: /* rename a to b, replacing it */
        want = ia < 0 ? -ENOENT : ia == ib ? 0 : r_may_drop(m, a);
        if (!want && ia != ib)
            want = ib >= 0 ? r_may_drop(m, b) : r_may_add(m, b);
        rc = logfs_rename(fs, pa, pb);
        if (!rc && !want && ia != ib) {
            m->slot[b] = ia;
            m->slot[a] = -1;
        }
        break;
    default: /* link a as b */
        want = ia < 0 ? -ENOENT : ib >= 0 ? -EEXIST : r_may_add(m, b);
        if (!want)
            want = r_frozen(m->in[ia].flags) ? -EPERM : 0;
        rc = logfs_link(fs, pa, pb);
        if (!rc && !want)
            m->slot[b] = ia;
        break;
    }
    if (op == 1 && rc >= 0 && !want)
        return 0; /* opened, and no room left in the model to write */
    if (rc != want) {
        fprintf(stderr, "op %d on %s (%s): %d, the model says %d\n", op, pa, pb, rc, want);
        return -1;
    }
    return 0;
}

/* Every name, its flags and its bytes as the model has them. */
static int r_check(logfs *fs, const struct r_model *m)
{
    char p[32];
    uint8_t buf[R_MAXB + 1];
    for (int s = 0; s < R_SLOTS; s++) {
        r_path(s, p, sizeof p);
        unsigned fl = 0;
        int rc = logfs_getflags(fs, p, &fl);
        if (m->slot[s] < 0) {
            if (rc != -ENOENT)
                return fprintf(stderr, "%s exists, not in the model\n", p), -1;
            continue;
        }
        const struct r_inode *in = &m->in[m->slot[s]];
        int fd = logfs_open(fs, p, O_RDONLY, 0);
        int64_t n = fd < 0 ? fd : logfs_pread(fs, fd, buf, sizeof buf, 0);
        if (fd >= 0)
            logfs_close(fs, fd);
        if (rc || fl != in->flags || n != in->size || memcmp(buf, in->data, in->size))
            return fprintf(stderr, "%s: flags %#x/%#x, %lld/%u bytes\n", p, fl, in->flags,
                           (long long)n, in->size), -1;
    }
    return 0;
}

/* Random writes, truncates, unlinks, renames, links and flag changes:
 * each result is the one Linux's rules give, a refused call changes
 * nothing, and every 100 calls a remount keeps it all. */
TEST(chattr_model_random_ops)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        nand_dev *d = mkdev();
        logfs *fs;
        REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
        REQUIRE(logfs_mkdir(fs, "/d0", 0755) == 0 && logfs_mkdir(fs, "/d1", 0755) == 0);
        struct r_model *m = calloc(1, sizeof *m);
        REQUIRE(m);
        for (int s = 0; s < R_SLOTS; s++)
            m->slot[s] = -1;
        uint64_t rng = seed;
        int bad = 0, dir_flagged = 0;
        for (int i = 0; i < 2000 && !bad; i++) {
            bad = r_step(fs, m, &rng) || r_check(fs, m);
            if (i % 100 == 99) {
                REQUIRE(logfs_unmount(fs) == 0 && logfs_mount(d, NULL, &fs) == 0);
                bad = bad || r_check(fs, m);
            }
            dir_flagged += m->dflags[0] || m->dflags[1];
        }
        CHECK(!bad);
        CHECK(dir_flagged > 100); /* the directories' flags were in play */
        free(m);
        REQUIRE(logfs_unmount(fs) == 0);
        lfs_fx_fsck_clean(d);
        nand_close(d);
    }
}

/* Rewrite the superblock in block 0 to say format 5 (read and write). */
static void make_v5(nand_dev *d)
{
    const struct nand_config *c = nand_get_config(d);
    uint8_t *page = malloc(c->geo.page_size);
    REQUIRE(page && nand_read(d, 0, 0, page, NULL, NULL) == 0);
    le32_put(page + 8, 5);
    le32_put(page + 12, 5);
    le32_put(page + 252, flashlab_crc32(0, page, 252));
    REQUIRE(nand_erase(d, 0, NULL) == 0 && nand_program(d, 0, 0, page, NULL, NULL) == 0);
    free(page);
}

/* Format 5 keeps no flags: setting one is EOPNOTSUPP, setting none
 * changes nothing, and the image stays format 5. */
TEST(chattr_format5_keeps_none)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d);
    make_v5(d);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    put(fs, "/f", "data");
    CHECK_EQ_INT(logfs_setflags(fs, "/f", FS_FL_IMMUTABLE), -EOPNOTSUPP);
    CHECK_EQ_INT(logfs_setflags(fs, "/f", FS_FL_NODUMP), -EOPNOTSUPP);
    CHECK_EQ_INT(logfs_setflags(fs, "/f", 0), 0);
    CHECK_EQ_INT(flags_of(fs, "/f"), 0);
    CHECK_EQ_INT(logfs_unlink(fs, "/f"), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    uint32_t rv = 0, wv = 0;
    CHECK_EQ_INT(logfs_format_version(d, &rv, &wv), 0);
    CHECK_EQ_INT(rv, 5);
    CHECK_EQ_INT(wv, 5);
    nand_close(d);
}

/* The first fsck error about inode ino, or NULL. */
static const char *fsck_error_on(const struct fsck_report *r, int64_t ino)
{
    for (size_t i = 0; i < r->nmsgs; i++)
        if (r->msgs[i].ino == ino && r->msgs[i].severity == FSCK_ERROR)
            return r->msgs[i].text;
    return NULL;
}

/* fsck names a flag bit no version defines, and one of version 6 in a
 * format-5 image. */
static void check_fsck_flags(int v5, unsigned bit, const char *says)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d);
    if (v5)
        make_v5(d);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    put(fs, "/f", "data");
    struct fs_stat st;
    REQUIRE(logfs_stat(fs, "/f", &st) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    struct lfs_inode *in;
    REQUIRE(lfs_inode_get(fs, st.ino, &in) == 0);
    in->flags |= bit; /* as LogFS itself never writes it */
    lfs_inode_dirty(fs, in);
    REQUIRE(logfs_unmount(fs) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_run(d, 0, &r), FSCK_ERRORS);
    const char *t = fsck_error_on(&r, (int64_t)st.ino);
    CHECK(t && strstr(t, says));
    if (t)
        fprintf(stderr, "fsck: %s\n", t);
    fsck_report_free(&r);
    nand_close(d);
}

TEST(chattr_fsck_unknown_bits)
{
    check_fsck_flags(0, 0x100, "flags 0x100 has unknown bits");
    check_fsck_flags(0, 0x4, "flags 0x4 has unknown bits");
    check_fsck_flags(1, FS_FL_IMMUTABLE, "chattr flags 0x10 in a version-5 image");
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(chattr_immutable_file);
    RUN(chattr_append_only_file);
    RUN(chattr_directories);
    RUN(chattr_flags_survive_remount);
    RUN(chattr_change_is_durable_at_once);
    RUN(chattr_cut_at_every_operation);
    RUN(chattr_sync_commits_each_write);
    RUN(chattr_model_random_ops);
    RUN(chattr_format5_keeps_none);
    RUN(chattr_fsck_unknown_bits);
    return test_summary(argv[0]);
}

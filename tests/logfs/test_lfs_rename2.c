/*
 * test_lfs_rename2.c -- renameat2's flags through fsapi (fsapi_rename2):
 * EXCHANGE of files, directories, a directory with a file, within and
 * across directories ("..", parents' link counts and entry types
 * following), refused where Linux refuses; WHITEOUT (a character device
 * 0/0 left behind); NOREPLACE; a kind without rename2.  Then a power cut
 * at every flash operation of an exchange and its sync: afterwards the
 * names are exactly as before or exactly as after, and fsck is clean.
 */
#include "lfs_fixture.h"
#include "lfs_cuts.h"
#include "fsapi.h"
#include "fsck.h"
#include "fsdigest.h"
#include "logfs/logfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static uint64_t ino_of(const struct fsapi_fs *m, const char *path)
{
    struct fs_stat st;
    return m->api->lstat(m->fs, path, &st) ? 0 : st.ino;
}

static uint32_t nlink_of(const struct fsapi_fs *m, const char *path)
{
    struct fs_stat st;
    return m->api->lstat(m->fs, path, &st) ? 0 : st.nlink;
}

static void put(const struct fsapi_fs *m, const char *path, const char *text)
{
    int fd = m->api->open(m->fs, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(m->api->pwrite(m->fs, fd, text, strlen(text), 0) == (int64_t)strlen(text));
    REQUIRE(m->api->close(m->fs, fd) == 0);
}

/* The type readdir gives name in dir (S_IFMT bits), 0 if not listed. */
struct find {
    const char *name;
    uint32_t type;
};
static int find_one(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct find *f = ctx;
    (void)ino;
    if (!strcmp(name, f->name))
        f->type = type;
    return 0;
}
static uint32_t listed_type(const struct fsapi_fs *m, const char *dir, const char *name)
{
    struct find f = {name, 0};
    uint64_t cookie = 0;
    return m->api->readdir(m->fs, dir, &cookie, find_one, &f) ? 0 : f.type;
}

/* The tree every test starts from: /p/d (a directory holding x), /p/f
 * and /q/g (files), /q/e (a directory holding y). */
static void tree(const struct fsapi_fs *m)
{
    REQUIRE(m->api->mkdir(m->fs, "/p", 0755) == 0);
    REQUIRE(m->api->mkdir(m->fs, "/q", 0755) == 0);
    REQUIRE(m->api->mkdir(m->fs, "/p/d", 0755) == 0);
    REQUIRE(m->api->mkdir(m->fs, "/q/e", 0700) == 0);
    put(m, "/p/d/x", "x");
    put(m, "/q/e/y", "y");
    put(m, "/p/f", "file f");
    put(m, "/q/g", "file g");
}

/* A fresh LogFS holding tree(), mounted in *m; NULL when it cannot be made. */
static nand_dev *start(struct fsapi_fs *m)
{
    nand_dev *d = LFS_FX_DEVICE(.blocks = 96, .pages = 16, .seed = 5);
    *m = d ? lfs_cut_mount(d) : (struct fsapi_fs){0};
    if (d && !m->fs) {
        nand_close(d);
        return NULL;
    }
    if (d)
        tree(m);
    return d;
}

/* Unmount, fsck must find the LogFS image clean, close. */
static void finish(nand_dev *d, struct fsapi_fs *m)
{
    CHECK_EQ_INT(m->api->unmount(m->fs), 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_run(d, 0, &r), FSCK_CLEAN);
    fsck_report_free(&r);
    nand_close(d);
}

TEST(exchange_files)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    REQUIRE(m.api->link(m.fs, "/p/f", "/p/f2") == 0);
    uint64_t f = ino_of(&m, "/p/f"), g = ino_of(&m, "/q/g");
    uint32_t np = nlink_of(&m, "/p"), nq = nlink_of(&m, "/q");
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/q/g", FS_RENAME_EXCHANGE), 0);
    CHECK_EQ_INT(ino_of(&m, "/p/f"), g);
    CHECK_EQ_INT(ino_of(&m, "/q/g"), f);
    CHECK_EQ_INT(ino_of(&m, "/p/f2"), f);
    CHECK_EQ_INT(nlink_of(&m, "/q/g"), 2); /* the links of each file stay */
    CHECK_EQ_INT(nlink_of(&m, "/p/f"), 1);
    CHECK_EQ_INT(nlink_of(&m, "/p"), np);
    CHECK_EQ_INT(nlink_of(&m, "/q"), nq);
    /* within one directory, and back */
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/p/f2", FS_RENAME_EXCHANGE), 0);
    CHECK_EQ_INT(ino_of(&m, "/p/f"), f);
    CHECK_EQ_INT(ino_of(&m, "/p/f2"), g);
    /* two names of one file: nothing to do */
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/q/g", FS_RENAME_EXCHANGE), 0);
    CHECK_EQ_INT(ino_of(&m, "/p/f"), f);
    CHECK_EQ_INT(ino_of(&m, "/q/g"), f);
    REQUIRE(m.api->unmount(m.fs) == 0);
    m = lfs_cut_mount(d); /* the commit holds it */
    REQUIRE(m.fs);
    CHECK_EQ_INT(ino_of(&m, "/p/f2"), g);
    char buf[16] = {0};
    int fd = m.api->open(m.fs, "/p/f2", O_RDONLY, 0);
    CHECK(fd >= 0 && m.api->pread(m.fs, fd, buf, sizeof buf, 0) == 6 && !strcmp(buf, "file g"));
    m.api->close(m.fs, fd);
    finish(d, &m);
}

TEST(exchange_directories)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    uint64_t p = ino_of(&m, "/p"), q = ino_of(&m, "/q");
    uint32_t np = nlink_of(&m, "/p"), nq = nlink_of(&m, "/q");
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/d", "/q/e", FS_RENAME_EXCHANGE), 0);
    CHECK(ino_of(&m, "/p/d/y") && ino_of(&m, "/q/e/x"));
    CHECK_EQ_INT(ino_of(&m, "/p/d/x"), 0);
    CHECK_EQ_INT(ino_of(&m, "/p/d/.."), p); /* ".." follows the new parent */
    CHECK_EQ_INT(ino_of(&m, "/q/e/.."), q);
    CHECK_EQ_INT(nlink_of(&m, "/p"), np); /* a directory each way */
    CHECK_EQ_INT(nlink_of(&m, "/q"), nq);
    struct fs_stat st;
    CHECK(m.api->lstat(m.fs, "/p/d", &st) == 0 && (st.mode & 07777) == 0700);
    finish(d, &m);
}

TEST(exchange_directory_with_file)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    uint64_t q = ino_of(&m, "/q"), dir = ino_of(&m, "/p/d"), file = ino_of(&m, "/q/g");
    uint32_t np = nlink_of(&m, "/p"), nq = nlink_of(&m, "/q");
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/d", "/q/g", FS_RENAME_EXCHANGE), 0);
    CHECK_EQ_INT(ino_of(&m, "/q/g"), dir);
    CHECK_EQ_INT(ino_of(&m, "/p/d"), file);
    CHECK(ino_of(&m, "/q/g/x"));
    CHECK_EQ_INT(ino_of(&m, "/q/g/.."), q);
    CHECK_EQ_INT(nlink_of(&m, "/p"), np - 1); /* the directory's ".." moved */
    CHECK_EQ_INT(nlink_of(&m, "/q"), nq + 1);
    CHECK_EQ_INT(listed_type(&m, "/q", "g"), S_IFDIR);
    CHECK_EQ_INT(listed_type(&m, "/p", "d"), S_IFREG);
    /* the other way round, file first */
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/d", "/q/g", FS_RENAME_EXCHANGE), 0);
    CHECK_EQ_INT(nlink_of(&m, "/p"), np);
    CHECK_EQ_INT(nlink_of(&m, "/q"), nq);
    CHECK_EQ_INT(listed_type(&m, "/p", "d"), S_IFDIR);
    finish(d, &m);
}

/* What Linux refuses, refused the same way, and nothing changed. */
TEST(exchange_refused)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    uint64_t h0, h1;
    REQUIRE(wl_fs_digest(&m, &h0, NULL) == 0);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/p/missing", FS_RENAME_EXCHANGE), -ENOENT);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/missing", "/p/f", FS_RENAME_EXCHANGE), -ENOENT);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p", "/p/d", FS_RENAME_EXCHANGE), -EINVAL);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/d/x", "/p", FS_RENAME_EXCHANGE), -EINVAL);
    CHECK_EQ_INT(fsapi_rename2(&m, "/", "/p", FS_RENAME_EXCHANGE), -EBUSY);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p", "/", FS_RENAME_EXCHANGE), -EBUSY);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/q/g", FS_RENAME_EXCHANGE | FS_RENAME_NOREPLACE),
                 -EINVAL);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/q/g", FS_RENAME_EXCHANGE | FS_RENAME_WHITEOUT),
                 -EINVAL);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/q/g", 8), -EINVAL);
    CHECK_EQ_INT(logfs_rename2(m.fs, "/p/f", "/q/g", 8), -EINVAL);
    REQUIRE(wl_fs_digest(&m, &h1, NULL) == 0);
    CHECK(h0 == h1);
    finish(d, &m);
}

TEST(whiteout_and_noreplace)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    uint64_t f = ino_of(&m, "/p/f"), g = ino_of(&m, "/q/g");
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/q/g", FS_RENAME_NOREPLACE), -EEXIST);
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/q/g", FS_RENAME_NOREPLACE | FS_RENAME_WHITEOUT),
                 -EEXIST);
    CHECK_EQ_INT(ino_of(&m, "/p/f"), f);
    CHECK_EQ_INT(ino_of(&m, "/q/g"), g);
    /* a whiteout replacing a file */
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/f", "/q/g", FS_RENAME_WHITEOUT), 0);
    CHECK_EQ_INT(ino_of(&m, "/q/g"), f);
    struct fs_stat st;
    REQUIRE(m.api->lstat(m.fs, "/p/f", &st) == 0);
    CHECK_EQ_INT(st.mode, S_IFCHR);
    CHECK_EQ_INT(st.rdev, 0);
    CHECK(st.ino != f && st.ino != g);
    CHECK_EQ_INT(listed_type(&m, "/p", "f"), S_IFCHR);
    /* a directory moved with a whiteout; NOREPLACE onto a free name */
    uint32_t np = nlink_of(&m, "/p"), nq = nlink_of(&m, "/q");
    CHECK_EQ_INT(fsapi_rename2(&m, "/p/d", "/q/d", FS_RENAME_WHITEOUT | FS_RENAME_NOREPLACE),
                 0);
    CHECK_EQ_INT(nlink_of(&m, "/p"), np - 1);
    CHECK_EQ_INT(nlink_of(&m, "/q"), nq + 1);
    CHECK(m.api->lstat(m.fs, "/p/d", &st) == 0 && S_ISCHR(st.mode));
    CHECK(ino_of(&m, "/q/d/x"));
    finish(d, &m);
}

/* A kind without rename2: NOREPLACE by an lstat first, EXCHANGE and
 * WHITEOUT declined. */
TEST(kind_without_rename2)
{
    nand_dev *d = FX_DEVICE(.blocks = 96, .pages = 16, .seed = 6);
    REQUIRE(d && !fsapi_blockfs.rename2);
    REQUIRE(fsapi_blockfs.mkfs(d, NULL) == 0);
    struct fsapi_fs m = {&fsapi_blockfs, NULL};
    REQUIRE(fsapi_blockfs.mount(d, NULL, &m.fs) == 0);
    put(&m, "/a", "a");
    put(&m, "/b", "b");
    uint64_t a = ino_of(&m, "/a");
    CHECK_EQ_INT(fsapi_rename2(&m, "/a", "/b", FS_RENAME_EXCHANGE), -ENOTSUP);
    CHECK_EQ_INT(fsapi_rename2(&m, "/a", "/b", FS_RENAME_WHITEOUT), -ENOTSUP);
    CHECK_EQ_INT(fsapi_rename2(&m, "/a", "/b", FS_RENAME_NOREPLACE), -EEXIST);
    CHECK_EQ_INT(fsapi_rename2(&m, "/a", "/c", FS_RENAME_NOREPLACE), 0);
    CHECK_EQ_INT(ino_of(&m, "/c"), a);
    CHECK_EQ_INT(fsapi_rename2(&m, "/c", "/b", 0), 0);
    CHECK_EQ_INT(ino_of(&m, "/b"), a);
    CHECK_EQ_INT(m.api->unmount(m.fs), 0);
    nand_close(d); /* fsck reads LogFS only */
}

/* A power cut at every flash operation of one exchange and the sync that
 * commits it (flags: the rename's): the names are those before the call
 * or those after it (lfs_cuts.h). */
struct rename_step {
    const char *from, *to;
    unsigned flags;
};

static int rename_and_sync(const struct fsapi_fs *m, void *ctx)
{
    const struct rename_step *s = ctx;
    int rc = fsapi_rename2(m, s->from, s->to, s->flags);
    return rc ? rc : m->api->sync(m->fs);
}

static void cut_campaign(const char *from, const char *to, unsigned flags)
{
    struct fsapi_fs m;
    nand_dev *d = start(&m);
    REQUIRE(d);
    REQUIRE(m.api->sync(m.fs) == 0);
    REQUIRE(m.api->unmount(m.fs) == 0);
    char what[256];
    snprintf(what, sizeof what, "%s <-> %s", from, to);
    struct rename_step s = {from, to, flags};
    lfs_cut_every_op(d, what, rename_and_sync, NULL, &s);
    nand_close(d);
}

TEST(exchange_cut_at_every_operation)
{
    cut_campaign("/p/d", "/q/g", FS_RENAME_EXCHANGE);
    cut_campaign("/p/d", "/q/e", FS_RENAME_EXCHANGE);
    cut_campaign("/p/f", "/q/g", FS_RENAME_WHITEOUT);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(exchange_files);
    RUN(exchange_directories);
    RUN(exchange_directory_with_file);
    RUN(exchange_refused);
    RUN(whiteout_and_noreplace);
    RUN(kind_without_rename2);
    RUN(exchange_cut_at_every_operation);
    return test_summary(argv[0]);
}

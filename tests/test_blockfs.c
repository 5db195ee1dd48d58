/*
 * test_blockfs.c -- the naive in-place baseline (fs/blockfs.h) through the
 * fsapi table: a round trip of every kind of object with remounts, ENOSPC
 * and recovery, the wear hot spot of its metadata erase blocks, the data
 * a power cut during a write-back loses (of a file nobody was writing),
 * and a random model test of all the operations with remounts.
 */
#include "blockfs.h"
#include "fsapi.h"
#include "lfs_model.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static const struct fsapi *A;

/* 256 erase blocks of 16 pages of 2 KiB (8 MiB), no bit errors. */
static double bad_fraction;

static nand_dev *mkdev(uint32_t blocks, uint64_t seed)
{
    struct nand_config c;
    nand_config_init(&c);
    c.geo.blocks_per_plane = blocks;
    c.geo.pages_per_block = 16;
    c.geo.page_size = 2048;
    c.geo.oob_size = 64;
    memset(&c.rber, 0, sizeof c.rber);
    c.seed = seed;
    c.factory_bad_fraction = bad_fraction;
    nand_dev *d = NULL;
    return nand_create(&c, &d) ? NULL : d;
}

static void pattern(uint8_t *b, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        b[i] = (uint8_t)(seed >> 56);
    }
}

static int64_t write_file(void *fs, const char *path, const void *buf, uint64_t n)
{
    int fd = A->open(fs, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fd;
    int64_t w = A->pwrite(fs, fd, buf, n, 0);
    A->close(fs, fd);
    return w;
}

/* 1 if path holds exactly buf[0..n). */
static int same_file(void *fs, const char *path, const void *buf, uint64_t n)
{
    int fd = A->open(fs, path, O_RDONLY, 0);
    if (fd < 0)
        return 0;
    uint8_t *got = malloc(n + 16);
    int64_t r = A->pread(fs, fd, got, n + 16, 0);
    int ok = r == (int64_t)n && !memcmp(got, buf, n);
    free(got);
    A->close(fs, fd);
    return ok;
}

static int count_ent(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    (void)name;
    (void)ino;
    (void)type;
    ++*(int *)ctx;
    return 0;
}

static int dir_entries(void *fs, const char *path)
{
    int n = 0;
    uint64_t cookie = 0;
    int rc = A->readdir(fs, path, &cookie, count_ent, &n);
    return rc ? rc : n;
}

TEST(table_entry)
{
    REQUIRE(A != NULL);
    CHECK(!strcmp(A->name, "blockfs"));
    nand_dev *d = mkdev(64, 1);
    REQUIRE(d);
    CHECK_EQ_INT(A->mkfs(d, "block_size=4096,inodes=256"), 0);
    CHECK_EQ_INT(A->mkfs(d, "block_size=1000"), -EINVAL);
    CHECK_EQ_INT(A->mkfs(d, "colour=blue"), -EINVAL);
    void *fs;
    REQUIRE(A->mount(d, NULL, &fs) == 0);
    struct fsapi_mount_work w;
    A->mount_work(fs, &w);
    CHECK_EQ_INT(w.nodes_indexed, 1); /* the root */
    CHECK(w.bytes_checksummed >= 256 * 128); /* the inode table at least */
    CHECK(A->mem_bytes(fs) > 256 * 128);
    struct logfs_statfs sf;
    CHECK_EQ_INT(A->statfs(fs, &sf), 0);
    CHECK_EQ_INT(sf.block_size, 4096);
    CHECK(sf.free_bytes == sf.total_bytes && sf.files == 0);
    CHECK_EQ_INT(A->unmount(fs), 0);
    nand_close(d);
}

TEST(round_trip)
{
    nand_dev *d = mkdev(256, 2);
    REQUIRE(d && A->mkfs(d, NULL) == 0);
    void *fs;
    REQUIRE(A->mount(d, NULL, &fs) == 0);
    static uint8_t big[300000], small[5000];
    pattern(big, sizeof big, 7);
    pattern(small, sizeof small, 8);
    CHECK_EQ_INT(A->mkdir(fs, "/d", 0755), 0);
    CHECK_EQ_INT(A->mkdir(fs, "/d/e", 0755), 0);
    CHECK_EQ_INT(A->mkdir(fs, "/d", 0755), -EEXIST);
    CHECK_EQ_INT(write_file(fs, "/d/big", big, sizeof big), (int64_t)sizeof big);
    CHECK_EQ_INT(write_file(fs, "/small", small, sizeof small), (int64_t)sizeof small);
    CHECK_EQ_INT(A->link(fs, "/small", "/d/e/hard"), 0);
    CHECK_EQ_INT(A->link(fs, "/d", "/dl"), -EPERM);
    CHECK_EQ_INT(A->symlink(fs, "/d/big", "/sl"), 0);
    CHECK_EQ_INT(A->symlink(fs, "/d", "/dirlink"), 0);
    char name[300];
    memset(name, 'n', 256);
    name[0] = '/';
    name[257] = 0;
    name[256] = 'n';
    CHECK_EQ_INT(A->mkdir(fs, name, 0755), -ENAMETOOLONG);
    CHECK_EQ_INT(A->open(fs, "/nope/x", O_RDONLY, 0), -ENOENT);
    CHECK_EQ_INT(A->open(fs, "/small/x", O_RDONLY | O_CREAT, 0644), -ENOTDIR);
    CHECK_EQ_INT(A->open(fs, "/d", O_WRONLY, 0), -EISDIR);
    CHECK_EQ_INT(A->rmdir(fs, "/d"), -ENOTEMPTY);
    CHECK_EQ_INT(A->unlink(fs, "/d"), -EISDIR);
    CHECK_EQ_INT(A->rename(fs, "/d", "/d/e/in"), -EINVAL);
    CHECK_EQ_INT(A->rename(fs, "/d", "/dirlink/e/in"), -EINVAL); /* via a symlink */
    /* the file through the symlink, and punch + truncate */
    CHECK(same_file(fs, "/sl", big, sizeof big));
    int fd = A->open(fs, "/d/big", O_RDWR, 0);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(A->punch(fs, fd, 5000, 100000), 0);
    memset(big + 5000, 0, 100000);
    CHECK_EQ_INT(A->ftruncate(fs, fd, 200001), 0);
    memset(big + 200001, 0, sizeof big - 200001);
    CHECK_EQ_INT(A->ftruncate(fs, fd, 250000), 0); /* grows with zeros */
    struct logfs_stat st;
    CHECK_EQ_INT(A->fstat(fs, fd, &st), 0);
    CHECK_EQ_INT(st.size, 250000);
    CHECK_EQ_INT(A->close(fs, fd), 0);
    CHECK(same_file(fs, "/d/big", big, 250000));
    /* rename over an existing file and across directories */
    CHECK_EQ_INT(write_file(fs, "/victim", "v", 1), 1);
    CHECK_EQ_INT(A->rename(fs, "/d/e/hard", "/victim"), 0);
    CHECK_EQ_INT(A->stat(fs, "/victim", &st), 0);
    CHECK_EQ_INT(st.nlink, 2);
    CHECK_EQ_INT(A->rename(fs, "/d/e", "/e2"), 0);
    CHECK_EQ_INT(A->stat(fs, "/d", &st), 0);
    CHECK_EQ_INT(st.nlink, 2);
    CHECK_EQ_INT(st.size, 1); /* one entry left: big */
    /* open-unlinked stays readable */
    fd = A->open(fs, "/victim", O_RDONLY, 0);
    CHECK_EQ_INT(A->unlink(fs, "/victim"), 0);
    CHECK_EQ_INT(A->unlink(fs, "/small"), 0);
    uint8_t got[5000];
    CHECK_EQ_INT(A->pread(fs, fd, got, sizeof got, 0), 5000);
    CHECK(!memcmp(got, small, 5000));
    CHECK_EQ_INT(A->close(fs, fd), 0);
    CHECK_EQ_INT(A->stat(fs, "/victim", &st), -ENOENT);
    char lnk[64];
    CHECK_EQ_INT(A->readlink(fs, "/sl", lnk, sizeof lnk), 6);
    CHECK(!memcmp(lnk, "/d/big", 6));
    CHECK_EQ_INT(A->readlink(fs, "/d", lnk, sizeof lnk), -EINVAL);
    CHECK_EQ_INT(A->lstat(fs, "/sl", &st), 0);
    CHECK(S_ISLNK(st.mode));
    /* readdir resumes at the entry that stopped it */
    CHECK_EQ_INT(dir_entries(fs, "/"), 4); /* d, sl, dirlink, e2 */
    /* remount: everything still there */
    CHECK_EQ_INT(A->unmount(fs), 0);
    REQUIRE(A->mount(d, NULL, &fs) == 0);
    CHECK(same_file(fs, "/d/big", big, 250000));
    CHECK(same_file(fs, "/sl", big, 250000));
    CHECK_EQ_INT(dir_entries(fs, "/"), 4);
    CHECK_EQ_INT(dir_entries(fs, "/e2"), 0);
    CHECK_EQ_INT(A->rmdir(fs, "/e2"), 0);
    CHECK_EQ_INT(A->unlink(fs, "/sl"), 0);
    CHECK_EQ_INT(A->unlink(fs, "/dirlink"), 0);
    CHECK_EQ_INT(A->unlink(fs, "/d/big"), 0);
    CHECK_EQ_INT(A->rmdir(fs, "/d"), 0);
    struct logfs_statfs sf;
    CHECK_EQ_INT(A->statfs(fs, &sf), 0);
    CHECK(sf.free_bytes == sf.total_bytes && sf.files == 0); /* nothing leaked */
    CHECK_EQ_INT(A->unmount(fs), 0);
    nand_close(d);
}

TEST(enospc_then_delete)
{
    nand_dev *d = mkdev(64, 3);
    REQUIRE(d && A->mkfs(d, "inodes=128") == 0);
    void *fs;
    REQUIRE(A->mount(d, NULL, &fs) == 0);
    static uint8_t buf[65536];
    int n = 0;
    int64_t rc = 0;
    char p[32];
    for (; n < 1000; n++) {
        snprintf(p, sizeof p, "/f%d", n);
        pattern(buf, sizeof buf, (uint64_t)n);
        if ((rc = write_file(fs, p, buf, sizeof buf)) != (int64_t)sizeof buf)
            break;
    }
    CHECK_EQ_INT(rc, -ENOSPC);
    CHECK(n > 10);
    struct logfs_stat st;
    CHECK_EQ_INT(A->stat(fs, p, &st), 0);
    CHECK_EQ_INT(st.size, 0); /* the failed write changed nothing */
    CHECK_EQ_INT(A->unlink(fs, "/f0"), 0);
    CHECK_EQ_INT(A->unlink(fs, "/f1"), 0);
    pattern(buf, sizeof buf, 4242);
    CHECK_EQ_INT(write_file(fs, p, buf, sizeof buf), (int64_t)sizeof buf);
    CHECK_EQ_INT(A->unmount(fs), 0);
    REQUIRE(A->mount(d, NULL, &fs) == 0);
    CHECK(same_file(fs, p, buf, sizeof buf));
    pattern(buf, sizeof buf, 5);
    CHECK(same_file(fs, "/f5", buf, sizeof buf));
    CHECK_EQ_INT(A->unmount(fs), 0);
    nand_close(d);
}

/* Small random overwrites: every one rewrites the inode-table erase block
 * (mtime) besides the data's; the data's are many and share the load. */
TEST(wear_hot_spot)
{
    nand_dev *d = mkdev(256, 4);
    REQUIRE(d && A->mkfs(d, NULL) == 0);
    void *fs;
    REQUIRE(A->mount(d, NULL, &fs) == 0);
    static uint8_t buf[65536];
    int fds[8];
    for (int i = 0; i < 8; i++) {
        char p[16];
        snprintf(p, sizeof p, "/w%d", i);
        pattern(buf, sizeof buf, (uint64_t)i);
        REQUIRE(write_file(fs, p, buf, sizeof buf) == (int64_t)sizeof buf);
        fds[i] = A->open(fs, p, O_RDWR, 0);
    }
    uint64_t s = 99;
    int N = 2000;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t off = (s >> 20) % (sizeof buf - 512);
        CHECK_EQ_INT(A->pwrite(fs, fds[(s >> 8) % 8], buf, 512, off), 512);
    }
    for (int i = 0; i < 8; i++)
        A->close(fs, fds[i]);
    CHECK_EQ_INT(A->sync(fs), 0);
    struct blockfs_layout l;
    blockfs_get_layout(fs, &l);
    double meta = 0, data = 0, hot_meta = 0, hot_data = 0;
    for (uint32_t b = 0; b < l.n_ebs; b++) {
        struct nand_block_info bi;
        REQUIRE(nand_block_info(d, b, &bi) == 0);
        double pe = (double)bi.pe_cycles;
        if (b < l.data_eb) {
            meta += pe;
            hot_meta = pe > hot_meta ? pe : hot_meta;
        } else {
            data += pe;
            hot_data = pe > hot_data ? pe : hot_data;
        }
    }
    meta /= l.data_eb;
    data /= l.n_ebs - l.data_eb;
    printf("wear after %d 512-byte writes: metadata ebs mean %.1f max %.0f, "
           "data ebs mean %.2f max %.0f (ratio of means %.1f)\n",
           N, meta, hot_meta, data, hot_data, meta / data);
    CHECK(meta > 10 * data);
    CHECK(hot_meta > 10 * hot_data);
    CHECK_EQ_INT(A->unmount(fs), 0);
    nand_close(d);
}

/* File A is synced; then file B, which shares A's erase block, is written
 * and the power fails during that erase block's write-back after `cut`
 * completed operations (the erase, then one page each; the next one is
 * torn half way).  A's pages are 2 and 3 (the root directory's block is
 * pages 0 and 1, B's 4 and 5): until both are programmed again (5 ops)
 * A is lost, though nobody wrote A; with 0 or 1 ops the root directory
 * goes too. */
static int cut_once(uint64_t cut, int *mounted, int *a_state, int *dir_lost)
{
    nand_dev *d = mkdev(64, 5);
    void *fs;
    static uint8_t a[4096], b[4096];
    pattern(a, sizeof a, 11);
    pattern(b, sizeof b, 12);
    if (!d || A->mkfs(d, NULL) || A->mount(d, NULL, &fs))
        return -1;
    int rc = write_file(fs, "/A", a, sizeof a) == 4096 ? 0 : -1;
    int fd = A->open(fs, "/B", O_WRONLY | O_CREAT, 0644);
    rc |= fd < 0 || A->sync(fs);
    nand_cut_after_ops(d, cut, 0.5);
    int64_t w = A->pwrite(fs, fd, b, sizeof b, 0);
    if (w == 4096)
        w = A->sync(fs);
    A->unmount(fs); /* fails: the flash is gone */
    nand_power_on(d);
    nand_cut_disarm(d);
    *mounted = A->mount(d, NULL, &fs) == 0;
    *a_state = 0;
    *dir_lost = 0;
    if (*mounted) {
        struct logfs_stat st;
        int s = A->stat(fs, "/A", &st);
        *dir_lost = s == -EIO;
        *a_state = s ? s : same_file(fs, "/A", a, sizeof a) ? 1 : -EIO;
        if (s == 0 && *a_state < 0) { /* what the read says */
            int f = A->open(fs, "/A", O_RDONLY, 0);
            uint8_t got[4096];
            int64_t r = A->pread(fs, f, got, sizeof got, 0);
            *a_state = r < 0 ? (int)r : -EBADMSG; /* EBADMSG: wrong bytes, unnoticed */
            A->close(fs, f);
        }
        A->unmount(fs);
    }
    nand_close(d);
    return rc || w >= 0 ? -1 : 0;
}

TEST(power_cut_loses_other_files)
{
    for (uint64_t cut = 0; cut <= 7; cut++) {
        int mounted, a, dir_lost;
        REQUIRE(cut_once(cut, &mounted, &a, &dir_lost) == 0);
        printf("cut after %" PRIu64 " ops of B's write-back: mount %s, file A: %s\n", cut,
               mounted ? "ok" : "failed",
               a == 1 ? "intact" : dir_lost ? "lost with the root directory (EIO on lookup)"
               : a == -EIO ? "data lost (EIO on read: page erased or CRC bad)"
               : a == -EBADMSG ? "WRONG BYTES" : strerror(-a));
        CHECK(mounted);  /* superblock, table and bitmap were not being rewritten */
        CHECK(a != -EBADMSG); /* never silently wrong: the page CRC sees it */
        if (cut <= 4)
            CHECK(a == -EIO); /* A (or the root directory holding it) is gone */
        else
            CHECK(a == 1); /* A's pages were programmed back before the cut */
    }
}

/* ---- random model test: every operation, with remounts ---------------- */

static const char *names[] = {"a", "b", "c", "dir1", "dir2", "x", "longer-name", "z"};
#define NNAMES (sizeof names / sizeof names[0])

struct run {
    struct model m;
    nand_dev *dev;
    void *fs;
    const char *opts;
    uint64_t rng;
    int fail;
    int ops[16];
    int ofd, oino; /* an open fd kept across unlinks */
};

static uint64_t rnd(struct run *r)
{
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return r->rng;
}

static int pick_dir(struct run *r, char *path, size_t cap)
{
    int dir = 1;
    snprintf(path, cap, "%s", "");
    for (int depth = 0; depth < 3 && rnd(r) % 2; depth++) {
        struct m_inode *dd = &r->m.in[dir];
        int subs[M_MAXENT], n = 0;
        for (int i = 0; i < dd->nent; i++)
            if (r->m.in[dd->ent[i].ino].type == M_DIR)
                subs[n++] = i;
        if (!n)
            break;
        int k = subs[rnd(r) % (uint64_t)n];
        size_t l = strlen(path);
        snprintf(path + l, cap - l, "/%s", dd->ent[k].name);
        dir = dd->ent[k].ino;
    }
    return dir;
}

#define EXPECT(cond, what)                                                   \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "model: %s (%s:%d)\n", what, __FILE__, __LINE__); \
            r->fail = 1;                                                     \
            return;                                                          \
        }                                                                    \
    } while (0)

struct seen { const struct model *m; int dir, count, bad; };
static int on_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct seen *s = ctx;
    (void)ino;
    int mino = m_find(s->m, s->dir, name);
    s->count++;
    if (!mino || (type == S_IFDIR) != (s->m->in[mino].type == M_DIR))
        s->bad = 1;
    return 0;
}

/* readdir one entry a call: take one, stop at the next (which the
 * cookie then names, so that the next call starts with it) */
struct paged { struct seen s; int budget; };
static int one_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct paged *pg = ctx;
    if (!pg->budget)
        return 1;
    pg->budget--;
    return on_entry(&pg->s, name, ino, type);
}

static void check_tree(struct run *r, int dir, const char *path)
{
    struct seen s = {&r->m, dir, 0, 0};
    uint64_t cookie = 0;
    int rc = A->readdir(r->fs, *path ? path : "/", &cookie, on_entry, &s);
    EXPECT(rc == 0 && !s.bad && s.count == r->m.in[dir].nent, path);
    struct paged pg = {{&r->m, dir, 0, 0}, 0};
    cookie = 0;
    for (int guard = 0; cookie != UINT64_MAX && guard <= M_MAXENT + 1; guard++) {
        pg.budget = 1;
        EXPECT(A->readdir(r->fs, *path ? path : "/", &cookie, one_entry, &pg) == 0, "readdir");
    }
    struct seen s2 = pg.s;
    EXPECT(!s2.bad && s2.count == r->m.in[dir].nent, "readdir by cookie");
    struct m_inode *dd = &r->m.in[dir];
    for (int i = 0; i < dd->nent; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", path, dd->ent[i].name);
        struct m_inode *in = &r->m.in[dd->ent[i].ino];
        struct logfs_stat st;
        EXPECT(A->lstat(r->fs, p, &st) == 0, p);
        EXPECT((int)st.nlink == in->nlink, "nlink");
        if (in->type == M_DIR) {
            EXPECT(S_ISDIR(st.mode) && st.size == (uint64_t)in->nent, "dir");
            check_tree(r, dd->ent[i].ino, p);
        } else if (in->type == M_LINK) {
            char buf[256];
            int64_t n = A->readlink(r->fs, p, buf, sizeof buf);
            EXPECT(S_ISLNK(st.mode) && n == (int64_t)in->size &&
                   !memcmp(buf, in->data, in->size), "symlink");
        } else {
            EXPECT(S_ISREG(st.mode) && st.size == in->size, "file size");
            uint8_t *buf = malloc(in->size + 1);
            int fd = A->open(r->fs, p, O_RDONLY, 0);
            int64_t n = fd >= 0 ? A->pread(r->fs, fd, buf, in->size + 1, 0) : fd;
            int same = n == (int64_t)in->size && (!in->size || !memcmp(buf, in->data, in->size));
            free(buf);
            if (fd >= 0)
                A->close(r->fs, fd);
            EXPECT(same, "file content");
        }
        if (r->fail)
            return;
    }
}

static void close_kept(struct run *r)
{
    if (r->ofd < 0)
        return;
    EXPECT(A->close(r->fs, r->ofd) == 0, "close kept");
    r->ofd = -1;
    if (r->m.in[r->oino].type == M_FILE && r->m.in[r->oino].nlink <= 0) {
        free(r->m.in[r->oino].data);
        memset(&r->m.in[r->oino], 0, sizeof r->m.in[r->oino]);
    }
}

static void remount(struct run *r)
{
    close_kept(r);
    EXPECT(A->unmount(r->fs) == 0, "unmount");
    r->fs = NULL;
    EXPECT(A->mount(r->dev, r->opts, &r->fs) == 0, "mount");
}

/* m_unref without freeing a file the kept fd still reads */
static void unref(struct run *r, int ino)
{
    if (ino == r->oino && r->ofd >= 0 && r->m.in[ino].type == M_FILE) {
        r->m.in[ino].nlink--;
        return;
    }
    m_unref(&r->m, ino);
}

static void step(struct run *r)
{
    char dpath[200], path[256], p2[200];
    int dir = pick_dir(r, dpath, sizeof dpath);
    const char *name = names[rnd(r) % NNAMES];
    snprintf(path, sizeof path, "%s/%s", dpath, name);
    int ino = m_find(&r->m, dir, name);
    enum m_type t = ino ? r->m.in[ino].type : M_NONE;
    int op = (int)(rnd(r) % 15), rc;
    r->ops[op]++;
    switch (op) {
    case 0: case 1: case 2: {
        uint64_t off = rnd(r) % 3 ? rnd(r) % 9000 : rnd(r) % 300000;
        uint64_t len = rnd(r) % 3 ? rnd(r) % 5000 : rnd(r) % 40000;
        uint8_t *buf = malloc(len + 1);
        pattern(buf, len, rnd(r));
        int fd = A->open(r->fs, path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
        if (t == M_NONE) {
            EXPECT(fd >= 0 || r->m.in[dir].nent >= M_MAXENT, "create");
            if (fd >= 0) {
                ino = m_new(&r->m, M_FILE);
                m_add(&r->m, dir, name, ino);
                t = M_FILE;
            }
        } else if (t == M_DIR) {
            EXPECT(fd == -EISDIR, "open dir for writing");
        } else if (t == M_LINK) {
            EXPECT(fd == -ELOOP, "open symlink with O_NOFOLLOW");
        } else {
            EXPECT(fd >= 0, "open");
        }
        if (fd >= 0) {
            int64_t n = A->pwrite(r->fs, fd, buf, len, off);
            EXPECT(n == (int64_t)len, "pwrite");
            if (len)
                m_write(&r->m.in[ino], buf, len, off);
            EXPECT(A->close(r->fs, fd) == 0, "close");
        }
        free(buf);
        break;
    }
    case 3: case 13: { /* ftruncate or punch */
        int fd = A->open(r->fs, path, O_WRONLY | O_NOFOLLOW, 0);
        if (t != M_FILE) {
            EXPECT(fd < 0, "open non-file");
            break;
        }
        EXPECT(fd >= 0, "open for truncate");
        if (op == 3) {
            uint64_t size = rnd(r) % 20000;
            EXPECT(A->ftruncate(r->fs, fd, size) == 0, "ftruncate");
            m_resize(&r->m.in[ino], size);
        } else {
            uint64_t off = rnd(r) % 20000, len = rnd(r) % 30000;
            EXPECT(A->punch(r->fs, fd, off, len) == 0, "punch");
            struct m_inode *in = &r->m.in[ino];
            for (uint64_t i = off; i < off + len && i < in->size; i++)
                in->data[i] = 0;
        }
        EXPECT(A->close(r->fs, fd) == 0, "close");
        break;
    }
    case 4:
        rc = A->unlink(r->fs, path);
        if (t == M_FILE || t == M_LINK) {
            EXPECT(rc == 0, "unlink");
            m_del(&r->m, dir, name);
            unref(r, ino);
        } else {
            EXPECT(rc == (t == M_DIR ? -EISDIR : -ENOENT), "unlink error");
        }
        break;
    case 5:
        rc = A->mkdir(r->fs, path, 0755);
        if (t == M_NONE && r->m.in[dir].nent < M_MAXENT) {
            EXPECT(rc == 0, "mkdir");
            m_add(&r->m, dir, name, m_new(&r->m, M_DIR));
            r->m.in[dir].nlink++;
        } else if (t != M_NONE) {
            EXPECT(rc == -EEXIST, "mkdir exists");
        }
        break;
    case 6:
        rc = A->rmdir(r->fs, path);
        if (t == M_DIR) {
            int empty = r->m.in[ino].nent == 0;
            EXPECT(rc == (empty ? 0 : -ENOTEMPTY), "rmdir");
            if (empty) {
                m_del(&r->m, dir, name);
                m_unref(&r->m, ino);
                r->m.in[dir].nlink--;
            }
        } else {
            EXPECT(rc == (t == M_NONE ? -ENOENT : -ENOTDIR), "rmdir error");
        }
        break;
    case 7: case 8: {
        int dir2 = pick_dir(r, p2, sizeof p2);
        const char *name2 = names[rnd(r) % NNAMES];
        char to[300];
        snprintf(to, sizeof to, "%s/%s", p2, name2);
        int ino2 = m_find(&r->m, dir2, name2);
        enum m_type t2 = ino2 ? r->m.in[ino2].type : M_NONE;
        rc = A->rename(r->fs, path, to);
        if (t == M_NONE) {
            EXPECT(rc == -ENOENT, "rename missing");
            break;
        }
        int inside = 0;
        if (t == M_DIR) {
            size_t l = strlen(path);
            inside = !strncmp(to, path, l) && (to[l] == '/' || to[l] == 0);
        }
        if (ino2 == ino) {
            EXPECT(rc == 0, "rename onto itself");
        } else if (inside) {
            EXPECT(rc == -EINVAL, "rename into itself");
        } else if (t2 != M_NONE && t == M_DIR && t2 != M_DIR) {
            EXPECT(rc == -ENOTDIR, "rename dir onto file");
        } else if (t2 == M_DIR && t != M_DIR) {
            EXPECT(rc == -EISDIR, "rename file onto dir");
        } else if (t2 == M_DIR && r->m.in[ino2].nent) {
            EXPECT(rc == -ENOTEMPTY, "rename onto non-empty dir");
        } else if (t2 == M_NONE && r->m.in[dir2].nent >= M_MAXENT) {
            break;
        } else {
            EXPECT(rc == 0, "rename");
            if (t2 != M_NONE) {
                m_del(&r->m, dir2, name2);
                if (t2 == M_DIR)
                    r->m.in[dir2].nlink--;
                unref(r, ino2);
            }
            m_del(&r->m, dir, name);
            m_add(&r->m, dir2, name2, ino);
            if (t == M_DIR && dir != dir2) {
                r->m.in[dir].nlink--;
                r->m.in[dir2].nlink++;
            }
        }
        break;
    }
    case 9: {
        int dir2 = pick_dir(r, p2, sizeof p2);
        const char *name2 = names[rnd(r) % NNAMES];
        char to[300];
        snprintf(to, sizeof to, "%s/%s", p2, name2);
        int ino2 = m_find(&r->m, dir2, name2);
        rc = A->link(r->fs, path, to);
        if (t == M_NONE)
            EXPECT(rc == -ENOENT, "link missing");
        else if (t == M_DIR)
            EXPECT(rc == -EPERM, "link dir");
        else if (ino2)
            EXPECT(rc == -EEXIST, "link exists");
        else if (r->m.in[dir2].nent < M_MAXENT) {
            EXPECT(rc == 0, "link");
            m_add(&r->m, dir2, name2, ino);
            r->m.in[ino].nlink++;
        }
        break;
    }
    case 10: {
        char target[64];
        snprintf(target, sizeof target, "/target-%u", (unsigned)(rnd(r) % 1000));
        rc = A->symlink(r->fs, target, path);
        if (t != M_NONE) {
            EXPECT(rc == -EEXIST, "symlink exists");
        } else if (r->m.in[dir].nent < M_MAXENT) {
            EXPECT(rc == 0, "symlink");
            int li = m_new(&r->m, M_LINK);
            m_write(&r->m.in[li], target, strlen(target), 0);
            m_add(&r->m, dir, name, li);
        }
        break;
    }
    case 11:
        EXPECT(A->sync(r->fs) == 0, "sync");
        break;
    case 12:
        if (rnd(r) % 4 == 0)
            remount(r);
        break;
    case 14: /* keep a file open (it may be unlinked while open), or check it */
        if (r->ofd >= 0) {
            struct m_inode *in = &r->m.in[r->oino];
            uint8_t *buf = malloc(in->size + 1);
            int64_t n = A->pread(r->fs, r->ofd, buf, in->size + 1, 0);
            int same = n == (int64_t)in->size && (!in->size || !memcmp(buf, in->data, in->size));
            free(buf);
            EXPECT(same, "kept fd content");
            close_kept(r);
        } else if (t == M_FILE) {
            r->ofd = A->open(r->fs, path, O_RDONLY, 0);
            r->oino = ino;
            EXPECT(r->ofd >= 0, "open kept");
        }
        break;
    }
}

static void run_seed(uint64_t seed, int steps, const char *opts, int *failures, int ops[16])
{
    struct run *r = calloc(1, sizeof *r);
    m_init(&r->m);
    r->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    r->opts = opts;
    r->ofd = -1;
    r->dev = mkdev(256, seed);
    if (!r->dev || A->mkfs(r->dev, opts) || A->mount(r->dev, opts, &r->fs)) {
        (*failures)++;
        goto out;
    }
    for (int i = 0; i < steps && !r->fail; i++) {
        step(r);
        if (!r->fail && (i % 10 == 9 || i == steps - 1))
            check_tree(r, 1, "");
        if (r->fail)
            fprintf(stderr, "seed %" PRIu64 " (%s) failed at step %d\n", seed, opts, i);
    }
    if (!r->fail) {
        remount(r);
        if (!r->fail)
            check_tree(r, 1, "");
    }
    *failures += r->fail;
    for (int i = 0; i < 16; i++)
        ops[i] += r->ops[i];
out:
    if (r->fs)
        A->unmount(r->fs);
    nand_close(r->dev);
    m_free(&r->m);
    free(r);
}

TEST(model_random)
{
    int failures = 0, ops[16] = {0};
    int seeds = test_long() ? 100 : 20;
    for (int s = 1; s <= seeds; s++)
        run_seed((uint64_t)s, 400, s % 2 ? "block_size=4096" : "block_size=2048,cache=0",
                 &failures, ops);
    CHECK_EQ_INT(failures, 0);
    for (int i = 0; i < 15; i++)
        CHECK(ops[i] > 0);
}

/* Factory-bad erase blocks in the data region are never allocated
 * (seeds whose metadata region holds one make mkfs fail: skipped). */
TEST(model_factory_bad)
{
    int failures = 0, ops[16] = {0}, ran = 0;
    bad_fraction = 0.02;
    for (int s = 50; s < 60; s++) {
        nand_dev *d = mkdev(256, (uint64_t)s);
        int ok = d && A->mkfs(d, NULL) == 0;
        nand_close(d);
        if (!ok)
            continue;
        ran++;
        run_seed((uint64_t)s, 300, NULL, &failures, ops);
    }
    bad_fraction = 0;
    CHECK(ran > 5);
    CHECK_EQ_INT(failures, 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    A = fsapi_find("blockfs");
    RUN(table_entry);
    RUN(round_trip);
    RUN(enospc_then_delete);
    RUN(wear_hot_spot);
    RUN(power_cut_loses_other_files);
    RUN(model_random);
    RUN(model_factory_bad);
    return test_summary(argv[0]);
}

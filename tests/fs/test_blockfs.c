/*
 * test_blockfs.c -- the naive in-place baseline (fs/blockfs/blockfs.h) through the
 * fsapi table: a round trip of every kind of object with remounts, ENOSPC
 * and recovery, the wear hot spot of its metadata erase blocks, the data
 * a power cut during a write-back loses (of a file nobody was writing).
 * The random model test of every operation, with blockfs's option sets
 * (block sizes, cache=0, dev=ftl) and factory-bad blocks, is
 * tests/fs/test_fsapi_model.c.  On the FTL (dev=ftl): found again at
 * mount, its options checked, and the metadata hot spot gone.
 */
#include "blk.h"
#include "blockfs/blockfs.h"
#include "fsapi.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static const struct fsapi *A;

/* erase blocks of 16 pages of 2 KiB (256 of them: 8 MiB), no bit errors */
static nand_dev *mkdev(uint32_t blocks, uint64_t seed)
{
    return FX_DEVICE(.blocks = blocks, .pages = 16, .quiet = 1, .seed = seed);
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
    struct fs_statfs sf;
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
    struct fs_stat st;
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
    struct fs_statfs sf;
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
    struct fs_stat st;
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
        struct fs_stat st;
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

/* The most-erased block after small overwrites spread over 8 files. */
static uint32_t hottest_block(const char *mkfs_opts)
{
    nand_dev *d = mkdev(256, 6);
    if (!d || A->mkfs(d, mkfs_opts))
        return UINT32_MAX;
    void *fs;
    if (A->mount(d, NULL, &fs))
        return UINT32_MAX;
    static uint8_t buf[16384];
    int fds[8];
    for (int i = 0; i < 8; i++) {
        char p[16];
        snprintf(p, sizeof p, "/w%d", i);
        pattern(buf, sizeof buf, (uint64_t)i);
        write_file(fs, p, buf, sizeof buf);
        fds[i] = A->open(fs, p, O_RDWR, 0);
    }
    uint64_t s = 7;
    for (int i = 0; i < 1000; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        A->pwrite(fs, fds[(s >> 8) % 8], buf, 512, (s >> 20) % (sizeof buf - 512));
    }
    for (int i = 0; i < 8; i++)
        A->close(fs, fds[i]);
    A->unmount(fs);
    uint32_t hot = 0;
    for (uint32_t b = 0; b < 256; b++) {
        struct nand_block_info bi;
        if (nand_block_info(d, b, &bi) == 0 && bi.pe_cycles > hot)
            hot = (uint32_t)bi.pe_cycles;
    }
    nand_close(d);
    return hot;
}

TEST(on_the_ftl)
{
    nand_dev *d = mkdev(256, 5);
    REQUIRE(d);
    CHECK_EQ_INT(A->mkfs(d, "dev=ftl,op=0.2"), 0);
    CHECK_EQ_INT(blk_ftl_probe(d), 1);   /* the FTL's superblock is on flash */
    CHECK_EQ_INT(A->probe(d), 1);        /* blockfs's is found inside it */
    CHECK(fsapi_probe(d) == A);          /* before the bare FTL claims it */
    void *fs;
    REQUIRE(A->mount(d, NULL, &fs) == 0); /* found on the FTL */
    static uint8_t buf[100000];
    pattern(buf, sizeof buf, 41);
    CHECK_EQ_INT(A->mkdir(fs, "/d", 0755), 0);
    CHECK(write_file(fs, "/d/a", buf, sizeof buf) == (int64_t)sizeof buf);
    CHECK_EQ_INT(A->unmount(fs), 0);
    REQUIRE(A->mount(d, "dev=ftl,gc_policy=greedy", &fs) == 0);
    CHECK(same_file(fs, "/d/a", buf, sizeof buf));
    CHECK_EQ_INT(A->unmount(fs), 0);
    /* a bare FTL is no blockfs */
    CHECK_EQ_INT(fsapi_find("ftl")->mkfs(d, NULL), 0);
    CHECK_EQ_INT(A->probe(d), 0);
    CHECK(fsapi_probe(d) == fsapi_find("ftl"));
    /* a default mount of a default image is not fooled into the FTL */
    CHECK_EQ_INT(A->mkfs(d, NULL), 0);
    REQUIRE(A->mount(d, NULL, &fs) == 0);
    CHECK(!same_file(fs, "/d/a", buf, sizeof buf));
    CHECK_EQ_INT(A->unmount(fs), 0);
    nand_close(d);

    char err[512] = "";
    CHECK_EQ_INT(A->check_options("dev=ftl,op=0.2,cache=0", err, sizeof err), 0);
    CHECK_EQ_INT(A->check_options("dev=ftl,gc_policy=nope", err, sizeof err), -EINVAL);
    CHECK(strstr(err, "gc_policy") != NULL);
    CHECK_EQ_INT(A->check_options("inodes=64,op=0.2", err, sizeof err), -EINVAL);
    CHECK(strstr(err, "'op=0.2'") != NULL && strstr(err, "dev (") != NULL);
    CHECK_EQ_INT(A->check_options("dev=ftl,inodes=x", err, sizeof err), -EINVAL);
    CHECK(strstr(err, "'inodes=x'") != NULL);
    CHECK_EQ_INT(A->check_options("dev=disk", err, sizeof err), -EINVAL);

    /* the FTL writes out of place and levels wear: no erase block takes
     * the in-place map's metadata beating */
    uint32_t hot_inplace = hottest_block(NULL), hot_ftl = hottest_block("dev=ftl");
    printf("most-erased block: %u cycles in place, %u on the FTL\n", hot_inplace, hot_ftl);
    CHECK(hot_inplace != UINT32_MAX && hot_ftl != UINT32_MAX);
    CHECK(hot_ftl * 10 < hot_inplace);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    A = fsapi_find("blockfs");
    RUN(table_entry);
    RUN(round_trip);
    RUN(enospc_then_delete);
    RUN(wear_hot_spot);
    RUN(power_cut_loses_other_files);
    RUN(on_the_ftl);
    return test_summary(argv[0]);
}

/*
 * test_lfs_limits.c -- LogFS at its limits: a file reaching the deepest
 * indirect level, 100,000 names in one directory with the pages read per
 * lookup bounded, names at the length limit, sparse files, the largest
 * file size (xfstests generic/525).
 */
#include "logfs/logfs.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static nand_dev *dev_of(uint32_t blocks)
{
    return FX_DEVICE(.blocks = blocks, .pages = 64, .seed = 11);
}

/* With 512-byte blocks (64 pointers each), offsets past 16 + 64 + 64^2 +
 * 64^3 + 64^4 blocks need all five indirect levels; the file is sparse,
 * so the holes read as zeros and take no space. */
TEST(deepest_level_sparse_file)
{
    nand_dev *d = dev_of(256);
    struct logfs_options o = {.block_size = 512};
    REQUIRE(d && logfs_mkfs(d, &o) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    int fd = logfs_open(fs, "/big", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    uint64_t blocks5 = 16 + 64 + 4096 + 262144 + 16777216ull; /* first block at height 5 */
    uint64_t last = 16 + 64ull * 64 * 64 * 64 * 64 - 1; /* the last addressable block */
    uint64_t offs[] = {0, 100 * 512, blocks5 * 512 - 3, blocks5 * 512 + 777, last * 512 + 5};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(logfs_pwrite(fs, fd, "deep!", 5, offs[i]), 5);
    struct fs_stat st;
    REQUIRE(logfs_fstat(fs, fd, &st) == 0);
    CHECK_EQ_INT(st.size, offs[4] + 5);
    /* beyond the largest offset the tree can address */
    CHECK_EQ_INT(logfs_pwrite(fs, fd, "x", 1, (last + 1) * 512), -EFBIG);
    REQUIRE(logfs_fstat(fs, fd, &st) == 0);
    CHECK_EQ_INT(st.size, offs[4] + 5); /* a failed write changes nothing */
    REQUIRE(logfs_close(fs, fd) == 0);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    fd = logfs_open(fs, "/big", O_RDONLY, 0);
    REQUIRE(fd >= 0);
    char buf[16];
    for (int i = 0; i < 5; i++) {
        memset(buf, 'z', sizeof buf);
        CHECK_EQ_INT(logfs_pread(fs, fd, buf, 5, offs[i]), 5);
        CHECK(!memcmp(buf, "deep!", 5));
    }
    memset(buf, 'z', sizeof buf);
    CHECK_EQ_INT(logfs_pread(fs, fd, buf, 8, 12345678), 8); /* a hole */
    CHECK(!memcmp(buf, "\0\0\0\0\0\0\0\0", 8));
    logfs_close(fs, fd);
    struct logfs_stats s;
    logfs_get_stats(fs, &s);
    CHECK(s.live_bytes < 64 << 10); /* holes took no space */
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* The largest file is what the tree reaches, (16 + P^5) blocks of
 * P = block_size / 8 pointers, at most INT64_MAX; every call that sets a
 * size or writes keeps to it: truncate to it works and reads as zeros,
 * past it is EFBIG, a write crossing it is short, one at it is EFBIG. */
static void check_max_size(uint32_t block_size, uint32_t pages, uint64_t max)
{
    nand_dev *d = FX_DEVICE(.blocks = 64, .pages = pages, .seed = 11);
    struct logfs_options o = {.block_size = block_size};
    REQUIRE(d && logfs_mkfs(d, &o) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    int fd = logfs_open(fs, "/max", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    struct fs_stat st;
    CHECK_EQ_INT(logfs_ftruncate(fs, fd, max + 1), -EFBIG);
    CHECK_EQ_INT(logfs_truncate(fs, "/max", max + 1), -EFBIG);
    REQUIRE(logfs_fstat(fs, fd, &st) == 0);
    CHECK_EQ_INT(st.size, 0); /* a refused truncate changes nothing */
    CHECK_EQ_INT(logfs_ftruncate(fs, fd, max), 0);
    REQUIRE(logfs_fstat(fs, fd, &st) == 0);
    CHECK_EQ_INT(st.size, max);
    char buf[8];
    memset(buf, 'z', sizeof buf);
    CHECK_EQ_INT(logfs_pread(fs, fd, buf, 8, max - 8), 8);
    CHECK(!memcmp(buf, "\0\0\0\0\0\0\0\0", 8));
    CHECK_EQ_INT(logfs_pread(fs, fd, buf, 8, max), 0);
    CHECK_EQ_INT(logfs_pwrite(fs, fd, "ab", 2, max - 1), 1); /* up to the limit */
    CHECK_EQ_INT(logfs_pwrite(fs, fd, "ab", 2, max), -EFBIG);
    CHECK_EQ_INT(logfs_pwrite(fs, fd, "ab", 2, UINT64_MAX - 1), -EFBIG);
    CHECK_EQ_INT(logfs_pwrite(fs, fd, "", 0, max), 0); /* nothing to write */
    CHECK_EQ_INT(logfs_lseek(fs, fd, (int64_t)max, SEEK_SET), max);
    CHECK_EQ_INT(logfs_write(fs, fd, "c", 1), -EFBIG);
    CHECK_EQ_INT(logfs_truncate(fs, "/max", max), 0);
    REQUIRE(logfs_close(fs, fd) == 0);
    fd = logfs_open(fs, "/max", O_WRONLY | O_APPEND, 0);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(logfs_write(fs, fd, "d", 1), -EFBIG); /* the end is the limit */
    REQUIRE(logfs_close(fs, fd) == 0);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    fd = logfs_open(fs, "/max", O_RDONLY, 0);
    REQUIRE(fd >= 0);
    REQUIRE(logfs_fstat(fs, fd, &st) == 0);
    CHECK_EQ_INT(st.size, max);
    memset(buf, 'z', sizeof buf);
    CHECK_EQ_INT(logfs_pread(fs, fd, buf, 8, max - 2), 2);
    CHECK(!memcmp(buf, "\0a", 2));
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(largest_file_size)
{
    uint64_t p512 = 64, p4k = 512;
    check_max_size(512, 64, (16 + p512 * p512 * p512 * p512 * p512) * 512);
    check_max_size(4096, 64, (16 + p4k * p4k * p4k * p4k * p4k) * 4096);
    /* 4096^5 blocks of 32 KiB: past off_t's reach */
    check_max_size(32768, 128, (uint64_t)INT64_MAX);
}

TEST(name_length_limit)
{
    nand_dev *d = dev_of(128);
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    char path[300];
    path[0] = '/';
    memset(path + 1, 'n', 255);
    path[256] = 0;
    int fd = logfs_open(fs, path, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0);
    if (fd >= 0)
        logfs_close(fs, fd);
    struct fs_stat st;
    CHECK_EQ_INT(logfs_stat(fs, path, &st), 0);
    path[256] = 'n';
    path[257] = 0;
    CHECK_EQ_INT(logfs_open(fs, path, O_WRONLY | O_CREAT, 0644), -ENAMETOOLONG);
    CHECK_EQ_INT(logfs_mkdir(fs, path, 0755), -ENAMETOOLONG);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* Count names seen by readdir. */
static int count_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    (void)name;
    (void)ino;
    (void)type;
    (*(uint64_t *)ctx)++;
    return 0;
}

TEST(hundred_thousand_names)
{
    uint32_t n = 100000;
    nand_dev *d = dev_of(4096); /* 512 MiB */
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/many", 0755) == 0);
    char path[64];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "/many/file-%06u", i);
        int fd = logfs_open(fs, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        REQUIRE(fd >= 0);
        logfs_close(fs, fd);
    }
    struct fs_stat st;
    REQUIRE(logfs_stat(fs, "/many", &st) == 0);
    CHECK_EQ_INT(st.size, n);
    /* RAM stays bounded: clean nodes and inodes are dropped past the
     * cache bound (4 MiB of each), whatever the number of files */
    struct logfs_stats ms;
    logfs_get_stats(fs, &ms);
    fprintf(stderr, "fs memory with %u files: %.1f MiB\n", n, ms.mem_bytes / 1048576.0);
    CHECK(ms.mem_bytes < (12u << 20));
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    /* lookups from a cold cache: the pages read per lookup stay small */
    struct nand_stats a, b;
    uint64_t worst = 0, total = 0, x = 1;
    for (int k = 0; k < 200; k++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        snprintf(path, sizeof path, "/many/file-%06u", (uint32_t)(x >> 33) % n);
        nand_get_stats(d, &a);
        CHECK_EQ_INT(logfs_stat(fs, path, &st), 0);
        nand_get_stats(d, &b);
        uint64_t r = b.reads - a.reads;
        total += r;
        worst = r > worst ? r : worst;
    }
    snprintf(path, sizeof path, "/many/not-there");
    CHECK_EQ_INT(logfs_stat(fs, path, &st), -ENOENT);
    fprintf(stderr, "lookup in a %u-entry directory: %.1f pages on average, %" PRIu64
            " at worst\n", n, (double)total / 200, worst);
    CHECK(worst <= 24); /* bucket path + inode path, each object ~3 pages */
    uint64_t seen = 0, cookie = 0;
    REQUIRE(logfs_readdir(fs, "/many", &cookie, count_entry, &seen) == 0);
    CHECK_EQ_INT(seen, n);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(deepest_level_sparse_file);
    RUN(largest_file_size);
    RUN(name_length_limit);
    RUN(hundred_thousand_names);
    return test_summary(argv[0]);
}

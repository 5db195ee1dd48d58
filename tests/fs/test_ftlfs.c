/*
 * test_ftlfs.c -- the FTL as an fsapi kind (fs/ftl/): one file, /disk, as
 * large as the logical space; unaligned byte writes and reads against a
 * reference buffer on 8 KiB sectors (partial ones read, changed, written),
 * punch as TRIM with zeroed partial sectors, contents across a remount,
 * the namespace that cannot change, options checked by name, counters.
 */
#include "fsapi.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static int names(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    (void)ino;
    int *n = ctx;
    *n += !strcmp(name, "disk") && S_ISREG(type) ? 1 : 100;
    return 0;
}

TEST(disk_round_trip)
{
    const struct fsapi *A = fsapi_find("ftl");
    REQUIRE(A && (A->features & FSAPI_F_ONE_FILE));
    nand_dev *n = FX_DEVICE(.blocks = 64, .pages = 16, .page_size = 8192, .oob_size = 64,
                            .dies = 2, .quiet = 1, .seed = 2);
    REQUIRE(n);
    REQUIRE(A->mkfs(n, "op=0.2,sector=8K,gc_policy=d-choices,gc_choices=8") == 0);
    CHECK(fsapi_probe(n) == A);
    void *fs;
    REQUIRE(A->mount(n, NULL, &fs) == 0);
    struct fs_stat st;
    REQUIRE(A->stat(fs, "/disk", &st) == 0);
    uint64_t size = st.size;
    CHECK(S_ISREG(st.mode) && size % 8192 == 0 && size > 0);
    CHECK(size <= (uint64_t)128 * 16 * 8192 * 0.8);
    int seen = 0;
    uint64_t cookie = 0;
    REQUIRE(A->readdir(fs, "/", &cookie, names, &seen) == 0);
    CHECK_EQ_INT(seen, 1);
    CHECK_EQ_INT(A->open(fs, "/x", O_WRONLY | O_CREAT, 0644), -EPERM);
    CHECK_EQ_INT(A->mkdir(fs, "/d", 0755), -EPERM);
    CHECK_EQ_INT(A->unlink(fs, "/disk"), -EPERM);
    int fd = A->open(fs, "/disk", O_RDWR, 0);
    REQUIRE(fd >= 0);
    uint8_t *ref = calloc(1, size), *got = malloc(70000), *buf = malloc(70000);
    uint64_t rs = 3;
    for (int i = 0; i < 1500; i++) {
        uint64_t len = 1 + fx_next(&rs) % 20000, off = fx_next(&rs) % (size - len);
        if (fx_next(&rs) % 8 == 0) {
            CHECK_EQ_INT(A->punch(fs, fd, off, len), 0);
            memset(ref + off, 0, len);
        } else {
            fx_fill(buf, len, fx_next(&rs));
            CHECK_EQ_INT(A->pwrite(fs, fd, buf, len, off), (int64_t)len);
            memcpy(ref + off, buf, len);
        }
        if (i % 100 == 0)
            CHECK_EQ_INT(A->fsync(fs, fd), 0);
    }
    struct fs_latency lw, ls;
    REQUIRE(A->latency(fs, FS_OP_WRITE, &lw) == 0 && A->latency(fs, FS_OP_SYNC, &ls) == 0);
    CHECK(lw.count > 1000 && lw.p50_ns > 0 && lw.max_ns >= lw.p99_ns);
    CHECK_EQ_INT(ls.count, 15);
    CHECK_EQ_INT(A->pwrite(fs, fd, buf, 10, size), -ENOSPC);
    CHECK_EQ_INT(A->pwrite(fs, fd, buf, 100, size - 10), 10);
    memcpy(ref + size - 10, buf, 10);
    CHECK_EQ_INT(A->pread(fs, fd, got, 100, size - 10), 10);
    struct fsapi_counter c[FSAPI_COUNTERS_MAX];
    size_t nc = A->stats(fs, c, FSAPI_COUNTERS_MAX);
    CHECK(fsapi_counter_value(c, nc, "pages_data") > 0);
    CHECK(fsapi_counter_value(c, nc, "host_sectors_trimmed") > 0);
    CHECK(fsapi_counter_value(c, nc, "gc_rounds") > 0);
    A->close(fs, fd);
    REQUIRE(A->unmount(fs) == 0);
    REQUIRE(A->mount(n, "gc_policy=greedy", &fs) == 0);
    fd = A->open(fs, "/disk", O_RDONLY, 0);
    REQUIRE(fd >= 0);
    int wrong = 0;
    for (uint64_t off = 0; off < size; off += 65536) {
        uint64_t k = size - off < 65536 ? size - off : 65536;
        REQUIRE(A->pread(fs, fd, got, k, off) == (int64_t)k);
        wrong += memcmp(got, ref + off, k) != 0;
    }
    CHECK_EQ_INT(wrong, 0);
    A->close(fs, fd);
    A->unmount(fs);
    free(ref);
    free(got);
    free(buf);
    nand_close(n);
}

TEST(options_named)
{
    const struct fsapi *A = fsapi_find("ftl");
    REQUIRE(A);
    char err[2048] = "";
    CHECK_EQ_INT(fsapi_check_options(A, "op=2", err, sizeof err), -EINVAL);
    CHECK(strstr(err, "op=2") != NULL);
    CHECK_EQ_INT(fsapi_check_options(A, "gc_policy=d-choices,gc_choices=8,sector=8K", err,
                                     sizeof err), 0);
    CHECK(fsapi_takes_option(A, "gc_threshold", 12));
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(disk_round_trip);
    RUN(options_named);
    return test_summary(argv[0]);
}

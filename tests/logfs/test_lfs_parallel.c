/*
 * test_lfs_parallel.c -- LogFS's data area on several dies (option
 * parallel, fs/logfs/lanes.c): without it, or with parallel=1, the flash
 * sees exactly the operations and times it always did; with it, files
 * read back as a reference model says (before and after a remount, with a
 * cache too small to hold them, so reads go to flash and to lanes' page
 * buffers), the data lands on every die, and the writes take less
 * simulated time.
 */
#include "fixture.h"
#include "logfs/logfs.h"

#include <fcntl.h>

#define DIES 4u
#define FBYTES (3u << 20)
#define IO 4096u

struct outcome {
    struct nand_stats st;
    nand_time_t t;         /* simulated time of the writes and syncs */
    uint32_t dies_written; /* dies with a programmed block */
    int bad;               /* reads that differ from the model */
};

static void run(uint32_t parallel, int set, struct outcome *out)
{
    memset(out, 0, sizeof *out);
    nand_dev *d = FX_DEVICE(.dies = DIES, .blocks = 128, .pages = 64, .seed = 9, .quiet = 1);
    REQUIRE(d);
    struct logfs_options o = {.block_size = 4096, .cache_bytes = 64 << 10,
                              .dirty_bytes = 256 << 10};
    if (set)
        o.parallel = parallel;
    logfs *fs;
    REQUIRE(logfs_mkfs(d, &o) == 0 && logfs_mount(d, &o, &fs) == 0);
    uint8_t *model = calloc(1, FBYTES), buf[IO];
    REQUIRE(model);
    int fd = logfs_open(fs, "/f", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    uint64_t rs = 5;
    nand_time_t t0 = nand_now(d);
    for (uint32_t i = 0; i < 2 * FBYTES / IO; i++) {
        /* first sequential, then random overwrites; a read every so often
         * checks what is still in flight or in a lane's buffer */
        uint64_t off = (uint64_t)(i < FBYTES / IO ? i : fx_next(&rs) % (FBYTES / IO)) * IO;
        fx_fill(buf, IO, i + 1);
        if (logfs_pwrite(fs, fd, buf, IO, off) != IO)
            out->bad++;
        memcpy(model + off, buf, IO);
        if (i % 97 == 0) {
            uint32_t written = i < FBYTES / IO ? i + 1 : FBYTES / IO;
            uint64_t at = fx_next(&rs) % written * IO;
            if (logfs_pread(fs, fd, buf, IO, at) != IO || memcmp(buf, model + at, IO))
                out->bad++;
        }
    }
    CHECK_EQ_INT(logfs_sync(fs), 0);
    out->t = nand_now(d) - t0;
    nand_get_stats(d, &out->st);
    CHECK_EQ_INT(logfs_close(fs, fd), 0);
    CHECK_EQ_INT(logfs_unmount(fs), 0);
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    fd = logfs_open(fs, "/f", O_RDONLY, 0);
    for (uint64_t at = 0; at < FBYTES; at += IO)
        if (logfs_pread(fs, fd, buf, IO, at) != IO || memcmp(buf, model + at, IO))
            out->bad++;
    logfs_close(fs, fd);
    logfs_unmount(fs);
    uint64_t per = nand_blocks(nand_get_config(d)) / DIES;
    for (uint32_t die = 0; die < DIES; die++) {
        int any = 0;
        for (uint64_t b = die * per; b < (die + 1) * per && !any; b++) {
            struct nand_block_info bi;
            nand_block_info(d, (nand_block_t)b, &bi);
            any = bi.pages_programmed > 0;
        }
        out->dies_written += (uint32_t)any;
    }
    free(model);
    nand_close(d);
}

TEST(parallel_one_is_the_default_exactly)
{
    struct outcome a, b;
    run(0, 0, &a);
    run(1, 1, &b);
    CHECK_EQ_INT(a.bad, 0);
    CHECK_EQ_INT(b.bad, 0);
    CHECK_EQ_INT(a.t, b.t);
    CHECK(!memcmp(&a.st, &b.st, sizeof a.st));
}

TEST(parallel_dies_read_back_and_write_faster)
{
    struct outcome one, four;
    run(1, 1, &one);
    run(DIES, 1, &four);
    CHECK_EQ_INT(one.bad, 0);
    CHECK_EQ_INT(four.bad, 0);
    CHECK_EQ_INT(four.dies_written, DIES);
    /* four dies on one channel: the writes overlap, at least twice as fast */
    CHECK(four.t * 2 < one.t);
    printf("  %u dies: %.1f ms, 1 die: %.1f ms of simulated time\n", DIES,
           (double)four.t / 1e6, (double)one.t / 1e6);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(parallel_one_is_the_default_exactly);
    RUN(parallel_dies_read_back_and_write_faster);
    return test_summary(argv[0]);
}

/*
 * test_lfs_space.c -- LogFS when space runs out: overwriting data many
 * times the device's size (the cleaner must reclaim segments), filling it
 * to ENOSPC, deleting on a full device, and going on.  Every file's
 * content is checked against what was written, also after remount.
 */
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>

#define NFILES 24
#define FSIZE (160u << 10)

/* pair > 0: MLC, upper page p shares cells with p - pair */
static nand_dev *paired_dev(uint32_t pair)
{
    /* 16 MiB of 128 KiB blocks */
    return FX_DEVICE(.blocks = 128, .pages = 64, .bad = 0.02, .seed = 5, .pair = pair);
}

static nand_dev *small_dev(void)
{
    return paired_dev(0);
}

static uint8_t byte_at(uint32_t file, uint32_t ver, uint64_t off)
{
    uint64_t x = (file + 1) * 0x9e3779b97f4a7c15ULL ^ (ver + 1) * 0xc2b2ae3d27d4eb4fULL ^
                 (off / 512) * 0x165667b19e3779f9ULL;
    x ^= x >> 29;
    return (uint8_t)(x * 0xbf58476d1ce4e5b9ULL >> 56);
}

static void name_of(char *buf, uint32_t i)
{
    snprintf(buf, 32, "/f%02u", i);
}

/* Rewrite 4 KiB-aligned chunks of files; versions[] records per chunk. */
static int check_file(logfs *fs, uint32_t i, const uint32_t *ver)
{
    char name[32];
    name_of(name, i);
    int fd = logfs_open(fs, name, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    uint8_t buf[4096];
    int bad = 0;
    for (uint32_t c = 0; c < FSIZE / 4096 && !bad; c++) {
        if (logfs_pread(fs, fd, buf, sizeof buf, c * 4096ull) != sizeof buf)
            bad = 1;
        for (uint32_t k = 0; k < sizeof buf && !bad; k++)
            bad = buf[k] != byte_at(i, ver[c], c * 4096ull + k);
    }
    logfs_close(fs, fd);
    return bad ? -1 : 0;
}

static int write_chunk(logfs *fs, uint32_t i, uint32_t c, uint32_t v, int create)
{
    char name[32];
    uint8_t buf[4096];
    name_of(name, i);
    for (uint32_t k = 0; k < sizeof buf; k++)
        buf[k] = byte_at(i, v, c * 4096ull + k);
    int fd = logfs_open(fs, name, O_WRONLY | (create ? O_CREAT : 0), 0644);
    if (fd < 0)
        return fd;
    int64_t n = logfs_pwrite(fs, fd, buf, sizeof buf, c * 4096ull);
    logfs_close(fs, fd);
    return n == sizeof buf ? 0 : n < 0 ? (int)n : -EIO;
}

TEST(overwrite_many_device_sizes)
{
    nand_dev *d = small_dev();
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    static uint32_t ver[NFILES][FSIZE / 4096];
    memset(ver, 0, sizeof ver);
    for (uint32_t i = 0; i < NFILES; i++)
        for (uint32_t c = 0; c < FSIZE / 4096; c++)
            REQUIRE(write_chunk(fs, i, c, 0, 1) == 0);
    /* 3.75 MiB live on 16 MiB; write 5x the device in random chunks */
    uint64_t x = 7, written = 0;
    struct nand_stats st0, st1;
    nand_get_stats(d, &st0);
    while (written < 5 * (16u << 20)) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint32_t i = (uint32_t)(x % NFILES), c = (uint32_t)((x >> 20) % (FSIZE / 4096));
        int rc = write_chunk(fs, i, c, ++ver[i][c], 0);
        if (rc) {
            fprintf(stderr, "write failed after %" PRIu64 " bytes: %d\n", written, rc);
            break;
        }
        written += 4096;
        if (written % (1u << 20) == 0) {
            uint32_t seg, have;
            uint64_t want;
            REQUIRE(logfs_sync(fs) == 0);
            CHECK_EQ_INT(lfs_check_live(fs, &seg, &want, &have), 0);
        }
    }
    CHECK(written >= 5 * (16u << 20));
    nand_get_stats(d, &st1);
    fprintf(stderr, "host %" PRIu64 " MiB, flash programs %" PRIu64 " MiB, erases %"
            PRIu64 "\n", written >> 20, (st1.bytes_written - st0.bytes_written) >> 20,
            st1.erases - st0.erases);
    CHECK(st1.erases - st0.erases > 5 * 128 / 2); /* segments really were reused */
    for (uint32_t i = 0; i < NFILES; i++)
        CHECK_EQ_INT(check_file(fs, i, ver[i]), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    for (uint32_t i = 0; i < NFILES; i++)
        CHECK_EQ_INT(check_file(fs, i, ver[i]), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(enospc_delete_and_go_on)
{
    nand_dev *d = small_dev();
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    uint32_t made = 0, zero[FSIZE / 4096] = {0};
    int rc = 0;
    while (made < 1000 && !rc) { /* fill with 160 KiB files until ENOSPC */
        for (uint32_t c = 0; c < FSIZE / 4096 && !rc; c++)
            rc = write_chunk(fs, made, c, 0, 1);
        if (!rc)
            made++;
    }
    CHECK_EQ_INT(rc, -ENOSPC);
    CHECK(made > 40); /* most of the 16 MiB was usable */
    struct fs_statfs sf;
    REQUIRE(logfs_statfs(fs, &sf) == 0);
    /* delete on a full device works, and frees space for new data */
    char name[32];
    for (uint32_t i = 0; i < made; i += 2) {
        name_of(name, i);
        CHECK_EQ_INT(logfs_unlink(fs, name), 0);
    }
    name_of(name, made); /* the partial file from the failed write */
    logfs_unlink(fs, name);
    REQUIRE(logfs_sync(fs) == 0);
    for (uint32_t c = 0; c < FSIZE / 4096; c++)
        CHECK_EQ_INT(write_chunk(fs, 0, c, 0, 1), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    for (uint32_t i = 0; i < made; i++)
        if (i % 2 || i == 0)
            CHECK_EQ_INT(check_file(fs, i, zero), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* Many short mounts (as the CLI does: one per command) neither leak free
 * space nor abandon their open segments: free space falls only by what is
 * stored. */
TEST(remount_cycles_keep_space)
{
    nand_dev *d = small_dev();
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    logfs *fs;
    struct fs_statfs a, b;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_statfs(fs, &a) == 0);
    REQUIRE(logfs_unmount(fs) == 0);
    for (int i = 0; i < 300; i++) {
        char name[32];
        snprintf(name, sizeof name, "/d%d", i);
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
        REQUIRE(logfs_mkdir(fs, name, 0755) == 0);
        REQUIRE(logfs_unmount(fs) == 0);
    }
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_statfs(fs, &b) == 0);
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    CHECK(a.free_bytes - b.free_bytes <= st.live_bytes);
    CHECK(b.free_bytes > a.free_bytes / 2);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* A quarter of the segments are worn past their endurance: their erases
 * and programs fail about two times in three.  Failed erases retire the
 * segment at allocation, failed programs retire it mid-write and the
 * objects in the failed page are written elsewhere; no data is lost. */
static void worn_segments(uint32_t pair)
{
    nand_dev *d = paired_dev(pair);
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    const struct nand_config *c = nand_get_config(d);
    for (uint32_t b = 8; b < 120; b += 4)
        REQUIRE(nand_set_wear(d, b, c->endurance + c->endurance / 20) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    static uint32_t ver[NFILES][FSIZE / 4096];
    memset(ver, 0, sizeof ver);
    for (uint32_t i = 0; i < NFILES / 2; i++)
        for (uint32_t c2 = 0; c2 < FSIZE / 4096; c2++)
            REQUIRE(write_chunk(fs, i, c2, 0, 1) == 0);
    uint64_t x = 99;
    for (int k = 0; k < 3000; k++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint32_t i = (uint32_t)(x % (NFILES / 2)), c2 = (uint32_t)((x >> 20) % (FSIZE / 4096));
        REQUIRE(write_chunk(fs, i, c2, ++ver[i][c2], 0) == 0);
        if (k % 256 == 255)
            REQUIRE(logfs_sync(fs) == 0);
    }
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    CHECK(st.relocations > 0);
    for (uint32_t i = 0; i < NFILES / 2; i++)
        CHECK_EQ_INT(check_file(fs, i, ver[i]), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    for (uint32_t i = 0; i < NFILES / 2; i++)
        CHECK_EQ_INT(check_file(fs, i, ver[i]), 0);
    uint32_t seg, have;
    uint64_t want;
    CHECK_EQ_INT(lfs_check_live(fs, &seg, &want, &have), 0);
    struct nand_stats ns;
    nand_get_stats(d, &ns);
    if (pair)
        CHECK(ns.paired_corruptions > 0);
    fprintf(stderr, "worn segments: %" PRIu64 " relocations, %" PRIu64
            " lower pages damaged\n", st.relocations, ns.paired_corruptions);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(worn_segments_relocate)
{
    worn_segments(0);
}

/* The same on MLC, where a failed upper-page program also damages its
 * lower page (the next test pins one such failure down). */
TEST(worn_paired_segments_relocate)
{
    worn_segments(2);
}

/* Wears out the first block whose page `page` is programmed, just for that
 * program (so that it fails), then gives the block its wear back. */
struct fail_once { nand_dev *d; uint32_t page; int phase; nand_block_t b; uint64_t pe; };

static int fail_program(void *ctx, const struct nand_op *op, double *frac)
{
    struct fail_once *f = ctx;
    (void)frac;
    if (f->phase == 1) {
        nand_set_wear(f->d, f->b, f->pe);
        f->phase = 2;
    }
    if (f->phase == 0 && op->kind == NAND_OP_PROGRAM && op->page == f->page) {
        struct nand_block_info bi;
        nand_block_info(f->d, op->block, &bi);
        f->b = op->block;
        f->pe = bi.pe_cycles;
        nand_set_wear(f->d, op->block, 4 * nand_get_config(f->d)->endurance);
        f->phase = 1;
    }
    return 0;
}

/* The upper page 3 of a fresh segment fails to program and damages lower
 * page 1, whose objects the commit had already programmed: they are
 * written again elsewhere with the rest, and the file reads back whole. */
TEST(failed_upper_page_rewrites_its_lower_page)
{
    nand_dev *d = paired_dev(2);
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    struct fail_once f = {.d = d, .page = 3};
    nand_cut_callback(d, fail_program, &f);
    static uint32_t ver[FSIZE / 4096];
    for (uint32_t c2 = 0; c2 < FSIZE / 4096; c2++)
        REQUIRE(write_chunk(fs, 0, c2, 0, 1) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    nand_cut_disarm(d);
    struct nand_stats ns;
    nand_get_stats(d, &ns);
    CHECK_EQ_INT(f.phase, 2);
    CHECK_EQ_INT(ns.program_fails, 1);
    CHECK_EQ_INT(ns.paired_corruptions, 1);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    CHECK_EQ_INT(check_file(fs, 0, ver), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(worn_segments_relocate);
    RUN(worn_paired_segments_relocate);
    RUN(failed_upper_page_rewrites_its_lower_page);
    RUN(remount_cycles_keep_space);
    RUN(overwrite_many_device_sizes);
    RUN(enospc_delete_and_go_on);
    return test_summary(argv[0]);
}

/*
 * test_lfs_errconv.c -- LogFS converts the simulator's error codes at the
 * flash boundary (issue #28): enum nand_err's values collide with errno's
 * (NAND_E_ADDR is -2, -ENOENT; NAND_E_POWER is -9, -EBADF), so a raw code
 * that slipped through would tell a caller "no such file" or "bad fd".
 * A failed program or erase is LFS_E_RETIRE, which no errno equals.
 */
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "lfs_fixture.h"

#include <errno.h>
#include <fcntl.h>

TEST(every_nand_code_maps_to_an_errno_or_retire)
{
    CHECK(LFS_E_RETIRE < -4095); /* outside errno's range */
    for (int nrc = NAND_OK; nrc >= NAND_E_LOCKED; nrc--) {
        int e = lfs_errno(nrc), f = lfs_flash_rc(nrc);
        CHECK(nrc ? e < 0 && e >= -4095 : e == 0);
        CHECK(e != -ENOENT && e != -EBADF);
        if (nrc == NAND_E_PROGRAM_FAIL || nrc == NAND_E_ERASE_FAIL)
            CHECK_EQ_INT(f, LFS_E_RETIRE);
        else
            CHECK_EQ_INT(f, e);
    }
    CHECK_EQ_INT(lfs_errno(NAND_E_ADDR), -EINVAL);
    CHECK_EQ_INT(lfs_errno(NAND_E_POWER), -EIO);
}

/* The flash calls, synchronous (parallel 1) and queued (parallel 2). */
static void flash_calls(uint32_t parallel)
{
    nand_dev *d = FX_DEVICE(.dies = 2, .blocks = 64, .pages = 16, .seed = 5, .quiet = 1);
    REQUIRE(d);
    struct logfs_options o = {.parallel = parallel};
    logfs *fs;
    REQUIRE(logfs_mkfs(d, &o) == 0 && logfs_mount(d, &o, &fs) == 0);
    /* a page buffer as the write areas have: the device's */
    uint8_t *page = lfs_page_buffer(fs), *first = page;
    REQUIRE(page);
    memset(page, 0x5a, fs->g.page_size);
    uint32_t past = (uint32_t)fs->g.nblocks + 3; /* NAND_E_ADDR */
    CHECK_EQ_INT(lfs_flash_program(fs, past, 0, &page), -EINVAL);
    /* with one lane the device took the buffer (and freed it, failed)
     * and gave a fresh one; queued, the bytes were copied */
    CHECK(page && (parallel == 1) == (page != first));
    CHECK_EQ_INT(lfs_flash_erase(fs, past), -EINVAL);
    nand_power_cut(d); /* NAND_E_POWER from now on */
    CHECK_EQ_INT(lfs_flash_erase(fs, 40), -EIO);
    CHECK_EQ_INT(lfs_flash_program(fs, 40, 0, &page), -EIO);
    lfs_page_buffer_free(fs, page);
    logfs_unmount(fs); /* fails when the power is off; frees the fs */
    nand_close(d);
}

TEST(flash_calls_return_errnos)
{
    flash_calls(1);
    flash_calls(2);
}

/* Through the public calls: after a cut, a sync says EIO, not EBADF. */
TEST(power_cut_surfaces_as_eio)
{
    nand_dev *d;
    logfs *fs = LFS_FX_MOUNTED(&d, .blocks = 128, .pages = 64, .seed = 6, .quiet = 1);
    REQUIRE(fs);
    int fd = logfs_open(fs, "/f", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    uint8_t buf[3000];
    memset(buf, 7, sizeof buf);
    int64_t n = logfs_write(fs, fd, buf, sizeof buf);
    CHECK_EQ_INT(n, (int64_t)sizeof buf);
    nand_power_cut(d);
    int rc = logfs_fsync(fs, fd);
    CHECK_EQ_INT(rc, -EIO);
    logfs_unmount(fs);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(every_nand_code_maps_to_an_errno_or_retire);
    RUN(flash_calls_return_errnos);
    RUN(power_cut_surfaces_as_eio);
    return test_summary(argv[0]);
}

/*
 * test_lfs_errors.c -- LogFS over flash that returns uncorrectable reads:
 * every read gives the right bytes or EIO, never wrong data, and nothing
 * crashes.  The error rate is raised after the data is written, as wear
 * and retention would.
 */
#include "logfs/logfs.h"
#include "lfs_fixture.h"

#include <errno.h>
#include <fcntl.h>

TEST(uncorrectable_reads_give_eio_not_wrong_data)
{
    nand_dev *d;
    logfs *fs = LFS_FX_MOUNTED(&d, .blocks = 128, .pages = 64, .ecc_bits = 1, .seed = 21);
    REQUIRE(fs);
    uint8_t buf[8192], got[8192];
    for (int f = 0; f < 40; f++) {
        char name[32];
        snprintf(name, sizeof name, "/f%d", f);
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)(f * 7 + i * 13);
        int fd = logfs_open(fs, name, O_WRONLY | O_CREAT, 0644);
        REQUIRE(fd >= 0);
        REQUIRE(logfs_write(fs, fd, buf, sizeof buf) == sizeof buf);
        logfs_close(fs, fd);
    }
    REQUIRE(logfs_unmount(fs) == 0);

    /* age every block far past its rating, to the wear at which the
     * device's own model gives an RBER of 7e-5: with 1-bit ECC a few 512 B
     * codewords in a hundred now fail, and erases and programs fail too */
    const struct nand_config *c = nand_get_config(d);
    uint64_t wear = c->endurance;
    while (nand_rber(&c->rber, (double)wear, 0, 0) < 7e-5 && wear < UINT64_MAX / 4)
        wear += wear / 4;
    for (uint32_t b = 0; b < 128; b++)
        nand_set_wear(d, b, wear);
    struct logfs_options ro = {.readonly = 1};
    int ok = 0, eio = 0, wrong = 0, mounts = 0;
    for (int round = 0; round < 20; round++) {
        if (logfs_mount(d, round % 2 ? &ro : NULL, &fs) != 0)
            continue; /* the anchor or root itself unreadable: refused, not crashed */
        mounts++;
        for (int f = 0; f < 40; f++) {
            char name[32];
            snprintf(name, sizeof name, "/f%d", f);
            for (size_t i = 0; i < sizeof buf; i++)
                buf[i] = (uint8_t)(f * 7 + i * 13);
            int fd = logfs_open(fs, name, O_RDONLY, 0);
            if (fd < 0) {
                if (fd != -EIO)
                    fprintf(stderr, "open %s: %d\n", name, fd);
                CHECK(fd == -EIO);
                eio++;
                continue;
            }
            int64_t n = logfs_pread(fs, fd, got, sizeof got, 0);
            if (n == -EIO)
                eio++;
            else if (n == (int64_t)sizeof got && !memcmp(got, buf, sizeof got))
                ok++;
            else
                wrong++;
            logfs_close(fs, fd);
        }
        struct fs_statfs sf;
        CHECK(logfs_statfs(fs, &sf) == 0);
        logfs_unmount(fs);
    }
    fprintf(stderr, "%d mounts; reads: %d right, %d EIO, %d wrong\n", mounts, ok, eio, wrong);
    CHECK_EQ_INT(wrong, 0);
    CHECK(eio > 0);
    CHECK(ok > 0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(uncorrectable_reads_give_eio_not_wrong_data);
    return test_summary(argv[0]);
}

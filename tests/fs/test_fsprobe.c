/*
 * test_fsprobe.c -- fsapi_probe (fs/fsapi.h): an erased device holds no
 * file system; a fresh mkfs of each kind is found as that kind, and still
 * after files are written and the fs unmounted; every probe answers 0 on
 * another kind's device; an fs made over another one's image wins; and a
 * probe reads only a few pages.
 */
#include "fsapi.h"
#include "fixture.h"

#include <fcntl.h>
#include <string.h>

static nand_dev *device(uint64_t seed)
{
    return FX_DEVICE(.blocks = 128, .seed = seed);
}

/* a directory and a file of n bytes, then unmount */
static int populate(const struct fsapi *api, nand_dev *dev, uint32_t n)
{
    void *fs;
    int rc = api->mount(dev, NULL, &fs);
    if (rc)
        return rc;
    static uint8_t buf[70000];
    memset(buf, 0x5a, sizeof buf);
    /* a block device's one file (FSAPI_F_ONE_FILE) takes the bytes alone */
    int one = (api->features & FSAPI_F_ONE_FILE) != 0;
    rc = one ? 0 : api->mkdir(fs, "/d", 0755);
    int fd = rc ? rc : api->open(fs, one ? "/disk" : "/d/f", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        int64_t w = api->pwrite(fs, fd, buf, n < sizeof buf ? n : sizeof buf, 0);
        rc = w < 0 ? (int)w : 0;
        int crc = api->close(fs, fd);
        rc = rc ? rc : crc;
    } else {
        rc = fd;
    }
    int urc = api->unmount(fs);
    return rc ? rc : urc;
}

TEST(erased_device_holds_none)
{
    nand_dev *dev = device(1);
    REQUIRE(dev);
    CHECK(fsapi_probe(dev) == NULL);
    for (size_t i = 0; fsapi_at(i); i++)
        CHECK_EQ_INT(fsapi_at(i)->probe(dev), 0);
    nand_close(dev);
}

TEST(every_kind_is_found)
{
    for (size_t i = 0; fsapi_at(i); i++) {
        const struct fsapi *api = fsapi_at(i);
        nand_dev *dev = device(10 + i);
        REQUIRE(dev);
        REQUIRE(api->mkfs(dev, NULL) == 0);
        const struct fsapi *got = fsapi_probe(dev);
        if (got != api)
            fprintf(stderr, "fresh %s probed as %s\n", api->name, got ? got->name : "none");
        CHECK(got == api);
        CHECK_EQ_INT(populate(api, dev, 50000), 0);
        got = fsapi_probe(dev);
        if (got != api)
            fprintf(stderr, "used %s probed as %s\n", api->name, got ? got->name : "none");
        CHECK(got == api);
        /* the other kinds' probes: only jffs2-scan's also sees jffs2-summary's nodes */
        for (size_t k = 0; fsapi_at(k); k++) {
            const struct fsapi *o = fsapi_at(k);
            int want = o == api || (!strcmp(o->name, "jffs2-scan") &&
                                    !strcmp(api->name, "jffs2-summary"));
            CHECK_EQ_INT(o->probe(dev), want);
        }
        nand_close(dev);
    }
}

/* one mkfs after another: the newer fs is found */
TEST(newer_mkfs_wins)
{
    for (size_t i = 0; fsapi_at(i); i++) {
        for (size_t k = 0; fsapi_at(k); k++) {
            const struct fsapi *old = fsapi_at(i), *api = fsapi_at(k);
            nand_dev *dev = device(100 + 10 * i + k);
            REQUIRE(dev);
            REQUIRE(old->mkfs(dev, NULL) == 0);
            CHECK_EQ_INT(populate(old, dev, 60000), 0);
            REQUIRE(api->mkfs(dev, NULL) == 0);
            const struct fsapi *got = fsapi_probe(dev);
            if (got != api)
                fprintf(stderr, "%s over %s probed as %s\n", api->name, old->name,
                        got ? got->name : "none");
            CHECK(got == api);
            nand_close(dev);
        }
    }
}

/* A positive probe reads a few pages, not the device. */
TEST(probe_reads_few_pages)
{
    for (size_t i = 0; fsapi_at(i); i++) {
        const struct fsapi *api = fsapi_at(i);
        nand_dev *dev = device(200 + i);
        REQUIRE(dev);
        REQUIRE(api->mkfs(dev, NULL) == 0);
        CHECK_EQ_INT(populate(api, dev, 30000), 0);
        struct nand_stats a, b;
        nand_get_stats(dev, &a);
        CHECK(api->probe(dev) == 1);
        nand_get_stats(dev, &b);
        uint64_t reads = b.reads - a.reads;
        if (reads > 8)
            fprintf(stderr, "%s: probe read %llu pages\n", api->name,
                    (unsigned long long)reads);
        CHECK(reads <= 8);
        nand_close(dev);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(erased_device_holds_none);
    RUN(every_kind_is_found);
    RUN(newer_mkfs_wins);
    RUN(probe_reads_few_pages);
    return test_summary(argv[0]);
}

/*
 * test_jffs.c -- the JFFS2 baseline (fs/jffs2/jffs.h): what mount reads
 * (every used page without summaries, about a page or two per full block
 * with them), torn nodes after a power cut, a flipped data bit (EIO, never
 * wrong data), the GC over a device filled several times, and the mount
 * work counts; and, printed, mount reads on a 64 MiB device 70% full for
 * jffs2-scan, jffs2-summary and LogFS.
 */
#include "fsapi.h"
#include "jffs2/jffs.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

static nand_dev *device(uint32_t blocks, uint32_t ppb, uint64_t seed)
{
    return FX_DEVICE(.blocks = blocks, .pages = ppb, .seed = seed);
}

/* Incompressible bytes (xorshift), so that nodes hold as many bytes as
 * the file and the page counts below hold whatever the compressor. */
static void pattern(uint8_t *b, size_t n, uint32_t seed)
{
    uint64_t s = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        b[i] = (uint8_t)(s >> 24);
    }
}

/* write files f0..f(n-1) of size bytes each (pattern by index and gen) */
static int fill_files(const struct fsapi *api, void *fs, int n, uint32_t size, uint32_t gen)
{
    uint8_t *buf = malloc(size);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char p[32];
        snprintf(p, sizeof p, "/f%d", i);
        pattern(buf, size, (uint32_t)i * 1000 + gen);
        int fd = api->open(fs, p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            rc = fd;
            break;
        }
        int64_t w = api->pwrite(fs, fd, buf, size, 0);
        rc = w == (int64_t)size ? 0 : w < 0 ? (int)w : -EIO;
        api->close(fs, fd);
    }
    free(buf);
    return rc;
}

static int check_files(const struct fsapi *api, void *fs, int n, uint32_t size, uint32_t gen)
{
    uint8_t *buf = malloc(size), *want = malloc(size);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        char p[32];
        snprintf(p, sizeof p, "/f%d", i);
        pattern(want, size, (uint32_t)i * 1000 + gen);
        int fd = api->open(fs, p, O_RDONLY, 0);
        int64_t r = fd >= 0 ? api->pread(fs, fd, buf, size, 0) : fd;
        if (fd >= 0)
            api->close(fs, fd);
        bad += r != (int64_t)size || memcmp(buf, want, size);
    }
    free(buf);
    free(want);
    return bad;
}

/* Mount again, counting flash reads other than the bad-block checks. */
static uint64_t mount_reads(const struct fsapi *api, nand_dev *d, void **fs,
                            struct fsapi_mount_work *w)
{
    nand_reset_stats(d);
    if (api->mount(d, NULL, fs))
        return UINT64_MAX;
    struct nand_stats st;
    nand_get_stats(d, &st);
    if (w)
        api->mount_work(*fs, w);
    uint64_t nb = nand_blocks(nand_get_config(d));
    return st.reads - (!strcmp(api->name, "logfs") ? 0 : nb); /* JFFS2 checks every marker */
}

TEST(scan_reads_every_used_page)
{
    for (int variant = 0; variant < 2; variant++) {
        const struct fsapi *api = variant ? &fsapi_jffs2_summary : &fsapi_jffs2_scan;
        nand_dev *d = device(128, 64, 1); /* 16 MiB of 128 KiB blocks */
        void *fs;
        REQUIRE(d && api->mkfs(d, NULL) == 0 && api->mount(d, NULL, &fs) == 0);
        REQUIRE(fill_files(api, fs, 40, 200000, 1) == 0); /* ~8 MB */
        REQUIRE(api->unmount(fs) == 0);
        struct fsapi_mount_work w;
        uint64_t reads = mount_reads(api, d, &fs, &w);
        REQUIRE(reads != UINT64_MAX);
        CHECK_EQ_INT(check_files(api, fs, 40, 200000, 1), 0);
        uint64_t data_pages = 40ull * 200000 / 2048, full_blocks = data_pages / 64;
        printf("  %s: %" PRIu64 " pages read at mount (%" PRIu64 " data pages, %" PRIu64
               " blocks full), %" PRIu64 " bytes checksummed, %" PRIu64 " nodes\n",
               api->name, reads, data_pages, full_blocks, w.bytes_checksummed, w.nodes_indexed);
        /* as Linux: a block's marker and page 0's spare; then a used
         * block's every page, a blank one's page 0 and its first 4
         * spares; jffs2-summary reads each block's last page first, and a
         * summary's pages (1-2) instead of the rest */
        if (!variant) {
            CHECK(reads >= data_pages && reads < data_pages * 11 / 10 + 7 * 128 + 64);
            CHECK(w.bytes_checksummed >= 8000000 && w.bytes_checksummed < 8800000);
        } else {
            CHECK(reads <= 5 * full_blocks + 8 * (128 - full_blocks) + 64);
            CHECK(w.bytes_checksummed < 600000);
        }
        CHECK(w.nodes_indexed >= 40 * 200000 / 4096 && w.nodes_indexed < 2100);
        CHECK(api->mem_bytes(fs) > 0);
        api->unmount(fs);
        nand_close(d);
    }
}

TEST(torn_node_ignored)
{
    for (int variant = 0; variant < 2; variant++) {
        const struct fsapi *api = variant ? &fsapi_jffs2_summary : &fsapi_jffs2_scan;
        for (int cut = 0; cut < 6; cut++) {
            nand_dev *d = device(64, 32, 2 + (uint64_t)cut);
            void *fs;
            REQUIRE(d && api->mkfs(d, NULL) == 0 && api->mount(d, NULL, &fs) == 0);
            REQUIRE(fill_files(api, fs, 3, 20000, 1) == 0);
            REQUIRE(api->sync(fs) == 0);
            /* overwrite f1; the power fails during one of its programs */
            nand_cut_after_ops(d, (uint64_t)cut, 0.3 + 0.1 * cut);
            uint8_t buf[20000];
            pattern(buf, sizeof buf, 1000 + 2);
            int fd = api->open(fs, "/f1", O_WRONLY, 0);
            int64_t w = fd >= 0 ? api->pwrite(fs, fd, buf, sizeof buf, 0) : fd;
            if (fd >= 0 && w >= 0)
                w = api->fsync(fs, fd);
            CHECK(w < 0); /* the cut reached the caller */
            api->unmount(fs); /* fails: frees */
            nand_power_on(d);
            REQUIRE(api->mount(d, NULL, &fs) == 0);
            /* f0, f2 intact; f1 old, new or mixed per 4 KiB node, never garbage */
            CHECK_EQ_INT(check_files(api, fs, 1, 20000, 1), 0);
            uint8_t got[20000], old[20000];
            pattern(old, sizeof old, 1000 + 1);
            fd = api->open(fs, "/f1", O_RDONLY, 0);
            REQUIRE(fd >= 0);
            CHECK_EQ_INT(api->pread(fs, fd, got, sizeof got, 0), 20000);
            for (uint32_t o = 0; o < sizeof got; o += 4096) {
                uint32_t n = sizeof got - o < 4096 ? sizeof got - o : 4096;
                CHECK(!memcmp(got + o, old + o, n) || !memcmp(got + o, buf + o, n));
            }
            api->close(fs, fd);
            CHECK_EQ_INT(fill_files(api, fs, 3, 20000, 3), 0); /* still writable */
            CHECK_EQ_INT(api->unmount(fs), 0);
            REQUIRE(api->mount(d, NULL, &fs) == 0);
            CHECK_EQ_INT(check_files(api, fs, 3, 20000, 3), 0);
            api->unmount(fs);
            nand_close(d);
        }
    }
}

/* Rewrite the block holding addr with one bit of it flipped. */
static int flip_bit(nand_dev *d, uint64_t addr, unsigned bit)
{
    const struct nand_config *c = nand_get_config(d);
    uint32_t ps = c->geo.page_size, bs = ps * c->geo.pages_per_block, b = (uint32_t)(addr / bs);
    uint8_t *buf = malloc(bs);
    struct nand_block_info bi;
    int rc = nand_block_info(d, b, &bi);
    for (uint32_t p = 0; !rc && p < c->geo.pages_per_block; p++) {
        memset(buf + (size_t)p * ps, 0xff, ps);
        if (p < bi.pages_programmed)
            rc = nand_read_raw(d, b, p, buf + (size_t)p * ps, NULL, NULL);
    }
    buf[addr % bs] ^= (uint8_t)(1u << bit);
    if (!rc)
        rc = nand_erase(d, b, NULL);
    for (uint32_t p = 0; !rc && p < c->geo.pages_per_block; p++) {
        int blank = 1;
        for (uint32_t i = 0; i < ps && blank; i++)
            blank = buf[(size_t)p * ps + i] == 0xff;
        if (!blank)
            rc = nand_program(d, b, p, buf + (size_t)p * ps, NULL, NULL);
    }
    free(buf);
    return rc;
}

TEST(flipped_data_bit_is_eio)
{
    for (int variant = 0; variant < 2; variant++) {
        struct jffs_options o = {.summary = variant};
        nand_dev *d = device(64, 32, 9);
        struct jffs *fs;
        REQUIRE(d && jffs_mkfs(d, &o) == 0 && jffs_mount(d, &o, &fs) == 0);
        const struct fsapi *api = variant ? &fsapi_jffs2_summary : &fsapi_jffs2_scan;
        REQUIRE(fill_files(api, fs, 4, 16384, 5) == 0);
        REQUIRE(jffs_sync(fs) == 0);
        /* the second data node of /f1 */
        struct jffs_path r;
        REQUIRE(jffs_resolve(fs, "/f1", 1, &r) == 0 && r.ino);
        struct jffs_inode *in = jffs_inode_get(fs, r.ino);
        REQUIRE(in && in->nfrag == 4);
        uint64_t addr = in->frags[1].n->r.addr + JFFS_INODE_HDR + 100;
        REQUIRE(jffs_unmount(fs) == 0);
        REQUIRE(flip_bit(d, addr, 3) == 0);
        REQUIRE(jffs_mount(d, &o, &fs) == 0);
        int fd = api->open(fs, "/f1", O_RDONLY, 0);
        uint8_t buf[16384], want[16384];
        pattern(want, sizeof want, 1000 + 5);
        REQUIRE(fd >= 0);
        CHECK_EQ_INT(api->pread(fs, fd, buf, 16384, 0), -EIO);
        CHECK_EQ_INT(api->pread(fs, fd, buf, 4096, 0), 4096); /* other nodes fine */
        CHECK(!memcmp(buf, want, 4096));
        CHECK_EQ_INT(api->pread(fs, fd, buf, 100, 4096 + 50), -EIO);
        api->close(fs, fd);
        CHECK_EQ_INT(check_files(api, fs, 1, 16384, 5), 0);
        jffs_unmount(fs);
        nand_close(d);
    }
}

TEST(gc_over_several_fills)
{
    for (int variant = 0; variant < 2; variant++) {
        const struct fsapi *api = variant ? &fsapi_jffs2_summary : &fsapi_jffs2_scan;
        nand_dev *d = device(64, 32, 11); /* 4 MiB */
        void *fs;
        REQUIRE(d && api->mkfs(d, NULL) == 0 && api->mount(d, NULL, &fs) == 0);
        uint32_t gen;
        for (gen = 1; gen <= 12; gen++) { /* 12 x 2.4 MB: 7 fills of 4 MiB */
            REQUIRE(fill_files(api, fs, 12, 200000, gen) == 0);
            if (gen % 4 == 0) {
                REQUIRE(api->unmount(fs) == 0);
                REQUIRE(api->mount(d, NULL, &fs) == 0);
            }
            CHECK_EQ_INT(check_files(api, fs, 12, 200000, gen), 0);
        }
        struct nand_stats st;
        nand_get_stats(d, &st);
        CHECK(st.erases > 3 * 64); /* the GC erased the device over and over */
        /* full: a big write fails cleanly, and the fs goes on */
        uint8_t *big = calloc(1, 4 << 20);
        int fd = api->open(fs, "/big", O_WRONLY | O_CREAT, 0644);
        REQUIRE(fd >= 0);
        CHECK_EQ_INT(api->pwrite(fs, fd, big, 4 << 20, 0), -ENOSPC);
        api->close(fs, fd);
        free(big);
        CHECK_EQ_INT(api->unlink(fs, "/big"), 0);
        CHECK_EQ_INT(api->unlink(fs, "/f0"), 0);
        CHECK_EQ_INT(fill_files(api, fs, 12, 200000, 99), 0);
        CHECK_EQ_INT(api->unmount(fs), 0);
        REQUIRE(api->mount(d, NULL, &fs) == 0);
        CHECK_EQ_INT(check_files(api, fs, 12, 200000, 99), 0);
        printf("  %s: %" PRIu64 " erases of 64 blocks for 12 generations\n", api->name, st.erases);
        api->unmount(fs);
        nand_close(d);
    }
}

/* A 64 MiB device 70% full: what each fs reads to mount it. */
TEST(mount_reads_64mib)
{
    const char *fsn[] = {"jffs2-scan", "jffs2-summary", "logfs"};
    uint64_t reads[3] = {0};
    for (int k = 0; k < 3; k++) {
        const struct fsapi *api = fsapi_find(fsn[k]);
        nand_dev *d = device(512, 64, 21); /* 512 x 128 KiB */
        void *fs;
        REQUIRE(api && d && api->mkfs(d, NULL) == 0 && api->mount(d, NULL, &fs) == 0);
        REQUIRE(fill_files(api, fs, 224, 200000, 7) == 0); /* 44.8 MB: 70% of 64 MiB */
        REQUIRE(api->unmount(fs) == 0);
        struct fsapi_mount_work w;
        reads[k] = mount_reads(api, d, &fs, &w);
        REQUIRE(reads[k] != UINT64_MAX);
        struct nand_stats st;
        nand_get_stats(d, &st);
        printf("  %-14s mount of 64 MiB, 70%% full: %6" PRIu64 " pages read (+%s), "
               "%5.1f ms flash, %" PRIu64 " B checksummed, %" PRIu64 " nodes, "
               "cpu %.0f ms (geode), mem %" PRIu64 " KiB\n",
               api->name, reads[k], k < 2 ? "512 marker reads" : "0", st.busy_ns / 1e6,
               w.bytes_checksummed, w.nodes_indexed,
               fsapi_cpu_ns(&fsapi_cpu_geode_lx, &w) / 1e6, api->mem_bytes(fs) >> 10);
        CHECK_EQ_INT(check_files(api, fs, 3, 200000, 7), 0);
        api->unmount(fs);
        nand_close(d);
    }
    CHECK(reads[0] > 10 * reads[1]);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(scan_reads_every_used_page);
    RUN(torn_node_ignored);
    RUN(flipped_data_bit_is_eio);
    RUN(gc_over_several_fills);
    RUN(mount_reads_64mib);
    return test_summary(argv[0]);
}

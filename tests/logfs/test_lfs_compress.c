/*
 * test_lfs_compress.c -- LogFS with compressed data blocks (format 5,
 * FORMAT.md 9.1a): every method round-trips incompressible, compressible
 * and mixed data through remounts; sparse files, truncation and partial
 * overwrites inside compressed blocks match a reference buffer; the
 * cleaner moves compressed objects; mounts may switch methods; a format-4
 * image stays format 4; fsck finds every image clean.
 */
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fsck.h"
#include "crc32.h"
#include "fixture.h"
#include "le.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>

enum kind { INCOMPRESSIBLE, COMPRESSIBLE, MIXED };
static const int methods[] = {LOGFS_COMPRESS_NONE, LOGFS_COMPRESS_ZLIB, LOGFS_COMPRESS_LZO};

/* n bytes of data of a kind: random; a few words repeated (text-like);
 * or 4 KiB blocks of each in turn, with a random tail in the compressible
 * ones. */
static void make_data(uint8_t *buf, size_t n, enum kind k, uint64_t seed)
{
    static const char *words[] = {"flash ", "erase ", "block ", "page ", "log ", "tree "};
    fx_fill(buf, n, seed);
    for (size_t i = 0; k != INCOMPRESSIBLE && i < n;) {
        size_t blk = i / 4096;
        if (k == MIXED && blk % 2) {
            i = (blk + 1) * 4096;
            continue;
        }
        uint64_t h = fx_next(&seed);
        const char *w = words[h % 6];
        for (size_t j = 0; w[j] && i < n; j++)
            buf[i++] = (uint8_t)w[j];
        if (k == MIXED && i % 4096 > 3000)
            i = (i / 4096 + 1) * 4096; /* the rest of the block stays random */
    }
}

static nand_dev *dev_of(uint32_t blocks)
{
    return FX_DEVICE(.blocks = blocks, .pages = 64, .quiet = 1, .seed = 5);
}

static int put(logfs *fs, const char *path, const uint8_t *buf, uint64_t len, uint64_t off)
{
    int fd = logfs_open(fs, path, O_RDWR | O_CREAT, 0644);
    if (fd < 0)
        return fd;
    int64_t w = logfs_pwrite(fs, fd, buf, len, off);
    logfs_close(fs, fd);
    return w == (int64_t)len ? 0 : -1;
}

/* The file at path holds exactly want[0..len). */
static int same(logfs *fs, const char *path, const uint8_t *want, uint64_t len)
{
    struct fs_stat st;
    if (logfs_stat(fs, path, &st) || st.size != len)
        return 0;
    uint8_t *got = malloc(len + 1);
    int fd = logfs_open(fs, path, O_RDONLY, 0);
    int ok = got && fd >= 0 && logfs_pread(fs, fd, got, len + 1, 0) == (int64_t)len &&
             !memcmp(got, want, len);
    if (fd >= 0)
        logfs_close(fs, fd);
    free(got);
    return ok;
}

static int fsck_clean(nand_dev *d)
{
    struct fsck_report r;
    int st = fsck_run(d, 0, &r);
    if (st != FSCK_CLEAN)
        fsck_report_print(stderr, &r, "image", 0);
    fsck_report_free(&r);
    return st == FSCK_CLEAN;
}

static logfs *remount(nand_dev *d, logfs *fs, const struct logfs_options *o)
{
    if (fs && logfs_unmount(fs))
        return NULL;
    logfs *out = NULL;
    return logfs_mount(d, o, &out) ? NULL : out;
}

TEST(round_trip_every_method_and_kind)
{
    const uint64_t len = 10 * 4096 + 1234; /* a partial last block */
    uint8_t *buf = malloc(len);
    REQUIRE(buf);
    for (unsigned m = 0; m < 3; m++)
        for (int k = INCOMPRESSIBLE; k <= MIXED; k++) {
            nand_dev *d = dev_of(64);
            REQUIRE(d);
            REQUIRE(logfs_mkfs(d, &(struct logfs_options){.compress = methods[m]}) == 0);
            logfs *fs = remount(d, NULL, NULL);
            REQUIRE(fs);
            make_data(buf, len, (enum kind)k, 100 + m * 3 + (unsigned)k);
            CHECK(put(fs, "/f", buf, len, 0) == 0);
            CHECK(logfs_sync(fs) == 0);
            struct logfs_stats st;
            logfs_get_stats(fs, &st);
            /* the file's blocks and the root's bucket naming it */
            uint64_t raw = st.data_raw_bytes, stored = st.data_stored_bytes;
            CHECK(raw > len && raw < len + 64);
            if (methods[m] == LOGFS_COMPRESS_NONE || k == INCOMPRESSIBLE)
                CHECK_EQ_INT(stored, raw); /* stored raw */
            else if (k == COMPRESSIBLE)
                CHECK(stored * 2 < raw);
            else /* half the blocks shrink, the others stay */
                CHECK(stored * 10 < raw * 9 && stored * 2 > raw);
            if (test_failed_now)
                fprintf(stderr, "method %d kind %d: %" PRIu64 " -> %" PRIu64 "\n",
                        methods[m], k, raw, stored);
            /* read back from flash, through a cache too small to keep it */
            fs = remount(d, fs, &(struct logfs_options){.cache_bytes = 16 << 10});
            REQUIRE(fs);
            CHECK(same(fs, "/f", buf, len));
            CHECK(logfs_unmount(fs) == 0);
            CHECK(fsck_clean(d));
            nand_close(d);
        }
    free(buf);
}

/* Holes, truncation into a compressed block, growth past it, and a write
 * inside one, against a reference buffer. */
TEST(sparse_truncate_overwrite)
{
    const uint64_t cap = 200 * 4096;
    uint8_t *ref = calloc(1, cap), *data = malloc(cap);
    REQUIRE(ref && data);
    make_data(data, cap, COMPRESSIBLE, 7);
    for (unsigned m = 1; m < 3; m++) {
        nand_dev *d = dev_of(64);
        REQUIRE(d);
        REQUIRE(logfs_mkfs(d, &(struct logfs_options){.compress = methods[m]}) == 0);
        logfs *fs = remount(d, NULL, NULL);
        REQUIRE(fs);
        memset(ref, 0, cap);
        uint64_t size = 0;
        /* blocks 0..2 and 150..151, a hole between (the tree's indirect part) */
        CHECK(put(fs, "/s", data, 3 * 4096, 0) == 0);
        memcpy(ref, data, 3 * 4096);
        CHECK(put(fs, "/s", data + 5000, 2 * 4096, 150 * 4096) == 0);
        memcpy(ref + 150 * 4096, data + 5000, 2 * 4096);
        size = 152 * 4096;
        fs = remount(d, fs, NULL);
        REQUIRE(fs);
        CHECK(same(fs, "/s", ref, size));
        /* cut inside compressed block 1, then grow: zeros past the cut */
        CHECK(logfs_truncate(fs, "/s", 4096 + 777) == 0);
        memset(ref + 4096 + 777, 0, size - (4096 + 777));
        CHECK(logfs_truncate(fs, "/s", 10 * 4096) == 0);
        size = 10 * 4096;
        /* 100 new bytes inside compressed block 0 */
        uint8_t patch[100];
        fx_fill(patch, sizeof patch, 99);
        CHECK(put(fs, "/s", patch, sizeof patch, 1000) == 0);
        memcpy(ref + 1000, patch, sizeof patch);
        CHECK(same(fs, "/s", ref, size));
        fs = remount(d, fs, &(struct logfs_options){.cache_bytes = 16 << 10});
        REQUIRE(fs);
        CHECK(same(fs, "/s", ref, size));
        CHECK(logfs_unmount(fs) == 0);
        CHECK(fsck_clean(d));
        nand_close(d);
    }
    free(ref);
    free(data);
}

/* Overwrites on a small device until the cleaner has moved compressed
 * objects many times; every file still reads back, live counts hold. */
TEST(cleaner_moves_compressed_objects)
{
    enum { FILES = 30, FLEN = 24 * 4096 };
    uint8_t *ref = malloc((size_t)FILES * FLEN);
    REQUIRE(ref);
    for (unsigned m = 1; m < 3; m++) {
        nand_dev *d = dev_of(64); /* 8 MiB: 2.9 MB of files fill it */
        REQUIRE(d);
        REQUIRE(logfs_mkfs(d, &(struct logfs_options){.compress = methods[m]}) == 0);
        const struct logfs_options small = {.cache_bytes = 64 << 10, .dirty_bytes = 256 << 10};
        logfs *fs = remount(d, NULL, &small);
        REQUIRE(fs);
        char path[32];
        for (int f = 0; f < FILES; f++) {
            make_data(ref + (size_t)f * FLEN, FLEN, MIXED, 1000 + (uint64_t)f);
            snprintf(path, sizeof path, "/f%d", f);
            CHECK(put(fs, path, ref + (size_t)f * FLEN, FLEN, 0) == 0);
        }
        uint64_t s = 42;
        struct logfs_stats st = {0};
        for (int i = 0; i < 4000 && st.gc_objects < 500; i++) {
            int f = (int)(fx_next(&s) % FILES);
            uint64_t b = fx_next(&s) % (FLEN / 4096), len = 1 + fx_next(&s) % 6000;
            if (b * 4096 + len > FLEN)
                len = FLEN - b * 4096;
            uint8_t *at = ref + (size_t)f * FLEN + b * 4096;
            make_data(at, len, (enum kind)(fx_next(&s) % 3), fx_next(&s));
            snprintf(path, sizeof path, "/f%d", f);
            CHECK(put(fs, path, at, len, b * 4096) == 0);
            logfs_get_stats(fs, &st);
        }
        CHECK(st.gc_objects >= 500);
        uint32_t seg = 0, have = 0;
        uint64_t want = 0;
        CHECK(logfs_sync(fs) == 0 && lfs_check_live(fs, &seg, &want, &have) == 0);
        fs = remount(d, fs, &(struct logfs_options){.cache_bytes = 16 << 10});
        REQUIRE(fs);
        for (int f = 0; f < FILES; f++) {
            snprintf(path, sizeof path, "/f%d", f);
            CHECK(same(fs, path, ref + (size_t)f * FLEN, FLEN));
        }
        CHECK(logfs_unmount(fs) == 0);
        CHECK(fsck_clean(d));
        nand_close(d);
    }
    free(ref);
}

/* Each mount may write with another method; all of it reads back. */
TEST(mounts_switch_methods)
{
    const uint64_t len = 6 * 4096;
    uint8_t *buf = malloc(3 * len);
    REQUIRE(buf);
    nand_dev *d = dev_of(64);
    REQUIRE(d && logfs_mkfs(d, &(struct logfs_options){.compress = LOGFS_COMPRESS_ZLIB}) == 0);
    char path[8];
    logfs *fs = NULL;
    for (unsigned m = 0; m < 3; m++) {
        fs = remount(d, fs, &(struct logfs_options){.compress = methods[(m + 1) % 3]});
        REQUIRE(fs);
        make_data(buf + m * len, len, COMPRESSIBLE, 50 + m);
        snprintf(path, sizeof path, "/m%u", m);
        CHECK(put(fs, path, buf + m * len, len, 0) == 0);
    }
    fs = remount(d, fs, NULL); /* mkfs's zlib again */
    REQUIRE(fs);
    for (unsigned m = 0; m < 3; m++) {
        snprintf(path, sizeof path, "/m%u", m);
        CHECK(same(fs, path, buf + m * len, len));
    }
    CHECK(logfs_unmount(fs) == 0);
    CHECK(fsck_clean(d));
    nand_close(d);
    free(buf);
}

/* Rewrite both superblock copies as format 4 (no compression field). */
static int make_v4(nand_dev *d)
{
    const struct nand_config *c = nand_get_config(d);
    uint8_t *page = malloc(c->geo.page_size);
    uint32_t blocks[2] = {0, 0};
    int rc = page ? 0 : -1;
    struct lfs_super sb;
    if (!rc)
        rc = lfs_super_find(d, &sb);
    blocks[1] = sb.backup_block;
    for (int i = 0; i < 2 && !rc; i++) {
        rc = nand_read(d, blocks[i], 0, page, NULL, NULL);
        le32_put(page + 8, 4);
        le32_put(page + 12, 4);
        le32_put(page + 124, 0);
        le32_put(page + 252, flashlab_crc32(0, page, 252));
        if (!rc)
            rc = nand_erase(d, blocks[i], NULL) || nand_program(d, blocks[i], 0, page, NULL, NULL);
    }
    free(page);
    return rc;
}

/* A format-4 image is written read-write as format 4: never compressed,
 * and a mount that asks for compression is refused. */
TEST(format4_image_stays_plain)
{
    const uint64_t len = 8 * 4096;
    uint8_t *buf = malloc(len);
    REQUIRE(buf);
    make_data(buf, len, COMPRESSIBLE, 3);
    nand_dev *d = dev_of(64);
    REQUIRE(d && logfs_mkfs(d, NULL) == 0 && make_v4(d) == 0);
    logfs *fs = NULL;
    CHECK_EQ_INT(logfs_mount(d, &(struct logfs_options){.compress = LOGFS_COMPRESS_LZO}, &fs),
                 -EOPNOTSUPP);
    fs = remount(d, NULL, NULL);
    REQUIRE(fs);
    CHECK(put(fs, "/p", buf, len, 0) == 0);
    CHECK(logfs_sync(fs) == 0);
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.data_stored_bytes, st.data_raw_bytes);
    fs = remount(d, fs, NULL);
    REQUIRE(fs);
    CHECK(same(fs, "/p", buf, len));
    CHECK(logfs_unmount(fs) == 0);
    uint32_t rv = 0, wv = 0;
    CHECK(logfs_format_version(d, &rv, &wv) == 0 && rv == 4 && wv == 4);
    CHECK(fsck_clean(d));
    nand_close(d);
    free(buf);
}

/* The option by name, and its check. */
TEST(compress_option)
{
    struct logfs_options o = {0};
    char err[128] = "";
    CHECK(logfs_options_parse(&o, "compress=lzo", err, sizeof err) == 0);
    CHECK_EQ_INT(o.compress, LOGFS_COMPRESS_LZO);
    CHECK(logfs_options_parse(&o, "compress=zlib", err, sizeof err) == 0);
    CHECK_EQ_INT(o.compress, LOGFS_COMPRESS_ZLIB);
    CHECK(logfs_options_parse(&o, "compress=none", err, sizeof err) == 0);
    CHECK_EQ_INT(o.compress, LOGFS_COMPRESS_NONE);
    CHECK_EQ_INT(logfs_options_parse(&o, "compress=gzip", err, sizeof err), -EINVAL);
    CHECK(strstr(err, "compress") != NULL);
    o.compress = 9;
    CHECK_EQ_INT(logfs_options_check(&o, err, sizeof err), -EINVAL);
    nand_dev *d = dev_of(64);
    REQUIRE(d);
    CHECK_EQ_INT(logfs_mkfs(d, &o), -EINVAL);
    nand_close(d);
}

/* The compressor's memory is in the fs's count: zlib's state and window
 * (about 256 KiB at level 3), LZO's work memory (LZO1X_1_MEM_COMPRESS). */
TEST(compressor_memory_counted)
{
    uint64_t mem[3];
    for (unsigned m = 0; m < 3; m++) {
        nand_dev *d = dev_of(64);
        REQUIRE(d && logfs_mkfs(d, &(struct logfs_options){.compress = methods[m]}) == 0);
        logfs *fs = remount(d, NULL, NULL);
        REQUIRE(fs);
        struct logfs_stats st;
        logfs_get_stats(fs, &st);
        mem[m] = st.mem_bytes;
        CHECK_EQ_INT(st.compress, methods[m]);
        CHECK(logfs_unmount(fs) == 0);
        nand_close(d);
    }
    CHECK(mem[1] > mem[0] + (200u << 10));
    CHECK(mem[2] >= mem[0] + LZO1X_1_MEM_COMPRESS);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(round_trip_every_method_and_kind);
    RUN(sparse_truncate_overwrite);
    RUN(cleaner_moves_compressed_objects);
    RUN(mounts_switch_methods);
    RUN(format4_image_stays_plain);
    RUN(compress_option);
    RUN(compressor_memory_counted);
    return test_summary(argv[0]);
}

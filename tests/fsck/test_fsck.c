/*
 * test_fsck.c -- the independent checker (fsck/) against images LogFS made.
 * Clean images of every shape -- direct and indirect blocks, holes,
 * directories with overflowing buckets, hard and symbolic links, orphans
 * left by a crash, after the cleaner ran, after random workloads with
 * remounts and power cuts -- must check clean.  Damage put in on purpose
 * must be found as the right kind of problem, and --repair must leave an
 * image that checks clean, mounts and reads back.
 *
 * The test (not fsck) uses LogFS internals (fs/logfs/lfs.h) to find objects and
 * re-encode them with correct CRCs.
 */
#include "crc32.h"
#include "fsck.h"
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fixture.h"
#include "fsck_int.h" /* the attribute-list parser, alone */

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

/* ---- devices and fsck runs ------------------------------------------------ */

/* 2 KiB pages, no read noise (damage here is only what a test puts in). */
static nand_dev *mkdev(uint32_t blocks, uint32_t pages, uint64_t seed, double bad)
{
    return FX_DEVICE(.blocks = blocks, .pages = pages, .quiet = 1, .ecc_bytes = 512,
                     .ecc_bits = 4, .endurance = 1000000, .bad = bad, .seed = seed);
}

static uint32_t seg_bytes(nand_dev *d)
{
    const struct nand_config *c = nand_get_config(d);
    return c->geo.page_size * c->geo.pages_per_block;
}

/* fsck's status; the report is printed when it is not `want`. */
static int fsck_expect(nand_dev *d, int repair, int want, struct fsck_report *keep)
{
    struct fsck_report r;
    int st = fsck_run(d, repair, &r);
    if (st != want) {
        fprintf(stderr, "%s: fsck%s returned %d, expected %d:\n", test_current,
                repair ? " --repair" : "", st, want);
        fsck_report_print(stderr, &r, "image", 0);
    }
    if (keep)
        *keep = r;
    else
        fsck_report_free(&r);
    return st;
}

static int has_text(const struct fsck_report *r, const char *s)
{
    for (size_t i = 0; i < r->nmsgs; i++)
        if (strstr(r->msgs[i].text, s))
            return 1;
    return 0;
}

/* ---- file contents ------------------------------------------------------- */

static uint8_t pat(uint64_t seed, uint64_t off)
{
    uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ULL ^ (off / 8) * 0xc2b2ae3d27d4eb4fULL;
    x ^= x >> 31;
    return (uint8_t)((x * 0xbf58476d1ce4e5b9ULL) >> 56);
}

static int put_file(logfs *fs, const char *path, uint64_t seed, uint64_t off,
                    uint64_t len)
{
    int fd = logfs_open(fs, path, O_RDWR | O_CREAT, 0644);
    if (fd < 0)
        return fd;
    uint8_t buf[8192];
    for (uint64_t done = 0; done < len;) {
        uint64_t n = len - done < sizeof buf ? len - done : sizeof buf;
        for (uint64_t i = 0; i < n; i++)
            buf[i] = pat(seed, off + done + i);
        if (logfs_pwrite(fs, fd, buf, n, off + done) != (int64_t)n) {
            logfs_close(fs, fd);
            return -EIO;
        }
        done += n;
    }
    return logfs_close(fs, fd);
}

/* 0 if bytes [off, off+len) of path hold the pattern. */
static int same_file(logfs *fs, const char *path, uint64_t seed, uint64_t off,
                     uint64_t len)
{
    int fd = logfs_open(fs, path, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    uint8_t buf[8192];
    int bad = 0;
    for (uint64_t done = 0; done < len && !bad;) {
        uint64_t n = len - done < sizeof buf ? len - done : sizeof buf;
        bad = logfs_pread(fs, fd, buf, n, off + done) != (int64_t)n;
        for (uint64_t i = 0; i < n && !bad; i++)
            bad = buf[i] != pat(seed, off + done + i);
        done += n;
    }
    logfs_close(fs, fd);
    return bad ? -EIO : 0;
}

static uint32_t fnv(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* A file system of every shape (sizes scale with the block size). */
struct shape {
    uint32_t bs;
    uint64_t big, sparse_off;
};

static int populate(logfs *fs, struct shape *sh)
{
    uint32_t bs = sh->bs, P = bs / 8;
    sh->big = (uint64_t)bs * (16 + 2 * P) + 77;        /* height 2 */
    sh->sparse_off = (uint64_t)bs * (16 + (uint64_t)P * P + 5); /* height 3 */
    static char target[4001];
    memset(target, 'x', 4000);
    target[0] = '/';
    int rc = 0;
    rc |= put_file(fs, "/small", 1, 0, 100);
    rc |= put_file(fs, "/direct", 2, 0, 10ull * bs);
    rc |= put_file(fs, "/big", 3, 0, sh->big);
    rc |= put_file(fs, "/sparse", 4, sh->sparse_off, 3000);
    rc |= put_file(fs, "/sparse", 4, 0, 10);
    rc |= logfs_mkdir(fs, "/d1", 0755);
    rc |= logfs_mkdir(fs, "/d1/d2", 0755);
    rc |= logfs_mkdir(fs, "/d1/d2/d3", 0700);
    rc |= logfs_mkdir(fs, "/empty", 0755);
    rc |= put_file(fs, "/d1/d2/deep", 5, 0, 5000);
    rc |= logfs_link(fs, "/direct", "/d1/link1");
    rc |= logfs_link(fs, "/direct", "/d1/d2/link2");
    rc |= logfs_symlink(fs, "/d1/d2", "/sl");
    rc |= logfs_symlink(fs, target, "/d1/longlink");
    rc |= put_file(fs, "/trunc", 6, 0, 20000);
    rc |= logfs_truncate(fs, "/trunc", 5000);
    int fd = logfs_open(fs, "/empty.file", O_RDWR | O_CREAT, 0600);
    rc |= fd < 0 ? fd : logfs_close(fs, fd);
    rc |= logfs_rename(fs, "/d1/d2/deep", "/d1/moved");
    /* names colliding in one bucket until it overflows (small blocks) */
    char name[64];
    unsigned made = 0;
    for (unsigned i = 0; made < (bs <= 1024 ? 70u : 8u) && i < 10000000; i++) {
        snprintf(name, sizeof name, "/d1/d2/c%u", i);
        if (fnv(name + 7) % 4096 != 1234)
            continue;
        fd = logfs_open(fs, name, O_RDWR | O_CREAT, 0644);
        rc |= fd < 0 ? fd : logfs_close(fs, fd);
        if (made++ % 3 == 0)
            rc |= logfs_unlink(fs, name);
    }
    for (unsigned i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "/d1/d2/d3/f%u", i);
        fd = logfs_open(fs, name, O_RDWR | O_CREAT, 0644);
        rc |= fd < 0 ? fd : logfs_close(fs, fd);
    }
    return rc;
}

static int verify(logfs *fs, const struct shape *sh)
{
    struct fs_stat st;
    char buf[64];
    int rc = same_file(fs, "/small", 1, 0, 100) || same_file(fs, "/direct", 2, 0, 10ull * sh->bs) ||
             same_file(fs, "/big", 3, 0, sh->big) ||
             same_file(fs, "/sparse", 4, sh->sparse_off, 3000) ||
             same_file(fs, "/d1/moved", 5, 0, 5000) ||
             same_file(fs, "/trunc", 6, 0, 5000);
    rc = rc || logfs_stat(fs, "/direct", &st) || st.nlink < 2; /* 3, or 2 after
                                                                  dangling_entry */
    rc = rc || logfs_readlink(fs, "/sl", buf, sizeof buf) != 6 || memcmp(buf, "/d1/d2", 6);
    return rc ? -1 : 0;
}

/* populated with data blocks compressed by LOGFS_COMPRESS_* (0: none) */
static int populate_compress;

static nand_dev *populated(uint32_t bs, struct shape *sh)
{
    nand_dev *d = mkdev(512, 64, 7, 0.01);
    struct logfs_options o = {.block_size = bs, .compress = populate_compress};
    logfs *fs;
    sh->bs = bs;
    if (!d || logfs_mkfs(d, &o) || logfs_mount(d, NULL, &fs))
        return NULL;
    int rc = populate(fs, sh);
    if (logfs_unmount(fs) || rc) {
        nand_close(d);
        return NULL;
    }
    return d;
}

/* Mount, read everything back, unmount, and check clean again. */
static int mounts_and_reads(nand_dev *d, const struct shape *sh)
{
    logfs *fs;
    if (logfs_mount(d, NULL, &fs))
        return -1;
    int rc = verify(fs, sh);
    rc |= put_file(fs, "/after", 9, 0, 30000); /* and it still writes */
    rc |= logfs_unmount(fs);
    return rc || fsck_expect(d, 0, FSCK_CLEAN, NULL) ? -1 : 0;
}

/* ---- damaging an image ----------------------------------------------------- */

static int read_bytes(nand_dev *d, uint64_t addr, uint8_t *buf, uint32_t len)
{
    uint32_t ps = nand_get_config(d)->geo.page_size, sb = seg_bytes(d);
    while (len) {
        uint32_t o = (uint32_t)(addr % sb), part = ps - o % ps < len ? ps - o % ps : len;
        if (nand_read_col(d, (uint32_t)(addr / sb), o / ps, o % ps, buf, part, NULL))
            return -1;
        addr += part;
        buf += part;
        len -= part;
    }
    return 0;
}

/* Rewrite the block holding addr (read raw, erase, program again) with the
 * len bytes at addr replaced; with tear >= 0 the program of the page
 * holding addr is torn by a power cut after that fraction of it. */
static int patch(nand_dev *d, uint64_t addr, const uint8_t *bytes, uint32_t len,
                 double tear)
{
    const struct nand_config *c = nand_get_config(d);
    uint32_t ps = c->geo.page_size, sb = seg_bytes(d), b = (uint32_t)(addr / sb);
    uint32_t off = (uint32_t)(addr % sb);
    struct nand_block_info bi;
    if (nand_block_info(d, b, &bi) || off + len > sb)
        return -1;
    uint8_t *buf = malloc(sb);
    int rc = buf ? 0 : -1;
    for (uint32_t p = 0; !rc && p < c->geo.pages_per_block; p++) {
        memset(buf + (size_t)p * ps, 0xff, ps);
        if (p < bi.pages_programmed)
            rc = nand_read_raw(d, b, p, buf + (size_t)p * ps, NULL, NULL);
    }
    if (!rc) {
        memcpy(buf + off, bytes, len);
        rc = nand_erase(d, b, NULL);
    }
    for (uint32_t p = 0; !rc && p < c->geo.pages_per_block; p++) {
        uint8_t *pg = buf + (size_t)p * ps;
        int erased = 1;
        for (uint32_t i = 0; i < ps && erased; i++)
            erased = pg[i] == 0xff;
        if (erased)
            continue;
        if (tear >= 0 && p == off / ps) {
            nand_cut_after_ops(d, 0, tear);
            nand_program(d, b, p, pg, NULL, NULL); /* fails: the power is cut */
            nand_power_on(d);
            continue;
        }
        rc = nand_program(d, b, p, pg, NULL, NULL);
    }
    free(buf);
    return rc;
}

static int flip_bit(nand_dev *d, uint64_t addr, unsigned bit)
{
    uint8_t v;
    if (read_bytes(d, addr, &v, 1))
        return -1;
    v ^= (uint8_t)(1u << bit);
    return patch(d, addr, &v, 1, -1);
}

/* Change the payload of the object at p with fn, CRCs kept right. */
typedef void (*edit_fn)(uint8_t *payload, uint32_t len, void *ctx);
static int reencode(nand_dev *d, lfs_ptr p, edit_fn fn, void *ctx)
{
    uint32_t total = lfs_ptr_len(p);
    uint8_t *obj = malloc(total);
    struct lfs_obj o;
    int rc = obj ? read_bytes(d, lfs_ptr_addr(p), obj, total) : -1;
    if (!rc)
        rc = lfs_obj_decode(obj, &o);
    if (!rc) {
        fn(obj + LFS_OBJ_HDR, o.len, ctx);
        o.payload_crc = lfs_crc(obj + LFS_OBJ_HDR, o.len);
        lfs_obj_encode(&o, obj);
        rc = patch(d, lfs_ptr_addr(p), obj, total, -1);
    }
    free(obj);
    return rc;
}

/* LogFS's own view, read-only: the pointer at a place, an inode number. */
static lfs_ptr ptr_of(nand_dev *d, uint64_t ino, uint8_t level, uint64_t bix)
{
    struct logfs_options o = {.readonly = 1};
    logfs *fs;
    lfs_ptr p = 0;
    struct lfs_inode *in;
    if (logfs_mount(d, &o, &fs))
        return 0;
    if (!lfs_inode_get(fs, ino, &in))
        lfs_tree_ptr(fs, in, level, bix, &p);
    logfs_unmount(fs);
    return p;
}

static uint64_t ino_of(nand_dev *d, const char *path)
{
    struct logfs_options o = {.readonly = 1};
    struct fs_stat st = {0};
    logfs *fs;
    if (logfs_mount(d, &o, &fs))
        return 0;
    if (logfs_lstat(fs, path, &st))
        st.ino = 0;
    logfs_unmount(fs);
    return st.ino;
}

/* The newest anchor record (block, page) and its contents. */
static int newest_anchor(nand_dev *d, uint64_t *addr, struct lfs_anchor *out)
{
    const struct nand_config *c = nand_get_config(d);
    uint8_t *buf = malloc(c->geo.page_size);
    struct lfs_super sb;
    struct lfs_anchor a;
    int found = 0;
    if (!buf || nand_read(d, 0, 0, buf, NULL, NULL) || lfs_super_decode(buf, &sb)) {
        free(buf);
        return -1;
    }
    for (uint32_t i = 0; i < sb.anchor_count; i++)
        for (uint32_t p = 0; p < c->geo.pages_per_block; p++)
            if (!nand_read(d, sb.anchor_blocks[i], p, buf, NULL, NULL) &&
                !lfs_anchor_decode(buf, c->geo.page_size, &a, sb.read_version) &&
                (!found || a.seq > out->seq)) {
                *out = a;
                *addr = (uint64_t)sb.anchor_blocks[i] * seg_bytes(d) +
                        (uint64_t)p * c->geo.page_size;
                found = 1;
            }
    free(buf);
    return found ? 0 : -1;
}

static int rewrite_anchor(nand_dev *d, void (*fn)(struct lfs_anchor *a))
{
    uint64_t addr;
    struct lfs_anchor a;
    uint8_t rec[LFS_ANCHOR_BYTES];
    if (newest_anchor(d, &addr, &a))
        return -1;
    fn(&a);
    lfs_anchor_encode(&a, rec, LFS_READ_VERSION);
    return patch(d, addr, rec, sizeof rec, -1);
}

/* ---- clean images ------------------------------------------------------------- */

TEST(crc_is_the_format_crc)
{
    /* FORMAT.md section 1: CRC-32/IEEE, check value and the worked example */
    CHECK_EQ_INT(flashlab_crc32(0, "123456789", 9), 0xcbf43926u);
    CHECK_EQ_INT(flashlab_crc32(0, "hello world", 11), 0x0d4a1185u);
}

TEST(fresh_mkfs_is_clean)
{
    static const uint32_t bss[] = {512, 4096, 16384};
    for (unsigned i = 0; i < 3; i++) {
        nand_dev *d = mkdev(256, 64, 3 + i, 0.02);
        struct logfs_options o = {.block_size = bss[i], .anchor_blocks = 2 + 6 * i};
        REQUIRE(d && logfs_mkfs(d, &o) == 0);
        struct fsck_report r;
        CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, &r), FSCK_CLEAN);
        CHECK_EQ_INT(r.inodes, 1);
        CHECK_EQ_INT(r.dirs, 1);
        CHECK_EQ_INT(r.seq, 1);
        fsck_report_free(&r);
        nand_close(d);
    }
}

TEST(every_shape_is_clean)
{
    static const uint32_t bss[] = {512, 4096};
    for (unsigned i = 0; i < 2; i++) {
        struct shape sh;
        nand_dev *d = populated(bss[i], &sh);
        REQUIRE(d);
        struct fsck_report r;
        CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, &r), FSCK_CLEAN);
        CHECK(r.files >= 300 && r.dirs == 5 && r.symlinks == 2);
        CHECK_EQ_INT(r.nwarnings, 0);
        fsck_report_free(&r);
        CHECK(mounts_and_reads(d, &sh) == 0);
        /* a repair of a clean image writes nothing */
        CHECK_EQ_INT(fsck_expect(d, 1, FSCK_CLEAN, &r), FSCK_CLEAN);
        CHECK_EQ_INT(r.written, 0);
        fsck_report_free(&r);
        nand_close(d);
    }
}

static lfs_ptr data_ptr(nand_dev *d, const char *path, uint64_t bix);

/* The shapes again with compressed data blocks (format 5): clean, and
 * the pattern (runs of 8 equal bytes) does shrink. */
TEST(compressed_shapes_are_clean)
{
    for (populate_compress = LOGFS_COMPRESS_ZLIB; populate_compress <= LOGFS_COMPRESS_LZO;
         populate_compress++) {
        struct shape sh;
        nand_dev *d = populated(4096, &sh);
        REQUIRE(d);
        struct fsck_report r;
        CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, &r), FSCK_CLEAN);
        CHECK(r.files >= 300 && r.dirs == 5 && r.symlinks == 2);
        CHECK_EQ_INT(r.nwarnings, 0);
        fsck_report_free(&r);
        lfs_ptr p = data_ptr(d, "/big", 20);
        CHECK(p && lfs_ptr_len(p) < LFS_OBJ_HDR + 4096 / 2);
        CHECK(mounts_and_reads(d, &sh) == 0);
        CHECK_EQ_INT(fsck_expect(d, 1, FSCK_CLEAN, &r), FSCK_CLEAN);
        CHECK_EQ_INT(r.written, 0);
        fsck_report_free(&r);
        nand_close(d);
    }
    populate_compress = 0;
}

static void zero_payload(uint8_t *p, uint32_t len, void *ctx)
{
    (void)ctx;
    memset(p, 0, len);
}

static void flip_middle(uint8_t *p, uint32_t len, void *ctx)
{
    (void)ctx;
    p[len / 2] ^= 0x5a;
}

/* The header's decompressed length one more or one less, CRC fixed. */
static int shift_raw_len(nand_dev *d, lfs_ptr p, int by)
{
    uint8_t h[LFS_OBJ_HDR];
    struct lfs_obj o;
    if (read_bytes(d, lfs_ptr_addr(p), h, sizeof h) || lfs_obj_decode(h, &o) || !o.compr)
        return -1;
    o.raw_len = (uint32_t)((int)o.raw_len + by);
    lfs_obj_encode(&o, h);
    return patch(d, lfs_ptr_addr(p), h, sizeof h, -1);
}

/* A compressed stream damaged behind a right CRC (a bug in a writer, not
 * the medium), or a header whose decompressed length is off by one: fsck
 * reports the object, LogFS reads EIO, nothing crashes. */
TEST(damaged_compressed_stream_found)
{
    static const edit_fn edits[] = {zero_payload, flip_middle, NULL, NULL};
    for (int m = LOGFS_COMPRESS_ZLIB; m <= LOGFS_COMPRESS_LZO; m++)
        for (unsigned e = 0; e < 4; e++) {
            if (m == LOGFS_COMPRESS_LZO && e == 1)
                continue; /* lzo has no checksum: a changed literal decodes */
            struct shape sh;
            populate_compress = m;
            nand_dev *d = populated(4096, &sh);
            populate_compress = 0;
            REQUIRE(d);
            lfs_ptr p = data_ptr(d, "/big", 3);
            REQUIRE(p && (edits[e] ? reencode(d, p, edits[e], NULL)
                                   : shift_raw_len(d, p, e == 2 ? 1 : -1)) == 0);
            struct fsck_report r;
            CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
            /* a full block one byte longer is past block_size: its header is wrong */
            CHECK(has_text(&r, "stream does not decompress") ||
                  (e == 2 && has_text(&r, "decompressed length outside 1..block_size")));
            CHECK_EQ_INT(r.nerrors, 1);
            fsck_report_free(&r);
            logfs *fs;
            REQUIRE(logfs_mount(d, NULL, &fs) == 0);
            int fd = logfs_open(fs, "/big", O_RDONLY, 0);
            uint8_t buf[4096];
            CHECK(fd >= 0 && logfs_pread(fs, fd, buf, sizeof buf, 3 * 4096) == -EIO);
            CHECK(logfs_pread(fs, fd, buf, sizeof buf, 2 * 4096) == (int64_t)sizeof buf);
            logfs_close(fs, fd);
            logfs_unmount(fs);
            nand_close(d);
        }
}

TEST(not_logfs_is_operational)
{
    nand_dev *d = mkdev(64, 64, 1, 0);
    REQUIRE(d);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 1, FSCK_OPERATIONAL, &r), FSCK_OPERATIONAL);
    CHECK(has_text(&r, "not a LogFS file system"));
    fsck_report_free(&r);
    nand_close(d);
}

/* Files unlinked while open when the power goes: listed, or (past 32)
 * covered by ORPHAN_SCAN. */
TEST(orphans_at_a_crash_are_clean)
{
    static const int counts[] = {1, 40};
    for (unsigned t = 0; t < 2; t++) {
        nand_dev *d = mkdev(512, 64, 11, 0);
        logfs *fs;
        REQUIRE(d && logfs_mkfs(d, NULL) == 0 && logfs_mount(d, NULL, &fs) == 0);
        int fds[40];
        char name[32];
        for (int i = 0; i < counts[t]; i++) {
            snprintf(name, sizeof name, "/o%d", i);
            REQUIRE(put_file(fs, name, (uint64_t)i, 0, 9000) == 0);
            fds[i] = logfs_open(fs, name, O_RDONLY, 0);
            REQUIRE(fds[i] >= 0 && logfs_unlink(fs, name) == 0);
        }
        REQUIRE(logfs_sync(fs) == 0);
        nand_power_cut(d);
        logfs_unmount(fs);
        nand_power_on(d);
        struct fsck_report r;
        CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, &r), FSCK_CLEAN);
        CHECK_EQ_INT(r.inodes, 1 + (uint64_t)counts[t]);
        fsck_report_free(&r);
        /* the mount deletes them, and that is clean too */
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
        REQUIRE(logfs_unmount(fs) == 0);
        CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, &r), FSCK_CLEAN);
        CHECK_EQ_INT(r.inodes, 1);
        fsck_report_free(&r);
        nand_close(d);
    }
}

/* Many device fills of scattered overwrites: the cleaner moved data (also
 * into area 13, separated). */
#define GC_FILES 8
#define GC_CHUNKS 100 /* 4 KiB each */
static int gc_check(logfs *fs, uint32_t ver[GC_FILES][GC_CHUNKS])
{
    char name[16];
    for (uint32_t f = 0; f < GC_FILES; f++) {
        snprintf(name, sizeof name, "/f%u", f);
        for (uint32_t c = 0; c < GC_CHUNKS; c++)
            if (same_file(fs, name, f * 1000 + ver[f][c], c * 4096ull, 4096))
                return -1;
    }
    return 0;
}

TEST(after_the_cleaner_is_clean)
{
    static uint32_t ver[GC_FILES][GC_CHUNKS];
    for (int sep = 0; sep < 2; sep++) {
        nand_dev *d = mkdev(128, 32, 21 + (uint64_t)sep, 0.02);
        struct logfs_options o = {.dirty_bytes = 128 * 1024, .gc_separate = sep};
        logfs *fs;
        char name[16];
        uint64_t s = 77, gc_rounds = 0;
        struct logfs_stats st;
        REQUIRE(d && logfs_mkfs(d, &o) == 0 && logfs_mount(d, &o, &fs) == 0);
        memset(ver, 0, sizeof ver);
        for (uint32_t f = 0; f < GC_FILES; f++)
            for (uint32_t c = 0; c < GC_CHUNKS; c++) {
                snprintf(name, sizeof name, "/f%u", f);
                REQUIRE(put_file(fs, name, f * 1000, c * 4096ull, 4096) == 0);
            }
        for (uint32_t i = 0; i < 4000; i++) {
            uint64_t r = fx_next(&s);
            uint32_t f = (uint32_t)(r % GC_FILES), c = (uint32_t)(r >> 8) % GC_CHUNKS;
            snprintf(name, sizeof name, "/f%u", f);
            ver[f][c] = i + 1;
            REQUIRE(put_file(fs, name, f * 1000 + ver[f][c], c * 4096ull, 4096) == 0);
            if (i % 1000 == 999) {
                logfs_get_stats(fs, &st);
                gc_rounds += st.gc_rounds;
                REQUIRE(logfs_unmount(fs) == 0);
                CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, NULL), FSCK_CLEAN);
                REQUIRE(logfs_mount(d, &o, &fs) == 0);
            }
        }
        CHECK(gc_check(fs, ver) == 0);
        logfs_get_stats(fs, &st);
        gc_rounds += st.gc_rounds;
        REQUIRE(logfs_unmount(fs) == 0);
        CHECK(gc_rounds > 0);
        CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, NULL), FSCK_CLEAN);
        nand_close(d);
    }
}

/* Random namespace and data operations; remounts, crashes, and power cuts
 * in the middle of commits.  Whatever commit survives must be clean. */
static void random_ops(logfs *fs, uint64_t *s, int n, int *fds, int *nfds)
{
    char a[32], b[32];
    for (int i = 0; i < n; i++) {
        uint64_t r = fx_next(s);
        snprintf(a, sizeof a, "/%s%u", (r >> 8) % 3 ? "" : "d1/", (unsigned)(r >> 16) % 12);
        snprintf(b, sizeof b, "/%s%u", (r >> 24) % 2 ? "" : "d1/", (unsigned)(r >> 32) % 12);
        int fd;
        switch (r % 11) {
        case 0: case 1: case 2:
            put_file(fs, a, r, (r >> 40) % 70000, (r >> 20) % 30000 + 1);
            break;
        case 3: logfs_truncate(fs, a, (r >> 40) % 50000); break;
        case 4: logfs_unlink(fs, a); break;
        case 5: logfs_mkdir(fs, a, 0755); break;
        case 6: logfs_rmdir(fs, a); break;
        case 7: logfs_link(fs, a, b); break;
        case 8: logfs_symlink(fs, "/d1", b); break;
        case 9: logfs_rename(fs, a, b); break;
        case 10: /* an unlinked file held open */
            if (*nfds < 8 && (fd = logfs_open(fs, a, O_RDONLY, 0)) >= 0) {
                fds[(*nfds)++] = fd;
                logfs_unlink(fs, a);
            }
            break;
        }
        if (r % 37 == 0)
            logfs_sync(fs);
    }
}

TEST(random_workloads_are_clean)
{
    int seeds = test_long() ? 12 : 4;
    for (int seed = 1; seed <= seeds; seed++) {
        nand_dev *d = mkdev(256, 32, (uint64_t)seed, 0.02);
        struct logfs_options o = {.block_size = seed % 2 ? 512 : 4096,
                                  .dirty_bytes = 64 * 1024};
        logfs *fs;
        uint64_t s = (uint64_t)seed * 1000;
        REQUIRE(d && logfs_mkfs(d, &o) == 0 && logfs_mount(d, &o, &fs) == 0);
        logfs_mkdir(fs, "/d1", 0755);
        for (int round = 0; round < 12; round++) {
            int fds[8], nfds = 0;
            uint64_t how = fx_next(&s) % 3;
            if (how == 2) /* a power cut in the middle of what follows */
                nand_cut_after_ops(d, fx_next(&s) % 400, -1);
            random_ops(fs, &s, 150, fds, &nfds);
            if (how == 0) {
                for (int i = 0; i < nfds; i++)
                    logfs_close(fs, fds[i]);
                CHECK_EQ_INT(logfs_unmount(fs), 0);
            } else {
                nand_power_cut(d);
                logfs_unmount(fs);
                nand_power_on(d);
                nand_cut_disarm(d);
            }
            if (fsck_expect(d, 0, FSCK_CLEAN, NULL) != FSCK_CLEAN) {
                fprintf(stderr, "  seed %d round %d (%s)\n", seed, round,
                        how == 0 ? "unmount" : how == 1 ? "crash" : "power cut");
                test_failed_now = 1;
                break;
            }
            REQUIRE(logfs_mount(d, &o, &fs) == 0);
        }
        if (!test_failed_now)
            logfs_unmount(fs);
        nand_close(d);
        if (test_failed_now)
            return;
    }
}

/* ---- damage found ------------------------------------------------------------- */

static lfs_ptr data_ptr(nand_dev *d, const char *path, uint64_t bix)
{
    uint64_t ino = ino_of(d, path);
    return ino ? ptr_of(d, ino, 0, bix) : 0;
}

TEST(payload_bit_flip_found)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d);
    lfs_ptr p = data_ptr(d, "/big", 20); /* under an indirect block */
    REQUIRE(p && flip_bit(d, lfs_ptr_addr(p) + LFS_OBJ_HDR + 100, 3) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(fsck_report_has(&r, FSCK_K_CRC));
    CHECK(has_text(&r, "payload CRC mismatch (inode"));
    CHECK_EQ_INT(r.nerrors, 1);
    fsck_report_free(&r);
    /* data is not repairable: it stays an error, nothing is written */
    CHECK_EQ_INT(fsck_expect(d, 1, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK_EQ_INT(r.written, 0);
    fsck_report_free(&r);
    nand_close(d);
}

TEST(header_bit_flip_found)
{
    struct shape sh;
    nand_dev *d = populated(512, &sh);
    REQUIRE(d);
    /* a data block's header, and an indirect block's */
    lfs_ptr p = data_ptr(d, "/direct", 2);
    REQUIRE(p && flip_bit(d, lfs_ptr_addr(p) + 20, 0) == 0);
    uint64_t big = ino_of(d, "/big");
    lfs_ptr q = ptr_of(d, big, 1, 1);
    REQUIRE(q && flip_bit(d, lfs_ptr_addr(q) + 9, 5) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(fsck_report_has(&r, FSCK_K_HEADER));
    CHECK(has_text(&r, "object header CRC mismatch"));
    CHECK_EQ_INT(r.errors[FSCK_K_HEADER], 2);
    fsck_report_free(&r);
    /* an indirect block is lost: nothing is repaired, and it says why */
    CHECK_EQ_INT(fsck_expect(d, 1, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(has_text(&r, "not repaired"));
    CHECK_EQ_INT(r.written, 0);
    fsck_report_free(&r);
    nand_close(d);
}

TEST(torn_page_found)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d);
    lfs_ptr p = data_ptr(d, "/direct", 5);
    REQUIRE(p);
    uint8_t v;
    REQUIRE(read_bytes(d, lfs_ptr_addr(p), &v, 1) == 0);
    REQUIRE(patch(d, lfs_ptr_addr(p), &v, 1, 0.5) == 0); /* torn halfway */
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(fsck_report_has(&r, FSCK_K_READ)); /* every object with bytes there */
    CHECK(has_text(&r, "unreadable (uncorrectable ECC error), holding inode"));
    fsck_report_free(&r);
    nand_close(d);
}

TEST(erased_anchor_ring_found)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d);
    for (uint32_t b = 1; b <= 4; b++) /* the ring of a device without bad blocks there */
        nand_erase(d, b, NULL);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 1, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(fsck_report_has(&r, FSCK_K_ANCHOR));
    CHECK(has_text(&r, "no valid anchor record"));
    CHECK_EQ_INT(r.written, 0);
    fsck_report_free(&r);
    nand_close(d);
}

/* ---- damage repaired ----------------------------------------------------------- */

/* fsck finds `kind`, --repair returns 1, and then all is clean and reads. */
static void repaired(nand_dev *d, const struct shape *sh, enum fsck_kind kind,
                     const char *text)
{
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(fsck_report_has(&r, kind));
    if (text && !has_text(&r, text)) {
        fprintf(stderr, "%s: no message with '%s'\n", test_current, text);
        fsck_report_print(stderr, &r, "image", 0);
        test_failed_now = 1;
    }
    fsck_report_free(&r);
    CHECK_EQ_INT(fsck_expect(d, 1, FSCK_FIXED, &r), FSCK_FIXED);
    CHECK(r.written && r.nrepaired == r.nerrors);
    fsck_report_free(&r);
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, NULL), FSCK_CLEAN);
    CHECK(mounts_and_reads(d, sh) == 0);
}

static void set_nlink5(uint8_t *p, uint32_t len, void *ctx)
{
    (void)ctx;
    if (len >= 16)
        le32_put(p + 12, 5);
}

TEST(wrong_nlink_repaired)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d);
    uint64_t ino = ino_of(d, "/small"), dir = ino_of(d, "/d1");
    REQUIRE(ino && dir);
    REQUIRE(reencode(d, ptr_of(d, 0, 0, ino), set_nlink5, NULL) == 0);
    REQUIRE(reencode(d, ptr_of(d, 0, 0, dir), set_nlink5, NULL) == 0);
    char want[64];
    snprintf(want, sizeof want, "inode %" PRIu64 ": nlink 5 but 1 directory entry", ino);
    {   /* the messages name the paths the directory walk found */
        struct fsck_report r;
        CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
        CHECK(has_text(&r, want) && has_text(&r, "(path /small)"));
        CHECK(has_text(&r, "(path /d1)"));
        fsck_report_free(&r);
    }
    repaired(d, &sh, FSCK_K_NLINK, want);
    logfs *fs;
    struct fs_stat st;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    CHECK(logfs_stat(fs, "/small", &st) == 0 && st.nlink == 1);
    CHECK(logfs_stat(fs, "/d1", &st) == 0 && st.nlink == 3);
    logfs_unmount(fs);
    nand_close(d);
}

/* A repair whose result does not check clean: the first page the repair
 * commit programs has a bit of its first object's payload changed (ECC
 * passes it, the payload CRC does not) at the next erase, before the
 * repair writes its anchor record, as a broken repair would leave it.
 * The device's operation callback does it; it never cuts. */
struct spoil { int programmed, done; nand_block_t block; nand_page_t page; nand_dev *d; };

static int spoil_first_program(void *ctx, const struct nand_op *op, double *frac)
{
    struct spoil *sp = ctx;
    (void)frac;
    if (op->kind == NAND_OP_PROGRAM && !sp->programmed) {
        sp->programmed = 1;
        sp->block = op->block;
        sp->page = op->page;
    } else if (op->kind == NAND_OP_ERASE && sp->programmed && !sp->done) {
        struct nand_corrupt c = {.mode = NAND_CORRUPT_SILENT, .block = sp->block,
                                 .page = sp->page, .bits = 1,
                                 .offset = LFS_OBJ_HDR + 9, .length = 1, .seed = 7};
        sp->done = nand_corrupt(sp->d, &c, NULL, 0) == 0;
    }
    return 0;
}

TEST(repair_that_does_not_check_clean_is_not_fixed)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d);
    uint64_t ino = ino_of(d, "/small");
    REQUIRE(ino && reencode(d, ptr_of(d, 0, 0, ino), set_nlink5, NULL) == 0);
    struct spoil sp = {.d = d};
    nand_cut_callback(d, spoil_first_program, &sp);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 1, FSCK_ERRORS, &r), FSCK_ERRORS);
    nand_cut_disarm(d);
    CHECK(sp.done && r.written);
    CHECK(has_text(&r, "after repair: "));
    CHECK(r.nrepaired < r.nerrors);
    fsck_report_free(&r);
    /* what the verification saw is what a later check sees */
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(fsck_report_has(&r, FSCK_K_CRC));
    fsck_report_free(&r);
    nand_close(d);
}

struct rename_ent { const char *name; uint64_t ino; };

/* Point the entry `name` of a bucket at another inode. */
static void set_entry_ino(uint8_t *p, uint32_t len, void *ctx)
{
    const struct rename_ent *e = ctx;
    size_t nl = strlen(e->name);
    for (uint32_t off = 1; off + 10 <= len; off += 10u + p[off + 9])
        if (p[off + 9] == nl && !memcmp(p + off + 10, e->name, nl))
            le64_put(p + off, e->ino);
}

static lfs_ptr bucket_ptr(nand_dev *d, const char *dir, const char *name)
{
    return ptr_of(d, ino_of(d, dir), 0, fnv(name) % 4096);
}

/* also on an image of compressed data blocks: the repair writes the
 * bucket raw, and the files around it still read back */
TEST(dangling_entry_repaired)
{
    for (int z = 0; z < 2; z++) {
        struct shape sh;
        populate_compress = z ? LOGFS_COMPRESS_ZLIB : 0;
        nand_dev *d = populated(4096, &sh);
        populate_compress = 0;
        REQUIRE(d);
        struct rename_ent e = {"link1", 999999};
        lfs_ptr p = bucket_ptr(d, "/d1", "link1");
        REQUIRE(p && reencode(d, p, set_entry_ino, &e) == 0);
        repaired(d, &sh, FSCK_K_DANGLING, "entry 'link1' names inode 999999, which does not exist");
        logfs *fs;
        struct fs_stat st;
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
        CHECK_EQ_INT(logfs_stat(fs, "/d1/link1", &st), -ENOENT);
        CHECK(logfs_stat(fs, "/direct", &st) == 0 && st.nlink == 2);
        CHECK(logfs_stat(fs, "/d1", &st) == 0 && st.size == 3); /* d2, longlink, moved */
        logfs_unmount(fs);
        nand_close(d);
    }
}

static void set_size7(uint8_t *p, uint32_t len, void *ctx)
{
    (void)ctx;
    if (len >= 24)
        le64_put(p + 16, 7);
}

/* Mark the entry `name` of a bucket as a directory. */
static void set_entry_dir(uint8_t *p, uint32_t len, void *ctx)
{
    const char *name = ctx;
    size_t nl = strlen(name);
    for (uint32_t off = 1; off + 10 <= len; off += 10u + p[off + 9])
        if (p[off + 9] == nl && !memcmp(p + off + 10, name, nl))
            p[off + 8] = 4;
}

TEST(directory_size_and_entry_type_repaired)
{
    struct shape sh;
    nand_dev *d = populated(512, &sh);
    REQUIRE(d);
    REQUIRE(reencode(d, ptr_of(d, 0, 0, ino_of(d, "/d1")), set_size7, NULL) == 0);
    lfs_ptr p = bucket_ptr(d, "/d1", "moved");
    REQUIRE(p && reencode(d, p, set_entry_dir, "moved") == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(has_text(&r, ": size 7 but 4 entries"));
    CHECK(has_text(&r, "entry 'moved' has type 4"));
    fsck_report_free(&r);
    repaired(d, &sh, FSCK_K_DIR, NULL);
    nand_close(d);
}

/* The entry of segment s in a segment-file block, changed. */
struct segedit { uint32_t idx; int state; uint32_t add_live; };
static void edit_segent(uint8_t *p, uint32_t len, void *ctx)
{
    const struct segedit *e = ctx;
    uint8_t *ent = p + e->idx * LFS_SEGENT_BYTES;
    if (e->idx * LFS_SEGENT_BYTES + LFS_SEGENT_BYTES > len)
        return;
    le32_put(ent + 4, le32_get(ent + 4) + e->add_live);
    if (e->state >= 0) {
        ent[8] = (uint8_t)e->state;
        le32_put(ent + 4, 0);
    }
}

static int edit_segment_of(nand_dev *d, lfs_ptr obj, int state, uint32_t add)
{
    uint32_t seg = (uint32_t)(lfs_ptr_addr(obj) / seg_bytes(d)), per = 4096 / 16;
    struct segedit e = {seg % per, state, add};
    lfs_ptr p = ptr_of(d, 1, 0, seg / per);
    return p ? reencode(d, p, edit_segent, &e) : -1;
}

TEST(segment_live_count_repaired)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d);
    lfs_ptr p = data_ptr(d, "/big", 30);
    REQUIRE(p && edit_segment_of(d, p, -1, 4096) == 0);
    repaired(d, &sh, FSCK_K_SEGMENT, "in the segment file, ");
    nand_close(d);
}

TEST(free_segment_holding_data_repaired)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d);
    lfs_ptr p = data_ptr(d, "/big", 100);
    REQUIRE(p && edit_segment_of(d, p, LFS_SEG_FREE, 0) == 0);
    repaired(d, &sh, FSCK_K_SEGMENT, "FREE in the segment file, but holds");
    /* the repaired segment file keeps it: a device's worth of writes later
     * the data is still there */
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    for (int i = 0; i < 20; i++)
        REQUIRE(put_file(fs, "/churn", (uint64_t)i, 0, 3u << 20) == 0);
    CHECK(verify(fs, &sh) == 0);
    REQUIRE(logfs_unmount(fs) == 0);
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, NULL), FSCK_CLEAN);
    nand_close(d);
}

static void drop_orphans(struct lfs_anchor *a) { a->norphans = 0; memset(a->orphans, 0, sizeof a->orphans); }

TEST(unlisted_orphan_released)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(put_file(fs, "/gone", 8, 0, 100000) == 0);
    int fd = logfs_open(fs, "/gone", O_RDONLY, 0);
    REQUIRE(fd >= 0 && logfs_unlink(fs, "/gone") == 0 && logfs_sync(fs) == 0);
    nand_power_cut(d);
    logfs_unmount(fs);
    nand_power_on(d);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, &r), FSCK_CLEAN);
    uint64_t live = r.live_bytes;
    fsck_report_free(&r);
    REQUIRE(rewrite_anchor(d, drop_orphans) == 0);
    CHECK_EQ_INT(fsck_expect(d, 1, FSCK_FIXED, &r), FSCK_FIXED);
    CHECK(fsck_report_has(&r, FSCK_K_ORPHAN));
    CHECK(r.live_bytes + 100000 <= live); /* its blocks were freed */
    fsck_report_free(&r);
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, NULL), FSCK_CLEAN);
    CHECK(mounts_and_reads(d, &sh) == 0);
    nand_close(d);
}

static void bad_counters(struct lfs_anchor *a)
{
    a->live_bytes += 4096;
    a->free_segments -= 3;
    a->next_ino = 3;
    a->pool[a->npool++] = (struct lfs_free_seg){a->pool[0].seg, 0}; /* twice */
}

TEST(anchor_counters_repaired)
{
    struct shape sh;
    nand_dev *d = populated(512, &sh);
    REQUIRE(d && rewrite_anchor(d, bad_counters) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(has_text(&r, "anchor: live_bytes"));
    CHECK(has_text(&r, "anchor: free_segments"));
    CHECK(has_text(&r, "but the anchor's next_ino is 3"));
    CHECK(has_text(&r, "is listed twice"));
    fsck_report_free(&r);
    repaired(d, &sh, FSCK_K_COUNTER, NULL);
    logfs *fs; /* new inodes get new numbers */
    struct fs_stat st;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(put_file(fs, "/newer", 1, 0, 10) == 0);
    CHECK(logfs_stat(fs, "/newer", &st) == 0 && st.ino > 300);
    logfs_unmount(fs);
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, NULL), FSCK_CLEAN);
    nand_close(d);
}

TEST(superblock_copy_repaired)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d && flip_bit(d, 20, 1) == 0); /* block 0: page size field */
    repaired(d, &sh, FSCK_K_SUPER, "block 0 page 0: no valid superblock");
    nand_close(d);
}

/* What can be repaired is, what cannot stays: exit 4, and the second run
 * reports only what is left. */
TEST(partial_repair_leaves_the_rest)
{
    struct shape sh;
    nand_dev *d = populated(4096, &sh);
    REQUIRE(d);
    lfs_ptr p = data_ptr(d, "/d1/moved", 1);
    REQUIRE(p && flip_bit(d, lfs_ptr_addr(p) + LFS_OBJ_HDR + 7, 6) == 0);
    REQUIRE(reencode(d, ptr_of(d, 0, 0, ino_of(d, "/small")), set_nlink5, NULL) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 1, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK_EQ_INT(r.nerrors, 2);
    CHECK_EQ_INT(r.nrepaired, 1);
    fsck_report_free(&r);
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(fsck_report_has(&r, FSCK_K_CRC) && !fsck_report_has(&r, FSCK_K_NLINK));
    fsck_report_free(&r);
    nand_close(d);
}

/* ---- format 4: the mirrored ring, special files, attribute inodes -------- */

/* The address of the other mirror's copy of the record at addr. */
static uint64_t mirror_twin(nand_dev *d, uint64_t addr)
{
    const struct nand_config *c = nand_get_config(d);
    uint8_t *buf = malloc(c->geo.page_size);
    struct lfs_super sb;
    uint64_t twin = 0, sbytes = seg_bytes(d);
    if (buf && !nand_read(d, 0, 0, buf, NULL, NULL) && !lfs_super_decode(buf, &sb)) {
        uint32_t half = sb.anchor_count / 2, blk = (uint32_t)(addr / sbytes);
        for (uint32_t i = 0; i < sb.anchor_count; i++)
            if (sb.anchor_blocks[i] == blk)
                twin = (uint64_t)sb.anchor_blocks[(i + half) % sb.anchor_count] *
                       sbytes + addr % sbytes;
    }
    free(buf);
    return twin;
}

/* Either copy of the newest record damaged: the other mirror holds it, so
 * the newest commit is found, and fsck warns about the damaged copy. */
TEST(mirror_copy_damaged_is_a_warning)
{
    struct shape sh;
    for (int which = 0; which < 2; which++) {
        nand_dev *d = populated(4096, &sh);
        REQUIRE(d);
        uint64_t addr, twin;
        struct lfs_anchor a;
        REQUIRE(newest_anchor(d, &addr, &a) == 0);
        twin = mirror_twin(d, addr);
        REQUIRE(twin && twin != addr);
        REQUIRE(flip_bit(d, (which ? addr : twin) + 600, 3) == 0);
        struct fsck_report r;
        CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, &r), FSCK_CLEAN);
        CHECK_EQ_INT(r.seq, a.seq);
        CHECK(has_text(&r, "the mirror copy of anchor seq"));
        CHECK(!has_text(&r, "the newest anchor record is damaged"));
        fsck_report_free(&r);
        CHECK(mounts_and_reads(d, &sh) == 0);
        nand_close(d);
    }
}

/* Set the inode record's mode (ctx: uint32_t *). */
static void set_mode(uint8_t *p, uint32_t len, void *ctx)
{
    if (len >= 4)
        le32_put(p, *(const uint32_t *)ctx);
}
static void set_rdev(uint8_t *p, uint32_t len, void *ctx)
{
    if (len >= 216)
        le64_put(p + 208, *(const uint64_t *)ctx);
}
static void set_xattr(uint8_t *p, uint32_t len, void *ctx)
{
    if (len >= 224)
        le64_put(p + 216, *(const uint64_t *)ctx);
}
static void set_xattrs_flag(uint8_t *p, uint32_t len, void *ctx)
{
    (void)ctx;
    if (len >= 52)
        le32_put(p + 48, 1);
}
/* The type byte of the entry named ctx in a bucket: 1 (FIFO). */
static void set_entry_fifo(uint8_t *p, uint32_t len, void *ctx)
{
    const char *name = ctx;
    size_t nl = strlen(name);
    for (uint32_t off = 1; off + 10 <= len; off += 10u + p[off + 9])
        if (p[off + 9] == nl && !memcmp(p + off + 10, name, nl))
            p[off + 8] = 1;
}

static nand_dev *with_empty_files(void)
{
    nand_dev *d = mkdev(512, 64, 9, 0);
    logfs *fs;
    if (!d || logfs_mkfs(d, NULL) || logfs_mount(d, NULL, &fs))
        return NULL;
    int rc = 0;
    const char *names[] = {"/fifo", "/a", "/b"};
    for (int i = 0; i < 3; i++) {
        int fd = logfs_open(fs, names[i], O_CREAT | O_WRONLY, 0644);
        rc |= fd < 0 || logfs_close(fs, fd);
    }
    if (logfs_unmount(fs) || rc) {
        nand_close(d);
        return NULL;
    }
    return d;
}

/* Section 13a: a FIFO (size 0, no blocks, named with type 1) is clean;
 * rdev on a file that is no device is an error. */
TEST(special_file_checked)
{
    nand_dev *d = with_empty_files();
    REQUIRE(d);
    uint64_t ino = ino_of(d, "/fifo");
    uint32_t fifo = 0010644;
    REQUIRE(ino);
    lfs_ptr bp = bucket_ptr(d, "/", "fifo");
    REQUIRE(bp && reencode(d, bp, set_entry_fifo, "fifo") == 0);
    REQUIRE(reencode(d, ptr_of(d, 0, 0, ino), set_mode, &fifo) == 0);
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_CLEAN, NULL), FSCK_CLEAN);
    uint64_t rdev = 0x0801, a = ino_of(d, "/a");
    REQUIRE(a && reencode(d, ptr_of(d, 0, 0, a), set_rdev, &rdev) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(has_text(&r, "on a file that is not a device"));
    fsck_report_free(&r);
    nand_close(d);
}

/* Section 13a: an xattr field naming an inode without the XATTRS flag is
 * an error; an inode with the flag that nobody names, or that a directory
 * names, is one too. */
TEST(attribute_inode_checked)
{
    nand_dev *d = with_empty_files();
    REQUIRE(d);
    uint64_t a = ino_of(d, "/a"), b = ino_of(d, "/b");
    REQUIRE(a && b);
    REQUIRE(reencode(d, ptr_of(d, 0, 0, a), set_xattr, &b) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(has_text(&r, "which is not an attribute inode"));
    fsck_report_free(&r);
    uint64_t zero = 0;
    uint32_t reg = 0100000;
    REQUIRE(reencode(d, ptr_of(d, 0, 0, a), set_xattr, &zero) == 0);
    REQUIRE(reencode(d, ptr_of(d, 0, 0, b), set_xattrs_flag, NULL) == 0);
    REQUIRE(reencode(d, ptr_of(d, 0, 0, b), set_mode, &reg) == 0);
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(has_text(&r, "is named by 0 inodes"));
    CHECK(has_text(&r, "it must be in no directory"));
    fsck_report_free(&r);
    /* named by /a: only the directory entry is wrong now */
    REQUIRE(reencode(d, ptr_of(d, 0, 0, a), set_xattr, &b) == 0);
    CHECK_EQ_INT(fsck_expect(d, 0, FSCK_ERRORS, &r), FSCK_ERRORS);
    CHECK(!has_text(&r, "is named by 0 inodes"));
    CHECK(has_text(&r, "it must be in no directory"));
    fsck_report_free(&r);
    nand_close(d);
}

/* One attribute-list entry (section 13a) at out; returns its length. */
static size_t xentry(uint8_t *out, const char *name, const char *value)
{
    size_t nl = strlen(name), vl = strlen(value);
    out[0] = (uint8_t)nl;
    out[1] = 0;
    le32_put(out + 2, (uint32_t)vl);
    memcpy(out + 6, name, nl);
    memcpy(out + 6 + nl, value, vl);
    return 6 + nl + vl;
}

/* The errors fk_check_xattr_list finds in list[0..len). */
static unsigned xlist_errors(const uint8_t *list, size_t len, const char *text)
{
    struct fsck_report rep;
    struct fk k;
    struct fk_ient ie;
    memset(&rep, 0, sizeof rep);
    memset(&k, 0, sizeof k);
    memset(&ie, 0, sizeof ie);
    k.rep = &rep;
    ie.d.ino = 7;
    fk_check_xattr_list(&k, &ie, list, len, 1);
    unsigned n = rep.nerrors;
    if (text && !has_text(&rep, text))
        n = 1000;
    fsck_report_free(&rep);
    return n;
}

/* Section 13a: the attribute list parses -- sorted (a shorter name before
 * a longer one it begins), no name twice, known prefixes, lengths within
 * the list. */
TEST(xattr_list_parsed)
{
    uint8_t l[512];
    size_t n = 0;
    n += xentry(l + n, "security.selinux", "ctx");
    n += xentry(l + n, "user.a", "");
    n += xentry(l + n, "user.ab", "12345");
    CHECK_EQ_INT(xlist_errors(l, n, NULL), 0);
    CHECK_EQ_INT(xlist_errors(l, 0, NULL), 0);
    n = xentry(l, "user.b", "x");
    n += xentry(l + n, "user.a", "y");
    CHECK_EQ_INT(xlist_errors(l, n, "is out of order"), 1);
    n = xentry(l, "user.a", "x");
    n += xentry(l + n, "user.a", "y");
    CHECK_EQ_INT(xlist_errors(l, n, "appears twice"), 1);
    n = xentry(l, "system.posix_acl", "x");
    CHECK_EQ_INT(xlist_errors(l, n, "has no user., trusted. or security. prefix"), 1);
    n = xentry(l, "user.a", "xyz");
    CHECK_EQ_INT(xlist_errors(l, n - 1, "within the list"), 1); /* value cut */
    CHECK_EQ_INT(xlist_errors(l, n + 3, "cut by the end of the list"), 1);
    l[0] = 0; /* name length 0 */
    CHECK_EQ_INT(xlist_errors(l, n, "name length 0"), 1);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(crc_is_the_format_crc);
    RUN(fresh_mkfs_is_clean);
    RUN(every_shape_is_clean);
    RUN(compressed_shapes_are_clean);
    RUN(damaged_compressed_stream_found);
    RUN(not_logfs_is_operational);
    RUN(orphans_at_a_crash_are_clean);
    RUN(after_the_cleaner_is_clean);
    RUN(random_workloads_are_clean);
    RUN(payload_bit_flip_found);
    RUN(header_bit_flip_found);
    RUN(torn_page_found);
    RUN(erased_anchor_ring_found);
    RUN(wrong_nlink_repaired);
    RUN(repair_that_does_not_check_clean_is_not_fixed);
    RUN(dangling_entry_repaired);
    RUN(directory_size_and_entry_type_repaired);
    RUN(segment_live_count_repaired);
    RUN(free_segment_holding_data_repaired);
    RUN(unlisted_orphan_released);
    RUN(anchor_counters_repaired);
    RUN(superblock_copy_repaired);
    RUN(partial_repair_leaves_the_rest);
    RUN(mirror_copy_damaged_is_a_warning);
    RUN(special_file_checked);
    RUN(attribute_inode_checked);
    RUN(xattr_list_parsed);
    return test_summary(argv[0]);
}

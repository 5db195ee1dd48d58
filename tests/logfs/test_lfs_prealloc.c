/*
 * test_lfs_prealloc.c -- fallocate on LogFS (format 6): preallocated
 * blocks read as zeros and keep their room until written, the inode's
 * block count (st_blocks) follows every change, and all of it survives a
 * remount and passes fsck.  A seeded random run checks content against a
 * byte model and the count against a walk of the tree.
 */
#include "fsck.h"
#include "lfs_fixture.h"
#include "logfs/lfs.h"
#include "logfs/logfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#define BS 4096u
#define PRE (BS + LFS_OBJ_HDR) /* what live_bytes keeps for one */

static nand_dev *mkdev(void)
{
    return LFS_FX_DEVICE(.blocks = 128, .pages = 64, .seed = 30);
}

static uint64_t free_bytes(logfs *fs)
{
    struct fs_statfs st;
    return logfs_statfs(fs, &st) ? 0 : st.free_bytes;
}

static struct fs_stat fstat_of(logfs *fs, int fd)
{
    struct fs_stat st = {0};
    CHECK_EQ_INT(logfs_fstat(fs, fd, &st), 0);
    return st;
}

static void check_zeros(logfs *fs, int fd, uint64_t off, uint64_t len)
{
    uint8_t buf[BS];
    for (uint64_t at = off; at < off + len; at += sizeof buf) {
        uint64_t n = off + len - at < sizeof buf ? off + len - at : sizeof buf;
        CHECK_EQ_INT(logfs_pread(fs, fd, buf, n, at), n);
        CHECK(lfs_all_bytes(buf, (uint32_t)n, 0));
    }
}

TEST(prealloc_reads_zeros_and_keeps_room)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/f", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(logfs_sync(fs) == 0);
    uint64_t live0 = lfs_fx_stats(fs).live_bytes, free0 = free_bytes(fs);
    CHECK_EQ_INT(fstat_of(fs, fd).blocks, 0);
    /* 25 blocks: [1000, 101000) touches blocks 0..24 */
    CHECK_EQ_INT(logfs_allocate(fs, fd, 1000, 100000, 0), 0);
    struct fs_stat st = fstat_of(fs, fd);
    CHECK_EQ_INT(st.size, 101000);
    CHECK_EQ_INT(st.blocks, 25 * BS / 512);
    check_zeros(fs, fd, 0, 101000);
    REQUIRE(logfs_sync(fs) == 0);
    uint64_t live1 = lfs_fx_stats(fs).live_bytes, free1 = free_bytes(fs);
    /* the indirect block under blocks 16..24 is the rest */
    CHECK(live1 - live0 >= 25 * PRE && live1 - live0 <= 25 * PRE + PRE);
    CHECK(free0 - free1 >= 25 * PRE);
    /* a whole block written replaces its reservation: a raw object of the
     * same length, so nothing changes in live_bytes or statfs */
    uint8_t buf[BS];
    memset(buf, 0x5a, sizeof buf);
    CHECK_EQ_INT(logfs_pwrite(fs, fd, buf, BS, 3 * BS), BS);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(lfs_fx_stats(fs).live_bytes, live1);
    CHECK_EQ_INT(free_bytes(fs), free1);
    /* a short one (trailing zeros trimmed) gives some back */
    CHECK_EQ_INT(logfs_pwrite(fs, fd, buf, 100, 5 * BS), 100);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(lfs_fx_stats(fs).live_bytes, live1 - (BS - 100));
    CHECK_EQ_INT(fstat_of(fs, fd).blocks, 25 * BS / 512);
    uint32_t seg, have;
    uint64_t want;
    CHECK_EQ_INT(lfs_check_live(fs, &seg, &want, &have), 0);
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    lfs_fx_fsck_clean(d);
    /* remount: pointers, count and size as they were */
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    fd = logfs_open(fs, "/f", O_RDONLY, 0);
    REQUIRE(fd >= 0);
    st = fstat_of(fs, fd);
    CHECK_EQ_INT(st.size, 101000);
    CHECK_EQ_INT(st.blocks, 25 * BS / 512);
    CHECK_EQ_INT(lfs_fx_stats(fs).live_bytes, live1 - (BS - 100));
    uint8_t got[BS];
    CHECK_EQ_INT(logfs_pread(fs, fd, got, BS, 3 * BS), BS);
    CHECK(!memcmp(got, buf, BS));
    check_zeros(fs, fd, 6 * BS, 101000 - 6 * BS);
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(prealloc_keep_size_and_giving_back)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/k", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    uint8_t buf[1000];
    memset(buf, 7, sizeof buf);
    CHECK_EQ_INT(logfs_pwrite(fs, fd, buf, sizeof buf, 0), sizeof buf);
    REQUIRE(logfs_sync(fs) == 0);
    uint64_t live0 = lfs_fx_stats(fs).live_bytes;
    /* blocks 0..15: block 0 exists and stays, 1..15 past the end */
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 16 * BS, FS_ALLOC_KEEP_SIZE), 0);
    struct fs_stat st = fstat_of(fs, fd);
    CHECK_EQ_INT(st.size, 1000);
    CHECK_EQ_INT(st.blocks, 16 * BS / 512);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(lfs_fx_stats(fs).live_bytes, live0 + 15 * PRE);
    /* allocating again changes nothing */
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 16 * BS, FS_ALLOC_KEEP_SIZE), 0);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(lfs_fx_stats(fs).live_bytes, live0 + 15 * PRE);
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    lfs_fx_fsck_clean(d); /* blocks past the end are no warning */
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    fd = logfs_open(fs, "/k", O_RDWR, 0);
    REQUIRE(fd >= 0);
    /* punch past the end frees what lies there */
    CHECK_EQ_INT(logfs_punch(fs, fd, 8 * BS, 4 * BS), 0);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(fstat_of(fs, fd).blocks, 12 * BS / 512);
    CHECK_EQ_INT(lfs_fx_stats(fs).live_bytes, live0 + 11 * PRE);
    /* a truncate below the size frees everything past the new end */
    CHECK_EQ_INT(logfs_ftruncate(fs, fd, 500), 0);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(fstat_of(fs, fd).blocks, BS / 512);
    CHECK(lfs_fx_stats(fs).live_bytes <= live0);
    /* unlink gives back everything, preallocated blocks too */
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 40 * BS, 0), 0);
    logfs_close(fs, fd);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK(lfs_fx_stats(fs).live_bytes >= live0 + 39 * PRE);
    CHECK_EQ_INT(logfs_unlink(fs, "/k"), 0);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK(lfs_fx_stats(fs).live_bytes < live0);
    REQUIRE(logfs_unmount(fs) == 0);
    lfs_fx_fsck_clean(d);
    nand_close(d);
}

TEST(prealloc_errors_change_nothing)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/e", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(logfs_sync(fs) == 0);
    uint64_t live0 = lfs_fx_stats(fs).live_bytes;
    struct fs_statfs sf;
    REQUIRE(logfs_statfs(fs, &sf) == 0);
    /* more than the device holds, well inside the largest file */
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, sf.total_bytes, 0), -ENOSPC);
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 0, 0), -EINVAL);
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 4096, 8), -EINVAL);
    CHECK_EQ_INT(logfs_allocate(fs, fd, INT64_MAX - 10, 4096, 0), -EFBIG);
    CHECK_EQ_INT(logfs_allocate(fs, 99, 0, 4096, 0), -EBADF);
    struct fs_stat st = fstat_of(fs, fd);
    CHECK_EQ_INT(st.size, 0);
    CHECK_EQ_INT(st.blocks, 0);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(lfs_fx_stats(fs).live_bytes, live0);
    logfs_close(fs, fd);
    fd = logfs_open(fs, "/e", O_RDONLY, 0);
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 4096, 0), -EBADF);
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    struct logfs_options ro = {.readonly = 1};
    REQUIRE(logfs_mount(d, &ro, &fs) == 0);
    fd = logfs_open(fs, "/e", O_RDONLY, 0);
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 4096, 0), -EBADF);
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* Writing into preallocated room on a full device: the reservation is the
 * room, so the write does not fail. */
TEST(prealloc_write_fits_when_full)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/r", O_RDWR | O_CREAT, 0644);
    int g = logfs_open(fs, "/fill", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0 && g >= 0);
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 64 * BS, 0), 0);
    static uint8_t buf[64 * BS];
    memset(buf, 0x33, sizeof buf);
    uint64_t at = 0;
    for (int64_t n; (n = logfs_pwrite(fs, g, buf, BS, at)) == BS;)
        at += BS;
    CHECK(at > 0);
    CHECK_EQ_INT(logfs_pwrite(fs, g, buf, BS, at), -ENOSPC);
    CHECK_EQ_INT(logfs_pwrite(fs, fd, buf, sizeof buf, 0), sizeof buf);
    REQUIRE(logfs_sync(fs) == 0);
    uint8_t got[BS];
    CHECK_EQ_INT(logfs_pread(fs, fd, got, BS, 63 * BS), BS);
    CHECK(!memcmp(got, buf, BS));
    logfs_close(fs, fd);
    logfs_close(fs, g);
    REQUIRE(logfs_unmount(fs) == 0);
    lfs_fx_fsck_clean(d);
    nand_close(d);
}

/* fallocate's ZERO_RANGE through allocate (the mount's call). */
static int zero_range(logfs *fs, int fd, uint64_t off, uint64_t len, unsigned flags)
{
    return logfs_allocate(fs, fd, off, len, flags | FS_ALLOC_ZERO_RANGE);
}

/* A file of n blocks of pattern bytes (each block its own byte). */
static int pattern_file(logfs *fs, const char *path, unsigned n)
{
    int fd = logfs_open(fs, path, O_RDWR | O_CREAT, 0644);
    uint8_t buf[BS];
    for (unsigned b = 0; fd >= 0 && b < n; b++) {
        memset(buf, 0x41 + (int)b, sizeof buf);
        if (logfs_pwrite(fs, fd, buf, BS, (uint64_t)b * BS) != BS)
            return -1;
    }
    return fd;
}

static int is_pattern(logfs *fs, int fd, unsigned n)
{
    uint8_t buf[BS];
    for (unsigned b = 0; b < n; b++)
        if (logfs_pread(fs, fd, buf, BS, (uint64_t)b * BS) != BS ||
            !lfs_all_bytes(buf, BS, (uint8_t)(0x41 + b)))
            return 0;
    return 1;
}

/* ZERO_RANGE: the range reads as zeros and all of it is preallocated; the
 * size grows past the end unless KEEP_SIZE. */
TEST(prealloc_zero_range)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = pattern_file(fs, "/z", 8);
    REQUIRE(fd >= 0);
    /* blocks 2..5 whole, a part of 1 and of 6 */
    CHECK_EQ_INT(zero_range(fs, fd, BS + 100, 5 * BS, FS_ALLOC_KEEP_SIZE), 0);
    uint8_t buf[BS];
    CHECK_EQ_INT(logfs_pread(fs, fd, buf, 100, BS), 100);
    CHECK(lfs_all_bytes(buf, 100, 0x42));
    check_zeros(fs, fd, BS + 100, 5 * BS);
    CHECK_EQ_INT(logfs_pread(fs, fd, buf, BS - 100, 6 * BS + 100), BS - 100);
    CHECK(lfs_all_bytes(buf, BS - 100, 0x47));
    struct fs_stat st = fstat_of(fs, fd);
    CHECK_EQ_INT(st.size, 8 * BS);
    CHECK_EQ_INT(st.blocks, 8 * BS / 512);
    /* past the end: the size follows; KEEP_SIZE: it does not */
    CHECK_EQ_INT(zero_range(fs, fd, 7 * BS, 4 * BS, FS_ALLOC_KEEP_SIZE), 0);
    CHECK_EQ_INT(fstat_of(fs, fd).size, 8 * BS);
    CHECK_EQ_INT(fstat_of(fs, fd).blocks, 11 * BS / 512);
    CHECK_EQ_INT(zero_range(fs, fd, 7 * BS, 5 * BS, 0), 0);
    st = fstat_of(fs, fd);
    CHECK_EQ_INT(st.size, 12 * BS);
    CHECK_EQ_INT(st.blocks, 12 * BS / 512);
    check_zeros(fs, fd, 7 * BS, 5 * BS);
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    lfs_fx_fsck_clean(d);
    nand_close(d);
}

/* ZERO_RANGE on a full device: room is checked before the punch, so an
 * ENOSPC leaves the file as it was; what the punch frees counts, so one
 * that fits only with it fits. */
TEST(prealloc_zero_range_enospc_changes_nothing)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = pattern_file(fs, "/z", 8);
    int g = logfs_open(fs, "/fill", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0 && g >= 0);
    static uint8_t buf[BS];
    memset(buf, 0x33, sizeof buf);
    uint64_t at = 0;
    while (logfs_pwrite(fs, g, buf, BS, at) == BS)
        at += BS;
    CHECK(at > 0);
    REQUIRE(logfs_sync(fs) == 0);
    struct fs_stat st0 = fstat_of(fs, fd);
    /* blocks 1..7 punched would free 7, the range needs 64 */
    CHECK_EQ_INT(zero_range(fs, fd, BS, 64 * BS, 0), -ENOSPC);
    CHECK_EQ_INT(zero_range(fs, fd, BS, 64 * BS, FS_ALLOC_KEEP_SIZE), -ENOSPC);
    struct fs_stat st = fstat_of(fs, fd);
    CHECK_EQ_INT(st.size, st0.size);
    CHECK_EQ_INT(st.blocks, st0.blocks);
    CHECK(is_pattern(fs, fd, 8));
    REQUIRE(logfs_sync(fs) == 0);
    CHECK(is_pattern(fs, fd, 8));
    /* two blocks' room back: less than 4 new blocks take, more than they
     * take beyond the 4 the punch gives back */
    CHECK_EQ_INT(logfs_ftruncate(fs, g, at - 2 * BS), 0);
    REQUIRE(logfs_sync(fs) == 0);
    CHECK_EQ_INT(zero_range(fs, fd, BS, 64 * BS, 0), -ENOSPC);
    CHECK(is_pattern(fs, fd, 8));
    CHECK_EQ_INT(zero_range(fs, fd, 2 * BS, 4 * BS, 0), 0);
    check_zeros(fs, fd, 2 * BS, 4 * BS);
    CHECK_EQ_INT(fstat_of(fs, fd).blocks, st0.blocks);
    logfs_close(fs, fd);
    logfs_close(fs, g);
    REQUIRE(logfs_unmount(fs) == 0);
    lfs_fx_fsck_clean(d);
    nand_close(d);
}

/* Non-hole level-0 blocks, counted by a walk independent of the count. */
static uint64_t walk_blocks(logfs *fs, const char *path)
{
    struct fs_stat st;
    struct lfs_inode *in;
    if (logfs_stat(fs, path, &st) || lfs_inode_get(fs, st.ino, &in))
        return UINT64_MAX;
    uint64_t n = 0;
    for (uint64_t b = 0;; b++) {
        if (lfs_tree_next(fs, in, b, &b) || b == UINT64_MAX)
            return n;
        n++;
    }
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#define MODEL_BYTES (256u * BS)

TEST(prealloc_model_random_ops)
{
    uint64_t seed = 0x5eed30ULL;
    fprintf(stderr, "prealloc_model_random_ops: seed %#llx\n", (unsigned long long)seed);
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    uint8_t *model = calloc(1, MODEL_BYTES), *got = malloc(MODEL_BYTES), buf[3 * BS];
    REQUIRE(model && got);
    uint64_t size = 0;
    int fd = logfs_open(fs, "/m", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    for (int step = 0; step < 400; step++) {
        uint64_t op = rnd(&seed) % 5, off = rnd(&seed) % (MODEL_BYTES - 3 * BS);
        uint64_t len = 1 + rnd(&seed) % (3 * BS);
        if (op == 0) { /* write */
            for (uint64_t i = 0; i < len; i++)
                buf[i] = (uint8_t)(rnd(&seed) | 1);
            CHECK_EQ_INT(logfs_pwrite(fs, fd, buf, len, off), len);
            memcpy(model + off, buf, len);
            size = off + len > size ? off + len : size;
        } else if (op == 1) { /* punch */
            CHECK_EQ_INT(logfs_punch(fs, fd, off, len), 0);
            uint64_t e = off + len < size ? off + len : size;
            if (off < e)
                memset(model + off, 0, e - off);
        } else if (op == 2) { /* truncate */
            uint64_t to = rnd(&seed) % MODEL_BYTES;
            CHECK_EQ_INT(logfs_ftruncate(fs, fd, to), 0);
            if (to < size)
                memset(model + to, 0, size - to);
            size = to;
        } else { /* allocate, half of them KEEP_SIZE */
            int keep = (int)(rnd(&seed) & 1);
            CHECK_EQ_INT(logfs_allocate(fs, fd, off, len, keep ? FS_ALLOC_KEEP_SIZE : 0), 0);
            if (!keep && off + len > size)
                size = off + len;
        }
        struct fs_stat st = fstat_of(fs, fd);
        CHECK_EQ_INT(st.size, size);
        CHECK_EQ_INT(st.blocks, walk_blocks(fs, "/m") * (BS / 512));
        if (step % 50 == 49) {
            logfs_close(fs, fd);
            REQUIRE(logfs_unmount(fs) == 0);
            lfs_fx_fsck_clean(d);
            REQUIRE(logfs_mount(d, NULL, &fs) == 0);
            fd = logfs_open(fs, "/m", O_RDWR, 0);
            REQUIRE(fd >= 0);
            CHECK_EQ_INT(logfs_pread(fs, fd, got, MODEL_BYTES, 0), size);
            CHECK(!memcmp(got, model, size));
        }
    }
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    free(model);
    free(got);
    nand_close(d);
}


/* The first fsck message of kind about inode ino, or NULL. */
static const char *fsck_says(const struct fsck_report *r, enum fsck_kind kind, int64_t ino)
{
    for (size_t i = 0; i < r->nmsgs; i++)
        if (r->msgs[i].kind == kind && r->msgs[i].ino == ino &&
            r->msgs[i].severity == FSCK_ERROR)
            return r->msgs[i].text;
    return NULL;
}

/* A record whose count is off by one, written by LogFS itself. */
TEST(prealloc_fsck_flipped_blocks)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/b", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 3 * BS, 0), 0);
    struct fs_stat st = fstat_of(fs, fd);
    logfs_close(fs, fd);
    REQUIRE(logfs_sync(fs) == 0);
    struct lfs_inode *in;
    REQUIRE(lfs_inode_get(fs, st.ino, &in) == 0);
    in->blocks ^= 1;
    lfs_inode_dirty(fs, in);
    REQUIRE(logfs_unmount(fs) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_run(d, 0, &r), FSCK_ERRORS);
    const char *t = fsck_says(&r, FSCK_K_INODE, (int64_t)st.ino);
    CHECK(t && strstr(t, "blocks 2 in its record, its tree has 3 (3 preallocated)"));
    if (t)
        fprintf(stderr, "fsck: %s\n", t);
    fsck_report_free(&r);
    nand_close(d);
}

static int no_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    (void)ctx, (void)name, (void)ino, (void)type;
    return 0;
}

/* A preallocated pointer where only objects may be: a directory's. */
TEST(prealloc_fsck_pointer_in_directory)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/dir", 0755) == 0);
    struct fs_stat st;
    REQUIRE(logfs_stat(fs, "/dir", &st) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    struct lfs_inode *in;
    REQUIRE(lfs_inode_get(fs, st.ino, &in) == 0);
    unsigned slot = 0;
    while (slot < LFS_NDIRECT && in->direct[slot])
        slot++;
    REQUIRE(slot < LFS_NDIRECT);
    in->direct[slot] = lfs_ptr_prealloc(BS);
    lfs_inode_dirty(fs, in);
    REQUIRE(logfs_unmount(fs) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_run(d, 0, &r), FSCK_ERRORS);
    const char *t = fsck_says(&r, FSCK_K_POINTER, (int64_t)st.ino);
    CHECK(t && strstr(t, "is a preallocated block, which only a regular file's data block"));
    if (t)
        fprintf(stderr, "fsck: %s\n", t);
    fsck_report_free(&r);
    /* LogFS refuses it too: EIO, not zeros */
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    CHECK_EQ_INT(logfs_readdir(fs, "/dir", &(uint64_t){0}, no_entry, NULL), -EIO);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* fsck's repair deletes an unlinked inode the orphan list lost; its
 * preallocated blocks leave live_bytes with it. */
TEST(prealloc_fsck_repair_deletes_their_room)
{
    nand_dev *d = mkdev();
    logfs *fs;
    REQUIRE(d && logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/lost", O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(logfs_allocate(fs, fd, 0, 20 * BS, 0), 0);
    struct fs_stat st = fstat_of(fs, fd);
    CHECK_EQ_INT(logfs_unlink(fs, "/lost"), 0);
    lfs_orphan_remove(fs, st.ino); /* the damage: an orphan not listed */
    REQUIRE(logfs_sync(fs) == 0);
    nand_snapshot *snap;
    REQUIRE(nand_snapshot_take(d, &snap) == 0);
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(nand_snapshot_restore(d, snap) == 0);
    nand_snapshot_free(snap);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_run(d, 1, &r), FSCK_FIXED);
    for (size_t i = 0; i < r.nmsgs; i++)
        if (r.msgs[i].severity == FSCK_ERROR && !r.msgs[i].repaired)
            fprintf(stderr, "fsck left: %s\n", r.msgs[i].text);
    fsck_report_free(&r);
    lfs_fx_fsck_clean(d);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(prealloc_reads_zeros_and_keeps_room);
    RUN(prealloc_keep_size_and_giving_back);
    RUN(prealloc_errors_change_nothing);
    RUN(prealloc_write_fits_when_full);
    RUN(prealloc_zero_range);
    RUN(prealloc_zero_range_enospc_changes_nothing);
    RUN(prealloc_model_random_ops);
    RUN(prealloc_fsck_flipped_blocks);
    RUN(prealloc_fsck_pointer_in_directory);
    RUN(prealloc_fsck_repair_deletes_their_room);
    return test_summary(argv[0]);
}

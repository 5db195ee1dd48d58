/*
 * test_lfs_core.c -- LogFS below the file API: the wandering tree, commit,
 * anchor ring and segment file, through the internal interface (fs/logfs/lfs.h).
 * Checks round trips through remount at every tree height, that mount and
 * the first synced write read a bounded number of pages on devices 32x
 * apart, and that a power cut at any flash operation of a commit leaves
 * either the old or the new version of every block, never a mixture.
 */
#include "crc32.h"
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fixture.h"
#include "ring_image.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

static nand_dev *make_dev(uint32_t blocks, uint32_t pages)
{
    return FX_DEVICE(.blocks = blocks, .pages = pages, .bad = 0.02, .seed = 99);
}

static const struct logfs_options small_blocks = {.block_size = 512};

/* Block bix of file ino holds this pattern at version v. */
static void pattern(uint8_t *buf, uint32_t n, uint64_t ino, uint64_t bix, uint32_t v)
{
    uint64_t s = ino * 1000003 + bix * 7919 + v * 104729 + 1;
    for (uint32_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[i] = (uint8_t)(s >> 56) | 1; /* never zero: no trailing trim */
    }
}

static int write_block(struct logfs *fs, struct lfs_inode *in, uint64_t bix, uint32_t v)
{
    struct lfs_node *n;
    int rc = lfs_tree_get(fs, in, 0, bix, 1, &n);
    if (rc)
        return rc;
    pattern(n->data, fs->g.block_size, in->ino, bix, v);
    n->len = fs->g.block_size;
    lfs_node_dirty(fs, n);
    return 0;
}

/* 1 = block matches version v, 0 = hole, -1 = other content or error */
static int check_block(struct logfs *fs, struct lfs_inode *in, uint64_t bix, uint32_t v)
{
    struct lfs_node *n;
    uint8_t want[512];
    if (lfs_tree_get(fs, in, 0, bix, 0, &n))
        return -1;
    if (!n)
        return 0;
    pattern(want, sizeof want, in->ino, bix, v);
    return n->len == sizeof want && !memcmp(n->data, want, sizeof want) ? 1 : -1;
}

/* Blocks at every height of a 512-byte-block tree (64 pointers a block). */
static const uint64_t sample_bix[] = {0, 5, 15, 16, 17, 79, 80, 81, 4175, 4176,
                                      4177, 200000, 266319, 266320, 300001};
#define NSAMPLE (sizeof sample_bix / sizeof sample_bix[0])

/* Every sample block at version v: 0, or the first error. */
static int write_samples(struct logfs *fs, struct lfs_inode *in, uint32_t v)
{
    int rc = 0;
    for (size_t i = 0; i < NSAMPLE && !rc; i++)
        rc = write_block(fs, in, sample_bix[i], v);
    return rc;
}

/* A device of the given blocks of 16 pages, formatted with 512-byte blocks
 * and mounted in *fs, holding one new regular file, linked, in *in; or
 * NULL. */
static nand_dev *dev_with_file(uint32_t blocks, struct logfs **fs, struct lfs_inode **in)
{
    nand_dev *d = make_dev(blocks, 16);
    if (!d || logfs_mkfs(d, &small_blocks) || logfs_mount(d, NULL, fs)) {
        nand_close(d);
        return NULL;
    }
    if (lfs_inode_new(*fs, S_IFREG | 0644, in)) {
        logfs_unmount(*fs);
        nand_close(d);
        return NULL;
    }
    (*in)->nlink = 1;
    return d;
}

/* The check value of CRC-32/IEEE, whole and in pieces of every length. */
TEST(crc32_check_value)
{
    const char *s = "123456789";
    CHECK_EQ_INT(flashlab_crc32(0, s, 9), 0xcbf43926u);
    for (size_t k = 0; k <= 9; k++)
        CHECK_EQ_INT(flashlab_crc32(flashlab_crc32(0, s, k), s + k, 9 - k), 0xcbf43926u);
    uint8_t big[1000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    uint32_t whole = flashlab_crc32(0, big, sizeof big), parts = 0;
    for (size_t off = 0; off < sizeof big; off += 13)
        parts = flashlab_crc32(parts, big + off, off + 13 <= sizeof big ? 13 : sizeof big - off);
    CHECK_EQ_INT(parts, whole);
}

TEST(mkfs_mount_empty)
{
    nand_dev *d = make_dev(256, 16);
    REQUIRE(d);
    CHECK_EQ_INT(logfs_mkfs(d, &small_blocks), 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.commits, 1);
    CHECK_EQ_INT(st.next_ino, LFS_INO_FIRST_FREE);
    struct lfs_inode *root;
    REQUIRE(lfs_inode_get(fs, LFS_INO_ROOT, &root) == 0);
    CHECK(S_ISDIR(root->mode));
    CHECK_EQ_INT(root->nlink, 2);
    struct lfs_inode *none;
    CHECK_EQ_INT(lfs_inode_get(fs, 77, &none), -ENOENT);
    CHECK_EQ_INT(logfs_unmount(fs), 0);
    nand_close(d);
}

TEST(mount_rejects_garbage)
{
    nand_dev *d = make_dev(64, 16);
    REQUIRE(d);
    logfs *fs;
    CHECK_EQ_INT(logfs_mount(d, NULL, &fs), -EINVAL); /* never formatted */
    REQUIRE(logfs_mkfs(d, &small_blocks) == 0);
    /* wipe the anchor ring: the superblock is found, no anchor is */
    for (uint32_t b = 1; b < 8; b++)
        nand_erase(d, b, NULL);
    CHECK_EQ_INT(logfs_mount(d, NULL, &fs), -EINVAL);
    nand_close(d);
}

TEST(tree_round_trip_all_heights)
{
    logfs *fs;
    struct lfs_inode *in;
    nand_dev *d = dev_with_file(512, &fs, &in);
    REQUIRE(d);
    uint64_t ino = in->ino;
    REQUIRE(write_samples(fs, in, 1) == 0);
    CHECK_EQ_INT(in->height, 4); /* 300001 - 16 >= 64^3 */
    REQUIRE(logfs_sync(fs) == 0);
    /* overwrite half, at version 2 */
    for (size_t i = 0; i < NSAMPLE; i += 2)
        REQUIRE(write_block(fs, in, sample_bix[i], 2) == 0);
    REQUIRE(logfs_unmount(fs) == 0);

    struct logfs_options tiny = {.cache_bytes = 4096}; /* read from flash */
    REQUIRE(logfs_mount(d, &tiny, &fs) == 0);
    REQUIRE(lfs_inode_get(fs, ino, &in) == 0);
    CHECK_EQ_INT(in->height, 4);
    for (size_t i = 0; i < NSAMPLE; i++)
        CHECK_EQ_INT(check_block(fs, in, sample_bix[i], i % 2 ? 1 : 2), 1);
    CHECK_EQ_INT(check_block(fs, in, 1000, 1), 0); /* a hole */
    CHECK_EQ_INT(check_block(fs, in, 299999, 1), 0);
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    CHECK(st.cache_misses > NSAMPLE); /* indirect blocks came from flash */
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* Live bytes equal the bytes of what the tree holds, after overwrites
 * and punches; segments emptied by overwrites return to the pool. */
TEST(live_accounting_and_reuse)
{
    logfs *fs;
    struct lfs_inode *in;
    nand_dev *d = dev_with_file(128, &fs, &in);
    REQUIRE(d);
    struct logfs_stats st0, st;
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &st0);
    /* 14 blocks, all direct: each object is 512 + 48 bytes */
    for (uint32_t v = 1; v <= 200; v++) {
        for (uint64_t b = 0; b < 14; b++)
            REQUIRE(write_block(fs, in, b, v) == 0);
        REQUIRE(logfs_sync(fs) == 0);
    }
    logfs_get_stats(fs, &st);
    /* 200 rounds write ~1.5 MiB into a 4 MiB device many times over its
     * free space only if emptied segments are reused */
    CHECK_EQ_INT(st.live_bytes - st0.live_bytes, 14 * (512 + 48));
    for (uint64_t b = 0; b < 14; b += 2)
        REQUIRE(lfs_tree_punch(fs, in, b) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &st);
    CHECK_EQ_INT(st.live_bytes - st0.live_bytes, 7 * (512 + 48));
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(lfs_inode_get(fs, in ? LFS_INO_FIRST_FREE : 0, &in) == 0);
    for (uint64_t b = 0; b < 14; b++)
        CHECK_EQ_INT(check_block(fs, in, b, 200), b % 2 ? 1 : 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* Pages read by mount plus the first synced write, on a device filled
 * with n files of one block each; UINT64_MAX (and a message) on failure. */
static uint64_t mount_reads(uint32_t blocks, uint32_t files)
{
    nand_dev *d = make_dev(blocks, 64);
    logfs *fs = NULL;
    uint64_t r = UINT64_MAX;
    struct lfs_inode *in;
    struct lfs_node *n;
    int rc = d ? logfs_mkfs(d, NULL) : -ENOMEM;
    if (!rc)
        rc = logfs_mount(d, NULL, &fs);
    for (uint32_t i = 0; !rc && i < files; i++) {
        if (!(rc = lfs_inode_new(fs, S_IFREG | 0644, &in)) &&
            !(rc = lfs_tree_get(fs, in, 0, 0, 1, &n))) {
            in->nlink = 1;
            memset(n->data, 0xa5, 100);
            n->len = 100;
            lfs_node_dirty(fs, n);
            if (i % 64 == 63)
                rc = logfs_sync(fs);
        }
    }
    if (fs) {
        int urc = logfs_unmount(fs);
        rc = rc ? rc : urc;
        fs = NULL;
    }
    struct nand_stats before, after;
    if (!rc) {
        nand_get_stats(d, &before);
        rc = logfs_mount(d, NULL, &fs);
    }
    if (!rc && !(rc = lfs_inode_get(fs, LFS_INO_FIRST_FREE + files / 2, &in)) &&
        !(rc = lfs_tree_get(fs, in, 0, 0, 1, &n))) {
        n->data[0] ^= 1;
        lfs_node_dirty(fs, n);
        if (!(rc = logfs_sync(fs))) {
            nand_get_stats(d, &after);
            r = after.reads - before.reads;
        }
    }
    if (fs)
        logfs_unmount(fs);
    if (rc)
        fprintf(stderr, "mount_reads(%u, %u): error %d\n", blocks, files, rc);
    nand_close(d);
    return r;
}

TEST(mount_cost_flat)
{
    uint64_t small = mount_reads(128, 40);   /* 16 MiB, 40 files */
    uint64_t large = mount_reads(4096, 1280); /* 512 MiB, 32x the files */
    fprintf(stderr, "mount + first synced write: %" PRIu64 " reads (16 MiB), %"
            PRIu64 " reads (512 MiB)\n", small, large);
    REQUIRE(small != UINT64_MAX && large != UINT64_MAX);
    CHECK(small <= 40);
    CHECK(large <= small + 8); /* one more tree level at most */
}

/* A clean mount writes one anchor record -- one page in each mirror of
 * the ring (FORMAT.md 6.2) -- and erases nothing, wherever in the
 * ring the clean unmount's record fell (a block's last page included: the
 * record that fills a block erases the next one first); and with some
 * writes between the mounts the contents survive every cycle. */
TEST(clean_mount_erases_nothing)
{
    nand_dev *d = make_dev(128, 16); /* 16-page anchor blocks: the ring wraps */
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    int bad = 0;
    for (int cycle = 0; cycle < 80 && !bad; cycle++) {
        logfs *fs;
        struct nand_stats a, b;
        nand_get_stats(d, &a);
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
        nand_get_stats(d, &b);
        /* (mkfs's record is no unmount's: the first mount writes none) */
        if (cycle && (b.erases != a.erases || b.programs != a.programs + 2)) {
            fprintf(stderr, "mount %d: %llu erases, %llu programs\n", cycle,
                    (unsigned long long)(b.erases - a.erases),
                    (unsigned long long)(b.programs - a.programs));
            bad = 1;
        }
        char name[32];
        snprintf(name, sizeof name, "/f%d", cycle);
        int fd = logfs_open(fs, name, O_CREAT | O_WRONLY, 0644);
        bad |= fd < 0 || logfs_write(fs, fd, name, strlen(name)) != (int64_t)strlen(name) ||
               logfs_close(fs, fd) != 0;
        if (cycle % 3 == 0)
            bad |= logfs_sync(fs) != 0; /* a commit more now and then */
        struct fs_stat st;
        bad |= cycle && logfs_stat(fs, "/f0", &st) != 0;
        CHECK_EQ_INT(logfs_unmount(fs), 0);
    }
    CHECK(!bad);
    nand_close(d);
}

static int collect_name(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    (void)ino, (void)type;
    char *all = ctx;
    size_t n = strlen(all), len = strlen(name);
    if (n + len + 2 < 512) {
        memcpy(all + n, name, len);
        strcpy(all + n + len, ",");
    }
    return 0;
}

/* A bucket whose last entry claims a name longer than the bucket holds (a
 * CRC-valid but damaged directory block) is read up to that entry: the
 * entries before it are listed and found, the damaged one is neither. */
TEST(damaged_bucket_entry_is_not_read)
{
    nand_dev *d = make_dev(128, 16);
    logfs *fs;
    REQUIRE(d && logfs_mkfs(d, NULL) == 0 && logfs_mount(d, NULL, &fs) == 0);
    REQUIRE(logfs_mkdir(fs, "/d", 0755) == 0);
    static const char *const names[] = {"alpha", "beta", "gamma", "delta"};
    for (int i = 0; i < 4; i++) {
        char p[16];
        snprintf(p, sizeof p, "/d/%s", names[i]);
        int fd = logfs_open(fs, p, O_CREAT | O_WRONLY, 0644);
        REQUIRE(fd >= 0 && logfs_close(fs, fd) == 0);
    }
    struct fs_stat st;
    struct lfs_inode *dir;
    REQUIRE(logfs_stat(fs, "/d", &st) == 0 && lfs_inode_get(fs, st.ino, &dir) == 0);
    /* the fullest bucket; its last entry gets a length past the end */
    struct lfs_node *n, *best = NULL;
    for (uint64_t b = 0; b < 4096; b++)
        if (lfs_tree_get(fs, dir, 0, b, 0, &n) == 0 && n && n->len > 1 &&
            (!best || n->len > best->len))
            best = n;
    REQUIRE(best);
    uint32_t off = 1, last = 1;
    while (off + 10 <= best->len) {
        last = off;
        off += 10 + best->data[off + 9];
    }
    char victim[64];
    snprintf(victim, sizeof victim, "%.*s", best->data[last + 9], (char *)best->data + last + 10);
    best->data[last + 9] = (uint8_t)(best->len - last - 10 + 1); /* one byte too long */
    char all[512] = "";
    uint64_t cookie = 0;
    CHECK_EQ_INT(logfs_readdir(fs, "/d", &cookie, collect_name, all), 0);
    int listed = 0;
    for (int i = 0; i < 4; i++) {
        char p[16], tok[16];
        snprintf(p, sizeof p, "/d/%s", names[i]);
        snprintf(tok, sizeof tok, "%s,", names[i]);
        int gone = !strcmp(names[i], victim);
        CHECK_EQ_INT(strstr(all, tok) != NULL, !gone);
        CHECK_EQ_INT(logfs_stat(fs, p, &st), gone ? -ENOENT : 0);
        listed += !gone;
    }
    CHECK_EQ_INT(strlen(all), strlen("alpha,beta,gamma,delta,") - strlen(victim) - 1);
    CHECK_EQ_INT(listed, 3);
    logfs_unmount(fs); /* the damage is in RAM only; whatever unmount says */
    nand_close(d);
}

/* Cut the power at every state-changing flash operation of a commit that
 * rewrites every block: after power-on the fs mounts and every block is at
 * the old version or every block at the new one. */
TEST(power_cut_every_op_of_a_commit)
{
    logfs *fs;
    struct lfs_inode *in;
    nand_dev *d = dev_with_file(128, &fs, &in);
    REQUIRE(d);
    uint64_t ino = in->ino;
    REQUIRE(write_samples(fs, in, 1) == 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_snapshot *snap;
    REQUIRE(nand_snapshot_take(d, &snap) == 0);

    int olds = 0, news = 0, bad = 0;
    for (uint64_t cut = 0;; cut++) {
        REQUIRE(nand_snapshot_restore(d, snap) == 0);
        REQUIRE(logfs_mount(d, NULL, &fs) == 0);
        REQUIRE(lfs_inode_get(fs, ino, &in) == 0);
        REQUIRE(write_samples(fs, in, 2) == 0);
        nand_cut_after_ops(d, cut, -1.0);
        int rc = logfs_unmount(fs);
        nand_cut_disarm(d);
        int finished = nand_is_powered(d) && rc == 0;
        nand_power_on(d);
        if (logfs_mount(d, NULL, &fs)) {
            bad++;
            continue;
        }
        int v1 = 0, v2 = 0;
        REQUIRE(lfs_inode_get(fs, ino, &in) == 0);
        for (size_t i = 0; i < NSAMPLE; i++) {
            v1 += check_block(fs, in, sample_bix[i], 1) == 1;
            v2 += check_block(fs, in, sample_bix[i], 2) == 1;
        }
        if (v1 == (int)NSAMPLE)
            olds++;
        else if (v2 == (int)NSAMPLE)
            news++;
        else
            bad++;
        logfs_unmount(fs);
        if (finished)
            break;
    }
    fprintf(stderr, "cuts: %d old, %d new, %d bad\n", olds, news, bad);
    CHECK_EQ_INT(bad, 0);
    CHECK(olds > 10);
    CHECK(news >= 1);
    nand_snapshot_free(snap);
    nand_close(d);
}

/* ---- the anchor ring under media damage ------------------------------------ */

enum { DMG_FLIP, DMG_ECC };

/* Rewrite block b with page p damaged: DMG_FLIP changes three bytes of the
 * record (the page reads back fine, its CRC fails), DMG_ECC programs it
 * torn halfway (every read is uncorrectable).  0, or -1. */
static int damage_page(nand_dev *d, uint32_t b, uint32_t p, int kind)
{
    const struct nand_config *c = nand_get_config(d);
    uint32_t ppb = c->geo.pages_per_block, ps = c->geo.page_size;
    uint8_t *blk = malloc((size_t)ppb * ps), torn[256] = {0};
    int rc = blk && ppb <= sizeof torn ? 0 : -1;
    for (uint32_t i = 0; !rc && i < ppb; i++) {
        int r = nand_read(d, b, i, blk + (size_t)i * ps, NULL, NULL);
        torn[i] = r == NAND_E_ECC; /* damaged before: stays so */
        rc = r == NAND_OK || torn[i] ? 0 : -1;
    }
    if (!rc && !torn[p] && fx_all(blk + (size_t)p * ps, ps, 0xff))
        rc = -1; /* an erased page: nothing to damage */
    if (!rc)
        rc = nand_erase(d, b, NULL) ? -1 : 0;
    for (uint32_t i = 0; !rc && i < ppb; i++) {
        uint8_t *pg = blk + (size_t)i * ps;
        if (torn[i])
            memset(pg, 0, ps); /* torn on top of all-zero: unreadable */
        else if (fx_all(pg, ps, 0xff))
            continue;
        if (i == p && kind == DMG_FLIP) {
            pg[500] ^= 0x5a; /* inside the segment-file inode record */
            pg[501] ^= 0x01;
            pg[502] ^= 0x80;
        }
        if (torn[i] || (i == p && kind == DMG_ECC)) {
            nand_cut_after_ops(d, 0, 0.5);
            nand_program(d, b, i, pg, NULL, NULL); /* torn: the power is cut */
            nand_power_on(d);
            continue;
        }
        rc = nand_program(d, b, i, pg, NULL, NULL) ? -1 : 0;
    }
    /* the damage is what was asked for */
    if (!rc) {
        int r = nand_read(d, b, p, blk, NULL, NULL);
        rc = kind == DMG_ECC ? (r == NAND_E_ECC ? 0 : -1) : (r == NAND_OK ? 0 : -1);
    }
    free(blk);
    return rc;
}

/* Damage each programmed ring page in turn, in every ring block of both
 * mirrors, both ways (issue #21 item 1): the other mirror holds the same
 * record, so the mount finds the newest one with no fallback, and the
 * files of that commit read back right. */
TEST(ring_survives_any_damaged_page)
{
    struct ring_image ri;
    REQUIRE(ring_image(&ri) == 0);
    uint64_t seq, fb;
    REQUIRE(mount_check(&ri, &seq, &fb) == 0);
    CHECK_EQ_INT(seq, ri.newest);
    CHECK_EQ_INT(fb, 0);
    int cases = 0, bad = 0;
    for (uint32_t bi = 0; bi < 8; bi++)
        for (uint32_t p = 0; p < 16; p++)
            for (int kind = DMG_FLIP; kind <= DMG_ECC; kind++) {
                REQUIRE(nand_snapshot_restore(ri.d, ri.snap) == 0);
                uint8_t probe[2048];
                if (nand_read(ri.d, ri.blocks[bi], p, probe, NULL, NULL) == NAND_OK &&
                    fx_all(probe, sizeof probe, 0xff))
                    continue; /* erased: no record here */
                REQUIRE(damage_page(ri.d, ri.blocks[bi], p, kind) == 0);
                cases++;
                if (mount_check(&ri, &seq, &fb) || seq != ri.newest || fb != 0) {
                    fprintf(stderr, "block %u page %u %s: seq %llu (want %llu), "
                            "fallback %llu\n", ri.blocks[bi], p,
                            kind == DMG_FLIP ? "flipped" : "uncorrectable",
                            (unsigned long long)seq, (unsigned long long)ri.newest,
                            (unsigned long long)fb);
                    bad++;
                }
            }
    CHECK_EQ_INT(cases, 2 * 2 * (1 + 16 + 16 + 6));
    CHECK_EQ_INT(bad, 0);
    nand_snapshot_free(ri.snap);
    nand_close(ri.d);
}

/* The same page damaged in both mirrors: the mount finds the newest valid
 * record -- the newest of all unless the damaged page is that one, then
 * the one before it, and says so (fallback 1). */
TEST(ring_same_page_damaged_in_both_mirrors)
{
    struct ring_image ri;
    REQUIRE(ring_image(&ri) == 0);
    uint64_t seq = 0, fb = 0;
    int cases = 0, bad = 0, fell_back = 0;
    for (uint32_t bi = 0; bi < 4; bi++)
        for (uint32_t p = 0; p < 16; p++)
            for (int kind = DMG_FLIP; kind <= DMG_ECC; kind++) {
                REQUIRE(nand_snapshot_restore(ri.d, ri.snap) == 0);
                uint8_t probe[2048];
                if (nand_read(ri.d, ri.blocks[bi], p, probe, NULL, NULL) == NAND_OK &&
                    fx_all(probe, sizeof probe, 0xff))
                    continue;
                REQUIRE(damage_page(ri.d, ri.blocks[bi], p, kind) == 0);
                REQUIRE(damage_page(ri.d, ri.blocks[bi + 4], p, kind) == 0);
                cases++;
                int newest = bi == 3 && p == 5;
                uint64_t want = newest ? ri.newest - 1 : ri.newest;
                fell_back += newest;
                if (mount_check(&ri, &seq, &fb) || seq != want || fb != (uint64_t)newest) {
                    fprintf(stderr, "blocks %u and %u page %u %s: seq %llu (want "
                            "%llu), fallback %llu\n", ri.blocks[bi], ri.blocks[bi + 4],
                            p, kind == DMG_FLIP ? "flipped" : "uncorrectable",
                            (unsigned long long)seq, (unsigned long long)want,
                            (unsigned long long)fb);
                    bad++;
                }
            }
    CHECK_EQ_INT(cases, 2 * (1 + 16 + 16 + 6));
    CHECK_EQ_INT(fell_back, 2);
    CHECK_EQ_INT(bad, 0);
    nand_snapshot_free(ri.snap);
    nand_close(ri.d);
}

/* Every record of the newest logical block damaged in one mirror: the
 * other holds them, nothing is lost.  In both mirrors: the mount falls
 * back to the last record of the block before, and counts the block it
 * could not read. */
TEST(ring_whole_newest_block_damaged)
{
    struct ring_image ri;
    REQUIRE(ring_image(&ri) == 0);
    uint64_t seq, fb;
    for (uint32_t p = 0; p < 6; p++)
        REQUIRE(damage_page(ri.d, ri.blocks[3], p, p % 2 ? DMG_FLIP : DMG_ECC) == 0);
    REQUIRE(mount_check(&ri, &seq, &fb) == 0);
    CHECK_EQ_INT(seq, ri.newest);
    CHECK_EQ_INT(fb, 0);
    REQUIRE(nand_snapshot_restore(ri.d, ri.snap) == 0);
    for (uint32_t p = 0; p < 6; p++) {
        REQUIRE(damage_page(ri.d, ri.blocks[3], p, p % 2 ? DMG_FLIP : DMG_ECC) == 0);
        REQUIRE(damage_page(ri.d, ri.blocks[7], p, p % 2 ? DMG_ECC : DMG_FLIP) == 0);
    }
    REQUIRE(mount_check(&ri, &seq, &fb) == 0);
    CHECK_EQ_INT(seq, ri.newest - 6);
    CHECK(fb >= 1);
    nand_snapshot_free(ri.snap);
    nand_close(ri.d);
}

/* Pages lfs_ring_find reads (counting each read try). */
static uint64_t ring_reads(nand_dev *d, uint32_t count, const uint32_t *blocks)
{
    struct lfs_ring ring = {.version = LFS_READ_VERSION, .count = count};
    struct lfs_anchor a;
    struct nand_stats s0, s1;
    memcpy(ring.blocks, blocks, count * sizeof *blocks);
    nand_get_stats(d, &s0);
    int rc = lfs_ring_find(d, &ring, &a);
    nand_get_stats(d, &s1);
    return rc ? UINT64_MAX : s1.reads - s0.reads;
}

/* What the ring search costs: per mirror, a clean mount as before the
 * damage handling (its blocks + log2(pages_per_block) + 1), one more page
 * for a damaged page 0, and never more than the ring's pages (twice the
 * single ring's bound: two mirrors). */
TEST(ring_search_cost)
{
    struct ring_image ri;
    REQUIRE(ring_image(&ri) == 0);
    struct nand_stats s0, s1;
    logfs *fs;
    nand_get_stats(ri.d, &s0);
    REQUIRE(logfs_mount(ri.d, &(struct logfs_options){.readonly = 1}, &fs) == 0);
    nand_get_stats(ri.d, &s1);
    logfs_unmount(fs);
    uint64_t mount = s1.reads - s0.reads, clean = ring_reads(ri.d, 8, ri.blocks);
    REQUIRE(damage_page(ri.d, ri.blocks[3], 0, DMG_FLIP) == 0);
    uint64_t page0 = ring_reads(ri.d, 8, ri.blocks);
    REQUIRE(nand_snapshot_restore(ri.d, ri.snap) == 0);
    REQUIRE(damage_page(ri.d, ri.blocks[3], 0, DMG_ECC) == 0);
    uint64_t page0_ecc = ring_reads(ri.d, 8, ri.blocks);
    REQUIRE(damage_page(ri.d, ri.blocks[7], 0, DMG_ECC) == 0);
    for (uint32_t p = 1; p < 6; p++) {
        REQUIRE(damage_page(ri.d, ri.blocks[3], p, DMG_FLIP) == 0);
        REQUIRE(damage_page(ri.d, ri.blocks[7], p, DMG_FLIP) == 0);
    }
    for (uint32_t p = 0; p < 15; p++) {
        REQUIRE(damage_page(ri.d, ri.blocks[2], p, DMG_FLIP) == 0);
        REQUIRE(damage_page(ri.d, ri.blocks[6], p, DMG_FLIP) == 0);
    }
    uint64_t worst = ring_reads(ri.d, 8, ri.blocks);
    fprintf(stderr, "ring search: clean mount %" PRIu64 " reads (ring %" PRIu64
            "), page 0 flipped %" PRIu64 ", page 0 uncorrectable %" PRIu64
            ", 21 pages damaged in each mirror %" PRIu64 "\n", mount, clean, page0, page0_ecc, worst);
    CHECK_EQ_INT(clean, 2 * (4 + 4 + 1 + 1)); /* + the page after the first erased one */
    CHECK_EQ_INT(page0, clean + 1);
    CHECK_EQ_INT(page0_ecc, clean + 8); /* 8 tries, then the next page */
    CHECK(worst != UINT64_MAX && worst <= 2 * (8 * (4 + 1) * 16 + 4));
    nand_snapshot_free(ri.snap);
    nand_close(ri.d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(crc32_check_value);
    RUN(mkfs_mount_empty);
    RUN(mount_rejects_garbage);
    RUN(tree_round_trip_all_heights);
    RUN(live_accounting_and_reuse);
    RUN(mount_cost_flat);
    RUN(clean_mount_erases_nothing);
    RUN(damaged_bucket_entry_is_not_read);
    RUN(power_cut_every_op_of_a_commit);
    RUN(ring_survives_any_damaged_page);
    RUN(ring_same_page_damaged_in_both_mirrors);
    RUN(ring_whole_newest_block_damaged);
    RUN(ring_search_cost);
    return test_summary(argv[0]);
}

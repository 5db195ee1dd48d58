/*
 * test_lfs_corrupt.c -- LogFS on damaged media, the damage put there with
 * nand_corrupt (issue #21 item 2): a page of file data, an indirect block,
 * a directory, the inode file or the segment file made uncorrectable,
 * silently changed or wiped gives EIO on the files it holds and on nothing
 * else -- never wrong bytes, never a crash -- and the rest stays readable
 * and writable.  Then the anchor ring: each ring page damaged in turn, in
 * each ring block, keeps the newest commit; damage that leaves only an
 * older one is reported (anchor_fallback).
 */
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fsck.h"
#include "fixture.h"
#include "ring_image.h"

#include <errno.h>
#include <fcntl.h>

/* ---- an image with a bit of every kind of metadata ------------------------ */

#define NFILES 44 /* /a, /big, /d/x, /d/y, /f0../f39 */
#define BLOCK 512u

struct img {
    nand_dev *d;
    nand_snapshot *snap;
    char names[NFILES][16];
    uint64_t ino[NFILES], parent[NFILES];
    uint32_t size[NFILES];
    uint64_t ino_big, ino_d, ino_a;
};

static void content(uint8_t *buf, uint32_t n, int i)
{
    uint64_t s = (uint64_t)i * 7919 + 17;
    for (uint32_t k = 0; k < n; k++)
        buf[k] = (uint8_t)(fx_next(&s) >> 24);
}

static int put(logfs *fs, const char *name, uint32_t n, int i)
{
    uint8_t buf[40 * BLOCK];
    content(buf, n, i);
    int fd = logfs_open(fs, name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return fd;
    int64_t w = logfs_write(fs, fd, buf, n);
    logfs_close(fs, fd);
    return w == (int64_t)n ? 0 : -EIO;
}

static int make_img(struct img *im)
{
    memset(im, 0, sizeof *im);
    im->d = FX_DEVICE(.blocks = 128, .pages = 32, .quiet = 1, .seed = 31);
    logfs *fs;
    if (!im->d || logfs_mkfs(im->d, &(struct logfs_options){.block_size = BLOCK}) ||
        logfs_mount(im->d, NULL, &fs) || logfs_mkdir(fs, "/d", 0755))
        return -1;
    int n = 0;
    snprintf(im->names[n], 16, "/a"), im->size[n++] = 700;
    snprintf(im->names[n], 16, "/big"), im->size[n++] = 40 * BLOCK;
    snprintf(im->names[n], 16, "/d/x"), im->size[n++] = 300;
    snprintf(im->names[n], 16, "/d/y"), im->size[n++] = 900;
    for (int i = 0; i < 40; i++)
        snprintf(im->names[n], 16, "/f%d", i), im->size[n++] = 100 + i;
    struct fs_stat st;
    if (logfs_stat(fs, "/d", &st))
        return -1;
    im->ino_d = st.ino;
    for (int i = 0; i < NFILES; i++) {
        if (put(fs, im->names[i], im->size[i], i) || logfs_stat(fs, im->names[i], &st))
            return -1;
        im->ino[i] = st.ino;
        im->parent[i] = strncmp(im->names[i], "/d/", 3) ? LFS_INO_ROOT : im->ino_d;
    }
    /* a file written and removed: the segments holding the files above
     * are closed (the cleaner takes no open one) and partly dead */
    for (int k = 0; k < 8; k++) {
        char name[24];
        snprintf(name, sizeof name, "/filler%d", k);
        if (put(fs, name, 40 * BLOCK, 1000 + k))
            return -1;
    }
    if (logfs_sync(fs))
        return -1;
    for (int k = 0; k < 8; k++) {
        char name[24];
        snprintf(name, sizeof name, "/filler%d", k);
        if (logfs_unlink(fs, name))
            return -1;
    }
    im->ino_a = im->ino[0];
    im->ino_big = im->ino[1];
    if (logfs_unmount(fs))
        return -1;
    return nand_snapshot_take(im->d, &im->snap);
}

/* ---- where objects are: a walk over the segments -------------------------- */

struct found {
    uint32_t block, off, total; /* object at byte off of erase block `block` */
    struct lfs_obj o;
};

#define MAXOBJ 4096
static struct found objs[MAXOBJ];
static int nobjs;

/* Every object on the device, live or not.  Objects follow each other
 * from byte 0 of a segment; a commit pads to the next page.  0, or -1. */
static int walk(nand_dev *d)
{
    const struct nand_config *c = nand_get_config(d);
    uint32_t ps = c->geo.page_size, ppb = c->geo.pages_per_block;
    uint32_t sb = ps * ppb;
    uint8_t *blk = malloc(sb);
    logfs *fs;
    nobjs = 0;
    if (!blk || logfs_mount(d, &(struct logfs_options){.readonly = 1}, &fs)) {
        free(blk);
        return -1;
    }
    for (uint32_t b = 0; b < nand_blocks(c); b++) {
        if (strcmp(logfs_block_role(fs, b), "segment"))
            continue;
        for (uint32_t p = 0; p < ppb; p++)
            if (nand_read(d, b, p, blk + (size_t)p * ps, NULL, NULL))
                memset(blk + (size_t)p * ps, 0xff, ps);
        for (uint32_t off = 0; off + LFS_OBJ_HDR <= sb && nobjs < MAXOBJ;) {
            struct lfs_obj o;
            if (lfs_obj_decode(blk + off, &o) || off + LFS_OBJ_HDR + o.len > sb) {
                off = (off / ps + 1) * ps;
                continue;
            }
            objs[nobjs++] = (struct found){b, off, LFS_OBJ_HDR + o.len, o};
            off += LFS_OBJ_HDR + o.len;
        }
    }
    logfs_unmount(fs);
    free(blk);
    return 0;
}

/* Whether objs[i] is the newest copy of its block (the live one: the
 * image is freshly unmounted, nothing deleted). */
static int is_newest(int i)
{
    for (int j = 0; j < nobjs; j++)
        if (objs[j].o.type == objs[i].o.type && objs[j].o.ino == objs[i].o.ino &&
            objs[j].o.level == objs[i].o.level && objs[j].o.bix == objs[i].o.bix &&
            objs[j].o.seq > objs[i].o.seq)
            return 0;
    return 1;
}

/* The live object of type/ino/level (bix: any if -1; the largest then). */
static const struct found *live(uint8_t type, uint64_t ino, uint8_t level,
                                int64_t bix)
{
    const struct found *best = NULL;
    for (int i = 0; i < nobjs; i++)
        if (objs[i].o.type == type && objs[i].o.ino == ino &&
            objs[i].o.level == level && (bix < 0 || objs[i].o.bix == (uint64_t)bix) &&
            is_newest(i) && (!best || objs[i].total > best->total))
            best = &objs[i];
    return best;
}

static uint32_t mid_page(const struct found *f, uint32_t ps)
{
    return (f->off + LFS_OBJ_HDR + (f->total - LFS_OBJ_HDR) / 2) / ps;
}

/* The inodes a damaged page can break: of each live object on it, its
 * file (data, indirect), the inode it holds (inode-file blocks), or
 * every inode (inode-file indirect blocks, segment file: -1). */
static int page_hits(uint32_t block, uint32_t page, uint32_t ps, uint64_t *hit, int max)
{
    int n = 0;
    for (int i = 0; i < nobjs && n < max; i++) {
        const struct found *f = &objs[i];
        if (f->block != block || f->off >= (page + 1) * ps ||
            f->off + f->total <= page * ps || !is_newest(i))
            continue;
        if (f->o.ino == LFS_INO_INODEFILE && f->o.type == LFS_OBJ_INODE)
            hit[n++] = f->o.bix; /* an inode: bix is its number */
        else if (f->o.ino == LFS_INO_INODEFILE || f->o.ino == LFS_INO_SEGFILE)
            hit[n++] = (uint64_t)-1;
        else
            hit[n++] = f->o.ino;
    }
    return n;
}

/* ---- the outcome of a damaged mount ---------------------------------------- */

struct outcome {
    int mounted, readonly;
    int ok[NFILES], eio[NFILES], wrong, other_err;
    int wrote; /* 0: a new file written, synced and read back; -EIO; other */
};

static int deleted[NFILES]; /* files a test unlinked: not read */

static void read_all(logfs *fs, const struct img *im, struct outcome *r)
{
    static uint8_t want[40 * BLOCK], got[40 * BLOCK + 1];
    for (int i = 0; i < NFILES; i++) {
        if (deleted[i])
            continue;
        content(want, im->size[i], i);
        int fd = logfs_open(fs, im->names[i], O_RDONLY, 0);
        int64_t n = fd;
        if (fd >= 0) {
            n = logfs_pread(fs, fd, got, sizeof got, 0);
            logfs_close(fs, fd);
        }
        if (n == (int64_t)im->size[i] && !memcmp(got, want, im->size[i]))
            r->ok[i] = 1;
        else if (n == -EIO)
            r->eio[i] = 1;
        else if (n >= 0) {
            fprintf(stderr, "%s: WRONG BYTES (%lld bytes)\n", im->names[i], (long long)n);
            r->wrong++;
        } else {
            fprintf(stderr, "%s: error %lld\n", im->names[i], (long long)n);
            r->other_err++;
        }
    }
}

static void mount_and_read(struct img *im, struct outcome *r)
{
    memset(r, 0, sizeof *r);
    logfs *fs;
    if (logfs_mount(im->d, NULL, &fs))
        return;
    r->mounted = 1;
    r->readonly = fs->readonly;
    read_all(fs, im, r);
    /* a change elsewhere: a new file in a new directory */
    int rc = logfs_mkdir(fs, "/new", 0755);
    if (!rc)
        rc = put(fs, "/new/file", 1000, 99);
    if (!rc)
        rc = logfs_sync(fs);
    logfs_unmount(fs); /* may fail after a failed commit */
    if (!rc && !logfs_mount(im->d, NULL, &fs)) {
        uint8_t want[1000], got[1001];
        content(want, 1000, 99);
        int fd = logfs_open(fs, "/new/file", O_RDONLY, 0);
        int64_t n = fd >= 0 ? logfs_pread(fs, fd, got, sizeof got, 0) : fd;
        rc = n == 1000 && !memcmp(got, want, 1000) ? 0 : n < 0 ? (int)n : -1;
        if (rc == -1)
            r->wrong++;
        if (fd >= 0)
            logfs_close(fs, fd);
        logfs_unmount(fs);
    }
    r->wrote = rc;
}

/* Damage the page holding the middle of object f's payload. */
static int damage(struct img *im, const struct found *f, enum nand_corrupt_mode m)
{
    uint32_t ps = nand_get_config(im->d)->geo.page_size;
    uint32_t mid = f->off + LFS_OBJ_HDR + (f->total - LFS_OBJ_HDR) / 2;
    struct nand_corrupt c = {.mode = m, .block = f->block, .page = mid / ps,
                             .offset = mid % ps, .length = 1, .bits = 1,
                             .seed = 5, .frac = 0.5};
    char err[200];
    int rc = nand_corrupt(im->d, &c, err, sizeof err);
    if (rc)
        fprintf(stderr, "nand_corrupt: %s\n", err);
    return rc;
}

static const enum nand_corrupt_mode modes[] = {
    NAND_CORRUPT_UNCORRECTABLE, NAND_CORRUPT_SILENT, NAND_CORRUPT_WIPE,
    NAND_CORRUPT_BEYOND, NAND_CORRUPT_TEAR,
};
static const char *const mode_name[] = {"uncorrectable", "silent", "wipe",
                                        "beyond", "tear"};
#define NMODES (int)(sizeof modes / sizeof modes[0])

/* Files that must read back right: not `hit` and not in a hit directory. */
static int check_spared(const struct img *im, const struct outcome *r,
                        const uint64_t *hit, int nhit, const char *what)
{
    int bad = 0;
    for (int i = 0; i < NFILES; i++) {
        int touched = 0;
        for (int h = 0; h < nhit; h++)
            touched |= hit[h] == (uint64_t)-1 || im->ino[i] == hit[h] ||
                        im->parent[i] == hit[h] || hit[h] == LFS_INO_ROOT;
        if (!touched && !r->ok[i]) {
            fprintf(stderr, "%s: %s should be untouched\n", what, im->names[i]);
            bad++;
        }
    }
    return bad;
}


/* Damage the live object f's middle page every way; the file at index
 * `target` (-1: none) must give EIO, files the page does not hold must
 * read right, nothing may read wrong.  Returns the failures. */
static int damage_class(struct img *im, const char *what, const struct found *f,
                        int target, int *readonly_mounts)
{
    uint32_t ps = nand_get_config(im->d)->geo.page_size;
    uint64_t hit[64];
    int nhit = page_hits(f->block, mid_page(f, ps), ps, hit, 64), bad = 0;
    for (int m = 0; m < NMODES; m++) {
        char label[96];
        snprintf(label, sizeof label, "%s, %s (block %u page %u)", what, mode_name[m],
                 f->block, mid_page(f, ps));
        if (nand_snapshot_restore(im->d, im->snap) || damage(im, f, modes[m]))
            return bad + 1;
        struct outcome r;
        mount_and_read(im, &r);
        if (!r.mounted) {
            fprintf(stderr, "%s: mount refused\n", label);
            bad++;
            continue;
        }
        *readonly_mounts += r.readonly;
        if (getenv("LFS_CORRUPT_VERBOSE")) {
            int ok = 0, eio = 0;
            for (int i = 0; i < NFILES; i++)
                ok += r.ok[i], eio += r.eio[i];
            fprintf(stderr, "%s: %d ok, %d EIO, %s, write elsewhere %d\n", label, ok,
                    eio, r.readonly ? "read-only" : "read-write", r.wrote);
        }
        if (r.wrong || r.other_err || (target >= 0 && !r.eio[target])) {
            fprintf(stderr, "%s: wrong %d, other errors %d, target %s\n", label,
                    r.wrong, r.other_err, target < 0 ? "-" : r.eio[target] ? "EIO" : "not EIO");
            bad++;
        }
        bad += check_spared(im, &r, hit, nhit, label);
        if (r.wrote != 0 && !(r.wrote == -EIO || r.wrote == -EROFS)) {
            fprintf(stderr, "%s: writing elsewhere gave %d\n", label, r.wrote);
            bad++;
        }
        if (r.wrote != 0 && !r.readonly && target >= 0)
            fprintf(stderr, "%s: note: writing elsewhere gave %d\n", label, r.wrote);
    }
    return bad;
}

static struct img im;

TEST(file_data_page_damaged)
{
    REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
    const struct found *f = live(LFS_OBJ_DATA, im.ino_a, 0, 1);
    REQUIRE(f);
    int ro = 0;
    CHECK_EQ_INT(damage_class(&im, "data of /a", f, 0, &ro), 0);
    f = live(LFS_OBJ_DATA, im.ino_big, 0, 30); /* below an indirect block */
    REQUIRE(f);
    CHECK_EQ_INT(damage_class(&im, "data of /big", f, 1, &ro), 0);
    CHECK_EQ_INT(ro, 0);
}

TEST(indirect_block_damaged)
{
    REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
    const struct found *f = live(LFS_OBJ_INDIRECT, im.ino_big, 1, -1);
    REQUIRE(f);
    int ro = 0;
    CHECK_EQ_INT(damage_class(&im, "indirect of /big", f, 1, &ro), 0);
    CHECK_EQ_INT(ro, 0);
}

TEST(directory_block_damaged)
{
    REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
    const struct found *f = live(LFS_OBJ_DATA, im.ino_d, 0, -1);
    REQUIRE(f);
    int ro = 0;
    /* /d/x and /d/y may be in one bucket or two: no single target */
    CHECK_EQ_INT(damage_class(&im, "directory /d", f, -1, &ro), 0);
    CHECK_EQ_INT(ro, 0);
}

TEST(inode_file_block_damaged)
{
    REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
    int t = NFILES - 1; /* /f39: an inode far from the root's */
    const struct found *f = live(LFS_OBJ_INODE, LFS_INO_INODEFILE, 0,
                                 (int64_t)im.ino[t]);
    REQUIRE(f);
    int ro = 0;
    CHECK_EQ_INT(damage_class(&im, "inode of /f39", f, t, &ro), 0);
    CHECK_EQ_INT(ro, 0);
}

TEST(segment_file_block_damaged)
{
    REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
    const struct found *f = live(LFS_OBJ_DATA, LFS_INO_SEGFILE, 0, -1);
    REQUIRE(f);
    int ro = 0;
    CHECK_EQ_INT(damage_class(&im, "segment file", f, -1, &ro), 0);
}

/* Damage the page of every live object of type/ino (all levels). */
static int damage_all(uint8_t type, uint64_t ino, enum nand_corrupt_mode m)
{
    int n = 0;
    for (int i = 0; i < nobjs; i++)
        if (objs[i].o.type == type && objs[i].o.ino == ino && is_newest(i)) {
            if (damage(&im, &objs[i], m))
                return -1;
            n++;
        }
    return n;
}

/* A live block of /big in 25..36 whose object crosses a page boundary
 * with its header whole in the first page: the cleaner checks and copies
 * such an object from the two pages as read, not gathered first. */
static const struct found *split_object(uint32_t ps)
{
    for (int64_t bix = 25; bix <= 36; bix++) {
        const struct found *f = live(LFS_OBJ_DATA, im.ino_big, 0, bix);
        if (f && f->off % ps + LFS_OBJ_HDR <= ps && f->off % ps + f->total > ps)
            return f;
    }
    return NULL;
}

/* The cleaner meets a segment with an unreadable or silently changed
 * object: it moves the rest, leaves that one where it is (it stays EIO,
 * nothing garbage is copied), does not crash, and writing goes on.  The
 * last round changes a byte of an object across a page boundary, in its
 * second page. */
TEST(cleaner_skips_unreadable_objects)
{
    uint32_t ps = nand_get_config(im.d)->geo.page_size;
    for (int m = 0; m < 4; m++) {
        REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
        const struct found *f = m < 3 ? live(LFS_OBJ_DATA, im.ino_big, 0, 30) : split_object(ps);
        REQUIRE(f);
        uint64_t bad_bix = f->o.bix;
        if (m < 3) {
            REQUIRE(damage(&im, f, m == 0 ? NAND_CORRUPT_UNCORRECTABLE
                                   : m == 1 ? NAND_CORRUPT_SILENT : NAND_CORRUPT_WIPE) == 0);
        } else {
            uint32_t last = f->off + f->total - 1;
            struct nand_corrupt c = {.mode = NAND_CORRUPT_SILENT, .block = f->block,
                                     .page = last / ps, .offset = last % ps, .length = 1,
                                     .bits = 1, .seed = 5};
            char err[200];
            REQUIRE(nand_corrupt(im.d, &c, err, sizeof err) == 0);
        }
        logfs *fs;
        REQUIRE(logfs_mount(im.d, NULL, &fs) == 0);
        /* half the small files go, the others and /big's first blocks are
         * written again: the damaged segment is left mostly dead, a
         * victim the cleaner takes */
        for (int i = 4; i < NFILES; i += 2)
            REQUIRE(logfs_unlink(fs, im.names[i]) == 0 && (deleted[i] = 1));
        for (int i = 0; i < NFILES; i++)
            if (i != 1 && !deleted[i])
                REQUIRE(put(fs, im.names[i], im.size[i], i) == 0);
        uint8_t big[40 * BLOCK];
        content(big, sizeof big, 1);
        int bfd = logfs_open(fs, "/big", O_WRONLY, 0);
        REQUIRE(bfd >= 0);
        REQUIRE(logfs_pwrite(fs, bfd, big, 20 * BLOCK, 0) == 20 * BLOCK);
        logfs_close(fs, bfd);
        REQUIRE(logfs_sync(fs) == 0);
        struct logfs_stats st;
        for (int k = 0; k < 100; k++) { /* until the cleaner has met it */
            CHECK_EQ_INT(lfs_gc(fs, (uint32_t)fs->an.free_segments + 200, fs->g.seg_bytes), 0);
            logfs_get_stats(fs, &st);
            if (st.gc_unreadable)
                break;
        }
        /* what is left in the damaged segment: the objects on the page */
        CHECK(fs->segtab.e && fs->segtab.e[f->block].live <= 2 * 2048);
        CHECK(fs->segtab.flags[f->block] & LFS_SEGT_UNREADABLE);
        CHECK(st.gc_rounds > 0);
        CHECK(st.gc_unreadable > 0);
        /* again: the marked segment is not taken twice */
        uint64_t before = st.gc_unreadable;
        CHECK_EQ_INT(lfs_gc(fs, (uint32_t)fs->an.free_segments + 200, fs->g.seg_bytes), 0);
        logfs_get_stats(fs, &st);
        CHECK_EQ_INT(st.gc_unreadable, before);
        REQUIRE(put(fs, "/after", 5000, 77) == 0);
        REQUIRE(logfs_unmount(fs) == 0);
        REQUIRE(logfs_mount(im.d, NULL, &fs) == 0);
        struct outcome r;
        memset(&r, 0, sizeof r);
        read_all(fs, &im, &r);
        CHECK_EQ_INT(r.wrong, 0);
        CHECK(r.eio[1]); /* /big */
        for (int i = 0; i < NFILES; i++)
            if (i != 1 && (i < 4 || i % 2))
                CHECK(r.ok[i]);
        /* /big's blocks away from the damaged page, moved by the cleaner */
        uint8_t want[40 * BLOCK], got[24 * BLOCK];
        content(want, 40 * BLOCK, 1);
        int fd = logfs_open(fs, "/big", O_RDONLY, 0);
        REQUIRE(fd >= 0);
        CHECK(logfs_pread(fs, fd, got, sizeof got, 0) == (int64_t)sizeof got);
        CHECK(memcmp(got, want, sizeof got) == 0);
        CHECK(logfs_pread(fs, fd, got, 3 * BLOCK, 37 * BLOCK) == 3 * BLOCK);
        CHECK(memcmp(got, want + 37 * BLOCK, 3 * BLOCK) == 0);
        CHECK(logfs_pread(fs, fd, got, BLOCK, bad_bix * BLOCK) == -EIO);
        logfs_close(fs, fd);
        CHECK_EQ_INT(logfs_unmount(fs), 0);
    }
    memset(deleted, 0, sizeof deleted);
}

/* Every block of the segment file unreadable: file reads do not need it
 * and go on; the first change that needs it fails with EIO and turns the
 * mount read-only (segfile_unreadable), later ones get EROFS; unmount
 * reports the changes it could not commit. */
TEST(segment_file_unreadable)
{
    for (int m = 0; m < 2; m++) {
        REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
        REQUIRE(damage_all(LFS_OBJ_DATA, LFS_INO_SEGFILE,
                           m ? NAND_CORRUPT_SILENT : NAND_CORRUPT_UNCORRECTABLE) > 0);
        logfs *fs;
        REQUIRE(logfs_mount(im.d, NULL, &fs) == 0);
        struct outcome r;
        memset(&r, 0, sizeof r);
        read_all(fs, &im, &r);
        CHECK_EQ_INT(r.wrong, 0);
        for (int i = 0; i < NFILES; i++)
            CHECK(r.ok[i]);
        int rc = 0;
        for (int i = 4; i < NFILES && !rc; i++) /* until the segment file is needed */
            if (!(rc = logfs_unlink(fs, im.names[i])))
                rc = logfs_sync(fs);
        CHECK(rc == -EIO || rc == -EROFS);
        struct logfs_stats st;
        logfs_get_stats(fs, &st);
        CHECK(st.segfile_unreadable > 0);
        CHECK_EQ_INT(put(fs, "/after", 100, 1), -EROFS);
        CHECK_EQ_INT(logfs_mkdir(fs, "/x", 0755), -EROFS);
        memset(&r, 0, sizeof r);
        read_all(fs, &im, &r);
        CHECK_EQ_INT(r.wrong, 0);
        CHECK_EQ_INT(r.other_err, 0); /* the failed unlink is not committed */
        logfs_unmount(fs);
        /* nothing of the failed change reached flash: all files are there */
        REQUIRE(logfs_mount(im.d, &(struct logfs_options){.readonly = 1}, &fs) == 0);
        memset(&r, 0, sizeof r);
        read_all(fs, &im, &r);
        CHECK_EQ_INT(r.wrong, 0);
        CHECK_EQ_INT(r.other_err, 0);
        logfs_unmount(fs);
    }
}

/* A failed commit: RAM matches no commit on flash any more, so every
 * later change is refused with EIO instead of being lost at unmount. */
TEST(changes_after_a_failed_commit_give_eio)
{
    REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(im.d, NULL, &fs) == 0);
    REQUIRE(put(fs, "/pending", 3000, 5) == 0);
    nand_power_cut(im.d); /* the commit's first program fails */
    CHECK(logfs_sync(fs) < 0);
    CHECK(fs->failed);
    nand_power_on(im.d);
    CHECK_EQ_INT(put(fs, "/later", 100, 6), -EIO);
    CHECK_EQ_INT(logfs_mkdir(fs, "/dir", 0755), -EIO);
    CHECK_EQ_INT(logfs_unlink(fs, "/a"), -EIO);
    CHECK_EQ_INT(logfs_rename(fs, "/a", "/b2"), -EIO);
    int fd = logfs_open(fs, "/a", O_WRONLY, 0);
    CHECK_EQ_INT(fd, -EIO);
    fd = logfs_open(fs, "/a", O_RDONLY, 0);
    CHECK(fd >= 0);
    uint8_t buf[700], want[700];
    content(want, 700, 0);
    CHECK(logfs_pread(fs, fd, buf, 700, 0) == 700 && !memcmp(buf, want, 700));
    logfs_close(fs, fd);
    CHECK_EQ_INT(logfs_unmount(fs), -EIO); /* /pending is lost, and says so */
}

/* Seeded random damage: 80 cases of a random mode on a random programmed
 * segment page (seed 2126, printed on failure).  Whatever is hit, a
 * mount works, nothing reads wrong, no error but EIO appears, and a
 * change elsewhere works or gives EIO/EROFS. */
TEST(random_damage_never_reads_wrong)
{
    REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
    uint32_t ps = nand_get_config(im.d)->geo.page_size;
    uint64_t rng = 2126;
    int bad = 0, ran = 0;
    for (int k = 0; k < 80; k++) {
        const struct found *f = &objs[fx_next(&rng) % (uint64_t)nobjs];
        uint32_t page = (f->off + (uint32_t)(fx_next(&rng) % f->total)) / ps;
        int mi = (int)(fx_next(&rng) % NMODES);
        enum nand_corrupt_mode m = modes[mi];
        REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0);
        struct nand_corrupt c = {.mode = m, .block = f->block, .page = page,
                                 .offset = (uint32_t)(fx_next(&rng) % ps), .bits = 3,
                                 .frac = 0.5, .seed = rng};
        if (nand_corrupt(im.d, &c, NULL, 0))
            continue; /* an erased page */
        ran++;
        struct outcome r;
        mount_and_read(&im, &r);
        if (!r.mounted || r.wrong || r.other_err ||
            (r.wrote && r.wrote != -EIO && r.wrote != -EROFS)) {
            fprintf(stderr, "case %d (seed 2126): %s block %u page %u: mounted %d, "
                    "wrong %d, other errors %d, write %d\n", k, mode_name[mi],
                    f->block, page, r.mounted, r.wrong, r.other_err, r.wrote);
            bad++;
        }
    }
    CHECK(ran >= 60);
    CHECK_EQ_INT(bad, 0);
}

/* fsck lists what a damaged page breaks: an error naming the page, and
 * the file whose block it was. */
TEST(fsck_lists_the_damage)
{
    struct { const char *what; uint8_t type; uint64_t ino; uint8_t level; int64_t bix;
             int64_t want_ino; } cases[] = {
        {"data of /big", LFS_OBJ_DATA, im.ino_big, 0, 30, (int64_t)im.ino_big},
        {"indirect of /big", LFS_OBJ_INDIRECT, im.ino_big, 1, -1, (int64_t)im.ino_big},
        {"directory /d", LFS_OBJ_DATA, im.ino_d, 0, -1, (int64_t)im.ino_d},
        {"inode of /f39", LFS_OBJ_INODE, LFS_INO_INODEFILE, 0, (int64_t)im.ino[NFILES - 1],
         (int64_t)im.ino[NFILES - 1]},
        {"segment file", LFS_OBJ_DATA, LFS_INO_SEGFILE, 0, -1, -1},
    };
    uint32_t ps = nand_get_config(im.d)->geo.page_size;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int m = 0; m < 2; m++) {
            REQUIRE(nand_snapshot_restore(im.d, im.snap) == 0 && walk(im.d) == 0);
            const struct found *f = live(cases[k].type, cases[k].ino, cases[k].level,
                                         cases[k].bix);
            REQUIRE(f);
            REQUIRE(damage(&im, f, m ? NAND_CORRUPT_SILENT : NAND_CORRUPT_UNCORRECTABLE) == 0);
            struct fsck_report rep;
            int st = fsck_run(im.d, 0, &rep);
            int page_named = 0, ino_named = cases[k].want_ino < 0;
            for (size_t i = 0; i < rep.nmsgs; i++) {
                const struct fsck_msg *msg = &rep.msgs[i];
                if (msg->severity != FSCK_ERROR)
                    continue;
                page_named |= msg->block == f->block &&
                              (msg->page == FSCK_NONE || msg->page == mid_page(f, ps) ||
                               msg->page == (int64_t)(f->off / ps));
                ino_named |= msg->ino == cases[k].want_ino;
                if (getenv("LFS_CORRUPT_VERBOSE"))
                    fprintf(stderr, "%s: %s\n", cases[k].what, msg->text);
            }
            if (st != FSCK_ERRORS || !page_named || !ino_named)
                fprintf(stderr, "%s %s: fsck status %d, page named %d, inode named %d\n",
                        cases[k].what, m ? "silent" : "uncorrectable", st, page_named,
                        ino_named);
            CHECK_EQ_INT(st, FSCK_ERRORS);
            CHECK(page_named);
            CHECK(ino_named);
            fsck_report_free(&rep);
        }
}

/* ---- the anchor ring, damaged with nand_corrupt ---------------------------- */

static const enum nand_corrupt_mode ring_modes[] = {
    NAND_CORRUPT_UNCORRECTABLE, NAND_CORRUPT_SILENT, NAND_CORRUPT_WIPE,
};
static const char *const ring_mode_name[] = {"uncorrectable", "silent", "wipe"};

/* Damage ring block b page p: silent changes one bit of the record. */
static int ring_damage(nand_dev *d, uint32_t b, uint32_t p, enum nand_corrupt_mode m)
{
    struct nand_corrupt c = {.mode = m, .block = b, .page = p, .bits = 1,
                             .offset = 24, .length = 500, .seed = b * 100 + p};
    return nand_corrupt(d, &c, NULL, 0);
}

static int ring_programmed(nand_dev *d, uint32_t b, uint32_t p)
{
    uint8_t probe[2048];
    return !(nand_read(d, b, p, probe, NULL, NULL) == NAND_OK &&
             fx_all(probe, sizeof probe, 0xff));
}

/* Each programmed ring page damaged in turn, every mode, in every block of
 * both mirrors: the other mirror holds the same record, so the mount
 * finds the newest commit, with no fallback, and its files read right. */
TEST(ring_any_damaged_page_keeps_the_newest_commit)
{
    struct ring_image ri;
    REQUIRE(ring_image(&ri) == 0);
    int cases = 0, bad = 0;
    for (uint32_t bi = 0; bi < 8; bi++)
        for (uint32_t p = 0; p < 16; p++)
            for (int m = 0; m < 3; m++) {
                REQUIRE(nand_snapshot_restore(ri.d, ri.snap) == 0);
                if (!ring_programmed(ri.d, ri.blocks[bi], p))
                    continue;
                REQUIRE(ring_damage(ri.d, ri.blocks[bi], p, ring_modes[m]) == 0);
                cases++;
                uint64_t seq = 0, fb = 0;
                if (mount_check(&ri, &seq, &fb) || seq != ri.newest || fb) {
                    fprintf(stderr, "ring block %u page %u %s: seq %llu (want %llu), "
                            "fallback %llu\n", ri.blocks[bi], p, ring_mode_name[m],
                            (unsigned long long)seq, (unsigned long long)ri.newest,
                            (unsigned long long)fb);
                    bad++;
                }
            }
    CHECK_EQ_INT(cases, 3 * 2 * (1 + 16 + 16 + 6));
    CHECK_EQ_INT(bad, 0);
    nand_snapshot_free(ri.snap);
    nand_close(ri.d);
}

/* The same page damaged in both mirrors.  Unreadable or changed: the
 * newest valid record is found, and when that is not the newest commit
 * the mount says so (anchor_fallback).  Wiped: a wiped last record looks
 * exactly like one a power cut kept from being written (docs/FORMAT.md),
 * so the one before it is the state found, without a flag; any other
 * wiped page leaves the newest commit. */
TEST(ring_same_page_in_both_mirrors_says_so)
{
    struct ring_image ri;
    REQUIRE(ring_image(&ri) == 0);
    int cases = 0, bad = 0, flagged = 0;
    for (uint32_t bi = 0; bi < 4; bi++)
        for (uint32_t p = 0; p < 16; p++)
            for (int m = 0; m < 3; m++) {
                REQUIRE(nand_snapshot_restore(ri.d, ri.snap) == 0);
                if (!ring_programmed(ri.d, ri.blocks[bi], p))
                    continue;
                REQUIRE(ring_damage(ri.d, ri.blocks[bi], p, ring_modes[m]) == 0);
                REQUIRE(ring_damage(ri.d, ri.blocks[bi + 4], p, ring_modes[m]) == 0);
                cases++;
                int newest = bi == 3 && p == 5;
                uint64_t want = newest ? ri.newest - 1 : ri.newest;
                uint64_t want_fb = newest && ring_modes[m] != NAND_CORRUPT_WIPE;
                uint64_t seq = 0, fb = 0;
                int rc = mount_check(&ri, &seq, &fb);
                flagged += fb != 0;
                if (rc || seq != want || (fb != 0) != (want_fb != 0)) {
                    fprintf(stderr, "ring blocks %u+%u page %u %s: seq %llu (want %llu), "
                            "fallback %llu\n", ri.blocks[bi], ri.blocks[bi + 4], p,
                            ring_mode_name[m], (unsigned long long)seq,
                            (unsigned long long)want, (unsigned long long)fb);
                    bad++;
                }
            }
    CHECK_EQ_INT(cases, 3 * (1 + 16 + 16 + 6));
    CHECK_EQ_INT(flagged, 2);
    CHECK_EQ_INT(bad, 0);
    nand_snapshot_free(ri.snap);
    nand_close(ri.d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (make_img(&im)) {
        fprintf(stderr, "cannot build the test image\n");
        return 1;
    }
    RUN(file_data_page_damaged);
    RUN(indirect_block_damaged);
    RUN(directory_block_damaged);
    RUN(inode_file_block_damaged);
    RUN(segment_file_block_damaged);
    RUN(cleaner_skips_unreadable_objects);
    RUN(segment_file_unreadable);
    RUN(changes_after_a_failed_commit_give_eio);
    RUN(random_damage_never_reads_wrong);
    RUN(fsck_lists_the_damage);
    RUN(ring_any_damaged_page_keeps_the_newest_commit);
    RUN(ring_same_page_in_both_mirrors_says_so);
    nand_snapshot_free(im.snap);
    nand_close(im.d);
    return test_summary(argv[0]);
}

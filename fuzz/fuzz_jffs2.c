/*
 * fuzz_jffs2.c -- foreign JFFS2 images (mkfs.jffs2, sumtool, Linux) through
 * the JFFS2 kinds (fs/jffs2/, behind fs/fsapi.h): mount, walk, read, and
 * optionally write, remount and walk again.
 *
 * Input: a flag byte, then chunks placed on a tiny device (12 blocks of 16
 * pages of 2048 + 64 bytes: 32 KiB erase blocks, mkfs.jffs2 -e 0x8000
 * -s 0x800 -n), which starts erased:
 *   flags bit 0   mount as jffs2-summary (else jffs2-scan)
 *         bit 1   after the walk: write (mkdir, create, pwrite, rename,
 *                 symlink, truncate, unlink), unmount, mount and walk again
 *         bit 2   a part that allows one program per page (no cleanmarkers)
 *         bit 3   then fix every CRC of every node found (header, node,
 *                 data, name, summary), so that damage gets past the CRC
 *                 checks and into the parsers
 *   chunk: block (u8), offset (u16 LE), length (u16 LE), then the bytes
 *     block bit 7   the bytes go to page 0's OOB of block & 127 (where the
 *                   cleanmarker is), at offset mod the OOB size
 *     block & 127 and offset are taken modulo the device, the length is
 *     clipped to the block (and to the input).
 * Every page that is not all 0xFF is then programmed.  Errors from the
 * file system are expected; crashes, sanitizer reports, leaks and hangs
 * are bugs, and so is a read or readlink returning more than asked for.
 * The seeds in fuzz/corpus/jffs2/ are mkfs.jffs2 and sumtool images and
 * one flashlab wrote, cut into chunks by scripts/jffs2-fuzz-seed.py.
 */
#include "fsapi.h"
#include "harness.h"
#include "jffs2/jffs.h"
#include "nand.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FJ "jffs2"
#define FJ_BLOCKS 12u
#define FJ_PPB 16u
#define FJ_PS 2048u
#define FJ_OS 64u
#define FJ_BS (FJ_PS * FJ_PPB)
#define FJ_MAX_DEPTH 6
#define FJ_MAX_NAMES 200
#define FJ_READ_BUDGET (256u << 10)

static nand_dev *fj_device(int nop1)
{
    struct nand_config c;
    nand_config_init(&c);
    snprintf(c.name, sizeof c.name, "fuzz-jffs2");
    c.geo.blocks_per_plane = FJ_BLOCKS;
    c.geo.pages_per_block = FJ_PPB;
    c.geo.page_size = FJ_PS;
    c.geo.oob_size = FJ_OS;
    c.nop = nop1 ? 1 : 4;
    memset(&c.rber, 0, sizeof c.rber);
    c.factory_bad_fraction = 0;
    c.seed = 5;
    nand_dev *d = NULL;
    if (nand_create(&c, &d))
        fuzz_fail(FJ, "nand_create failed");
    return d;
}

static int fj_blank(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0xff)
            return 0;
    return 1;
}

/* Every node header in block image p gets the CRCs JFFS2 would give it. */
static void fj_fix_crcs(uint8_t *p)
{
    for (uint32_t pos = 0; pos + 12 <= FJ_BS; pos += 4) {
        uint8_t *h = p + pos;
        uint32_t type = le16_get(h + 2), len = le32_get(h + 4);
        if (le16_get(h) != JFFS_MAGIC || len < 12 || len > FJ_BS - pos)
            continue;
        le32_put(h + 8, jffs_crc(h, 8));
        if (type == JFFS_T_INODE && len >= JFFS_INODE_HDR) {
            uint32_t cs = le32_get(h + 48);
            if (cs <= len - JFFS_INODE_HDR)
                le32_put(h + 60, jffs_crc(h + JFFS_INODE_HDR, cs));
            le32_put(h + 64, jffs_crc(h, 60));
        } else if (type == JFFS_T_DIRENT && len >= JFFS_DIRENT_HDR) {
            le32_put(h + 32, jffs_crc(h, 32));
            if (h[28] <= len - JFFS_DIRENT_HDR)
                le32_put(h + 36, jffs_crc(h + JFFS_DIRENT_HDR, h[28]));
        } else if (type == JFFS_T_SUMMARY && len >= JFFS_SUM_HDR) {
            le32_put(h + 24, jffs_crc(h + JFFS_SUM_HDR, len - JFFS_SUM_HDR));
            le32_put(h + 28, jffs_crc(h, 24));
        }
    }
}

/* The chunks into an image in RAM, then onto the device. */
static void fj_load(nand_dev *d, const uint8_t *in, size_t n, int fix)
{
    static uint8_t img[FJ_BLOCKS * FJ_BS], oob[FJ_BLOCKS][FJ_OS];
    memset(img, 0xff, sizeof img);
    memset(oob, 0xff, sizeof oob);
    while (n >= 5) {
        uint32_t b = in[0], off = (uint32_t)in[1] | (uint32_t)in[2] << 8;
        size_t len = (size_t)in[3] | (size_t)in[4] << 8;
        in += 5;
        n -= 5;
        if (len > n)
            len = n;
        if (b & 0x80) {
            uint8_t *o = oob[(b & 127) % FJ_BLOCKS];
            off %= FJ_OS;
            memcpy(o + off, in, len > FJ_OS - off ? FJ_OS - off : len);
        } else {
            off %= FJ_BS;
            uint8_t *p = img + (size_t)(b % FJ_BLOCKS) * FJ_BS;
            memcpy(p + off, in, len > FJ_BS - off ? FJ_BS - off : len);
        }
        in += len;
        n -= len;
    }
    for (uint32_t b = 0; fix && b < FJ_BLOCKS; b++)
        fj_fix_crcs(img + (size_t)b * FJ_BS);
    for (uint32_t b = 0; b < FJ_BLOCKS; b++)
        for (uint32_t p = 0; p < FJ_PPB; p++) {
            const uint8_t *data = img + (size_t)b * FJ_BS + (size_t)p * FJ_PS;
            const uint8_t *o = p ? NULL : oob[b];
            if (o && fj_blank(o, FJ_OS))
                o = NULL;
            if (!fj_blank(data, FJ_PS) || o)
                nand_program(d, b, p, fj_blank(data, FJ_PS) ? NULL : data, o, NULL);
        }
}

/* ---- walking the tree ------------------------------------------------------ */

struct fj_names {
    char (*name)[256];
    uint32_t n, cap;
};

static int fj_dir_cb(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct fj_names *d = ctx;
    (void)ino;
    (void)type;
    if (!name)
        fuzz_fail(FJ, "readdir gave a NULL name");
    if (d->n < d->cap)
        snprintf(d->name[d->n++], 256, "%s", name);
    return 0;
}

struct fj_walk {
    const struct fsapi *api;
    void *fs;
    uint32_t names;
    uint64_t budget;
};

static void fj_read(struct fj_walk *w, const char *path, uint64_t size)
{
    int fd = w->api->open(w->fs, path, O_RDONLY, 0);
    if (fd < 0)
        return;
    static uint8_t buf[8192];
    for (uint64_t off = 0; off < size && w->budget;) {
        uint64_t want = sizeof buf < w->budget ? sizeof buf : w->budget;
        int64_t r = w->api->pread(w->fs, fd, buf, want, off);
        if (r > (int64_t)want)
            fuzz_fail(FJ, "pread(%s) gave %lld for %llu", path, (long long)r,
                      (unsigned long long)want);
        if (r <= 0)
            break;
        off += (uint64_t)r;
        w->budget -= (uint64_t)r;
    }
    int64_t r = w->api->pread(w->fs, fd, buf, 100, size ? size - 1 : 0);
    if (r > 100)
        fuzz_fail(FJ, "pread(%s) at the end gave %lld", path, (long long)r);
    w->api->close(w->fs, fd);
}

static void fj_walk_dir(struct fj_walk *w, const char *path, unsigned depth)
{
    struct fj_names d = {malloc(64 * 256), 0, 64};
    if (!d.name)
        return;
    uint64_t cookie = 0;
    w->api->readdir(w->fs, path, &cookie, fj_dir_cb, &d);
    size_t plen = strlen(path);
    for (uint32_t i = 0; i < d.n && w->names < FJ_MAX_NAMES; i++) {
        w->names++;
        char child[1024];
        if (plen + 1 + strlen(d.name[i]) + 1 > sizeof child)
            continue;
        snprintf(child, sizeof child, "%s/%s", plen == 1 ? "" : path, d.name[i]);
        struct fs_stat st;
        if (w->api->lstat(w->fs, child, &st))
            continue;
        if (S_ISLNK(st.mode)) {
            char t[300];
            int64_t n = w->api->readlink(w->fs, child, t, sizeof t);
            if (n > (int64_t)sizeof t)
                fuzz_fail(FJ, "readlink(%s) gave %lld", child, (long long)n);
            w->api->stat(w->fs, child, &st); /* follows: relative targets too */
        } else if (S_ISREG(st.mode)) {
            fj_read(w, child, st.size);
        } else if (S_ISDIR(st.mode) && depth + 1 < FJ_MAX_DEPTH) {
            fj_walk_dir(w, child, depth + 1);
        }
    }
    free(d.name);
}

static void fj_walk(const struct fsapi *api, void *fs)
{
    struct fj_walk w = {api, fs, 0, FJ_READ_BUDGET};
    struct fs_statfs sf;
    api->statfs(fs, &sf);
    fj_walk_dir(&w, "/", 0);
}

/* Changes on the foreign file system; each may fail. */
static void fj_modify(const struct fsapi *api, void *fs)
{
    static uint8_t buf[9000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 7 + (i >> 8));
    api->mkdir(fs, "/fz", 0755);
    int fd = api->open(fs, "/fz/new", O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd >= 0) {
        api->pwrite(fs, fd, buf, sizeof buf, 0);
        api->pwrite(fs, fd, buf, 100, 20000);
        api->ftruncate(fs, fd, 5000);
        api->fsync(fs, fd);
        api->close(fs, fd);
    }
    api->symlink(fs, "new", "/fz/rel");
    api->rename(fs, "/fz/new", "/fz/moved");
    api->link(fs, "/fz/moved", "/fz/hard");
    api->unlink(fs, "/fz/hard");
    api->sync(fs);
}

int fuzz_jffs2(const uint8_t *data, size_t size)
{
    uint8_t flags = size ? data[0] : 0;
    nand_dev *d = fj_device(flags & 4);
    fj_load(d, data + (size ? 1 : 0), size ? size - 1 : 0, flags & 8);
    const struct fsapi *api = flags & 1 ? &fsapi_jffs2_summary : &fsapi_jffs2_scan;
    void *fs = NULL;
    int rc = api->mount(d, NULL, &fs);
    if (fuzz_verbose())
        fprintf(stderr, "jffs2: %s mount: %d\n", api->name, rc);
    if (!rc) {
        fj_walk(api, fs);
        if (flags & 2) {
            fj_modify(api, fs);
            fj_walk(api, fs);
        }
        rc = api->unmount(fs);
        if (!rc && (flags & 2) && !api->mount(d, NULL, &fs)) {
            fj_walk(api, fs);
            api->unmount(fs);
        }
    }
    nand_close(d);
    return 0;
}

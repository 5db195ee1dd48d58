/*
 * fsapi.c -- LogFS's entry in the table of file systems (fs/fsapi.h): its
 * own calls, with options by name.
 */
#include "fsapi.h"
#include "logfs.h"
#include "ops.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int parse(const char *options, struct logfs_options *o)
{
    char err[256];
    memset(o, 0, sizeof *o);
    return options ? logfs_options_parse(o, options, err, sizeof err) : 0;
}

static int l_check(const char *options, char *err, size_t errlen)
{
    struct logfs_options o;
    memset(&o, 0, sizeof o);
    return options ? logfs_options_parse(&o, options, err, errlen) : 0;
}

/* max_utilisation against the segments of dev (logfs_utilisation_fits). */
static int l_check_device(nand_dev *dev, const char *options, char *err, size_t errlen)
{
    struct logfs_options o;
    memset(&o, 0, sizeof o);
    int rc = options ? logfs_options_parse(&o, options, err, errlen) : 0;
    if (rc)
        return rc;
    const struct nand_config *c = nand_get_config(dev);
    uint64_t seg = (uint64_t)c->geo.pages_per_block * c->geo.page_size;
    return !o.max_utilisation ? 0
         : logfs_utilisation_fits(o.max_utilisation, seg, o.block_size ? o.block_size : 4096,
                                  err, errlen);
}

static int l_mkfs(nand_dev *dev, const char *options)
{
    struct logfs_options o;
    int rc = parse(options, &o);
    return rc ? rc : logfs_mkfs(dev, &o);
}

static int l_mount(nand_dev *dev, const char *options, void **fs)
{
    struct logfs_options o;
    int rc = parse(options, &o);
    return rc ? rc : logfs_mount(dev, &o, (logfs **)fs);
}

/* LogFS's mark: a superblock (magic and CRC) at block 0 or the backup,
 * found as mount finds it -- one read when block 0 holds it.  A version
 * this code cannot read or write is still LogFS's. */
static int l_probe(nand_dev *dev)
{
    struct lfs_super sb;
    int rc = lfs_super_find(dev, &sb);
    return rc == -EINVAL ? 0 : rc == -EIO ? -EIO : 1;
}

static uint64_t l_mem(void *fs)
{
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    return st.mem_bytes;
}

/* LogFS checksums only what it reads and indexes nothing at mount: its
 * mount's CPU work is the anchor search and the root, below the model's
 * resolution, so it reports none. */
static void l_work(void *fs, struct fsapi_mount_work *w)
{
    (void)fs;
    memset(w, 0, sizeof *w);
}

/* typed adapters: calling logfs_* through a void * table would be
 * undefined behaviour */
static int l_unmount(void *fs) { return logfs_unmount(fs); }
static int l_sync(void *fs) { return logfs_sync(fs); }
static int l_open(void *fs, const char *p, int fl, uint32_t m) { return logfs_open(fs, p, fl, m); }
static int l_close(void *fs, int fd) { return logfs_close(fs, fd); }
static int64_t l_pread(void *fs, int fd, void *b, uint64_t n, uint64_t o)
{
    return logfs_pread(fs, fd, b, n, o);
}
static int64_t l_pwrite(void *fs, int fd, const void *b, uint64_t n, uint64_t o)
{
    return logfs_pwrite(fs, fd, b, n, o);
}
static int l_ftruncate(void *fs, int fd, uint64_t n) { return logfs_ftruncate(fs, fd, n); }
static int l_punch(void *fs, int fd, uint64_t o, uint64_t n) { return logfs_punch(fs, fd, o, n); }
static int l_fsync(void *fs, int fd) { return logfs_fsync(fs, fd); }
static int l_allocate(void *fs, int fd, uint64_t o, uint64_t n, unsigned flags)
{
    return logfs_allocate(fs, fd, o, n, flags);
}
static int l_stat(void *fs, const char *p, struct fs_stat *st) { return logfs_stat(fs, p, st); }
static int l_lstat(void *fs, const char *p, struct fs_stat *st) { return logfs_lstat(fs, p, st); }
static int l_fstat(void *fs, int fd, struct fs_stat *st) { return logfs_fstat(fs, fd, st); }
static int l_mkdir(void *fs, const char *p, uint32_t m) { return logfs_mkdir(fs, p, m); }
static int l_mknod(void *fs, const char *p, uint32_t m, uint64_t rdev)
{
    return logfs_mknod(fs, p, m, rdev);
}
static int64_t l_getxattr(void *fs, const char *p, const char *n, void *v, uint64_t size)
{
    return logfs_getxattr(fs, p, n, v, size);
}
static int l_setxattr(void *fs, const char *p, const char *n, const void *v, uint64_t size,
                      int flags)
{
    return logfs_setxattr(fs, p, n, v, size, flags);
}
static int l_getflags(void *fs, const char *p, unsigned *f) { return logfs_getflags(fs, p, f); }
static int l_setflags(void *fs, const char *p, unsigned f) { return logfs_setflags(fs, p, f); }
static int64_t l_listxattr(void *fs, const char *p, char *list, uint64_t size)
{
    return logfs_listxattr(fs, p, list, size);
}
static int l_removexattr(void *fs, const char *p, const char *n)
{
    return logfs_removexattr(fs, p, n);
}
static int l_rmdir(void *fs, const char *p) { return logfs_rmdir(fs, p); }
static int l_unlink(void *fs, const char *p) { return logfs_unlink(fs, p); }
static int l_rename(void *fs, const char *a, const char *b) { return logfs_rename(fs, a, b); }
static int l_rename2(void *fs, const char *a, const char *b, unsigned flags)
{
    return logfs_rename2(fs, a, b, flags);
}
static int l_link(void *fs, const char *a, const char *b) { return logfs_link(fs, a, b); }
static int l_symlink(void *fs, const char *t, const char *p) { return logfs_symlink(fs, t, p); }
static int64_t l_readlink(void *fs, const char *p, char *b, uint64_t n)
{
    return logfs_readlink(fs, p, b, n);
}
static int l_readdir(void *fs, const char *p, uint64_t *c, fs_dir_fn fn, void *ctx)
{
    return logfs_readdir(fs, p, c, fn, ctx);
}
static int l_statfs(void *fs, struct fs_statfs *st) { return logfs_statfs(fs, st); }
static int l_chmod(void *fs, const char *p, uint32_t m) { return logfs_chmod(fs, p, m); }
static int l_chown(void *fs, const char *p, uint32_t u, uint32_t g)
{
    return logfs_chown(fs, p, u, g);
}
static int l_lchown(void *fs, const char *p, uint32_t u, uint32_t g)
{
    return logfs_lchown(fs, p, u, g);
}
static int l_utimens(void *fs, const char *p, int64_t a, int64_t m)
{
    return logfs_utimens(fs, p, a, m);
}
static int l_lutimens(void *fs, const char *p, int64_t a, int64_t m)
{
    return logfs_lutimens(fs, p, a, m);
}
static int l_truncate(void *fs, const char *p, uint64_t n) { return logfs_truncate(fs, p, n); }
static int l_latency(void *fs, int kind, struct fs_latency *out)
{
    return logfs_get_latency(fs, kind, out);
}
static void l_reset_latency(void *fs) { logfs_reset_latency(fs); }
static void l_gc_observer(void *fs, fs_gc_observer fn, void *ctx)
{
    logfs_set_gc_observer(fs, fn, ctx);
}
static int l_idle(void *fs, uint64_t ns) { return logfs_idle(fs, ns); }
static int l_scrub(void *fs, uint64_t budget) { return logfs_scrub(fs, budget); }
static const char *l_block_role(void *fs, uint32_t block) { return logfs_block_role(fs, block); }

static int l_format_check(nand_dev *dev, char *msg, size_t msglen)
{
    uint32_t rv, wv;
    if (logfs_format_version(dev, &rv, &wv) ||
        (rv == wv && rv >= LOGFS_FORMAT_WRITABLE && rv <= LOGFS_FORMAT_VERSION))
        return 0; /* format 4 is written as format 4: no compression */
    if (rv >= LOGFS_FORMAT_OLDEST && rv < LOGFS_FORMAT_VERSION) {
        snprintf(msg, msglen, "LogFS format version %u, read-only: this flashlab writes "
                 "version %d (copy the files into a new mkfs to write them)", rv,
                 LOGFS_FORMAT_VERSION);
        return 1;
    }
    snprintf(msg, msglen, "LogFS format version %u (write version %u): this flashlab reads "
             "versions %d to %d only", rv, wv, LOGFS_FORMAT_OLDEST, LOGFS_FORMAT_VERSION);
    return 2;
}

/* struct logfs_stats by name: the counters fsapi reports */
#define C(field) {#field, offsetof(struct logfs_stats, field)}
static const struct {
    const char *name;
    size_t off;
} counters[] = {
    C(commits), C(live_bytes), C(mem_bytes), C(cache_hits), C(cache_misses), C(next_ino),
    C(relocations), C(host_bytes), C(pages_data), C(pages_meta), C(pages_anchor),
    C(pages_gc), C(erases), C(gc_rounds), C(gc_objects), C(gc_bytes), C(gc_time_ns),
    C(wl_moves), C(gc_fallbacks), C(free_segments), C(anchor_seq), C(anchor_fallback),
    C(gc_unreadable), C(segfile_unreadable), C(scrub_flagged), C(scrub_reads),
    C(scrub_segments), C(scrub_pages), C(data_raw_bytes), C(data_stored_bytes),
    C(compress), C(scrub_super), C(scrub_anchor), C(anchor_bad), C(anchor_left),
    C(cleanable_bytes), C(cleanable_segments), C(data_overhead_ppm),
};
#undef C
_Static_assert(sizeof counters / sizeof counters[0] * sizeof(uint64_t) ==
                   sizeof(struct logfs_stats),
               "every counter of struct logfs_stats is named");

static size_t l_stats(void *fs, struct fsapi_counter *out, size_t max)
{
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    size_t n = sizeof counters / sizeof counters[0];
    for (size_t i = 0; i < n && i < max; i++) {
        out[i].name = counters[i].name;
        memcpy(&out[i].value, (const char *)&st + counters[i].off, sizeof(uint64_t));
    }
    return n < max ? n : max;
}

const struct fsapi fsapi_logfs = {
    .name = "logfs",
    .summary = "LogFS: wandering tree under an anchor ring; mount reads a few pages",
    .check_options = l_check, .mkfs = l_mkfs, .probe = l_probe, .mount = l_mount, .unmount = l_unmount, .sync = l_sync,
    .open = l_open, .close = l_close, .pread = l_pread, .pwrite = l_pwrite,
    .ftruncate = l_ftruncate, .punch = l_punch, .fsync = l_fsync, .stat = l_stat,
    .lstat = l_lstat, .fstat = l_fstat, .mkdir = l_mkdir, .mknod = l_mknod,
    .getxattr = l_getxattr, .setxattr = l_setxattr, .listxattr = l_listxattr,
    .removexattr = l_removexattr, .rmdir = l_rmdir,
    .unlink = l_unlink, .rename = l_rename, .link = l_link, .symlink = l_symlink,
    .readlink = l_readlink, .readdir = l_readdir, .statfs = l_statfs,
    .mem_bytes = l_mem, .mount_work = l_work, .getflags = l_getflags, .setflags = l_setflags,
    .features = FSAPI_F_SPECIAL_FILES | FSAPI_F_XATTR | FSAPI_F_COMPRESS | FSAPI_F_FSCK |
                FSAPI_F_ATTRS | FSAPI_F_FAULT_SAFE,
    .option_help = logfs_option_help, .stats = l_stats, .latency = l_latency,
    .reset_latency = l_reset_latency, .set_gc_observer = l_gc_observer, .idle = l_idle,
    .scrub = l_scrub, .block_role = l_block_role, .chmod = l_chmod, .chown = l_chown,
    .lchown = l_lchown, .utimens = l_utimens, .lutimens = l_lutimens, .truncate = l_truncate,
    .format_check = l_format_check, .check_device = l_check_device, .rename2 = l_rename2,
    .allocate = l_allocate,
};

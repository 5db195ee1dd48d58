/* api.c -- the FTL's entry in the fsapi table (fs/fsapi.h): mkfs, mount,
 * flush, the counters the runner records, GC events. */
#include "ftlfs.h"

#include <stdlib.h>
#include <string.h>

static int ftl_parse(const char *options)
{
    return blk_ftl_check_options(options, NULL, 0);
}

static int ftl_check(const char *options, char *err, size_t errlen)
{
    return fs_opts_check("ftl", options, ftl_parse, blk_ftl_option_help, err, errlen);
}

static int ftl_mkfs(nand_dev *dev, const char *options)
{
    char err[256];
    return blk_ftl_format(dev, options, err, sizeof err);
}

static int ftl_mount(nand_dev *dev, const char *options, void **out)
{
    struct ftlfs *f = calloc(1, sizeof *f);
    if (!f)
        return -ENOMEM;
    char err[256];
    int rc = blk_ftl_open(dev, options, &f->d, err, sizeof err);
    if (!rc && !(f->sec = malloc(blk_sector_size(f->d)))) {
        blk_close(f->d);
        rc = -ENOMEM;
    }
    if (rc) {
        free(f);
        return rc;
    }
    f->dev = dev;
    f->fds.mem = &f->mem;
    *out = f;
    return 0;
}

static int ftl_unmount(void *fs)
{
    struct ftlfs *f = fs;
    int rc = blk_close(f->d);
    fs_fdtab_free(&f->fds);
    free(f->sec);
    free(f);
    return rc;
}

/* ---- the timed calls: latency in simulated time per FS_OP_* kind ---- */

static uint64_t lat_begin(const struct ftlfs *f)
{
    return nand_now(f->dev);
}

static int64_t lat_end(struct ftlfs *f, int kind, uint64_t t0, int64_t rc)
{
    fs_lat_record(&f->lat[kind], nand_now(f->dev) - t0);
    return rc;
}

static int ftl_sync(void *fs)
{
    struct ftlfs *f = fs;
    uint64_t t0 = lat_begin(f);
    return (int)lat_end(f, FS_OP_SYNC, t0, blk_flush(f->d));
}

static int ftl_fsync(void *fs, int fd)
{
    struct ftlfs *f = fs;
    struct fs_fd *slot;
    int rc = fs_fd_get(&f->fds, fd, &slot);
    uint64_t t0 = lat_begin(f);
    return rc ? rc : (int)lat_end(f, FS_OP_SYNC, t0, blk_flush(f->d));
}

static int64_t ftl_pread(void *fs, int fd, void *buf, uint64_t len, uint64_t off)
{
    uint64_t t0 = lat_begin(fs);
    return lat_end(fs, FS_OP_READ, t0, ftlfs_pread(fs, fd, buf, len, off));
}

static int64_t ftl_pwrite(void *fs, int fd, const void *buf, uint64_t len, uint64_t off)
{
    uint64_t t0 = lat_begin(fs);
    return lat_end(fs, FS_OP_WRITE, t0, ftlfs_pwrite(fs, fd, buf, len, off));
}

static int ftl_punch(void *fs, int fd, uint64_t off, uint64_t len)
{
    uint64_t t0 = lat_begin(fs);
    return (int)lat_end(fs, FS_OP_META, t0, ftlfs_punch(fs, fd, off, len));
}

static int ftl_latency(void *fs, int kind, struct fs_latency *out)
{
    if (kind < 0 || kind >= FS_OP_KINDS)
        return -EINVAL;
    fs_lat_get(&((struct ftlfs *)fs)->lat[kind], out);
    return 0;
}

static void ftl_reset_latency(void *fs)
{
    struct ftlfs *f = fs;
    memset(f->lat, 0, sizeof f->lat);
}

static int ftl_rmdir(void *fs, const char *path)
{
    struct fs_stat st;
    int rc = ftlfs_stat(fs, path, &st);
    return rc ? rc : (st.mode & 0170000) == 0040000 ? -EBUSY : -ENOTDIR;
}

static int ftl_link(void *fs, const char *existing, const char *newpath)
{
    (void)newpath;
    struct fs_stat st;
    int rc = ftlfs_stat(fs, existing, &st);
    return rc ? rc : -EPERM;
}

static uint64_t ftl_mem(void *fs)
{
    struct ftlfs *f = fs;
    return sizeof *f + f->mem + blk_mem_bytes(f->d) + blk_sector_size(f->d);
}

static void ftl_mount_work(void *fs, struct fsapi_mount_work *w)
{
    struct blk_stats st;
    blk_get_stats(((struct ftlfs *)fs)->d, &st);
    w->bytes_checksummed = 0; /* the scan reads spare areas; CRCs of valid pages only */
    w->nodes_indexed = st.mount_pages_read;
}

/* The counters under fsapi's common names (fsapi.h): pages_data are host
 * pages, pages_gc GC's moves, free_segments free blocks. */
static size_t ftl_stats(void *fs, struct fsapi_counter *out, size_t max)
{
    struct blk_stats st;
    blk_get_stats(((struct ftlfs *)fs)->d, &st);
    const struct fsapi_counter all[] = {
        {"pages_data", st.pages_host},      {"pages_meta", 0},
        {"pages_anchor", 0},                {"pages_gc", st.pages_gc},
        {"gc_rounds", st.gc_rounds},        {"gc_time_ns", st.gc_time_ns},
        {"free_segments", st.free_blocks},  {"wl_moves", st.wl_moves},
        {"host_bytes", st.host_bytes_written},
        {"data_raw_bytes", st.host_bytes_written},
        {"data_stored_bytes", st.host_bytes_written},
        {"host_sectors_written", st.host_sectors_written},
        {"host_sectors_read", st.host_sectors_read},
        {"host_sectors_trimmed", st.host_sectors_trimmed},
        {"flushes", st.flushes},            {"pages_pad", st.pages_pad},
        {"sectors_moved", st.sectors_moved}, {"erases", st.erases},
        {"grown_bad", st.grown_bad},        {"bad_blocks", st.bad_blocks},
        {"cache_absorbed", st.cache_absorbed},
    };
    size_t n = sizeof all / sizeof all[0];
    n = n < max ? n : max;
    memcpy(out, all, n * sizeof *out);
    return n;
}

static void gc_relay(void *ctx, const struct blk_gc_event *e)
{
    struct ftlfs *f = ctx;
    struct fs_gc_event ev = {e->sim_time_ns, e->block, e->live_bytes, e->duration_ns,
                             e->policy, e->wear_leveling};
    f->gc_fn(f->gc_ctx, &ev);
}

static void ftl_gc_observer(void *fs, fs_gc_observer fn, void *ctx)
{
    struct ftlfs *f = fs;
    f->gc_fn = fn;
    f->gc_ctx = ctx;
    blk_set_gc_observer(f->d, fn ? gc_relay : NULL, f);
}

static const char *ftl_block_role(void *fs, uint32_t block)
{
    return blk_block_role(((struct ftlfs *)fs)->d, block);
}

const struct fsapi fsapi_ftl = {
    .name = "ftl",
    .summary = "page-mapped FTL on the flash (no file system): one file, /disk, the "
               "logical space; punch is TRIM, fsync a flush",
    .features = FSAPI_F_ONE_FILE | FSAPI_F_FAULT_SAFE,
    .check_options = ftl_check, .option_help = blk_ftl_option_help, .mkfs = ftl_mkfs,
    .probe = blk_ftl_probe, .mount = ftl_mount, .unmount = ftl_unmount, .sync = ftl_sync,
    .open = ftlfs_open, .close = ftlfs_close, .pread = ftl_pread, .pwrite = ftl_pwrite,
    .ftruncate = ftlfs_ftruncate, .punch = ftl_punch, .fsync = ftl_fsync,
    .stat = ftlfs_stat, .lstat = ftlfs_stat, .fstat = ftlfs_fstat, .mkdir = ftlfs_mkdir,
    .rmdir = ftl_rmdir, .unlink = ftlfs_unlink, .rename = ftlfs_rename, .link = ftl_link,
    .symlink = ftlfs_symlink, .readlink = ftlfs_readlink, .readdir = ftlfs_readdir,
    .statfs = ftlfs_statfs, .mem_bytes = ftl_mem, .mount_work = ftl_mount_work,
    .stats = ftl_stats, .set_gc_observer = ftl_gc_observer, .block_role = ftl_block_role,
    .latency = ftl_latency, .reset_latency = ftl_reset_latency,
    .page_map = blk_ftl_page_map, .page_classes = blk_ftl_page_classes,
};

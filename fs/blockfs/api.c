/* api.c -- blockfs's entry in the fsapi table (fs/fsapi.h). */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

static int bf_check(const char *options)
{
    struct bf_opts o;
    return bf_parse_opts(options, &o);
}

const struct fsapi fsapi_blockfs = {
    .name = "blockfs",
    .summary = "naive in-place block fs: read-modify-erase-write of whole erase blocks, "
               "no wear leveling, no journal",
    .check_options = bf_check, .mkfs = bf_mkfs, .mount = bf_mount, .unmount = bf_unmount, .sync = bf_sync,
    .open = bf_open, .close = bf_close, .pread = bf_pread, .pwrite = bf_pwrite,
    .ftruncate = bf_ftruncate, .punch = bf_punch, .fsync = bf_fsync, .stat = bf_stat,
    .lstat = bf_lstat, .fstat = bf_fstat, .mkdir = bf_mkdir, .rmdir = bf_rmdir,
    .unlink = bf_unlink, .rename = bf_rename, .link = bf_link, .symlink = bf_symlink,
    .readlink = bf_readlink, .readdir = bf_readdir, .statfs = bf_statfs,
    .mem_bytes = bf_mem_bytes, .mount_work = bf_mount_work,
};

/* api.c -- blockfs's entry in the fsapi table (fs/fsapi.h). */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* blockfs's own keys checked, the block device's let through */
static int bf_parse_own(const char *options)
{
    struct bf_opts o;
    return bf_parse_opts(options, &o, 1);
}
static int bf_parse_strict(const char *options)
{
    struct bf_opts o;
    return bf_parse_opts(options, &o, 0);
}
static const char *bf_option_help(unsigned i, const char **help)
{
    static const char *const keys[][2] = {
        {"block_size", "fs block in bytes, K or M (4096; mkfs)"},
        {"inodes", "inode table entries (1024; mkfs)"},
        {"cache", "1: keep erase blocks in a write-back buffer, 0: write through (1)"},
        {"dev", "the block device: inplace (the naive in-place map) or ftl (the "
                "page-mapped FTL, which takes its own options here too) (inplace; mkfs)"},
    };
    return fs_opts_help(keys, sizeof keys / sizeof keys[0], i, help);
}
/* blockfs's keys, then the FTL's with dev=ftl; any other key is named */
static int bf_check(const char *options, char *err, size_t errlen)
{
    struct bf_opts o;
    int rc = fs_opts_check("blockfs", options, bf_parse_own, bf_option_help, err, errlen);
    if (rc || bf_parse_opts(options, &o, 1))
        return rc;
    if (o.dev == BF_DEV_FTL)
        return blk_ftl_check_options(o.dev_opts, err, errlen);
    return fs_opts_check("blockfs", options, bf_parse_strict, bf_option_help, err, errlen);
}

/* blockfs's mark: its superblock (magic, version and this device's
 * geometry) at the start of page 0 of erase block 0.  One page read. */
static int bf_probe_inplace(nand_dev *dev)
{
    const struct nand_config *c = nand_get_config(dev);
    struct bf_super sb;
    uint8_t *page = malloc(c->geo.page_size);
    if (!page)
        return -ENOMEM;
    int rc = nand_read(dev, 0, 0, page, NULL, NULL);
    if (rc == NAND_E_POWER) {
        free(page);
        return -EIO;
    }
    memcpy(&sb, page, sizeof sb < c->geo.page_size ? sizeof sb : c->geo.page_size);
    free(page);
    return rc == NAND_OK && sizeof sb <= c->geo.page_size && !memcmp(sb.magic, BF_MAGIC, 8) &&
           sb.version == BF_VERSION && sb.page_size == c->geo.page_size &&
           sb.pages_per_block == c->geo.pages_per_block && sb.n_ebs == nand_blocks(c) &&
           sb.root == BF_ROOT;
}

/* On an FTL (dev=ftl), blockfs's superblock is the FTL's first sector:
 * found through a read-only mount of the FTL (its scan of every spare
 * area: the cost of probing an FTL image, which no other fs claims). */
static int bf_probe_ftl(nand_dev *dev)
{
    struct bf_opts o;
    struct blockfs fs = {0};
    if (bf_parse_opts("dev=ftl,cache=0", &o, 1) || bf_dev_open(dev, &o, 0, &fs))
        return 0; /* not an FTL this version mounts: not blockfs on one either */
    int rc = bf_read_super(&fs);
    blk_close(fs.bd); /* nothing written: closes without a program */
    return rc == 0 ? 1 : rc == -EINVAL ? 0 : rc;
}

static int bf_probe(nand_dev *dev)
{
    int rc = bf_probe_inplace(dev);
    return rc || blk_ftl_probe(dev) != 1 ? rc : bf_probe_ftl(dev);
}

const struct fsapi fsapi_blockfs = {
    .name = "blockfs",
    .summary = "naive in-place block fs: read-modify-erase-write of whole erase blocks, "
               "no wear leveling, no journal",
    .check_options = bf_check, .option_help = bf_option_help, .mkfs = bf_mkfs, .probe = bf_probe, .mount = bf_mount, .unmount = bf_unmount, .sync = bf_sync,
    .open = bf_open, .close = bf_close, .pread = bf_pread, .pwrite = bf_pwrite,
    .ftruncate = bf_ftruncate, .punch = bf_punch, .fsync = bf_fsync, .stat = bf_stat,
    .lstat = bf_lstat, .fstat = bf_fstat, .mkdir = bf_mkdir, .rmdir = bf_rmdir,
    .unlink = bf_unlink, .rename = bf_rename, .link = bf_link, .symlink = bf_symlink,
    .readlink = bf_readlink, .readdir = bf_readdir, .statfs = bf_statfs,
    .mem_bytes = bf_mem_bytes, .mount_work = bf_mount_work,
    .page_map = bf_page_map, .page_classes = bf_page_classes,
};

/* cmd_mkfs.c -- `flashlab mkfs`: a new file system of any kind on an image
 * (refusing to overwrite one without --force). */
#include "experiment.h"
#include "fs_cmd.h"
#include "gc_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- mkfs ------------------------------------------------------------------ */

static const char mkfs_help[] =
    "usage: flashlab mkfs [--fs KIND] [--block-size N] [--anchor-blocks N]\n"
    "                     [--reserve N] [-o KEY=VALUE,...] [--force] IMAGE\n"
    "\n"
    "Make an empty file system of KIND (logfs without --fs) on a simulator\n"
    "image (made with `flashlab sim create`), destroying what the device\n"
    "held.  An image that already holds a file system (of any kind) is\n"
    "refused unless --force is given.  -o passes options, \"key=value,...\"\n"
    "in the fs's own keys, to it (repeatable).\n"
    "\n"
    "LogFS: --block-size is the fs block, a power of two 512..32768 (4096);\n"
    "--anchor-blocks the erase blocks of the anchor ring, 2..16 (4);\n"
    "--reserve the segments kept back for the cleaner (8).  -o sets any\n"
    "LogFS option by name (the same keys as the YAML fs: section);\n"
    "`flashlab mkfs --help-options` lists them.  blockfs: -o block_size=N,\n"
    "inodes=N, cache=0|1 (docs/blockfs-baseline.md).  jffs2-scan and\n"
    "jffs2-summary (Linux's JFFS2 format): -o reserve=N,\n"
    "compress=none|zlib|rtime|lzo (lzo; for the nodes this command writes:\n"
    "later writes take `flashlab put -o`) (docs/jffs2-baseline.md).\n"
    "\n"
    "examples:\n"
    "  flashlab sim create --device configs/devices/test-64m.yaml fs.img\n"
    "  flashlab mkfs fs.img\n"
    "  flashlab mkfs --force --fs jffs2-summary -o reserve=6 fs.img\n";

/* Refuse to overwrite the file system dev already holds, unless force:
 * "IMAGE: already holds a KIND file system (N files, X MiB used); use
 * --force to overwrite it".  Returns CLI_OK when mkfs may go on. */
static int mkfs_check_existing(nand_dev *dev, const char *image, int force)
{
    if (force)
        return CLI_OK;
    const struct fsapi *old = fsapi_probe(dev);
    if (!old)
        return CLI_OK;
    char what[128] = "";
    void *fs = NULL;
    struct fs_statfs st = {0};
    if (old->mount(dev, NULL, &fs) == 0) {
        if (old->statfs && old->statfs(fs, &st) == 0)
            snprintf(what, sizeof what, " (%" PRIu64 " file%s, %.1f MiB used of %.1f MiB)",
                     st.files, st.files == 1 ? "" : "s",
                     (double)(st.total_bytes - st.free_bytes) / 1048576.0,
                     (double)st.total_bytes / 1048576.0);
        old->unmount(fs);
    }
    return cli_fs_fail("mkfs", "%s: already holds a %s file system%s; use --force to "
                   "overwrite it", image, old->name, what);
}

/* One option as given: the flags and -o are joined in order once the kind
 * is known. */
struct mkfs_arg {
    int c;
    const char *arg;
};

/* The flags are options by another name: --block-size is block_size=N. */
static const char *const flag_key[] = {['b'] = "block_size", ['a'] = "anchor_blocks",
                                       ['r'] = "reserve"};
static const char *const flag_name[] = {['b'] = "--block-size", ['a'] = "--anchor-blocks",
                                        ['r'] = "--reserve"};

static int has_key(const struct fsapi *api, const char *key)
{
    return fsapi_takes_option(api, key, strlen(key));
}

/* The options string of the flags and -o lists, in order, after
 * clock=host (the root directory's times: cli_host_clock_options); NULL
 * with a usage error printed. */
static char *mkfs_options(const struct fsapi *api, const struct mkfs_arg *a, int na)
{
    size_t len = 32, n = 0;
    for (int i = 0; i < na; i++)
        len += strlen(a[i].arg) + 16;
    char *given = malloc(len), *opts = malloc(len + 16);
    if (!given || !opts) {
        free(given);
        free(opts);
        cli_fs_fail("mkfs", "out of memory");
        return NULL;
    }
    given[0] = 0;
    for (int i = 0; i < na; i++) {
        if (a[i].c != 'o' && !has_key(api, flag_key[a[i].c])) {
            cli_usage_error("mkfs", "%s is not an option of %s; give its options with "
                            "-o KEY=VALUE (--help-options lists them)", flag_name[a[i].c],
                            api->name);
            free(given);
            free(opts);
            return NULL;
        }
        n += (size_t)snprintf(given + n, len - n, "%s%s%s%s", n ? "," : "",
                              a[i].c == 'o' ? "" : flag_key[a[i].c], a[i].c == 'o' ? "" : "=",
                              a[i].arg);
    }
    cli_host_clock_options(api, given, opts, len + 16);
    free(given);
    char oerr[1024];
    if (fsapi_check_options(api, opts, oerr, sizeof oerr)) {
        cli_usage_error("mkfs", "-o: %s", oerr);
        free(opts);
        return NULL;
    }
    return opts;
}

/* --help-options: the kind's keys, and the cleaning policies (gc/) where
 * it takes gc_policy. */
static int print_options(const struct fsapi *api)
{
    const char *key, *hlp;
    printf("%s's options (-o KEY=VALUE,...):\n", api->name);
    for (unsigned i = 0; api->option_help && (key = api->option_help(i, &hlp)); i++)
        printf("  %-14s %s\n", key, hlp);
    if (has_key(api, "gc_policy")) {
        printf("gc_policy is one of:\n");
        for (size_t i = 0; gc_policy_at(i); i++)
            printf("  %-14s %s\n", gc_policy_at(i)->name, gc_policy_at(i)->summary);
    }
    return CLI_OK;
}

/* mkfs of any kind through its table, then a mount to report the space. */
static int mkfs_image(const struct fsapi *api, const char *image, const char *opts, int force)
{
    char err[512];
    nand_dev *dev;
    if (nand_open(image, &dev, err, sizeof err))
        return cli_fs_fail("mkfs", "%s", err);
    if (mkfs_check_existing(dev, image, force)) {
        nand_close(dev);
        return CLI_FAIL;
    }
    if (fsapi_check_device(api, dev, opts, err, sizeof err)) {
        nand_close(dev);
        return cli_fs_fail("mkfs", "%s: %s", image, err);
    }
    int rc = api->mkfs(dev, opts);
    if (rc) {
        struct nand_config cfg = *nand_get_config(dev);
        const struct nand_geometry *g = &cfg.geo;
        nand_close(dev);
        uint32_t min = rc == -ENOSPC || rc == -EINVAL
                           ? experiment_min_blocks_per_plane(api, opts, &cfg) : 0;
        if (min) {
            struct nand_config big = cfg;
            big.geo.blocks_per_plane = min;
            return cli_fs_fail("mkfs", "%s: too small for %s: %.4g MiB (blocks_per_plane %u); "
                               "the smallest it takes is %.4g MiB (blocks_per_plane %u)", image,
                               api->name, (double)nand_capacity_bytes(&cfg) / (1 << 20),
                               g->blocks_per_plane,
                               (double)nand_capacity_bytes(&big) / (1 << 20), min);
        }
        if (rc == -ENOSPC)
            return cli_fs_fail("mkfs", "%s: too few good blocks for %s (or block 0 is bad)", image,
                           api->name);
        if (rc == -EINVAL)
            return cli_fs_fail("mkfs", "%s: %s with options '%s' does not suit the device "
                           "(%u B pages, %u KiB erase blocks)", image, api->name, opts,
                           g->page_size, g->page_size * g->pages_per_block / 1024);
        return cli_fs_fail("mkfs", "%s: cannot make a %s file system: %s", image, api->name,
                       cli_errmsg(rc));
    }
    void *fs;
    struct fs_statfs st = {0};
    if ((rc = api->mount(dev, NULL, &fs))) {
        nand_close(dev);
        return cli_fs_fail("mkfs", "%s: cannot mount the new file system: %s", image,
                       cli_errmsg(rc));
    }
    api->statfs(fs, &st);
    rc = api->unmount(fs);
    int nrc = rc ? 0 : nand_save(dev, image);
    nand_close(dev);
    if (rc)
        return cli_fs_fail("mkfs", "%s: cannot commit: %s", image, cli_errmsg(rc));
    if (nrc)
        return cli_fs_fail("mkfs", "%s: cannot save image: %s", image, nand_strerror(nrc));
    printf("%s: %s, block size %u, %.1f MiB free of %.1f MiB\n", image, api->name,
           st.block_size, (double)st.free_bytes / 1048576.0,
           (double)st.total_bytes / 1048576.0);
    return CLI_OK;
}

int cmd_mkfs(int argc, char **argv)
{
    static const struct option opts[] = {
        {"block-size", required_argument, 0, 'b'},
        {"anchor-blocks", required_argument, 0, 'a'},
        {"reserve", required_argument, 0, 'r'},
        {"fs", required_argument, 0, 'F'},
        {"force", no_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'},
        {"help-options", no_argument, 0, 'H'}, {0, 0, 0, 0}};
    const struct fsapi *api = fsapi_find("logfs");
    struct mkfs_arg *a = calloc((size_t)argc + 1, sizeof *a);
    int na = 0, c, force = 0, want_options = 0;
    if (!a)
        return cli_fs_fail("mkfs", "out of memory");
    optind = 1;
    while ((c = getopt_long(argc, argv, "b:a:r:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': case 'b': case 'a': case 'r':
            a[na++] = (struct mkfs_arg){c, optarg};
            break;
        case 'f': force = 1; break;
        case 'F':
            if (cli_parse_kind("mkfs", optarg, &api)) {
                free(a);
                return CLI_USAGE;
            }
            break;
        case 'H':
            want_options = 1;
            break;
        case 'h': free(a); return cli_fs_help(mkfs_help);
        default: free(a); return cli_usage_error("mkfs", "bad option");
        }
    }
    if (want_options) {
        free(a);
        return print_options(api);
    }
    int rc;
    char *o = NULL;
    if (optind != argc - 1)
        rc = cli_usage_error("mkfs", "expected one IMAGE argument");
    else if (!(o = mkfs_options(api, a, na)))
        rc = CLI_USAGE;
    else {
        struct imglock lk;
        if (imglock_write(&lk, argv[optind], "mkfs", NULL))
            rc = CLI_FAIL;
        else
            rc = mkfs_image(api, argv[optind], o, force);
        imglock_release(&lk);
    }
    free(o);
    free(a);
    return rc;
}


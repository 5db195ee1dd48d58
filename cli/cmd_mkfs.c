/* cmd_mkfs.c -- `flashlab mkfs`: a new file system of any kind on an image
 * (refusing to overwrite one without --force). */
#include "fs_cmd.h"
#include "logfs/logfs.h"

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
    return fs_fail("mkfs", "%s: already holds a %s file system%s; use --force to "
                   "overwrite it", image, old->name, what);
}

/* One option as given: the LogFS flags and -o are applied in order once
 * the kind is known. */
struct mkfs_arg {
    int c;
    const char *arg;
};

/* LogFS's mkfs, with its own flags and messages. */
static int mkfs_logfs(const char *image, const struct mkfs_arg *a, int na, int force)
{
    struct logfs_options o = {0};
    char oerr[256];
    for (int i = 0; i < na; i++) {
        const char *v = a[i].arg;
        switch (a[i].c) {
        case 'o':
            if (logfs_options_parse(&o, v, oerr, sizeof oerr))
                return cli_usage_error("mkfs", "-o: %s", oerr);
            break;
        /* the flags are LogFS options by another name: LogFS checks them */
        case 'b':
            if (logfs_option_set(&o, "block_size", v, oerr, sizeof oerr))
                return cli_usage_error("mkfs", "bad block size '%s' (%s)", v, oerr);
            break;
        case 'a':
            if (logfs_option_set(&o, "anchor_blocks", v, oerr, sizeof oerr))
                return cli_usage_error("mkfs", "bad anchor block count '%s' (%s)", v, oerr);
            break;
        case 'r':
            if (logfs_option_set(&o, "reserve", v, oerr, sizeof oerr))
                return cli_usage_error("mkfs", "bad reserve '%s' (%s)", v, oerr);
            break;
        }
    }
    char err[512];
    nand_dev *dev;
    if (nand_open(image, &dev, err, sizeof err))
        return fs_fail("mkfs", "%s", err);
    if (mkfs_check_existing(dev, image, force)) {
        nand_close(dev);
        return CLI_FAIL;
    }
    if (!o.epoch_ns)
        o.clock = logfs_host_clock; /* the root directory's times */
    int rc = logfs_mkfs(dev, &o);
    if (rc == -ENOSPC) {
        nand_close(dev);
        return fs_fail("mkfs", "%s: too few good blocks (or block 0 is bad)",
                       image);
    }
    if (rc == -EINVAL) {
        const struct nand_geometry *g = &nand_get_config(dev)->geo;
        uint32_t bs = o.block_size ? o.block_size : 4096;
        fs_fail("mkfs", "%s: block size %u does not suit the device (%u B "
                "pages, %u KiB erase blocks: an erase block must hold 4 fs "
                "blocks)", image, bs, g->page_size,
                g->page_size * g->pages_per_block / 1024);
        nand_close(dev);
        return CLI_FAIL;
    }
    if (rc) {
        nand_close(dev);
        return fs_fail("mkfs", "%s: cannot make a file system: %s", image,
                       errmsg(rc));
    }
    logfs *fs;
    struct fs_statfs st = {0};
    if ((rc = logfs_mount(dev, &o, &fs))) {
        nand_close(dev);
        return fs_fail("mkfs", "%s: cannot mount the new file system: %s", image,
                       errmsg(rc));
    }
    logfs_statfs(fs, &st);
    rc = logfs_unmount(fs);
    int nrc = rc ? 0 : nand_save(dev, image);
    nand_close(dev);
    if (rc)
        return fs_fail("mkfs", "%s: cannot commit: %s", image, errmsg(rc));
    if (nrc)
        return fs_fail("mkfs", "%s: cannot save image: %s", image,
                       nand_strerror(nrc));
    printf("%s: LogFS, block size %u, %.1f MiB free of %.1f MiB\n", image,
           st.block_size, (double)st.free_bytes / 1048576.0,
           (double)st.total_bytes / 1048576.0);
    return CLI_OK;
}

/* Any other kind's mkfs, through its table: the -o lists joined. */
static int mkfs_other(const struct fsapi *api, const char *image,
                      const struct mkfs_arg *a, int na, int force)
{
    static const char *const flag[] = {['b'] = "--block-size", ['a'] = "--anchor-blocks",
                                       ['r'] = "--reserve"};
    size_t len = 1;
    for (int i = 0; i < na; i++) {
        if (a[i].c != 'o')
            return cli_usage_error("mkfs", "%s is a LogFS option; give %s's options "
                                   "with -o KEY=VALUE", flag[a[i].c], api->name);
        len += strlen(a[i].arg) + 1;
    }
    char *opts = malloc(len);
    if (!opts)
        return fs_fail("mkfs", "out of memory");
    opts[0] = 0;
    for (int i = 0; i < na; i++) {
        if (opts[0])
            strcat(opts, ",");
        strcat(opts, a[i].arg);
    }
    const char *o = opts[0] ? opts : NULL;
    if (o && api->check_options && api->check_options(o)) {
        int rc = cli_usage_error("mkfs", "-o: bad options for %s: '%s'", api->name, o);
        free(opts);
        return rc;
    }
    char err[512];
    nand_dev *dev;
    if (nand_open(image, &dev, err, sizeof err)) {
        free(opts);
        return fs_fail("mkfs", "%s", err);
    }
    if (mkfs_check_existing(dev, image, force)) {
        nand_close(dev);
        free(opts);
        return CLI_FAIL;
    }
    int rc = api->mkfs(dev, o);
    free(opts);
    if (rc) {
        nand_close(dev);
        if (rc == -ENOSPC)
            return fs_fail("mkfs", "%s: too few good blocks for %s", image, api->name);
        if (rc == -EINVAL)
            return fs_fail("mkfs", "%s: %s does not suit the device (or its options)",
                           image, api->name);
        return fs_fail("mkfs", "%s: cannot make a %s file system: %s", image, api->name,
                       errmsg(rc));
    }
    void *fs;
    struct fs_statfs st = {0};
    if ((rc = api->mount(dev, NULL, &fs))) {
        nand_close(dev);
        return fs_fail("mkfs", "%s: cannot mount the new file system: %s", image,
                       errmsg(rc));
    }
    api->statfs(fs, &st);
    rc = api->unmount(fs);
    int nrc = rc ? 0 : nand_save(dev, image);
    nand_close(dev);
    if (rc)
        return fs_fail("mkfs", "%s: cannot commit: %s", image, errmsg(rc));
    if (nrc)
        return fs_fail("mkfs", "%s: cannot save image: %s", image, nand_strerror(nrc));
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
    const struct fsapi *api = &fsapi_logfs;
    struct mkfs_arg *a = calloc((size_t)argc + 1, sizeof *a);
    int na = 0, c, force = 0;
    if (!a)
        return fs_fail("mkfs", "out of memory");
    optind = 1;
    while ((c = getopt_long(argc, argv, "b:a:r:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': case 'b': case 'a': case 'r':
            a[na++] = (struct mkfs_arg){c, optarg};
            break;
        case 'f': force = 1; break;
        case 'F':
            if (parse_kind("mkfs", optarg, &api)) {
                free(a);
                return CLI_USAGE;
            }
            break;
        case 'H': {
            const char *key, *hlp;
            for (unsigned i = 0; (key = logfs_option_help(i, &hlp)); i++)
                printf("  %-14s %s\n", key, hlp);
            printf("gc_policy is one of:\n");
            for (unsigned i = 0; (key = logfs_gc_policy_name(i, &hlp)); i++)
                printf("  %-14s %s\n", key, hlp);
            free(a);
            return CLI_OK;
        }
        case 'h': free(a); return fs_help(mkfs_help);
        default: free(a); return cli_usage_error("mkfs", "bad option");
        }
    }
    int rc;
    if (optind != argc - 1)
        rc = cli_usage_error("mkfs", "expected one IMAGE argument");
    else {
        struct imglock lk;
        if (imglock_write(&lk, argv[optind], "mkfs", NULL))
            rc = CLI_FAIL;
        else if (api == &fsapi_logfs)
            rc = mkfs_logfs(argv[optind], a, na, force);
        else
            rc = mkfs_other(api, argv[optind], a, na, force);
        imglock_release(&lk);
    }
    free(a);
    return rc;
}


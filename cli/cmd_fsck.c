/* cmd_fsck.c -- `flashlab fsck IMAGE [--repair] [-v]`: check the LogFS on an
 * image with the independent checker of fsck/ (docs/fsck.md).  Exits with
 * e2fsck's codes; the image file is written only when --repair repaired
 * something. */
#include "cli.h"
#include "imglock.h"
#include "fsapi.h"
#include "fsck.h"
#include "nand.h"

#include <getopt.h>
#include <string.h>

static const char help[] =
    "usage: flashlab fsck IMAGE [--repair] [-v]\n"
    "\n"
    "Check the LogFS on a device image.  The checker reads the on-flash\n"
    "format with its own code (docs/FORMAT.md), not the file system's, and\n"
    "prints one line per problem, then a summary (docs/fsck.md).\n"
    "\n"
    "  -r, --repair   fix what can be fixed safely (link counts, dangling\n"
    "                 entries, unlisted orphans, segment and anchor counters)\n"
    "                 with one new commit, then check again; the image is\n"
    "                 saved only when something was repaired\n"
    "  -v, --verbose  also print what was found (superblock, anchor, orphans)\n"
    "  -h, --help     this text\n"
    "\n"
    "exit status, as e2fsck's: 0 clean, 1 errors repaired, 4 errors left,\n"
    "8 operational error (no image, not LogFS, I/O), 16 usage error\n"
    "\n"
    "fsck checks LogFS only: on an image that holds another file system\n"
    "(blockfs, jffs2-scan, jffs2-summary: see `flashlab mkfs --help`) it says\n"
    "so and exits with 8.\n"
    "\n"
    "examples:\n"
    "  flashlab fsck fs.img\n"
    "  flashlab fsck --repair -v fs.img\n";

/* The kind of file system on image when it is not LogFS, else NULL.  The
 * probe reads a copy of the image, so that the device fsck checks has
 * seen no reads but its own. */
static const char *other_kind(const char *image)
{
    char err[512];
    nand_dev *dev;
    if (nand_open(image, &dev, err, sizeof err))
        return NULL; /* the real open reports it */
    const struct fsapi *api = fsapi_probe(dev);
    nand_close(dev);
    return api && !(api->features & FSAPI_F_FSCK) ? api->name : NULL;
}

static int check(const char *image, int repair, int verbose);

int cmd_fsck(int argc, char **argv)
{
    static const struct option opts[] = {
        {"repair", no_argument, 0, 'r'}, {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int repair = 0, verbose = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "rvh", opts, NULL)) != -1) {
        switch (c) {
        case 'r': repair = 1; break;
        case 'v': verbose = 1; break;
        case 'h': fputs(help, stdout); return CLI_OK;
        default: cli_usage_error("fsck", "bad option"); return FSCK_USAGE;
        }
    }
    if (argc - optind != 1) {
        cli_usage_error("fsck", "expected one IMAGE");
        return FSCK_USAGE;
    }
    const char *image = argv[optind];
    struct imglock lk = {NULL};
    if (!repair)
        imglock_read(image, "fsck");
    else if (imglock_write(&lk, image, "fsck", NULL))
        return FSCK_OPERATIONAL;
    int st = check(image, repair, verbose);
    imglock_release(&lk);
    return st;
}

/* fsck of image (under the lock when it repairs). */
static int check(const char *image, int repair, int verbose)
{
    const char *kind = other_kind(image);
    if (kind) {
        fprintf(stderr, "flashlab fsck: %s holds %s, fsck checks LogFS only\n", image, kind);
        return FSCK_OPERATIONAL;
    }
    char err[512];
    nand_dev *dev;
    if (nand_open(image, &dev, err, sizeof err)) {
        fprintf(stderr, "flashlab fsck: %s\n", err);
        return FSCK_OPERATIONAL;
    }
    struct fsck_report r;
    int st = fsck_run(dev, repair, &r);
    fsck_report_print(stdout, &r, image, verbose);
    if (repair && r.written && (st == FSCK_FIXED || st == FSCK_ERRORS)) {
        int rc = nand_save(dev, image);
        if (rc) {
            fprintf(stderr, "flashlab fsck: %s: cannot save image: %s\n", image,
                    nand_strerror(rc));
            st = FSCK_OPERATIONAL;
        }
    }
    fsck_report_free(&r);
    nand_close(dev);
    return st;
}

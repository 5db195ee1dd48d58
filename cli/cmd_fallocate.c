/* cmd_fallocate.c -- `flashlab fallocate`: preallocate a range of a file
 * on an image, as util-linux's fallocate(1) (mode 0 or --keep-size). */
#include "fs_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char fallocate_help[] =
    "usage: flashlab fallocate [--fs KIND] [-n] [-o OFFSET] -l LENGTH IMAGE:/path\n"
    "\n"
    "Allocate LENGTH bytes of /path from OFFSET (0): the holes there become\n"
    "blocks that read as zeros and whose room is kept, so that writing them\n"
    "later cannot fail for space; blocks already there stay.  The file is made\n"
    "(mode 0644) if it does not exist, and grows to OFFSET + LENGTH unless -n\n"
    "(--keep-size), as util-linux's fallocate(1).  OFFSET and LENGTH are\n"
    "bytes, or with a suffix K, M or G (powers of 1024).  Only LogFS of\n"
    "format 6 has it (docs/FORMAT.md section 4); other kinds and older\n"
    "images say so.\n"
    FS_HELP
    "\n"
    "examples: flashlab fallocate -l 1M fs.img:/reserved\n"
    "          flashlab fallocate -n -o 4096 -l 64K fs.img:/log\n";

/* "123", "64K", "1M", "2G": 0, or -1 when it is none of them. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20
                   : !strcmp(end, "G") ? 30 : *end ? 64 : 0;
    if (errno || end == s || *s == '-' || shift == 64 || v > UINT64_MAX >> shift)
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int cmd_fallocate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
        {"keep-size", no_argument, 0, 'n'}, {"offset", required_argument, 0, 'o'},
        {"length", required_argument, 0, 'l'}, {0, 0, 0, 0}};
    const struct fsapi *kind = NULL;
    uint64_t off = 0, len = 0;
    unsigned flags = 0;
    int c, have_len = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hno:l:", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (cli_parse_kind("fallocate", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'n': flags |= FS_ALLOC_KEEP_SIZE; break;
        case 'o':
            if (parse_size(optarg, &off))
                return cli_usage_error("fallocate", "-o '%s' is not a size", optarg);
            break;
        case 'l':
            if (parse_size(optarg, &len) || !len)
                return cli_usage_error("fallocate", "-l '%s' is not a size above 0", optarg);
            have_len = 1;
            break;
        case 'h': return cli_fs_help(fallocate_help);
        default: return cli_usage_error("fallocate", "bad option");
        }
    }
    if (!have_len || argc - optind != 1)
        return cli_usage_error("fallocate", "expected -l LENGTH and one IMAGE:/path");
    struct target t;
    if (cli_parse_target("fallocate", argv[optind], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = cli_session_open(&s, "fallocate", t.image, kind, 1);
    if (!rc) {
        int fd = CALL(&s, open, t.path, O_WRONLY | O_CREAT, 0644);
        int frc = fd < 0 ? fd : fsapi_allocate(&s.m, fd, off, len, flags);
        if (fd >= 0)
            CALL(&s, close, fd);
        if (frc)
            rc = cli_path_fail("fallocate", frc, t.path);
        rc = cli_session_close(&s, rc, 1);
    }
    free(t.image);
    return rc;
}

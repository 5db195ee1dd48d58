/* cmd_fs_special.c -- `flashlab mknod` and `flashlab xattr`: special
 * files and extended attributes. */
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

/* ---- mknod --------------------------------------------------------------- */

static const char mknod_help[] =
    "usage: flashlab mknod [--mode OCTAL] [--fs KIND] IMAGE:/path TYPE [MAJOR MINOR]\n"
    "\n"
    "Make a special file /path in the file system on IMAGE: TYPE p (a FIFO),\n"
    "s (a socket), c or b (a character or block device, with its MAJOR and\n"
    "MINOR numbers).  --mode sets the permission bits (0644).  LogFS keeps\n"
    "such files (docs/FORMAT.md 13a); the baselines have none (ENOTSUP).\n"
    FS_HELP
    "\n"
    "examples: flashlab mknod fs.img:/fifo p\n"
    "          flashlab mknod --mode 0600 fs.img:/null c 1 3\n";

/* The mode and rdev TYPE [MAJOR MINOR] name; -1 when they are wrong. */
static int node_kind(int argc, char **argv, uint32_t *mode, uint64_t *rdev)
{
    static const char types[] = "pscb";
    static const uint32_t ifmt[] = {S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK};
    const char *t = argv[0], *at = strchr(types, t[0]);
    if (!t[0] || t[1] || !at)
        return cli_usage_error("mknod", "TYPE '%s' is not p, s, c or b", t), -1;
    int dev = at - types >= 2;
    if (argc != (dev ? 3 : 1))
        return cli_usage_error("mknod", dev ? "TYPE %s needs MAJOR and MINOR"
                                            : "TYPE %s takes no device numbers", t), -1;
    *mode |= ifmt[at - types];
    *rdev = 0;
    if (dev) {
        char *e1, *e2;
        unsigned long maj = strtoul(argv[1], &e1, 0), min = strtoul(argv[2], &e2, 0);
        if (*e1 || *e2 || !*argv[1] || !*argv[2] || maj > 0xfff || min > 0xfffff)
            return cli_usage_error("mknod", "MAJOR and MINOR must be numbers "
                                   "(at most 4095 and 1048575)"), -1;
        *rdev = (uint64_t)makedev((unsigned)maj, (unsigned)min);
    }
    return 0;
}

int cmd_mknod(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
                                         {"mode", required_argument, 0, 'm'}, {0, 0, 0, 0}};
    int c;
    uint32_t mode = 0644;
    uint64_t rdev;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hm:", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (cli_parse_kind("mknod", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'm': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 8);
            if (*end || !*optarg || v > 07777)
                return cli_usage_error("mknod", "--mode '%s' is not an octal mode", optarg);
            mode = (uint32_t)v;
            break;
        }
        case 'h': return cli_fs_help(mknod_help);
        default: return cli_usage_error("mknod", "bad option");
        }
    }
    if (argc - optind < 2)
        return cli_usage_error("mknod", "expected IMAGE:/path TYPE");
    if (node_kind(argc - optind - 1, argv + optind + 1, &mode, &rdev))
        return CLI_USAGE;
    struct target t;
    if (cli_parse_target("mknod", argv[optind], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = cli_session_open(&s, "mknod", t.image, kind, 1);
    if (!rc) {
        int frc = fsapi_mknod(&s.m, t.path, mode, rdev);
        if (frc)
            rc = cli_path_fail("mknod", frc, t.path);
        rc = cli_session_close(&s, rc, 1);
    }
    free(t.image);
    return rc;
}

/* ---- xattr --------------------------------------------------------------- */

static const char xattr_help[] =
    "usage: flashlab xattr [--fs KIND] list IMAGE:/path\n"
    "       flashlab xattr [--fs KIND] get IMAGE:/path NAME\n"
    "       flashlab xattr [--fs KIND] set IMAGE:/path NAME VALUE\n"
    "       flashlab xattr [--fs KIND] rm IMAGE:/path NAME\n"
    "\n"
    "List, print, set or remove the extended attributes of /path (a symbolic\n"
    "link itself).  LogFS keeps the user., trusted. and security. namespaces\n"
    "(names up to 255 bytes, values up to 64 KiB; docs/FORMAT.md 13a); the\n"
    "baselines have none (ENOTSUP).  get prints the value as it is.\n"
    FS_HELP
    "\n"
    "examples: flashlab xattr set fs.img:/a user.origin camera\n"
    "          flashlab xattr list fs.img:/a\n";

static int xattr_do(struct session *s, const char *op, const char *path, char **args)
{
    if (!strcmp(op, "set"))
        return fsapi_setxattr(&s->m, path, args[0], args[1], strlen(args[1]), 0);
    if (!strcmp(op, "rm"))
        return fsapi_removexattr(&s->m, path, args[0]);
    int get = !strcmp(op, "get");
    int64_t n = get ? fsapi_getxattr(&s->m, path, args[0], NULL, 0)
                    : fsapi_listxattr(&s->m, path, NULL, 0);
    char *buf = n < 0 ? NULL : malloc((size_t)n + 1);
    if (n >= 0 && !buf)
        return -ENOMEM;
    if (n > 0)
        n = get ? fsapi_getxattr(&s->m, path, args[0], buf, (uint64_t)n)
                : fsapi_listxattr(&s->m, path, buf, (uint64_t)n);
    if (n >= 0 && get)
        fwrite(buf, 1, (size_t)n, stdout);
    for (int64_t i = 0; n > 0 && !get && i < n; i += (int64_t)strlen(buf + i) + 1)
        printf("%s\n", buf + i);
    free(buf);
    return n < 0 ? (int)n : 0;
}

int cmd_xattr(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
                                         {0, 0, 0, 0}};
    int c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (cli_parse_kind("xattr", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return cli_fs_help(xattr_help);
        default: return cli_usage_error("xattr", "bad option");
        }
    }
    static const struct { const char *op; int nargs, writes; } ops[] = {
        {"list", 0, 0}, {"get", 1, 0}, {"set", 2, 1}, {"rm", 1, 1}};
    int k = -1;
    for (int i = 0; optind < argc && i < 4; i++)
        if (!strcmp(argv[optind], ops[i].op))
            k = i;
    if (k < 0)
        return cli_usage_error("xattr", "expected list, get, set or rm");
    if (argc - optind - 2 != ops[k].nargs)
        return cli_usage_error("xattr", "%s takes IMAGE:/path%s", ops[k].op,
                               ops[k].nargs == 2 ? " NAME VALUE" : ops[k].nargs ? " NAME" : "");
    struct target t;
    if (cli_parse_target("xattr", argv[optind + 1], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = cli_session_open(&s, "xattr", t.image, kind, ops[k].writes);
    if (!rc) {
        int frc = xattr_do(&s, ops[k].op, t.path, argv + optind + 2);
        if (frc == -ENODATA)
            rc = cli_fs_fail("xattr", "%s: no attribute %s", t.path, argv[optind + 2]);
        else if (frc)
            rc = cli_path_fail("xattr", frc, t.path);
        rc = cli_session_close(&s, rc, ops[k].writes);
    }
    free(t.image);
    return rc;
}

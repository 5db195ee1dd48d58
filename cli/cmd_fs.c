/* cmd_fs.c -- the file commands: mkfs, ls, cat, put, get, mkdir, rm, rmdir,
 * ln, mv, df and stat on simulator images, for every file system of
 * fs/fsapi.h's table (LogFS and the baselines).
 *
 * Every command opens the image, finds its file system (fsapi_probe, or
 * the kind --fs names), mounts it through its fsapi table, does its work
 * and unmounts (which commits).  Commands that change the file system then save the
 * image; read-only ones (ls, cat, get, df, stat) never write it.  A command
 * that fails does not save either, so IMAGE is left as it was. */
#include "cli.h"
#include "imglock.h"
#include "fsapi.h"
#include "logfs/logfs.h"
#include "nand.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CHUNK (64u * 1024u) /* bytes per read/write when streaming a file */

/* "flashlab CMD: message" on stderr; returns CLI_FAIL. */
static int fs_fail(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fs_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "flashlab %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_FAIL;
}

/* A LogFS error code (negative errno) as a short lower-case phrase. */
static const char *errmsg(int rc)
{
    static char buf[128];
    if (rc == -ENOENT)
        return "no such file";
    snprintf(buf, sizeof buf, "%s", strerror(-rc));
    if (buf[0] >= 'A' && buf[0] <= 'Z')
        buf[0] = (char)(buf[0] - 'A' + 'a');
    return buf;
}

/* The kind of the mounted image (for messages). */
static const char *cur_kind = "this file system";

/* An operation a file system lacks. */
static int unsupported(int rc)
{
    return rc == -ENOSYS || rc == -EOPNOTSUPP;
}

/* "flashlab CMD: what went wrong: /path"; returns CLI_FAIL. */
static int path_fail(const char *cmd, int rc, const char *path)
{
    if (unsupported(rc))
        return fs_fail(cmd, "%s does not support this operation (%s): %s", cur_kind,
                       errmsg(rc), path);
    return fs_fail(cmd, "%s: %s", errmsg(rc), path);
}

/* ---- --fs KIND ------------------------------------------------------------ */

/* "logfs, blockfs, ..." in the order of `order` (fsapi_at or fsapi_probe_at). */
static const char *kind_list(const struct fsapi *(*order)(size_t))
{
    static char buf[256];
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; order(i) && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", order(i)->name);
    return buf;
}

/* The fs --fs names; a usage error naming the valid kinds if none. */
static int parse_kind(const char *cmd, const char *name, const struct fsapi **out)
{
    if (!(*out = fsapi_find(name)))
        return cli_usage_error(cmd, "unknown file system '%s' (one of: %s)", name,
                               kind_list(fsapi_at));
    return CLI_OK;
}

/* The kinds and their summaries, for --help. */
static void print_kinds(void)
{
    printf("\nKINDs (--fs; without it the image's file system is probed):\n");
    for (size_t i = 0; fsapi_at(i); i++)
        printf("  %-14s %s\n", fsapi_at(i)->name, fsapi_at(i)->summary);
}

/* Every file command's --fs paragraph. */
#define FS_HELP                                                               \
    "\n"                                                                      \
    "--fs KIND names the file system on IMAGE; without it the command probes\n" \
    "IMAGE for one (LogFS's superblock, blockfs's, JFFS2's nodes).\n"

/* --help: the text, then the kinds. */
static int help(const char *text)
{
    fputs(text, stdout);
    print_kinds();
    return CLI_OK;
}

/* fs's call op on the session's mount, or -ENOSYS when the table lacks it. */
#define CALL(s, op, ...) \
    ((s)->m.api->op ? (s)->m.api->op((s)->m.fs, __VA_ARGS__) : -ENOSYS)

/* ---- IMAGE:/path --------------------------------------------------------- */

struct target {
    char *image;       /* allocated */
    const char *path;  /* inside the argument */
};

/* Split arg at its first ':' followed by '/'.  Without one, allow_bare
 * makes the whole argument the image and the path "/". */
static int parse_target(const char *cmd, const char *arg, int allow_bare,
                        struct target *t)
{
    const char *sep = strstr(arg, ":/");
    if (!sep && allow_bare) {
        sep = arg + strlen(arg);
        t->path = "/";
    } else if (!sep || sep == arg) {
        return cli_usage_error(cmd, "'%s' is not IMAGE:/path", arg);
    } else {
        t->path = sep + 1;
    }
    size_t n = (size_t)(sep - arg);
    if (!n)
        return cli_usage_error(cmd, "'%s' names no image", arg);
    t->image = malloc(n + 1);
    if (!t->image)
        return fs_fail(cmd, "out of memory");
    memcpy(t->image, arg, n);
    t->image[n] = 0;
    return CLI_OK;
}

/* Whether two image names are the same file. */
static int same_image(const char *a, const char *b)
{
    struct stat x, y;
    if (!strcmp(a, b))
        return 1;
    return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev &&
           x.st_ino == y.st_ino;
}

/* Parse argv[first..argc) as IMAGE:/path arguments on one image. */
static int parse_targets(const char *cmd, int argc, char **argv, int first,
                         struct target *t)
{
    for (int i = first; i < argc; i++) {
        struct target *p = &t[i - first];
        p->image = NULL;
        if (parse_target(cmd, argv[i], 0, p))
            return CLI_USAGE;
        if (i > first && !same_image(t[0].image, p->image))
            return cli_usage_error(cmd, "'%s' and '%s' are on different images",
                                   argv[first], argv[i]);
    }
    return CLI_OK;
}

static void free_targets(struct target *t, int n)
{
    for (int i = 0; i < n; i++)
        free(t[i].image);
    free(t);
}

/* ---- a mounted image ------------------------------------------------------ */

struct session {
    const char *cmd, *image;
    nand_dev *dev;
    struct fsapi_fs m;
    struct imglock lock; /* held by commands that write */
};

/* Mount the fs of m's kind; file commands stamp LogFS files with the
 * host's time, as cp would (fsapi's mount takes options by name, which
 * cannot carry a clock). */
static const char *mount_opts; /* put -o: a baseline's write-time options */

static int mount_kind(struct fsapi_fs *m, nand_dev *dev)
{
    if (m->api != &fsapi_logfs)
        return m->api->mount(dev, mount_opts, &m->fs);
    logfs *fs = NULL;
    int rc = logfs_mount(dev, &(struct logfs_options){.clock = logfs_host_clock}, &fs);
    m->fs = fs;
    return rc;
}

/* Open image and mount its file system: kind's (--fs), else the one
 * fsapi_probe finds. */
static int session_mount(struct session *s, const char *cmd, const char *image,
                         const struct fsapi *kind)
{
    char err[512];
    s->cmd = cmd;
    s->image = image;
    s->m = (struct fsapi_fs){kind, NULL};
    if (nand_open(image, &s->dev, err, sizeof err))
        return fs_fail(cmd, "%s", err);
    if (!s->m.api && !(s->m.api = fsapi_probe(s->dev))) {
        nand_close(s->dev);
        return fs_fail(cmd, "%s: no file system found (tried %s); mkfs one or give --fs",
                       image, kind_list(fsapi_probe_at));
    }
    int rc = mount_kind(&s->m, s->dev);
    if (rc) {
        /* a kind given by --fs whose marks are not there: say so, whatever
         * its mount made of the image */
        if (rc != -EINVAL && s->m.api->probe(s->dev) == 0)
            rc = -EINVAL;
        if (rc == -EPROTO && cli_format_note(image, s->dev) == 2) {
            nand_close(s->dev);
            return fs_fail(cmd, "%s: cannot mount LogFS of that format version", image);
        }
        nand_close(s->dev);
        if (rc == -EINVAL && s->m.api == &fsapi_logfs)
            return fs_fail(cmd, "%s: not a LogFS file system (run flashlab mkfs)",
                           image);
        if (rc == -EINVAL)
            return fs_fail(cmd, "%s: not a %s file system (run flashlab mkfs --fs %s)",
                           image, s->m.api->name, s->m.api->name);
        return fs_fail(cmd, "%s: cannot mount %s: %s", image, s->m.api->name, errmsg(rc));
    }
    if (s->m.api == &fsapi_logfs) {
        cli_format_note(image, s->dev);
        cli_anchor_warning(image, s->m.fs);
    }
    cur_kind = s->m.api->name;
    return CLI_OK;
}

/* session_mount under the image lock: held until session_close when the
 * command writes (writes), else only a check that warns. */
static int session_open(struct session *s, const char *cmd, const char *image,
                        const struct fsapi *kind, int writes)
{
    s->lock.fd = -1;
    if (!writes)
        imglock_read(image, cmd);
    else if (imglock_write(&s->lock, image, cmd, NULL))
        return CLI_FAIL;
    int rc = session_mount(s, cmd, image, kind);
    if (rc)
        imglock_release(&s->lock);
    return rc;
}

/* Unmount (which commits), save the image when save and all went well,
 * close.  rc is the command's exit code so far. */
static int session_close(struct session *s, int rc, int save)
{
    int urc = s->m.api->unmount(s->m.fs);
    if (urc == -EIO && s->m.api == &fsapi_logfs) /* docs/logfs-design.md */
        fprintf(stderr, "%s: warning: the commit met unreadable metadata (media "
                "damage; an unreadable segment-file block turns LogFS read-only): "
                "nothing of this command was saved; run flashlab fsck\n", s->image);
    if (!rc && urc)
        rc = fs_fail(s->cmd, "%s: cannot commit: %s", s->image, errmsg(urc));
    if (!rc && save) {
        int nrc = nand_save(s->dev, s->image);
        if (nrc)
            rc = fs_fail(s->cmd, "%s: cannot save image: %s", s->image,
                         nand_strerror(nrc));
    }
    nand_close(s->dev);
    imglock_release(&s->lock); /* after the save */
    return rc;
}

/* ---- paths and directory listings ----------------------------------------- */

/* dir + "/" + name, as a new string (NULL when out of memory). */
static char *join(const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    while (dl > 0 && dir[dl - 1] == '/')
        dl--;
    char *p = malloc(dl + nl + 2);
    if (p) {
        memcpy(p, dir, dl);
        p[dl] = '/';
        memcpy(p + dl + 1, name, nl + 1);
    }
    return p;
}

/* The last component of path ("" for the root); trailing slashes are
 * dropped into *len. */
static const char *base_name(const char *path, size_t *len)
{
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    *len = n - b;
    return path + b;
}

static int is_root(const char *path)
{
    return path[strspn(path, "/")] == 0;
}

struct entry {
    char *name;
    uint32_t type; /* S_IFMT bits */
};

struct listing {
    struct entry *v;
    size_t n, cap;
    int nomem;
};

static int collect_one(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct listing *l = ctx;
    (void)ino;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct entry *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->nomem = 1;
            return 1;
        }
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n].name = strdup(name))) {
        l->nomem = 1;
        return 1;
    }
    l->v[l->n++].type = type;
    return 0;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static void listing_free(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    *l = (struct listing){0};
}

/* The entries of directory path, sorted by name. */
static int list_dir(struct session *s, const char *path, struct listing *l)
{
    uint64_t cookie = 0;
    *l = (struct listing){0};
    int rc = CALL(s, readdir, path, &cookie, collect_one, l);
    if (!rc && l->nomem)
        rc = -ENOMEM;
    if (rc)
        listing_free(l);
    else if (l->n)
        qsort(l->v, l->n, sizeof *l->v, entry_cmp);
    return rc;
}

static void mode_string(uint32_t mode, char out[11])
{
    out[0] = S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' : S_ISREG(mode) ? '-'
           : S_ISFIFO(mode) ? 'p' : S_ISCHR(mode) ? 'c' : S_ISBLK(mode) ? 'b'
           : S_ISSOCK(mode) ? 's' : '?';
    static const char rwx[] = "rwxrwxrwx";
    for (int i = 0; i < 9; i++)
        out[1 + i] = mode & (0400u >> i) ? rwx[i] : '-';
    out[10] = 0;
}

static const char *type_name(uint32_t mode)
{
    return S_ISDIR(mode) ? "directory" : S_ISLNK(mode) ? "symbolic link"
         : S_ISREG(mode) ? "regular file" : S_ISFIFO(mode) ? "fifo"
         : S_ISCHR(mode) ? "character device" : S_ISBLK(mode) ? "block device"
         : S_ISSOCK(mode) ? "socket" : "other";
}

/* The target of symlink path, as a new string. */
static int read_link(struct session *s, const char *path, uint64_t size, char **out)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return -ENOMEM;
    int64_t n = CALL(s, readlink, path, buf, size);
    if (n < 0) {
        free(buf);
        return (int)n;
    }
    buf[n] = 0;
    *out = buf;
    return 0;
}

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
        case 'h': free(a); return help(mkfs_help);
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

/* ---- ls ---------------------------------------------------------------------- */

static const char ls_help[] =
    "usage: flashlab ls [-l] [--fs KIND] IMAGE[:/path]\n"
    "\n"
    "List a directory of the file system on IMAGE (the root without a path),\n"
    "by name; a file lists just itself.  -l shows mode, links, size (entries,\n"
    "for a directory) and name, and where a symbolic link points.\n"
    FS_HELP
    "\n"
    "example: flashlab ls -l --fs jffs2-scan fs.img:/docs\n";

static int ls_line(struct session *s, const char *path, const char *name, int lng)
{
    if (!lng) {
        printf("%s\n", name);
        return CLI_OK;
    }
    struct fs_stat st;
    int rc = CALL(s, lstat, path, &st);
    if (rc)
        return path_fail(s->cmd, rc, path);
    char mode[11], *target = NULL;
    mode_string(st.mode, mode);
    if (S_ISLNK(st.mode) && (rc = read_link(s, path, st.size, &target)))
        return path_fail(s->cmd, rc, path);
    printf("%s %3" PRIu32 " %10" PRIu64 " %s%s%s\n", mode, st.nlink, st.size, name,
           target ? " -> " : "", target ? target : "");
    free(target);
    return CLI_OK;
}

int cmd_ls(int argc, char **argv)
{
    static const struct option opts[] = {
        {"long", no_argument, 0, 'l'}, {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int lng = 0, c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "lh", opts, NULL)) != -1) {
        switch (c) {
        case 'l': lng = 1; break;
        case 'F':
            if (parse_kind("ls", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(ls_help);
        default: return cli_usage_error("ls", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("ls", "expected one IMAGE[:/path] argument");
    struct target t;
    if (parse_target("ls", argv[optind], 1, &t))
        return CLI_USAGE;
    struct session s;
    int rc = session_open(&s, "ls", t.image, kind, 0);
    if (rc) {
        free(t.image);
        return rc;
    }
    /* like ls(1): -l shows a symlink itself, plain ls what it points to */
    struct fs_stat st;
    int frc = lng ? CALL(&s, lstat, t.path, &st) : CALL(&s, stat, t.path, &st);
    if (frc) {
        rc = path_fail("ls", frc, t.path);
    } else if (!S_ISDIR(st.mode)) {
        rc = ls_line(&s, t.path, t.path, lng);
    } else {
        struct listing l;
        if ((frc = list_dir(&s, t.path, &l)))
            rc = path_fail("ls", frc, t.path);
        for (size_t i = 0; i < l.n && !rc && !frc; i++) {
            char *p = join(t.path, l.v[i].name);
            rc = p ? ls_line(&s, p, l.v[i].name, lng) : fs_fail("ls", "out of memory");
            free(p);
        }
        if (!frc)
            listing_free(&l);
    }
    rc = session_close(&s, rc, 0);
    free(t.image);
    return rc;
}

/* ---- cat / get: copy a file out ----------------------------------------------- */

static int copy_out(struct session *s, const char *path, FILE *out,
                    const char *outname)
{
    struct fs_stat st;
    int rc = CALL(s, stat, path, &st);
    if (!rc && S_ISDIR(st.mode))
        rc = -EISDIR;
    int fd = rc ? rc : CALL(s, open, path, O_RDONLY, 0);
    if (fd < 0)
        return path_fail(s->cmd, fd, path);
    char *buf = malloc(CHUNK);
    rc = buf ? CLI_OK : fs_fail(s->cmd, "out of memory");
    uint64_t off = 0;
    for (int64_t n; !rc && (n = CALL(s, pread, fd, buf, CHUNK, off)) != 0;) {
        if (n < 0)
            rc = path_fail(s->cmd, (int)n, path);
        else if (fwrite(buf, 1, (size_t)n, out) != (size_t)n)
            rc = fs_fail(s->cmd, "%s: write error: %s", outname, strerror(errno));
        else
            off += (uint64_t)n;
    }
    free(buf);
    int crc = CALL(s, close, fd);
    if (!rc && crc)
        rc = path_fail(s->cmd, crc, path);
    return rc;
}

static const char cat_help[] =
    "usage: flashlab cat [--fs KIND] IMAGE:/path...\n"
    "\n"
    "Write files of the file system on IMAGE to standard output.\n"
    FS_HELP
    "\n"
    "example: flashlab cat --fs blockfs fs.img:/docs/README.md\n";

int cmd_cat(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (parse_kind("cat", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(cat_help);
        default: return cli_usage_error("cat", "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error("cat", "expected IMAGE:/path");
    int n = argc - optind;
    struct target *t = calloc((size_t)n, sizeof *t);
    if (!t)
        return fs_fail("cat", "out of memory");
    int rc = parse_targets("cat", argc, argv, optind, t);
    struct session s;
    if (!rc && !(rc = session_open(&s, "cat", t[0].image, kind, 0))) {
        for (int i = 0; i < n && !rc; i++)
            rc = copy_out(&s, t[i].path, stdout, "standard output");
        if (fflush(stdout) && !rc)
            rc = fs_fail("cat", "standard output: write error: %s", strerror(errno));
        rc = session_close(&s, rc, 0);
    }
    free_targets(t, n);
    return rc;
}

static const char get_help[] =
    "usage: flashlab get [--fs KIND] IMAGE:/path HOSTFILE\n"
    "\n"
    "Copy a file out of the file system on IMAGE into HOSTFILE (\"-\":\n"
    "standard output), replacing what HOSTFILE held.\n"
    FS_HELP
    "\n"
    "example: flashlab get --fs jffs2-summary fs.img:/data.bin data.bin\n";

int cmd_get(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (parse_kind("get", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(get_help);
        default: return cli_usage_error("get", "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("get", "expected IMAGE:/path and HOSTFILE");
    const char *host = argv[optind + 1];
    struct target t;
    if (parse_target("get", argv[optind], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = session_open(&s, "get", t.image, kind, 0);
    if (rc) {
        free(t.image);
        return rc;
    }
    /* check the source before touching HOSTFILE */
    struct fs_stat st;
    int frc = CALL(&s, stat, t.path, &st);
    if (!frc && S_ISDIR(st.mode))
        frc = -EISDIR;
    int to_stdout = !strcmp(host, "-");
    FILE *out = NULL;
    if (frc)
        rc = path_fail("get", frc, t.path);
    else if (!(out = to_stdout ? stdout : fopen(host, "wb")))
        rc = fs_fail("get", "%s: cannot create: %s", host, strerror(errno));
    if (!rc)
        rc = copy_out(&s, t.path, out, to_stdout ? "standard output" : host);
    if (out && (to_stdout ? fflush(out) : fclose(out)) && !rc)
        rc = fs_fail("get", "%s: write error: %s", host, strerror(errno));
    if (rc && out && !to_stdout)
        remove(host); /* no half-copied files */
    rc = session_close(&s, rc, 0);
    free(t.image);
    return rc;
}

/* ---- put ---------------------------------------------------------------------- */

static const char put_help[] =
    "usage: flashlab put [--fs KIND] [-o OPTIONS] HOSTFILE IMAGE:/path\n"
    "\n"
    "Copy HOSTFILE (\"-\": standard input) into the file system on IMAGE,\n"
    "creating /path or replacing its content, and save the image.\n"
    "-o passes a baseline's mount options, \"key=value,...\" (as mkfs -o),\n"
    "for this write: e.g. jffs2's compress=none|zlib|rtime|lzo, the\n"
    "compressor of the data written now (docs/jffs2-baseline.md).\n"
    FS_HELP
    "\n"
    "example: flashlab put --fs blockfs data.bin fs.img:/data.bin\n"
    "         flashlab put --fs jffs2-scan -o compress=zlib log.txt fs.img:/log.txt\n";

int cmd_put(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
                                         {"options", required_argument, 0, 'o'}, {0, 0, 0, 0}};
    int c;
    const struct fsapi *kind = NULL;
    const char *o = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (parse_kind("put", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'o': o = optarg; break;
        case 'h': return help(put_help);
        default: return cli_usage_error("put", "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("put", "expected HOSTFILE and IMAGE:/path");
    if (o && (!kind || kind == &fsapi_logfs || (kind->check_options && kind->check_options(o))))
        return cli_usage_error("put", "-o: needs --fs with a baseline kind that takes '%s'", o);
    mount_opts = o;
    const char *host = argv[optind];
    struct target t;
    if (parse_target("put", argv[optind + 1], 0, &t))
        return CLI_USAGE;
    int from_stdin = !strcmp(host, "-");
    FILE *in = from_stdin ? stdin : fopen(host, "rb");
    struct stat hst;
    uint32_t mode = 0644;
    int rc = CLI_OK;
    if (!in)
        rc = fs_fail("put", "%s: cannot open: %s", host, strerror(errno));
    else if (fstat(fileno(in), &hst))
        rc = fs_fail("put", "%s: cannot stat: %s", host, strerror(errno));
    else if (S_ISDIR(hst.st_mode))
        rc = fs_fail("put", "%s: is a directory", host);
    else if (S_ISREG(hst.st_mode))
        mode = (uint32_t)hst.st_mode & 0777;
    struct session s;
    if (rc || (rc = session_open(&s, "put", t.image, kind, 1))) {
        if (in && !from_stdin)
            fclose(in);
        free(t.image);
        return rc;
    }
    uint64_t total = 0;
    char *buf = malloc(CHUNK);
    int fd = CALL(&s, open, t.path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0)
        rc = path_fail("put", fd, t.path);
    else if (!buf)
        rc = fs_fail("put", "out of memory");
    while (!rc) {
        size_t got = fread(buf, 1, CHUNK, in);
        if (got) {
            int64_t n = CALL(&s, pwrite, fd, buf, got, total);
            if (n < 0)
                rc = path_fail("put", (int)n, t.path);
            else if ((uint64_t)n != got)
                rc = fs_fail("put", "%s: short write (%" PRId64 " of %zu bytes)",
                             t.path, n, got);
            total += got;
        }
        if (!rc && got < CHUNK) {
            if (ferror(in))
                rc = fs_fail("put", "%s: read error: %s", host, strerror(errno));
            break;
        }
    }
    if (fd >= 0) {
        int crc = CALL(&s, close, fd);
        if (!rc && crc)
            rc = path_fail("put", crc, t.path);
    }
    free(buf);
    if (!from_stdin)
        fclose(in);
    rc = session_close(&s, rc, 1);
    if (!rc)
        printf("%s: %" PRIu64 " bytes\n", t.path, total);
    free(t.image);
    return rc;
}

/* ---- mkdir ------------------------------------------------------------------------ */

static const char mkdir_help[] =
    "usage: flashlab mkdir [-p] [--fs KIND] IMAGE:/path...\n"
    "\n"
    "Make directories in the file system on IMAGE.  -p makes missing parents\n"
    "too and accepts directories that already exist.\n"
    FS_HELP
    "\n"
    "example: flashlab mkdir -p --fs jffs2-scan fs.img:/a/b\n";

static int mkdir_one(struct session *s, const char *path, int parents)
{
    if (!parents) {
        int rc = CALL(s, mkdir, path, 0755);
        return rc ? path_fail(s->cmd, rc, path) : CLI_OK;
    }
    char *p = strdup(path);
    if (!p)
        return fs_fail(s->cmd, "out of memory");
    size_t n = strlen(p);
    int rc = CLI_OK;
    for (size_t i = 1; i <= n && !rc; i++) {
        if (p[i] != '/' && p[i] != 0)
            continue;
        if (p[i - 1] == '/')
            continue; /* a run of slashes */
        char save = p[i];
        p[i] = 0;
        int frc = CALL(s, mkdir, p, 0755);
        if (frc == -EEXIST) {
            struct fs_stat st;
            frc = CALL(s, stat, p, &st);
            if (!frc && !S_ISDIR(st.mode))
                frc = -ENOTDIR;
        }
        if (frc)
            rc = path_fail(s->cmd, frc, p);
        p[i] = save;
    }
    free(p);
    return rc;
}

int cmd_mkdir(int argc, char **argv)
{
    static const struct option opts[] = {
        {"parents", no_argument, 0, 'p'}, {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int parents = 0, c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ph", opts, NULL)) != -1) {
        switch (c) {
        case 'p': parents = 1; break;
        case 'F':
            if (parse_kind("mkdir", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(mkdir_help);
        default: return cli_usage_error("mkdir", "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error("mkdir", "expected IMAGE:/path");
    int n = argc - optind;
    struct target *t = calloc((size_t)n, sizeof *t);
    if (!t)
        return fs_fail("mkdir", "out of memory");
    int rc = parse_targets("mkdir", argc, argv, optind, t);
    struct session s;
    if (!rc && !(rc = session_open(&s, "mkdir", t[0].image, kind, 1))) {
        for (int i = 0; i < n && !rc; i++)
            rc = mkdir_one(&s, t[i].path, parents);
        rc = session_close(&s, rc, 1);
    }
    free_targets(t, n);
    return rc;
}

/* ---- rm / rmdir --------------------------------------------------------------------- */

static const char rm_help[] =
    "usage: flashlab rm [-r] [--fs KIND] IMAGE:/path...\n"
    "\n"
    "Remove files, symbolic links and empty directories from the file system\n"
    "on IMAGE.  -r removes directories with everything in them.\n"
    FS_HELP
    "\n"
    "example: flashlab rm -r --fs blockfs fs.img:/a\n";

static const char rmdir_help[] =
    "usage: flashlab rmdir [--fs KIND] IMAGE:/path...\n"
    "\n"
    "Remove empty directories from the file system on IMAGE.\n"
    FS_HELP
    "\n"
    "example: flashlab rmdir --fs jffs2-scan fs.img:/a/b\n";

static int rm_one(struct session *s, const char *path, int recursive)
{
    struct fs_stat st;
    int rc = CALL(s, lstat, path, &st);
    if (rc)
        return path_fail(s->cmd, rc, path);
    if (!S_ISDIR(st.mode)) {
        rc = CALL(s, unlink, path);
        return rc ? path_fail(s->cmd, rc, path) : CLI_OK;
    }
    if (is_root(path))
        return fs_fail(s->cmd, "cannot remove the root directory");
    if (recursive) {
        struct listing l;
        if ((rc = list_dir(s, path, &l)))
            return path_fail(s->cmd, rc, path);
        for (size_t i = 0; i < l.n && !rc; i++) {
            char *p = join(path, l.v[i].name);
            rc = p ? rm_one(s, p, 1) : fs_fail(s->cmd, "out of memory");
            free(p);
        }
        listing_free(&l);
        if (rc)
            return rc;
    }
    rc = CALL(s, rmdir, path);
    if (rc == -ENOTEMPTY && !recursive)
        return fs_fail(s->cmd, "%s (use rm -r): %s", errmsg(rc), path);
    return rc ? path_fail(s->cmd, rc, path) : CLI_OK;
}

static int rm_main(int argc, char **argv, const char *cmd, int is_rmdir)
{
    static const struct option opts[] = {
        {"recursive", no_argument, 0, 'r'}, {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
        {0, 0, 0, 0}};
    int recursive = 0, c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, is_rmdir ? "h" : "rRh", opts, NULL)) != -1) {
        switch (c) {
        case 'r': case 'R':
            if (is_rmdir)
                return cli_usage_error(cmd, "bad option");
            recursive = 1;
            break;
        case 'F':
            if (parse_kind(cmd, optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(is_rmdir ? rmdir_help : rm_help);
        default: return cli_usage_error(cmd, "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "expected IMAGE:/path");
    int n = argc - optind;
    struct target *t = calloc((size_t)n, sizeof *t);
    if (!t)
        return fs_fail(cmd, "out of memory");
    int rc = parse_targets(cmd, argc, argv, optind, t);
    struct session s;
    if (!rc && !(rc = session_open(&s, cmd, t[0].image, kind, 1))) {
        for (int i = 0; i < n && !rc; i++) {
            if (!is_rmdir) {
                rc = rm_one(&s, t[i].path, recursive);
            } else if (is_root(t[i].path)) {
                rc = fs_fail(cmd, "cannot remove the root directory");
            } else {
                int frc = CALL(&s, rmdir, t[i].path);
                rc = frc ? path_fail(cmd, frc, t[i].path) : CLI_OK;
            }
        }
        rc = session_close(&s, rc, 1);
    }
    free_targets(t, n);
    return rc;
}

int cmd_rm(int argc, char **argv)
{
    return rm_main(argc, argv, "rm", 0);
}

int cmd_rmdir(int argc, char **argv)
{
    return rm_main(argc, argv, "rmdir", 1);
}

/* ---- ln / mv -------------------------------------------------------------------------- */

static const char ln_help[] =
    "usage: flashlab ln [-s] [--fs KIND] IMAGE:/target IMAGE:/linkname\n"
    "\n"
    "Make a hard link /linkname to the file /target in the file system on\n"
    "IMAGE; -s makes a symbolic link holding the path /target instead (which\n"
    "need not exist).  When /linkname is a directory the link goes into it.\n"
    "A file system without links says so.\n"
    FS_HELP
    "\n"
    "example: flashlab ln -s --fs jffs2-scan fs.img:/a/b fs.img:/link\n";

static const char mv_help[] =
    "usage: flashlab mv [--fs KIND] IMAGE:/from IMAGE:/to\n"
    "\n"
    "Rename /from to /to in the file system on IMAGE, replacing a file (or\n"
    "empty directory) /to.  When /to is a directory, /from moves into it.\n"
    FS_HELP
    "\n"
    "example: flashlab mv --fs blockfs fs.img:/a/f fs.img:/g\n";

/* dst, or dst/basename(src) when dst is an existing directory. */
static char *destination(struct session *s, const char *src, const char *dst)
{
    struct fs_stat st;
    size_t bl;
    const char *b = base_name(src, &bl);
    if (CALL(s, stat, dst, &st) || !S_ISDIR(st.mode) || !bl)
        return strdup(dst);
    char *name = strndup(b, bl);
    char *p = name ? join(dst, name) : NULL;
    free(name);
    return p;
}

static int link_main(int argc, char **argv, const char *cmd)
{
    static const struct option opts[] = {
        {"symbolic", no_argument, 0, 's'}, {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
        {0, 0, 0, 0}};
    int is_mv = !strcmp(cmd, "mv"), sym = 0, c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, is_mv ? "h" : "sh", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (is_mv)
                return cli_usage_error(cmd, "bad option");
            sym = 1;
            break;
        case 'F':
            if (parse_kind(cmd, optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(is_mv ? mv_help : ln_help);
        default: return cli_usage_error(cmd, "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(cmd, is_mv ? "expected IMAGE:/from and IMAGE:/to"
                                          : "expected IMAGE:/target and IMAGE:/linkname");
    struct target *t = calloc(2, sizeof *t);
    if (!t)
        return fs_fail(cmd, "out of memory");
    int rc = parse_targets(cmd, argc, argv, optind, t);
    struct session s;
    if (!rc && !(rc = session_open(&s, cmd, t[0].image, kind, 1))) {
        const char *src = t[0].path;
        char *dst = destination(&s, src, t[1].path);
        int frc = !dst ? -ENOMEM
                : is_mv ? CALL(&s, rename, src, dst)
                : sym ? CALL(&s, symlink, src, dst)
                : CALL(&s, link, src, dst);
        struct fs_stat st;
        int src_rc = sym || !frc ? 0 : CALL(&s, lstat, src, &st);
        if (!frc)
            rc = CLI_OK;
        else if (!dst)
            rc = fs_fail(cmd, "out of memory");
        else if (src_rc) /* the source is what is wrong */
            rc = path_fail(cmd, src_rc, src);
        else if (is_mv && frc == -EINVAL)
            rc = fs_fail(cmd, "cannot move a directory into itself: %s -> %s",
                         src, dst);
        else if (frc == -EBUSY)
            rc = fs_fail(cmd, "cannot %s the root directory",
                         is_mv ? "move or replace" : "link");
        else if (!is_mv && frc == -EPERM)
            rc = fs_fail(cmd, "cannot hard-link a directory: %s", src);
        else
            rc = path_fail(cmd, frc, dst);
        free(dst);
        rc = session_close(&s, rc, 1);
    }
    free_targets(t, 2);
    return rc;
}

int cmd_ln(int argc, char **argv)
{
    return link_main(argc, argv, "ln");
}

int cmd_mv(int argc, char **argv)
{
    return link_main(argc, argv, "mv");
}

/* ---- df ----------------------------------------------------------------------------------- */

static const char df_help[] =
    "usage: flashlab df [--fs KIND] IMAGE\n"
    "\n"
    "Show the space of the file system on IMAGE: block size, total and free\n"
    "bytes, and files (inodes allocated).  For LogFS, free leaves out the\n"
    "cleaner's reserve, and it shows the bytes the tree references (live)\n"
    "and the number of the last commit, then where the device's space went:\n"
    "the bad blocks, the superblock and its backup, the anchor ring, the\n"
    "segments held back outside the capacity (the cleaner's reserve, the\n"
    "open write areas), the cleaner's headroom (live data may fill at most 85% of the\n"
    "rest), leaving total; and of total, live (file data and metadata the\n"
    "tree references), not yet committed, and free.  For the other kinds, the\n"
    "fs's name and the bytes used (total - free).\n"
    FS_HELP
    "\n"
    "examples:\n"
    "  flashlab df fs.img\n"
    "  flashlab df --fs jffs2-summary fs.img\n";

static void print_bytes(const char *what, uint64_t n)
{
    int mib = n >= 1048576;
    printf("%-11s %" PRIu64 " bytes (%.1f %s)\n", what, n,
           (double)n / (mib ? 1048576.0 : 1024.0), mib ? "MiB" : "KiB");
}

int cmd_df(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (parse_kind("df", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(df_help);
        default: return cli_usage_error("df", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("df", "expected one IMAGE argument");
    struct session s;
    int rc = session_open(&s, "df", argv[optind], kind, 0);
    if (rc)
        return rc;
    struct fs_statfs sf;
    struct logfs_stats st = {0};
    int is_logfs = s.m.api == &fsapi_logfs;
    int frc = CALL(&s, statfs, &sf);
    if (is_logfs)
        logfs_get_stats(s.m.fs, &st);
    if (frc) {
        rc = unsupported(frc) ? fs_fail("df", "%s does not report its space", s.m.api->name)
                              : fs_fail("df", "%s: %s", argv[optind], errmsg(frc));
    } else {
        if (!is_logfs)
            printf("%-11s %s\n", "fs:", s.m.api->name);
        printf("%-11s %u\n", "block size:", sf.block_size);
        print_bytes("total:", sf.total_bytes);
        print_bytes("free:", sf.free_bytes);
        if (is_logfs)
            print_bytes("live:", st.live_bytes);
        else
            print_bytes("used:", sf.total_bytes - (sf.free_bytes < sf.total_bytes
                                                   ? sf.free_bytes : sf.total_bytes));
        printf("%-11s %" PRIu64 "\n", "files:", sf.files);
        if (is_logfs) {
            printf("%-11s %" PRIu64 "\n", "commits:", st.commits);
            /* where the device's space went, from the roles of its blocks */
            const struct nand_config *cfg = nand_get_config(s.dev);
            uint64_t nb = nand_blocks(cfg), eb = (uint64_t)cfg->geo.page_size *
                                                 cfg->geo.pages_per_block;
            uint64_t bad = 0, sb = 0, anchor = 0, segs = 0;
            for (uint64_t b = 0; b < nb; b++) {
                struct nand_block_info bi;
                const char *role = logfs_block_role(s.m.fs, (uint32_t)b);
                if (!nand_block_info(s.dev, (nand_block_t)b, &bi) &&
                    (bi.factory_bad || bi.grown_bad || bi.marked_bad))
                    bad++;
                else if (!strcmp(role, "superblock"))
                    sb++;
                else if (!strcmp(role, "anchor"))
                    anchor++;
                else
                    segs++;
            }
            /* the cleaner may fill 85% of the segments it manages (total) */
            uint64_t managed = eb ? (sf.total_bytes * 100 / 85 + eb - 1) / eb : 0;
            if (managed > segs)
                managed = segs;
            uint64_t held = segs - managed, head = managed * eb - sf.total_bytes;
            uint64_t used = sf.total_bytes - sf.free_bytes;
            uint64_t pend = used > st.live_bytes ? used - st.live_bytes : 0;
            printf("\nwhere the space went (erase blocks of %" PRIu64 " KiB):\n", eb / 1024);
#define DF_ROW(what, bytes, fmt, ...) \
            printf("  %-18s %9.2f MiB  " fmt "\n", what, (double)(bytes) / 1048576.0, __VA_ARGS__)
            DF_ROW("device", nb * eb, "%" PRIu64 " erase blocks", nb);
            DF_ROW("- bad blocks", bad * eb, "%" PRIu64 " blocks (factory or grown bad)", bad);
            DF_ROW("- superblocks", sb * eb, "%" PRIu64 " blocks (block 0 and its backup)", sb);
            DF_ROW("- anchor ring", anchor * eb, "%" PRIu64 " blocks (mkfs --anchor-blocks)",
                   anchor);
            DF_ROW("- held back", held * eb, "%" PRIu64 " segments outside the capacity "
                   "(mkfs --reserve for the cleaner, the open write areas)", held);
            DF_ROW("- cleaner headroom", head, "%s", "15% of the rest: live data fills at "
                   "most 85% of the segments, so a victim is at most 85% full");
            DF_ROW("= total", sf.total_bytes, "%s", "what files may use");
            DF_ROW("  - live", st.live_bytes, "%s", "file data and metadata the tree "
                   "references (committed)");
            DF_ROW("  - not committed", pend, "%s", "written, waiting for the next commit");
            DF_ROW("  = free", sf.free_bytes, "%s", "");
#undef DF_ROW
        }
    }
    return session_close(&s, rc, 0);
}

/* ---- stat ---------------------------------------------------------------------------------- */

static const char stat_help[] =
    "usage: flashlab stat [--fs KIND] IMAGE:/path\n"
    "\n"
    "Show the inode of /path in the file system on IMAGE (a symbolic link\n"
    "itself, not what it points to).  Times are seconds of the device's\n"
    "simulated clock.\n"
    FS_HELP
    "\n"
    "example: flashlab stat --fs blockfs fs.img:/a\n";

int cmd_stat(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (parse_kind("stat", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(stat_help);
        default: return cli_usage_error("stat", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("stat", "expected one IMAGE:/path argument");
    struct target t;
    if (parse_target("stat", argv[optind], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = session_open(&s, "stat", t.image, kind, 0);
    if (rc) {
        free(t.image);
        return rc;
    }
    struct fs_stat st;
    char *target = NULL;
    int frc = CALL(&s, lstat, t.path, &st);
    if (!frc && S_ISLNK(st.mode))
        frc = read_link(&s, t.path, st.size, &target);
    if (frc) {
        rc = path_fail("stat", frc, t.path);
    } else {
        char mode[11];
        mode_string(st.mode, mode);
        printf("path:   %s\n", t.path);
        printf("type:   %s\n", type_name(st.mode));
        if (target)
            printf("target: %s\n", target);
        printf("inode:  %" PRIu64 "\n", st.ino);
        printf("mode:   %04o (%s)\n", st.mode & 07777u, mode);
        printf("nlink:  %" PRIu32 "\n", st.nlink);
        printf("uid:    %" PRIu32 "\ngid:    %" PRIu32 "\n", st.uid, st.gid);
        printf("size:   %" PRIu64 "%s\n", st.size,
               S_ISDIR(st.mode) ? " entries" : " bytes");
        if (S_ISCHR(st.mode) || S_ISBLK(st.mode))
            printf("device: %u, %u\n", major((dev_t)st.rdev), minor((dev_t)st.rdev));
        printf("atime:  %.9f\n", (double)st.atime / 1e9);
        printf("mtime:  %.9f\n", (double)st.mtime / 1e9);
        printf("ctime:  %.9f\n", (double)st.ctime / 1e9);
    }
    free(target);
    rc = session_close(&s, rc, 0);
    free(t.image);
    return rc;
}

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
            if (parse_kind("mknod", optarg, &kind))
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
        case 'h': return help(mknod_help);
        default: return cli_usage_error("mknod", "bad option");
        }
    }
    if (argc - optind < 2)
        return cli_usage_error("mknod", "expected IMAGE:/path TYPE");
    if (node_kind(argc - optind - 1, argv + optind + 1, &mode, &rdev))
        return CLI_USAGE;
    struct target t;
    if (parse_target("mknod", argv[optind], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = session_open(&s, "mknod", t.image, kind, 1);
    if (!rc) {
        int frc = fsapi_mknod(&s.m, t.path, mode, rdev);
        if (frc)
            rc = path_fail("mknod", frc, t.path);
        rc = session_close(&s, rc, 1);
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
            if (parse_kind("xattr", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return help(xattr_help);
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
    if (parse_target("xattr", argv[optind + 1], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = session_open(&s, "xattr", t.image, kind, ops[k].writes);
    if (!rc) {
        int frc = xattr_do(&s, ops[k].op, t.path, argv + optind + 2);
        if (frc == -ENODATA)
            rc = fs_fail("xattr", "%s: no attribute %s", t.path, argv[optind + 2]);
        else if (frc)
            rc = path_fail("xattr", frc, t.path);
        rc = session_close(&s, rc, ops[k].writes);
    }
    free(t.image);
    return rc;
}

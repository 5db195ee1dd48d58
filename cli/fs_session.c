/* fs_session.c -- what the file commands share (fs_cmd.h): their messages,
 * --fs KIND, IMAGE:/path arguments, and the session: an image opened, its
 * file system found (fsapi_probe, or the kind --fs names) and mounted
 * through its fsapi table, unmounted (which commits) and saved. */
#include "fs_cmd.h"
#include "nand.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

/* "flashlab CMD: message" on stderr; returns CLI_FAIL. */
int cli_fs_fail(const char *cmd, const char *fmt, ...)
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
const char *cli_errmsg(int rc)
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
int cli_unsupported(int rc)
{
    return rc == -ENOSYS || rc == -EOPNOTSUPP;
}

/* "flashlab CMD: what went wrong: /path"; returns CLI_FAIL. */
int cli_path_fail(const char *cmd, int rc, const char *path)
{
    if (cli_unsupported(rc))
        return cli_fs_fail(cmd, "%s does not support this operation (%s): %s", cur_kind,
                       cli_errmsg(rc), path);
    return cli_fs_fail(cmd, "%s: %s", cli_errmsg(rc), path);
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
int cli_parse_kind(const char *cmd, const char *name, const struct fsapi **out)
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

/* --help: the text, then the kinds. */
int cli_fs_help(const char *text)
{
    fputs(text, stdout);
    print_kinds();
    return CLI_OK;
}

/* The options a command takes alone, --fs KIND and --help: -1 when the
 * command goes on (optind at its first argument), else its exit code. */
int cli_fs_common_opts(const char *cmd, int argc, char **argv, const char *help,
                   const struct fsapi **kind)
{
    static const struct option opts[] = {
        {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (cli_parse_kind(cmd, optarg, kind))
                return CLI_USAGE;
            break;
        case 'h': return cli_fs_help(help);
        default: return cli_usage_error(cmd, "bad option");
        }
    }
    return -1;
}

/* ---- IMAGE:/path --------------------------------------------------------- */

/* Split arg at its first ':' followed by '/'.  Without one, allow_bare
 * makes the whole argument the image and the path "/". */
int cli_parse_target(const char *cmd, const char *arg, int allow_bare,
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
        return cli_fs_fail(cmd, "out of memory");
    memcpy(t->image, arg, n);
    t->image[n] = 0;
    return CLI_OK;
}

/* ---- a mounted image ------------------------------------------------------ */


static const char *mount_opts; /* put -o: write-time options (put checked them) */

void cli_session_set_options(const char *options)
{
    mount_opts = options;
}

/* Mount the fs of m's kind; file commands stamp files with the host's
 * time, as cp would (clock=host, where the kind has a clock), unless -o
 * epoch= asks for the simulated clock. */
static int mount_kind(struct fsapi_fs *m, nand_dev *dev)
{
    char opts[1024];
    cli_host_clock_options(m->api, mount_opts, opts, sizeof opts);
    return m->api->mount(dev, opts, &m->fs);
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
        return cli_fs_fail(cmd, "%s", err);
    if (!s->m.api && !(s->m.api = fsapi_probe(s->dev))) {
        nand_close(s->dev);
        return cli_fs_fail(cmd, "%s: no file system found (tried %s); mkfs one or give --fs",
                       image, kind_list(fsapi_probe_at));
    }
    nand_wait(s->dev); /* the mount begins on an idle chip */
    nand_get_stats(s->dev, &s->mst0);
    s->mt0 = nand_now(s->dev);
    int rc = mount_kind(&s->m, s->dev);
    nand_get_stats(s->dev, &s->mst1);
    s->mt1 = nand_now(s->dev);
    if (rc) {
        /* a kind given by --fs whose marks are not there: say so, whatever
         * its mount made of the image */
        if (rc != -EINVAL && s->m.api->probe(s->dev) == 0)
            rc = -EINVAL;
        if (rc == -EPROTO && cli_format_note(image, s->m.api, s->dev) == 2) {
            nand_close(s->dev);
            return cli_fs_fail(cmd, "%s: cannot mount %s of that format version", image,
                           s->m.api->name);
        }
        nand_close(s->dev);
        if (rc == -EOPNOTSUPP && mount_opts && strstr(mount_opts, "compress="))
            return cli_fs_fail(cmd, "%s: this %s cannot store compressed data (an older format "
                           "version: copy the files into a new mkfs to compress them)",
                           image, s->m.api->name);
        if (rc == -EINVAL)
            return cli_fs_fail(cmd, "%s: not a %s file system (run flashlab mkfs --fs %s)",
                           image, s->m.api->name, s->m.api->name);
        return cli_fs_fail(cmd, "%s: cannot mount %s: %s", image, s->m.api->name, cli_errmsg(rc));
    }
    cli_format_note(image, s->m.api, s->dev);
    cli_anchor_warning(image, &s->m);
    cur_kind = s->m.api->name;
    return CLI_OK;
}

/* session_mount under the image lock: held until session_close when the
 * command writes (writes), else only a check that warns. */
int cli_session_open(struct session *s, const char *cmd, const char *image,
                 const struct fsapi *kind, int writes)
{
    s->lock.l = NULL;
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
int cli_session_close(struct session *s, int rc, int save)
{
    int urc = s->m.api->unmount(s->m.fs);
    if (urc == -EIO && (s->m.api->features & FSAPI_F_FSCK)) /* docs/logfs-design.md */
        fprintf(stderr, "%s: warning: the commit met unreadable metadata (media "
                "damage; LogFS: an unreadable segment-file block turns it read-only): "
                "nothing of this command was saved; run flashlab fsck\n", s->image);
    if (!rc && urc)
        rc = cli_fs_fail(s->cmd, "%s: cannot commit: %s", s->image, cli_errmsg(urc));
    if (!rc && save) {
        int nrc = nand_save(s->dev, s->image);
        if (nrc)
            rc = cli_fs_fail(s->cmd, "%s: cannot save image: %s", s->image,
                         nand_strerror(nrc));
    }
    nand_close(s->dev);
    imglock_release(&s->lock); /* after the save */
    return rc;
}

/* ---- modes, times and links ----------------------------------------------- */

void cli_time_string(int64_t ns, int frac, char *out, size_t cap)
{
    int64_t sec = ns / 1000000000, rem = ns % 1000000000;
    if (rem < 0) /* floor, so that -0.5 s is 23:59:59.5 of the day before */
        sec--, rem += 1000000000;
    time_t t = (time_t)sec;
    struct tm tm;
    char day[32];
    if ((int64_t)t != sec || !gmtime_r(&t, &tm) ||
        !strftime(day, sizeof day, frac ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M", &tm)) {
        snprintf(out, cap, "?");
        return;
    }
    if (frac)
        snprintf(out, cap, "%s.%09lldZ", day, (long long)rem);
    else
        snprintf(out, cap, "%s", day);
}

void cli_mode_string(uint32_t mode, char out[11])
{
    out[0] = S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' : S_ISREG(mode) ? '-'
           : S_ISFIFO(mode) ? 'p' : S_ISCHR(mode) ? 'c' : S_ISBLK(mode) ? 'b'
           : S_ISSOCK(mode) ? 's' : '?';
    static const char rwx[] = "rwxrwxrwx";
    for (int i = 0; i < 9; i++)
        out[1 + i] = mode & (0400u >> i) ? rwx[i] : '-';
    out[10] = 0;
}

const char *cli_type_name(uint32_t mode)
{
    return S_ISDIR(mode) ? "directory" : S_ISLNK(mode) ? "symbolic link"
         : S_ISREG(mode) ? "regular file" : S_ISFIFO(mode) ? "fifo"
         : S_ISCHR(mode) ? "character device" : S_ISBLK(mode) ? "block device"
         : S_ISSOCK(mode) ? "socket" : "other";
}

/* The target of symlink path, as a new string. */
int cli_read_link(struct session *s, const char *path, uint64_t size, char **out)
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

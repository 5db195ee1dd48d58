/* cmd_mount.c -- `flashlab mount`: a LogFS image as a real file system
 * through FUSE (libfuse3, high-level API), and `flashlab stats`, which
 * prints a mounted image's counters.
 *
 * Order of a mount, so that every error shows on the terminal and leaves
 * nothing mounted: FUSE options are checked (fuse_new), the image is
 * locked, opened and mounted, the kernel mount is made, and only then does
 * the process go to the background.  At unmount LogFS commits and the
 * image is saved (nand_save: a temporary file renamed over IMAGE), unless
 * the mount was read-only or the power was cut.  The image lock
 * (imglock.c) is held from before the open until after that save; fsync
 * makes the flash durable in IMAGE.journal (nand_sync) meanwhile. */
#include "cli.h"
#include "imglock.h"
#include "fs_cmd.h"
#include "mount_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

static const char mount_help[] =
    "usage: flashlab mount [--fs KIND] [--block] [-f] [-d] [-o OPTION[,OPTION...]]\n"
    "                      [--trace FILE] [--cut-after-ops N | --cut-at-time T]\n"
    "                      [--save-after-cut] IMAGE MOUNTPOINT\n"
    "\n"
    "Mount the file system on IMAGE at MOUNTPOINT through FUSE, and go to the\n"
    "background once it is mounted (-f: stay in the foreground; -d: FUSE\n"
    "debug output, implies -f).  Any kind is served (logfs, jffs2-scan,\n"
    "jffs2-summary, blockfs, ftl), found by its marks or named by --fs KIND; what\n"
    "a kind lacks (chmod on the baselines) fails with ENOTSUP.  The rest of\n"
    "this text is about LogFS.  Unmount with `fusermount3 -u MOUNTPOINT`\n"
    "(or SIGINT/SIGTERM): LogFS commits and IMAGE is saved (atomically, a\n"
    "temporary file renamed over it) when the process exits.  fsync (and\n"
    "`sync FILE`) on the mount commits LogFS and appends what changed on\n"
    "flash to IMAGE.journal, so a killed mount loses nothing synced.\n"
    "\n"
    "The image is locked (IMAGE.lock) from before it is opened until after\n"
    "it is saved: commands that write it refuse (\"IMAGE is in use by\n"
    "flashlab mount on M (pid N)\"), commands that read it warn and read the\n"
    "last synced state, and any command -- a new mount too -- started right\n"
    "after `fusermount3 -u` waits for the save (docs/mount.md).\n"
    "\n"
    "Threading: libfuse runs several threads, and one global mutex is held\n"
    "around every LogFS call (LogFS is single-threaded), so the file system\n"
    "serves one request at a time.\n"
    "\n"
    "-o takes the fs's options (the keys of `flashlab mkfs --fs KIND\n"
    "--help-options`; LogFS: cache=1M, dirty=256K, gc_policy=...) and FUSE\n"
    "mount options (allow_other, ro, max_write=N, ...) in one list; keys the\n"
    "fs knows go to it, the others to FUSE.  readonly=1 mounts both\n"
    "read-only; ro mounts the kernel's read-only but keeps the fs writable\n"
    "under the lock, so that `mount -o remount,rw` works; IMAGE is saved only\n"
    "when something was written.  The kernel checks permissions\n"
    "(default_permissions); only the mounting user may enter the mount\n"
    "unless -o allow_other, so conformance suites that switch uids\n"
    "(pjdfstest: `make check-posix`) need -o allow_other, as root.\n"
    "\n"
    "Timestamps are the host's clock (CLOCK_REALTIME, in ns); -o epoch=DATE\n"
    "uses LogFS's deterministic simulated clock plus DATE instead.\n"
    "\n"
    "/.flashlab-stats is a read-only virtual file (not listed by readdir)\n"
    "with LogFS, NAND and latency counters; `flashlab stats MOUNTPOINT`\n"
    "prints it.\n"
    "\n"
    "  --block             serve a block device: IMAGE must hold a kind whose\n"
    "                      namespace is one file (ftl), exposed as\n"
    "                      MOUNTPOINT/disk for losetup (--direct-io=on works);\n"
    "                      fallocate(PUNCH_HOLE) on it (a loop device's\n"
    "                      discard) is TRIM, fsync (its flush) the FTL's flush\n"
    "                      plus IMAGE.journal; the process is marked an I/O\n"
    "                      flusher where allowed (docs/ftl.md: page cache,\n"
    "                      O_DIRECT, flushes, deadlock under memory pressure)\n"
    "  --trace FILE        record every operation that reached LogFS (and\n"
    "                      reads) as an fs-op trace (docs/traces.md)\n"
    "  --cut-after-ops N   cut the power after N more flash programs/erases\n"
    "  --cut-at-time T     cut the power T of simulated time after mounting\n"
    "                      (ns, or with a unit: 500us, 20ms, 3s)\n"
    "  --save-after-cut    save the torn image at unmount all the same\n"
    "                      (by default a mount with a cut armed leaves\n"
    "                      IMAGE as it was: neither saved nor journaled)\n"
    "  -o powercut=random,seed=N,mean_ops=M\n"
    "                      cut the power after a number of programs/erases\n"
    "                      drawn (mean M, default 10000) from seed N and the\n"
    "                      image's age; saves the torn image and journals\n"
    "                      fsyncs, so that the next mount recovers\n"
    "After a cut (or xfstests' shutdown ioctl) every call fails with EIO but\n"
    "on the stats file.  See docs/mount.md.\n"
    "\n"
    "examples:\n"
    "  mkdir -p /tmp/mnt && flashlab mount fs.img /tmp/mnt\n"
    "  flashlab mount --fs jffs2-summary jffs2.img /tmp/mnt\n"
    "  flashlab mount -o gc_policy=cost-benefit --trace rec.fstrace fs.img /tmp/mnt\n"
    "  fusermount3 -u /tmp/mnt      # unmount: commits and saves fs.img\n"
    "  flashlab mkfs --fs ftl ssd.img && flashlab mount --block ssd.img /tmp/mnt\n"
    "  losetup --direct-io=on -f --show /tmp/mnt/disk   # then mkfs.ext4 /dev/loopN\n";

static const char stats_help[] =
    "usage: flashlab stats [--all | --json] MOUNTPOINT [KEY...]\n"
    "\n"
    "Show the counters of the LogFS mounted at MOUNTPOINT by `flashlab\n"
    "mount` (its /.flashlab-stats file).  By default a summary: host and\n"
    "flash bytes written since the mount and their ratio, the write\n"
    "amplification; erases; the cleaner's victims, bytes moved and time;\n"
    "p99 latencies; free space and segments; the erase counts per block\n"
    "(min, mean, max); ECC and failures.  --all prints every counter as\n"
    "\"key value\" lines (the file itself), --json one JSON object of them\n"
    "(numbers as numbers) with \"wa\" added.  With KEYs, print only their\n"
    "values, one a line.\n"
    "\n"
    "examples:\n"
    "  flashlab mount fs.img /tmp/mnt\n"
    "  flashlab stats /tmp/mnt\n"
    "  flashlab stats --json /tmp/mnt > stats.json\n"
    "  flashlab stats /tmp/mnt fs.gc_rounds nand.erases\n";

/* ---- messages: the terminal until daemonized, then syslog ---------------- */

static int to_syslog;

static void vmsg(const char *cmd, const char *fmt, va_list ap)
{
    if (to_syslog) {
        vsyslog(LOG_ERR, fmt, ap);
    } else {
        fprintf(stderr, "flashlab %s: ", cmd);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
}

/* "flashlab mount: message" (or syslog); mfail returns CLI_FAIL. */
static void mlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mlog(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("mount", fmt, ap);
    va_end(ap);
}

static int mfail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int mfail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(cmd, fmt, ap);
    va_end(ap);
    return CLI_FAIL;
}

/* ---- arguments -------------------------------------------------------------- */

struct margs {
    const struct fsapi *kind;   /* --fs, else probed */
    char *raw_opts;             /* every -o list, joined, until the kind is known */
    char *fuse_opts, *fs_opts;  /* comma-separated: FUSE's -o, the fs's */
    size_t raw_len, fuse_len, fs_len;
    int foreground, debug, save_after_cut;
    int block;                  /* --block: a one-file kind, for a loop device */
    int readonly;               /* ro or readonly=1: the kernel mount is read-only */
    int fs_readonly;            /* readonly=1: the fs too (ro alone leaves it writable) */
    int own_fsname;             /* -o fsname= given (mount.fuse.flashlab: SOURCE) */
    int no_subtype;             /* -o subtype= (empty): type fuse, as xfstests wants */
    const char *trace;
    int cut_ops_set, cut_time_set;
    uint64_t cut_ops, cut_time;
    struct mnt_cut cut;         /* -o powercut=random,... */
};

/* Append opt (n bytes) to a comma-separated list. */
static int add_opt(char **list, size_t *len, const char *opt, size_t n)
{
    char *p = realloc(*list, *len + n + 2);
    if (!p)
        return -1;
    if (*len)
        p[(*len)++] = ',';
    memcpy(p + *len, opt, n);
    *len += n;
    p[*len] = 0;
    *list = p;
    return 0;
}

static int add_fuse_opt(struct margs *a, const char *opt, size_t n)
{
    return add_opt(&a->fuse_opts, &a->fuse_len, opt, n);
}

/* The -o lists: the fs's keys (its option_help) to the fs's options, the
 * rest to FUSE. */
static int split_opts(struct margs *a, const char *list)
{
    while (*list) {
        size_t n = strcspn(list, ",");
        const char *eq = memchr(list, '=', n);
        size_t kl = eq ? (size_t)(eq - list) : n;
        char cerr[300];
        int cut = mnt_cut_option(&a->cut, list, n, cerr, sizeof cerr);
        if (cut < 0)
            return cli_usage_error("mount", "-o: %s", cerr);
        if (cut) {
            /* ours: the random power cut */
        } else if (n && fsapi_takes_option(a->kind, list, kl)) {
            char item[320], err[1024];
            if (n >= 256)
                return cli_usage_error("mount", "-o: option too long: %.*s", (int)n, list);
            /* a bare key is a boolean switched on */
            snprintf(item, sizeof item, "%.*s%s", (int)n, list, eq ? "" : "=1");
            if (fsapi_check_options(a->kind, item, err, sizeof err))
                return cli_usage_error("mount", "-o: %s", err);
            if (add_opt(&a->fs_opts, &a->fs_len, item, strlen(item)))
                return mfail("mount", "out of memory");
            if (!strncmp(item, "readonly=", 9) && strcmp(item + 9, "0") &&
                strcmp(item + 9, "false") && strcmp(item + 9, "no"))
                a->readonly = a->fs_readonly = 1;
        } else if (n) {
            if (n == 2 && !strncmp(list, "ro", 2))
                a->readonly = 1;
            if (n > 7 && !strncmp(list, "fsname=", 7))
                a->own_fsname = 1;
            if (n == 8 && !strncmp(list, "subtype=", 8)) {
                a->no_subtype = 1;
                list += n + (list[n] == ',');
                continue;
            }
            if (add_fuse_opt(a, list, n))
                return mfail("mount", "out of memory");
        }
        list += n + (list[n] == ',');
    }
    char cerr[300];
    if (mnt_cut_check(&a->cut, cerr, sizeof cerr))
        return cli_usage_error("mount", "-o: %s", cerr);
    if (a->cut.random && (a->cut_ops_set || a->cut_time_set))
        return cli_usage_error("mount", "-o powercut=random excludes --cut-after-ops and "
                               "--cut-at-time");
    return CLI_OK;
}

/* The kind of file system on image, by its marks; CLI_FAIL with a message
 * when none is there. */
static int probe_kind(const char *image, const struct fsapi **kind)
{
    char err[512];
    nand_dev *dev;
    if (nand_open(image, &dev, err, sizeof err))
        return mfail("mount", "%s", err);
    *kind = fsapi_probe(dev);
    nand_close(dev);
    if (!*kind)
        return mfail("mount", "%s: no file system found (run flashlab mkfs, or give --fs)",
                     image);
    return CLI_OK;
}

/* --block: only a kind whose namespace is one file is a block device. */
static int check_block_kind(const char *image, const struct fsapi *kind)
{
    if (kind->features & FSAPI_F_ONE_FILE)
        return CLI_OK;
    char names[256] = "";
    size_t len = 0;
    for (size_t i = 0; fsapi_at(i); i++)
        if (fsapi_at(i)->features & FSAPI_F_ONE_FILE && len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                    fsapi_at(i)->name);
    return mfail("mount", "%s: --block needs a block kind (one file, /disk: %s), and this "
                 "image holds %s (format one with flashlab mkfs --fs ftl)", image, names,
                 kind->name);
}

/* --block: mark the process an I/O flusher (PR_SET_IO_FLUSHER, Linux 5.6,
 * needs CAP_SYS_RESOURCE), as a user-space block device should: its
 * allocations then start no I/O to reclaim memory (I/O it may be the one
 * to serve), and it is not throttled as a writer of dirty pages.
 * Inherited by the daemon and its threads.  1 when marked. */
static int mark_io_flusher(void)
{
#ifndef PR_SET_IO_FLUSHER
#define PR_SET_IO_FLUSHER 57
#endif
    if (!prctl(PR_SET_IO_FLUSHER, 1, 0, 0, 0))
        return 1;
    mlog("warning: cannot mark the process an I/O flusher (%s): a loop device over "
         "MOUNTPOINT/disk may deadlock under memory pressure (docs/ftl.md)", strerror(errno));
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Simulated time: nanoseconds, or a number with ns, us, ms or s. */
static int parse_time(const char *s, uint64_t *out)
{
    static const struct { const char *unit; uint64_t ns; } units[] = {
        {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    uint64_t mul = *end ? 0 : 1;
    for (size_t i = 0; i < sizeof units / sizeof units[0] && !mul; i++)
        if (!strcmp(end, units[i].unit))
            mul = units[i].ns;
    if (!mul || v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

/* fsname=flashlab:IMAGE, with ',' and '\' escaped for libfuse's parser. */
static int add_fsname(char **list, size_t *len, const char *image)
{
    size_t n = strlen(image);
    char *s = malloc(2 * n + 32), *d = s;
    if (!s)
        return -1;
    d += sprintf(d, "fsname=flashlab:");
    for (const char *p = image; *p; p++) {
        if (*p == ',' || *p == '\\')
            *d++ = '\\';
        *d++ = *p;
    }
    *d = 0;
    int rc = add_opt(list, len, s, strlen(s));
    free(s);
    return rc;
}

/* Our FUSE defaults, then the user's -o (later options win):
 * attr_timeout=0 because libfuse gives each hard link its own kernel
 * inode, so a cached st_nlink of one name would go stale when another
 * name is linked or unlinked; default_permissions lets the kernel check
 * modes (LogFS does not). */
static char *fuse_options(const struct margs *a, const char *image)
{
    static const char defaults[] = "attr_timeout=0,default_permissions";
    char *list = NULL;
    size_t len = 0;
    if (add_opt(&list, &len, defaults, sizeof defaults - 1) ||
        (!a->no_subtype && add_opt(&list, &len, "subtype=flashlab", 16)) ||
        (!a->own_fsname && add_fsname(&list, &len, image)) ||
        (a->fuse_opts && add_opt(&list, &len, a->fuse_opts, a->fuse_len)) ||
        (a->readonly && add_opt(&list, &len, "ro", 2))) {
        free(list);
        return NULL;
    }
    return list;
}

/* ---- mounting -------------------------------------------------------------------- */

/* Release what a mount holds; save the image when asked.  0 or CLI_FAIL. */
static int teardown(struct mnt *m, int save)
{
    int save_after_cut = m->save_after_cut;
    if (m->started_ro && !m->readonly && nand_is_powered(m->dev)) {
        /* a clean fs commits without writing: nothing programmed or
         * erased means never remounted rw and written, and IMAGE stays
         * as it was */
        m->fs.api->sync(m->fs.fs);
        if (mnt_state_ops(m->dev) == m->ops0)
            save = 0;
    }
    int rc = CLI_OK;
    int urc = m->fs.api->unmount(m->fs.fs); /* commits */
    int cut = !nand_is_powered(m->dev);
    if (cut) {
        mlog("%s: the power was cut (%s)", m->image,
             save && save_after_cut ? "saving the torn image" : "image not saved");
        save = save && save_after_cut;
    } else if (urc) {
        mlog("%s: cannot commit at unmount: %s (image not saved)", m->image, strerror(-urc));
        save = 0;
        rc = CLI_FAIL;
    }
    if (save) {
        int nrc = nand_save(m->dev, m->image);
        if (nrc) {
            mlog("%s: cannot save image: %s", m->image, nand_strerror(nrc));
            rc = CLI_FAIL;
        }
    }
    nand_close(m->dev);
    if (m->trace) {
        if (fclose(m->trace) || m->trace_failed) {
            mlog("trace: write error (%" PRIu64 " records lost)", m->trace_dropped);
            rc = CLI_FAIL;
        }
    }
    return rc;
}

static int run_mount(struct margs *a, const char *image_arg, const char *mp_arg)
{
    struct mnt m = {.lock = PTHREAD_MUTEX_INITIALIZER};
    char *image = realpath(image_arg, NULL), *fopts = NULL;
    int image_errno = errno;
    char *mp = realpath(mp_arg, NULL);
    struct fuse *f = NULL;
    struct fuse_args fa = FUSE_ARGS_INIT(0, NULL);
    struct imglock lock = {NULL};
    int rc = CLI_FAIL;
    char err[512];
    if (!image) {
        rc = mfail("mount", "%s: cannot open: %s", image_arg, strerror(image_errno));
        goto out;
    }
    struct stat mst;
    int mp_errno = !mp ? errno : stat(mp, &mst) ? errno : !S_ISDIR(mst.st_mode) ? ENOTDIR : 0;
    if (mp_errno) {
        rc = mfail("mount", "%s: bad mount point: %s", mp_arg, strerror(mp_errno));
        goto out;
    }
    m.image = image;
    m.mountpoint = mp;
    m.readonly = a->fs_readonly;
    m.started_ro = a->readonly;
    m.fs_opts = a->fs_opts ? a->fs_opts : "";

    /* FUSE's options first: a bad one stops us before the image is opened */
    if (!(fopts = fuse_options(a, image)) || fuse_opt_add_arg(&fa, "flashlab-mount") ||
        fuse_opt_add_arg(&fa, "-o") || fuse_opt_add_arg(&fa, fopts) ||
        (a->debug && fuse_opt_add_arg(&fa, "-d")))
        goto nomem;
    if (!(f = fuse_new(&fa, &mnt_ops, sizeof mnt_ops, &m))) {
        rc = mfail("mount", "bad mount options '%s' (%s's keys: flashlab mkfs --fs %s "
                   "--help-options)", a->fuse_opts ? a->fuse_opts : "", a->kind->name,
                   a->kind->name);
        goto out;
    }

    /* one writer per image: another one would lose this one's work, or
     * this one its; a mount just unmounted is waited for (its save) */
    if (a->readonly && !a->fs_readonly && imglock_try(&lock, image, "mount", mp))
        m.readonly = 1; /* ro, and another writer: the fs read-only too */
    if (m.readonly)
        imglock_read(image, "mount");
    else if (!lock.l && imglock_write(&lock, image, "mount", mp))
        goto out;
    if (nand_open(image, &m.dev, err, sizeof err)) {
        rc = mfail("mount", "%s", err);
        goto out;
    }
    /* timestamps from the host's clock, as any file system's; -o epoch=
     * asks for the deterministic simulated time plus that epoch; -o ro
     * mounts read-only where the kind can */
    char given[1024], mopts[1100];
    int ro = m.readonly && fsapi_takes_option(a->kind, "readonly", 8);
    snprintf(given, sizeof given, "%s%s%s", m.fs_opts, ro && *m.fs_opts ? "," : "",
             ro ? "readonly=1" : "");
    cli_host_clock_options(a->kind, given, mopts, sizeof mopts);
    m.fs.api = a->kind;
    /* options this device cannot honour (max_utilisation), said in words */
    if (fsapi_check_device(a->kind, m.dev, mopts, err, sizeof err)) {
        rc = mfail("mount", "%s: %s", image, err);
        nand_close(m.dev);
        goto out;
    }
    int lrc = a->kind->mount(m.dev, mopts, &m.fs.fs);
    if (lrc) {
        m.fs.fs = NULL;
        if (lrc == -EINVAL)
            rc = mfail("mount", "%s: not a %s file system (or bad options '%s')", image,
                       a->kind->name, mopts);
        else if (lrc == -EPROTO && cli_format_note(image, a->kind, m.dev) == 2)
            rc = mfail("mount", "%s: cannot mount %s of that format version", image,
                       a->kind->name);
        else if (lrc == -EOPNOTSUPP)
            rc = mfail("mount", "%s: this %s cannot store compressed data (an older format "
                       "version: mount it without compress=)", image, a->kind->name);
        else
            rc = mfail("mount", "%s: cannot mount: %s", image, strerror(-lrc));
        nand_close(m.dev);
        goto out;
    }
    cli_format_note(image, a->kind, m.dev);
    cli_anchor_warning(image, &m.fs);
    struct fs_statfs sf;
    m.block_size = MNT_CALL(&m, statfs, &sf) ? 4096 : sf.block_size;
    m.t0 = m.op_start = nand_now(m.dev);
    fsapi_counter(&m.fs, "host_bytes", &m.host0); /* stays 0 where not counted */
    if (a->trace && (!(m.trace = fopen(a->trace, "w")) || trace_write_fsop_header(m.trace))) {
        rc = mfail("mount", "%s: cannot write the trace: %s", a->trace, strerror(errno));
        goto unmount;
    }
    /* a random cut saves what survived and journals fsyncs: the next
     * mount recovers from it */
    m.save_after_cut = a->save_after_cut || a->cut.random;
    m.keep_image = (a->cut_ops_set || a->cut_time_set) && !m.save_after_cut;
    m.cut = a->cut;
    mnt_cut_arm(&m.cut, m.dev);
    m.ops0 = mnt_state_ops(m.dev);
    if (a->cut_ops_set)
        nand_cut_after_ops(m.dev, a->cut_ops, -1.0); /* tear point from the seed */
    if (a->cut_time_set)
        nand_cut_at_time(m.dev, m.t0 + a->cut_time);

    m.block = a->block;
    m.io_flusher = a->block && mark_io_flusher();
    mnt_g = &m;
    if (fuse_mount(f, mp)) {
        rc = mfail("mount", "%s: cannot mount here (see the message above)", mp);
        goto unmount;
    }
    if (fuse_daemonize(a->foreground)) {
        fuse_unmount(f);
        rc = mfail("mount", "cannot go to the background");
        goto unmount;
    }
    imglock_describe(&lock, "mount", mp); /* the daemon's pid */
    if (!a->foreground) {
        openlog("flashlab-mount", LOG_PID, LOG_DAEMON);
        to_syslog = 1;
    }
    struct fuse_session *se = fuse_get_session(f);
    if (mnt_io_install(f))
        mlog("cannot read FUSE requests itself: fstat of a replaced open directory "
             "will fail with ESTALE");
    int sig = fuse_set_signal_handlers(se);
    int lrc2 = fuse_loop_mt(f, 0);
    if (!sig)
        fuse_remove_signal_handlers(se);
    fuse_unmount(f);
    fuse_destroy(f);
    f = NULL;
    if (lrc2 < 0)
        mlog("the FUSE loop failed: %s", strerror(-lrc2));
    rc = teardown(&m, !m.readonly);
    m.trace = NULL;
    goto out;

unmount:
    /* nothing was served: drop what the mount did, leave IMAGE as it was */
    if (m.trace && !fclose(m.trace))
        unlink(a->trace);
    m.trace = NULL;
    m.fs.api->unmount(m.fs.fs);
    nand_close(m.dev);
    goto out;
nomem:
    rc = mfail("mount", "out of memory");
out:
    if (f)
        fuse_destroy(f);
    fuse_opt_free_args(&fa);
    free(fopts);
    imglock_release(&lock); /* after the save: waiting commands go on */
    if (to_syslog)
        closelog();
    mnt_g = NULL;
    free(image);
    free(mp);
    return rc;
}

int cmd_mount(int argc, char **argv)
{
    enum { O_TRACE = 1000, O_CUT_OPS, O_CUT_TIME, O_SAVE_CUT, O_FS, O_BLOCK };
    static const struct option opts[] = {
        {"fs", required_argument, 0, O_FS},
        {"foreground", no_argument, 0, 'f'},
        {"debug", no_argument, 0, 'd'},
        {"trace", required_argument, 0, O_TRACE},
        {"cut-after-ops", required_argument, 0, O_CUT_OPS},
        {"cut-at-time", required_argument, 0, O_CUT_TIME},
        {"save-after-cut", no_argument, 0, O_SAVE_CUT},
        {"block", no_argument, 0, O_BLOCK},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct margs a = {0};
    int c, rc = CLI_OK;
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, "fdo:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': a.foreground = 1; break;
        case 'd': a.debug = a.foreground = 1; break;
        case 'o':
            if (add_opt(&a.raw_opts, &a.raw_len, optarg, strlen(optarg)))
                rc = mfail("mount", "out of memory");
            break;
        case O_FS: rc = cli_parse_kind("mount", optarg, &a.kind); break;
        case O_TRACE: a.trace = optarg; break;
        case O_CUT_OPS:
            if (parse_u64(optarg, &a.cut_ops))
                rc = cli_usage_error("mount", "--cut-after-ops: '%s' is not a number", optarg);
            a.cut_ops_set = 1;
            break;
        case O_CUT_TIME:
            if (parse_time(optarg, &a.cut_time))
                rc = cli_usage_error("mount", "--cut-at-time: '%s' is not a time (ns, or "
                                     "with ns, us, ms or s)", optarg);
            a.cut_time_set = 1;
            break;
        case O_SAVE_CUT: a.save_after_cut = 1; break;
        case O_BLOCK: a.block = 1; break;
        case 'h': fputs(mount_help, stdout); rc = -1; break;
        default: rc = cli_usage_error("mount", "bad option"); break;
        }
    }
    if (rc < 0) { /* --help */
        free(a.raw_opts);
        return CLI_OK;
    }
    if (!rc && a.cut_ops_set && a.cut_time_set)
        rc = cli_usage_error("mount", "--cut-after-ops and --cut-at-time exclude each other");
    if (!rc && a.save_after_cut && !a.cut_ops_set && !a.cut_time_set)
        rc = cli_usage_error("mount", "--save-after-cut needs --cut-after-ops or --cut-at-time");
    if (!rc && optind != argc - 2)
        rc = cli_usage_error("mount", "expected IMAGE and MOUNTPOINT");
    if (!rc && !a.kind)
        rc = probe_kind(argv[optind], &a.kind);
    if (!rc && a.block)
        rc = check_block_kind(argv[optind], a.kind);
    if (!rc && a.raw_opts)
        rc = split_opts(&a, a.raw_opts);
    if (!rc)
        rc = run_mount(&a, argv[optind], argv[optind + 1]);
    free(a.raw_opts);
    free(a.fuse_opts);
    free(a.fs_opts);
    return rc;
}

/* ---- stats ------------------------------------------------------------------------- */

/* The whole file, NUL-terminated, or NULL with errno set. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t len = 0, cap = 8192;
    char *s = malloc(cap);
    while (s) {
        len += fread(s + len, 1, cap - len - 1, f);
        if (ferror(f) || len < cap - 1)
            break;
        char *p = realloc(s, cap *= 2);
        if (!p) {
            free(s);
            s = NULL;
        } else {
            s = p;
        }
    }
    int bad = !s || ferror(f), e = errno;
    fclose(f);
    if (bad) {
        free(s);
        errno = e ? e : ENOMEM;
        return NULL;
    }
    s[len] = 0;
    return s;
}

/* The value of key in "key value" lines, or NULL; its length in *n. */
static const char *stat_value(const char *text, const char *key, size_t *n)
{
    size_t kl = strlen(key);
    for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
        if (!strncmp(l, key, kl) && l[kl] == ' ') {
            *n = strcspn(l + kl + 1, "\n");
            return l + kl + 1;
        }
    }
    return NULL;
}

int cmd_stats(int argc, char **argv)
{
    static const struct option opts[] = {{"all", no_argument, 0, 'a'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c, all = 0, as_json = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': all = 1; break;
        case 'j': as_json = 1; break;
        case 'h': fputs(stats_help, stdout); return CLI_OK;
        default: return cli_usage_error("stats", "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error("stats", "expected MOUNTPOINT");
    if (all && as_json)
        return cli_usage_error("stats", "--all and --json exclude each other");
    if ((all || as_json) && optind != argc - 1)
        return cli_usage_error("stats", "KEYs print values alone: no --all or --json with them");
    const char *mp = argv[optind];
    size_t pl = strlen(mp);
    char *path = malloc(pl + sizeof MNT_STATS_PATH);
    if (!path)
        return mfail("mount", "out of memory");
    memcpy(path, mp, pl);
    memcpy(path + pl, MNT_STATS_PATH, sizeof MNT_STATS_PATH);
    char *text = slurp(path);
    int rc = CLI_OK;
    if (!text && errno == ENOENT)
        rc = mfail("stats", "%s: not a flashlab mount (no %s)", mp, MNT_STATS_PATH);
    else if (!text)
        rc = mfail("stats", "%s: %s", path, strerror(errno));
    else if (optind == argc - 1 && all)
        fputs(text, stdout);
    else if (optind == argc - 1)
        cli_stats_show(stdout, mp, text, as_json);
    for (int i = optind + 1; text && i < argc; i++) {
        size_t n;
        const char *v = stat_value(text, argv[i], &n);
        if (v)
            printf("%.*s\n", (int)n, v);
        else
            rc = mfail("stats", "%s: no counter '%s'", mp, argv[i]);
    }
    free(text);
    free(path);
    return rc;
}

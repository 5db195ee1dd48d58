/*
 * fuzz_util.c -- what the fuzz targets share: the target table, inputs as
 * files for loaders that only take a path, and failing loudly.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

const struct fuzz_target fuzz_targets[] = {
    {"device_yaml", NULL, fuzz_device_yaml},
    {"experiment_yaml", NULL, fuzz_experiment_yaml},
    {"trace", NULL, fuzz_trace},
    {"mount", fuzz_mount_init, fuzz_mount},
    {"image", NULL, fuzz_image},
    {"import", NULL, fuzz_import},
    {"journal", fuzz_journal_init, fuzz_journal},
    {"jffs2", NULL, fuzz_jffs2},
};
const size_t fuzz_ntargets = sizeof fuzz_targets / sizeof fuzz_targets[0];

const struct fuzz_target *fuzz_target_find(const char *name)
{
    for (size_t i = 0; i < fuzz_ntargets; i++)
        if (!strcmp(fuzz_targets[i].name, name))
            return &fuzz_targets[i];
    return NULL;
}

void fuzz_fail(const char *harness, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "fuzz: %s: ", harness);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

int fuzz_verbose(void)
{
    static int v = -1;
    if (v < 0) {
        const char *s = getenv("FLASHLAB_FUZZ_VERBOSE");
        v = s && *s && strcmp(s, "0");
    }
    return v;
}

int fuzz_skip_known(void)
{
    static int v = -1;
    if (v < 0) {
        const char *s = getenv("FLASHLAB_FUZZ_SKIP_KNOWN");
        v = s && *s && strcmp(s, "0");
    }
    return v;
}

/* ---- inputs as files ------------------------------------------------------ */

static struct {
    int fd;
    int is_tmp;       /* path is a temporary file to unlink at exit */
    char path[4096];
    char dir[4096];   /* FUZZ_FILE_IN_DIR: its directory, removed at exit */
} fz_files[FUZZ_FILE_SLOTS];
static int fz_files_ready;
static pid_t fz_files_owner;

static void fz_files_cleanup(void)
{
    if (getpid() != fz_files_owner) /* a forked child: not its files */
        return;
    for (int i = 0; i < FUZZ_FILE_SLOTS; i++) {
        if (fz_files[i].is_tmp)
            unlink(fz_files[i].path);
        if (fz_files[i].dir[0]) {
            char link[sizeof fz_files[i].dir + 16];
            snprintf(link, sizeof link, "%s/configs", fz_files[i].dir);
            unlink(link);
            rmdir(fz_files[i].dir);
        }
    }
}

static const char *fz_tmpdir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

static int fz_open_in_dir(int slot)
{
    char *d = fz_files[slot].dir;
    if (snprintf(d, sizeof fz_files[slot].dir, "%s/flashlab-fuzz-XXXXXX", fz_tmpdir()) >=
            (int)sizeof fz_files[slot].dir ||
        !mkdtemp(d)) {
        d[0] = '\0';
        return -1;
    }
    /* paths in an experiment are relative to its file: link the working
     * directory's configs/ beside it, so that the seeds' configs/devices/...
     * resolve (run from the repository root) */
    char cwd[2048], link[sizeof fz_files[slot].dir + 16];
    if (getcwd(cwd, sizeof cwd - 16)) {
        strcat(cwd, "/configs");
        snprintf(link, sizeof link, "%s/configs", d);
        if (symlink(cwd, link)) {
            /* without it the seeds fail to load: still a valid input */
        }
    }
    int fd = -1;
    char path[sizeof fz_files[slot].path]; /* a copy: gcc sees d and path as one object */
    if (snprintf(path, sizeof path, "%s/input.yaml", d) < (int)sizeof path) {
        memcpy(fz_files[slot].path, path, sizeof path);
        fd = open(fz_files[slot].path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    }
    if (fd < 0) {
        rmdir(d);
        d[0] = '\0';
        return -1;
    }
    fz_files[slot].fd = fd;
    fz_files[slot].is_tmp = 1;
    return 0;
}

static int fz_open_slot(int slot)
{
    static const char *const names[FUZZ_FILE_SLOTS] = {"flashlab-fuzz-input",
                                                       "flashlab-fuzz-aux", NULL};
    if (slot == FUZZ_FILE_IN_DIR)
        return fz_open_in_dir(slot);
    int fd = -1;
#ifdef SYS_memfd_create
    fd = (int)syscall(SYS_memfd_create, names[slot], 1u /* MFD_CLOEXEC */);
#endif
    if (fd >= 0) {
        snprintf(fz_files[slot].path, sizeof fz_files[slot].path, "/proc/self/fd/%d", fd);
        /* /proc may be missing (a chroot): then use a temporary file */
        if (access(fz_files[slot].path, R_OK) == 0) {
            fz_files[slot].fd = fd;
            return 0;
        }
        close(fd);
    }
    char *t = fz_files[slot].path;
    if (snprintf(t, sizeof fz_files[slot].path, "%s/%s-XXXXXX", fz_tmpdir(), names[slot]) >=
            (int)sizeof fz_files[slot].path ||
        (fd = mkstemp(t)) < 0) {
        t[0] = '\0';
        return -1;
    }
    fz_files[slot].fd = fd;
    fz_files[slot].is_tmp = 1;
    return 0;
}

const char *fuzz_file(int slot, const void *data, size_t size)
{
    if (slot < 0 || slot >= FUZZ_FILE_SLOTS)
        return NULL;
    if (!fz_files_ready) {
        for (int i = 0; i < FUZZ_FILE_SLOTS; i++)
            fz_files[i].fd = -1;
        fz_files_owner = getpid();
        atexit(fz_files_cleanup);
        fz_files_ready = 1;
    }
    if (fz_files[slot].fd < 0 && fz_open_slot(slot))
        return NULL;
    int fd = fz_files[slot].fd;
    if (ftruncate(fd, 0))
        return NULL;
    const uint8_t *p = data;
    for (size_t off = 0; off < size;) {
        ssize_t n = pwrite(fd, p + off, size - off, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return NULL;
        off += (size_t)n;
    }
    return fz_files[slot].path;
}

/*
 * imagelock.c -- one image, one writer (docs/simulator.md, "The image
 * lock"; nand.h's nand_lock_image).
 *
 * A writer holds an exclusive flock on IMAGE.lock from before it opens
 * IMAGE until after it saved it.  The lock is on a file of its own
 * because a save replaces IMAGE by a rename: a lock on IMAGE itself would
 * stay on the old file, and the next process would lock the new one.
 * IMAGE.lock is never deleted (deleting a lock file races with the next
 * process opening it); it holds its holder's description, which a
 * contender reads to name it, and to tell a mount still serving (its
 * mount point is mounted: refuse) from one that was just unmounted and is
 * saving (wait for it, so that `fusermount3 -u M; flashlab mount IMAGE M`
 * works).
 */
#include "nand_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define WAIT_S 300.0 /* the final save of a large image takes a while */
#define POLL_US 20000

struct nand_lock {
    int fd;
};

struct holder {
    char cmd[64];
    char mp[4096]; /* a mount's mount point, or "" */
    long pid;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *lock_path(const char *image)
{
    size_t n = strlen(image) + sizeof ".lock";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s.lock", image);
    return p;
}

/* The description in the lock file: "cmd=...\npid=...\n[mountpoint=...\n]".
 * 0, or -1 while it is being written or has been cleared. */
static int read_holder(int fd, struct holder *h)
{
    char buf[4096 + 256];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    memset(h, 0, sizeof *h);
    if (n <= 0 || buf[n - 1] != '\n')
        return -1;
    buf[n] = 0;
    for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        if (!strncmp(line, "cmd=", 4))
            snprintf(h->cmd, sizeof h->cmd, "%s", line + 4);
        else if (!strncmp(line, "pid=", 4))
            h->pid = strtol(line + 4, NULL, 10);
        else if (!strncmp(line, "mountpoint=", 11))
            snprintf(h->mp, sizeof h->mp, "%s", line + 11);
    }
    return h->cmd[0] && h->pid > 0 ? 0 : -1;
}

/* /proc/self/mountinfo's mount point field: \ooo escapes undone. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
}

/* 1 if a FUSE file system is mounted at mp. */
static int fuse_mounted(const char *mp)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return 1; /* cannot tell: assume it is still serving */
    char *line = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getline(&line, &cap, f) > 0) {
        char *save = NULL, *field = strtok_r(line, " ", &save);
        for (int i = 1; field && i < 5; i++)
            field = strtok_r(NULL, " ", &save);
        if (!field)
            continue;
        char *sep = strstr(save ? save : "", " - ");
        unescape(field);
        found = !strcmp(field, mp) && sep && !strncmp(sep + 3, "fuse", 4);
    }
    free(line);
    fclose(f);
    return found;
}

enum { FREE, BUSY, WAIT };

/* One try at the lock (op: LOCK_EX or LOCK_SH).  A mount that is not (or
 * no longer, or not yet) mounted is starting or saving: worth a wait. */
static int try_lock(int fd, int op, struct holder *h)
{
    if (!flock(fd, op | LOCK_NB))
        return FREE;
    if (errno != EWOULDBLOCK)
        return -errno;
    if (read_holder(fd, h))
        return WAIT; /* being described, or being released */
    if (h->mp[0] && !fuse_mounted(h->mp))
        return WAIT;
    return BUSY;
}

/* Try until the lock is ours or the holder is busy (or WAIT_S passed). */
static int wait_lock(int fd, int op, struct holder *h)
{
    double end = now_s() + WAIT_S;
    int st;
    while ((st = try_lock(fd, op, h)) == WAIT && now_s() < end)
        usleep(POLL_US);
    return st;
}

/* "flashlab mount on /m (pid 12)" */
static void holder_text(const struct holder *h, char *out, size_t cap)
{
    if (!h->cmd[0])
        snprintf(out, cap, "another process");
    else if (h->mp[0])
        snprintf(out, cap, "%s on %s (pid %ld)", h->cmd, h->mp, h->pid);
    else
        snprintf(out, cap, "%s (pid %ld)", h->cmd, h->pid);
}

void nand_lock_describe(nand_lock *l, const char *who, const char *mountpoint)
{
    char buf[4096 + 256];
    if (!l || l->fd < 0)
        return;
    int n = snprintf(buf, sizeof buf, "cmd=%s\npid=%ld\n", who ? who : "a flashlab session",
                     (long)getpid());
    if (mountpoint && n > 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "mountpoint=%s\n", mountpoint);
    if (n <= 0 || (size_t)n >= sizeof buf)
        return;
    /* best effort: the description only names the holder */
    if (ftruncate(l->fd, 0) || pwrite(l->fd, buf, (size_t)n, 0) != n)
        return;
}

static int fail(char *err, size_t errlen, int rc, const char *fmt, const char *a,
                const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
    return rc;
}

int nand_lock_image(const char *path, const char *who, const char *mountpoint,
                    nand_lock **out, char *err, size_t errlen)
{
    *out = NULL;
    char *lp = lock_path(path);
    nand_lock *l = malloc(sizeof *l);
    if (!lp || !l) {
        free(lp);
        free(l);
        return fail(err, errlen, NAND_E_NOMEM, "%s: %s", path, "out of memory");
    }
    l->fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (l->fd < 0) {
        int rc = fail(err, errlen, NAND_E_IO, "%s: cannot lock: %s", lp, strerror(errno));
        free(lp);
        free(l);
        return rc;
    }
    struct holder h;
    int st = wait_lock(l->fd, LOCK_EX, &h);
    if (st != FREE) {
        char whom[4096 + 128];
        holder_text(&h, whom, sizeof whom);
        int rc = st < 0 ? fail(err, errlen, NAND_E_IO, "%s: cannot lock: %s", lp, strerror(-st))
                        : fail(err, errlen, NAND_E_LOCKED, "%s is in use by %s", path, whom);
        close(l->fd);
        free(l);
        free(lp);
        return rc;
    }
    free(lp);
    nand_lock_describe(l, who, mountpoint);
    *out = l;
    return NAND_OK;
}

void nand_unlock_image(nand_lock *l)
{
    if (!l)
        return;
    /* cleared first: a contender reading it meanwhile waits a moment */
    if (ftruncate(l->fd, 0)) {
        /* the next holder overwrites it anyway */
    }
    close(l->fd);
    free(l);
}

int nand_lock_holder(const char *path, char *who, size_t cap)
{
    char *lp = lock_path(path);
    int fd = lp ? open(lp, O_RDONLY | O_CLOEXEC) : -1;
    free(lp);
    if (fd < 0)
        return 0; /* never locked (or not ours to lock): nobody writes it */
    struct holder h;
    int st = wait_lock(fd, LOCK_SH, &h), busy = 0;
    if (st == FREE) {
        flock(fd, LOCK_UN);
    } else if (st != -EBADF && st != -ENOLCK) {
        holder_text(&h, who, cap);
        busy = 1;
    }
    close(fd);
    return busy;
}

int sim_lock_check(const char *path)
{
    char *lp = lock_path(path);
    int fd = lp ? open(lp, O_RDONLY | O_CLOEXEC) : -1;
    free(lp);
    if (fd < 0)
        return NAND_OK; /* never locked: nobody writes it */
    struct holder h;
    int rc = NAND_OK;
    /* a lock this process took (the CLI's, held apart from the device)
     * is its own too: flock would conflict with it all the same */
    if (flock(fd, LOCK_SH | LOCK_NB))
        rc = errno == EWOULDBLOCK && !(read_holder(fd, &h) == 0 && h.pid == (long)getpid())
                 ? NAND_E_LOCKED
                 : NAND_OK;
    close(fd);
    return rc;
}

int nand_open_write(const char *path, const char *who, nand_dev **out, char *err,
                    size_t errlen)
{
    nand_lock *l = NULL;
    /* a missing image is nand_open's error; no stray IMAGE.lock */
    if (!(access(path, F_OK) && errno == ENOENT)) {
        int rc = nand_lock_image(path, who, NULL, &l, err, errlen);
        if (rc)
            return rc;
    }
    int rc = nand_open(path, out, err, errlen);
    if (rc)
        nand_unlock_image(l);
    else
        (*out)->lock = l;
    return rc;
}

void nand_hold_lock(nand_dev *dev, nand_lock *l)
{
    if (dev->lock && dev->lock != l)
        nand_unlock_image(dev->lock);
    dev->lock = l;
}

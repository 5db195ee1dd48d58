/*
 * imglock.c -- the image lock (docs/mount.md, "The image lock").
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
#include "cli.h"
#include "imglock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define WAIT_S 300.0 /* the final save of a large image takes a while */
#define POLL_US 20000

struct holder {
    char cmd[64];
    char mp[4096]; /* a mount's mount point, or "" */
    long pid;
};

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
    if (n <= 0 || buf[n - 1] != '\n')
        return -1;
    buf[n] = 0;
    memset(h, 0, sizeof *h);
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
    double end = cli_now_s() + WAIT_S;
    int st;
    while ((st = try_lock(fd, op, h)) == WAIT && cli_now_s() < end)
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

void imglock_describe(struct imglock *l, const char *cmd, const char *mountpoint)
{
    char buf[4096 + 256];
    int n = snprintf(buf, sizeof buf, "cmd=flashlab %s\npid=%ld\n", cmd, (long)getpid());
    if (mountpoint && n > 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "mountpoint=%s\n", mountpoint);
    if (l->fd < 0 || n <= 0 || (size_t)n >= sizeof buf)
        return;
    /* best effort: the description only names the holder */
    if (ftruncate(l->fd, 0) || pwrite(l->fd, buf, (size_t)n, 0) != n)
        return;
}

static int lock_image(struct imglock *l, const char *image, const char *cmd,
                      const char *mountpoint)
{
    l->fd = -1;
    char *lp = lock_path(image);
    if (!lp)
        return cli_error("out of memory");
    int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "flashlab %s: %s: cannot lock: %s\n", cmd, lp, strerror(errno));
        free(lp);
        return CLI_FAIL;
    }
    struct holder h = {0};
    int st = wait_lock(fd, LOCK_EX, &h);
    if (st != FREE) {
        char who[4096 + 128];
        holder_text(&h, who, sizeof who);
        if (st < 0)
            fprintf(stderr, "flashlab %s: %s: cannot lock: %s\n", cmd, lp, strerror(-st));
        else
            fprintf(stderr, "flashlab %s: %s is in use by %s\n", cmd, image, who);
        close(fd);
        free(lp);
        return CLI_FAIL;
    }
    free(lp);
    l->fd = fd;
    imglock_describe(l, cmd, mountpoint);
    return CLI_OK;
}

int imglock_write(struct imglock *l, const char *image, const char *cmd,
                  const char *mountpoint)
{
    l->fd = -1;
    if (access(image, F_OK) && errno == ENOENT)
        return CLI_OK; /* the command's open says so; no stray IMAGE.lock */
    return lock_image(l, image, cmd, mountpoint);
}

int imglock_create(struct imglock *l, const char *image, const char *cmd)
{
    return lock_image(l, image, cmd, NULL);
}

void imglock_release(struct imglock *l)
{
    if (l->fd < 0)
        return;
    /* cleared first: a contender reading it meanwhile waits a moment */
    if (ftruncate(l->fd, 0)) {
        /* the next holder overwrites it anyway */
    }
    close(l->fd);
    l->fd = -1;
}

void imglock_read(const char *image, const char *cmd)
{
    char *lp = lock_path(image);
    int fd = lp ? open(lp, O_RDONLY | O_CLOEXEC) : -1;
    free(lp);
    if (fd < 0)
        return; /* never locked (or not ours to lock): nobody writes it */
    struct holder h = {0};
    int st = wait_lock(fd, LOCK_SH, &h);
    if (st == FREE) {
        flock(fd, LOCK_UN);
    } else if (st != -EBADF && st != -ENOLCK) {
        char who[4096 + 128];
        holder_text(&h, who, sizeof who);
        fprintf(stderr,
                "flashlab %s: warning: %s is in use by %s; reading its last saved state\n",
                cmd, image, who);
    }
    close(fd);
}

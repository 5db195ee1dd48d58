/* times.c -- timestamps and ownership on a mounted file system, checked
 * against the host's clock (tests/cli/test_mount.sh builds and runs it in
 * a fresh directory of the mount).  Prints "ok NAME" or "FAIL NAME: why"
 * per check.  As root it also switches to uid/gid 65534 in a child to
 * check what the kernel and the mount do for an unprivileged caller
 * (the mount needs -o allow_other); otherwise those checks print
 * "skip NAME". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;

static void check(const char *name, int good, const char *why)
{
    if (good) {
        printf("ok %s\n", name);
    } else {
        printf("FAIL %s: %s (errno %s)\n", name, why, strerror(errno));
        failures++;
    }
    fflush(stdout);
}

static long long ns(struct timespec t)
{
    return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct stat st_of(const char *path)
{
    struct stat st;
    memset(&st, 0, sizeof st);
    if (lstat(path, &st))
        st.st_ino = 0;
    return st;
}

/* later(A, B, f): B's time f is after A's */
#define LATER(a, b, f) (ns((b).f) > ns((a).f))
#define SAME(a, b, f) (ns((b).f) == ns((a).f))

/* host time passes: 10 ms, far above the clock's resolution */
static void pause_(void)
{
    usleep(10000);
}

static int mkfile(const char *path, mode_t mode)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
    return fd < 0 ? -1 : close(fd);
}

static void host_clock(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    mkfile("clock", 0644);
    struct stat st = st_of("clock");
    long long d = ns(st.st_mtim) - ns(now);
    check("mtime of a new file is the host's time", d > -5000000000LL && d < 5000000000LL,
          "more than 5 s from CLOCK_REALTIME");
    struct stat a = st_of("clock"), b;
    int fd = open("clock", O_WRONLY);
    if (write(fd, "1", 1) != 1)
        check("write", 0, "failed");
    a = st_of("clock");
    pause_();
    if (write(fd, "2", 1) != 1)
        check("write", 0, "failed");
    close(fd);
    b = st_of("clock");
    check("two writes a sleep apart: different mtimes", LATER(a, b, st_mtim), "same mtime");
}

static void rules(void)
{
    mkdir("a", 0755);
    mkdir("b", 0755);
    struct stat p0 = st_of("a"), p1, f0, f1, q0, q1;
    pause_();
    mkfile("a/f", 0644);
    f1 = st_of("a/f");
    p1 = st_of("a");
    check("create: the parent's mtime and ctime",
          LATER(p0, p1, st_mtim) && LATER(p0, p1, st_ctim), "unchanged");
    check("create: atime = mtime of the new file",
          SAME(f1, f1, st_atim) && ns(f1.st_atim) == ns(f1.st_mtim), "differ");

    f0 = f1;
    pause_();
    int fd = open("a/f", O_WRONLY);
    check("write: mtime and ctime",
          write(fd, "abc", 3) == 3 && (f1 = st_of("a/f"), LATER(f0, f1, st_mtim)) &&
              LATER(f0, f1, st_ctim), "unchanged");
    f0 = f1;
    pause_();
    check("ftruncate to the same size: mtime and ctime",
          !ftruncate(fd, 3) && (f1 = st_of("a/f"), LATER(f0, f1, st_mtim)) &&
              LATER(f0, f1, st_ctim), "unchanged");
    close(fd);
    f0 = f1;
    pause_();
    check("truncate: mtime and ctime",
          !truncate("a/f", 1) && (f1 = st_of("a/f"), LATER(f0, f1, st_mtim)) &&
              LATER(f0, f1, st_ctim), "unchanged");
    f0 = f1;
    pause_();
    check("open O_TRUNC: mtime and ctime",
          !mkfile("a/f", 0644) && (f1 = st_of("a/f"), LATER(f0, f1, st_mtim)) &&
              LATER(f0, f1, st_ctim), "unchanged");

    f0 = f1;
    q0 = st_of("b");
    pause_();
    check("link: the file's ctime, the new parent's mtime and ctime",
          !link("a/f", "b/g") && (f1 = st_of("a/f"), LATER(f0, f1, st_ctim)) &&
              SAME(f0, f1, st_mtim) && (q1 = st_of("b"), LATER(q0, q1, st_mtim)) &&
              LATER(q0, q1, st_ctim), "unchanged");
    f0 = f1;
    q0 = q1;
    pause_();
    check("unlink: the file's ctime, the parent's mtime and ctime",
          !unlink("b/g") && (f1 = st_of("a/f"), LATER(f0, f1, st_ctim)) &&
              (q1 = st_of("b"), LATER(q0, q1, st_mtim)) && LATER(q0, q1, st_ctim),
          "unchanged");
    f0 = f1;
    p0 = st_of("a");
    q0 = st_of("b");
    pause_();
    check("rename: both parents' mtime and ctime, the file's ctime",
          !rename("a/f", "b/f") && (f1 = st_of("b/f"), LATER(f0, f1, st_ctim)) &&
              SAME(f0, f1, st_mtim) && (p1 = st_of("a"), LATER(p0, p1, st_mtim)) &&
              (q1 = st_of("b"), LATER(q0, q1, st_mtim)) && LATER(q0, q1, st_ctim),
          "unchanged");
    f0 = f1;
    pause_();
    check("chmod: ctime only",
          !chmod("b/f", 0600) && (f1 = st_of("b/f"), LATER(f0, f1, st_ctim)) &&
              SAME(f0, f1, st_mtim), "wrong times");
    f0 = f1;
    pause_();
    check("chown: ctime only",
          !chown("b/f", (uid_t)-1, getgid()) && (f1 = st_of("b/f"), LATER(f0, f1, st_ctim)) &&
              SAME(f0, f1, st_mtim), "wrong times");

    /* utimensat: UTIME_OMIT, UTIME_NOW, explicit */
    struct timespec tv[2] = {{100, 5}, {.tv_nsec = UTIME_OMIT}};
    f0 = f1;
    pause_();
    check("utimensat: atime set, mtime omitted, ctime now",
          !utimensat(AT_FDCWD, "b/f", tv, 0) && (f1 = st_of("b/f"), f1.st_atim.tv_sec == 100) &&
              f1.st_atim.tv_nsec == 5 && SAME(f0, f1, st_mtim) && LATER(f0, f1, st_ctim),
          "wrong times");
    struct timespec before;
    clock_gettime(CLOCK_REALTIME, &before);
    tv[0].tv_nsec = UTIME_OMIT;
    tv[1].tv_nsec = UTIME_NOW;
    f0 = f1;
    check("utimensat: UTIME_NOW is the host's now",
          !utimensat(AT_FDCWD, "b/f", tv, 0) && (f1 = st_of("b/f"), f1.st_atim.tv_sec == 100) &&
              ns(f1.st_mtim) >= ns(before) - 1000000000 && ns(f1.st_mtim) < ns(before) + 5000000000LL,
          "not near CLOCK_REALTIME");
    tv[1].tv_nsec = UTIME_OMIT;
    f0 = f1;
    pause_();
    check("utimensat: both omitted changes nothing",
          !utimensat(AT_FDCWD, "b/f", tv, 0) && (f1 = st_of("b/f"), SAME(f0, f1, st_ctim)) &&
              SAME(f0, f1, st_mtim), "changed");

    /* directory link counts */
    mkdir("n", 0755);
    mkdir("n/s1", 0755);
    mkdir("n/s2", 0755);
    check("a directory's link count: 2 + subdirectories", st_of("n").st_nlink == 4,
          "wrong st_nlink");
    rename("n/s2", "b/s2");
    check("rename of a directory moves a link", st_of("n").st_nlink == 3 &&
          st_of("b").st_nlink == 3, "wrong st_nlink");
    rmdir("n/s1");
    check("rmdir drops a link", st_of("n").st_nlink == 2, "wrong st_nlink");
}

/* Root only: group inheritance, and what an unprivileged caller gets. */
static void owners(void)
{
    if (geteuid() != 0) {
        printf("skip set-group-ID and unprivileged checks: not root\n");
        return;
    }
    mkdir("g", 0755);
    chown("g", 0, 1234);
    chmod("g", 02775);
    mkfile("g/f", 0644);
    mkdir("g/d", 0755);
    struct stat f = st_of("g/f"), d = st_of("g/d");
    check("set-group-ID directory: a new file gets its group", f.st_gid == 1234,
          "wrong gid");
    check("set-group-ID directory: a new directory gets its group and the bit",
          d.st_gid == 1234 && (d.st_mode & S_ISGID), "wrong gid or mode");

    mkdir("u", 0777);
    chmod("u", 0777);
    mkfile("u/rootfile", 0666);
    chmod("u/rootfile", 06777);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) || setuid(65534))
            _exit(2);
        /* a new file belongs to the caller */
        if (mkfile("u/mine", 0644))
            _exit(3);
        /* a write by someone else clears set-user-ID and set-group-ID */
        int fd = open("u/rootfile", O_WRONLY);
        if (fd < 0 || write(fd, "x", 1) != 1)
            _exit(4);
        close(fd);
        /* the owner's chown (to a group it is in) clears them too */
        if (chmod("u/mine", 06755) || chown("u/mine", 65534, 65534))
            _exit(5);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    check("unprivileged child ran", WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "child failed (allow_other?)");
    struct stat m = st_of("u/mine"), r = st_of("u/rootfile");
    check("a new file belongs to the calling uid and gid",
          m.st_uid == 65534 && m.st_gid == 65534, "wrong owner");
    check("write by another user clears set-user-ID and set-group-ID",
          !(r.st_mode & (S_ISUID | S_ISGID)), "bits kept");
    check("chown by a non-root owner clears set-user-ID and set-group-ID",
          !(m.st_mode & (S_ISUID | S_ISGID)), "bits kept");
}

int main(void)
{
    host_clock();
    rules();
    owners();
    return failures != 0;
}

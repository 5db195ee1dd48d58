/* mnttime.c -- the guest's mount timer for `make check-linux`
 * (scripts/check-linux/check-linux.sh): mount(2) SOURCE on DIR as TYPE
 * and print "mount_ns N", the syscall's CLOCK_MONOTONIC time in ns.
 * With -c, run a command instead and print "cmd_ns N", its time (the
 * guest times nandsim's page reads with dd, to calibrate its delays).
 * Built static, so that the initramfs needs no shared libraries for it.
 *
 *   mnttime SOURCE DIR TYPE        e.g. mnttime mtd0 /mnt jffs2
 *   mnttime -c COMMAND [ARG...]    e.g. mnttime -c dd if=/dev/mtd0 ...
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

static long long elapsed(const struct timespec *a, const struct timespec *b)
{
    return (long long)(b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

int main(int argc, char **argv)
{
    struct timespec a, b;
    if (argc >= 3 && !strcmp(argv[1], "-c")) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        pid_t pid = fork();
        if (pid == 0) {
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int st = 1;
        if (pid < 0 || waitpid(pid, &st, 0) < 0)
            return 1;
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("cmd_ns %lld\n", elapsed(&a, &b));
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: mnttime SOURCE DIR TYPE\n");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = mount(argv[1], argv[2], argv[3], 0, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (rc) {
        fprintf(stderr, "mnttime: mount %s on %s (%s): %s\n", argv[1], argv[2], argv[3],
                strerror(errno));
        return 1;
    }
    printf("mount_ns %lld\n", elapsed(&a, &b));
    return 0;
}

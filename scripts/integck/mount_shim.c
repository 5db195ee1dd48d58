/* mount_shim.c -- an LD_PRELOAD library that lets programs which mount and
 * unmount with the system calls (mtd-utils' integck) remount a flashlab
 * image: mount(2) and umount(2) never run a mount helper.
 *
 * mount(2) of a source "flashlab:IMAGE" (what /proc/mounts shows for a
 * flashlab mount, its fsname) or of type fuse.flashlab runs
 *     $FLASHLAB_BIN mount [-o ro] [-o $FLASHLAB_MOUNT_OPTS] IMAGE TARGET
 * and returns when it has mounted (0) or failed (-1, errno EIO, its
 * messages on stderr).  A remount (MS_REMOUNT: ro <-> rw) goes to the
 * kernel, as does any other mount.  umount(2) and umount2(2) go to the
 * kernel too: for root that is what `fusermount3 -u` does, and the mount
 * process then saves IMAGE while the next `flashlab mount` of it waits.
 *
 *     cc -shared -fPIC -o mount_shim.so mount_shim.c -ldl
 *     LD_PRELOAD=./mount_shim.so FLASHLAB_BIN=build/flashlab integck -n 10 -e MNT
 *
 * Outside the library: its exported names are the C library's own. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#define SOURCE_PREFIX "flashlab:"

typedef int (*mount_fn)(const char *, const char *, const char *, unsigned long,
                        const void *);

static int is_flashlab(const char *source, const char *fstype)
{
    return (source && !strncmp(source, SOURCE_PREFIX, strlen(SOURCE_PREFIX))) ||
           (fstype && !strcmp(fstype, "fuse.flashlab"));
}

/* Run flashlab mount; 0, or -1 with errno EIO. */
static int flashlab_mount(const char *image, const char *target, int ro)
{
    const char *bin = getenv("FLASHLAB_BIN");
    const char *opts = getenv("FLASHLAB_MOUNT_OPTS");
    char *argv[10];
    int n = 0;
    argv[n++] = (char *)(bin && *bin ? bin : "flashlab");
    argv[n++] = "mount";
    if (ro) {
        argv[n++] = "-o";
        argv[n++] = "ro";
    }
    if (opts && *opts) {
        argv[n++] = "-o";
        argv[n++] = (char *)opts;
    }
    argv[n++] = (char *)image;
    argv[n++] = (char *)target;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        unsetenv("LD_PRELOAD"); /* flashlab's own mount(2) is libfuse's */
        execvp(argv[0], argv);
        fprintf(stderr, "mount_shim: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    errno = EIO;
    return -1;
}

int mount(const char *source, const char *target, const char *fstype,
          unsigned long flags, const void *data)
{
    if (!(flags & (MS_REMOUNT | MS_BIND | MS_MOVE)) && is_flashlab(source, fstype)) {
        const char *image = source;
        if (!strncmp(image, SOURCE_PREFIX, strlen(SOURCE_PREFIX)))
            image += strlen(SOURCE_PREFIX);
        return flashlab_mount(image, target, (flags & MS_RDONLY) != 0);
    }
    mount_fn real = (mount_fn)dlsym(RTLD_NEXT, "mount");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(source, target, fstype, flags, data);
}

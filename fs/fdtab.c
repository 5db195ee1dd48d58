/* fdtab.c -- the open-file table every fs keeps: POSIX's lowest free fd,
 * grown by doubling up to FS_FD_MAX. */
#include "fscommon.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fs_fd_alloc(struct fs_fdtab *t, uint64_t ino, int flags)
{
    uint32_t fd = 0;
    while (fd < t->n && t->v[fd].used)
        fd++;
    if (fd == t->n) {
        uint32_t n = t->n ? t->n * 2 : 16;
        if (n > FS_FD_MAX)
            return -EMFILE;
        struct fs_fd *v = realloc(t->v, n * sizeof *v);
        if (!v)
            return -ENOMEM;
        memset(v + t->n, 0, (n - t->n) * sizeof *v);
        if (t->mem)
            *t->mem += (uint64_t)(n - t->n) * sizeof *v;
        t->v = v;
        t->n = n;
    }
    t->v[fd] = (struct fs_fd){.ino = ino, .flags = flags, .used = 1};
    return (int)fd;
}

int fs_fd_get(struct fs_fdtab *t, int fd, struct fs_fd **f)
{
    if (fd < 0 || (uint32_t)fd >= t->n || !t->v[fd].used)
        return -EBADF;
    *f = &t->v[fd];
    return 0;
}

int fs_fd_check(struct fs_fdtab *t, int fd, enum fs_fd_need need, struct fs_fd **f)
{
    int rc = fs_fd_get(t, fd, f);
    if (!rc && ((need == FS_FD_READ && !fs_fd_readable((*f)->flags)) ||
                (need == FS_FD_WRITE && !fs_fd_writable((*f)->flags))))
        rc = -EBADF;
    return rc;
}

void fs_fd_release(struct fs_fdtab *t, int fd)
{
    if (fd >= 0 && (uint32_t)fd < t->n)
        t->v[fd].used = 0;
}

int fs_fd_next(const struct fs_fdtab *t, int from)
{
    for (uint32_t fd = from < 0 ? 0 : (uint32_t)from; fd < t->n; fd++)
        if (t->v[fd].used)
            return (int)fd;
    return -1;
}

uint32_t fs_fd_count(const struct fs_fdtab *t, uint64_t ino)
{
    uint32_t k = 0;
    for (uint32_t fd = 0; fd < t->n; fd++)
        k += t->v[fd].used && t->v[fd].ino == ino;
    return k;
}

uint64_t fs_fdtab_bytes(const struct fs_fdtab *t)
{
    return (uint64_t)t->n * sizeof *t->v;
}

void fs_fdtab_free(struct fs_fdtab *t)
{
    if (t->mem)
        *t->mem -= fs_fdtab_bytes(t);
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

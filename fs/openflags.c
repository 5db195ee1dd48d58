/* openflags.c -- what open()'s flags allow, with the errno POSIX gives,
 * so that every fs refuses the same opens the same way. */
#include "fscommon.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

int fs_open_check(int flags)
{
    int acc = flags & O_ACCMODE;
    return acc == O_RDONLY || acc == O_WRONLY || acc == O_RDWR ? 0 : -EINVAL;
}

int fs_open_excl(int flags)
{
    return (flags & O_CREAT) && (flags & O_EXCL);
}

int fs_open_writes(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
}

int fs_open_truncates(int flags)
{
    return (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY;
}

int fs_open_existing(int flags, uint32_t mode)
{
    if (fs_open_excl(flags))
        return -EEXIST;
    if (S_ISDIR(mode) && (flags & O_ACCMODE) != O_RDONLY)
        return -EISDIR;
    /* FIFOs, devices and sockets are the host kernel's to open */
    if (S_ISFIFO(mode) || S_ISCHR(mode) || S_ISBLK(mode) || S_ISSOCK(mode))
        return -ENXIO;
    return S_ISLNK(mode) ? -ELOOP : 0;
}

int fs_fd_readable(int flags)
{
    return (flags & O_ACCMODE) != O_WRONLY;
}

int fs_fd_writable(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY;
}

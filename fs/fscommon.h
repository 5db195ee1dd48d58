/*
 * fscommon.h -- what every file system on the simulator does alike, in one
 * place: the open-file table (fs/fdtab.c), splitting a path into its
 * components (fs/pathwalk.c) and the checks open() makes on its flags
 * (fs/openflags.c), and the error text of an options string
 * (fs/optexplain.c).  Lookups, symbolic links and what a component means
 * stay with each fs; errors are negative errno values, as in fsapi.h.
 */
#ifndef FLASHLAB_FSCOMMON_H
#define FLASHLAB_FSCOMMON_H

#include "fstypes.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* ---- options (optexplain.c) ------------------------------------------- */

/* 0 when parse accepts options; else -EINVAL, with err naming the first
 * item parse rejects alone and every key help lists (help(i, &h): the
 * i-th key and its help, NULL past the end). */
int fs_opts_check(const char *kind, const char *options, int (*parse)(const char *options),
                  const char *(*help)(unsigned i, const char **h), char *err, size_t errlen);

/* A kind's option_help over its rows of {key, help}. */
const char *fs_opts_help(const char *const (*rows)[2], size_t n, unsigned i, const char **help);

/* ---- latency (lathist.c) ---------------------------------------------- */

/* One call kind's latencies in simulated time: a log-linear histogram (16
 * sub-buckets per power of two, so a percentile is within 1/16 of the
 * true value) plus exact count, sum and maximum.  Zeroed is empty. */
#define FS_LAT_BUCKETS (16 + 60 * 16)
struct fs_lathist {
    uint64_t n[FS_LAT_BUCKETS];
    uint64_t count, sum, max;
};
void fs_lat_record(struct fs_lathist *h, uint64_t ns);
/* count, mean, p50, p99, p99.9 and max of h */
void fs_lat_get(const struct fs_lathist *h, struct fs_latency *out);

/* ---- open files (fdtab.c) --------------------------------------------- */

#define FS_FD_MAX 65536 /* fds per mount; past it open gives -EMFILE */

/* One open file: what it names, the offset read/write/lseek share, the
 * open() flags. */
struct fs_fd {
    uint64_t ino, pos;
    int flags, used;
};

/* Zero-initialised is empty.  mem, when set, is the fs's counter of RAM
 * held: the table adds and subtracts what it allocates there. */
struct fs_fdtab {
    struct fs_fd *v;
    uint32_t n; /* slots allocated */
    uint64_t *mem;
};

/* The lowest free fd, now open on ino with flags; -EMFILE or -ENOMEM. */
int fs_fd_alloc(struct fs_fdtab *t, uint64_t ino, int flags);
/* The open fd's slot in *f, or -EBADF. */
int fs_fd_get(struct fs_fdtab *t, int fd, struct fs_fd **f);
/* What a call needs of the fd it is given. */
enum fs_fd_need { FS_FD_OPEN, FS_FD_READ, FS_FD_WRITE };
/* fs_fd_get, and -EBADF too for an fd not opened for the reading or
 * writing the call needs (fs_fd_readable, fs_fd_writable). */
int fs_fd_check(struct fs_fdtab *t, int fd, enum fs_fd_need need, struct fs_fd **f);
/* Close fd (an fd not open is left alone). */
void fs_fd_release(struct fs_fdtab *t, int fd);
/* The first open fd at or after from, or -1: for (fd = fs_fd_next(t, 0);
 * fd >= 0; fd = fs_fd_next(t, fd + 1)). */
int fs_fd_next(const struct fs_fdtab *t, int from);
/* How many open fds name ino. */
uint32_t fs_fd_count(const struct fs_fdtab *t, uint64_t ino);
/* Bytes the table holds; then free it all (the table is empty again). */
uint64_t fs_fdtab_bytes(const struct fs_fdtab *t);
void fs_fdtab_free(struct fs_fdtab *t);

/* ---- paths (pathwalk.c) ----------------------------------------------- */

#define FS_NAME_MAX 255 /* bytes in one component */
/* A path given to a file system has at most FS_PATH_MAX - 1 bytes.  This
 * is well above the host's PATH_MAX (4096) on purpose: a FUSE mount gets
 * paths from its root, and a process whose working directory is deep in
 * the mount may name a file with a relative path the kernel accepts but
 * whose full path is longer than PATH_MAX (pjdfstest does). */
#define FS_PATH_MAX 65536
/* A symbolic link's target has at most FS_LINK_MAX - 1 bytes, as on Linux. */
#define FS_LINK_MAX 4096

enum fs_comp_kind { FS_COMP_NAME, FS_COMP_DOT, FS_COMP_DOTDOT };

/* One component of a path, as offsets into it, so that a walk may splice
 * a link's target into its buffer and go on from an offset. */
struct fs_comp {
    const char *name;       /* not NUL-terminated: len bytes */
    size_t len;
    size_t end;             /* just past the name: the rest of the path */
    size_t next;            /* the next component (repeated slashes skipped) */
    int last;               /* nothing but slashes follows */
    int slash;              /* a slash follows ("/a/f/" asks for a directory) */
    enum fs_comp_kind kind; /* "." and ".." are the fs's to interpret */
};

/* 0 for an absolute path shorter than FS_PATH_MAX; -EINVAL for NULL or a
 * relative path, -ENAMETOOLONG for a long one. */
int fs_path_check(const char *path);
/* The component at or after offset pos (leading slashes skipped) in *c:
 * 1, or 0 when none is left, or -ENAMETOOLONG for a name over
 * FS_NAME_MAX bytes. */
int fs_path_comp(const char *path, size_t pos, struct fs_comp *c);

/* ---- open flags (openflags.c) ----------------------------------------- */

/* -EINVAL unless the access mode is O_RDONLY, O_WRONLY or O_RDWR. */
int fs_open_check(int flags);
/* O_CREAT|O_EXCL: the final component must not exist. */
int fs_open_excl(int flags);
/* Whether the open may change the fs (write access, O_CREAT, O_TRUNC):
 * what a read-only mount refuses. */
int fs_open_writes(int flags);
/* O_TRUNC with write access: an existing file is cut to 0. */
int fs_open_truncates(int flags);
/* For an existing inode of the given mode: -EEXIST (O_CREAT|O_EXCL),
 * -EISDIR (a directory opened for writing), -ELOOP (a symbolic link, which
 * an open reaches only unfollowed), else 0. */
int fs_open_existing(int flags, uint32_t mode);
/* Whether an fd opened with flags may be read from / written to (else a
 * read or write through it is -EBADF). */
int fs_fd_readable(int flags);
int fs_fd_writable(int flags);

/* ---- file sizes -------------------------------------------------------- */

/* How many of len bytes a write at off may write when files hold at most
 * max bytes (max <= INT64_MAX; POSIX, as Linux's generic_write_checks):
 * -EFBIG when it would start at or past max, else len cut so that it ends
 * at max (a short write).  An empty write is never refused. */
static inline int64_t fs_write_fit(uint64_t off, uint64_t len, uint64_t max)
{
    if (!len)
        return 0;
    if (off >= max)
        return -EFBIG;
    return (int64_t)(len < max - off ? len : max - off);
}

#endif

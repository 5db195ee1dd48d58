/* mount_tmpfile.c -- O_TMPFILE on the mount, with libfuse 3.14's
 * high-level API, which has no tmpfile operation (docs/mount.md).
 *
 * The kernel asks FUSE_TMPFILE (opcode 51) with CREATE's arguments (struct
 * fuse_create_in, then the name "/") and takes CREATE's reply (entry and
 * open); libfuse 3.14 would answer ENOSYS, and the kernel then refuse every
 * O_TMPFILE open with EOPNOTSUPP.  So the mount's reader (mount_ops.c's
 * io_read) rewrites the request into a FUSE_CREATE of a hidden name in the
 * same directory, and op_create, seeing that name on the request this
 * thread serves, makes an anonymous file through the kind's tmpfile hook
 * instead.  libfuse then knows the node under the hidden name: reads,
 * writes, fsync and fstat go through the handle (mount_files.c), and
 * linkat(2) of the open file arrives as FUSE_LINK from the hidden name,
 * which becomes the kind's linkfd.
 *
 * A hidden name is TMP_NAME_LEN bytes, longer than any name a kind
 * stores (fs/fscommon.h's FS_NAME_MAX, 255), so no file can have it and
 * nothing that reaches the fs can make one; it holds the request's unique
 * number, so no two are alike.  Tables below map each to the fs fd,
 * shared by every open of the node (a reopen through /proc/self/fd),
 * until the last release.  Caller holds the mount's lock, except for
 * mnt_tmp_rewrite and mnt_tmp_requested, which only touch the request
 * this thread reads. */
#include "mount_priv.h"

#include "posixacl.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TMP_PREFIX ".flashlab-tmpfile-"
#define TMP_NAME_LEN 256 /* > FS_NAME_MAX */

struct tmpf {
    uint64_t unique; /* the TMPFILE request's: the hidden name */
    int fd, refs;
    char *linked;    /* the name linkat gave it, or NULL */
    uint8_t *acl;    /* the access ACL a default ACL gave it, for its name */
    size_t acl_len;
    struct tmpf *by_unique, *by_fd; /* the next in its bucket of each table */
};

/* Two hash tables of the same entries, by unique and by fd: every release
 * looks its fd up, and xfstests' generic/531 keeps 65,536 tmpfiles open. */
#define TMP_BUCKETS 4096u
static struct tmpf *tmp_unique_tab[TMP_BUCKETS], *tmp_fd_tab[TMP_BUCKETS];

static struct tmpf **unique_slot(uint64_t unique)
{
    return &tmp_unique_tab[(unique ^ unique >> 12 ^ unique >> 24) % TMP_BUCKETS];
}

static struct tmpf **fd_slot(int fd)
{
    return &tmp_fd_tab[(unsigned)fd % TMP_BUCKETS];
}
/* The TMPFILE this thread rewrote and serves: its unique, or 0. */
static _Thread_local uint64_t tmp_unique;

static void hidden_name(uint64_t unique, char name[TMP_NAME_LEN + 1])
{
    int n = snprintf(name, TMP_NAME_LEN + 1, TMP_PREFIX "%016" PRIx64 "-", unique);
    memset(name + n, 'x', (size_t)(TMP_NAME_LEN - n));
    name[TMP_NAME_LEN] = 0;
}

/* The unique number in the hidden name path ends in: 1, or 0 for a path
 * that does not end in one. */
static int unique_of(const char *path, uint64_t *unique)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    char name[TMP_NAME_LEN + 1];
    if (!s || strlen(++s) != TMP_NAME_LEN || strncmp(s, TMP_PREFIX, strlen(TMP_PREFIX)) ||
        sscanf(s + strlen(TMP_PREFIX), "%16" SCNx64, unique) != 1)
        return 0;
    hidden_name(*unique, name);
    return !strcmp(s, name);
}

static struct tmpf *find(const char *path)
{
    uint64_t u;
    if (!unique_of(path, &u))
        return NULL;
    struct tmpf *t = *unique_slot(u);
    while (t && t->unique != u)
        t = t->by_unique;
    return t;
}

ssize_t mnt_tmp_rewrite(void *buf, ssize_t n, size_t len)
{
    struct fuse_in_header h;
    const size_t args = sizeof h + sizeof(struct fuse_create_in);
    tmp_unique = 0;
    if (n < (ssize_t)(args + 2) || !mnt_g->fs.api->tmpfile)
        return n; /* libfuse answers ENOSYS: the kernel says EOPNOTSUPP */
    memcpy(&h, buf, sizeof h);
    char *name = (char *)buf + args;
    if (h.opcode != FUSE_TMPFILE || h.len != (uint32_t)n || (size_t)n != args + 2 ||
        strcmp(name, "/") || args + TMP_NAME_LEN + 1 > len)
        return n;
    hidden_name(h.unique, name);
    h.opcode = FUSE_CREATE;
    h.len = (uint32_t)(args + TMP_NAME_LEN + 1);
    memcpy(buf, &h, sizeof h);
    tmp_unique = h.unique;
    return (ssize_t)h.len;
}

int mnt_tmp_requested(const char *path)
{
    uint64_t u;
    return tmp_unique && unique_of(path, &u) && u == tmp_unique;
}

int mnt_tmp_hidden(const char *path)
{
    uint64_t u;
    return unique_of(path, &u);
}

int mnt_tmp_open(struct mnt *m, const char *dir, const char *path, int flags, uint32_t mode,
                 const struct mnt_acl_new *a)
{
    const struct fuse_context *c = fuse_get_context();
    struct tmpf *t = calloc(1, sizeof *t);
    uint64_t u;
    if (!t || !unique_of(path, &u)) {
        free(t);
        return -ENOMEM;
    }
    if (a && a->access_len && !(t->acl = malloc(a->access_len))) {
        free(t);
        return -ENOMEM;
    }
    int fd = m->fs.api->tmpfile(m->fs.fs, dir, flags, mode, c ? c->uid : 0, c ? c->gid : 0);
    if (fd < 0) {
        free(t->acl);
        free(t);
        return fd;
    }
    if (t->acl) {
        memcpy(t->acl, a->access, a->access_len);
        t->acl_len = a->access_len;
    }
    t->unique = u;
    t->fd = fd;
    t->refs = 1;
    t->by_unique = *unique_slot(u);
    *unique_slot(u) = t;
    t->by_fd = *fd_slot(fd);
    *fd_slot(fd) = t;
    return fd;
}

int mnt_tmp_fd(const char *path)
{
    const struct tmpf *t = find(path);
    return t ? t->fd : -1;
}

int mnt_tmp_reopen(const char *path)
{
    struct tmpf *t = find(path);
    if (!t)
        return -ENOENT;
    t->refs++;
    return t->fd;
}

int mnt_tmp_release(int fd)
{
    for (struct tmpf **p = fd_slot(fd); *p; p = &(*p)->by_fd) {
        struct tmpf *t = *p;
        if (t->fd != fd)
            continue;
        if (--t->refs > 0)
            return 1;
        *p = t->by_fd;
        struct tmpf **u = unique_slot(t->unique);
        while (*u != t)
            u = &(*u)->by_unique;
        *u = t->by_unique;
        free(t->linked);
        free(t->acl);
        free(t);
        return 0;
    }
    return 0;
}

int mnt_tmp_link(struct mnt *m, const char *from, const char *to)
{
    struct tmpf *t = find(from);
    if (!t)
        return -ENOENT;
    char *name = strdup(to);
    int rc = !name ? -ENOMEM : m->fs.api->linkfd(m->fs.fs, t->fd, to);
    /* the ACL a create would have stored with the file, now that it has a
     * path to store it by (two calls, as create and its ACL are) */
    if (!rc && t->acl)
        rc = fsapi_setxattr(&m->fs, to, FS_ACL_ACCESS, t->acl, t->acl_len, 0);
    if (rc) {
        free(name);
        return rc;
    }
    free(t->acl);
    t->acl = NULL;
    free(t->linked);
    t->linked = name;
    return 0;
}

const char *mnt_tmp_named(struct mnt *m, const char *path)
{
    if (!mnt_tmp_hidden(path))
        return path;
    struct tmpf *t = find(path);
    struct fs_stat a, b;
    if (!t || !t->linked || MNT_CALL(m, lstat, t->linked, &a) ||
        MNT_CALL(m, fstat, t->fd, &b) || a.ino != b.ino)
        return NULL;
    return t->linked;
}

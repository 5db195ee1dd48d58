/* mount_ops.c -- the FUSE operations of `flashlab mount`: each takes the
 * mount's one lock, calls LogFS, records the op in the trace when it
 * succeeded, and returns LogFS's negative errno as FUSE wants it.
 *
 * The kernel resolves symbolic links itself, so the paths libfuse hands us
 * never go through one but the last component, and a setattr on that
 * component means the link itself: chown and utimens use LogFS's
 * lchown and lutimens, and chmod of a link (which Linux never asks) is
 * dropped (see docs/mount.md). */
#include "mount_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fuse.h>
#include <fuse_lowlevel.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE /* linux/fs.h's, which glibc 2.36 has in stdio.h */
#define RENAME_NOREPLACE (1u << 0)
#define RENAME_EXCHANGE (1u << 1)
#define RENAME_WHITEOUT (1u << 2)
#endif

struct mnt *mnt_g;

/* The request this thread serves keeps working after a power cut: one on
 * the stats file (is_stats said so), or a getattr of the root, which the
 * kernel asks before it looks the stats file up. */
static _Thread_local int req_alive;

static uint64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct mnt *lk(void)
{
    struct mnt *m = mnt_g;
    uint64_t t0 = host_ns();
    pthread_mutex_lock(&m->lock);
    req_alive = 0;
    m->held_since = host_ns();
    m->lock_wait_ns += m->held_since - t0;
    m->fuse_ops++;
    m->op_start = nand_now(m->dev);
    return m;
}

/* Unlock and pass rc on, counting failures (a missing name is a normal
 * answer to a lookup, not a failure).  After a power cut the device is
 * dead: every answer but the stats file's is EIO, even one LogFS's cache
 * could give. */
static int ulk(struct mnt *m, int rc)
{
    if (!req_alive && !nand_is_powered(m->dev) && rc != -EROFS)
        rc = -EIO;
    if (rc < 0 && rc != -ENOENT && rc != -ENODATA) /* a missing xattr is asked for often */
        m->errors++;
    if (rc == -EIO)
        m->eio++;
    m->lock_held_ns += host_ns() - m->held_since;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

static int is_stats(const char *path)
{
    int s = path && !strcmp(path, MNT_STATS_PATH);
    req_alive |= s;
    return s;
}

/* A snapshot of the stats text, taken at open: reads of one open file see
 * one consistent snapshot. */
struct snap {
    size_t len;
    char *text;
};

static void ns_to_ts(int64_t ns, struct timespec *ts)
{
    int64_t s = ns / 1000000000, r = ns % 1000000000;
    if (r < 0) {
        s--;
        r += 1000000000;
    }
    ts->tv_sec = (time_t)s;
    ts->tv_nsec = (long)r;
}

static void fill_stat(const struct mnt *m, const struct fs_stat *ls, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = (ino_t)ls->ino;
    st->st_mode = (mode_t)ls->mode;
    st->st_nlink = ls->nlink;
    st->st_uid = ls->uid;
    st->st_gid = ls->gid;
    st->st_size = (off_t)ls->size; /* a directory: its number of entries */
    st->st_blocks = (blkcnt_t)ls->blocks; /* the kind's count, or the size rounded up */
    st->st_blksize = (blksize_t)m->block_size;
    ns_to_ts(ls->atime, &st->st_atim);
    ns_to_ts(ls->mtime, &st->st_mtim);
    ns_to_ts(ls->ctime, &st->st_ctim);
    st->st_rdev = (dev_t)ls->rdev;
}

static void stats_stat(struct mnt *m, struct stat *st)
{
    size_t len = 0;
    free(mnt_stats_text(m, &len)); /* the size a read would see now */
    memset(st, 0, sizeof *st);
    st->st_ino = (ino_t)MNT_STATS_INO;
    st->st_mode = S_IFREG | 0444;
    st->st_nlink = 1;
    st->st_size = (off_t)len;
    st->st_blocks = (blkcnt_t)fs_blocks_of_size(len);
    st->st_blksize = (blksize_t)m->block_size;
    ns_to_ts((int64_t)m->op_start, &st->st_mtim);
    st->st_atim = st->st_ctim = st->st_mtim;
}

/* The directory holding path, as a new string ("/" for the root's
 * entries), or NULL when out of memory.  Paths from FUSE may be longer
 * than PATH_MAX (fs/fscommon.h), so no fixed buffer. */
static char *parent_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return strndup(path, s && s != path ? (size_t)(s - path) : 1);
}

/* The caller's uid and gid on a new inode (LogFS makes them root's, or
 * gives the group of a set-group-ID parent, which then stays). */
static void set_owner(struct mnt *m, const char *path)
{
    const struct fuse_context *c = fuse_get_context();
    struct fs_stat ls;
    if (!c || MNT_CALL(m, lstat, path, &ls))
        return;
    uint32_t gid = c->gid;
    char *parent = parent_of(path);
    struct fs_stat ps;
    if (parent && !MNT_CALL(m, lstat, parent, &ps) && (ps.mode & S_ISGID))
        gid = ps.gid;
    free(parent);
    if (ls.uid != c->uid || ls.gid != gid)
        fsapi_chown(&m->fs, path, c->uid, gid, 0);
}

/* A new inode's mode and ACLs (mount_acl.c): before it is made, mode
 * masked by the parent's default ACL or the umask; after, the ACLs that
 * go with it. */
static struct mnt_acl_new *new_mode(struct mnt *m, const char *path, uint32_t *mode)
{
    struct mnt_acl_new *a = m->acl ? malloc(sizeof *a) : NULL;
    char *parent = a ? parent_of(path) : NULL;
    if (parent)
        mnt_acl_new(m, parent, mode, a);
    else
        free(a), a = NULL;
    free(parent);
    return a;
}

static int new_made(struct mnt *m, const char *path, struct mnt_acl_new *a, int is_dir)
{
    set_owner(m, path);
    int rc = a ? mnt_acl_apply(m, path, a, is_dir) : 0;
    free(a);
    return rc;
}

/* The LogFS flags of an open: write-only becomes read-write, because the
 * kernel may read pages of a file opened for writing. */
static int lfs_flags(int flags)
{
    int acc = flags & O_ACCMODE;
    return (acc == O_RDONLY ? O_RDONLY : O_RDWR) |
           (flags & (O_APPEND | O_TRUNC | O_CREAT | O_EXCL));
}

static void trace_path(struct mnt *m, enum trace_op op, const char *path)
{
    mnt_trace(m, &(struct trace_rec){.op = op, .path = path});
}

static void trace_io(struct mnt *m, enum trace_op op, const char *path, uint64_t off,
                     uint64_t len)
{
    mnt_trace(m, &(struct trace_rec){.op = op, .path = path, .offset = off, .length = len});
}

/* ---- open directories and files by node -------------------------------------
 * libfuse's high-level API names a node by its path, and a directory whose
 * name a rename took over, or a file unlinked while open (hard_remove), has
 * none left: the kernel's GETATTR of it (an fstat, which never carries a
 * handle) failed with ESTALE inside libfuse, before any op of ours ran
 * (xfstests generic/035).  So the mount reads the kernel's requests itself
 * (mnt_io_install): a GETATTR of a node that an opendir or open of ours
 * holds (mount_files.c) is marked as one on a handle (FUSE_GETATTR_FH, fh
 * MNT_FILE_BY_NODE), which libfuse passes on without needing a path, and
 * op_getattr answers it with fstat on the fd open in the fs, as Linux does
 * (nlink 0 once gone). */

/* The node and opcode of the request this thread is serving (libfuse's
 * threads read a request and then serve it) */
static _Thread_local uint64_t req_node;
static _Thread_local uint32_t req_opcode;

/* ---- attributes ---------------------------------------------------------- */

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    struct mnt *m = lk();
    struct fs_stat ls;
    int rc = 0;
    int fd = !fi ? -1 : fi->fh == MNT_FILE_BY_NODE ? mnt_file_fd_of(req_node) : (int)fi->fh;
    /* an O_TMPFILE's hidden name: a lookup finds nothing there; libfuse's
     * own getattr after a setattr of the node is answered through its fd */
    int tmp = fd < 0 && mnt_tmp_hidden(path);
    if (tmp && req_opcode != FUSE_LOOKUP)
        fd = mnt_tmp_fd(path);
    req_alive = path && !strcmp(path, "/");
    if (is_stats(path))
        stats_stat(m, st);
    else if (!path && fd < 0)
        rc = -ESTALE; /* the directory was closed meanwhile: no name, no fd */
    else if (tmp && fd < 0)
        rc = -ENOENT;
    else if ((rc = fd >= 0 ? MNT_CALL(m, fstat, fd, &ls) : MNT_CALL(m, lstat, path, &ls)) == 0)
        fill_stat(m, &ls, st);
    return ulk(m, rc);
}

static int op_access(const char *path, int mask)
{
    struct mnt *m = lk();
    struct fs_stat ls;
    int rc = 0;
    if (is_stats(path))
        rc = mask & (W_OK | X_OK) ? -EACCES : 0;
    else if (!(path = mnt_tmp_named(m, path)))
        rc = 0; /* an O_TMPFILE not linked: the kernel checked its mode */
    else if (!(rc = MNT_CALL(m, lstat, path, &ls)) && (mask & W_OK) && m->readonly)
        rc = -EROFS;
    return ulk(m, rc);
}

/* LogFS's attribute calls take a path: an unlinked open file (no path)
 * cannot be changed, and the change is dropped (0), as documented; so is
 * a chmod of a symbolic link (links are 0777).  ls: what the path names
 * now, the link itself for a link. */
static int attr_target(struct mnt *m, const char *path, struct fs_stat *ls,
                       int link_ok)
{
    if (is_stats(path))
        return -EPERM;
    if (!path)
        return 1;
    int rc = MNT_CALL(m, lstat, path, ls);
    return rc ? rc : S_ISLNK(ls->mode) && !link_ok ? 1 : 0;
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    struct mnt *m = lk();
    struct fs_stat ls;
    path = mnt_tmp_named(m, path);
    int rc = attr_target(m, path, &ls, 0);
    if (!rc)
        rc = fsapi_chmod(&m->fs, path, mode & 07777);
    return ulk(m, rc > 0 ? 0 : rc);
}

static int op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    (void)fi;
    struct mnt *m = lk();
    struct fs_stat ls;
    path = mnt_tmp_named(m, path);
    int rc = attr_target(m, path, &ls, 1);
    if (!rc)
        rc = fsapi_chown(&m->fs, path, uid == (uid_t)-1 ? ls.uid : uid,
                         gid == (gid_t)-1 ? ls.gid : gid, 0);
    return ulk(m, rc > 0 ? 0 : rc);
}

/* utimensat's time as fsapi's utimens takes it: UTIME_NOW and UTIME_OMIT
 * pass through, so that the fs takes "now" from its own clock and leaves
 * ctime alone when both are omitted. */
static int64_t ts_ns(const struct timespec *t)
{
    if (!t || t->tv_nsec == UTIME_NOW)
        return FS_TIME_NOW;
    if (t->tv_nsec == UTIME_OMIT)
        return FS_TIME_OMIT;
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int op_utimens(const char *path, const struct timespec tv[2],
                      struct fuse_file_info *fi)
{
    (void)fi;
    struct mnt *m = lk();
    struct fs_stat ls;
    path = mnt_tmp_named(m, path);
    int rc = attr_target(m, path, &ls, 1);
    if (!rc)
        rc = fsapi_utimens(&m->fs, path, ts_ns(tv ? &tv[0] : NULL),
                           ts_ns(tv ? &tv[1] : NULL), 0);
    return ulk(m, rc > 0 ? 0 : rc);
}

static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (size < 0)
        return -EINVAL;
    struct mnt *m = lk();
    int rc = -EBADF;
    if (is_stats(path))
        rc = -EPERM;
    else if (fi)
        rc = MNT_CALL(m, ftruncate, (int)fi->fh, (uint64_t)size);
    if (rc == -EBADF && (path = mnt_tmp_named(m, path))) /* no fd, or a read-only one */
        rc = fsapi_truncate(&m->fs, path, (uint64_t)size);
    if (!rc) {
        mnt_acl_modified(m, path, fi ? (int)fi->fh : -1);
        mnt_trace(m, &(struct trace_rec){.op = TRACE_TRUNCATE, .path = path,
                                         .size = (uint64_t)size});
    }
    return ulk(m, rc);
}

static int op_statfs(const char *path, struct statvfs *sv)
{
    (void)path;
    struct mnt *m = lk();
    struct fs_statfs sf;
    int rc = MNT_CALL(m, statfs, &sf);
    if (!rc) {
        memset(sv, 0, sizeof *sv);
        sv->f_bsize = sv->f_frsize = sf.block_size;
        sv->f_blocks = sf.total_bytes / sf.block_size;
        sv->f_bfree = sv->f_bavail = sf.free_bytes / sf.block_size;
        /* inodes are not preallocated: one per free block could still come */
        sv->f_files = sf.files + sv->f_bfree;
        sv->f_ffree = sv->f_favail = sv->f_bfree;
        sv->f_namemax = 255;
        if (m->readonly)
            sv->f_flag |= ST_RDONLY;
    }
    return ulk(m, rc);
}

/* ---- the namespace ------------------------------------------------------- */

static int op_mkdir(const char *path, mode_t mode)
{
    struct mnt *m = lk();
    uint32_t md = mode & 07777;
    struct mnt_acl_new *a = is_stats(path) ? NULL : new_mode(m, path, &md);
    int rc = is_stats(path) ? -EEXIST : MNT_CALL(m, mkdir, path, md);
    if (rc)
        free(a);
    else if (!(rc = new_made(m, path, a, 1))) {
        mnt_trace(m, &(struct trace_rec){.op = TRACE_MKDIR, .path = path,
                                         .mode = md});
    }
    return ulk(m, rc);
}

static int op_rmdir(const char *path)
{
    struct mnt *m = lk();
    int rc = is_stats(path) ? -ENOTDIR : MNT_CALL(m, rmdir, path);
    if (!rc)
        trace_path(m, TRACE_RMDIR, path);
    return ulk(m, rc);
}

static int op_unlink(const char *path)
{
    struct mnt *m = lk();
    int rc = is_stats(path) ? -EPERM : MNT_CALL(m, unlink, path);
    if (!rc)
        trace_path(m, TRACE_UNLINK, path);
    return ulk(m, rc);
}

/* renameat2's flags, each in one step of the fs (fsapi_rename2); the
 * trace records an exchange as one, a whiteout as a rename (it has no
 * mknod) */
static int op_rename(const char *from, const char *to, unsigned int flags)
{
    if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
        return -EINVAL;
    unsigned fl = (flags & RENAME_NOREPLACE ? FS_RENAME_NOREPLACE : 0) |
                  (flags & RENAME_EXCHANGE ? FS_RENAME_EXCHANGE : 0) |
                  (flags & RENAME_WHITEOUT ? FS_RENAME_WHITEOUT : 0);
    struct mnt *m = lk();
    int rc = is_stats(from) ? -EPERM : is_stats(to) ? -EEXIST : 0;
    if (!rc)
        rc = fsapi_rename2(&m->fs, from, to, fl);
    if (!rc && (fl & FS_RENAME_WHITEOUT))
        set_owner(m, from);
    if (!rc)
        mnt_trace(m, &(struct trace_rec){.op = fl & FS_RENAME_EXCHANGE ? TRACE_EXCHANGE
                                                                       : TRACE_RENAME,
                                         .path = from, .path2 = to});
    return ulk(m, rc == -ENOTSUP ? -EINVAL : rc);
}

static int op_link(const char *from, const char *to)
{
    struct mnt *m = lk();
    int rc = is_stats(from) ? -EPERM : is_stats(to) ? -EEXIST
           : mnt_tmp_hidden(from) ? mnt_tmp_link(m, from, to) : MNT_CALL(m, link, from, to);
    if (!rc)
        mnt_trace(m, &(struct trace_rec){.op = TRACE_LINK, .path = from, .path2 = to});
    return ulk(m, rc);
}

static int op_symlink(const char *target, const char *path)
{
    struct mnt *m = lk();
    int rc = is_stats(path) ? -EEXIST : MNT_CALL(m, symlink, target, path);
    if (!rc)
        set_owner(m, path);
    if (!rc)
        mnt_trace(m, &(struct trace_rec){.op = TRACE_SYMLINK, .path = target, .path2 = path});
    return ulk(m, rc);
}

static int op_readlink(const char *path, char *buf, size_t size)
{
    if (!size)
        return -EINVAL;
    struct mnt *m = lk();
    int64_t n = is_stats(path) ? -EINVAL : MNT_CALL(m, readlink, path, buf, size - 1);
    if (n >= 0)
        buf[n] = 0;
    return ulk(m, n < 0 ? (int)n : 0);
}

/* A regular file (as open(O_CREAT|O_EXCL) would make it, and traced so),
 * or a FIFO, socket or device node: the kernel opens those itself. */
static int op_mknod(const char *path, mode_t mode, dev_t rdev)
{
    struct mnt *m = lk();
    uint32_t md = (uint32_t)mode;
    struct mnt_acl_new *a = is_stats(path) ? NULL : new_mode(m, path, &md);
    if (!S_ISREG(mode)) {
        int rc = is_stats(path) ? -EEXIST
               : fsapi_mknod(&m->fs, path, md, (uint64_t)rdev);
        if (rc)
            free(a);
        else
            rc = new_made(m, path, a, 0);
        return ulk(m, rc);
    }
    int fd = is_stats(path) ? -EEXIST
           : MNT_CALL(m, open, path, O_RDWR | O_CREAT | O_EXCL, md & 07777);
    int rc = fd < 0 ? fd : MNT_CALL(m, close, fd);
    if (rc)
        free(a);
    else if (!(rc = new_made(m, path, a, 0))) {
        mnt_trace(m, &(struct trace_rec){.op = TRACE_CREATE, .path = path, .mode = md & 07777,
                                         .flags = TRACE_F_WRITE | TRACE_F_CREAT | TRACE_F_EXCL});
        trace_path(m, TRACE_CLOSE, path);
    }
    return ulk(m, rc);
}

/* ---- readdir ---------------------------------------------------------------
 * A directory stream lists a snapshot, taken in one readdir pass when
 * the stream starts (offset 0: opendir or rewinddir); an offset is an index
 * into it.  Resuming LogFS's own cookie instead would skip entries when the
 * caller deletes what it has read (rm -rf's pattern): a cookie is a
 * position in a hash bucket, which moves when earlier names of the bucket
 * go (see docs/mount.md).  POSIX leaves it open whether names added or
 * removed after opendir/rewinddir show up, so a snapshot is conforming. */

struct dent {
    uint64_t ino;
    uint32_t type;
    char *name;
};

struct dsnap {
    size_t n, cap;
    struct dent *v;
    int root, nomem; /* root: hide MNT_STATS_NAME (the virtual file shadows it) */
    /* the directory open in the fs (-1: the kind cannot), for a GETATTR
     * of its node once a rename took its name (mount_files.c) */
    int fd;
};

/* The kernel's requests as libfuse reads them: note the node, and mark a
 * GETATTR of an open directory's or file's node as one on a handle. */
static ssize_t io_read(int fd, void *buf, size_t len, void *userdata)
{
    (void)userdata;
    ssize_t n = mnt_tmp_rewrite(buf, read(fd, buf, len), len);
    struct fuse_in_header h;
    struct fuse_getattr_in g;
    req_node = 0;
    req_opcode = 0;
    if (n < (ssize_t)sizeof h)
        return n;
    memcpy(&h, buf, sizeof h);
    req_node = h.nodeid;
    req_opcode = h.opcode;
    mnt_files_request(h.opcode, h.unique);
    if (h.opcode != FUSE_GETATTR || n < (ssize_t)(sizeof h + sizeof g))
        return n;
    memcpy(&g, (char *)buf + sizeof h, sizeof g);
    if (g.getattr_flags & FUSE_GETATTR_FH)
        return n;
    if (mnt_file_fd_of(h.nodeid) >= 0) {
        g.getattr_flags |= FUSE_GETATTR_FH;
        g.fh = MNT_FILE_BY_NODE;
        memcpy((char *)buf + sizeof h, &g, sizeof g);
    }
    return n;
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata)
{
    (void)userdata;
    mnt_files_reply(iov, count);
    return writev(fd, iov, count);
}

int mnt_io_install(struct fuse *f)
{
    static const struct fuse_custom_io io = {.read = io_read, .writev = io_writev};
    struct fuse_session *se = fuse_get_session(f);
    return fuse_session_custom_io(se, &io, fuse_session_fd(se));
}

static void dsnap_clear(struct dsnap *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].name);
    free(d->v);
    d->v = NULL;
    d->n = d->cap = 0;
    d->nomem = 0;
}

static int dsnap_add(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct dsnap *d = ctx;
    if (d->root && !strcmp(name, MNT_STATS_NAME))
        return 0;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        struct dent *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return d->nomem = 1;
        d->v = v;
        d->cap = cap;
    }
    if (!(d->v[d->n].name = strdup(name)))
        return d->nomem = 1;
    d->v[d->n].ino = ino;
    d->v[d->n++].type = type;
    return 0;
}

static int op_opendir(const char *path, struct fuse_file_info *fi)
{
    struct mnt *m = lk();
    struct fs_stat ls;
    int rc = is_stats(path) ? -ENOTDIR : MNT_CALL(m, stat, path, &ls);
    if (!rc && !S_ISDIR(ls.mode))
        rc = -ENOTDIR;
    struct dsnap *d = rc ? NULL : calloc(1, sizeof *d);
    if (!rc && !d)
        rc = -ENOMEM;
    if (d) {
        d->root = !strcmp(path, "/");
        d->fd = MNT_CALL(m, open, path, O_RDONLY | O_DIRECTORY, 0);
        if (d->fd >= 0 && req_node)
            mnt_files_add(req_node, d->fd);
    }
    fi->fh = (uint64_t)(uintptr_t)d;
    return ulk(m, rc);
}

static int op_releasedir(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct dsnap *d = (struct dsnap *)(uintptr_t)fi->fh;
    if (!d)
        return 0;
    struct mnt *m = lk();
    if (d->fd >= 0)
        mnt_files_remove(d->fd);
    /* the last close of a directory a rename or rmdir removed deletes it */
    int rc = d->fd >= 0 ? MNT_CALL(m, close, d->fd) : 0;
    dsnap_clear(d);
    free(d);
    return ulk(m, rc);
}

/* "." or "..": the inode number of path or its parent. */
static int dot_entry(struct mnt *m, const char *path, int dotdot, void *buf,
                     fuse_fill_dir_t fill)
{
    struct fs_stat ls;
    struct stat st = {.st_mode = S_IFDIR};
    char *parent = dotdot ? parent_of(path) : NULL;
    const char *p = dotdot ? parent : path;
    if (p && !MNT_CALL(m, lstat, p, &ls))
        st.st_ino = (ino_t)ls.ino;
    free(parent);
    return fill(buf, dotdot ? ".." : ".", &st, dotdot ? 2 : 1, 0);
}

/* Offsets: 1 and 2 follow "." and "..", entry i of the snapshot is at
 * DIR_FIRST + i. */
#define DIR_FIRST 2

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)flags;
    struct dsnap *d = (struct dsnap *)(uintptr_t)fi->fh;
    if (off < 0 || !d)
        return off < 0 ? -EINVAL : -EBADF;
    struct mnt *m = lk();
    int rc = 0;
    if (off == 0) { /* a new pass: opendir or rewinddir */
        uint64_t cookie = 0;
        dsnap_clear(d);
        rc = MNT_CALL(m, readdir, path, &cookie, dsnap_add, d);
        if (!rc && d->nomem)
            rc = -ENOMEM;
        if (rc) {
            dsnap_clear(d);
            return ulk(m, rc);
        }
        if (dot_entry(m, path, 0, buf, fill))
            return ulk(m, 0);
    }
    if (off <= 1 && dot_entry(m, path, 1, buf, fill))
        return ulk(m, 0);
    for (size_t i = off <= DIR_FIRST ? 0 : (size_t)(off - DIR_FIRST); i < d->n; i++) {
        struct stat st = {.st_ino = (ino_t)d->v[i].ino, .st_mode = (mode_t)d->v[i].type};
        if (fill(buf, d->v[i].name, &st, (off_t)(DIR_FIRST + i + 1), 0))
            break; /* the buffer is full: the kernel asks again from there */
    }
    return ulk(m, rc);
}

/* What LogFS committed, durable in the image file on the host too
 * (IMAGE.journal), so that a killed mount process loses nothing synced.
 * Not after a power cut: the image keeps the state before it. */
static int host_sync(struct mnt *m)
{
    if (m->readonly || m->keep_image || !nand_is_powered(m->dev) ||
        (m->started_ro && mnt_state_ops(m->dev) == m->ops0))
        return 0; /* nothing written since a read-only start: no journal */
    return nand_sync(m->dev, m->image) ? -EIO : 0; /* counted as an error */
}

static int op_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    (void)fi;
    struct mnt *m = lk();
    int rc = m->fs.api->sync(m->fs.fs); /* one tree: a commit covers everything */
    if (!rc)
        rc = host_sync(m);
    if (!rc)
        mnt_trace(m, &(struct trace_rec){.op = TRACE_SYNC});
    return ulk(m, rc);
}

/* ---- files ------------------------------------------------------------------- */

static int open_stats(struct mnt *m, struct fuse_file_info *fi)
{
    if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
        return -EPERM;
    struct snap *s = malloc(sizeof *s);
    if (!s || !(s->text = mnt_stats_text(m, &s->len))) {
        free(s);
        return -ENOMEM;
    }
    fi->fh = (uint64_t)(uintptr_t)s;
    fi->direct_io = 1; /* new content on every open, whatever st_size said */
    return 0;
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
    struct mnt *m = lk();
    if (is_stats(path))
        return ulk(m, open_stats(m, fi));
    /* an O_TMPFILE reopened through /proc/self/fd: the one fd, shared */
    int fd = mnt_tmp_hidden(path) ? mnt_tmp_reopen(path)
           : MNT_CALL(m, open, path, lfs_flags(fi->flags), 0);
    if (fd >= 0) {
        fi->fh = (uint64_t)fd;
        mnt_files_add(req_node, fd);
        mnt_trace(m, &(struct trace_rec){.op = TRACE_OPEN, .path = path,
                                         .flags = mnt_trace_flags(fi->flags & ~O_CREAT)});
    }
    return ulk(m, fd < 0 ? fd : 0);
}

/* An O_TMPFILE (mount_tmpfile.c), with the mode, owner and ACL a create
 * in its directory would give. */
static int tmp_create(struct mnt *m, const char *path, mode_t mode, struct fuse_file_info *fi)
{
    uint32_t md = mode & 07777;
    char *dir = parent_of(path);
    struct mnt_acl_new *a = dir ? new_mode(m, path, &md) : NULL;
    int fd = !dir ? -ENOMEM : mnt_tmp_open(m, dir, path, lfs_flags(fi->flags) & ~O_CREAT, md, a);
    free(dir);
    free(a);
    if (fd >= 0)
        fi->fh = (uint64_t)fd;
    return fd < 0 ? fd : 0;
}

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    struct mnt *m = lk();
    if (mnt_tmp_requested(path))
        return ulk(m, tmp_create(m, path, mode, fi));
    struct fs_stat ls;
    uint32_t md = mode & 07777;
    /* an existing file keeps its mode and ACLs (the kernel asks CREATE
     * for a name it found missing, which a race may have made since) */
    int is_new = !is_stats(path) && (!m->acl || MNT_CALL(m, lstat, path, &ls) == -ENOENT);
    struct mnt_acl_new *a = is_new ? new_mode(m, path, &md) : NULL;
    int fd = is_stats(path) ? -EEXIST
           : MNT_CALL(m, open, path, lfs_flags(fi->flags) | O_CREAT, md);
    if (fd >= 0 && is_new) {
        int rc = new_made(m, path, a, 0);
        a = NULL;
        if (rc) {
            MNT_CALL(m, close, fd);
            MNT_CALL(m, unlink, path);
            fd = rc;
        }
    }
    free(a);
    if (fd >= 0) {
        fi->fh = (uint64_t)fd;
        mnt_trace(m, &(struct trace_rec){.op = TRACE_CREATE, .path = path, .mode = md,
                                         .flags = mnt_trace_flags(fi->flags | O_CREAT)});
    }
    return ulk(m, fd < 0 ? fd : 0);
}

static int op_read(const char *path, char *buf, size_t size, off_t off,
                   struct fuse_file_info *fi)
{
    if (off < 0)
        return -EINVAL;
    struct mnt *m = lk();
    int64_t n;
    if (is_stats(path)) {
        const struct snap *s = (const struct snap *)(uintptr_t)fi->fh;
        size_t at = (uint64_t)off < s->len ? (size_t)off : s->len;
        n = (int64_t)(s->len - at < size ? s->len - at : size);
        memcpy(buf, s->text + at, (size_t)n);
        return ulk(m, (int)n);
    }
    if (size > INT32_MAX)
        size = INT32_MAX;
    n = MNT_CALL(m, pread, (int)fi->fh, buf, size, (uint64_t)off);
    if (n >= 0)
        trace_io(m, TRACE_READ, path, (uint64_t)off, size);
    return ulk(m, (int)n);
}

static int op_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    if (off < 0)
        return -EINVAL;
    if (size > INT32_MAX)
        size = INT32_MAX;
    struct mnt *m = lk();
    int fd = (int)fi->fh;
    uint64_t at = (uint64_t)off;
    struct fs_stat ls;
    int64_t n = 0;
    /* O_APPEND without the kernel's writeback cache is ours to honour:
     * the end of the file as LogFS knows it, under the lock */
    if ((fi->flags & O_APPEND) && !(n = MNT_CALL(m, fstat, fd, &ls)))
        at = ls.size;
    if (!n)
        n = MNT_CALL(m, pwrite, fd, buf, size, at);
    /* an O_TMPFILE's path: the name it was linked to, if any */
    const char *named = n > 0 ? mnt_tmp_named(m, path) : NULL;
    if (n > 0) {
        mnt_acl_modified(m, named, fd);
        trace_io(m, TRACE_WRITE, path, at, (uint64_t)n);
    }
    /* chattr +S: LogFS committed the write; the image file takes it too */
    if (n > 0 && named && mnt_attr_is_sync(m, named) && host_sync(m))
        n = -EIO;
    return ulk(m, (int)n);
}

static int op_flush(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    return 0; /* nothing is buffered per descriptor; fsync commits */
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
    struct mnt *m = lk();
    int rc = 0;
    if (is_stats(path)) {
        struct snap *s = (struct snap *)(uintptr_t)fi->fh;
        free(s->text);
        free(s);
    } else {
        mnt_files_remove((int)fi->fh);
        if (mnt_tmp_release((int)fi->fh))
            rc = 0; /* an O_TMPFILE open elsewhere too */
        else if (!(rc = MNT_CALL(m, close, (int)fi->fh)))
            trace_path(m, TRACE_CLOSE, path);
    }
    return ulk(m, rc);
}

static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)datasync;
    struct mnt *m = lk();
    int rc = is_stats(path) ? 0 : MNT_CALL(m, fsync, (int)fi->fh);
    if (!rc && !is_stats(path))
        rc = host_sync(m);
    if (!rc && !is_stats(path))
        trace_path(m, TRACE_FSYNC, path);
    return ulk(m, rc);
}

/* ZERO_RANGE: allocate's FS_ALLOC_ZERO_RANGE (LogFS punches the part
 * inside the file and allocates the range in one call, the room checked
 * first, as ext4: it reads as zeros and its room is kept), recorded as the
 * punch and the allocate it replays as.  A kind without allocate (or a
 * LogFS image older than format 6) gets the hole and the size only: a
 * later write there can still fail with ENOSPC. */
static int zero_range(struct mnt *m, const char *path, int fd, uint64_t off, uint64_t len,
                      int keep_size)
{
    int rc = fsapi_allocate(&m->fs, fd, off, len,
                            FS_ALLOC_ZERO_RANGE | (keep_size ? FS_ALLOC_KEEP_SIZE : 0));
    if (!rc) {
        trace_io(m, TRACE_PUNCH, path, off, len);
        trace_io(m, keep_size ? TRACE_ALLOCATE_KEEP : TRACE_ALLOCATE, path, off, len);
    }
    if (rc != -ENOTSUP)
        return rc;
    struct fs_stat st; /* no preallocation: the hole alone */
    rc = MNT_CALL(m, fstat, fd, &st);
    if (!rc && off < st.size)
        rc = MNT_CALL(m, punch, fd, off, (off + len < st.size ? off + len : st.size) - off);
    if (!rc)
        trace_io(m, TRACE_PUNCH, path, off, len);
    if (!rc && !keep_size && off + len > st.size) {
        rc = MNT_CALL(m, ftruncate, fd, off + len);
        if (!rc)
            mnt_trace(m, &(struct trace_rec){.op = TRACE_TRUNCATE, .path = path,
                                             .size = off + len});
    }
    return rc;
}

static int op_fallocate(const char *path, int mode, off_t off, off_t len,
                        struct fuse_file_info *fi)
{
    int keep = mode & FALLOC_FL_KEEP_SIZE, op = mode & ~FALLOC_FL_KEEP_SIZE;
    /* mode 0 and KEEP_SIZE allocate; PUNCH_HOLE (with KEEP_SIZE, as
     * fallocate(2) requires) and ZERO_RANGE; collapse and insert not */
    if (op && !(op == FALLOC_FL_PUNCH_HOLE && keep) && op != FALLOC_FL_ZERO_RANGE)
        return -EOPNOTSUPP;
    if (off < 0 || len <= 0 || (uint64_t)off + (uint64_t)len > INT64_MAX)
        return -EINVAL;
    struct mnt *m = lk();
    int fd = fi ? (int)fi->fh : -1;
    int rc = is_stats(path) || !fi ? -EPERM
           : op == FALLOC_FL_ZERO_RANGE ? zero_range(m, path, fd, (uint64_t)off, (uint64_t)len, keep)
           : op ? MNT_CALL(m, punch, fd, (uint64_t)off, (uint64_t)len)
           : fsapi_allocate(&m->fs, fd, (uint64_t)off, (uint64_t)len,
                            keep ? FS_ALLOC_KEEP_SIZE : 0);
    if (!rc) {
        mnt_acl_modified(m, path, fd);
        if (op != FALLOC_FL_ZERO_RANGE) /* zero_range records its punch and allocate */
            trace_io(m, op ? TRACE_PUNCH : keep ? TRACE_ALLOCATE_KEEP : TRACE_ALLOCATE, path,
                     (uint64_t)off, (uint64_t)len);
    }
    return ulk(m, rc);
}

/* xfstests' shutdown (src/godown: XFS_IOC_GOINGDOWN on any file or
 * directory of the mount) cuts the power, after a commit and a journal
 * sync as XFS's default flag asks: the kernel forwards the ioctl, but not
 * its flag (an _IOR: nothing is copied in), so every shutdown is taken as
 * the default one.  The torn image is saved at unmount, so the next mount
 * recovers from it.  The file attributes' four: mount_attr.c.  Anything
 * else: ENOTTY. */
#define MNT_IOC_GOINGDOWN 0x8004587dU /* _IOR('X', 125, uint32_t) */

static int op_ioctl(const char *path, int cmd, void *arg, struct fuse_file_info *fi,
                    unsigned int flags, void *data)
{
    (void)arg, (void)fi, (void)flags;
    if (mnt_attr_ioctl_cmd((unsigned)cmd)) {
        struct mnt *m = lk();
        const char *p = mnt_tmp_named(m, path); /* an O_TMPFILE's: its linked name */
        int rc = !p || is_stats(p) ? -ENOTTY : mnt_attr_ioctl(m, p, (unsigned)cmd, data);
        /* a change is a LogFS commit: durable in the image file too */
        return ulk(m, rc == 1 ? host_sync(m) : rc);
    }
    if ((unsigned int)cmd != MNT_IOC_GOINGDOWN)
        return -ENOTTY;
    struct mnt *m = lk();
    int rc = 0;
    if (nand_is_powered(m->dev) && !m->readonly) {
        if (!m->fs.api->sync(m->fs.fs))
            host_sync(m);
        m->save_after_cut = 1;
        m->keep_image = 0;
    }
    nand_power_cut(m->dev);
    req_alive = 1; /* the shutdown itself succeeded */
    return ulk(m, rc);
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    mnt_acl_init(mnt_g, conn);
    cfg->use_ino = 1;     /* st_ino is LogFS's inode number */
    /* unlink removes the name at once (st_nlink drops, no
     * .fuse_hiddenXXXX), the fs keeps the inode until its last close, and
     * fstat of it goes to its fd (mount_files.c) */
    cfg->hard_remove = 1;
    /* Cached pages are kept across opens only while the file's mtime and
     * size stay as they were at the last open (libfuse's auto_cache), not
     * always (kernel_cache): an AIO O_DIRECT write does not drop the pages
     * that buffered reads racing with it cached, so a later open must
     * (xfstests generic/451 read stale data about 1 run in 3). */
    cfg->auto_cache = 1;
    return mnt_g;
}

/* ---- extended attributes (LogFS keeps user., trusted., security. and the
 * POSIX ACLs: mount_acl.c) ----
 * A kind without them answers ENOSYS, which the kernel remembers (and
 * turns into EOPNOTSUPP for the caller): otherwise it asks again for
 * security.capability before every write, one more request each (half
 * the requests of a loop device over the FTL's /disk). */
#define NO_XATTRS(m, op) (!(m)->fs.api->op)

static int op_setxattr(const char *path, const char *name, const char *value, size_t size,
                       int flags)
{
    struct mnt *m = lk();
    int lflags = (flags & XATTR_CREATE ? FS_XATTR_CREATE : 0) |
                 (flags & XATTR_REPLACE ? FS_XATTR_REPLACE : 0);
    const char *p = mnt_tmp_named(m, path); /* NULL: an O_TMPFILE with no name */
    int rc = NO_XATTRS(m, setxattr) ? -ENOSYS : is_stats(path) || !p ? -ENOTSUP
           : m->readonly ? -EROFS : fsapi_setxattr(&m->fs, p, name, value, size, lflags);
    if (!rc)
        mnt_acl_set(m, p, name);
    return ulk(m, rc);
}

static int op_getxattr(const char *path, const char *name, char *value, size_t size)
{
    struct mnt *m = lk();
    const char *p = mnt_tmp_named(m, path);
    int64_t n = NO_XATTRS(m, getxattr) ? -ENOSYS
              : is_stats(path) || !p ? -ENODATA : fsapi_getxattr(&m->fs, p, name, value, size);
    return ulk(m, (int)n);
}

static int op_listxattr(const char *path, char *list, size_t size)
{
    struct mnt *m = lk();
    const char *p = mnt_tmp_named(m, path);
    int64_t n = NO_XATTRS(m, listxattr) ? -ENOSYS
              : is_stats(path) || !p ? 0 : fsapi_listxattr(&m->fs, p, list, size);
    return ulk(m, (int)n);
}

static int op_removexattr(const char *path, const char *name)
{
    struct mnt *m = lk();
    const char *p = mnt_tmp_named(m, path);
    int rc = NO_XATTRS(m, removexattr) ? -ENOSYS : is_stats(path) || !p ? -ENODATA
           : m->readonly ? -EROFS : fsapi_removexattr(&m->fs, p, name);
    return ulk(m, rc);
}

const struct fuse_operations mnt_ops = {
    .init = op_init,
    .getattr = op_getattr,
    .access = op_access,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .chmod = op_chmod,
    .chown = op_chown,
    .truncate = op_truncate,
    .utimens = op_utimens,
    .open = op_open,
    .create = op_create,
    .read = op_read,
    .write = op_write,
    .statfs = op_statfs,
    .setxattr = op_setxattr,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
    .removexattr = op_removexattr,
    .flush = op_flush,
    .release = op_release,
    .fsync = op_fsync,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .releasedir = op_releasedir,
    .fsyncdir = op_fsyncdir,
    .fallocate = op_fallocate,
    .ioctl = op_ioctl,
};

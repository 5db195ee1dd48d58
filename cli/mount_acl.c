/* mount_acl.c -- POSIX ACLs on the mount.  With FUSE_CAP_POSIX_ACL the
 * kernel checks access against the ACLs, which it reads and writes as the
 * xattrs system.posix_acl_access and _default; the file system stores them
 * and keeps the mode in step (LogFS, fs/posixacl.h), and the daemon does
 * what Linux's VFS does around it and around a file's set-ID bits for a
 * disk file system (libfuse's
 * fuse_common.h says so): a new file takes its directory's default ACL,
 * or the caller's umask when there is none (FUSE_CAP_DONT_MASK: the kernel
 * leaves the umask to us), and setting an ACL drops the set-group-ID bit
 * of a caller outside the file's group (the kernel's
 * FUSE_SETXATTR_ACL_KILL_SGID needs FUSE_SETXATTR_EXT, which libfuse 3.14
 * does not speak).  Caller holds the mount's lock throughout. */
#include "mount_priv.h"

#include "posixacl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the kernel may enable, and what we ask for */
void mnt_acl_init(struct mnt *m, struct fuse_conn_info *conn)
{
    unsigned need = FUSE_CAP_POSIX_ACL | FUSE_CAP_DONT_MASK;
    if (!(m->fs.api->features & FSAPI_F_XATTR) || (conn->capable & need) != need)
        return; /* no ACLs: the kernel masks and checks modes alone */
    conn->want |= need;
    m->acl = 1;
}

static int in_group(const struct fuse_context *c, uint32_t gid)
{
    if (c->gid == gid)
        return 1;
    gid_t groups[256];
    int n = fuse_getgroups(256, groups);
    for (int i = 0; i < n && i < 256; i++)
        if (groups[i] == gid)
            return 1;
    return 0;
}

void mnt_acl_new(struct mnt *m, const char *parent, uint32_t *mode, struct mnt_acl_new *a)
{
    memset(a, 0, sizeof *a);
    if (!m->acl)
        return;
    const struct fuse_context *c = fuse_get_context();
    int64_t n = fsapi_getxattr(&m->fs, parent, FS_ACL_DEFAULT, a->dflt, sizeof a->dflt);
    if (n <= 0 || fs_acl_check(a->dflt, (size_t)n) < 0) {
        *mode &= ~(uint32_t)(c ? c->umask : 022); /* no default ACL: the umask */
        return;
    }
    a->dflt_len = (size_t)n;
    memcpy(a->access, a->dflt, a->dflt_len);
    a->access_len = fs_acl_create(a->access, a->dflt_len, mode) == 1 ? a->dflt_len : 0;
}

int mnt_acl_apply(struct mnt *m, const char *path, const struct mnt_acl_new *a, int is_dir)
{
    int rc = 0;
    if (a->access_len)
        rc = fsapi_setxattr(&m->fs, path, FS_ACL_ACCESS, a->access, a->access_len, 0);
    if (!rc && is_dir && a->dflt_len) /* a directory hands it down again */
        rc = fsapi_setxattr(&m->fs, path, FS_ACL_DEFAULT, a->dflt, a->dflt_len, 0);
    return rc;
}

/* Drop the set-group-ID bit of PATH (mode in ST) unless the caller may
 * keep it: privileged (uid 0 stands for CAP_FSETID) or in the file's group. */
static void drop_sgid(struct mnt *m, const char *path, const struct fs_stat *st)
{
    const struct fuse_context *c = fuse_get_context();
    if (!c || c->uid == 0 || in_group(c, st->gid))
        return;
    fsapi_chmod(&m->fs, path, st->mode & 07777 & ~(uint32_t)S_ISGID);
}

void mnt_acl_set(struct mnt *m, const char *path, const char *name)
{
    struct fs_stat st;
    if (m->acl && fs_acl_name(name) == 1 && !MNT_CALL(m, lstat, path, &st) &&
        (st.mode & S_ISGID))
        drop_sgid(m, path, &st);
}

/* After a write, truncate or fallocate: Linux's VFS (since 6.2,
 * setattr_should_drop_sgid) also drops a set-group-ID bit without group
 * execute when the caller may not keep it.  The kernel's FUSE applies the
 * older rule before it sends the request (fuse_setattr without
 * handle_killpriv: set-user-ID, and set-group-ID only with group
 * execute), so this part is ours (xfstests generic/683-685). */
void mnt_acl_modified(struct mnt *m, const char *path, int fd)
{
    const struct fuse_context *c = fuse_get_context();
    struct fs_stat st;
    if (c && c->uid != 0 && path && !(fd >= 0 ? MNT_CALL(m, fstat, fd, &st) : MNT_CALL(m, lstat, path, &st)) &&
        (st.mode & (S_ISGID | S_IXGRP)) == S_ISGID && S_ISREG(st.mode))
        drop_sgid(m, path, &st);
}

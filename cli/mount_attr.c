/* mount_attr.c -- file attributes (chattr, lsattr, xfs_io chattr) on the
 * mount.  The kernel's fuse_fileattr_get/set (fs/fuse/ioctl.c) turns
 * every FS_IOC_GETFLAGS/SETFLAGS into one of ours with an unsigned int
 * (4 bytes, whatever the command's encoded long says), and every
 * FS_IOC_FSGETXATTR/FSSETXATTR into one with a struct fsxattr, on a
 * handle it opens read-only for the purpose.  The kernel never sees the
 * flags (a FUSE inode has no S_IMMUTABLE): the fs refuses what they
 * forbid (fs/fsapi.h's setflags), and this file refuses a change of i or
 * a to a caller without CAP_LINUX_IMMUTABLE, as Linux's
 * fileattr_set_prepare does (the kernel checks it too, before asking us;
 * we check again since nothing says every kernel will).  Caller holds
 * the mount's lock. */
#include "mount_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>

_Static_assert(FS_FL_SYNC == FS_SYNC_FL && FS_FL_IMMUTABLE == FS_IMMUTABLE_FL &&
                   FS_FL_APPEND == FS_APPEND_FL && FS_FL_NODUMP == FS_NODUMP_FL &&
                   FS_FL_NOATIME == FS_NOATIME_FL,
               "fs/fstypes.h keeps Linux's values");

/* The flags and their FS_XFLAG_* twins (struct fsxattr's xflags). */
static const struct {
    unsigned fl, xfl;
} xflags[] = {
    {FS_FL_SYNC, FS_XFLAG_SYNC},     {FS_FL_IMMUTABLE, FS_XFLAG_IMMUTABLE},
    {FS_FL_APPEND, FS_XFLAG_APPEND}, {FS_FL_NODUMP, FS_XFLAG_NODUMP},
    {FS_FL_NOATIME, FS_XFLAG_NOATIME},
};
#define NXFLAGS (sizeof xflags / sizeof xflags[0])

static unsigned to_xflags(unsigned fl)
{
    unsigned x = 0;
    for (size_t i = 0; i < NXFLAGS; i++)
        x |= fl & xflags[i].fl ? xflags[i].xfl : 0;
    return x;
}

/* FS_FL_*, or -EOPNOTSUPP for an xflag that has no twin here. */
static int64_t from_xflags(unsigned x)
{
    unsigned fl = 0;
    for (size_t i = 0; i < NXFLAGS; i++)
        if (x & xflags[i].xfl) {
            fl |= xflags[i].fl;
            x &= ~xflags[i].xfl;
        }
    return x ? -EOPNOTSUPP : (int64_t)fl;
}

/* Whether the caller holds capability cap (capabilities(7)): CapEff of
 * /proc/PID/status; uid 0 when it cannot be read. */
static int caller_has(unsigned cap)
{
    const struct fuse_context *c = fuse_get_context();
    if (!c)
        return 0;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)c->pid);
    FILE *f = c->pid > 0 ? fopen(path, "r") : NULL;
    uint64_t eff = 0;
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "CapEff: %" SCNx64, &eff) == 1;
    if (f)
        fclose(f);
    return found ? (int)(eff >> cap & 1) : c->uid == 0;
}

#define CAP_FOWNER_BIT 3
#define CAP_LINUX_IMMUTABLE_BIT 9

static int set_flags(struct mnt *m, const char *path, unsigned want)
{
    unsigned have;
    struct fs_stat st;
    int rc = m->readonly ? -EROFS : fsapi_getflags(&m->fs, path, &have);
    if (!rc)
        rc = MNT_CALL(m, stat, path, &st);
    if (rc)
        return rc;
    const struct fuse_context *c = fuse_get_context();
    if (c && c->uid != st.uid && !caller_has(CAP_FOWNER_BIT))
        return -EPERM; /* inode_owner_or_capable */
    if ((have ^ want) & (FS_FL_IMMUTABLE | FS_FL_APPEND) && !caller_has(CAP_LINUX_IMMUTABLE_BIT))
        return -EPERM;
    rc = fsapi_setflags(&m->fs, path, want);
    return rc ? rc : 1;
}

int mnt_attr_is_sync(struct mnt *m, const char *path)
{
    unsigned fl;
    return m->fs.api->getflags && !fsapi_getflags(&m->fs, path, &fl) && (fl & FS_FL_SYNC);
}

int mnt_attr_ioctl_cmd(unsigned cmd)
{
    return cmd == FS_IOC_GETFLAGS || cmd == FS_IOC_SETFLAGS || cmd == FS_IOC_FSGETXATTR ||
           cmd == FS_IOC_FSSETXATTR;
}

int mnt_attr_ioctl(struct mnt *m, const char *path, unsigned cmd, void *data)
{
    unsigned fl = 0;
    int rc;
    struct fsxattr *fx = data;
    if (!m->fs.api->getflags)
        return -ENOTTY; /* the kind keeps none */
    switch (cmd) {
    case FS_IOC_GETFLAGS:
        if (!(rc = fsapi_getflags(&m->fs, path, &fl)))
            memcpy(data, &fl, sizeof fl); /* an unsigned int: the kernel's buffer */
        return rc;
    case FS_IOC_SETFLAGS:
        memcpy(&fl, data, sizeof fl);
        return set_flags(m, path, fl);
    case FS_IOC_FSGETXATTR:
        if (!(rc = fsapi_getflags(&m->fs, path, &fl))) {
            memset(fx, 0, sizeof *fx);
            fx->fsx_xflags = to_xflags(fl);
        }
        return rc;
    case FS_IOC_FSSETXATTR: {
        int64_t want = from_xflags(fx->fsx_xflags);
        /* no extent size hints, no projects */
        if (want < 0 || fx->fsx_extsize || fx->fsx_projid || fx->fsx_cowextsize)
            return -EOPNOTSUPP;
        return set_flags(m, path, (unsigned)want);
    }
    default:
        return -ENOTTY;
    }
}

/* api_xattr.c -- extended attributes: get, set, list and remove, on the
 * file a path names (a final symbolic link itself, as lgetxattr does).
 * The list format is docs/FORMAT.md 13a; xattr.c keeps it on flash. */
#include "ops.h"
#include "posixacl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY_HDR 6u

/* One entry of a list: its name, value and total size. */
struct entry {
    const uint8_t *name, *value;
    uint32_t nlen, vlen, size;
};

/* The entry at pos of a list of len bytes; -EIO if it runs past the end. */
static int entry_at(const uint8_t *buf, uint32_t len, uint32_t pos, struct entry *e)
{
    if (len - pos < ENTRY_HDR)
        return -EIO;
    e->nlen = buf[pos];
    e->vlen = le32_get(buf + pos + 2);
    if (!e->nlen || e->vlen > LFS_XATTR_VALUE_MAX || len - pos - ENTRY_HDR < e->nlen + e->vlen)
        return -EIO;
    e->name = buf + pos + ENTRY_HDR;
    e->value = e->name + e->nlen;
    e->size = ENTRY_HDR + e->nlen + e->vlen;
    return 0;
}

/* Bytewise order, a shorter name before a longer one it begins. */
static int name_cmp(const uint8_t *a, uint32_t alen, const char *b, uint32_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

/* Where name is in the list (1, *pos its offset) or would go (0); or
 * -EIO for a list that does not parse. */
static int find(const uint8_t *buf, uint32_t len, const char *name, uint32_t nlen,
                uint32_t *pos, struct entry *e)
{
    for (*pos = 0; *pos < len; *pos += e->size) {
        int rc = entry_at(buf, len, *pos, e);
        if (rc)
            return rc;
        int c = name_cmp(e->name, e->nlen, name, nlen);
        if (c >= 0)
            return c == 0;
    }
    return 0;
}

/* The namespaces kept (FORMAT.md 13a); of system.*, the two POSIX ACLs. */
static int name_check(const char *name, uint32_t *nlen)
{
    static const char *const ns[] = {"user.", "trusted.", "security."};
    size_t n = strlen(name);
    if (n > LFS_NAME_MAX_BYTES)
        return -ERANGE;
    if (fs_acl_name(name)) {
        *nlen = (uint32_t)n;
        return 0;
    }
    for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++)
        if (!strncmp(name, ns[i], strlen(ns[i]))) {
            *nlen = (uint32_t)n;
            return n > strlen(ns[i]) ? 0 : -EINVAL;
        }
    return -ENOTSUP;
}

/* The inode path names and, when it has any, its list. */
static int load(struct logfs *fs, const char *path, struct lfs_inode **in,
                uint8_t **buf, uint32_t *len)
{
    struct lfs_path r;
    *buf = NULL;
    int rc = lfs_resolve(fs, path, 0, &r);
    if (!rc && !r.ino)
        rc = -ENOENT;
    if (!rc)
        rc = lfs_inode_get(fs, r.ino, in);
    return rc ? rc : lfs_xattr_load(fs, *in, buf, len);
}

static int64_t get(struct logfs *fs, const char *path, const char *name, void *value,
                   uint64_t size)
{
    struct lfs_inode *in;
    uint8_t *buf;
    uint32_t len, nlen, pos;
    struct entry e;
    int rc = name_check(name, &nlen);
    if (rc || (rc = load(fs, path, &in, &buf, &len)))
        return rc;
    rc = lfs_may_modify(in);
    int64_t n = find(buf, len, name, nlen, &pos, &e);
    if (n == 1) {
        n = size && size < e.vlen ? -ERANGE : (int64_t)e.vlen;
        if (size && n > 0)
            memcpy(value, e.value, e.vlen);
    } else if (n == 0) {
        n = -ENODATA;
    }
    free(buf);
    return n;
}

int64_t logfs_getxattr(logfs *fs, const char *path, const char *name, void *value,
                       uint64_t size)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return lfs_op_end_ro(fs, get(fs, path, name, value, size));
}

static int64_t list(struct logfs *fs, const char *path, char *out, uint64_t size)
{
    struct lfs_inode *in;
    uint8_t *buf;
    uint32_t len;
    struct entry e;
    int rc = load(fs, path, &in, &buf, &len);
    if (rc)
        return rc;
    int64_t total = 0;
    for (uint32_t pos = 0; pos < len && total >= 0; pos += e.size) {
        if ((rc = entry_at(buf, len, pos, &e))) {
            total = rc;
        } else if (size && (uint64_t)total + e.nlen + 1 > size) {
            total = -ERANGE;
        } else {
            if (size) {
                memcpy(out + total, e.name, e.nlen);
                out[total + e.nlen] = 0;
            }
            total += e.nlen + 1;
        }
    }
    free(buf);
    return total;
}

int64_t logfs_listxattr(logfs *fs, const char *path, char *list_out, uint64_t size)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return lfs_op_end_ro(fs, list(fs, path, list_out, size));
}

/* Replace, insert (value != NULL) or remove name in the list, and store
 * the new list; the owner's ctime moves. */
static int change(struct logfs *fs, const char *path, const char *name,
                  const void *value, uint64_t size, int flags)
{
    struct lfs_inode *in;
    uint8_t *buf, *nbuf = NULL;
    uint32_t len, nlen, pos;
    struct entry e;
    int rc = lfs_cannot_write(fs) ? lfs_cannot_write(fs) : name_check(name, &nlen);
    if (!rc && value && size > LFS_XATTR_VALUE_MAX)
        rc = -E2BIG;
    if (rc || (rc = load(fs, path, &in, &buf, &len)))
        return rc;
    rc = lfs_may_modify(in);
    /* as Linux: user attributes only on files and directories */
    if (!strncmp(name, "user.", 5) && !S_ISREG(in->mode) && !S_ISDIR(in->mode))
        rc = -EPERM;
    /* an ACL and the mode are one fact (posixacl.h): an access ACL sets
     * the mode, and one the mode says alone is not kept */
    uint32_t mode = in->mode;
    int acl = value ? fs_acl_name(name) : 0, acl_more = 0;
    if (!rc && acl == 2 && !S_ISDIR(in->mode))
        rc = -EACCES; /* default ACLs only on directories */
    else if (!rc && acl == 2)
        rc = fs_acl_check(value, size) < 0 ? -EINVAL : 0;
    else if (!rc && acl == 1 && (acl_more = fs_acl_to_mode(value, size, &mode)) < 0)
        rc = acl_more;
    if (!rc && acl == 1 && !acl_more)
        value = NULL, flags = 0; /* removed, or never added */
    int found = rc ? 0 : find(buf, len, name, nlen, &pos, &e);
    if (found < 0)
        rc = found;
    else if (!rc && found && (flags & LOGFS_XATTR_CREATE))
        rc = -EEXIST;
    else if (!rc && !found && (!value || (flags & LOGFS_XATTR_REPLACE)))
        rc = acl == 1 ? 0 : -ENODATA;
    uint64_t add = value ? ENTRY_HDR + nlen + size : 0, drop = found == 1 ? e.size : 0;
    if (!rc && len - drop + add > LFS_XATTR_LIST_MAX)
        rc = -ENOSPC;
    uint32_t nlen_total = (uint32_t)(len - drop + add);
    if (!rc && nlen_total && !(nbuf = malloc(nlen_total)))
        rc = -ENOMEM;
    if (!rc) {
        if (pos)
            memcpy(nbuf, buf, pos);
        if (value) {
            uint8_t *p = nbuf + pos;
            p[0] = (uint8_t)nlen;
            p[1] = 0;
            le32_put(p + 2, (uint32_t)size);
            memcpy(p + ENTRY_HDR, name, nlen);
            if (size)
                memcpy(p + ENTRY_HDR + nlen, value, size);
        }
        if (len > pos + drop)
            memcpy(nbuf + pos + add, buf + pos + drop, len - pos - drop);
        rc = found == 1 || value ? lfs_xattr_store(fs, in, nbuf, nlen_total) : 0;
    }
    if (!rc) {
        in->mode = mode;
        in->ctime = lfs_now(fs);
        lfs_inode_dirty(fs, in);
    }
    free(buf);
    free(nbuf);
    return rc;
}

int lfs_acl_chmod(struct logfs *fs, struct lfs_inode *in)
{
    uint8_t *buf;
    uint32_t len, pos;
    struct entry e;
    int rc = in->xattr ? lfs_xattr_load(fs, in, &buf, &len) : 0;
    if (rc || !in->xattr)
        return rc;
    int found = find(buf, len, FS_ACL_ACCESS, sizeof FS_ACL_ACCESS - 1, &pos, &e);
    if (found == 1 && !(rc = fs_acl_chmod(buf + pos + ENTRY_HDR + e.nlen, e.vlen, in->mode)))
        rc = lfs_xattr_store(fs, in, buf, len);
    free(buf);
    return found < 0 ? found : rc;
}

int logfs_setxattr(logfs *fs, const char *path, const char *name, const void *value,
                   uint64_t size, int flags)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    int rc = flags & ~(LOGFS_XATTR_CREATE | LOGFS_XATTR_REPLACE) ? -EINVAL
           : change(fs, path, name, value ? value : "", size, flags);
    return (int)lfs_op_end(fs, rc);
}

int logfs_removexattr(logfs *fs, const char *path, const char *name)
{
    lfs_op_begin(fs, LOGFS_OP_META);
    return (int)lfs_op_end(fs, change(fs, path, name, NULL, 0, 0));
}

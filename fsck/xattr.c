/* xattr.c -- special files and extended attributes (FORMAT.md section
 * 13a, version 4): every attribute inode is named by exactly one inode's
 * `xattr` field and has the shape the section gives it; its attribute
 * list parses. */
#include "fsck_int.h"

#include <inttypes.h>

int fk_is_special(uint32_t mode)
{
    uint32_t t = mode & FK_IFMT;
    return t == FK_IFIFO || t == FK_IFCHR || t == FK_IFBLK || t == FK_IFSOCK;
}

int fk_is_xattr_inode(const struct fk_ient *ie)
{
    return !ie->broken && (ie->d.flags & FK_INODE_XATTRS);
}

/* Who names whom; then each attribute inode's own fields. */
void fk_check_xattr_names(struct fk *k)
{
    for (size_t i = 0; i < k->nino; i++) {
        struct fk_ient *ie = &k->ino[i];
        if (ie->broken || !ie->d.xattr)
            continue;
        uint64_t n = ie->d.ino, x = ie->d.xattr;
        struct fk_ient *t = fk_find_ino(k, x);
        if (!t) {
            fk_msg(k, FSCK_ERROR, FSCK_K_DANGLING, FSCK_NONE, FSCK_NONE,
                   (int64_t)n, "inode %" PRIu64 ": its xattr field names inode %"
                   PRIu64 ", which does not exist", n, x);
            continue;
        }
        if (t->broken)
            continue;
        if (x == n || !(t->d.flags & FK_INODE_XATTRS)) {
            fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, (int64_t)n,
                   "inode %" PRIu64 ": its xattr field names inode %" PRIu64
                   ", which is not an attribute inode (no XATTRS flag)", n, x);
            continue;
        }
        t->xnamed++;
    }
    for (size_t i = 0; i < k->nino; i++) {
        struct fk_ient *ie = &k->ino[i];
        if (!fk_is_xattr_inode(ie))
            continue;
        const struct fk_inode *d = &ie->d;
        int64_t n = (int64_t)d->ino;
        if (k->ver < FK_VERSION_V4)
            fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
                   "inode %" PRIu64 ": flag XATTRS in a version-%u image", d->ino,
                   k->ver);
        if (ie->xnamed != 1)
            fk_msg(k, FSCK_ERROR, FSCK_K_ORPHAN, FSCK_NONE, FSCK_NONE, n,
                   "attribute inode %" PRIu64 " is named by %u inodes (exactly "
                   "one expected)%s", d->ino, ie->xnamed,
                   ie->xnamed ? "" : ": its attributes belong to nobody");
        if (d->mode != FK_IFREG || d->nlink != 1 || d->xattr)
            fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
                   "attribute inode %" PRIu64 ": mode 0%o, nlink %u, xattr %"
                   PRIu64 " (0100000, 1 and 0 expected)", d->ino, d->mode,
                   d->nlink, d->xattr);
        if (d->uid || d->gid)
            fk_msg(k, FSCK_WARNING, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
                   "attribute inode %" PRIu64 ": owner %u:%u (0:0 expected)",
                   d->ino, d->uid, d->gid);
        if (d->size > FK_XATTR_LIST_MAX)
            fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
                   "attribute inode %" PRIu64 ": list of %" PRIu64 " bytes (at "
                   "most %u)", d->ino, d->size, FK_XATTR_LIST_MAX);
    }
}

/* FORMAT.md 13a's namespaces, and of system.* the two POSIX ACLs (fsck
 * sees no fs/ header: fs/posixacl.h names them for the file systems) */
static int known_prefix(const uint8_t *name, size_t len)
{
    static const char *const pre[] = {"user.", "trusted.", "security."};
    static const char *const whole[] = {"system.posix_acl_access", "system.posix_acl_default"};
    for (unsigned i = 0; i < 3; i++) {
        size_t l = strlen(pre[i]);
        if (len > l && !memcmp(name, pre[i], l))
            return 1;
    }
    for (unsigned i = 0; i < 2; i++)
        if (len == strlen(whole[i]) && !memcmp(name, whole[i], len))
            return 1;
    return 0;
}

/* Bytewise, a shorter name before a longer one it begins. */
static int name_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

void fk_check_xattr_list(struct fk *k, const struct fk_ient *ie,
                         const uint8_t *list, uint64_t len, int complete)
{
    uint64_t ino = ie->d.ino, off = 0;
    const uint8_t *prev = NULL;
    size_t prev_len = 0;
    char shown[96];
    if (!complete)
        return; /* part of the list was lost: reported by the walk */
    while (off < len) {
        if (len - off < 6) {
            fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE,
                   (int64_t)ino, "attribute inode %" PRIu64 ": entry at byte %"
                   PRIu64 " cut by the end of the list (size %" PRIu64 ")", ino,
                   off, len);
            return;
        }
        const uint8_t *e = list + off;
        uint32_t nl = e[0], vl = le32_get(e + 2);
        if (nl == 0 || vl > FK_XATTR_VALUE_MAX || 6 + (uint64_t)nl + vl > len - off) {
            fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE,
                   (int64_t)ino, "attribute inode %" PRIu64 ": entry at byte %"
                   PRIu64 " has name length %u, value length %u (1..255, 0..%u, "
                   "within the list's %" PRIu64 " bytes)", ino, off, nl, vl,
                   FK_XATTR_VALUE_MAX, len);
            return;
        }
        const uint8_t *name = e + 6;
        fk_name_str(name, nl, shown, sizeof shown);
        if (e[1])
            fk_msg(k, FSCK_WARNING, FSCK_K_INODE, FSCK_NONE, FSCK_NONE,
                   (int64_t)ino, "attribute inode %" PRIu64 ": entry %s: reserved "
                   "byte is not zero", ino, shown);
        if (!known_prefix(name, nl) || memchr(name, 0, nl))
            fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE,
                   (int64_t)ino, "attribute inode %" PRIu64 ": name %s has no "
                   "user., trusted. or security. prefix nor is a POSIX ACL, or holds a NUL", ino,
                   shown);
        if (prev) {
            int c = name_cmp(prev, prev_len, name, nl);
            if (c >= 0)
                fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE,
                       (int64_t)ino, "attribute inode %" PRIu64 ": name %s %s",
                       ino, shown, c ? "is out of order" : "appears twice");
        }
        prev = name;
        prev_len = nl;
        off += 6 + (uint64_t)nl + vl;
    }
}

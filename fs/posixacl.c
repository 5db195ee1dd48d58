/* posixacl.c -- POSIX ACLs in their xattr form (posixacl.h). */
#include "posixacl.h"

#include <errno.h>
#include <string.h>

enum { /* the tags, as Linux's include/uapi/linux/posix_acl.h numbers them */
    TAG_USER_OBJ = 0x01,
    TAG_USER = 0x02,
    TAG_GROUP_OBJ = 0x04,
    TAG_GROUP = 0x08,
    TAG_MASK = 0x10,
    TAG_OTHER = 0x20,
};
#define ACL_VERSION 2u
#define HDR 4u
#define ENT 8u

static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | get16(p + 2) << 16; }
static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

int fs_acl_name(const char *name)
{
    return !strcmp(name, FS_ACL_DEFAULT) ? 2 : !strcmp(name, FS_ACL_ACCESS) ? 1 : 0;
}

int fs_acl_check(const uint8_t *acl, size_t size)
{
    if (!acl || size < HDR || (size - HDR) % ENT || get32(acl) != ACL_VERSION)
        return -EINVAL;
    unsigned seen = 0, n = (unsigned)((size - HDR) / ENT);
    uint32_t last_tag = 0, last_id = 0;
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *e = acl + HDR + i * ENT;
        uint32_t tag = get16(e), perm = get16(e + 2), id = get32(e + 4);
        int named = tag == TAG_USER || tag == TAG_GROUP;
        if (perm & ~7u || (tag & (tag - 1)) || tag > TAG_OTHER || !tag || tag < last_tag ||
            (!named && (seen & tag)) || (named && tag == last_tag && id <= last_id))
            return -EINVAL;
        seen |= tag;
        last_tag = tag;
        last_id = id;
    }
    unsigned need = TAG_USER_OBJ | TAG_GROUP_OBJ | TAG_OTHER;
    if ((seen & need) != need || ((seen & (TAG_USER | TAG_GROUP)) && !(seen & TAG_MASK)))
        return -EINVAL;
    return (int)n;
}

int fs_acl_to_mode(const uint8_t *acl, size_t size, uint32_t *mode)
{
    int n = fs_acl_check(acl, size);
    if (n < 0)
        return n;
    uint32_t m = 0;
    int more = 0;
    for (int i = 0; i < n; i++) {
        const uint8_t *e = acl + HDR + (size_t)i * ENT;
        uint32_t perm = get16(e + 2);
        switch (get16(e)) {
        case TAG_USER_OBJ: m |= perm << 6; break;
        case TAG_GROUP_OBJ: m |= perm << 3; break;
        case TAG_OTHER: m |= perm; break;
        case TAG_MASK: m = (m & ~070u) | perm << 3; more = 1; break;
        default: more = 1; break; /* a named user or group */
        }
    }
    *mode = (*mode & ~0777u) | m;
    return more;
}

int fs_acl_chmod(uint8_t *acl, size_t size, uint32_t mode)
{
    int n = fs_acl_check(acl, size);
    if (n < 0)
        return n;
    uint8_t *group = NULL, *mask = NULL;
    for (int i = 0; i < n; i++) {
        uint8_t *e = acl + HDR + (size_t)i * ENT;
        switch (get16(e)) {
        case TAG_USER_OBJ: put16(e + 2, mode >> 6 & 7); break;
        case TAG_GROUP_OBJ: group = e; break;
        case TAG_MASK: mask = e; break;
        case TAG_OTHER: put16(e + 2, mode & 7); break;
        }
    }
    put16((mask ? mask : group) + 2, mode >> 3 & 7);
    return 0;
}

int fs_acl_create(uint8_t *acl, size_t size, uint32_t *mode)
{
    int n = fs_acl_check(acl, size);
    if (n < 0)
        return n;
    uint32_t m = *mode & 0777u;
    uint8_t *group = NULL, *mask = NULL;
    int more = 0;
    for (int i = 0; i < n; i++) {
        uint8_t *e = acl + HDR + (size_t)i * ENT;
        uint32_t perm = get16(e + 2);
        switch (get16(e)) {
        case TAG_USER_OBJ:
            perm &= m >> 6;
            m = (m & ~0700u) | (m & perm << 6);
            break;
        case TAG_GROUP_OBJ: group = e; break;
        case TAG_MASK: mask = e; more = 1; break;
        case TAG_OTHER:
            perm &= m;
            m = (m & ~07u) | (m & perm);
            break;
        default: more = 1; break;
        }
        put16(e + 2, perm);
    }
    uint8_t *g = mask ? mask : group; /* the entry the group bits mean */
    uint32_t gp = get16(g + 2) & (m >> 3 & 7);
    put16(g + 2, gp);
    m = (m & ~070u) | gp << 3;
    *mode = (*mode & ~0777u) | m;
    return more;
}

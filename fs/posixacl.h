/*
 * posixacl.h -- POSIX ACLs as Linux passes them in the extended attributes
 * system.posix_acl_access and system.posix_acl_default (the kernel's
 * posix_acl_xattr format: a u32 version 2, then one 8-byte entry per
 * line: u16 tag, u16 permission bits, u32 uid or gid; little-endian,
 * sorted by tag then id).  What a file system that stores them must do to
 * keep the file's mode and its access ACL one fact, as Linux's
 * fs/posix_acl.c does: the mode's group bits are the ACL's mask (its
 * owning group's entry when it has no mask), chmod rewrites the ACL, and
 * a new file takes its directory's default ACL masked by the mode it was
 * created with.  Pure functions on the bytes; errors are negative errno.
 */
#ifndef FLASHLAB_POSIXACL_H
#define FLASHLAB_POSIXACL_H

#include <stddef.h>
#include <stdint.h>

#define FS_ACL_ACCESS "system.posix_acl_access"
#define FS_ACL_DEFAULT "system.posix_acl_default"

/* 1 when name is one of the two, 2 for the default one, else 0. */
int fs_acl_name(const char *name);

/* The number of entries of a well-formed ACL of size bytes (one entry
 * each for the owner, the owning group and others; a mask when it names
 * users or groups; sorted; permission bits 0..7), else -EINVAL. */
int fs_acl_check(const uint8_t *acl, size_t size);

/* The mode acl gives: *mode's permission bits (0777) replaced by the
 * owner's, the mask's (else the owning group's) and others' bits.  Returns
 * 0 when the mode alone says all the ACL says (three entries: nothing to
 * store), 1 when not, -EINVAL for a malformed ACL. */
int fs_acl_to_mode(const uint8_t *acl, size_t size, uint32_t *mode);

/* chmod on a file with an access ACL: the owner's, the mask's (else the
 * owning group's) and others' entries take mode's bits, in place. */
int fs_acl_chmod(uint8_t *acl, size_t size, uint32_t mode);

/* A new file under a default ACL: acl (a copy of the default ACL, changed
 * in place into the new file's access ACL) and *mode (the mode asked for,
 * before any umask) masked by each other, as posix_acl_create.  0 when
 * the result is the mode alone, 1 when the access ACL must be stored,
 * -EINVAL for a malformed ACL. */
int fs_acl_create(uint8_t *acl, size_t size, uint32_t *mode);

#endif

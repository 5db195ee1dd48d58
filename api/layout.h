/*
 * layout.h -- the library describes its own public structs: for each one
 * its sizeof and _Alignof, and for each member its offsetof, sizeof and
 * kind of type; and the values of the enums and #defines a binding needs
 * (NAND_E_*, NAND_OP_*, LOGFS_WL_*, LOGFS_OP_*, RESULTS_* statuses, and the
 * host's O_*, SEEK_* and S_IF* that the file systems take).  Python's
 * ctypes mirrors (python/flashlab/_lib.py) are checked against this table
 * when the library is loaded.
 *
 * Nested structs and arrays are members of kind FLASHLAB_KIND_OTHER with
 * their whole size; a nested struct has an entry of its own.  The table
 * lists every member of a struct in declaration order, except `fsapi`,
 * whose entry names only its first members (all a binding reads) while its
 * size is the whole struct's.
 */
#ifndef FLASHLAB_LAYOUT_H
#define FLASHLAB_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* Bumped when the three structs below change. */
#define FLASHLAB_LAYOUT_VERSION 1

/* The kind of a member's type: what a binding must declare it as. */
#define FLASHLAB_KIND_INT 'i'   /* any integer or enum type */
#define FLASHLAB_KIND_FLOAT 'f' /* float, double, long double */
#define FLASHLAB_KIND_OTHER '-' /* pointer, array, struct */

struct flashlab_field {
    const char *name;
    uint32_t offset, size;
    char kind; /* FLASHLAB_KIND_* */
};

struct flashlab_struct {
    const char *name; /* the struct's tag: "nand_config" */
    uint32_t size, align;
    uint32_t nfields;
    const struct flashlab_field *fields;
};

struct flashlab_enum {
    const char *name; /* "NAND_E_ECC" */
    int64_t value;
};

/* FLASHLAB_LAYOUT_VERSION of the library (check it before reading). */
int flashlab_layout_version(void);
/* The i-th struct, NULL past the end. */
const struct flashlab_struct *flashlab_layout(size_t i);
/* The struct named by its tag, or NULL. */
const struct flashlab_struct *flashlab_layout_find(const char *name);
/* The member of s called name, or NULL. */
const struct flashlab_field *flashlab_layout_field(const struct flashlab_struct *s,
                                                   const char *name);
/* The i-th constant, NULL past the end. */
const struct flashlab_enum *flashlab_enum_at(size_t i);
/* The constant called name, or NULL. */
const struct flashlab_enum *flashlab_enum_find(const char *name);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif

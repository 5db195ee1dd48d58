/*
 * layout.h -- the library describes its own public structs: for each one
 * its sizeof and _Alignof, and for each member its offsetof, sizeof and
 * kind and exact type; and the values of the enums and #defines a binding
 * needs (NAND_E_*, NAND_OP_*, LOGFS_WL_*, LOGFS_OP_*, RESULTS_* statuses,
 * and the host's O_*, SEEK_* and S_IF* that the file systems take).
 * Python builds its ctypes structures from this table when the library is
 * loaded (python/flashlab/_lib.py), so a member added to a struct here is
 * seen there without a Python edit.
 *
 * The table lists every member of a struct in declaration order.  Nested
 * structs and arrays are members of kind FLASHLAB_KIND_OTHER with their
 * whole size; `type`, `count` and `tag` say what they are made of (a
 * nested struct, or the struct a pointer points to, has an entry of its
 * own, named by `tag`).
 */
#ifndef FLASHLAB_LAYOUT_H
#define FLASHLAB_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* Bumped when the three structs below change (2: type, count, tag). */
#define FLASHLAB_LAYOUT_VERSION 2

/* The kind of a member's type: what a binding must declare it as. */
#define FLASHLAB_KIND_INT 'i'   /* any integer or enum type */
#define FLASHLAB_KIND_FLOAT 'f' /* float, double, long double */
#define FLASHLAB_KIND_OTHER '-' /* pointer, array, struct */

/* The exact type of a member, or of an array's elements: what a binding
 * builds it from (the width of an integer or float is size / count). */
#define FLASHLAB_TYPE_SIGNED 'i'     /* signed integer (an enum with negatives) */
#define FLASHLAB_TYPE_UNSIGNED 'u'   /* unsigned integer, most enums */
#define FLASHLAB_TYPE_BOOL 'b'       /* _Bool */
#define FLASHLAB_TYPE_CHAR 'c'       /* plain char: a char array is a string */
#define FLASHLAB_TYPE_FLOAT 'f'      /* float, double, long double */
#define FLASHLAB_TYPE_STRING 's'     /* char *, const char * */
#define FLASHLAB_TYPE_POINTER 'p'    /* any other pointer: data or function */
#define FLASHLAB_TYPE_STRUCT 'S'     /* a struct: its entry is tag */
#define FLASHLAB_TYPE_STRUCT_PTR 'P' /* a pointer to struct tag */

struct flashlab_field {
    const char *name;
    uint32_t offset, size;
    char kind;       /* FLASHLAB_KIND_* */
    char type;       /* FLASHLAB_TYPE_*: of the member, or of its elements */
    uint32_t count;  /* an array's element count; 0 when not an array */
    const char *tag; /* the struct of FLASHLAB_TYPE_STRUCT(_PTR), else NULL */
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

/* slab.h -- fixed-size blocks carved from chunks (huge-page mappings once
 * past the first 2 MiB), for what is touched at random on every operation
 * (the stored pages, a device's page tables, LogFS's cached blocks): from
 * malloc each sat on its own 4 KiB pages and missed the TLB on every
 * touch. */
#ifndef FLASHLAB_SLAB_H
#define FLASHLAB_SLAB_H
#include <stddef.h>
#include <stdint.h>

/* ASan builds poison what is free (leak checkers do not see into the
 * mappings, so this is how a use after free is still caught). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define FLASHLAB_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define FLASHLAB_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define FLASHLAB_POISON(p, n) ((void)(p), (void)(n))
#define FLASHLAB_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct flashlab_slab {
    size_t size;               /* bytes per block, whole cache lines */
    struct flashlab_slab_chunk *chunks;
    void *free;                /* freed blocks, linked through their first bytes */
    uint8_t *carve, *carve_end; /* the newest chunk's blocks not yet used */
    size_t next_bytes;         /* the next mapped chunk's size */
    uint64_t carved;           /* bytes of all chunks so far */
    uint64_t held;             /* blocks in use */
};

/* An empty slab of blocks of at least `size` bytes, each on a cache line. */
void flashlab_slab_init(struct flashlab_slab *s, size_t size);
/* A block (its bytes undefined), or NULL when memory is short. */
void *flashlab_slab_get(struct flashlab_slab *s);
void flashlab_slab_put(struct flashlab_slab *s, void *p);
/* Unmap everything; blocks still held are gone too.  Returns how many
 * were held (a leak checker cannot see into the mappings). */
uint64_t flashlab_slab_destroy(struct flashlab_slab *s);
#endif

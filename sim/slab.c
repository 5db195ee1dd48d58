/*
 * slab.c -- fixed-size blocks carved from chunks that double from 64
 * blocks up to 32 MiB; those of 2 MiB and more are mapped on a 2 MiB
 * boundary and asked for transparent huge pages.  Blocks are carved from
 * the newest chunk as they are needed (memory no block has used is never
 * touched: building a whole chunk's free list made all of it resident at
 * once); a freed block goes on a free list (last freed, first reused: it
 * may still be in the caches) and stays until the slab is destroyed.
 * ASan builds poison free blocks.
 */
#include "slab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define POISON FLASHLAB_POISON
#define UNPOISON FLASHLAB_UNPOISON
#define LINE 64u
#define HUGE_PAGE (2u << 20)
#define FIRST_BLOCKS 64u
#define CHUNK_MAX (32u << 20)

struct flashlab_slab_chunk { /* malloc'd: writing it would touch the mapping */
    struct flashlab_slab_chunk *next;
    void *map;
    size_t map_len;
};

void flashlab_slab_init(struct flashlab_slab *s, size_t size)
{
    size = size < sizeof(void *) ? sizeof(void *) : size;
    *s = (struct flashlab_slab){.size = (size + LINE - 1) / LINE * LINE};
}

static int grow(struct flashlab_slab *s)
{
    size_t want = s->next_bytes ? s->next_bytes : FIRST_BLOCKS * s->size;
    if (want > CHUNK_MAX)
        want = CHUNK_MAX;
    if (want < s->size)
        want = s->size; /* a block larger than a chunk: one a chunk */
    size_t align = want >= HUGE_PAGE ? HUGE_PAGE : LINE;
    struct flashlab_slab_chunk *c = malloc(sizeof *c);
    uint8_t *map = c ? mmap(NULL, want + align, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                     : MAP_FAILED;
    if (map == MAP_FAILED) {
        free(c);
        return -1;
    }
    *c = (struct flashlab_slab_chunk){.next = s->chunks, .map = map, .map_len = want + align};
    s->chunks = c;
    uint8_t *base = (uint8_t *)(((uintptr_t)map + align - 1) & ~(uintptr_t)(align - 1));
    if (align == HUGE_PAGE)
        (void)madvise(base, want, MADV_HUGEPAGE); /* a hint: without it, small pages */
    s->carve = base;
    s->carve_end = base + want / s->size * s->size;
    POISON(base, want);
    s->next_bytes = want * 2 > CHUNK_MAX ? CHUNK_MAX : want * 2;
    return 0;
}

void *flashlab_slab_get(struct flashlab_slab *s)
{
    uint8_t *b = s->free;
    if (b) {
        UNPOISON(b, s->size);
        memcpy(&s->free, b, sizeof s->free);
        if (s->free) /* freed long ago (an erase's page): cold */
            __builtin_prefetch(s->free, 0, 3);
    } else {
        if (s->carve == s->carve_end && grow(s))
            return NULL;
        b = s->carve;
        s->carve += s->size;
        UNPOISON(b, s->size);
    }
    s->held++;
    return b;
}

void flashlab_slab_put(struct flashlab_slab *s, void *p)
{
    if (!p)
        return;
    memcpy(p, &s->free, sizeof s->free);
    s->free = p;
    POISON(p, s->size);
    s->held--;
}

uint64_t flashlab_slab_destroy(struct flashlab_slab *s)
{
    uint64_t held = s->held;
    while (s->chunks) {
        struct flashlab_slab_chunk *c = s->chunks;
        s->chunks = c->next;
        UNPOISON(c->map, c->map_len);
        munmap(c->map, c->map_len);
        free(c);
    }
    flashlab_slab_init(s, s->size);
    return held;
}

/*
 * slab.c -- fixed-size blocks carved from chunks: 64 KiB ones from malloc
 * for the first 2 MiB, then mappings on huge pages that double up to
 * 32 MiB (grow says why).  Blocks are carved from the newest chunk as
 * they are needed (memory no block has used is never touched: building
 * a whole chunk's free list made all of it resident at once); a freed block goes on a free list (last freed, first reused: it
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
#define SMALL_CHUNK (64u << 10)
#define CHUNK_MAX (32u << 20)

struct flashlab_slab_chunk { /* malloc'd: writing it would touch the mapping */
    struct flashlab_slab_chunk *next;
    void *map;
    size_t map_len;
    int mapped;                  /* mmap'd (huge pages), else malloc'd */
};

void flashlab_slab_init(struct flashlab_slab *s, size_t size)
{
    size = size < sizeof(void *) ? sizeof(void *) : size;
    *s = (struct flashlab_slab){.size = (size + LINE - 1) / LINE * LINE};
}

/* The first 2 MiB come in chunks of 64 KiB from malloc, below the
 * allocators' (and ASan's) thresholds for mappings of their own: a
 * program that opens and closes many small devices or mounts (the test
 * suites) then reuses the same memory each time instead of mapping,
 * faulting in and unmapping fresh chunks (which took the power-cut tests
 * from 17 to 23 s).  Beyond, chunks double from 2 to 32 MiB, mapped on a
 * 2 MiB boundary and asked for transparent huge pages. */
static int grow(struct flashlab_slab *s)
{
    int huge = s->carved >= HUGE_PAGE;
    size_t want = !huge ? SMALL_CHUNK / s->size * s->size
                : s->next_bytes ? s->next_bytes : HUGE_PAGE;
    if (want > CHUNK_MAX)
        want = CHUNK_MAX;
    if (want < s->size)
        want = s->size; /* a block larger than a chunk: one a chunk */
    struct flashlab_slab_chunk *c = malloc(sizeof *c);
    uint8_t *map = !c ? NULL
                 : huge ? mmap(NULL, want + HUGE_PAGE, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                        : aligned_alloc(LINE, want);
    if (!map || map == MAP_FAILED) {
        free(c);
        return -1;
    }
    *c = (struct flashlab_slab_chunk){.next = s->chunks, .map = map,
                                      .map_len = huge ? want + HUGE_PAGE : want, .mapped = huge};
    s->chunks = c;
    uint8_t *base = map;
    if (huge) {
        base = (uint8_t *)(((uintptr_t)map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        (void)madvise(base, want, MADV_HUGEPAGE); /* a hint: without it, small pages */
        s->next_bytes = want * 2 > CHUNK_MAX ? CHUNK_MAX : want * 2;
    }
    s->carve = base;
    s->carve_end = base + want / s->size * s->size;
    s->carved += want;
    POISON(base, want);
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
        if (c->mapped)
            munmap(c->map, c->map_len);
        else
            free(c->map);
        free(c);
    }
    flashlab_slab_init(s, s->size);
    return held;
}

/*
 * arena.c -- the full-page buffers, carved from large mappings.
 *
 * A device the size of the steady-state benchmark's holds a million pages
 * of 8.6 KiB.  From malloc each one sat on its own 4 KiB pages of memory,
 * so every read of a cold page (the cleaner reads whole victims) missed
 * the TLB twice or three times and walked page tables that did not fit
 * in the caches either.  Here buffers are fixed-size slots in chunks that
 * double from 64 slots up to 32 MiB; a chunk of 2 MiB or more is mapped
 * on a 2 MiB boundary and asked for transparent huge pages.  Slots are
 * carved from the newest chunk as pages need them; a freed slot goes on a
 * free list (last freed, first reused: it is still in the caches) and
 * stays there until the device is closed.
 *
 * Each slot is placed so that the page bytes start on a cache line.  ASan
 * builds poison the free slots, and closing a device with slots still
 * held is reported (leak checkers do not see into the mappings).
 *
 * Run-length forms (compress) take slots of 16-byte size classes, carved
 * from 1 MiB mappings and kept on one free list per class the same way:
 * from malloc, a page program and a page erase cost as much in malloc
 * and free (its bins, its consolidation) as in the encoder itself.
 */
#include "nand_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define LINE 64u
#define HUGE_PAGE (2u << 20)
#define FIRST_SLOTS 64u
#define CHUNK_MAX (32u << 20)
#define SMALL_CLASS 16u
#define SMALL_CHUNK (1u << 20)

struct arena_chunk { /* malloc'd: writing it would touch the mapping */
    struct arena_chunk *next;
    void *map;        /* what munmap takes back */
    size_t map_len;
};

/* The header sits just before the line the bytes start on. */
static size_t hdr_pad(void)
{
    size_t h = sizeof(struct pbuf);
    return (h + LINE - 1) / LINE * LINE - h;
}

static size_t slot_size(const nand_dev *dev)
{
    size_t n = hdr_pad() + sizeof(struct pbuf) + dev->page_bytes;
    return (n + LINE - 1) / LINE * LINE;
}

/* Map len bytes and chain them to the arena's chunks: NULL when short. */
static uint8_t *chunk_map(struct page_arena *a, size_t len)
{
    struct arena_chunk *c = malloc(sizeof *c);
    uint8_t *map = c ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                     : MAP_FAILED;
    if (map == MAP_FAILED) {
        free(c);
        return NULL;
    }
    *c = (struct arena_chunk){.next = a->chunks, .map = map, .map_len = len};
    a->chunks = c;
    return map;
}

/* Map a chunk of about `want` bytes; its slots are carved as they are
 * needed, so that memory no page has used yet is never touched (not even
 * for a free list: that made whole chunks resident at once). */
static int arena_grow(nand_dev *dev)
{
    struct page_arena *a = &dev->arena;
    size_t ss = slot_size(dev);
    size_t want = a->next_bytes ? a->next_bytes : FIRST_SLOTS * ss;
    size_t align = want >= HUGE_PAGE ? HUGE_PAGE : LINE;
    size_t len = want + align;
    uint8_t *map = chunk_map(a, len);
    if (!map)
        return -1;
    uint8_t *base = (uint8_t *)(((uintptr_t)map + align - 1) & ~(uintptr_t)(align - 1));
    if (align == HUGE_PAGE)
        (void)madvise(base, want, MADV_HUGEPAGE); /* a hint: without it, small pages */
    a->carve = base;
    a->carve_end = base + want / ss * ss;
    POISON(a->carve, (size_t)(a->carve_end - a->carve));
    a->next_bytes = want * 2 > CHUNK_MAX ? CHUNK_MAX : want * 2;
    return 0;
}

struct pbuf *sim_arena_get(nand_dev *dev)
{
    struct page_arena *a = &dev->arena;
    struct pbuf *pg = a->free;
    if (pg) {
        a->free = pg->dnext;
        a->nfree--;
        if (a->free) /* freed by an erase long ago: its header is cold */
            __builtin_prefetch(a->free, 0, 3);
    } else {
        if (a->carve == a->carve_end && arena_grow(dev))
            return NULL;
        pg = (struct pbuf *)(a->carve + hdr_pad());
        a->carve += slot_size(dev);
        UNPOISON(pg, sizeof *pg);
    }
    UNPOISON(pg->bytes, dev->page_bytes);
    a->held++;
    return pg;
}

void sim_arena_put(nand_dev *dev, struct pbuf *pg)
{
    struct page_arena *a = &dev->arena;
    pg->dnext = a->free;
    a->free = pg;
    a->nfree++;
    a->held--;
    POISON(pg->bytes, dev->page_bytes);
}

/* The size class of a buffer of n bytes, and its slot's size. */
static uint32_t small_class(uint32_t n)
{
    return (uint32_t)((sizeof(struct pbuf) + n + SMALL_CLASS - 1) / SMALL_CLASS);
}

struct pbuf *sim_arena_get_small(nand_dev *dev, uint32_t n)
{
    struct page_arena *a = &dev->arena;
    uint32_t k = small_class(n);
    size_t size = (size_t)k * SMALL_CLASS;
    if (k >= a->nsmall) {
        uint32_t nk = small_class(dev->page_bytes);
        struct pbuf **t = k < nk ? calloc(nk, sizeof *t) : NULL;
        if (!t)
            return NULL;
        for (uint32_t i = 0; i < a->nsmall; i++)
            t[i] = a->small[i];
        free(a->small);
        a->small = t;
        a->nsmall = nk;
    }
    struct pbuf *pg = a->small[k];
    if (pg) {
        UNPOISON(pg, size);
        a->small[k] = pg->dnext;
        if (pg->dnext) /* freed by an erase long ago: cold */
            __builtin_prefetch(pg->dnext, 1, 3);
    } else {
        if ((size_t)(a->scarve_end - a->scarve) < size) {
            uint8_t *map = chunk_map(a, SMALL_CHUNK);
            if (!map)
                return NULL;
            POISON(map, SMALL_CHUNK);
            a->scarve = map;
            a->scarve_end = map + SMALL_CHUNK;
        }
        pg = (struct pbuf *)a->scarve;
        a->scarve += size;
        UNPOISON(pg, size);
    }
    a->small_held++;
    return pg;
}

void sim_arena_put_small(nand_dev *dev, struct pbuf *pg, uint32_t n)
{
    struct page_arena *a = &dev->arena;
    uint32_t k = small_class(n);
    pg->dnext = a->small[k];
    a->small[k] = pg;
    a->small_held--;
    POISON((uint8_t *)pg + sizeof *pg, (size_t)k * SMALL_CLASS - sizeof *pg);
}

void sim_arena_free(nand_dev *dev)
{
    struct page_arena *a = &dev->arena;
    if (a->held || a->small_held) {
        /* a buffer still held when every block and snapshot is gone is a
         * reference counting bug; leak checkers cannot see it here */
        fprintf(stderr, "nand: %llu page buffers still held at close\n",
                (unsigned long long)(a->held + a->small_held));
#if defined(__SANITIZE_ADDRESS__)
        abort();
#endif
    }
    while (a->chunks) {
        struct arena_chunk *c = a->chunks;
        a->chunks = c->next;
        UNPOISON(c->map, c->map_len);
        munmap(c->map, c->map_len);
        free(c);
    }
    free(a->small);
    *a = (struct page_arena){0};
}

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
    struct arena_chunk *c = malloc(sizeof *c);
    uint8_t *map = c ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                     : MAP_FAILED;
    if (map == MAP_FAILED) {
        free(c);
        return -1;
    }
    uint8_t *base = (uint8_t *)(((uintptr_t)map + align - 1) & ~(uintptr_t)(align - 1));
    if (align == HUGE_PAGE)
        (void)madvise(base, want, MADV_HUGEPAGE); /* a hint: without it, small pages */
    *c = (struct arena_chunk){.next = a->chunks, .map = map, .map_len = len};
    a->chunks = c;
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

void sim_arena_free(nand_dev *dev)
{
    struct page_arena *a = &dev->arena;
    if (a->held) {
        /* a buffer still held when every block and snapshot is gone is a
         * reference counting bug; leak checkers cannot see it here */
        fprintf(stderr, "nand: %llu page buffers still held at close\n",
                (unsigned long long)a->held);
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
    *a = (struct page_arena){0};
}

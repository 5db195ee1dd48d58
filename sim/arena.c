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

#define POISON FLASHLAB_POISON
#define UNPOISON FLASHLAB_UNPOISON

#define LINE 64u
#define SMALL_CLASS 16u
#define SMALL_CHUNK (1u << 20)

/* The header sits just before the line the bytes start on. */
static size_t hdr_pad(void)
{
    size_t h = sizeof(struct pbuf);
    return (h + LINE - 1) / LINE * LINE - h;
}

struct pbuf *sim_arena_get(nand_dev *dev)
{
    struct flashlab_slab *s = &dev->arena.pages;
    if (!s->size)
        flashlab_slab_init(s, hdr_pad() + sizeof(struct pbuf) + dev->page_bytes);
    uint8_t *slot = flashlab_slab_get(s);
    return slot ? (struct pbuf *)(slot + hdr_pad()) : NULL;
}

void sim_arena_put(nand_dev *dev, struct pbuf *pg)
{
    flashlab_slab_put(&dev->arena.pages, (uint8_t *)pg - hdr_pad());
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
            if (!a->chunks.size)
                flashlab_slab_init(&a->chunks, SMALL_CHUNK);
            uint8_t *map = flashlab_slab_get(&a->chunks);
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
    uint64_t held = flashlab_slab_destroy(&a->pages) + a->small_held;
    if (held) {
        /* a buffer still held when every block and snapshot is gone is a
         * reference counting bug; leak checkers cannot see it here */
        fprintf(stderr, "nand: %llu page buffers still held at close\n",
                (unsigned long long)held);
#if defined(__SANITIZE_ADDRESS__)
        abort();
#endif
    }
    flashlab_slab_destroy(&a->chunks); /* the small slots' */
    free(a->small);
    *a = (struct page_arena){0};
}

/*
 * ftl_cache.c -- the FTL's optional write cache (option cache=SIZE), as
 * MQSim's data cache in its write-cache mode: host writes go to RAM
 * slots of one sector each; a write to a sector already cached
 * overwrites it there (the flash never sees the first copy: the write is
 * absorbed); when the cache is full, the least recently written sector is
 * written to the FTL.  Reads are served from the cache when it holds the
 * sector.  A flush writes every cached sector to the FTL (oldest first)
 * before the FTL's own flush, and empties the cache.  A power cut loses
 * what the cache held: those sectors read their old content, as any
 * unflushed sector may (docs/ftl.md, "Write cache").
 *
 * The index is an open-addressed hash table (linear probing, deletion by
 * backward shift) from sector to slot; the slots form an LRU list.
 */
#include "ftl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

struct ftl_cache {
    uint32_t nslots, used;
    uint32_t mask;            /* hash table size - 1 */
    uint32_t *table;          /* slot index, or NIL */
    uint64_t *lsn;            /* per slot: its sector */
    uint32_t *prev, *next;    /* LRU list: head = oldest */
    uint32_t head, tail, free_top;
    uint8_t *data;            /* nslots sectors */
};

static uint32_t hash(const struct ftl_cache *c, uint64_t lsn)
{
    return (uint32_t)((lsn * 0x9E3779B97F4A7C15ull) >> 32) & c->mask;
}

/* the table position holding lsn, or of the empty cell that ends its run */
static uint32_t find(const struct ftl_cache *c, uint64_t lsn)
{
    uint32_t h = hash(c, lsn);
    while (c->table[h] != NIL && c->lsn[c->table[h]] != lsn)
        h = (h + 1) & c->mask;
    return h;
}

static void unlink_slot(struct ftl_cache *c, uint32_t s)
{
    if (c->prev[s] != NIL)
        c->next[c->prev[s]] = c->next[s];
    else
        c->head = c->next[s];
    if (c->next[s] != NIL)
        c->prev[c->next[s]] = c->prev[s];
    else
        c->tail = c->prev[s];
}

static void append_slot(struct ftl_cache *c, uint32_t s)
{
    c->prev[s] = c->tail;
    c->next[s] = NIL;
    if (c->tail != NIL)
        c->next[c->tail] = s;
    else
        c->head = s;
    c->tail = s;
}

/* Remove table position h; the run after it shifts back over the hole. */
static void table_delete(struct ftl_cache *c, uint32_t h)
{
    uint32_t hole = h;
    for (uint32_t i = (h + 1) & c->mask; c->table[i] != NIL; i = (i + 1) & c->mask) {
        uint32_t home = hash(c, c->lsn[c->table[i]]);
        /* the entry at i may move to hole when its home is not in (hole, i] */
        if (((i - home) & c->mask) >= ((i - hole) & c->mask)) {
            c->table[hole] = c->table[i];
            hole = i;
        }
    }
    c->table[hole] = NIL;
}

/* Drop slot s (its sector no longer cached). */
static void drop(struct ftl_cache *c, uint32_t h)
{
    uint32_t s = c->table[h];
    table_delete(c, h);
    unlink_slot(c, s);
    c->next[s] = c->free_top;
    c->free_top = s;
    c->used--;
}

/* Write slot s to the FTL: not a host write (the host's was counted when
 * it reached the cache). */
static int write_back(struct ftl_dev *d, uint32_t s)
{
    struct ftl_cache *c = d->cache;
    uint64_t w = d->st.host_sectors_written, b = d->st.host_bytes_written;
    int rc = ftl_write(d, c->lsn[s], 1, c->data + (size_t)s * d->ss);
    d->st.host_sectors_written = w;
    d->st.host_bytes_written = b;
    return rc;
}

int ftl_cache_init(struct ftl_dev *d)
{
    uint64_t n = d->o.cache_bytes / d->ss;
    if (!n)
        return 0;
    if (n >= (1u << 30))
        return -EINVAL;
    struct ftl_cache *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    d->cache = c;
    c->nslots = (uint32_t)n;
    uint32_t tsize = 2;
    while (tsize < 2 * c->nslots)
        tsize <<= 1;
    c->mask = tsize - 1;
    c->table = malloc((size_t)tsize * sizeof *c->table);
    c->lsn = malloc((size_t)n * sizeof *c->lsn);
    c->prev = malloc((size_t)n * sizeof *c->prev);
    c->next = malloc((size_t)n * sizeof *c->next);
    c->data = malloc((size_t)n * d->ss);
    if (!c->table || !c->lsn || !c->prev || !c->next || !c->data)
        return -ENOMEM;
    memset(c->table, 0xFF, (size_t)tsize * sizeof *c->table);
    c->head = c->tail = NIL;
    for (uint32_t s = 0; s < c->nslots; s++)
        c->next[s] = s + 1 < c->nslots ? s + 1 : NIL;
    c->free_top = 0;
    return 0;
}

void ftl_cache_free(struct ftl_dev *d)
{
    struct ftl_cache *c = d->cache;
    if (!c)
        return;
    free(c->table);
    free(c->lsn);
    free(c->prev);
    free(c->next);
    free(c->data);
    free(c);
    d->cache = NULL;
}

uint64_t ftl_cache_mem_bytes(const struct ftl_dev *d)
{
    const struct ftl_cache *c = d->cache;
    if (!c)
        return 0;
    return sizeof *c + (c->mask + 1ull) * sizeof *c->table +
           (uint64_t)c->nslots * (sizeof *c->lsn + 2 * sizeof *c->prev + d->ss);
}

static int range_ok(const struct ftl_dev *d, uint64_t first, uint64_t count)
{
    return first <= d->sb.sectors && count <= d->sb.sectors - first;
}

int ftl_cache_write(struct ftl_dev *d, uint64_t first, uint32_t count, const void *buf)
{
    struct ftl_cache *c = d->cache;
    if (!range_ok(d, first, count))
        return -EINVAL;
    int rc = 0;
    for (uint32_t i = 0; i < count && !rc; i++) {
        uint64_t lsn = first + i;
        uint32_t h = find(c, lsn), s = c->table[h];
        if (s != NIL) {
            d->st.cache_absorbed++;
            unlink_slot(c, s);
        } else {
            if (c->used == c->nslots) { /* the oldest goes to flash */
                uint32_t old = c->head;
                if ((rc = write_back(d, old)))
                    break;
                drop(c, find(c, c->lsn[old]));
                h = find(c, lsn);
            }
            s = c->free_top;
            c->free_top = c->next[s];
            c->used++;
            c->lsn[s] = lsn;
            c->table[h] = s;
        }
        append_slot(c, s);
        memcpy(c->data + (size_t)s * d->ss, (const uint8_t *)buf + (size_t)i * d->ss, d->ss);
        d->st.host_sectors_written++;
        d->st.host_bytes_written += d->ss;
    }
    return rc;
}

int ftl_cache_read(struct ftl_dev *d, uint64_t first, uint32_t count, void *buf)
{
    struct ftl_cache *c = d->cache;
    if (!range_ok(d, first, count))
        return -EINVAL;
    int rc = 0;
    for (uint32_t i = 0; i < count && !rc; i++) {
        uint8_t *dst = (uint8_t *)buf + (size_t)i * d->ss;
        uint32_t s = c->table[find(c, first + i)];
        if (s == NIL) {
            rc = ftl_read_host(d, first + i, 1, dst);
            continue;
        }
        memcpy(dst, c->data + (size_t)s * d->ss, d->ss);
        d->st.host_sectors_read++;
    }
    return rc;
}

/* A trimmed sector leaves the cache first (its cached write is void). */
int ftl_cache_trim(struct ftl_dev *d, uint64_t first, uint64_t count)
{
    struct ftl_cache *c = d->cache;
    if (!range_ok(d, first, count))
        return -EINVAL;
    if (count < c->used) {
        for (uint64_t i = 0; i < count; i++) {
            uint32_t h = find(c, first + i);
            if (c->table[h] != NIL)
                drop(c, h);
        }
    } else {
        for (uint32_t s = c->head, nx; s != NIL; s = nx) {
            nx = c->next[s];
            if (c->lsn[s] >= first && c->lsn[s] - first < count)
                drop(c, find(c, c->lsn[s]));
        }
    }
    return ftl_trim(d, first, count);
}

/* Every cached sector to the FTL, oldest first, then the FTL's flush. */
int ftl_cache_flush(struct ftl_dev *d)
{
    struct ftl_cache *c = d->cache;
    int rc = 0;
    while (!rc && c->head != NIL) {
        uint32_t s = c->head;
        if (!(rc = write_back(d, s)))
            drop(c, find(c, c->lsn[s]));
    }
    return rc ? rc : ftl_flush(d);
}

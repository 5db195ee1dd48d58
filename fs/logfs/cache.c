/*
 * cache.c -- the node cache: every block of every file the fs has touched,
 * found by (inode, level, block index).
 *
 * Clean nodes sit on an LRU list and are dropped when the cache is over
 * its bound; dirty nodes sit on a list per file class and tree level, in
 * the order commit needs them, and stay until they are written.  All
 * memory goes through the counting allocator, so experiments can report
 * what the fs holds.
 */
#include "storage.h"

#include <stdlib.h>
#include <string.h>

void *lfs_alloc(struct logfs *fs, size_t n)
{
    void *p = malloc(n);
    if (p)
        fs->mem_bytes += n;
    return p;
}

void *lfs_zalloc(struct logfs *fs, size_t n)
{
    void *p = calloc(1, n);
    if (p)
        fs->mem_bytes += n;
    return p;
}

void lfs_free(struct logfs *fs, void *p, size_t n)
{
    if (!p)
        return;
    fs->mem_bytes -= n;
    free(p);
}

enum lfs_wclass lfs_node_class(uint64_t ino)
{
    return ino == LFS_INO_INODEFILE ? LFS_WC_INODEFILE
         : ino == LFS_INO_SEGFILE ? LFS_WC_SEGFILE : LFS_WC_FILE;
}

static uint64_t node_hash(uint64_t ino, uint8_t level, uint64_t bix)
{
    uint64_t h = ino * 0x9e3779b97f4a7c15ULL ^ bix * 0xc2b2ae3d27d4eb4fULL ^ level;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

static void list_init(struct lfs_list *l)
{
    l->head.next = l->head.prev = &l->head;
    l->count = 0;
}

static void list_unlink(struct lfs_node *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->next = n->prev = n;
}

static void list_append(struct lfs_list *l, struct lfs_node *n)
{
    n->prev = l->head.prev;
    n->next = &l->head;
    l->head.prev->next = n;
    l->head.prev = n;
    l->count++;
}

static struct lfs_list *list_of(struct logfs *fs, struct lfs_node *n)
{
    return n->dirty ? &fs->cache.dirty[lfs_node_class(n->ino)][n->level]
                    : &fs->cache.clean;
}

int lfs_cache_init(struct logfs *fs, uint64_t max_bytes)
{
    struct lfs_cache *c = &fs->cache;
    c->size = 1024;
    c->tab = lfs_zalloc(fs, c->size * sizeof *c->tab);
    if (!c->tab)
        return -1;
    list_init(&c->clean);
    for (int k = 0; k < LFS_WCLASSES; k++)
        for (unsigned l = 0; l <= LFS_MAX_HEIGHT; l++)
            list_init(&c->dirty[k][l]);
    c->max_bytes = max_bytes;
    flashlab_slab_init(&c->blocks, fs->g.block_size);
    return 0;
}

/* Node structs come from chunks of NODE_CHUNK, kept until unmount.  When
 * each was malloc'd on its own, beside its 4 KiB block, every node of a
 * 32 MiB cache sat on a different page, and the hash chains' and LRU
 * list's walks missed the TLB and the caches at every step
 * (lfs_cache_find was 11 % of the steady state).  Together they fit in
 * the L2 cache. */
#define NODE_CHUNK 256u
struct lfs_node_chunk {
    struct lfs_node_chunk *next;
    struct lfs_node nodes[NODE_CHUNK];
};

static struct lfs_node *node_struct_get(struct logfs *fs)
{
    struct lfs_cache *c = &fs->cache;
    if (!c->free_structs) {
        struct lfs_node_chunk *k = lfs_alloc(fs, sizeof *k);
        if (!k)
            return NULL;
        k->next = c->chunks;
        c->chunks = k;
        for (uint32_t i = NODE_CHUNK; i-- > 0;) {
            k->nodes[i].hnext = c->free_structs;
            c->free_structs = &k->nodes[i];
        }
    }
    struct lfs_node *n = c->free_structs;
    c->free_structs = n->hnext;
    memset(n, 0, sizeof *n);
    return n;
}

static void node_struct_put(struct logfs *fs, struct lfs_node *n)
{
    n->hnext = fs->cache.free_structs;
    fs->cache.free_structs = n;
}

static void node_free(struct logfs *fs, struct lfs_node *n)
{
    flashlab_slab_put(&fs->cache.blocks, n->data);
    fs->mem_bytes -= fs->g.block_size;
    node_struct_put(fs, n);
}

/* How many dropped nodes are kept for reuse: a segment's worth of blocks
 * (at least 32).  A cleaning round adds up to that many nodes at once and
 * the trim after it drops as many; with 32, the malloc and free of the rest
 * were 7% of the steady state. */
static uint32_t spare_max(const struct logfs *fs)
{
    uint32_t n = fs->g.seg_bytes / fs->g.block_size;
    return n > 32 ? n : 32;
}

static void node_drop(struct logfs *fs, struct lfs_node *n)
{
    struct lfs_cache *c = &fs->cache;
    if (c->nspare >= spare_max(fs)) {
        node_free(fs, n);
        return;
    }
    n->hnext = c->spare;
    c->spare = n;
    c->nspare++;
}

void lfs_cache_destroy(struct logfs *fs)
{
    struct lfs_cache *c = &fs->cache;
    while (c->spare) {
        struct lfs_node *n = c->spare;
        c->spare = n->hnext;
        node_free(fs, n);
    }
    c->nspare = 0;
    for (uint64_t i = 0; c->tab && i < c->size; i++) {
        struct lfs_node *n = c->tab[i], *next;
        for (; n; n = next) {
            next = n->hnext;
            node_free(fs, n);
        }
    }
    lfs_free(fs, c->tab, c->size * sizeof *c->tab);
    c->tab = NULL;
    while (c->chunks) {
        struct lfs_node_chunk *k = c->chunks;
        c->chunks = k->next;
        lfs_free(fs, k, sizeof *k);
    }
    c->free_structs = NULL;
    flashlab_slab_destroy(&c->blocks); /* every block was put back above */
}

struct lfs_node *lfs_cache_find(struct logfs *fs, uint64_t ino, uint8_t level,
                                uint64_t bix)
{
    struct lfs_cache *c = &fs->cache;
    struct lfs_node *n = c->tab[node_hash(ino, level, bix) & (c->size - 1)];
    while (n && !(n->ino == ino && n->level == level && n->bix == bix))
        n = n->hnext;
    return n;
}

/* A lookup to come, started early (the cleaner looks up every object of
 * its victim, and each step of a lookup was a cache miss): stage 0 starts
 * loading the key's hash bucket, stage 1, when the bucket has had time
 * to arrive, the first node of its chain. */
void lfs_cache_prefetch(const struct logfs *fs, uint64_t ino, uint8_t level, uint64_t bix,
                        int stage)
{
    const struct lfs_cache *c = &fs->cache;
    struct lfs_node *const *b = &c->tab[node_hash(ino, level, bix) & (c->size - 1)];
    if (stage == 0)
        __builtin_prefetch(b);
    else if (*b)
        __builtin_prefetch(*b);
}

static void cache_grow(struct logfs *fs)
{
    struct lfs_cache *c = &fs->cache;
    uint64_t nsize = c->size * 2;
    struct lfs_node **nt = lfs_zalloc(fs, nsize * sizeof *nt);
    if (!nt)
        return; /* chains just get longer */
    for (uint64_t i = 0; i < c->size; i++) {
        struct lfs_node *n = c->tab[i], *next;
        for (; n; n = next) {
            next = n->hnext;
            uint64_t h = node_hash(n->ino, n->level, n->bix) & (nsize - 1);
            n->hnext = nt[h];
            nt[h] = n;
        }
    }
    lfs_free(fs, c->tab, c->size * sizeof *c->tab);
    c->tab = nt;
    c->size = nsize;
}

/* A new, clean, zeroed node; the caller fills it in. */
struct lfs_node *lfs_cache_add(struct logfs *fs, uint64_t ino, uint8_t level,
                               uint64_t bix, int zero)
{
    struct lfs_cache *c = &fs->cache;
    struct lfs_node *n = c->spare;
    if (n) {
        c->spare = n->hnext;
        c->nspare--;
        uint8_t *data = n->data;
        memset(n, 0, sizeof *n);
        n->data = data;
        if (zero)
            memset(data, 0, fs->g.block_size);
    } else {
        if (!(n = node_struct_get(fs)))
            return NULL;
        if (!(n->data = flashlab_slab_get(&c->blocks))) {
            node_struct_put(fs, n);
            return NULL;
        }
        fs->mem_bytes += fs->g.block_size;
        if (zero)
            memset(n->data, 0, fs->g.block_size);
    }
    n->ino = ino;
    n->level = level;
    n->bix = bix;
    if (c->count >= c->size)
        cache_grow(fs);
    uint64_t h = node_hash(ino, level, bix) & (c->size - 1);
    n->hnext = c->tab[h];
    c->tab[h] = n;
    c->count++;
    c->bytes += fs->g.block_size;
    list_append(&c->clean, n);
    return n;
}

void lfs_cache_remove(struct logfs *fs, struct lfs_node *n)
{
    struct lfs_cache *c = &fs->cache;
    struct lfs_node **pp = &c->tab[node_hash(n->ino, n->level, n->bix) & (c->size - 1)];
    while (*pp != n)
        pp = &(*pp)->hnext;
    *pp = n->hnext;
    list_of(fs, n)->count--;
    list_unlink(n);
    if (n->dirty) {
        c->dirty_bytes -= fs->g.block_size;
        c->dirty_growth -= n->growth;
    }
    c->count--;
    c->bytes -= fs->g.block_size;
    node_drop(fs, n);
}

void lfs_node_dirty(struct logfs *fs, struct lfs_node *n)
{
    n->moved = 0; /* the cleaner marks its own after this */
    n->pcrc.ok = 0; /* the bytes change */
    if (n->dirty)
        return;
    list_of(fs, n)->count--;
    list_unlink(n);
    n->dirty = 1;
    list_append(list_of(fs, n), n);
    fs->cache.dirty_bytes += fs->g.block_size;
    /* an overwrite adds only what its object outgrows the old one by */
    uint32_t obj = fs->g.block_size + LFS_OBJ_HDR;
    uint32_t old = n->ptr && n->ptr != LFS_PTR_PENDING ? lfs_ptr_len(n->ptr) : 0;
    n->growth = old < obj ? obj - old : 0;
    fs->cache.dirty_growth += n->growth;
}

void lfs_node_move(struct logfs *fs, struct lfs_node *n)
{
    struct lfs_objcrc keep = n->pcrc;
    lfs_node_dirty(fs, n);
    n->moved = 1;
    n->pcrc = keep;
}

void lfs_node_clean(struct logfs *fs, struct lfs_node *n)
{
    if (!n->dirty)
        return;
    list_of(fs, n)->count--;
    list_unlink(n);
    n->dirty = 0;
    list_append(&fs->cache.clean, n);
    fs->cache.dirty_bytes -= fs->g.block_size;
    fs->cache.dirty_growth -= n->growth;
}

/* Most recently used goes to the tail of the clean list. */
void lfs_cache_touch(struct logfs *fs, struct lfs_node *n)
{
    if (n->dirty)
        return;
    list_unlink(n);
    fs->cache.clean.count--;
    list_append(&fs->cache.clean, n);
}

/* Drop clean nodes, oldest first, until the cache is within its bound. */
void lfs_cache_trim(struct logfs *fs)
{
    struct lfs_cache *c = &fs->cache;
    while (c->bytes > c->max_bytes && c->clean.count)
        lfs_cache_remove(fs, c->clean.head.next);
}

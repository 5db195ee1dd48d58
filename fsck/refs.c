/* refs.c -- the list of reachable pointers: every object a tree of the
 * newest commit names, with its place.  Live counts, overlaps and segment
 * states are all computed from it (space.c); a repair drops the
 * pointers it replaces and adds the ones it writes. */
#include "fsck_int.h"

#include <stdlib.h>

int fk_add_ref(struct fk *k, uint64_t ptr, int cls, uint64_t ino, uint8_t level,
               uint64_t bix)
{
    if (fk_grow((void **)&k->refs, &k->refs_cap, k->nrefs + 1, sizeof *k->refs))
        return -1;
    k->refs[k->nrefs++] = (struct fk_ref){
        .addr = ptr >> 16, .ino = ino, .bix = bix, .len = (uint32_t)(ptr & 0xffff),
        .cls = (uint8_t)cls, .level = level, .dropped = 0};
    return 0;
}

/* The refs are sorted by address once the check has them all; a repair
 * appends after that, so the search covers the sorted prefix and then
 * the appended tail. */
void fk_drop_ref(struct fk *k, uint64_t ptr)
{
    uint64_t addr = ptr >> 16;
    uint32_t len = (uint32_t)(ptr & 0xffff);
    size_t lo = 0, hi = k->nrefs_sorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->refs[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < k->nrefs_sorted && k->refs[i].addr == addr; i++)
        if (k->refs[i].len == len && !k->refs[i].dropped) {
            k->refs[i].dropped = 1;
            return;
        }
    for (size_t i = k->nrefs_sorted; i < k->nrefs; i++)
        if (k->refs[i].addr == addr && k->refs[i].len == len && !k->refs[i].dropped) {
            k->refs[i].dropped = 1;
            return;
        }
}

static int by_addr(const void *a, const void *b)
{
    const struct fk_ref *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr ? 1
         : x->len < y->len   ? -1 : x->len > y->len;
}

void fk_sort_refs(struct fk *k)
{
    if (k->nrefs > 1)
        qsort(k->refs, k->nrefs, sizeof *k->refs, by_addr);
    k->nrefs_sorted = k->nrefs;
}

unsigned fk_area_of(int cls, uint8_t level)
{
    if (cls == FK_CLS_SEGFILE)
        return FK_AREA_SEGFILE;
    return (cls == FK_CLS_INODEFILE ? FK_AREA_INODE : 0) + level;
}

int fk_reserved_block(const struct fk *k, uint64_t s)
{
    if (s == 0 || s == k->sb.backup_block)
        return 1;
    for (uint32_t i = 0; i < k->sb.anchor_count; i++)
        if (k->sb.anchor_blocks[i] == s)
            return 1;
    return 0;
}

/* cow.c -- replacing level-0 blocks of one tree for a repair commit:
 * copy-on-write up the tree (FORMAT.md section 10), every changed indirect
 * node written anew, a node left with every slot 0 becoming a hole
 * (section 9.2), the top pointer and the direct pointers set in the inode.
 * The replaced pointers leave the reachable set.  Only blocks within the
 * tree's height are changed (a repair never adds blocks). */
#include "fsck_int.h"

#include <stdlib.h>

static int by_bix(const void *a, const void *b)
{
    const struct fk_change *x = a, *y = b;
    return x->bix < y->bix ? -1 : x->bix > y->bix;
}

/* P^e, for node arithmetic within a height of at most 5. */
static uint64_t pw(const struct fk *k, unsigned e)
{
    uint64_t v = 1;
    while (e--)
        v *= k->P;
    return v;
}

/* Read indirect node (level, n) of the current tree into buf (zeros for a
 * hole); *old its pointer.  0, or -1. */
static int old_node(struct fk *k, int cls, uint64_t ino, const struct fk_inode *in,
                    uint8_t level, uint64_t n, uint8_t *buf, uint64_t *old)
{
    uint64_t p = in->indirect;
    uint32_t len;
    for (unsigned lv = in->height; lv > level && p; lv--) {
        if (fk_obj_load(k, p, cls, ino, (uint8_t)lv, n / pw(k, lv - level), &len) ||
            len != k->bs)
            return -1;
        p = le64_get(k->obj + FK_HDR + 8 * (n / pw(k, lv - 1 - level) % k->P));
    }
    *old = p;
    if (!p) {
        memset(buf, 0, k->bs);
        return 0;
    }
    if (fk_obj_load(k, p, cls, ino, level, n, &len) || len != k->bs)
        return -1;
    memcpy(buf, k->obj + FK_HDR, k->bs);
    return 0;
}

/* Version 6: the inode's blocks follow a level-0 pointer from was to now. */
static void count_block(const struct fk *k, struct fk_inode *in, uint64_t was, uint64_t now)
{
    if (k->ver >= FK_VERSION && !was != !now)
        in->blocks = now ? in->blocks + 1 : in->blocks - (in->blocks != 0);
}

int fk_cow(struct fk_writer *w, int cls, uint64_t ino, struct fk_inode *in,
           struct fk_change *ch, size_t n)
{
    struct fk *k = fk_writer_fk(w);
    uint64_t hino = cls == FK_CLS_FILE ? ino : cls == FK_CLS_INODEFILE ? 0 : 1;
    if (n > 1)
        qsort(ch, n, sizeof *ch, by_bix);
    /* the direct blocks; the rest become (node, slot) items of level 1 */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (ch[i].bix < FK_NDIRECT) {
            if (in->direct[ch[i].bix] && in->direct[ch[i].bix] != ch[i].ptr)
                fk_drop_ref(k, in->direct[ch[i].bix]);
            count_block(k, in, in->direct[ch[i].bix], ch[i].ptr);
            in->direct[ch[i].bix] = ch[i].ptr;
        } else if (ch[i].bix < fk_tree_cap(k, in->height)) {
            ch[m].bix = ch[i].bix - FK_NDIRECT; /* j, in place */
            ch[m++].ptr = ch[i].ptr;
        } else {
            return -1; /* outside the tree: not something a repair does */
        }
    }
    uint8_t *buf = malloc(k->bs);
    if (!buf)
        return -1;
    int rc = 0;
    /* items of level L: bix holds the index within level L-1 (j at L=1) */
    for (unsigned level = 1; level <= in->height && m && !rc; level++) {
        size_t out = 0;
        for (size_t i = 0; i < m && !rc;) {
            uint64_t node = ch[i].bix / k->P, old;
            if ((rc = old_node(k, cls, hino, in, (uint8_t)level, node, buf, &old)))
                break;
            for (; i < m && ch[i].bix / k->P == node; i++) {
                uint8_t *slot = buf + 8 * (ch[i].bix % k->P);
                uint64_t was = le64_get(slot);
                if (was && was != ch[i].ptr)
                    fk_drop_ref(k, was);
                if (level == 1)
                    count_block(k, in, was, ch[i].ptr);
                le64_put(slot, ch[i].ptr);
            }
            uint64_t p = 0;
            if (!fk_all(buf, k->bs, 0))
                rc = fk_writer_put(w, fk_area_of(cls, (uint8_t)level), FK_INDIRECT,
                                   (uint8_t)level, hino, node, buf, k->bs, &p);
            if (old)
                fk_drop_ref(k, old);
            ch[out].bix = node;
            ch[out++].ptr = p;
        }
        m = out;
    }
    if (!rc && m) /* the top: node 0 of level `height` */
        in->indirect = ch[0].ptr;
    free(buf);
    return rc;
}

/* dir.c -- directories (FORMAT.md section 13): 4096 hashed buckets as
 * level-0 DATA blocks, each a flags byte and packed entries; a name must
 * be where a lookup's probe finds it, once per directory. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

uint32_t fk_name_hash(const uint8_t *name, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a, 32 bits */
    for (size_t i = 0; i < len; i++)
        h = (h ^ name[i]) * 16777619u;
    return h;
}

void fk_name_str(const uint8_t *name, size_t len, char *buf, size_t n)
{
    size_t o = 0;
    if (n < 8)
        return;
    buf[o++] = '\'';
    for (size_t i = 0; i < len && o + 6 < n; i++) {
        if (name[i] >= 0x20 && name[i] < 0x7f && name[i] != '\'' && name[i] != '\\')
            buf[o++] = (char)name[i];
        else
            o += (size_t)snprintf(buf + o, n - o, "\\x%02x", name[i]);
    }
    buf[o++] = '\'';
    buf[o] = 0;
}

static int bad_name(const uint8_t *s, size_t n)
{
    if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return 1;
    return memchr(s, '/', n) || memchr(s, 0, n);
}

/* One entry of bucket bix at offset off; 0 added, -1 out of memory. */
static int entry(struct fk *k, struct fk_file_walk *c, uint64_t bix, uint64_t ptr,
                 const uint8_t *e, uint32_t off)
{
    uint64_t dir = c->ie->d.ino, ino = le64_get(e);
    uint8_t type = e[8], nl = e[9];
    const uint8_t *name = e + 10;
    char shown[96];
    fk_name_str(name, nl, shown, sizeof shown);
    if (bad_name(name, nl))
        fk_err_at(k, FSCK_K_DIR, ptr >> 16, (int64_t)dir, "directory %" PRIu64
                  " bucket %" PRIu64 " offset %u: invalid name %s", dir, bix, off,
                  shown);
    /* section 13: version 4 adds FIFO 1, chr 2, blk 6, socket 12 */
    int special = type == 1 || type == 2 || type == 6 || type == 12;
    if (type != 4 && type != 8 && type != 10 && !(special && k->ver >= FK_VERSION_V4))
        fk_err_at(k, FSCK_K_DIR, ptr >> 16, (int64_t)dir, "directory %" PRIu64
                  " bucket %" PRIu64 ": entry %s has type %u (%s)", dir,
                  bix, shown, type, k->ver >= FK_VERSION_V4
                  ? "1, 2, 4, 6, 8, 10 or 12" : "4, 8 or 10");
    uint32_t home = fk_name_hash(name, nl) % FK_BUCKETS;
    uint32_t dist = (uint32_t)((bix + FK_BUCKETS - home) % FK_BUCKETS);
    if (dist >= FK_PROBE)
        fk_err_at(k, FSCK_K_DIR, ptr >> 16, (int64_t)dir, "directory %" PRIu64
                  " bucket %" PRIu64 ": entry %s is %u buckets from its home "
                  "bucket %u (at most %u)", dir, bix, shown, dist, home,
                  FK_PROBE - 1);
    if (fk_grow((void **)&k->dents, &k->dents_cap, k->ndents + 1, sizeof *k->dents) ||
        fk_grow((void **)&k->names, &k->names_cap, k->names_len + nl, 1))
        return -1;
    memcpy(k->names + k->names_len, name, nl);
    k->dents[k->ndents++] = (struct fk_dent){
        .dir = dir, .ino = ino, .bucket_ptr = ptr, .bucket = (uint32_t)bix,
        .off = off, .name = (uint32_t)k->names_len, .type = type, .name_len = nl};
    k->names_len += nl;
    return 0;
}

int fk_dir_leaf(struct fk *k, struct fk_file_walk *c, uint64_t bix,
                uint64_t ptr, const uint8_t *payload, uint32_t len)
{
    uint64_t dir = c->ie->d.ino, at = ptr >> 16;
    if (bix >= FK_BUCKETS) {
        fk_err_at(k, FSCK_K_DIR, at, (int64_t)dir, "directory %" PRIu64
                  " has a block %" PRIu64 " past its 4096 buckets", dir, bix);
        return 0;
    }
    if (!payload) {
        c->bucket[bix] = BK_UNREADABLE;
        c->data_lost = 1;
        return 0;
    }
    if (len == 0) {
        c->bucket[bix] = BK_EMPTY;
        fk_msg(k, FSCK_WARNING, FSCK_K_DIR, (int64_t)(at / k->seg_bytes),
               FSCK_NONE, (int64_t)dir, "directory %" PRIu64 " bucket %" PRIu64
               ": an empty bucket was written (a hole expected)", dir, bix);
        return 0;
    }
    uint8_t flags = payload[0];
    if (flags & ~FK_BUCKET_OVERFLOW)
        fk_err_at(k, FSCK_K_DIR, at, (int64_t)dir, "directory %" PRIu64
                  " bucket %" PRIu64 ": flags 0x%02x has unknown bits", dir, bix,
                  flags);
    c->bucket[bix] = flags & FK_BUCKET_OVERFLOW ? BK_OVERFLOW : BK_PLAIN;
    uint32_t off = 1, n = 0;
    while (off < len) {
        if (off + 10 > len || payload[off + 9] == 0 ||
            off + 10 + payload[off + 9] > len) {
            fk_err_at(k, FSCK_K_DIR, at, (int64_t)dir, "directory %" PRIu64
                      " bucket %" PRIu64 ": entry at offset %u runs past the %u "
                      "bytes of the bucket", dir, bix, off, len);
            c->data_lost = 1; /* the rest of the bucket is lost */
            break;
        }
        if (entry(k, c, bix, ptr, payload + off, off)) {
            fk_oper(k, "out of memory", 0);
            return -1;
        }
        off += 10 + payload[off + 9];
        n++;
    }
    if (n == 0 && !(flags & FK_BUCKET_OVERFLOW))
        fk_msg(k, FSCK_WARNING, FSCK_K_DIR, (int64_t)(at / k->seg_bytes),
               FSCK_NONE, (int64_t)dir, "directory %" PRIu64 " bucket %" PRIu64
               ": no entries and no OVERFLOW flag (a hole expected)", dir, bix);
    return 0;
}

struct named { const uint8_t *name; uint8_t len; size_t i; };

static int by_name(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->name, y->name, x->len);
}

/* A lookup of the entry's name visits home, home+1, ... and goes past a
 * bucket only when it has OVERFLOW set. */
static void probe_path(struct fk *k, struct fk_file_walk *c, const struct fk_dent *d)
{
    const uint8_t *name = (const uint8_t *)k->names + d->name;
    uint32_t home = fk_name_hash(name, d->name_len) % FK_BUCKETS;
    uint32_t dist = (d->bucket + FK_BUCKETS - home) % FK_BUCKETS;
    for (uint32_t j = 0; j < dist && j < FK_PROBE; j++) {
        uint32_t b = (home + j) % FK_BUCKETS;
        uint8_t st = c->bucket[b];
        if (st == BK_OVERFLOW || st == BK_UNREADABLE)
            continue;
        char shown[96];
        fk_name_str(name, d->name_len, shown, sizeof shown);
        fk_err_at(k, FSCK_K_DIR, d->bucket_ptr >> 16, (int64_t)d->dir,
                  "directory %" PRIu64 ": entry %s in bucket %u cannot be found "
                  "by a lookup (bucket %u on its probe path %s)", d->dir, shown,
                  d->bucket, b, st == BK_HOLE ? "is a hole"
                              : st == BK_EMPTY ? "is empty" : "has no OVERFLOW flag");
        return;
    }
}

int fk_dir_done(struct fk *k, struct fk_file_walk *c)
{
    struct fk_ient *ie = c->ie;
    size_t n = k->ndents - c->first_dent;
    ie->nentries = (uint32_t)n;
    struct named *v = n ? malloc(n * sizeof *v) : NULL;
    if (n && !v) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const struct fk_dent *d = &k->dents[c->first_dent + i];
        probe_path(k, c, d);
        v[i] = (struct named){(const uint8_t *)k->names + d->name, d->name_len,
                              c->first_dent + i};
    }
    if (n > 1)
        qsort(v, n, sizeof *v, by_name);
    for (size_t i = 1; i < n; i++)
        if (!by_name(&v[i - 1], &v[i])) {
            char shown[96];
            fk_name_str(v[i].name, v[i].len, shown, sizeof shown);
            fk_msg(k, FSCK_ERROR, FSCK_K_DIR, FSCK_NONE, FSCK_NONE,
                   (int64_t)ie->d.ino, "directory %" PRIu64 ": name %s appears "
                   "twice (buckets %u and %u)", ie->d.ino, shown,
                   k->dents[v[i - 1].i].bucket, k->dents[v[i].i].bucket);
        }
    free(v);
    /* section 13: size is the number of entries */
    if (!c->data_lost && ie->d.size != n) {
        size_t m = fk_msg(k, FSCK_ERROR, FSCK_K_DIR, FSCK_NONE, FSCK_NONE,
                          (int64_t)ie->d.ino, "directory %" PRIu64 ": size %"
                          PRIu64 " but %zu entries", ie->d.ino, ie->d.size, n);
        ie->fix |= FK_FIX_SIZE;
        fk_plan(k, m);
    }
    return 0;
}

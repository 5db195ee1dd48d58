/*
 * dir.c -- directories: a sparse file whose block b is the bucket of the
 * names that hash to b.
 *
 * Buckets: DIR_BUCKETS of them, a name's bucket is its 32-bit FNV-1a hash
 * modulo that.  Bucket payload: u8 flags (bit 0: a name once overflowed
 * into the next bucket), then entries of u64 inode, u8 type, u8 name length, the name.
 * Lookup reads one bucket through the tree, whatever the directory's size
 * (plus the next ones while the overflow flag says a name may have moved
 * on, which takes a full bucket of colliding hashes).  The directory's
 * size field counts its entries.
 */
#include "tree.h"

#include <errno.h>

#define BUCKET_OVERFLOW 1u
#define ENT_FIXED 10u /* inode, type, name length */
#define MAX_PROBE 64u

static uint64_t name_hash(const char *name, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    return h;
}

/* A fixed number of buckets: enough that 100,000 short names average
 * about 25 to a bucket (one bucket read per lookup), few enough that the
 * directory's tree stays two levels deep and its indirect blocks are
 * shared by many entries.  Growing the range with the directory (as Linux
 * LogFS did) would save small directories their indirect blocks. */
#define DIR_BUCKETS 4096u

static uint64_t bucket_range(const struct logfs *fs)
{
    (void)fs;
    return DIR_BUCKETS;
}

/* Whether a whole entry starts at off in bucket n: a damaged bucket's
 * last entry may claim a name past its end, and is not read. */
static int entry_at(const struct lfs_node *n, uint32_t off)
{
    return off + ENT_FIXED <= n->len && off + ENT_FIXED + n->data[off + 9] <= n->len;
}

/* Find name in bucket node n: offset of its entry, or -1. */
static int64_t bucket_find(const struct lfs_node *n, const char *name, size_t len)
{
    for (uint32_t off = 1; entry_at(n, off);) {
        uint32_t nl = n->data[off + 9];
        if (nl == len && !memcmp(n->data + off + ENT_FIXED, name, len))
            return off;
        off += ENT_FIXED + nl;
    }
    return -1;
}

/* The bucket holding name and the entry's offset in it: follows the
 * overflow chain from the name's own bucket.  -ENOENT if absent. */
static int dir_find(struct logfs *fs, struct lfs_inode *dir, const char *name,
                    size_t len, struct lfs_node **bucket, uint64_t *bix, int64_t *off)
{
    uint64_t range = bucket_range(fs), b = name_hash(name, len) % range;
    for (unsigned probe = 0; probe < MAX_PROBE; probe++, b = (b + 1) % range) {
        struct lfs_node *n;
        int rc = lfs_tree_get(fs, dir, 0, b, 0, &n);
        if (rc)
            return rc;
        if (!n || n->len == 0)
            return -ENOENT;
        if ((*off = bucket_find(n, name, len)) >= 0) {
            *bucket = n;
            *bix = b;
            return 0;
        }
        if (!(n->data[0] & BUCKET_OVERFLOW))
            return -ENOENT;
    }
    return -ENOENT;
}

int lfs_dir_lookup(struct logfs *fs, struct lfs_inode *dir, const char *name,
                   size_t len, uint64_t *ino, uint8_t *type)
{
    struct lfs_node *n;
    uint64_t b;
    int64_t off;
    int rc = dir_find(fs, dir, name, len, &n, &b, &off);
    if (rc)
        return rc;
    *ino = le64_get(n->data + off);
    if (type)
        *type = n->data[off + 8];
    return 0;
}

int lfs_dir_add(struct logfs *fs, struct lfs_inode *dir, const char *name,
                size_t len, uint64_t ino, uint8_t type)
{
    uint64_t range = bucket_range(fs), b = name_hash(name, len) % range;
    uint32_t need = ENT_FIXED + (uint32_t)len;
    for (unsigned probe = 0; probe < MAX_PROBE; probe++, b = (b + 1) % range) {
        struct lfs_node *n;
        int rc = lfs_tree_get(fs, dir, 0, b, 1, &n);
        if (rc)
            return rc;
        if (n->len == 0)
            n->len = 1; /* flags byte */
        if (n->len + need > fs->g.block_size) {
            n->data[0] |= BUCKET_OVERFLOW;
            lfs_node_dirty(fs, n);
            continue;
        }
        uint8_t *e = n->data + n->len;
        le64_put(e, ino);
        e[8] = type;
        e[9] = (uint8_t)len;
        memcpy(e + ENT_FIXED, name, len);
        n->len += need;
        lfs_node_dirty(fs, n);
        dir->size++;
        lfs_inode_dirty(fs, dir);
        return 0;
    }
    return -ENOSPC;
}

int lfs_dir_remove(struct logfs *fs, struct lfs_inode *dir, const char *name,
                   size_t len)
{
    struct lfs_node *n;
    uint64_t b;
    int64_t off;
    int rc = dir_find(fs, dir, name, len, &n, &b, &off);
    if (rc)
        return rc;
    uint32_t elen = ENT_FIXED + n->data[off + 9];
    memmove(n->data + off, n->data + off + elen, n->len - off - elen);
    n->len -= elen;
    memset(n->data + n->len, 0, elen);
    dir->size--;
    lfs_inode_dirty(fs, dir);
    if (n->len == 1 && !(n->data[0] & BUCKET_OVERFLOW))
        return lfs_tree_punch(fs, dir, b); /* an empty bucket goes */
    lfs_node_dirty(fs, n);
    return 0;
}

/* A name's place within its bucket for readdir: 48 bits of a second hash,
 * so that a cookie names an entry by what it is, not by where it sits (an
 * index would shift when an earlier entry of the bucket is deleted). */
static uint64_t name_key(const uint8_t *name, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a, 64 bits */
    for (size_t i = 0; i < len; i++)
        h = (h ^ name[i]) * 0x100000001b3ULL;
    return h >> 16;
}

/* The entry of bucket n with the smallest key >= min: its offset, or -1. */
static int64_t next_in_bucket(const struct lfs_node *n, uint64_t min, uint64_t *key)
{
    int64_t best = -1;
    for (uint32_t off = 1; n && entry_at(n, off);) {
        uint32_t nl = n->data[off + 9];
        uint64_t k = name_key(n->data + off + ENT_FIXED, nl);
        if (k >= min && (best < 0 || k < *key)) {
            best = off;
            *key = k;
        }
        off += ENT_FIXED + nl;
    }
    return best;
}

/* Call fn for entries from position *cookie on (bucket << 48 | name key),
 * in bucket order and by key within a bucket; fn returns nonzero to stop,
 * and *cookie then names that entry.  Entries added or removed meanwhile
 * do not make others be skipped or repeated. */
int lfs_dir_iterate(struct logfs *fs, struct lfs_inode *dir, uint64_t *cookie,
                    int (*fn)(void *ctx, const char *name, size_t len,
                              uint64_t ino, uint8_t type),
                    void *ctx)
{
    uint64_t b = *cookie >> 48, min = *cookie & 0xffffffffffffULL;
    for (;;) {
        uint64_t found;
        int rc = lfs_tree_next(fs, dir, b, &found);
        if (rc)
            return rc;
        if (found == UINT64_MAX) {
            *cookie = UINT64_MAX;
            return 0;
        }
        if (found != b)
            min = 0;
        b = found;
        for (;;) {
            struct lfs_node *n;
            uint64_t key = 0;
            if ((rc = lfs_tree_get(fs, dir, 0, b, 0, &n)))
                return rc;
            int64_t off = next_in_bucket(n, min, &key);
            if (off < 0)
                break;
            *cookie = b << 48 | key;
            /* copy out: fn may call back into the fs */
            uint32_t nl = n->data[off + 9];
            char name[LFS_NAME_MAX_BYTES + 1];
            memcpy(name, n->data + off + ENT_FIXED, nl);
            name[nl] = 0;
            uint64_t ino = le64_get(n->data + off);
            uint8_t type = n->data[off + 8];
            if (fn(ctx, name, nl, ino, type))
                return 0;
            min = key + 1;
        }
        b++;
        min = 0;
    }
}

/*
 * dir.c -- directories: a file of fixed 264-byte slots (ino, type,
 * name length, name), searched linearly.  A new name takes the first free
 * slot; the inode's slots field is the high-water mark and its size the
 * number of names.  The readdir cookie is a slot number, so entries added
 * or removed meanwhile never make others be skipped or repeated.
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Slot s's block into buf (zeros for a hole); *blk its fs block. */
static int slot_block(struct blockfs *fs, uint32_t dir, uint32_t s, int alloc,
                      uint8_t *buf, uint32_t *blk)
{
    int fresh;
    int rc = bf_bmap(fs, dir, s / fs->epb, alloc, blk, &fresh);
    if (rc)
        return rc;
    if (!*blk || fresh) {
        memset(buf, 0, fs->bs);
        return 0;
    }
    return bf_read_block(fs, *blk, buf);
}

static struct bf_dirent *ent_at(struct blockfs *fs, uint8_t *buf, uint32_t s)
{
    return (struct bf_dirent *)(buf + (size_t)(s % fs->epb) * sizeof(struct bf_dirent));
}

/* Call fn(ctx, slot, entry) on used slots from *s on, block by block;
 * fn returns nonzero to stop (then *s is that slot). */
static int scan(struct blockfs *fs, uint32_t dir, uint32_t *s,
                int (*fn)(void *ctx, uint32_t slot, const struct bf_dirent *e), void *ctx)
{
    uint8_t *buf = malloc(fs->bs);
    if (!buf)
        return -ENOMEM;
    int rc = 0, stop = 0;
    uint32_t blk;
    for (uint32_t i = *s; i < fs->itab[dir].slots && !rc && !stop;) {
        if ((rc = slot_block(fs, dir, i, 0, buf, &blk)))
            break;
        uint32_t end = (i / fs->epb + 1) * fs->epb;
        for (; i < end && i < fs->itab[dir].slots; i++) {
            const struct bf_dirent *e = ent_at(fs, buf, i);
            if (!e->ino)
                continue;
            if (e->ino >= fs->sb.inodes || !e->len) {
                rc = -EIO;
                break;
            }
            if ((stop = fn(ctx, i, e))) {
                *s = i;
                break;
            }
        }
    }
    if (!stop)
        *s = UINT32_MAX;
    free(buf);
    return rc;
}

struct find_ctx {
    const char *name;
    size_t len;
    uint32_t ino;
};

static int find_one(void *ctx, uint32_t slot, const struct bf_dirent *e)
{
    struct find_ctx *f = ctx;
    (void)slot;
    if (e->len != f->len || memcmp(e->name, f->name, f->len))
        return 0;
    f->ino = e->ino;
    return 1;
}

/* -ENOENT if absent. */
int bf_dir_lookup(struct blockfs *fs, uint32_t dir, const char *name, size_t len,
                  uint32_t *ino, uint32_t *slot)
{
    struct find_ctx f = {name, len, 0};
    uint32_t s = 0;
    int rc = scan(fs, dir, &s, find_one, &f);
    if (rc)
        return rc;
    if (!f.ino)
        return -ENOENT;
    *ino = f.ino;
    *slot = s;
    return 0;
}

static int write_slot(struct blockfs *fs, uint32_t dir, uint32_t s, int alloc,
                      const struct bf_dirent *e)
{
    uint8_t *buf = malloc(fs->bs);
    if (!buf)
        return -ENOMEM;
    uint32_t blk;
    int rc = slot_block(fs, dir, s, alloc, buf, &blk);
    if (!rc && !blk)
        rc = -EIO;
    if (!rc) {
        memcpy(ent_at(fs, buf, s), e, sizeof *e);
        rc = bf_write_block(fs, blk, buf);
    }
    free(buf);
    return rc;
}

/* The first free slot below the high-water mark, or the mark. */
static int free_slot(struct blockfs *fs, uint32_t dir, uint32_t *out)
{
    uint8_t *buf = malloc(fs->bs);
    if (!buf)
        return -ENOMEM;
    int rc = 0;
    uint32_t blk, s = 0, n = fs->itab[dir].slots;
    for (; s < n && !rc; s++) {
        if (s % fs->epb == 0 && (rc = slot_block(fs, dir, s, 0, buf, &blk)))
            break;
        if (!ent_at(fs, buf, s)->ino)
            break;
    }
    free(buf);
    *out = s;
    return rc;
}

int bf_dir_add(struct blockfs *fs, uint32_t dir, const char *name, size_t len,
               uint32_t ino, uint32_t mode)
{
    struct bf_inode *d = &fs->itab[dir];
    uint32_t s;
    uint64_t need;
    int rc = free_slot(fs, dir, &s);
    if (!rc)
        rc = bf_needs(fs, dir, s / fs->epb, s / fs->epb, &need);
    if (rc)
        return rc;
    if (need > fs->sb.free_blocks)
        return -ENOSPC;
    struct bf_dirent e;
    memset(&e, 0, sizeof e);
    e.ino = ino;
    e.type = (uint8_t)(mode >> 12);
    e.len = (uint8_t)len;
    memcpy(e.name, name, len);
    if ((rc = write_slot(fs, dir, s, 1, &e)))
        return rc;
    if (s == d->slots)
        d->slots++;
    d->size++;
    d->mtime = d->ctime = bf_now(fs);
    bf_idirty(fs, dir);
    return 0;
}

/* Point slot at another inode (rename over an existing name). */
int bf_dir_set(struct blockfs *fs, uint32_t dir, uint32_t slot, uint32_t ino,
               uint32_t mode)
{
    uint8_t *buf = malloc(fs->bs);
    if (!buf)
        return -ENOMEM;
    uint32_t blk;
    int rc = slot_block(fs, dir, slot, 0, buf, &blk);
    if (!rc && !blk)
        rc = -EIO;
    if (!rc) {
        struct bf_dirent *e = ent_at(fs, buf, slot);
        e->ino = ino;
        e->type = (uint8_t)(mode >> 12);
        rc = bf_write_block(fs, blk, buf);
    }
    free(buf);
    if (!rc) {
        fs->itab[dir].mtime = fs->itab[dir].ctime = bf_now(fs);
        bf_idirty(fs, dir);
    }
    return rc;
}

/* Clear a slot; an emptied directory gives its blocks back. */
int bf_dir_remove(struct blockfs *fs, uint32_t dir, uint32_t slot)
{
    struct bf_inode *d = &fs->itab[dir];
    struct bf_dirent e;
    memset(&e, 0, sizeof e);
    int rc = write_slot(fs, dir, slot, 0, &e);
    if (rc)
        return rc;
    if (d->size)
        d->size--;
    if (!d->size) {
        rc = bf_free_range(fs, dir, 0, UINT64_MAX);
        d->slots = 0;
    }
    d->mtime = d->ctime = bf_now(fs);
    bf_idirty(fs, dir);
    return rc;
}

struct iter_ctx {
    fs_dir_fn fn;
    void *ctx;
};

static int iter_one(void *ctx, uint32_t slot, const struct bf_dirent *e)
{
    struct iter_ctx *c = ctx;
    char name[BF_NAME_MAX + 1];
    (void)slot;
    memcpy(name, e->name, e->len); /* copy out: fn may call into the fs */
    name[e->len] = 0;
    return c->fn(c->ctx, name, e->ino, (uint32_t)e->type << 12);
}

/* The cookie is the slot to start at; UINT64_MAX once at the end. */
int bf_dir_iterate(struct blockfs *fs, uint32_t dir, uint64_t *cookie,
                   fs_dir_fn fn, void *ctx)
{
    if (*cookie >= UINT32_MAX)
        return 0;
    struct iter_ctx c = {fn, ctx};
    uint32_t s = (uint32_t)*cookie;
    int rc = scan(fs, dir, &s, iter_one, &c);
    if (!rc)
        *cookie = s == UINT32_MAX ? UINT64_MAX : s;
    return rc;
}

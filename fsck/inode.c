/* inode.c -- the inode file (FORMAT.md section 11) and the trees of
 * regular files and symbolic links (sections 9.1, 10): every inode record,
 * its mode and reserved fields, its size against its blocks. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdlib.h>

struct fk_ient *fk_find_ino(struct fk *k, uint64_t ino)
{
    size_t lo = 0, hi = k->nino;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->ino[mid].d.ino < ino)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->nino && k->ino[lo].d.ino == ino ? &k->ino[lo] : NULL;
}

static int ino_leaf(struct fk *k, void *ctx, uint64_t bix, uint64_t ptr,
                    const uint8_t *payload, uint32_t len)
{
    (void)ctx;
    if (bix < FK_INO_ROOT) { /* section 11: blocks 0 and 1 are holes */
        fk_err_at(k, FSCK_K_INODE, ptr >> 16, (int64_t)bix,
                  "inode file block %" PRIu64 " must be a hole (that inode is "
                  "in the anchor)", bix);
        return 0;
    }
    struct fk_ient e;
    memset(&e, 0, sizeof e);
    e.ptr = ptr;
    if (!payload) {
        e.broken = 1;
    } else if (len != k->ib) { /* section 9.3: never trimmed */
        fk_err_at(k, FSCK_K_INODE, ptr >> 16, (int64_t)bix,
                  "inode %" PRIu64 ": inode object of %u bytes, not %u", bix, len,
                  k->ib);
        e.broken = 1;
    } else {
        fk_inode_decode(payload, &e.d, k->ib);
        if (e.d.ino != bix) {
            fk_err_at(k, FSCK_K_INODE, ptr >> 16, (int64_t)bix,
                      "inode %" PRIu64 ": its record says ino %" PRIu64, bix,
                      e.d.ino);
            e.broken = 1;
        } else if (e.d.height > FK_MAX_HEIGHT) {
            fk_err_at(k, FSCK_K_INODE, ptr >> 16, (int64_t)bix,
                      "inode %" PRIu64 ": height %u is above 5", bix, e.d.height);
            e.broken = 1;
        }
    }
    if (e.broken) {
        memset(&e.d, 0, sizeof e.d);
        k->incomplete = 1;
    }
    e.d.ino = bix;
    if (k->nino && k->ino[k->nino - 1].d.ino >= bix)
        return 0; /* cannot happen in a walk: blocks come in order */
    if (fk_grow((void **)&k->ino, &k->ino_cap, k->nino + 1, sizeof *k->ino)) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    k->ino[k->nino++] = e;
    return 0;
}

/* Fields of one record that need nothing but the record. */
static void record(struct fk *k, struct fk_ient *ie)
{
    const struct fk_inode *d = &ie->d;
    int64_t n = (int64_t)d->ino;
    uint32_t t = d->mode & FK_IFMT;
    int special = fk_is_special(d->mode) && k->ver >= FK_VERSION_V4;
    if (t != FK_IFREG && t != FK_IFDIR && t != FK_IFLNK && !special)
        fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
               "inode %" PRIu64 ": mode 0%o is not a regular file, directory%s "
               "symbolic link", d->ino, d->mode,
               k->ver >= FK_VERSION_V4 ? ", FIFO, socket, device or" : " or");
    /* section 13a: a special file has size 0 and no blocks */
    int ptrs = d->indirect || d->height;
    for (unsigned i = 0; i < FK_NDIRECT; i++)
        ptrs |= d->direct[i] != 0;
    if (special && (d->size || ptrs))
        fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
               "inode %" PRIu64 ": special file (mode 0%o) with size %" PRIu64
               "%s (size 0 and no blocks expected)", d->ino, d->mode, d->size,
               ptrs ? " and block pointers" : "");
    /* section 9.4: rdev only on character and block devices */
    if (d->rdev && t != FK_IFCHR && t != FK_IFBLK)
        fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
               "inode %" PRIu64 ": rdev %#" PRIx64 " on a file that is not a "
               "device (mode 0%o)", d->ino, d->rdev, d->mode);
    if (d->flags & ~(FK_INODE_XATTRS | FK_INODE_ATTRS))
        fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
               "inode %" PRIu64 ": flags %#x has unknown bits (LogFS refuses the "
               "record)", d->ino, d->flags);
    else if ((d->flags & FK_INODE_ATTRS) && k->ver < FK_VERSION)
        fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
               "inode %" PRIu64 ": chattr flags %#x in a version-%u image (version 6 "
               "added them)", d->ino, d->flags & FK_INODE_ATTRS, k->ver);
    if (d->ino == FK_INO_ROOT && t != FK_IFDIR)
        fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
               "inode 2 (the root) is not a directory (mode 0%o)", d->mode);
    int blocks_resv = k->ver < FK_VERSION && d->blocks; /* reserved before 6 */
    if (d->resv[0] || d->resv[1] || d->resv[2] || d->generation || !d->resv2_zero ||
        blocks_resv)
        fk_msg(k, FSCK_WARNING, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, n,
               "inode %" PRIu64 ": reserved fields (bytes 53..55, generation, "
               "bytes %u..255) are not zero", d->ino, k->ver < FK_VERSION ? 224 : 232);
    if (d->ino >= k->an.next_ino) {
        size_t m = fk_msg(k, FSCK_ERROR, FSCK_K_COUNTER, FSCK_NONE, FSCK_NONE, n,
                          "inode %" PRIu64 " exists, but the anchor's next_ino is "
                          "%" PRIu64 " (numbers are never reused)", d->ino,
                          k->an.next_ino);
        fk_plan(k, m);
    }
}

int fk_load_inodes(struct fk *k)
{
    int complete = 1;
    if (fk_walk(k, FK_CLS_INODEFILE, 0, &k->an.inodefile, ino_leaf, NULL, &complete))
        return -1;
    if (complete)
        fk_check_blocks(k, &k->an.inodefile, FSCK_NONE);
    if (!complete) {
        k->incomplete = 1;
        fk_msg(k, FSCK_WARNING, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "inode file: part of its tree cannot be read; the inodes under "
               "it are not checked");
    }
    for (size_t i = 0; i < k->nino; i++)
        if (!k->ino[i].broken)
            record(k, &k->ino[i]);
    fk_check_xattr_names(k);
    struct fk_ient *root = fk_find_ino(k, FK_INO_ROOT);
    if (!root) {
        fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE, FK_INO_ROOT,
               "inode 2 (the root directory) does not exist");
        k->incomplete = 1;
    }
    return 0;
}

/* ---- the trees of files ------------------------------------------------- */

static int file_leaf(struct fk *k, void *ctx, uint64_t bix, uint64_t ptr,
                     const uint8_t *payload, uint32_t len)
{
    struct fk_file_walk *c = ctx;
    const struct fk_inode *d = &c->ie->d;
    int64_t n = (int64_t)d->ino;
    uint64_t at = ptr >> 16;
    c->blocks++;
    if (!payload) {
        c->data_lost = 1;
        return 0;
    }
    if (len && !payload[len - 1]) /* section 9.1: trailing zeros dropped */
        fk_msg(k, FSCK_WARNING, FSCK_K_TREE, (int64_t)(at / k->seg_bytes),
               (int64_t)(at % k->seg_bytes / k->ps), n, "inode %" PRIu64
               " block %" PRIu64 ": payload ends in a zero byte (not trimmed)",
               d->ino, bix);
    if (c->xlist && bix * k->bs < c->xlen) {
        uint64_t n2 = c->xlen - bix * k->bs;
        memcpy(c->xlist + bix * k->bs, payload, len < n2 ? len : n2);
    }
    if ((d->mode & FK_IFMT) == FK_IFLNK) {
        /* the target is stored as file data: with small blocks it spans
         * blocks 0, 1, ...; it holds no NUL, so no block is trimmed */
        uint64_t want = bix * k->bs >= d->size ? 0
                      : d->size - bix * k->bs < k->bs ? d->size - bix * k->bs : k->bs;
        if (!want)
            fk_err_at(k, FSCK_K_INODE, at, n, "symbolic link inode %" PRIu64
                      " has a block %" PRIu64 " past its %" PRIu64 "-byte target",
                      d->ino, bix, d->size);
        else if (len != want || memchr(payload, 0, len))
            fk_err_at(k, FSCK_K_INODE, at, n, "symbolic link inode %" PRIu64
                      " block %" PRIu64 ": %u bytes of target%s, %" PRIu64
                      " expected", d->ino, bix, len,
                      memchr(payload, 0, len) ? " holding a NUL" : "", want);
        return 0;
    }
    /* not said by FORMAT.md, but what truncate leaves (docs/fsck.md) */
    if (bix >= (d->size + k->bs - 1) / k->bs)
        fk_msg(k, FSCK_WARNING, FSCK_K_TREE, (int64_t)(at / k->seg_bytes),
               (int64_t)(at % k->seg_bytes / k->ps), n, "inode %" PRIu64
               " block %" PRIu64 " lies past the end of the file (size %" PRIu64
               ")", d->ino, bix, d->size);
    else if (bix * k->bs + len > d->size)
        fk_msg(k, FSCK_WARNING, FSCK_K_TREE, (int64_t)(at / k->seg_bytes),
               (int64_t)(at % k->seg_bytes / k->ps), n, "inode %" PRIu64
               " block %" PRIu64 ": non-zero bytes past the end of the file "
               "(size %" PRIu64 ")", d->ino, bix, d->size);
    return 0;
}

static int dir_leaf(struct fk *k, void *ctx, uint64_t bix, uint64_t ptr,
                    const uint8_t *payload, uint32_t len)
{
    struct fk_file_walk *c = ctx;
    c->blocks++;
    return fk_dir_leaf(k, c, bix, ptr, payload, len);
}

int fk_check_files(struct fk *k)
{
    struct fk_file_walk *c = malloc(sizeof *c);
    if (!c) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < k->nino && !rc; i++) {
        struct fk_ient *ie = &k->ino[i];
        if (ie->broken)
            continue;
        uint32_t t = ie->d.mode & FK_IFMT;
        int complete = 1, dir = t == FK_IFDIR;
        k->rep->inodes++;
        k->rep->files += t == FK_IFREG;
        k->rep->dirs += dir;
        k->rep->symlinks += t == FK_IFLNK;
        memset(c, 0, sizeof *c);
        c->ie = ie;
        c->first_dent = k->ndents;
        if (fk_is_xattr_inode(ie)) {
            c->xlen = ie->d.size < FK_XATTR_LIST_MAX ? ie->d.size : FK_XATTR_LIST_MAX;
            c->xlist = calloc(1, c->xlen + 1); /* holes read as zeros */
            if (!c->xlist) {
                fk_oper(k, "out of memory", 0);
                rc = -1;
                break;
            }
        }
        rc = fk_walk(k, FK_CLS_FILE, ie->d.ino, &ie->d, dir ? dir_leaf : file_leaf,
                     c, &complete);
        if (rc)
            break;
        if (!complete) /* refs under a lost indirect block are unknown */
            k->walk_lost = 1;
        else
            fk_check_blocks(k, &ie->d, (int64_t)ie->d.ino);
        ie->prealloc = k->walk_prealloc;
        ie->walked_ok = complete && !c->data_lost;
        if (c->xlist) {
            fk_check_xattr_list(k, ie, c->xlist, c->xlen, ie->walked_ok);
            free(c->xlist);
            c->xlist = NULL;
        }
        if (dir && ie->d.height > 2) /* section 13: 4096 buckets need 2 */
            fk_msg(k, FSCK_WARNING, FSCK_K_DIR, FSCK_NONE, FSCK_NONE,
                   (int64_t)ie->d.ino, "directory %" PRIu64 ": tree height %u "
                   "(at most 2 expected)", ie->d.ino, ie->d.height);
        if (dir) {
            if (!ie->walked_ok)
                k->incomplete = 1; /* entries lost: link counts unknown */
            if ((rc = fk_dir_done(k, c)))
                break;
        } else if (t == FK_IFLNK && (ie->d.size == 0 || ie->d.size > 4095 ||
                                      c->blocks != (ie->d.size + k->bs - 1) / k->bs)) {
            fk_msg(k, FSCK_ERROR, FSCK_K_INODE, FSCK_NONE, FSCK_NONE,
                   (int64_t)ie->d.ino, "symbolic link inode %" PRIu64 ": size %"
                   PRIu64 " in %" PRIu64 " blocks (a target is 1..4095 bytes, "
                   "without holes)", ie->d.ino, ie->d.size, c->blocks);
        }
    }
    free(c->xlist);
    free(c);
    return rc;
}

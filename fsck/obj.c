/* obj.c -- following a block pointer: the checks of FORMAT.md section 4
 * on the pointer, then section 8 on the header and the payload CRC. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdio.h>

void fk_place(char *buf, size_t n, int cls, uint64_t ino, uint8_t level,
              uint64_t bix)
{
    const char *file = cls == FK_CLS_INODEFILE ? "inode file"
                     : cls == FK_CLS_SEGFILE   ? "segment file"
                                               : NULL;
    char owner[48];
    if (file)
        snprintf(owner, sizeof owner, "%s", file);
    else
        snprintf(owner, sizeof owner, "inode %" PRIu64, ino);
    if (level == 0 && cls == FK_CLS_INODEFILE)
        snprintf(buf, n, "inode file block %" PRIu64 " (inode %" PRIu64 ")",
                 bix, bix);
    else if (level == 0)
        snprintf(buf, n, "%s block %" PRIu64, owner, bix);
    else
        snprintf(buf, n, "%s level-%u node %" PRIu64, owner, level, bix);
}

/* The inode a message about this place is about, or FSCK_NONE. */
static int64_t msg_ino(int cls, uint64_t ino, uint8_t level, uint64_t bix)
{
    if (cls == FK_CLS_FILE)
        return (int64_t)ino;
    if (cls == FK_CLS_INODEFILE && level == 0)
        return (int64_t)bix;
    return FSCK_NONE;
}

static uint64_t owner_ino(int cls, uint64_t ino)
{
    return cls == FK_CLS_FILE ? ino : cls == FK_CLS_INODEFILE ? 0 : 1;
}

int fk_ptr_check(struct fk *k, uint64_t p, int cls, uint64_t ino, uint8_t level,
                 uint64_t bix)
{
    char where[96];
    uint64_t addr = p >> 16;
    uint32_t len = (uint32_t)(p & 0xffff);
    uint64_t seg = addr / k->seg_bytes;
    const char *why = NULL;
    if (p == 1)
        why = "is 1 (LFS_PTR_PENDING), which must never be on flash";
    else if (len < FK_HDR || len > FK_HDR + k->bs)
        why = "has a length outside 48..48+block_size";
    else if (seg >= k->nblocks)
        why = "points past the device";
    else if (addr % k->seg_bytes + len > k->seg_bytes)
        why = "names an object crossing its segment's end";
    else if (p == FK_PREALLOC(k->bs) && k->ver >= FK_VERSION)
        why = "is a preallocated block, which only a regular file's data block "
              "may be";
    else if (seg == 0)
        why = "points into block 0 (the superblock)";
    else if (seg == k->sb.backup_block)
        why = "points into the backup superblock block";
    for (uint32_t i = 0; !why && i < k->sb.anchor_count; i++)
        if (seg == k->sb.anchor_blocks[i])
            why = "points into an anchor ring block";
    if (why) {
        fk_place(where, sizeof where, cls, ino, level, bix);
        fk_msg(k, FSCK_ERROR, FSCK_K_POINTER,
               seg < k->nblocks ? (int64_t)seg : FSCK_NONE, FSCK_NONE,
               msg_ino(cls, ino, level, bix), "%s: pointer 0x%016" PRIx64 " %s",
               where, p, why);
        return -1;
    }
    if (fk_add_ref(k, p, cls, owner_ino(cls, ino), level, bix)) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    return 0;
}

/* Section 9.1a: a compressed payload (its CRC already checked, over the
 * stored bytes) is decompressed in place, to exactly raw_len bytes. */
static int unpack(struct fk *k, const struct fk_obj *o, uint64_t addr, int64_t mino,
                  const char *where, uint32_t *len)
{
    const char *why = NULL;
    if (k->ver < FK_VERSION_V5)
        why = "a compressed object in an image of version 4 or older";
    else if (o->type != FK_DATA)
        why = "compression on an object that is not a data block";
    else if (o->compr >= FK_COMPR_METHODS)
        why = "an unknown compression method";
    else if (o->raw_len == 0 || o->raw_len > k->bs)
        why = "a decompressed length outside 1..block_size";
    else if (o->raw_len <= o->len)
        why = "a compressed payload no shorter than its data";
    if (why) {
        fk_err_at(k, FSCK_K_HEADER, addr, mino, "%s: method %u, %u bytes stored for %u (%s)",
                  why, o->compr, o->len, o->raw_len, where);
        return -1;
    }
    if (fk_unpack(o->compr, k->obj + FK_HDR, o->len, k->unz, o->raw_len)) {
        fk_err_at(k, FSCK_K_CRC, addr, mino,
                  "%s stream does not decompress to its %u bytes (%s)",
                  fk_compr_name(o->compr), o->raw_len, where);
        return -1;
    }
    memcpy(k->obj + FK_HDR, k->unz, o->raw_len);
    *len = o->raw_len;
    return 0;
}

int fk_obj_load(struct fk *k, uint64_t p, int cls, uint64_t ino, uint8_t level,
                uint64_t bix, uint32_t *len)
{
    char where[96];
    uint64_t addr = p >> 16, bad;
    uint32_t total = (uint32_t)(p & 0xffff);
    uint8_t type = level ? FK_INDIRECT : cls == FK_CLS_INODEFILE ? FK_INODE : FK_DATA;
    uint64_t hino = owner_ino(cls, ino);
    int64_t mino = msg_ino(cls, ino, level, bix);
    fk_place(where, sizeof where, cls, ino, level, bix);
    int rc = fk_read(k, addr, k->obj, total, &bad);
    if (rc && fk_is_oper_err(rc)) {
        fk_oper(k, "reading an object", rc);
        return -1;
    }
    if (rc) {
        fk_err_at(k, FSCK_K_READ, bad, mino, "unreadable (%s), holding %s",
                  nand_strerror(rc), where);
        return -1;
    }
    struct fk_obj o;
    int d = fk_obj_decode(k->obj, &o);
    if (d == -1) {
        fk_err_at(k, FSCK_K_HEADER, addr, mino, "%s for %s",
                  fk_all(k->obj, FK_HDR, 0xff) ? "erased, no object header"
                                               : "no object header (bad magic)",
                  where);
        return -1;
    }
    if (d == -2) {
        fk_err_at(k, FSCK_K_HEADER, addr, mino,
                  "object header CRC mismatch (%s)", where);
        return -1;
    }
    if (d == -3) {
        fk_err_at(k, FSCK_K_HEADER, addr, mino,
                  "invalid object header: type %u, level %u, length %u (%s)",
                  o.type, o.level, o.len, where);
        return -1;
    }
    if (o.type != type || o.ino != hino || o.level != level || o.bix != bix) {
        char got[96];
        fk_place(got, sizeof got, o.ino == 0 ? FK_CLS_INODEFILE
                                  : o.ino == 1 ? FK_CLS_SEGFILE : FK_CLS_FILE,
                 o.ino, o.level, o.bix);
        fk_err_at(k, FSCK_K_HEADER, addr, mino,
                  "object header says %s (type %u), expected %s (type %u)", got,
                  o.type, where, type);
        return -1;
    }
    if (o.len != total - FK_HDR) {
        fk_err_at(k, FSCK_K_HEADER, addr, mino,
                  "object length %u, the pointer says %u (%s)", o.len,
                  total - FK_HDR, where);
        return -1;
    }
    if (o.seq > k->an.seq)
        fk_err_at(k, FSCK_K_TREE, addr, mino,
                  "object seq %" PRIu64 " is newer than the anchor's %" PRIu64
                  " (%s)", o.seq, k->an.seq, where);
    if (o.resv || (!o.compr && o.raw_len)) {
        char at[96];
        fk_where(k, addr, at, sizeof at);
        fk_msg(k, FSCK_WARNING, FSCK_K_HEADER, (int64_t)(addr / k->seg_bytes),
               (int64_t)(addr % k->seg_bytes / k->ps), mino,
               "%s: reserved header bytes are not zero (%s)", at, where);
    }
    if (fk_crc(k->obj + FK_HDR, o.len) != o.pcrc) {
        fk_err_at(k, FSCK_K_CRC, addr, mino, "payload CRC mismatch (%s)", where);
        return -1;
    }
    *len = o.len;
    return o.compr ? unpack(k, &o, addr, mino, where, len) : 0;
}

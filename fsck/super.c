/* super.c -- the superblock and its copy (FORMAT.md sections 2 and 5):
 * found the way a mount finds it, then checked field by field and against
 * the device. */
#include "fsck_int.h"

#include <inttypes.h>

/* 0 a superblock (magic and CRC right), -1 not. */
static int sb_decode(const uint8_t *b, struct fk_super *s)
{
    if (memcmp(b, "FLLOGFS\0", 8) || le32_get(b + 252) != fk_crc(b, 252))
        return -1;
    s->read_version = le32_get(b + 8);
    s->write_version = le32_get(b + 12);
    s->block_size = le32_get(b + 16);
    s->page_size = le32_get(b + 20);
    s->pages_per_block = le32_get(b + 24);
    s->anchor_count = le32_get(b + 28);
    s->nblocks = le64_get(b + 32);
    s->reserve_segments = le32_get(b + 40);
    s->backup_block = le32_get(b + 44);
    for (unsigned i = 0; i < FK_MAX_ANCHORS; i++)
        s->anchor_blocks[i] = le32_get(b + 48 + 4 * i);
    s->fs_id = le64_get(b + 112);
    s->segments = le32_get(b + 120);
    s->compress = s->read_version >= FK_VERSION_V5 ? le32_get(b + 124) : 0;
    memcpy(s->raw, b, FK_SB_SIZE);
    return 0;
}

/* The superblock bytes of block b: 0, 1 unreadable, or an operational
 * error. */
static int sb_read(struct fk *k, uint32_t b, uint8_t *buf)
{
    int rc = fk_read(k, (uint64_t)b * k->seg_bytes, buf, FK_SB_SIZE, NULL);
    if (rc && fk_is_oper_err(rc)) {
        fk_oper(k, "reading the superblock", rc);
        return rc;
    }
    return rc ? 1 : 0;
}

/* Section 5, "Finding it": block 0, then the last 64 blocks from the end;
 * the first that is a superblock with a sane anchor_count decides. */
static int find(struct fk *k)
{
    uint8_t buf[FK_SB_SIZE];
    for (uint64_t i = 0; i <= FK_SB_SEARCH && i < k->nblocks; i++) {
        uint32_t b = (uint32_t)(i == 0 ? 0 : k->nblocks - i);
        int rc = sb_read(k, b, buf);
        if (rc < 0)
            return -1;
        /* check 2: a bad anchor_count is not a superblock: go on */
        if (rc == 0 && sb_decode(buf, &k->sb) == 0 &&
            !((k->sb.read_version >= FK_VERSION_V3 &&
               k->sb.read_version <= FK_VERSION) &&
              (k->sb.anchor_count == 0 || k->sb.anchor_count > FK_MAX_ANCHORS))) {
            k->sb.found_in = b;
            return 0;
        }
        if (i == 0)
            k->sb_primary_bad = 1;
    }
    return -1;
}

/* Check 4: the geometry must be the device's and usable. */
static int geometry(struct fk *k)
{
    const struct fk_super *s = &k->sb;
    uint32_t bs = s->block_size;
    if (s->page_size != k->ps || s->pages_per_block != k->ppb ||
        s->nblocks != k->nblocks) {
        fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, s->found_in, 0, FSCK_NONE,
               "superblock: geometry %u-byte pages, %u pages a block, %" PRIu64
               " blocks is not the device's (%u, %u, %" PRIu64 ")",
               s->page_size, s->pages_per_block, s->nblocks, k->ps, k->ppb,
               k->nblocks);
        return -1;
    }
    if (bs < 512 || bs > 32768 || (bs & (bs - 1)) || k->ps < k->ab ||
        (uint64_t)k->seg_bytes < 4ull * (bs + FK_HDR) || k->nblocks > 0xffffffffull) {
        fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, s->found_in, 0, FSCK_NONE,
               "superblock: block size %u does not suit the device", bs);
        return -1;
    }
    for (uint32_t i = 0; i < s->anchor_count; i++) /* check 5 */
        if (s->anchor_blocks[i] == 0 || s->anchor_blocks[i] >= k->nblocks) {
            fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, s->found_in, 0, FSCK_NONE,
                   "superblock: anchor block %u is %u, outside 1..%" PRIu64, i,
                   s->anchor_blocks[i], k->nblocks - 1);
            return -1;
        }
    return 0;
}

/* Fields that must hold for the layout of section 2, reserved bytes. */
static void layout(struct fk *k)
{
    const struct fk_super *s = &k->sb;
    int64_t b = s->found_in;
    for (uint32_t i = 0; i < s->anchor_count; i++) {
        for (uint32_t j = 0; j < i; j++)
            if (s->anchor_blocks[j] == s->anchor_blocks[i])
                fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, b, 0, FSCK_NONE,
                       "superblock: anchor block %u listed twice",
                       s->anchor_blocks[i]);
        if (s->anchor_blocks[i] == s->backup_block)
            fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, b, 0, FSCK_NONE,
                   "superblock: anchor block %u is also the backup block",
                   s->backup_block);
    }
    for (uint32_t i = s->anchor_count; i < FK_MAX_ANCHORS; i++)
        if (s->anchor_blocks[i])
            fk_msg(k, FSCK_WARNING, FSCK_K_SUPER, b, 0, FSCK_NONE,
                   "superblock: unused anchor slot %u is %u, not 0", i,
                   s->anchor_blocks[i]);
    /* version 5: byte 124 is the writers' compression method */
    uint32_t resv = k->ver >= FK_VERSION_V5 ? 128 : 124;
    if (!fk_all(s->raw + resv, 252 - resv, 0))
        fk_msg(k, FSCK_WARNING, FSCK_K_SUPER, b, 0, FSCK_NONE,
               "superblock: reserved bytes %u..251 are not zero", resv);
    if (s->compress >= FK_COMPR_METHODS)
        fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, b, 0, FSCK_NONE,
               "superblock: compression method %u is unknown (LogFS refuses the "
               "superblock)", s->compress);
    if (s->backup_block == 0 || s->backup_block >= k->nblocks ||
        s->backup_block + FK_SB_SEARCH < k->nblocks)
        fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, b, 0, FSCK_NONE,
               "superblock: backup block %u is not among the last %u blocks",
               s->backup_block, FK_SB_SEARCH);
    if (k->ver >= FK_VERSION_V4 && s->anchor_count % 2)
        fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, b, 0, FSCK_NONE,
               "superblock: %u anchor blocks: versions 4 to 6 need an even count "
               "(two mirrors); the second mirror is taken as blocks %u..%u",
               s->anchor_count, s->anchor_count / 2, s->anchor_count - 1);
    if (k->ver == FK_VERSION_V3 && s->write_version == FK_VERSION_V3) {
        k->readonly = 1;
        fk_msg(k, FSCK_INFO, FSCK_K_SUPER, b, 0, FSCK_NONE,
               "superblock: LogFS format version 3: read-only (LogFS writes "
               "version %u), fsck checks it and will not repair it", FK_VERSION);
    } else if (s->write_version != s->read_version) {
        k->readonly = 1;
        fk_msg(k, FSCK_WARNING, FSCK_K_SUPER, b, 0, FSCK_NONE,
               "superblock: write version %u: LogFS mounts it read-only, and "
               "fsck will not repair it", s->write_version);
    }
}

/* The copy must be identical to the one in use; block 0 must hold one. */
static int copies(struct fk *k)
{
    uint8_t buf[FK_SB_SIZE];
    const struct fk_super *s = &k->sb;
    if (k->sb_primary_bad) {
        size_t m = fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, 0, 0, FSCK_NONE,
                          "block 0 page 0: no valid superblock (the copy in "
                          "block %u is used)", s->found_in);
        k->sb_copy_bad = 1;
        if (!k->readonly)
            fk_plan(k, m);
        return 0;
    }
    if (s->backup_block == 0 || s->backup_block >= k->nblocks)
        return 0;
    int rc = sb_read(k, s->backup_block, buf);
    if (rc < 0)
        return -1;
    if (rc || memcmp(buf, s->raw, FK_SB_SIZE)) {
        size_t m = fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, s->backup_block, 0,
                          FSCK_NONE, "block %u page 0: the superblock copy %s",
                          s->backup_block,
                          rc ? "cannot be read" : "differs from block 0's");
        k->sb_copy_bad = 1;
        if (!k->readonly)
            fk_plan(k, m);
    }
    return 0;
}

/* The rest of page 0 is 0xFF (section 2). */
static int page_tail(struct fk *k)
{
    int rc = fk_read_page(k, k->sb.found_in, 0, k->page);
    if (rc && fk_is_oper_err(rc)) {
        fk_oper(k, "reading the superblock", rc);
        return -1;
    }
    if (!rc && !fk_all(k->page + FK_SB_SIZE, k->ps - FK_SB_SIZE, 0xff))
        fk_msg(k, FSCK_WARNING, FSCK_K_SUPER, k->sb.found_in, 0, FSCK_NONE,
               "block %u page 0: bytes after the superblock are not 0xFF",
               k->sb.found_in);
    return 0;
}

int fk_check_super(struct fk *k)
{
    if (find(k)) {
        if (!k->oper) {
            k->oper = k->fatal = 1;
            fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, 0, 0, FSCK_NONE,
                   "no LogFS superblock in block 0 or the last %u blocks: "
                   "not a LogFS file system", FK_SB_SEARCH);
        }
        return -1;
    }
    const struct fk_super *s = &k->sb;
    if (s->read_version < FK_VERSION_V3 || s->read_version > FK_VERSION) {
        /* check 1: a mount refuses it */
        k->oper = k->fatal = 1;
        fk_msg(k, FSCK_ERROR, FSCK_K_SUPER, s->found_in, 0, FSCK_NONE,
               "superblock: read version %u, fsck reads versions %u to %u only",
               s->read_version, FK_VERSION_V3, FK_VERSION);
        return -1;
    }
    /* section 15: version 3 has 208-byte inodes and one ring */
    k->ver = s->read_version;
    k->ib = k->ver == FK_VERSION_V3 ? FK_INODE_BYTES_V3 : FK_INODE_BYTES;
    k->ab = FK_ANCHOR_BYTES_OF(k->ib);
    k->mirrors = k->ver == FK_VERSION_V3 || s->anchor_count < 2 ? 1 : 2;
    if (geometry(k)) {
        k->fatal = 1;
        return -1;
    }
    k->bs = s->block_size;
    k->P = k->bs / 8;
    k->E = k->bs / FK_SEGENT;
    fk_msg(k, FSCK_INFO, FSCK_K_SUPER, s->found_in, 0, FSCK_NONE,
           "superblock in block %u: format version %u, block size %u, %u anchor "
           "blocks, backup in block %u, reserve %u, %u segments, compression %s, "
           "fs_id %016" PRIx64,
           s->found_in, s->read_version, s->block_size, s->anchor_count,
           s->backup_block, s->reserve_segments, s->segments,
           fk_compr_name(s->compress), s->fs_id);
    char list[FK_MAX_ANCHORS * 12] = "";
    for (uint32_t i = 0; i < s->anchor_count; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), " %u",
                 s->anchor_blocks[i]);
    fk_msg(k, FSCK_INFO, FSCK_K_SUPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
           "anchor blocks:%s", list);
    layout(k);
    if (copies(k) || page_tail(k))
        return -1;
    return 0;
}

int fk_write_super(struct fk *k)
{
    /* mkfs's way (section 5): erase, then program page 0 */
    uint32_t b = k->sb_primary_bad ? 0 : k->sb.backup_block;
    memset(k->page, 0xff, k->ps);
    memcpy(k->page, k->sb.raw, FK_SB_SIZE);
    int rc = nand_erase(k->dev, b, NULL);
    if (!rc)
        rc = nand_program(k->dev, b, 0, k->page, NULL, NULL);
    if (rc) {
        fk_msg(k, FSCK_ERROR, FSCK_K_OPER, b, 0, FSCK_NONE,
               "block %u: rewriting the superblock failed: %s", b,
               nand_strerror(rc));
        return -1;
    }
    k->rep->written = 1;
    return 0;
}

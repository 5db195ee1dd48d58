/* seg.c -- reading the segment file (FORMAT.md section 12): inode 1,
 * whose level-0 block b holds the 16-byte entries of segments b*E .. b*E+E-1;
 * a hole reads as zeroed entries. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdlib.h>

static int seg_leaf(struct fk *k, void *ctx, uint64_t bix, uint64_t ptr,
                    const uint8_t *payload, uint32_t len)
{
    (void)ctx;
    uint64_t first = bix * k->E;
    if (bix >= (k->nblocks + k->E - 1) / k->E) {
        fk_err_at(k, FSCK_K_TREE, ptr >> 16, FSCK_NONE,
                  "segment file block %" PRIu64 " lies past the device's %" PRIu64
                  " blocks", bix, k->nblocks);
        return 0;
    }
    if (!payload) {
        uint64_t last = first + k->E < k->nblocks ? first + k->E : k->nblocks;
        k->incomplete = 1;
        for (uint64_t s = first; s < last; s++)
            k->seg[s].unknown = 1;
        fk_msg(k, FSCK_WARNING, FSCK_K_SEGMENT, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "segment file block %" PRIu64 " cannot be read: segments %" PRIu64
               "..%" PRIu64 " are not checked", bix, first, last - 1);
        return 0;
    }
    if (len != k->bs) /* section 9.1: segment-file blocks are written whole */
        fk_err_at(k, FSCK_K_TREE, ptr >> 16, FSCK_NONE,
                  "segment file block %" PRIu64 " has %u bytes, not the whole "
                  "block", bix, len);
    for (uint32_t i = 0; i < k->E; i++) {
        uint8_t e[FK_SEGENT] = {0};
        uint32_t at = i * FK_SEGENT;
        if (at < len)
            memcpy(e, payload + at, len - at < FK_SEGENT ? len - at : FK_SEGENT);
        uint64_t s = first + i;
        if (s >= k->nblocks) {
            if (!fk_all(e, FK_SEGENT, 0))
                fk_msg(k, FSCK_WARNING, FSCK_K_SEGMENT, FSCK_NONE, FSCK_NONE,
                       FSCK_NONE, "segment file: entry %" PRIu64 " is past the "
                       "device's blocks and not zero", s);
            continue;
        }
        k->seg[s] = (struct fk_segent){
            .erases = le32_get(e), .live = le32_get(e + 4), .state = e[8],
            .area = e[9], .resv = le16_get(e + 10),
            .stamp = le32_get(e + 12)};
    }
    return 0;
}

int fk_load_segfile(struct fk *k)
{
    int complete = 1;
    k->seg = calloc(k->nblocks, sizeof *k->seg);
    if (!k->seg) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    if (fk_walk(k, FK_CLS_SEGFILE, 1, &k->an.segfile, seg_leaf, NULL, &complete))
        return -1;
    if (!complete) { /* an indirect block lost: which entries is unknown */
        k->incomplete = 1;
        fk_msg(k, FSCK_ERROR, FSCK_K_SEGMENT, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "segment file: part of its tree cannot be read; segment states "
               "and live counts are not checked");
        for (uint64_t s = 0; s < k->nblocks; s++)
            k->seg[s].unknown = 1;
    } else {
        fk_check_blocks(k, &k->an.segfile, FSCK_NONE);
    }
    return 0;
}

/*
 * fuzz_image.c -- device image files (sim/image.c, docs/simulator.md).
 *
 * The input is an image as nand_save writes it.  Its last 8 bytes (the
 * trailer: CRC-32 of everything before it, as a u64) are recomputed first,
 * so that the fuzzer's changes reach the parser instead of stopping at the
 * checksum.  nand_open must refuse the image cleanly or give a device
 * that works: every block's info, reads of its programmed pages, a
 * snapshot, an erase and a read-only LogFS mount attempt.
 *
 * Inputs whose header describes more than FI_MAX_BLOCKS blocks, dies or
 * channels are passed over: nand_open allocates per-block and per-die
 * state for the geometry in the header before the body is read, which a
 * fuzzer's memory limit does not allow (see fuzz/README.md, "known").
 */
#include "crc32.h"
#include "le.h"
#include "harness.h"
#include "logfs/logfs.h"
#include "nand.h"

#include <stdlib.h>
#include <string.h>

#define FI "image"
#define FI_MAX_BLOCKS (1u << 16)
#define FI_MAX_READS 4096u
/* Header offsets: magic 16, version 8, flags 8, name 64, then u64 fields
 * in the order of cfg_fields[] in sim/image.c. */
#define FI_OFF_GEO 96u

/* 1 if the geometry in the header is small enough to open here. */
static int fi_small(const uint8_t *d, size_t n)
{
    if (n < FI_OFF_GEO + 32)
        return 1; /* truncated header: nand_open refuses it early */
    unsigned __int128 prod = 1;
    for (int i = 0; i < 4; i++) {
        uint64_t v = le64_get(d + FI_OFF_GEO + 8 * i);
        if (!v)
            v = 1; /* 0 takes the default, 1 */
        if (v > FI_MAX_BLOCKS)
            return 0;
        prod *= v;
    }
    return prod <= FI_MAX_BLOCKS;
}

/* Block records (docs/simulator.md): after the header (16 + 8 + 8 + 64 +
 * FI_CFG_FIELDS * 8), the clock, the statistics, the block count and the
 * record count; each record is 6 u64: block, pe, reads, next_page, flags,
 * endurance (f64 bits).  The endurance of record i of block *blk, or -1. */
#define FI_CFG_FIELDS 36u
static double fi_record_endurance(const uint8_t *d, size_t n, uint64_t i, uint64_t *blk)
{
    size_t off = 96 + FI_CFG_FIELDS * 8 + 8 + sizeof(struct nand_stats) + 8;
    if (off + 8 > n)
        return -1;
    uint64_t nrec = le64_get(d + off);
    off += 8;
    if (i >= nrec || i > (n - off) / 48 || off + (i + 1) * 48 > n)
        return -1;
    const uint8_t *r = d + off + i * 48;
    uint64_t bits = le64_get(r + 40);
    double e;
    memcpy(&e, &bits, sizeof e);
    *blk = le64_get(r);
    return e;
}

int fuzz_image(const uint8_t *data, size_t size)
{
    if (size < 8 || !fi_small(data, size))
        return 0;
    uint8_t *img = malloc(size);
    if (!img)
        return 0;
    memcpy(img, data, size);
    uint32_t crc = flashlab_crc32(0, img, size - 8);
    le64_put(img + size - 8, crc);
    const char *path = fuzz_file(FUZZ_FILE_INPUT, img, size);
    free(img);
    if (!path)
        return 0;
    nand_dev *dev = (nand_dev *)1;
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = nand_open(path, &dev, err, sizeof err);
    if (rc) {
        if (!memchr(err, '\0', sizeof err))
            fuzz_fail(FI, "error message not NUL-terminated");
        if (rc != NAND_E_CORRUPT && rc != NAND_E_NOMEM && rc != NAND_E_IO)
            fuzz_fail(FI, "nand_open returned %d (%s)", rc, err);
        if (!err[0])
            fuzz_fail(FI, "nand_open failed without a message");
        return 0;
    }
    const struct nand_config *c = nand_get_config(dev);
    struct nand_config again = *c;
    if (nand_config_finish(&again, err, sizeof err))
        fuzz_fail(FI, "an opened image has an invalid configuration: %s", err);
    uint64_t nb = nand_blocks(c);
    uint32_t ppb = c->geo.pages_per_block;
    uint8_t *page = malloc((size_t)c->geo.page_size + c->geo.oob_size);
    if (!page) {
        nand_close(dev);
        return 0;
    }
    nand_snapshot *snap = NULL;
    if (nand_snapshot_take(dev, &snap))
        snap = NULL;
    uint32_t reads = 0;
    for (uint64_t b = 0; b < nb; b++) {
        struct nand_block_info bi;
        /* known: nand_block_info converts a block's endurance (any value
         * >= 1 in an image) times endurance_scale to u64 unchecked */
        if (fuzz_skip_known()) {
            for (uint32_t p = 0; p < ppb && reads < FI_MAX_READS; p++, reads++)
                nand_read(dev, (nand_block_t)b, p, page, page + c->geo.page_size, NULL);
            continue;
        }
        if (nand_block_info(dev, (nand_block_t)b, &bi))
            fuzz_fail(FI, "nand_block_info(%llu) of %llu blocks fails",
                      (unsigned long long)b, (unsigned long long)nb);
        if (bi.pages_programmed > ppb)
            fuzz_fail(FI, "block %llu: %u pages programmed of %u", (unsigned long long)b,
                      bi.pages_programmed, ppb);
        for (uint32_t p = 0; p < bi.pages_programmed && reads < FI_MAX_READS; p++, reads++) {
            rc = nand_read(dev, (nand_block_t)b, p, page, page + c->geo.page_size, NULL);
            if (rc && rc != NAND_E_ECC)
                fuzz_fail(FI, "read of programmed page %llu/%u: %s", (unsigned long long)b,
                          p, nand_strerror(rc));
            nand_read_raw(dev, (nand_block_t)b, p, page, NULL, NULL);
        }
    }
    /* a block endurance past 2^64 once scaled can only be reported
     * saturated (gcc's UBSan does not check float-to-integer casts) */
    for (uint64_t i = 0; !fuzz_skip_known() && i < nb; i++) {
        uint64_t blk;
        double e = fi_record_endurance(data, size, i, &blk);
        if (e < 0)
            break;
        struct nand_block_info bi;
        if (blk < nb && e * c->endurance_scale >= 18446744073709551616.0 &&
            !nand_block_info(dev, (nand_block_t)blk, &bi) && bi.endurance != UINT64_MAX)
            fuzz_fail(FI, "nand_block_info: block %llu endurance %g x scale %g is past 2^64, "
                          "reported %llu",
                      (unsigned long long)blk, e, c->endurance_scale,
                      (unsigned long long)bi.endurance);
    }
    nand_is_bad(dev, (nand_block_t)(nb - 1));
    nand_erase(dev, (nand_block_t)(nb - 1), NULL);
    if (nb <= 4096) {
        struct logfs_options o = {.readonly = 1};
        logfs *fs = NULL;
        if (!logfs_mount(dev, &o, &fs))
            logfs_unmount(fs);
    }
    if (snap) {
        if (nand_snapshot_restore(dev, snap))
            fuzz_fail(FI, "nand_snapshot_restore failed");
        nand_snapshot_free(snap);
    }
    free(page);
    nand_close(dev);
    return 0;
}

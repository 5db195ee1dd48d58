/*
 * fuzz_import.c -- nanddump and raw page dumps through nand_import
 * (sim/dump.c, docs/simulator.md "Exchanging images with mtd-utils and
 * nandsim").
 *
 * Byte 0 picks the format (bit 0: raw, else nanddump); the rest is the
 * file, imported into a tiny quiet device (8 blocks of 4 pages of 512 + 16
 * bytes, a quarter of them factory bad).  A refused file must come with a
 * message and no device.  An accepted one must export again, in the same
 * format, as the file padded with 0xFF to the device's size, except in
 * the device's factory-bad blocks (which keep the device's own marker;
 * raw exports them as 0xFF); every page of the file that is not all 0xFF
 * must have been programmed, and every other page must still program.
 */
#include "harness.h"
#include "nand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIM "import"
#define FIM_BLOCKS 8u
#define FIM_PAGES 4u
#define FIM_PS 512u
#define FIM_OS 16u

static void fim_config(struct nand_config *c)
{
    nand_config_init(c);
    c->geo.blocks_per_plane = FIM_BLOCKS;
    c->geo.pages_per_block = FIM_PAGES;
    c->geo.page_size = FIM_PS;
    c->geo.oob_size = FIM_OS;
    memset(&c->rber, 0, sizeof c->rber);
    c->factory_bad_fraction = 0.25;
    c->seed = 11;
    snprintf(c->name, sizeof c->name, "fuzz-import");
}

int fuzz_import(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum nand_dump_format fmt = data[0] & 1 ? NAND_DUMP_RAW : NAND_DUMP_NANDDUMP;
    size_t rec = fmt == NAND_DUMP_RAW ? FIM_PS : FIM_PS + FIM_OS;
    size_t full = (size_t)FIM_BLOCKS * FIM_PAGES * rec;
    if (size - 1 > 4 * full)
        return 0; /* only its size matters past the device's end */
    const char *in = fuzz_file(FUZZ_FILE_INPUT, data + 1, size - 1);
    if (!in)
        return 0;
    struct nand_config c;
    fim_config(&c);
    nand_dev *dev = (nand_dev *)1;
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = nand_import(&c, in, fmt, &dev, err, sizeof err);
    if (rc) {
        if (dev)
            fuzz_fail(FIM, "nand_import failed (%d) but gave a device", rc);
        if (!memchr(err, '\0', sizeof err) || !err[0])
            fuzz_fail(FIM, "nand_import failed (%d) without a message", rc);
        if (rc != NAND_E_CORRUPT)
            fuzz_fail(FIM, "nand_import returned %d (%s)", rc, err);
        if ((size - 1) % rec == 0 && size - 1 <= full && !strstr(err, "factory bad"))
            fuzz_fail(FIM, "a file of whole pages within the device refused: %s", err);
        if (fuzz_verbose())
            fprintf(stderr, "%s\n", err);
        return 0;
    }
    if ((size - 1) % rec || size - 1 > full)
        fuzz_fail(FIM, "a file of %zu bytes accepted (%zu-byte pages, device %zu)",
                  size - 1, rec, full);
    const char *out = fuzz_file(FUZZ_FILE_AUX, "", 0);
    if (!out || nand_export(dev, out, fmt, err, sizeof err))
        fuzz_fail(FIM, "export of an imported device failed: %s", out ? err : "no file");
    FILE *f = fopen(out, "rb");
    uint8_t *got = malloc(full + 1), *want = malloc(full);
    if (!f || !got || !want)
        fuzz_fail(FIM, "no memory or no export file");
    size_t n = fread(got, 1, full + 1, f);
    fclose(f);
    if (n != full)
        fuzz_fail(FIM, "export wrote %zu bytes, not %zu", n, full);
    memset(want, 0xff, full);
    memcpy(want, data + 1, size - 1);
    size_t blk = (size_t)FIM_PAGES * rec;
    uint8_t page[FIM_PS + FIM_OS];
    memset(page, 0x5a, sizeof page);
    for (nand_block_t b = 0; b < FIM_BLOCKS; b++) {
        struct nand_block_info bi;
        nand_block_info(dev, b, &bi);
        if (bi.factory_bad)
            continue;
        if (memcmp(got + b * blk, want + b * blk, blk))
            fuzz_fail(FIM, "block %u exports differently from the file", b);
        for (nand_page_t p = 0; p < FIM_PAGES; p++) {
            const uint8_t *w = want + b * blk + p * rec;
            int erased = 1;
            for (size_t i = 0; i < rec && erased; i++)
                erased = w[i] == 0xff;
            if (erased && p >= bi.pages_programmed &&
                nand_program(dev, b, p, page, NULL, NULL))
                fuzz_fail(FIM, "erased page %u/%u does not program", b, p);
        }
    }
    free(got);
    free(want);
    nand_close(dev);
    return 0;
}

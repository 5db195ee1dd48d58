/*
 * fuzz_journal.c -- image journals (sim/journal.c, docs/simulator.md,
 * "The image journal").
 *
 * The input is a flag byte, then IMAGE.journal for a small image that
 * fuzz_journal_init makes once (compress on, so that records carry
 * run-length forms too).  The journal's header is made to name that image
 * and, unless flag bit 0 is set, every record's CRC is recomputed, so that
 * the fuzzer's changes reach the record parser instead of stopping at a
 * checksum.  nand_open must refuse with a message naming the journal, or
 * give a device that works: every block's info and pages read, and a
 * sync, which must append to the (possibly torn) journal so that the
 * image opens again.
 */
#include "crc32.h"
#include "le.h"
#include "harness.h"
#include "nand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FJN "journal"

static char fjn_dir[256], fjn_image[300], fjn_journal[320];
static uint8_t fjn_id[16]; /* the image's size and checksum field */
static pid_t fjn_owner;    /* forked replays (the regression test) exit too */

static void fjn_cleanup(void)
{
    if (getpid() != fjn_owner)
        return;
    unlink(fjn_journal);
    unlink(fjn_image);
    rmdir(fjn_dir);
}

/* The device the seeds were made for: 16 blocks of 8 pages of 512+16. */
static nand_dev *fjn_device(void)
{
    struct nand_config c;
    nand_config_init(&c);
    c.geo.blocks_per_plane = 16;
    c.geo.pages_per_block = 8;
    c.geo.page_size = 512;
    c.geo.oob_size = 16;
    c.compress = 1;
    c.seed = 7;
    nand_dev *d = NULL;
    return nand_create(&c, &d) ? NULL : d;
}

int fuzz_journal_init(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(fjn_dir, sizeof fjn_dir, "%s/flashlab-fuzz-journal-XXXXXX",
             base && *base && strlen(base) < 200 ? base : "/tmp");
    if (!mkdtemp(fjn_dir))
        return -1;
    snprintf(fjn_image, sizeof fjn_image, "%s/base.img", fjn_dir);
    snprintf(fjn_journal, sizeof fjn_journal, "%s.journal", fjn_image);
    fjn_owner = getpid();
    atexit(fjn_cleanup);
    nand_dev *d = fjn_device();
    if (!d)
        return -1;
    uint8_t page[528];
    memset(page, 0x5a, sizeof page);
    nand_program(d, 1, 0, page, page + 512, NULL);
    int rc = nand_save(d, fjn_image);
    nand_close(d);
    FILE *f = fopen(fjn_image, "rb");
    if (rc || !f || fseek(f, -8, SEEK_END))
        return -1;
    long size = ftell(f) + 8;
    le64_put(fjn_id, (uint64_t)size);
    int ok = fread(fjn_id + 8, 1, 8, f) == 8;
    fclose(f);
    return ok ? 0 : -1;
}

/* Make the header name the image, and (fix) every record's CRC right. */
static void fjn_patch(uint8_t *j, size_t n, int fix)
{
    if (n < 48)
        return;
    memcpy(j + 24, fjn_id, 16);
    le64_put(j + 40, flashlab_crc32(0, j, 40));
    for (size_t off = 48; fix && n - off >= 32;) {
        uint64_t len = le64_get(j + off + 16);
        if (len > n - off - 32)
            break;
        le64_put(j + off + 24 + len, flashlab_crc32(0, j + off, 24 + (size_t)len));
        off += 32 + (size_t)len;
    }
}

static void fjn_write(const uint8_t *j, size_t n)
{
    FILE *f = fopen(fjn_journal, "wb");
    if (!f)
        fuzz_fail(FJN, "%s: cannot write", fjn_journal);
    if ((n && fwrite(j, 1, n, f) != n) | fclose(f))
        fuzz_fail(FJN, "%s: cannot write", fjn_journal);
}

int fuzz_journal(const uint8_t *data, size_t size)
{
    if (!size || !fjn_image[0])
        return 0;
    uint8_t *j = malloc(size);
    if (!j)
        return 0;
    memcpy(j, data + 1, size - 1);
    fjn_patch(j, size - 1, !(data[0] & 1));
    fjn_write(j, size - 1);
    free(j);

    nand_dev *dev = NULL;
    char err[512];
    memset(err, 'x', sizeof err);
    int rc = nand_open(fjn_image, &dev, err, sizeof err);
    if (rc) {
        if (!memchr(err, '\0', sizeof err))
            fuzz_fail(FJN, "error message not NUL-terminated");
        if (rc != NAND_E_CORRUPT && rc != NAND_E_NOMEM && rc != NAND_E_IO)
            fuzz_fail(FJN, "nand_open returned %d (%s)", rc, err);
        if (!strstr(err, fjn_journal))
            fuzz_fail(FJN, "the error does not name the journal: %s", err);
        if (fuzz_verbose())
            fprintf(stderr, "%s\n", err);
        return 0;
    }
    const struct nand_config *c = nand_get_config(dev);
    uint8_t page[528];
    for (nand_block_t b = 0; b < nand_blocks(c); b++) {
        struct nand_block_info bi;
        if (nand_block_info(dev, b, &bi) || bi.pages_programmed > c->geo.pages_per_block)
            fuzz_fail(FJN, "block %u: bad state after replay", b);
        for (nand_page_t p = 0; p < c->geo.pages_per_block; p++)
            nand_read_raw(dev, b, p, page, page + 512, NULL);
    }
    nand_erase(dev, 2, NULL);
    if ((rc = nand_sync(dev, fjn_image)))
        fuzz_fail(FJN, "nand_sync after a good open: %s", nand_strerror(rc));
    nand_close(dev);
    if ((rc = nand_open(fjn_image, &dev, err, sizeof err)))
        fuzz_fail(FJN, "the journal a sync appended to does not open: %s", err);
    nand_close(dev);
    return 0;
}

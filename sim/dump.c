/*
 * dump.c -- flat page dumps as mtd-utils write and read them (nand.h,
 * docs/simulator.md "Exchanging images with mtd-utils and nandsim").
 *
 * A nanddump file is every page's data followed by its whole OOB, block
 * after block (`nanddump --oob --noecc --bb=dumpbad`, `nandwrite --oob
 * --noecc`); a raw file is the data alone.  Block i of the file is block i
 * of the device.  Export reads the stored pages directly (no clock, no
 * statistics, no read disturb, no noise); import programs a fresh device
 * through nand_program, so the programs are timed and counted as usual.
 */
#include "nand_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

__attribute__((format(printf, 3, 4)))
static void say(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int fmt_ok(enum nand_dump_format fmt)
{
    return fmt == NAND_DUMP_NANDDUMP || fmt == NAND_DUMP_RAW;
}

/* The marker rule of nand_is_bad, on a page's stored spare. */
static int marker_bad(const struct nand_config *cfg, const uint8_t *page)
{
    return cfg->geo.oob_size && __builtin_popcount(page[cfg->geo.page_size]) < 4;
}

static int all_ff(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0xff)
            return 0;
    return 1;
}

int nand_export(nand_dev *dev, const char *path, enum nand_dump_format fmt,
                char *err, size_t errlen)
{
    if (!fmt_ok(fmt)) {
        say(err, errlen, "%s: unknown dump format %d", path, (int)fmt);
        return NAND_E_INVAL;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        say(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return NAND_E_IO;
    }
    const struct nand_config *cfg = &dev->cfg;
    uint32_t ppb = cfg->geo.pages_per_block;
    size_t rec = fmt == NAND_DUMP_NANDDUMP ? dev->page_bytes : cfg->geo.page_size;
    int ok = 1;
    for (uint64_t b = 0; b < dev->nblocks && ok; b++) {
        const struct bpages *bp = dev->bp[b];
        /* raw: a bad block has no meaningful data, as nanddump's padbad */
        int pad = fmt == NAND_DUMP_RAW && bp &&
                  marker_bad(cfg, pbuf_view(dev, bp->slot[0].pg));
        for (uint32_t p = 0; p < ppb && ok; p++) {
            const uint8_t *pg = pad || !bp ? dev->ff : pbuf_view(dev, bp->slot[p].pg);
            ok = fwrite(pg, 1, rec, f) == rec;
        }
    }
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        say(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return NAND_E_IO;
    }
    return NAND_OK;
}

/* Read up to n bytes (short only at end of file or on error). */
static size_t read_full(FILE *f, uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        size_t k = fread(buf + got, 1, n - got, f);
        if (!k)
            break;
        got += k;
    }
    return got;
}

struct imp {
    const char *path;
    const struct nand_config *cfg;
    enum nand_dump_format fmt;
    size_t rec;             /* bytes per page record in the file */
    uint64_t dev_bytes;     /* records of the whole device, in bytes */
    char *err;
    size_t errlen;
};

static int size_error(const struct imp *im, uint64_t size)
{
    const struct nand_config *c = im->cfg;
    if (size % im->rec) {
        if (im->fmt == NAND_DUMP_NANDDUMP)
            say(im->err, im->errlen,
                "%s: %llu bytes is not a whole number of %zu-byte pages "
                "(%u + %u OOB) of %s", im->path, (unsigned long long)size,
                im->rec, c->geo.page_size, c->geo.oob_size, c->name);
        else
            say(im->err, im->errlen,
                "%s: %llu bytes is not a whole number of %zu-byte pages "
                "(data only, raw) of %s", im->path, (unsigned long long)size,
                im->rec, c->name);
    } else {
        say(im->err, im->errlen,
            "%s: %llu bytes is larger than %s (%llu blocks of %u %zu-byte "
            "pages: %llu bytes)", im->path, (unsigned long long)size, c->name,
            (unsigned long long)nand_blocks(c), c->geo.pages_per_block, im->rec,
            (unsigned long long)im->dev_bytes);
    }
    return NAND_E_CORRUPT;
}

/* Program block b from buf (npages records); 0 or an error (err set). */
static int import_block(const struct imp *im, nand_dev *dev, nand_block_t b,
                        const uint8_t *buf, uint32_t npages)
{
    const struct nand_config *c = im->cfg;
    int nand = im->fmt == NAND_DUMP_NANDDUMP;
    int used = 0;
    for (uint32_t p = 0; p < npages && !used; p++)
        used = !all_ff(buf + (size_t)p * im->rec, im->rec);
    if (!used)
        return NAND_OK;
    int file_bad = nand && marker_bad(c, buf);
    if (dev->bs[b].flags & BF_FACTORY_BAD) {
        if (file_bad)
            return NAND_OK; /* bad there and here: the device keeps its marker */
        say(im->err, im->errlen,
            "%s: block %u holds data, but block %u of %s is factory bad "
            "(seed %llu)%s", im->path, b, b, c->name, (unsigned long long)c->seed,
            nand ? "" : "; a raw image cannot step around it");
        return NAND_E_CORRUPT;
    }
    for (uint32_t p = 0; p < npages; p++) {
        const uint8_t *pg = buf + (size_t)p * im->rec;
        if (all_ff(pg, im->rec))
            continue;
        int rc = nand_program(dev, b, p, pg, nand ? pg + c->geo.page_size : NULL,
                              NULL);
        if (rc) {
            say(im->err, im->errlen, "%s: block %u page %u: program failed: %s",
                im->path, b, p, nand_strerror(rc));
            return rc;
        }
    }
    if (file_bad)
        dev->bs[b].flags |= BF_MARKED_BAD;
    return NAND_OK;
}

int nand_import(const struct nand_config *cfg_in, const char *path,
                enum nand_dump_format fmt, nand_dev **out,
                char *err, size_t errlen)
{
    *out = NULL;
    if (!fmt_ok(fmt)) {
        say(err, errlen, "%s: unknown dump format %d", path, (int)fmt);
        return NAND_E_INVAL;
    }
    nand_dev *dev;
    int rc = nand_create(cfg_in, &dev);
    if (rc) {
        say(err, errlen, "%s: cannot create device: %s", cfg_in->name,
            nand_strerror(rc));
        return rc;
    }
    const struct nand_config *cfg = &dev->cfg;
    uint32_t ppb = cfg->geo.pages_per_block;
    struct imp im = {path, cfg, fmt, 0, 0, err, errlen};
    im.rec = fmt == NAND_DUMP_NANDDUMP ? dev->page_bytes : cfg->geo.page_size;
    im.dev_bytes = dev->nblocks * ppb * (uint64_t)im.rec;
    size_t blk_bytes = (size_t)ppb * im.rec;
    uint8_t *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        say(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        rc = NAND_E_IO;
        goto out;
    }
    /* a regular file's size is checked before anything is programmed;
     * any stream is checked again as it is read */
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
        ((uint64_t)sb.st_size % im.rec || (uint64_t)sb.st_size > im.dev_bytes)) {
        rc = size_error(&im, (uint64_t)sb.st_size);
        goto out;
    }
    if (!(buf = malloc(blk_bytes))) {
        rc = NAND_E_NOMEM;
        say(err, errlen, "%s: out of memory", path);
        goto out;
    }
    uint64_t total = 0;
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        size_t got = read_full(f, buf, blk_bytes);
        total += got;
        if (ferror(f)) {
            say(err, errlen, "%s: read error at byte %llu: %s", path,
                (unsigned long long)total, strerror(errno));
            rc = NAND_E_IO;
            goto out;
        }
        if (got % im.rec) {
            rc = size_error(&im, total);
            goto out;
        }
        if ((rc = import_block(&im, dev, (nand_block_t)b, buf,
                               (uint32_t)(got / im.rec))))
            goto out;
        if (got < blk_bytes)
            break;
    }
    /* anything after the device's last page makes the file too large */
    size_t extra;
    while ((extra = fread(buf, 1, blk_bytes, f)) > 0)
        total += extra;
    if (total > im.dev_bytes) {
        rc = size_error(&im, total);
        goto out;
    }
    rc = NAND_OK;
out:
    free(buf);
    if (f)
        fclose(f);
    if (rc) {
        nand_close(dev);
        return rc;
    }
    *out = dev;
    return NAND_OK;
}

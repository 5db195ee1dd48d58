/*
 * inplace.c -- the in-place map as a block device (blk.h): open, the
 * sector calls over the erase-block buffer (inplace_ebuf.c), statistics.
 * No format, no map in RAM, no wear leveling, no bad-block handling: the
 * baseline the LWN article warns about.
 */
#include "inplace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct inplace_dev *ip_of(blk_dev *b)
{
    return (struct inplace_dev *)b;
}

static const struct inplace_dev *cip_of(const blk_dev *b)
{
    return (const struct inplace_dev *)b;
}

static uint32_t ip_sector_size(const blk_dev *b)
{
    return cip_of(b)->ps;
}

static uint64_t ip_sectors(const blk_dev *b)
{
    return (uint64_t)cip_of(b)->nblocks * cip_of(b)->ppb;
}

static int range_ok(const blk_dev *b, uint64_t first, uint64_t count)
{
    uint64_t n = ip_sectors(b);
    return first <= n && count <= n - first;
}

static int ip_read(blk_dev *b, uint64_t first, uint32_t count, void *buf)
{
    struct inplace_dev *d = ip_of(b);
    if (!range_ok(b, first, count))
        return -EINVAL;
    int rc = 0;
    for (uint32_t i = 0; i < count && !rc; i++)
        rc = inplace_read_page(d, first + i, (uint8_t *)buf + (size_t)i * d->ps);
    d->st.host_sectors_read += count;
    return rc;
}

/* buf NULL: zeros (a trim) */
static int put(struct inplace_dev *d, uint64_t first, uint64_t count, const void *buf)
{
    if (d->failed)
        return -EIO;
    int rc = 0;
    for (uint64_t i = 0; i < count && !rc; i++) {
        uint64_t s = first + i;
        uint32_t pg = (uint32_t)(s % d->ppb);
        if ((rc = inplace_load(d, (uint32_t)(s / d->ppb))))
            break;
        uint8_t *dst = d->cdata + (size_t)pg * d->ps;
        if (buf)
            memcpy(dst, (const uint8_t *)buf + (size_t)i * d->ps, d->ps);
        else
            memset(dst, 0, d->ps);
        d->cstate[pg] = INPLACE_PG_OK;
        d->cdirty = 1;
    }
    return rc;
}

static int ip_write(blk_dev *b, uint64_t first, uint32_t count, const void *buf)
{
    struct inplace_dev *d = ip_of(b);
    if (!range_ok(b, first, count))
        return -EINVAL;
    d->st.host_sectors_written += count;
    d->st.host_bytes_written += (uint64_t)count * d->ps;
    return put(d, first, count, buf);
}

/* The map has no notion of a free page: a trimmed sector is written with
 * zeros, so that it reads zeros as blk.h says. */
static int ip_trim(blk_dev *b, uint64_t first, uint64_t count)
{
    struct inplace_dev *d = ip_of(b);
    if (!range_ok(b, first, count))
        return -EINVAL;
    d->st.host_sectors_trimmed += count;
    return put(d, first, count, NULL);
}

static int ip_flush(blk_dev *b)
{
    struct inplace_dev *d = ip_of(b);
    d->st.flushes++;
    return inplace_write_back(d);
}

/* bad_blocks stays 0: the map does not track them (asking the device
 * would read every block's marker) */
static void ip_get_stats(const blk_dev *b, struct blk_stats *st)
{
    *st = cip_of(b)->st;
}

static void ip_reset_stats(blk_dev *b)
{
    memset(&ip_of(b)->st, 0, sizeof ip_of(b)->st);
}

static void ip_set_gc_observer(blk_dev *b, blk_gc_observer fn, void *ctx)
{
    (void)b, (void)fn, (void)ctx; /* no GC */
}

static const char *ip_gc_policy(const blk_dev *b)
{
    (void)b;
    return "none";
}

static uint64_t ip_mem_bytes(const blk_dev *b)
{
    const struct inplace_dev *d = cip_of(b);
    return sizeof *d + (uint64_t)d->ps * d->ppb + d->ppb + d->oob;
}

static const char *ip_block_role(const blk_dev *b, uint32_t k)
{
    const struct inplace_dev *d = cip_of(b);
    int bad = k < d->nblocks ? nand_is_bad(d->dev, k) : -1;
    return bad < 0 ? NULL : bad ? "bad" : "data";
}

static int ip_write_failed(const blk_dev *b)
{
    return cip_of(b)->failed;
}

static void ip_free(struct inplace_dev *d)
{
    free(d->cdata);
    free(d->cstate);
    free(d->oobbuf);
    free(d);
}

static int ip_close(blk_dev *b)
{
    struct inplace_dev *d = ip_of(b);
    int rc = nand_is_powered(d->dev) && !d->failed ? inplace_write_back(d) : 0;
    ip_free(d);
    return rc;
}

static const struct blk_ops inplace_ops = {
    .sector_size = ip_sector_size, .sectors = ip_sectors, .read = ip_read,
    .write = ip_write, .trim = ip_trim, .flush = ip_flush, .get_stats = ip_get_stats,
    .reset_stats = ip_reset_stats, .set_gc_observer = ip_set_gc_observer,
    .gc_policy = ip_gc_policy, .mem_bytes = ip_mem_bytes, .block_role = ip_block_role,
    .write_failed = ip_write_failed, .close = ip_close,
};

int blk_inplace_open(nand_dev *dev, const char *options, blk_dev **out, char *err,
                     size_t errlen)
{
    const struct nand_config *c = nand_get_config(dev);
    if (options && *options) {
        snprintf(err, errlen, "inplace: takes no options (got '%s')", options);
        return -EINVAL;
    }
    if (c->geo.oob_size < INPLACE_OOB_BYTES || nand_blocks(c) > UINT32_MAX) {
        snprintf(err, errlen, "inplace: needs %u spare bytes a page, the device has %u",
                 INPLACE_OOB_BYTES, c->geo.oob_size);
        return -EINVAL;
    }
    struct inplace_dev *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->dev = dev;
    d->ps = c->geo.page_size;
    d->ppb = c->geo.pages_per_block;
    d->oob = c->geo.oob_size;
    d->nblocks = (uint32_t)nand_blocks(c);
    d->ceb = -1;
    d->cdata = malloc((size_t)d->ps * d->ppb);
    d->cstate = malloc(d->ppb);
    d->oobbuf = malloc(d->oob);
    if (!d->cdata || !d->cstate || !d->oobbuf) {
        ip_free(d);
        return -ENOMEM;
    }
    d->base.ops = &inplace_ops;
    d->base.kind = "inplace";
    *out = &d->base;
    return 0;
}

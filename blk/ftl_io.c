/*
 * ftl_io.c -- the FTL's I/O: read, write and trim of sectors, flush
 * (ftl_dev.c makes them a blk_dev's calls).  A sector lives in plane sector mod
 * planes, so consecutive sectors stripe over the dies and planes; the
 * pages of one call are queued (nand_submit) and waited for at its end.
 */
#include "ftl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int range_ok(const struct ftl_dev *d, uint64_t first, uint64_t count)
{
    return first <= d->sb.sectors && count <= d->sb.sectors - first;
}

/* the end of a call: the queue drained, a cut turned into -EIO */
static int done(struct ftl_dev *d, int rc)
{
    nand_wait(d->dev);
    if (!rc && !nand_is_powered(d->dev))
        rc = -EIO;
    return rc;
}

int ftl_read(struct ftl_dev *d, uint64_t first, uint32_t count, void *buf)
{
    if (!range_ok(d, first, count))
        return -EINVAL;
    int rc = 0;
    for (uint32_t i = 0; i < count && !rc; i++) {
        uint8_t *dst = (uint8_t *)buf + (size_t)i * d->ss;
        uint32_t slot = d->l2p[first + i];
        if (slot == FTL_NONE || (slot & FTL_TOMB))
            memset(dst, 0, d->ss);
        else
            rc = ftl_read_slot(d, slot, dst);
    }
    d->st.host_sectors_read += count;
    return done(d, rc);
}

/* Written or trimmed sectors are no longer damaged (with the write cache:
 * once the cache writes them out, so that GC keeps moving the old copy
 * with its damaged flag until then). */
static void undamage(struct ftl_dev *d, uint64_t first, uint64_t count)
{
    for (uint64_t s = first; d->damaged && s - first < count; s++)
        d->damaged[s / 8] &= (uint8_t)~(1u << (s % 8));
}

/* GC first when the plane is short of free blocks, then one slot */
static int put(struct ftl_dev *d, uint64_t lsn, const void *data)
{
    uint32_t plane = ftl_plane_of_sector(d, lsn);
    struct ftl_plane *pl = &d->plane[plane];
    int rc = 0;
    if (pl->nfree < d->gc_threshold)
        rc = ftl_gc_plane(d, plane);
    if (!rc)
        rc = ftl_front_add(d, plane, &pl->host, (uint32_t)lsn | (data ? 0 : FTL_TOMB), data, 0);
    return rc;
}

int ftl_write(struct ftl_dev *d, uint64_t first, uint32_t count, const void *buf)
{
    if (!range_ok(d, first, count))
        return -EINVAL;
    int rc = 0;
    for (uint32_t i = 0; i < count && !rc; i++)
        rc = put(d, first + i, (const uint8_t *)buf + (size_t)i * d->ss);
    if (!rc)
        undamage(d, first, count);
    d->st.host_sectors_written += count;
    d->st.host_bytes_written += (uint64_t)count * d->ss;
    return done(d, rc);
}

/* A trimmed sector gets a tombstone: a slot with no data, kept while an
 * older copy of the sector may still be on flash (docs/ftl.md). */
int ftl_trim(struct ftl_dev *d, uint64_t first, uint64_t count)
{
    if (!range_ok(d, first, count))
        return -EINVAL;
    int rc = 0;
    for (uint64_t i = 0; i < count && !rc; i++) {
        uint32_t slot = d->l2p[first + i];
        if (slot != FTL_NONE && !(slot & FTL_TOMB))
            rc = put(d, first + i, NULL);
    }
    if (!rc)
        undamage(d, first, count);
    d->st.host_sectors_trimmed += count;
    return done(d, rc);
}

int ftl_flush(struct ftl_dev *d)
{
    int rc = 0;
    for (uint32_t p = 0; p < d->nplanes && !rc; p++)
        rc = ftl_front_commit(d, p, &d->plane[p].host, 0);
    rc = done(d, rc);
    for (uint32_t p = 0; p < d->nplanes && !rc; p++)
        if (d->plane[p].host.block >= 0)
            ftl_settle(d, (uint32_t)d->plane[p].host.block);
    d->st.flushes++;
    return rc;
}

void ftl_free(struct ftl_dev *d)
{
    if (!d)
        return;
    for (uint32_t p = 0; d->plane && p < d->nplanes; p++) {
        free(d->plane[p].free);
        free(d->plane[p].host.buf);
        free(d->plane[p].gc.buf);
    }
    free(d->plane);
    free(d->l2p);
    free(d->p2l);
    free(d->stale);
    free(d->blk);
    free(d->pbuf);
    free(d->obuf);
    free(d);
}

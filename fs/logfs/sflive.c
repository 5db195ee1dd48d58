/*
 * sflive.c -- live bytes of the segments that hold the segment file.
 *
 * The segment file cannot count its own objects (writing a count changes
 * it), so these counts live in RAM: built on first need from the segment
 * file's tree -- its direct pointers and indirect blocks, a handful of
 * reads since one indirect block points at 512 blocks of 256 entries --
 * and kept up to date by every commit.  A segment whose count falls to
 * zero is freed like any other.
 */
#include "storage.h"

#include <errno.h>

static uint32_t *slot(struct lfs_sflive *m, uint32_t seg)
{
    uint32_t i = (seg * 2654435761u) & (m->size - 1);
    while (m->seg[i] != UINT32_MAX && m->seg[i] != seg)
        i = (i + 1) & (m->size - 1);
    return &m->seg[i];
}

static int grow(struct logfs *fs)
{
    struct lfs_sflive *m = &fs->sflive, old = *m;
    m->size = old.size ? old.size * 2 : 64;
    m->seg = lfs_alloc(fs, m->size * sizeof *m->seg);
    m->live = lfs_zalloc(fs, m->size * sizeof *m->live);
    if (!m->seg || !m->live) {
        lfs_free(fs, m->seg, m->size * sizeof *m->seg);
        lfs_free(fs, m->live, m->size * sizeof *m->live);
        *m = old;
        return -ENOMEM;
    }
    memset(m->seg, 0xff, m->size * sizeof *m->seg);
    m->count = 0;
    for (uint32_t i = 0; i < old.size; i++)
        if (old.seg[i] != UINT32_MAX) {
            uint32_t *s = slot(m, old.seg[i]);
            *s = old.seg[i];
            m->live[s - m->seg] = old.live[i];
            m->count++;
        }
    lfs_free(fs, old.seg, old.size * sizeof *old.seg);
    lfs_free(fs, old.live, old.size * sizeof *old.live);
    return 0;
}

static int add(struct logfs *fs, lfs_ptr p, int64_t delta)
{
    struct lfs_sflive *m = &fs->sflive;
    uint32_t seg = lfs_seg_of(fs, p);
    if (m->count * 2 >= m->size) {
        int rc = grow(fs);
        if (rc)
            return rc;
    }
    uint32_t *s = slot(m, seg);
    if (*s == UINT32_MAX) {
        *s = seg;
        m->count++;
    }
    uint32_t *live = &m->live[s - m->seg];
    int64_t v = (int64_t)*live + delta;
    *live = v > 0 ? (uint32_t)v : 0;
    lfs_gcidx_update(fs, seg);
    if (*live)
        return 0;
    /* empty: free it, unless it was retired (bad) -- that one stays out */
    struct lfs_segent e;
    int rc = lfs_seg_get(fs, seg, &e);
    return rc ? rc : e.state == LFS_SEG_USED ? lfs_seg_freed_add(fs, seg) : 0;
}

static int count_ptr(struct logfs *fs, void *ctx, lfs_ptr p)
{
    (void)ctx;
    return add(fs, p, lfs_ptr_len(p));
}

/* Count every on-flash object of the segment file's tree. */
static int build(struct logfs *fs)
{
    fs->sflive.built = 1;
    int rc = fs->tree->walk(fs, &fs->an.segfile, count_ptr, NULL);
    if (rc)
        fs->sflive.built = 0;
    return rc;
}

int lfs_sflive_get(struct logfs *fs, uint32_t seg, uint32_t *live)
{
    int rc = fs->sflive.built ? 0 : build(fs);
    if (rc)
        return rc;
    *live = 0;
    if (fs->sflive.size) {
        uint32_t *s = slot(&fs->sflive, seg);
        if (*s == seg)
            *live = fs->sflive.live[s - fs->sflive.seg];
    }
    return 0;
}

int lfs_sflive_account(struct logfs *fs, lfs_ptr p, int add_it)
{
    int rc = fs->sflive.built ? 0 : build(fs);
    if (rc)
        return rc;
    return add(fs, p, add_it ? (int64_t)lfs_ptr_len(p) : -(int64_t)lfs_ptr_len(p));
}

void lfs_sflive_free(struct logfs *fs)
{
    struct lfs_sflive *m = &fs->sflive;
    lfs_free(fs, m->seg, m->size * sizeof *m->seg);
    lfs_free(fs, m->live, m->size * sizeof *m->live);
    memset(m, 0, sizeof *m);
}

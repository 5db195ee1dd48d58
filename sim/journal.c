/*
 * journal.c -- IMAGE.journal: what changed since the image was saved,
 * appended by nand_sync and replayed by nand_open (layout in
 * docs/simulator.md, "The image journal").
 *
 * A sync must be durable without rewriting a large image, so it appends
 * one record holding the state of every block that changed since the
 * last sync (the page slots that changed -- from the first one a program,
 * erase or damage touched -- and the counters, alone for a block merely
 * read) plus the clock and statistics, and fsyncs.  nand_save writes the whole image and then deletes the journal
 * ("folds" it).  The journal names the image it extends (size and CRC):
 * one left behind by a crash between the rename of a save and the unlink
 * is for an older image and is ignored, as everything in it is in the
 * newer one.
 *
 * A record is all or nothing (its CRC covers it): a torn last record --
 * the file ends inside it, or it is the last and its CRC fails -- is
 * what a crash during a sync leaves and is ignored (the next sync writes
 * over it); a bad record with more bytes after it is damage and an error
 * naming the file (reading: sim_journal_replay.c).
 */
#include "journal.h"
#include "crc32.h"
#include "le.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- dirty tracking ------------------------------------------------------ */

static void clean_all(nand_dev *dev)
{
    for (uint64_t b = 0; b < dev->nblocks; b++)
        dev->jfrom[b] = JF_CLEAN;
    memcpy(dev->jbase, dev->bs, dev->nblocks * sizeof *dev->bs);
}

void sim_journal_detach(nand_dev *dev)
{
    free(dev->jpath);
    free(dev->jfrom);
    free(dev->jbase);
    dev->jpath = NULL;
    dev->jfrom = NULL;
    dev->jbase = NULL;
}

int sim_journal_attach(nand_dev *dev, const char *path, const struct jimage *id,
                   uint64_t jlen, uint64_t seq)
{
    if (!dev->jfrom) {
        dev->jfrom = malloc(dev->nblocks * sizeof *dev->jfrom);
        dev->jbase = malloc(dev->nblocks * sizeof *dev->jbase);
    }
    char *p = strdup(path);
    if (!dev->jfrom || !dev->jbase || !p) {
        free(p);
        sim_journal_detach(dev);
        return NAND_E_NOMEM;
    }
    free(dev->jpath);
    dev->jpath = p;
    dev->jimg = *id;
    dev->jlen = jlen;
    dev->jseq = seq;
    clean_all(dev);
    return NAND_OK;
}

char *sim_journal_path(const char *image)
{
    size_t n = strlen(image) + sizeof ".journal";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s.journal", image);
    return p;
}

/* ---- the image a journal extends ----------------------------------------- */

int sim_journal_image_id(int fd, struct jimage *id)
{
    struct stat st;
    uint8_t b[8];
    if (fstat(fd, &st) || st.st_size < 8 ||
        pread(fd, b, 8, st.st_size - 8) != 8)
        return NAND_E_IO;
    id->size = (uint64_t)st.st_size;
    id->crc = le64_get(b);
    return NAND_OK;
}

int sim_journal_fold(nand_dev *dev, const char *path, const struct jimage *id)
{
    char *jp = sim_journal_path(path);
    if (!jp)
        return NAND_E_NOMEM;
    /* a failed unlink leaves a journal of an older image: ignored */
    unlink(jp);
    free(jp);
    return sim_journal_attach(dev, path, id, 0, 0);
}

/* ---- writing ------------------------------------------------------------- */

struct out {
    FILE *f;
    uint32_t crc;
    int failed;
};

static void put(struct out *o, const void *p, size_t n)
{
    if (o->failed || (n && fwrite(p, 1, n, o->f) != n)) {
        o->failed = 1;
        return;
    }
    o->crc = flashlab_crc32(o->crc, p, n);
}

static void put_u64(struct out *o, uint64_t v)
{
    uint8_t b[8];
    le64_put(b, v);
    put(o, b, 8);
}

static int block_pages_dirty(const nand_dev *dev, uint64_t b)
{
    return dev->jfrom[b] != JF_CLEAN;
}

static int block_state_dirty(const nand_dev *dev, uint64_t b)
{
    return memcmp(&dev->bs[b], &dev->jbase[b], sizeof dev->bs[b]) != 0;
}

/* Slots of block b that hold anything: up to the last one not zero. */
static uint32_t slots_used(const nand_dev *dev, uint64_t b)
{
    const struct bpages *bp = dev->bp[b];
    uint32_t n = bp ? dev->cfg.geo.pages_per_block : 0;
    while (n && !bp->slot[n - 1].pg && !bp->slot[n - 1].prog_time &&
           !bp->slot[n - 1].damaged && !bp->slot[n - 1].nprog &&
           !bp->slot[n - 1].weak_bits)
        n--;
    return n;
}

/* The slots of block b a record writes: [*from, used); those before
 * *from did not change since the last sync. */
static uint32_t slots_to_write(const nand_dev *dev, uint64_t b, uint32_t *from)
{
    uint32_t used = slots_used(dev, b);
    *from = dev->jfrom[b] < used ? dev->jfrom[b] : used;
    return used;
}

/* The bytes of block b's entry (what: W_STATE | W_PAGES). */
static uint64_t entry_size(nand_dev *dev, uint64_t b, unsigned what)
{
    uint64_t n = 16;
    if (what & W_STATE)
        n += 5 * 8;
    if (what & W_PAGES) {
        uint32_t from, used = slots_to_write(dev, b, &from);
        n += 16 + (uint64_t)(used - from) * 32;
        for (uint32_t p = from; p < used; p++)
            if (dev->bp[b]->slot[p].pg)
                n += pbuf_held(dev, dev->bp[b]->slot[p].pg);
    }
    return n;
}

static void put_entry(struct out *o, nand_dev *dev, uint64_t b, unsigned what)
{
    const struct bstate *bs = &dev->bs[b];
    put_u64(o, b);
    put_u64(o, what);
    if (what & W_STATE) {
        uint64_t e;
        memcpy(&e, &bs->endurance, 8);
        put_u64(o, bs->pe);
        put_u64(o, bs->reads);
        put_u64(o, bs->next_page);
        put_u64(o, bs->flags);
        put_u64(o, e);
    }
    if (what & W_PAGES) {
        uint32_t from, used = slots_to_write(dev, b, &from);
        put_u64(o, from);
        put_u64(o, used);
        for (uint32_t p = from; p < used; p++) {
            const struct slot *sl = &dev->bp[b]->slot[p];
            uint32_t len = sl->pg ? pbuf_held(dev, sl->pg) : 0;
            put_u64(o, len);
            put_u64(o, sl->prog_time);
            put_u64(o, sl->damaged);
            /* programs since erase, and nand_corrupt's weak cells */
            put_u64(o, sl->nprog | (uint64_t)sl->weak_cw << 8 |
                           (uint64_t)sl->weak_bits << 16);
            if (len)
                put(o, sl->pg->bytes, len);
        }
    }
}

static unsigned entry_what(const nand_dev *dev, uint64_t b)
{
    return (block_state_dirty(dev, b) ? W_STATE : 0) |
           (block_pages_dirty(dev, b) ? W_PAGES : 0);
}

/* fsync the directory holding path, so that a new journal's name is
 * durable too. */
static void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

static int append(nand_dev *dev, const char *jp)
{
    nand_time_t now = dev->now > dev->queue_end ? dev->now : dev->queue_end;
    uint64_t count = 0, len = 8 + NSTATS * 8 + 8;
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        unsigned what = entry_what(dev, b);
        if (what) {
            count++;
            len += entry_size(dev, b, what);
        }
    }
    int fd = open(jp, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return NAND_E_IO;
    int fresh = dev->jlen == 0;
    /* drop a torn record a crash (ours or an earlier process's) left */
    FILE *f = NULL;
    if (ftruncate(fd, (off_t)dev->jlen) || lseek(fd, (off_t)dev->jlen, SEEK_SET) < 0 ||
        !(f = fdopen(fd, "w"))) {
        close(fd);
        return NAND_E_IO;
    }
    struct out o = {f, 0, 0};
    if (fresh) {
        put(&o, J_MAGIC, 16);
        put_u64(&o, J_VERSION);
        put_u64(&o, dev->jimg.size);
        put_u64(&o, dev->jimg.crc);
        put_u64(&o, o.crc);
        o.crc = 0;
    }
    put(&o, R_MAGIC, 8);
    put_u64(&o, dev->jseq + 1);
    put_u64(&o, len);
    put_u64(&o, now);
    uint64_t st[NSTATS];
    memcpy(st, &dev->st, sizeof st);
    for (size_t i = 0; i < NSTATS; i++)
        put_u64(&o, st[i]);
    put_u64(&o, count);
    for (uint64_t b = 0; b < dev->nblocks; b++) {
        unsigned what = entry_what(dev, b);
        if (what)
            put_entry(&o, dev, b, what);
    }
    put_u64(&o, o.crc);
    int failed = o.failed || fflush(f) || fsync(fd);
    if (failed && ftruncate(fd, (off_t)dev->jlen)) {
        /* the torn record stays; the next open or sync ignores it */
    }
    if (fclose(f))
        failed = 1;
    if (failed)
        return NAND_E_IO;
    if (fresh)
        sync_dir(jp);
    dev->jlen += (fresh ? J_HDR : 0) + R_OVER + len;
    dev->jseq++;
    clean_all(dev);
    return NAND_OK;
}

/* 1 if the image at path is still the one dev's journal extends, and
 * the journal (jp) still holds the jlen bytes dev appended.  Another
 * writer (one that ignored the lock) may have saved a new image and
 * folded the journal away: appending to it then would leave a journal
 * with no header, or one for an image that is gone. */
static int still_ours(const nand_dev *dev, const char *path, const char *jp)
{
    struct jimage id;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int same = fd >= 0 && !sim_journal_image_id(fd, &id) && id.size == dev->jimg.size &&
               id.crc == dev->jimg.crc;
    if (fd >= 0)
        close(fd);
    if (!same || !dev->jlen)
        return same;
    uint8_t h[J_HDR];
    struct stat st;
    fd = open(jp, O_RDONLY | O_CLOEXEC);
    same = fd >= 0 && !fstat(fd, &st) && (uint64_t)st.st_size >= dev->jlen &&
           pread(fd, h, J_HDR, 0) == J_HDR && !memcmp(h, J_MAGIC, 16) &&
           le64_get(h + 24) == dev->jimg.size && le64_get(h + 32) == dev->jimg.crc;
    if (fd >= 0)
        close(fd);
    return same;
}

int nand_sync(nand_dev *dev, const char *path)
{
    if (!dev || !path)
        return NAND_E_INVAL;
    if (sim_lock_check(path))
        return NAND_E_LOCKED;
    if (!dev->jpath || strcmp(dev->jpath, path))
        return nand_save(dev, path); /* no base there yet: the whole image */
    /* a journal larger than its image costs more to replay than a save
     * of the whole: fold it (the journal stays about as large as its image) */
    if (dev->jlen > dev->jimg.size && dev->jlen > J_FOLD_MIN)
        return nand_save(dev, path);
    char *jp = sim_journal_path(path);
    if (!jp)
        return NAND_E_NOMEM;
    /* replaced under us: the whole state, so nothing synced is lost */
    int rc = still_ours(dev, path, jp) ? append(dev, jp) : nand_save(dev, path);
    free(jp);
    return rc;
}

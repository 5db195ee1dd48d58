/*
 * journal.c -- IMAGE.journal: what changed since the image was saved,
 * appended by nand_sync and replayed by nand_open (layout in
 * docs/FORMAT.md, "The image journal").
 *
 * A sync must be durable without rewriting a large image, so it appends
 * one record holding the state of every block that changed since the
 * last sync (whole page tables of the blocks whose pages changed, only
 * the counters of those merely read) plus the clock and statistics, and
 * fsyncs.  nand_save writes the whole image and then deletes the journal
 * ("folds" it).  The journal names the image it extends (size and CRC):
 * one left behind by a crash between the rename of a save and the unlink
 * is for an older image and is ignored, as everything in it is in the
 * newer one.
 *
 * A record is all or nothing (its CRC covers it): a torn last record --
 * the file ends inside it, or it is the last and its CRC fails -- is
 * what a crash during a sync leaves and is ignored (the next sync writes
 * over it); a bad record with more bytes after it is damage and an error
 * naming the file.
 */
#include "nand_internal.h"
#include "crc32.h"
#include "le.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define J_MAGIC "FLASHLAB-JRNL\0\0"
#define J_VERSION 1u
#define J_HDR 48u          /* magic, version, image size, image CRC, CRC */
#define R_MAGIC "FLJREC\0"  /* 8 bytes with the NUL */
#define R_HDR 24u          /* magic, seq, payload length */
#define R_OVER (R_HDR + 8u) /* + the trailing CRC */
#define W_STATE 1u
#define W_PAGES 2u
#define J_FOLD_MIN (1u << 20)
#define NSTATS (sizeof(struct nand_stats) / sizeof(uint64_t))

/* ---- dirty tracking ------------------------------------------------------ */

static void clean_all(nand_dev *dev)
{
    memset(dev->jdirty, 0, (dev->nblocks + 7) / 8);
    memcpy(dev->jbase, dev->bs, dev->nblocks * sizeof *dev->bs);
}

void journal_detach(nand_dev *dev)
{
    free(dev->jpath);
    free(dev->jdirty);
    free(dev->jbase);
    dev->jpath = NULL;
    dev->jdirty = NULL;
    dev->jbase = NULL;
}

/* Start tracking changes against the image at path (id), whose journal
 * holds jlen valid bytes in seq records. */
static int attach(nand_dev *dev, const char *path, const struct jimage *id,
                  uint64_t jlen, uint64_t seq)
{
    if (!dev->jdirty) {
        dev->jdirty = malloc((dev->nblocks + 7) / 8);
        dev->jbase = malloc(dev->nblocks * sizeof *dev->jbase);
    }
    char *p = strdup(path);
    if (!dev->jdirty || !dev->jbase || !p) {
        free(p);
        journal_detach(dev);
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

static char *journal_path(const char *image)
{
    size_t n = strlen(image) + sizeof ".journal";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s.journal", image);
    return p;
}

/* ---- the image a journal extends ----------------------------------------- */

int journal_image_id(int fd, struct jimage *id)
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

int journal_fold(nand_dev *dev, const char *path, const struct jimage *id)
{
    char *jp = journal_path(path);
    if (!jp)
        return NAND_E_NOMEM;
    /* a failed unlink leaves a journal of an older image: ignored */
    unlink(jp);
    free(jp);
    return attach(dev, path, id, 0, 0);
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
    return dev->jdirty[b / 8] >> (b % 8) & 1;
}

static int block_state_dirty(const nand_dev *dev, uint64_t b)
{
    return memcmp(&dev->bs[b], &dev->jbase[b], sizeof dev->bs[b]) != 0;
}

/* Slots of block b to write: up to the last one that is not zero. */
static uint32_t slots_used(const nand_dev *dev, uint64_t b)
{
    const struct bpages *bp = dev->bp[b];
    uint32_t n = bp ? dev->cfg.geo.pages_per_block : 0;
    while (n && !bp->slot[n - 1].pg && !bp->slot[n - 1].prog_time &&
           !bp->slot[n - 1].damaged && !bp->slot[n - 1].nprog)
        n--;
    return n;
}

/* The bytes of block b's entry (what: W_STATE | W_PAGES). */
static uint64_t entry_size(nand_dev *dev, uint64_t b, unsigned what)
{
    uint64_t n = 16;
    if (what & W_STATE)
        n += 5 * 8;
    if (what & W_PAGES) {
        uint32_t used = slots_used(dev, b);
        n += 8 + (uint64_t)used * 32;
        for (uint32_t p = 0; p < used; p++)
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
        uint32_t used = slots_used(dev, b);
        put_u64(o, used);
        for (uint32_t p = 0; p < used; p++) {
            const struct slot *sl = &dev->bp[b]->slot[p];
            uint32_t len = sl->pg ? pbuf_held(dev, sl->pg) : 0;
            put_u64(o, len);
            put_u64(o, sl->prog_time);
            put_u64(o, sl->damaged);
            put_u64(o, sl->nprog);
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

int nand_sync(nand_dev *dev, const char *path)
{
    if (!dev || !path)
        return NAND_E_INVAL;
    if (!dev->jpath || strcmp(dev->jpath, path))
        return nand_save(dev, path); /* no base there yet: the whole image */
    /* a journal larger than its image costs more to replay than a save
     * of the whole: fold it (the journal stays about as large as its image) */
    if (dev->jlen > dev->jimg.size && dev->jlen > J_FOLD_MIN)
        return nand_save(dev, path);
    char *jp = journal_path(path);
    if (!jp)
        return NAND_E_NOMEM;
    int rc = append(dev, jp);
    free(jp);
    return rc;
}

/* ---- reading ------------------------------------------------------------- */

/* A record's payload, read with bounds checks. */
struct in {
    const uint8_t *p;
    uint64_t n, off;
    int bad;
};

static uint64_t get_u64(struct in *c)
{
    if (c->bad || c->n - c->off < 8) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = le64_get(c->p + c->off);
    c->off += 8;
    return v;
}

static const uint8_t *get_bytes(struct in *c, uint64_t n)
{
    if (c->bad || c->n - c->off < n) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *p = c->p + c->off;
    c->off += n;
    return p;
}

/* One page table of a block entry; *why says what was wrong. */
static int apply_pages(nand_dev *dev, struct in *c, uint64_t b, const char **why)
{
    const uint32_t ppb = dev->cfg.geo.pages_per_block;
    uint64_t used = get_u64(c);
    if (c->bad || used > ppb) {
        *why = "invalid page count";
        return NAND_E_CORRUPT;
    }
    bpages_unref(dev, dev->bp[b]);
    dev->bp[b] = NULL;
    if (!used)
        return NAND_OK;
    struct bpages *bp = bpages_own(dev, (nand_block_t)b);
    if (!bp)
        return NAND_E_NOMEM;
    for (uint32_t p = 0; p < used; p++) {
        struct slot *sl = &bp->slot[p];
        uint64_t len = get_u64(c);
        sl->prog_time = get_u64(c);
        sl->damaged = get_u64(c);
        uint64_t nprog = get_u64(c);
        const uint8_t *bytes = get_bytes(c, len);
        if (c->bad || len > dev->page_bytes || nprog > 255) {
            *why = "invalid page";
            return NAND_E_CORRUPT;
        }
        sl->nprog = (uint8_t)nprog;
        if (!len)
            continue;
        if (len < dev->page_bytes) {
            if (rle_decode(bytes, (uint32_t)len, dev->scratch, dev->page_bytes)) {
                *why = "invalid compact page content";
                return NAND_E_CORRUPT;
            }
            bytes = dev->scratch;
        }
        struct pbuf *pg = pbuf_new_uninit(dev);
        if (!pg)
            return NAND_E_NOMEM;
        memcpy(pg->bytes, bytes, dev->page_bytes);
        sl->pg = pbuf_intern(dev, pg);
    }
    return NAND_OK;
}

/* Apply one checked record's payload. */
static int apply(nand_dev *dev, const uint8_t *p, uint64_t n, const char **why)
{
    struct in c = {p, n, 0, 0};
    nand_time_t now = get_u64(&c);
    uint64_t st[NSTATS];
    for (size_t i = 0; i < NSTATS; i++)
        st[i] = get_u64(&c);
    uint64_t count = get_u64(&c);
    *why = "truncated record";
    if (c.bad || count > dev->nblocks)
        return NAND_E_CORRUPT;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t b = get_u64(&c), what = get_u64(&c);
        if (c.bad || b >= dev->nblocks || !what || (what & ~(uint64_t)(W_STATE | W_PAGES))) {
            *why = "invalid block entry";
            return NAND_E_CORRUPT;
        }
        if (what & W_STATE) {
            struct bstate *bs = &dev->bs[b];
            uint64_t pe = get_u64(&c), reads = get_u64(&c), next = get_u64(&c),
                     flags = get_u64(&c), e = get_u64(&c);
            double end;
            memcpy(&end, &e, 8);
            if (c.bad || next > dev->cfg.geo.pages_per_block || flags > 0xffffffffu ||
                !(end >= 1.0) || !isfinite(end)) {
                *why = "invalid block state";
                return NAND_E_CORRUPT;
            }
            bs->pe = pe;
            bs->reads = reads;
            bs->next_page = (uint32_t)next;
            bs->flags = (uint32_t)flags;
            bs->endurance = end;
            biterr_block_wear(dev, (nand_block_t)b);
        }
        if (what & W_PAGES) {
            int rc = apply_pages(dev, &c, b, why);
            if (rc)
                return rc;
        }
    }
    if (c.off != c.n) {
        *why = "trailing bytes in a record";
        return NAND_E_CORRUPT;
    }
    dev->now = now;
    uint64_t pages = dev->st.pages_stored, bytes = dev->st.bytes_stored;
    memcpy(&dev->st, st, sizeof st);
    dev->st.pages_stored = pages;
    dev->st.bytes_stored = bytes;
    return NAND_OK;
}

static int jfail(char *err, size_t errlen, const char *jp, uint64_t rec,
                 uint64_t off, const char *msg, int rc)
{
    if (err && errlen) {
        if (rec)
            snprintf(err, errlen, "%s: record %llu at byte %llu: %s (the journal is damaged)",
                     jp, (unsigned long long)rec, (unsigned long long)off, msg);
        else
            snprintf(err, errlen, "%s: %s", jp, msg);
    }
    return rc;
}

/* 1 if the n bytes at p are all zero (a file extended but never written). */
static int all_zero(const uint8_t *p, size_t n)
{
    while (n && !*p)
        p++, n--;
    return n == 0;
}

static int replay_file(nand_dev *dev, FILE *f, const char *jp,
                       const struct jimage *id, uint64_t *jlen, uint64_t *seq,
                       char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fileno(f), &st))
        return jfail(err, errlen, jp, 0, 0, strerror(errno), NAND_E_IO);
    uint64_t size = (uint64_t)st.st_size;
    uint8_t h[J_HDR];
    *jlen = *seq = 0;
    if (size < J_HDR)
        return NAND_OK; /* torn while being created: nothing committed */
    if (fread(h, 1, J_HDR, f) != J_HDR)
        return jfail(err, errlen, jp, 0, 0, "cannot read", NAND_E_IO);
    if (memcmp(h, J_MAGIC, 16) || le64_get(h + 40) != flashlab_crc32(0, h, 40))
        return jfail(err, errlen, jp, 0, 0, "not a flashlab image journal (bad header)",
                     NAND_E_CORRUPT);
    if (le64_get(h + 16) != J_VERSION) {
        char msg[80];
        snprintf(msg, sizeof msg, "unsupported journal version %llu",
                 (unsigned long long)le64_get(h + 16));
        return jfail(err, errlen, jp, 0, 0, msg, NAND_E_CORRUPT);
    }
    if (le64_get(h + 24) != id->size || le64_get(h + 32) != id->crc)
        return NAND_OK; /* of an older image, folded into this one */

    uint64_t off = J_HDR;
    uint8_t *buf = NULL;
    int rc = NAND_OK;
    while (off < size) {
        uint64_t left = size - off, rec = *seq + 1;
        uint8_t rh[R_HDR];
        size_t got = fread(rh, 1, left < R_HDR ? (size_t)left : R_HDR, f);
        if (got < R_HDR) {
            if (got != left)
                rc = jfail(err, errlen, jp, 0, 0, "cannot read", NAND_E_IO);
            break; /* torn header of the last record */
        }
        uint64_t len = le64_get(rh + 16);
        if (memcmp(rh, R_MAGIC, 8)) {
            /* zeros to the end: space allocated by a crash, never written */
            uint8_t z[4096];
            int zero = all_zero(rh, R_HDR);
            size_t k;
            while (zero && (k = fread(z, 1, sizeof z, f)) > 0)
                zero = all_zero(z, k);
            if (!zero)
                rc = jfail(err, errlen, jp, rec, off, "bad record header", NAND_E_CORRUPT);
            break;
        }
        if (left < R_OVER || len > left - R_OVER)
            break; /* ends past the end of the file: torn */
        free(buf);
        if (!(buf = malloc(len + 8))) {
            rc = jfail(err, errlen, jp, 0, 0, "out of memory", NAND_E_NOMEM);
            break;
        }
        if (fread(buf, 1, len + 8, f) != len + 8) {
            rc = jfail(err, errlen, jp, 0, 0, "cannot read", NAND_E_IO);
            break;
        }
        uint32_t crc = flashlab_crc32(flashlab_crc32(0, rh, R_HDR), buf, len);
        if (le64_get(buf + len) != crc) {
            if (off + R_OVER + len != size)
                rc = jfail(err, errlen, jp, rec, off, "checksum mismatch", NAND_E_CORRUPT);
            break; /* the last record, torn */
        }
        if (le64_get(rh + 8) != rec) {
            rc = jfail(err, errlen, jp, rec, off, "records out of sequence", NAND_E_CORRUPT);
            break;
        }
        const char *why = "";
        if ((rc = apply(dev, buf, len, &why))) {
            rc = jfail(err, errlen, jp, rec, off,
                       rc == NAND_E_NOMEM ? "out of memory" : why, rc);
            break;
        }
        off += R_OVER + len;
        *seq = rec;
        *jlen = off;
    }
    if (!rc && !*jlen)
        *jlen = J_HDR; /* header only: appends go after it */
    free(buf);
    return rc;
}

int journal_replay(nand_dev *dev, const char *path, const struct jimage *id,
                   char *err, size_t errlen)
{
    char *jp = journal_path(path);
    if (!jp)
        return jfail(err, errlen, path, 0, 0, "out of memory", NAND_E_NOMEM);
    uint64_t jlen = 0, seq = 0;
    int rc = NAND_OK;
    FILE *f = fopen(jp, "rb");
    if (f) {
        rc = replay_file(dev, f, jp, id, &jlen, &seq, err, errlen);
        fclose(f);
    } else if (errno != ENOENT) {
        rc = jfail(err, errlen, jp, 0, 0, strerror(errno), NAND_E_IO);
    }
    free(jp);
    if (!rc && (rc = attach(dev, path, id, jlen, seq)))
        jfail(err, errlen, path, 0, 0, "out of memory", rc);
    return rc;
}

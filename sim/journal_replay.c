/*
 * sim_journal_replay.c -- reading IMAGE.journal at nand_open: every committed
 * record applied in order; a torn last record ignored, damage an error
 * naming the journal (why: journal.c; layout: docs/simulator.md).
 */
#include "journal.h"
#include "crc32.h"
#include "le.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* A block entry's page slots: [from, used) given, the ones before kept,
 * the ones after erased; *why says what was wrong. */
static int apply_pages(nand_dev *dev, struct in *c, uint64_t b, const char **why)
{
    const uint32_t ppb = dev->cfg.geo.pages_per_block;
    uint64_t from = get_u64(c), used = get_u64(c);
    if (c->bad || used > ppb || from > used) {
        *why = "invalid page slot range";
        return NAND_E_CORRUPT;
    }
    if (!from) { /* the whole table */
        sim_bpages_unref(dev, dev->bp[b]);
        dev->bp[b] = NULL;
        if (!used)
            return NAND_OK;
    }
    struct bpages *bp = sim_bpages_own(dev, (nand_block_t)b);
    if (!bp)
        return NAND_E_NOMEM;
    for (uint32_t p = (uint32_t)from; p < ppb; p++) {
        sim_pbuf_unref(dev, bp->slot[p].pg);
        memset(&bp->slot[p], 0, sizeof bp->slot[p]);
    }
    for (uint32_t p = (uint32_t)from; p < used; p++) {
        struct slot *sl = &bp->slot[p];
        uint64_t len = get_u64(c);
        sl->prog_time = get_u64(c);
        sl->damaged = get_u64(c);
        uint64_t cells = get_u64(c); /* nprog, weak codeword, weak bits */
        const uint8_t *bytes = get_bytes(c, len);
        if (c->bad || len > dev->page_bytes || cells >> 32) {
            *why = "invalid page";
            return NAND_E_CORRUPT;
        }
        sl->nprog = (uint8_t)cells;
        sl->weak_cw = (uint8_t)(cells >> 8);
        sl->weak_bits = (uint16_t)(cells >> 16);
        if (!len)
            continue;
        if (len < dev->page_bytes) {
            if (sim_rle_decode(bytes, (uint32_t)len, dev->scratch, dev->page_bytes)) {
                *why = "invalid compact page content";
                return NAND_E_CORRUPT;
            }
            bytes = dev->scratch;
        }
        struct pbuf *pg = sim_pbuf_new_uninit(dev);
        if (!pg)
            return NAND_E_NOMEM;
        memcpy(pg->bytes, bytes, dev->page_bytes);
        sl->pg = sim_pbuf_intern(dev, pg);
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
            sim_biterr_block_wear(dev, (nand_block_t)b);
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

int sim_journal_replay(nand_dev *dev, const char *path, const struct jimage *id,
                   char *err, size_t errlen)
{
    char *jp = sim_journal_path(path);
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
    if (!rc && (rc = sim_journal_attach(dev, path, id, jlen, seq)))
        jfail(err, errlen, path, 0, 0, "out of memory", rc);
    return rc;
}

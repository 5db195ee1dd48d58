/*
 * retention.c -- the retention phase (retention.h): the files the workload
 * left are listed once; then, step after step, the host is idle (LogFS's
 * fsapi idle hook (LogFS: logfs_idle, which also moves what reads scheduled for scrubbing), with
 * an idle scrub (the scrub hook) every scrub_every, and every file is read
 * whole.  A file is lost at a check when any read of it fails.
 */
#include "retention.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct flist {
    char **path;
    uint8_t *lost;  /* ever lost */
    size_t n, cap;
};

struct walk {
    const struct fsapi_fs *fs;
    struct flist *fl;
    const char *dir;
    char (*subdirs)[1024];
    size_t nsub, capsub;
    int rc;
};

static int add_path(struct flist *fl, const char *p)
{
    if (fl->n == fl->cap) {
        size_t cap = fl->cap ? fl->cap * 2 : 64;
        char **np = realloc(fl->path, cap * sizeof *np);
        if (!np)
            return -ENOMEM;
        fl->path = np;
        fl->cap = cap;
    }
    if (!(fl->path[fl->n] = strdup(p)))
        return -ENOMEM;
    fl->n++;
    return 0;
}

static int on_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct walk *w = ctx;
    (void)ino;
    char p[1024];
    if (snprintf(p, sizeof p, "%s/%s", strcmp(w->dir, "/") ? w->dir : "", name) >= (int)sizeof p)
        return 0; /* deeper than any workload makes */
    if (type == S_IFREG) {
        w->rc = add_path(w->fl, p);
    } else if (type == S_IFDIR) {
        if (w->nsub == w->capsub) {
            size_t cap = w->capsub ? w->capsub * 2 : 16;
            char(*ns)[1024] = realloc(w->subdirs, cap * sizeof *ns);
            if (!ns)
                return w->rc = -ENOMEM;
            w->subdirs = ns;
            w->capsub = cap;
        }
        memcpy(w->subdirs[w->nsub++], p, sizeof p);
    }
    return w->rc;
}

/* Every regular file under dir, depth first. */
static int list_files(const struct fsapi_fs *fs, const char *dir, struct flist *fl)
{
    struct walk w = {.fs = fs, .fl = fl, .dir = dir};
    uint64_t cookie = 0;
    int rc = fs->api->readdir(fs->fs, dir, &cookie, on_entry, &w);
    rc = rc ? rc : w.rc;
    for (size_t i = 0; !rc && i < w.nsub; i++)
        rc = list_files(fs, w.subdirs[i], fl);
    free(w.subdirs);
    return rc;
}

/* 1 when every byte of path reads, 0 when a read fails (EIO: bit errors
 * past the ECC, a failed CRC), a negative errno for anything else. */
static int read_whole(const struct fsapi_fs *fs, const char *path, uint8_t *buf, size_t len)
{
    int fd = fs->api->open(fs->fs, path, O_RDONLY, 0);
    if (fd == -EIO)
        return 0;
    if (fd < 0)
        return fd;
    int ok = 1;
    for (uint64_t off = 0;; off += len) {
        int64_t n = fs->api->pread(fs->fs, fd, buf, len, off);
        if (n == -EIO)
            ok = 0;
        if (n <= 0) {
            ok = n < 0 && n != -EIO ? (int)n : ok;
            break;
        }
    }
    fs->api->close(fs->fs, fd);
    return ok;
}

/* One check: every file read; a row. */
static int check(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m,
                 struct results *db, int64_t run_id, struct flist *fl, int64_t seq,
                 nand_time_t t0, const struct nand_stats *st0, char *err, size_t errlen)
{
    static uint8_t buf[256 * 1024];
    (void)r;
    int64_t lost = 0, ever = 0;
    for (size_t i = 0; i < fl->n; i++) {
        int ok = read_whole(&m->fs, fl->path[i], buf, sizeof buf);
        if (ok < 0) {
            snprintf(err, errlen, "retention: reading %s: %s", fl->path[i], strerror(-ok));
            return -1;
        }
        if (!ok) {
            lost++;
            fl->lost[i] = 1;
        }
        /* a background worker's turn, as UBI's thread: what the reads
         * scheduled for scrubbing is moved now, not after the whole pass
         * (no flash operation when nothing is scheduled) */
        if (m->fs.api->idle && (ok = fsapi_idle(&m->fs, 0)) && ok != -EIO && ok != -EROFS) {
            snprintf(err, errlen, "retention: idle: %s", strerror(-ok));
            return -1;
        }
        ever += fl->lost[i];
    }
    struct nand_stats st;
    struct fsapi_counter c[FSAPI_COUNTERS_MAX];
    size_t nc = fsapi_stats(&m->fs, c, FSAPI_COUNTERS_MAX); /* 0 where none are kept */
    nand_get_stats(dev, &st);
    struct results_retention row = {
        .seq = seq, .sim_time_ns = (int64_t)(nand_now(dev) - t0), .files = (int64_t)fl->n,
        .lost_files = lost, .ever_lost = ever,
        .uncorrectable_reads = (int64_t)(st.uncorrectable_reads - st0->uncorrectable_reads),
        .bits_corrected = (int64_t)(st.bits_corrected - st0->bits_corrected),
        .programs = (int64_t)(st.programs - st0->programs),
        .erases = (int64_t)(st.erases - st0->erases),
        .scrub_reads = (int64_t)fsapi_counter_value(c, nc, "scrub_reads"),
        .scrub_segments = (int64_t)fsapi_counter_value(c, nc, "scrub_segments"),
        .scrub_pages = (int64_t)fsapi_counter_value(c, nc, "scrub_pages"),
    };
    if (results_add_retention(db, run_id, &row)) {
        snprintf(err, errlen, "results: %s", results_error(db));
        return -1;
    }
    return 0;
}

/* ns of idle time: the fs's idle hook (LogFS: scheduled scrubs,
 * background cleaning), or the clock alone for a kind without one. */
static int idle(struct exp_mounted *m, nand_dev *dev, uint64_t ns)
{
    if (!m->fs.api->idle) {
        nand_advance(dev, ns);
        return 0;
    }
    int rc = fsapi_idle(&m->fs, ns);
    return rc == -EIO || rc == -EROFS ? 0 : rc; /* lost media: the checks count it */
}

static int phase(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m,
                 struct results *db, int64_t run_id, struct flist *fl, char *err, size_t errlen)
{
    const struct exp_retention *t = &r->ret;
    struct nand_stats st0;
    nand_get_stats(dev, &st0);
    nand_time_t t0 = nand_now(dev);
    uint64_t budget = t->scrub_budget ? t->scrub_budget
                                     : nand_capacity_bytes(&r->dev) / r->dev.geo.page_size;
    int64_t seq = 0;
    if (check(r, dev, m, db, run_id, fl, seq++, t0, &st0, err, errlen))
        return -1;
    uint64_t steps = t->duration_ns / t->step_ns;
    nand_time_t next_scrub = t0;
    for (uint64_t s = 1; s <= steps; s++) {
        nand_time_t end = t0 + s * t->step_ns;
        while (nand_now(dev) < end) {
            if (t->scrub_every_ns && m->fs.api->scrub && nand_now(dev) >= next_scrub) {
                int rc = fsapi_scrub(&m->fs, budget);
                if (rc < 0 && rc != -EIO && rc != -EROFS) {
                    snprintf(err, errlen, "retention: scrub: %s", strerror(-rc));
                    return -1;
                }
                while (next_scrub <= nand_now(dev))
                    next_scrub += t->scrub_every_ns;
            }
            nand_time_t until =
                t->scrub_every_ns && m->fs.api->scrub && next_scrub < end ? next_scrub : end;
            int rc = until > nand_now(dev) ? idle(m, dev, until - nand_now(dev)) : 0;
            if (rc) {
                snprintf(err, errlen, "retention: idle: %s", strerror(-rc));
                return -1;
            }
        }
        if (check(r, dev, m, db, run_id, fl, seq++, t0, &st0, err, errlen))
            return -1;
    }
    return 0;
}

int exp_retention_run(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m,
                  struct results *db, int64_t run_id, char *err, size_t errlen)
{
    struct flist fl = {0};
    int rc = m->fs.api->sync(m->fs.fs);
    if (!rc)
        rc = list_files(&m->fs, "/", &fl);
    if (!rc && !(fl.lost = calloc(fl.n ? fl.n : 1, 1)))
        rc = -ENOMEM;
    int out = 0;
    if (rc) {
        snprintf(err, errlen, "retention: listing the files: %s", strerror(-rc));
        out = -1;
    } else {
        out = phase(r, dev, m, db, run_id, &fl, err, errlen);
    }
    for (size_t i = 0; i < fl.n; i++)
        free(fl.path[i]);
    free(fl.path);
    free(fl.lost);
    return out;
}

int exp_retention_remount(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m,
                      struct results *db, int64_t run_id, char *err, size_t errlen)
{
    /* what scrubbing rewrote that is no segment (LogFS: superblock copies,
     * ring moves to a fresh block), where the kind counts it */
    uint64_t super, anchor;
    if (!fsapi_counter(&m->fs, "scrub_super", &super) &&
        !fsapi_counter(&m->fs, "scrub_anchor", &anchor)) {
        if (results_set_kv(db, run_id, "scrub_super", (double)super) ||
            results_set_kv(db, run_id, "scrub_anchor", (double)anchor)) {
            snprintf(err, errlen, "results: %s", results_error(db));
            return -1;
        }
    }
    exp_run_unmount(m); /* lost metadata may fail it: the mount says the rest */
    nand_wait(dev);
    int ok = exp_run_mount(r, dev, m) == 0;
    if (results_set_kv(db, run_id, "remount_ok", ok)) {
        snprintf(err, errlen, "results: %s", results_error(db));
        return -1;
    }
    return 0;
}

/*
 * faults.c -- media-fault campaigns (see faults.h, docs/faults.md).
 *
 * The parent builds the post-workload device once, records the reference
 * contents (and, for LogFS, the commit the mount finds), and classifies
 * every page.  Then each point runs in a child forked from that device:
 * the child's copy of the memory is the copy of the device, so every
 * point starts from the same image.  The child injects, checks and writes
 * one message to its pipe; a child that dies first is a crash.
 */
#include "faults_int.h"
#include "fsdigest.h"
#include "rng.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DETAIL_MAX 2000

static const char *const outcome_names[FO_COUNT] = {
    "n/a", "crash", "refused", "silent-rollback", "wrong-bytes", "lost", "rolled-back",
    "eio", "ok"};

const char *exp_fault_outcome_name(int o)
{
    return o >= 0 && o < FO_COUNT ? outcome_names[o] : NULL;
}

int exp_fault_outcome_bad(int o)
{
    return o == FO_CRASH || o == FO_SILENT_ROLLBACK || o == FO_WRONG || o == FO_LOST;
}

enum fault_outcome exp_fault_outcome_of(const struct fault_result *r)
{
    if (!r->applied)
        return FO_NA;
    if (r->crashed)
        return FO_CRASH;
    if (!r->mounted)
        return FO_REFUSED;
    if (r->rolled_back > 0 && !r->flagged)
        return FO_SILENT_ROLLBACK;
    if (r->files_wrong)
        return FO_WRONG;
    if (r->files_missing && !r->flagged)
        return FO_LOST;
    if (r->rolled_back > 0 || r->flagged)
        return FO_ROLLED_BACK;
    if (r->files_eio || r->files_missing)
        return FO_EIO;
    return FO_OK;
}

/* ---- one point ------------------------------------------------------------- */

struct msg {
    uint64_t point;
    struct fault_result res;
    char fsck[16];
    char state[16];
    char after[16];   /* the probe's result */
    char detail[DETAIL_MAX];
};

static void dcat(char *d, size_t len, const char *fmt, const char *a)
{
    size_t n = strlen(d);
    if (n < len)
        snprintf(d + n, len - n, fmt, a);
}

static int inject(const struct exp_run *r, nand_dev *dev, const struct fpoint *pt, uint64_t no,
                  char *err, size_t errlen)
{
    const struct exp_faults *f = &r->faults;
    struct nand_corrupt c = {.block = pt->block < 0 ? 0 : (nand_block_t)pt->block,
                             .page = pt->page < 0 ? 0 : (nand_page_t)pt->page,
                             .seed = rng_key(r->seed, RNG_FAULTS, no, 1, 0, 0)};
    switch (pt->kind) {
    case EXP_FAULT_SILENT: c.mode = NAND_CORRUPT_SILENT; c.bits = f->bits ? f->bits : 8; break;
    case EXP_FAULT_BEYOND: c.mode = NAND_CORRUPT_BEYOND; c.bits = f->bits; break;
    case EXP_FAULT_UNCORRECTABLE: c.mode = NAND_CORRUPT_UNCORRECTABLE; break;
    case EXP_FAULT_RETENTION: c.mode = NAND_CORRUPT_AGE; c.age_ns = f->retention_ns; break;
    case EXP_FAULT_DISTURB: c.mode = NAND_CORRUPT_AGE; c.reads = f->reads; break;
    default: c.mode = NAND_CORRUPT_BAD; break;
    }
    return nand_corrupt(dev, &c, err, errlen);
}

/* "ok", or the errno's name for the after_write column. */
static const char *errno_name(int rc)
{
    switch (-rc) {
    case 0: return "ok";
    case EROFS: return "EROFS";
    case EIO: return "EIO";
    case ENOSPC: return "ENOSPC";
    case ENOENT: return "ENOENT";
    case ENOMEM: return "ENOMEM";
    case EUCLEAN: return "EUCLEAN";
    default: return "other";
    }
}

/* It keeps working: a new file written and synced (on a kind whose
 * namespace is one file: its first 256 KiB), the fs unmounted and
 * mounted again, and the file there (a grown bad block is only hit by a
 * write).  Unmounts m.  0, or the first error (-EROFS: the fs had said it
 * was read-only). */
static int probe(const struct exp_run *r, nand_dev *dev, struct exp_mounted *m)
{
    static uint8_t buf[65536];
    const struct fsapi *api = m->fs.api;
    int one_file = (api->features & FSAPI_F_ONE_FILE) != 0;
    const char *path = one_file ? "/disk" : "/.faults-probe";
    memset(buf, 0x5a, sizeof buf);
    int rc = 0, fd = api->open(m->fs.fs, path, one_file ? O_WRONLY : O_WRONLY | O_CREAT | O_TRUNC,
                               0644);
    if (fd < 0)
        rc = fd;
    for (int i = 0; !rc && i < 4; i++) {
        int64_t n = api->pwrite(m->fs.fs, fd, buf, sizeof buf, (uint64_t)i * sizeof buf);
        rc = n < 0 ? (int)n : n != (int64_t)sizeof buf ? -EIO : 0;
    }
    if (fd >= 0) {
        int c = api->close(m->fs.fs, fd);
        rc = rc ? rc : c;
    }
    if (!rc)
        rc = api->sync(m->fs.fs);
    int u = exp_run_unmount(m);
    if (rc)
        return rc;
    if (u)
        return u;
    struct fs_stat st;
    if ((rc = exp_run_mount(r, dev, m)))
        return rc;
    rc = api->stat(m->fs.fs, path, &st);
    if (!rc && (one_file ? st.size < 4 * sizeof buf : st.size != 4 * sizeof buf))
        rc = -EIO;
    /* the bytes too, where the file is the device */
    int fd2 = rc || !one_file ? -1 : api->open(m->fs.fs, path, O_RDONLY, 0);
    static uint8_t got[65536];
    for (int i = 0; fd2 >= 0 && !rc && i < 4; i++) {
        int64_t n = api->pread(m->fs.fs, fd2, got, sizeof got, (uint64_t)i * sizeof got);
        rc = n < 0 ? (int)n : n != (int64_t)sizeof got || memcmp(got, buf, sizeof got) ? -EIO : 0;
    }
    if (fd2 >= 0)
        api->close(m->fs.fs, fd2);
    exp_run_unmount(m);
    return rc;
}

/* Inject, fsck, mount, compare: what a child (or --point) does. */
static void check_point(const struct exp_run *r, const struct fault_options *o, struct image *im,
                        uint64_t no, const struct fpoint *pt, struct msg *out, FILE *verbose)
{
    memset(out, 0, sizeof *out);
    out->point = no;
    struct fault_result *res = &out->res;
    char e[512] = "";
    snprintf(out->state, sizeof out->state, "n/a");
    snprintf(out->fsck, sizeof out->fsck, "n/a");
    snprintf(out->after, sizeof out->after, "n/a");
    if (inject(r, im->dev, pt, no, e, sizeof e)) {
        snprintf(out->detail, sizeof out->detail, "not applied: %s", e);
        return;
    }
    res->applied = 1;
    int has_fsck = (r->fs_api->features & FSAPI_F_FSCK) != 0;
    if (has_fsck && o->fsck && r->faults.fsck) {
        char msg[1024] = "";
        int bad = o->fsck(im->dev, msg, sizeof msg);
        snprintf(out->fsck, sizeof out->fsck, bad ? "errors" : "clean");
        if (bad)
            snprintf(out->detail, sizeof out->detail, "fsck: %.900s; ", msg);
    } else if (has_fsck) {
        snprintf(out->fsck, sizeof out->fsck, "off");
    }
    struct exp_mounted m = {0};
    int rc = exp_run_mount(r, im->dev, &m);
    if (rc) {
        dcat(out->detail, sizeof out->detail, "mount: %s", strerror(-rc));
        return;
    }
    res->mounted = 1;
    /* a kind with an anchor ring says which commit the mount found */
    uint64_t seq, fallback;
    if (!fsapi_counter(&m.fs, "anchor_seq", &seq) &&
        !fsapi_counter(&m.fs, "anchor_fallback", &fallback)) {
        res->rolled_back = (int64_t)im->ref_seq - (int64_t)seq;
        res->flagged = fallback != 0;
        snprintf(out->state, sizeof out->state, res->rolled_back > 0 ? "rolled-back" : "newest");
        if (res->rolled_back > 0 || res->flagged) {
            char b[96];
            snprintf(b, sizeof b, "commit %llu of %llu%s; ", (unsigned long long)seq,
                     (unsigned long long)im->ref_seq, res->flagged ? " (flagged)" : " (not flagged)");
            dcat(out->detail, sizeof out->detail, "%s", b);
        }
    }
    exp_faults_ref_compare(&m.fs, &im->ref, res, out->detail + strlen(out->detail),
                 sizeof out->detail - strlen(out->detail));
    /* after the reads: the fs goes read-only when it first needs the block */
    uint64_t unreadable;
    if (!fsapi_counter(&m.fs, "segfile_unreadable", &unreadable)) {
        if (unreadable)
            dcat(out->detail, sizeof out->detail, "%s",
                 out->detail[0] ? "; read-only: a segment-file block is unreadable"
                                : "read-only: a segment-file block is unreadable");
    }
    if (verbose) {
        char *text = NULL;
        uint64_t d;
        wl_fs_digest(&m.fs, &d, &text);
        fprintf(verbose, "the file system after the fault:\n%s", text ? text : "");
        free(text);
    }
    res->probe = probe(r, im->dev, &m);
    snprintf(out->after, sizeof out->after, "%s", errno_name(res->probe));
}

/* ---- the campaign ---------------------------------------------------------- */

struct campaign {
    const struct exp_run *r;
    const struct fault_options *o;
    struct image *im;
    const struct plan *p;
    struct results *db;
    int64_t run_id;
    struct fault_summary *sum;
    FILE *log;
};

static const char *class_of(const struct campaign *c, const struct fpoint *pt)
{
    return pt->cls < c->im->nnames ? c->im->names[pt->cls] : "whole-device";
}

static void record(struct campaign *c, const struct msg *m)
{
    const struct fpoint *pt = &c->p->v[m->point];
    enum fault_outcome oc = exp_fault_outcome_of(&m->res);
    struct fault_summary *s = c->sum;
    s->points++;
    s->count[pt->cls][oc]++;
    if (c->db) {
        struct results_fault row = {
            .point = (int64_t)m->point, .fault = exp_fault_kind_name(pt->kind),
            .class_name = class_of(c, pt), .block = pt->block, .page = pt->page,
            .outcome = exp_fault_outcome_name(oc), .mounted = m->res.mounted, .state = m->state,
            .rolled_back = m->res.rolled_back, .flagged = m->res.flagged,
            .files = m->res.files, .files_eio = m->res.files_eio,
            .files_wrong = m->res.files_wrong, .files_missing = m->res.files_missing,
            .crashed = m->res.crashed, .fsck = m->fsck, .after_write = m->after,
            .detail = m->detail};
        results_add_fault(c->db, c->run_id, &row);
    }
    if (exp_fault_outcome_bad(oc) || oc == FO_REFUSED) {
        s->bad += exp_fault_outcome_bad(oc);
        exp_progress_report(&c->o->progress, &(struct exp_report){.phase = EXP_PHASE_NOTE});
        fprintf(c->log, "point %llu: %s fault in %s (block %lld page %lld): %s: %s\n",
                (unsigned long long)m->point, exp_fault_kind_name(pt->kind), class_of(c, pt),
                (long long)pt->block, (long long)pt->page, exp_fault_outcome_name(oc), m->detail);
        if (c->o->repro_cmd)
            fprintf(c->log, "  reproduce: %s %llu\n", c->o->repro_cmd,
                    (unsigned long long)m->point);
    }
    exp_progress_report(&c->o->progress, &(struct exp_report){
        .phase = EXP_PHASE_POINTS, .done = (double)s->points, .total = c->p->n, .bad = s->bad});
}

struct job {
    pid_t pid;
    int fd;
    uint64_t point;
};

/* Wait for one child, read its message (none: it crashed), record it. */
static void reap_one(struct campaign *c, struct job *jobs, int *njobs)
{
    int st;
    pid_t pid = waitpid(-1, &st, 0);
    for (int i = 0; i < *njobs; i++) {
        if (jobs[i].pid != pid)
            continue;
        struct msg m;
        size_t got = 0;
        ssize_t n;
        while (got < sizeof m && (n = read(jobs[i].fd, (char *)&m + got, sizeof m - got)) > 0)
            got += (size_t)n;
        close(jobs[i].fd);
        if (got != sizeof m || !WIFEXITED(st) || WEXITSTATUS(st)) {
            memset(&m, 0, sizeof m);
            m.point = jobs[i].point;
            m.res.applied = m.res.crashed = 1;
            snprintf(m.state, sizeof m.state, "n/a");
            snprintf(m.fsck, sizeof m.fsck, "n/a");
            snprintf(m.after, sizeof m.after, "n/a");
            snprintf(m.detail, sizeof m.detail, "the check died (%s)",
                     WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "a nonzero exit: an "
                     "assert or a sanitizer report, on stderr");
        }
        record(c, &m);
        jobs[i] = jobs[--*njobs];
        return;
    }
}

static void summary_init(struct fault_summary *s, const struct image *im)
{
    s->pages = im->npages;
    s->nclasses = im->nnames + 1;
    for (unsigned c = 0; c < im->nnames; c++)
        snprintf(s->classes[c], sizeof s->classes[c], "%s", im->names[c]);
    snprintf(s->classes[im->nnames], sizeof s->classes[0], "whole-device");
    for (uint64_t pg = 0; pg < im->npages; pg++)
        s->class_pages[im->cls[pg]]++;
    s->class_pages[im->nnames] = im->npages;
}

int exp_faults_run(const struct exp_run *r, struct results *db, int64_t run_id,
               const struct fault_options *o, struct fault_summary *sum, char *err,
               size_t errlen)
{
    memset(sum, 0, sizeof *sum);
    err[0] = 0;
    struct image im;
    struct plan p = {0};
    int rc = -1;
    if (exp_faults_image_build(r, o->map, &im, err, errlen) || exp_faults_plan_build(r, &im, &p, err, errlen))
        goto out;
    summary_init(sum, &im);
    struct campaign c = {.r = r, .o = o, .im = &im, .p = &p, .db = db, .run_id = run_id,
                         .sum = sum, .log = o->log ? o->log : stderr};
    if (o->point >= 0) { /* in-process, verbosely */
        if ((uint64_t)o->point >= p.n) {
            snprintf(err, errlen, "no point %lld: the campaign has points 0..%zu",
                     (long long)o->point, p.n - 1);
            goto out;
        }
        const struct fpoint *pt = &p.v[o->point];
        fprintf(c.log, "point %lld: %s fault in %s, block %lld page %lld\n",
                (long long)o->point, exp_fault_kind_name(pt->kind), class_of(&c, pt),
                (long long)pt->block, (long long)pt->page);
        struct msg m;
        check_point(r, o, &im, (uint64_t)o->point, pt, &m, c.log);
        fprintf(c.log, "outcome: %s; mounted %d, state %s, fsck %s, writing afterwards %s; "
                "files %lld: %lld unreadable, %lld wrong, %lld missing\n%s%s",
                exp_fault_outcome_name(exp_fault_outcome_of(&m.res)), m.res.mounted, m.state, m.fsck,
                m.after,
                (long long)m.res.files, (long long)m.res.files_eio,
                (long long)m.res.files_wrong, (long long)m.res.files_missing, m.detail,
                m.detail[0] ? "\n" : "");
        record(&c, &m);
        rc = 0;
        goto out;
    }
    int maxj = o->jobs > 0 ? o->jobs : 1, njobs = 0;
    struct job *jobs = calloc((size_t)maxj, sizeof *jobs);
    if (!jobs) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < p.n; i++) {
        while (njobs >= maxj)
            reap_one(&c, jobs, &njobs);
        int fds[2];
        fflush(NULL);
        if (pipe(fds)) {
            snprintf(err, errlen, "pipe: %s", strerror(errno));
            break;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            struct msg m;
            check_point(r, o, &im, i, &p.v[i], &m, NULL);
            ssize_t w = write(fds[1], &m, sizeof m);
            _exit(w == (ssize_t)sizeof m ? 0 : 1);
        }
        close(fds[1]);
        if (pid < 0) {
            close(fds[0]);
            snprintf(err, errlen, "fork: %s", strerror(errno));
            break;
        }
        jobs[njobs++] = (struct job){pid, fds[0], i};
    }
    while (njobs > 0)
        reap_one(&c, jobs, &njobs);
    free(jobs);
    rc = err[0] ? -1 : 0;
out:
    free(p.v);
    exp_faults_image_free(&im);
    return rc;
}

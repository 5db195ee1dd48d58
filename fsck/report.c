/* report.c -- the report: messages, counts, printing. */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const kind_names[FSCK_KINDS] = {
    "superblock", "anchor", "read", "pointer", "header", "crc", "tree",
    "inode", "directory", "dangling", "nlink", "orphan", "segment",
    "counter", "device", "operational",
};

const char *fsck_kind_name(enum fsck_kind kind)
{
    return (unsigned)kind < FSCK_KINDS ? kind_names[kind] : "?";
}

int fk_grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*v, n * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = n;
    return 0;
}

static size_t vmsg(struct fk *k, enum fsck_severity sev, enum fsck_kind kind,
                   int64_t block, int64_t page, int64_t ino, const char *fmt,
                   va_list ap)
{
    struct fsck_report *r = k->rep;
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    /* counted first: a message that cannot be kept is still an error (and
     * fsck, out of memory, has not done its job: exit 8) */
    if (sev == FSCK_ERROR) {
        r->errors[kind]++;
        r->nerrors++;
    } else if (sev == FSCK_WARNING) {
        r->warnings[kind]++;
        r->nwarnings++;
    }
    char *text = NULL;
    if (fk_grow((void **)&r->msgs, &r->cap, r->nmsgs + 1, sizeof *r->msgs) ||
        !(text = malloc(strlen(buf) + 1))) {
        k->oper = k->fatal = 1;
        return (size_t)-1;
    }
    strcpy(text, buf);
    r->msgs[r->nmsgs] = (struct fsck_msg){kind, sev, 0, block, page, ino, text};
    return r->nmsgs++;
}

size_t fk_msg(struct fk *k, enum fsck_severity sev, enum fsck_kind kind,
              int64_t block, int64_t page, int64_t ino, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t m = vmsg(k, sev, kind, block, page, ino, fmt, ap);
    va_end(ap);
    return m;
}

size_t fk_err_at(struct fk *k, enum fsck_kind kind, uint64_t addr, int64_t ino,
                 const char *fmt, ...)
{
    char where[96], what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fk_where(k, addr, where, sizeof where);
    return fk_msg(k, FSCK_ERROR, kind, (int64_t)(addr / k->seg_bytes),
                  (int64_t)(addr % k->seg_bytes / k->ps), ino, "%s: %s", where,
                  what);
}

void fk_plan(struct fk *k, size_t m)
{
    if (m == (size_t)-1 || !k->repair)
        return;
    if (fk_grow((void **)&k->planned, &k->planned_cap, k->nplanned + 1,
                sizeof *k->planned))
        return; /* left unmarked: reported as not repaired */
    k->planned[k->nplanned++] = m;
}

void fk_oper(struct fk *k, const char *what, int nand_err)
{
    k->oper = 1;
    k->fatal = 1;
    if (nand_err)
        fk_msg(k, FSCK_ERROR, FSCK_K_OPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "%s: %s", what, nand_strerror(nand_err));
    else
        fk_msg(k, FSCK_ERROR, FSCK_K_OPER, FSCK_NONE, FSCK_NONE, FSCK_NONE,
               "%s", what);
}

void fsck_report_free(struct fsck_report *r)
{
    for (size_t i = 0; i < r->nmsgs; i++)
        free(r->msgs[i].text);
    free(r->msgs);
    memset(r, 0, sizeof *r);
}

int fsck_report_has(const struct fsck_report *r, enum fsck_kind kind)
{
    return (unsigned)kind < FSCK_KINDS && r->errors[kind] > 0;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

void fsck_report_print(FILE *f, const struct fsck_report *r, const char *name,
                       int verbose)
{
    for (size_t i = 0; i < r->nmsgs; i++) {
        const struct fsck_msg *m = &r->msgs[i];
        if (m->severity == FSCK_INFO && !verbose)
            continue;
        fprintf(f, "%s%s%s\n",
                m->severity == FSCK_WARNING ? "warning: "
                : m->severity == FSCK_INFO  ? "info: "
                                            : "",
                m->text, m->repaired ? " (repaired)" : "");
    }
    unsigned left = r->nerrors - r->nrepaired;
    fprintf(f, "%s: %u %s", name ? name : "fsck", r->nerrors,
            plural(r->nerrors, "error", "errors"));
    if (r->nrepaired)
        fprintf(f, " (%u repaired, %u left)", r->nrepaired, left);
    fprintf(f, ", %u %s; seq %" PRIu64 ", %" PRIu64 " %s (%" PRIu64 " %s, %"
            PRIu64 " %s, %" PRIu64 " %s), %" PRIu64 " objects, %" PRIu64
            " live bytes: %s\n",
            r->nwarnings, plural(r->nwarnings, "warning", "warnings"), r->seq,
            r->inodes, plural(r->inodes, "inode", "inodes"), r->files,
            plural(r->files, "file", "files"), r->dirs,
            plural(r->dirs, "directory", "directories"), r->symlinks,
            plural(r->symlinks, "symlink", "symlinks"), r->objects,
            r->live_bytes,
            r->status == FSCK_CLEAN   ? "clean"
            : r->status == FSCK_FIXED ? "errors repaired"
            : r->status == FSCK_ERRORS ? "errors left"
                                       : "fsck failed");
}

int fsck_verdict(nand_dev *dev, char *msg, size_t len)
{
    struct fsck_report rep;
    int rc = fsck_run(dev, 0, &rep);
    if (rc) {
        const char *first = "no message";
        for (size_t i = 0; i < rep.nmsgs; i++)
            if (rep.msgs[i].severity == FSCK_ERROR) {
                first = rep.msgs[i].text;
                break;
            }
        snprintf(msg, len, "exit %d, %u errors; first: %s", rc, rep.nerrors, first);
    }
    fsck_report_free(&rep);
    return rc;
}

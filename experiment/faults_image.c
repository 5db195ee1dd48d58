/*
 * faults_image.c -- the post-workload device of a media-fault campaign,
 * its reference contents and page map, and the seeded fault points
 * (faults_int.h).
 */
#include "faults_int.h"
#include "rng.h"
#include "workload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int stop_reached(const struct exp_run *r, uint64_t calls, uint64_t host)
{
    const struct exp_stop *st = &r->stop;
    uint64_t cap = nand_capacity_bytes(&r->dev);
    return (st->ops && calls >= st->ops) || (st->host_bytes && host >= st->host_bytes) ||
           (st->device_fills > 0 && (double)host >= st->device_fills * (double)cap);
}

/* mkfs, the workload (setup and proper, to its stop), sync, unmount. */
static int run_workload(const struct exp_run *r, nand_dev *dev, char *err, size_t errlen)
{
    struct exp_mounted m = {0};
    struct workload *w = NULL;
    struct wl_exec *x = NULL;
    char werr[512];
    int rc = exp_run_mkfs(r, dev);
    if (rc || (rc = exp_run_mount(r, dev, &m))) {
        snprintf(err, errlen, "mkfs/mount: %s", strerror(-rc));
        return -1;
    }
    int ret = -1;
    if (workload_create(&r->wl, r->seed, &m.fs, &w, werr, sizeof werr)) {
        snprintf(err, errlen, "workload: %s", werr);
        goto out;
    }
    if (wl_exec_create(&m.fs, &x)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    wl_exec_set_content_light(x, r->wl.content_light);
    uint64_t calls = 0, host = 0;
    for (;;) {
        struct trace_rec op;
        int n = workload_next(w, &op, werr, sizeof werr);
        if (n < 0) {
            snprintf(err, errlen, "workload: %s", werr);
            goto out;
        }
        if (!n)
            break;
        int setup = workload_in_setup(w);
        if (!setup && stop_reached(r, calls, host))
            break;
        wl_exec_set_setup(x, setup);
        int64_t res = wl_exec_apply(x, &op, setup ? NULL : &host);
        if (res < 0 && res != -ENOSPC) {
            snprintf(err, errlen, "call %llu: %s", (unsigned long long)calls + 1,
                     strerror((int)-res));
            goto out;
        }
        calls += !setup;
    }
    wl_exec_free(x);
    x = NULL;
    if ((rc = m.fs.api->sync(m.fs.fs)) || (rc = exp_run_unmount(&m))) {
        snprintf(err, errlen, "sync/unmount after the workload: %s", strerror(-rc));
        goto out;
    }
    ret = 0;
out:
    wl_exec_free(x);
    workload_free(w);
    exp_run_unmount(&m);
    return ret;
}

int exp_faults_build_device(const struct exp_run *r, nand_dev **dev, char *err, size_t errlen)
{
    int rc = nand_create(&r->dev, dev);
    if (rc) {
        snprintf(err, errlen, "device: %s", nand_strerror(rc));
        return -1;
    }
    if (run_workload(r, *dev, err, errlen)) {
        nand_close(*dev);
        *dev = NULL;
        return -1;
    }
    return 0;
}

int exp_faults_page_map(const struct exp_run *r, nand_dev *dev, fault_map_fn o_map, uint8_t *cls,
                    const char *const **names, char *err, size_t errlen)
{
    if (r->fs_api->page_map) {
        int rc = r->fs_api->page_map(dev, cls);
        *names = r->fs_api->page_classes;
        if (rc)
            snprintf(err, errlen, "%s page map: %s", r->fs_api->name, strerror(-rc));
        return rc ? -1 : 0;
    }
    if (!o_map) {
        snprintf(err, errlen, "%s has no page map (LogFS's comes from fsck: flashlab faults)",
                 r->fs_api->name);
        return -1;
    }
    return o_map(dev, cls, names, err, errlen) ? -1 : 0;
}

void exp_faults_image_free(struct image *im)
{
    exp_faults_ref_free(&im->ref);
    free(im->cls);
    if (im->dev)
        nand_close(im->dev);
    memset(im, 0, sizeof *im);
}

/* The device after the workload, its reference contents and its map; the
 * reference mount and the map's reads are undone (snapshot), so every
 * point sees the device exactly as the workload left it. */
int exp_faults_image_build(const struct exp_run *r, fault_map_fn map, struct image *im, char *err,
                       size_t errlen)
{
    memset(im, 0, sizeof *im);
    if (exp_faults_build_device(r, &im->dev, err, errlen))
        return -1;
    int rc;
    nand_snapshot *snap = NULL;
    if (nand_snapshot_take(im->dev, &snap)) {
        snprintf(err, errlen, "snapshot: out of memory");
        return -1;
    }
    struct exp_mounted m = {0};
    int ret = -1;
    if ((rc = exp_run_mount(r, im->dev, &m))) {
        snprintf(err, errlen, "mount after the workload: %s", strerror(-rc));
        goto out;
    }
    if ((rc = exp_faults_ref_record(&m.fs, &im->ref))) {
        snprintf(err, errlen, "reading the reference contents: %s", strerror(-rc));
        goto out;
    }
    uint64_t seq;
    if (!fsapi_counter(&m.fs, "anchor_seq", &seq))
        im->ref_seq = seq;
    exp_run_unmount(&m);
    nand_snapshot_restore(im->dev, snap);
    const struct nand_config *c = nand_get_config(im->dev);
    im->ppb = c->geo.pages_per_block;
    im->npages = nand_blocks(c) * im->ppb;
    if (!(im->cls = malloc(im->npages))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (exp_faults_page_map(r, im->dev, map, im->cls, &im->names, err, errlen))
        goto out;
    while (im->names[im->nnames])
        im->nnames++;
    if (im->nnames > FAULT_MAX_CLASSES) {
        snprintf(err, errlen, "the page map names more than %d classes", FAULT_MAX_CLASSES);
        goto out;
    }
    ret = 0;
out:
    exp_run_unmount(&m);
    nand_snapshot_restore(im->dev, snap);
    nand_snapshot_free(snap);
    return ret;
}

/* ---- the points ------------------------------------------------------------ */



static int plan_add(struct plan *p, struct fpoint pt)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        struct fpoint *v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return -1;
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = pt;
    return 0;
}

static int class_wanted(const struct exp_faults *f, const char *name)
{
    if (!strcmp(name, "bad-block"))
        return 0; /* a bad block holds nothing the fs uses */
    if (!f->nclasses)
        return 1;
    for (uint32_t i = 0; i < f->nclasses; i++)
        if (!strcmp(f->classes[i], name))
            return 1;
    return 0;
}

/* Kinds in enum order; for each, classes in map order; for each, up to
 * `points` pages of that class drawn without repeats from the run's seed
 * (a partial Fisher-Yates shuffle).  Retention ages the whole device (time
 * passes for every page at once): one point, of no class. */
int exp_faults_plan_build(const struct exp_run *r, const struct image *im, struct plan *p,
                      char *err, size_t errlen)
{
    const struct exp_faults *f = &r->faults;
    for (uint32_t i = 0; i < f->nclasses; i++) {
        unsigned c = 0;
        while (c < im->nnames && strcmp(im->names[c], f->classes[i]))
            c++;
        if (c == im->nnames) {
            size_t n = (size_t)snprintf(err, errlen, "faults.classes: %s has no class '%s' "
                                        "(its classes:", r->fs_api->name, f->classes[i]);
            for (unsigned k = 0; k < im->nnames && n < errlen; k++)
                n += (size_t)snprintf(err + n, errlen - n, " %s", im->names[k]);
            if (n < errlen)
                snprintf(err + n, errlen - n, ")");
            return -1;
        }
    }
    uint64_t *idx = malloc(im->npages * sizeof *idx);
    if (!idx) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int k = 0; k < EXP_FAULT_KINDS; k++) {
        if (!(f->kinds & (1u << k)))
            continue;
        if (k == EXP_FAULT_RETENTION) {
            if (plan_add(p, (struct fpoint){(uint8_t)k, (uint8_t)im->nnames, -1, -1}))
                goto oom;
            continue;
        }
        for (unsigned c = 0; c < im->nnames; c++) {
            if (!class_wanted(f, im->names[c]))
                continue;
            uint64_t n = 0;
            for (uint64_t pg = 0; pg < im->npages; pg++)
                if (im->cls[pg] == c)
                    idx[n++] = pg;
            for (uint64_t i = 0; i < f->points && i < n; i++) {
                uint64_t j = i + rng_key(r->seed, RNG_FAULTS, (uint64_t)k, c, i, 0) % (n - i);
                uint64_t t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
                if (plan_add(p, (struct fpoint){(uint8_t)k, (uint8_t)c,
                                                (int64_t)(idx[i] / im->ppb),
                                                (int64_t)(idx[i] % im->ppb)}))
                    goto oom;
            }
        }
    }
    free(idx);
    return 0;
oom:
    free(idx);
    snprintf(err, errlen, "out of memory");
    return -1;
}

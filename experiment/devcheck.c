/*
 * devcheck.c -- is the run's device big enough for its file system and
 * workload?  Asked when the experiment is loaded, through fsapi alone, so
 * that every kind answers the same way: on a fresh in-memory copy of the
 * device, mkfs, mount and make the workload (which sizes its files from
 * the free space the fs reports).  When that fails and a larger device
 * would do, the error names the smallest one (blocks_per_plane found by
 * doubling, then bisection) instead of "mkfs: No space left on device" or
 * "files of 0 bytes cannot hold a request" at run time.
 */
#include "exp_internal.h"

#include <stdio.h>
#include <string.h>

#define GROW_MAX 64u /* look for a working size up to 64 times the device */
/* Larger devices are not tried: every kind needs a few dozen erase blocks,
 * and a trial on a device of many GiB (a JFFS2 mkfs and scan of every
 * block) would make loading slow. */
#define TRY_BLOCKS_MAX 4096u

/* 0 when r's kind can be made and mounted on a device of cfg's geometry
 * (and, with workloads, r's workloads made on it); else -1 with what
 * failed in why. */
static int trial(const struct exp_run *r, int workloads, const struct nand_config *cfg,
                 char *why, size_t n)
{
    nand_dev *dev;
    int rc = nand_create(cfg, &dev);
    if (rc) {
        snprintf(why, n, "device: %s", nand_strerror(rc));
        return -1;
    }
    struct exp_mounted m = {0};
    char werr[256];
    struct workload *w = NULL;
    if ((rc = exp_run_mkfs(r, dev))) {
        snprintf(why, n, "mkfs: %s", strerror(-rc));
    } else if ((rc = exp_run_mount(r, dev, &m))) {
        snprintf(why, n, "mount: %s", strerror(-rc));
    } else if (workloads) {
        /* the workloads read nothing of the device here; a trace is only opened */
        const struct wl_spec *specs[2] = {r->has_age ? &r->age : NULL, &r->wl};
        for (int i = 0; i < 2 && !rc; i++) {
            if (!specs[i] || !strcmp(specs[i]->kind, "trace"))
                continue;
            if ((rc = workload_create(specs[i], r->seed, &m.fs, &w, werr, sizeof werr)))
                snprintf(why, n, "%sworkload: %s", i ? "" : "age.", werr);
            workload_free(w);
            w = NULL;
        }
    }
    exp_run_unmount(&m);
    nand_close(dev);
    return rc ? -1 : 0;
}

/* The smallest blocks_per_plane (cfg's geometry otherwise) that passes
 * the trial, when one up to GROW_MAX times cfg's does; else 0. */
static uint32_t smallest(const struct exp_run *r, int workloads, const struct nand_config *c)
{
    char later[512];
    struct nand_config cfg = *c;
    uint32_t have = cfg.geo.blocks_per_plane, lo = have, hi = 0;
    for (uint64_t b = (uint64_t)have * 2; b <= (uint64_t)have * GROW_MAX && !hi; b *= 2) {
        cfg.geo.blocks_per_plane = (uint32_t)b;
        if (!trial(r, workloads, &cfg, later, sizeof later))
            hi = (uint32_t)b;
        else
            lo = (uint32_t)b;
    }
    while (hi && hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        cfg.geo.blocks_per_plane = mid;
        if (!trial(r, workloads, &cfg, later, sizeof later))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

int exp_check_device(struct yview *v, yaml_node_t *root, const struct exp_run *r, char *err,
                     size_t errlen)
{
    char why[512];
    const struct nand_geometry *g = &r->dev.geo;
    uint64_t blocks = (uint64_t)g->channels * g->dies_per_channel * g->planes_per_die *
                      g->blocks_per_plane;
    if (blocks > TRY_BLOCKS_MAX || !trial(r, 1, &r->dev, why, sizeof why))
        return 0;
    uint32_t hi = smallest(r, 1, &r->dev);
    if (!hi)
        return 0; /* not a matter of size: the run reports what fails */
    struct nand_config cfg = r->dev;
    cfg.geo.blocks_per_plane = hi;
    double mib = (double)nand_capacity_bytes(&cfg) / (1 << 20);
    double have_mib = (double)nand_capacity_bytes(&r->dev) / (1 << 20);
    yaml_node_t *dn = ydoc_view_get(v, root, "", "device");
    return ydoc_fail(v->d, dn, err, errlen, "device: too small for %s with this workload: "
                     "%.4g MiB (blocks_per_plane %u) gives \"%s\"; the smallest that works is "
                     "%.4g MiB (device.blocks_per_plane: %u)", r->fs_api->name, have_mib,
                     r->dev.geo.blocks_per_plane, why, mib, hi);
}

uint32_t experiment_min_blocks_per_plane(const struct fsapi *api, const char *options,
                                         const struct nand_config *cfg)
{
    static struct exp_run r; /* large; the trial reads fs_api and fs_options alone */
    memset(&r, 0, sizeof r);
    r.fs_api = api;
    snprintf(r.fs_options, sizeof r.fs_options, "%s", options ? options : "");
    return smallest(&r, 0, cfg);
}

/* faults_int.h -- what the files of the media-fault campaign share
 * (faults_image.c builds the device, its map and the points; faults.c
 * checks them). */
#ifndef FLASHLAB_FAULTS_INT_H
#define FLASHLAB_FAULTS_INT_H

#include "faults.h"
#include "faults_ref.h"

/* The device after the workload, the reference and the page map. */
struct image {
    nand_dev *dev;
    struct fref ref;
    uint64_t ref_seq;   /* LogFS: the commit a mount of the intact image finds */
    uint8_t *cls;       /* the page map */
    const char *const *names;
    unsigned nnames;
    uint64_t npages;
    uint32_t ppb;
};

/* One fault point: a kind at a page of a class. */
struct fpoint {
    uint8_t kind;
    uint8_t cls;      /* im->nnames: the whole device (retention) */
    int64_t block, page;
};

struct plan {
    struct fpoint *v;
    size_t n, cap;
};

/* The device r's workload leaves, its reference contents (the mount
 * undone) and its page map.  0, or -1 with err. */
int exp_faults_image_build(const struct exp_run *r, fault_map_fn map, struct image *im, char *err,
                size_t errlen);
void exp_faults_image_free(struct image *im);
/* The points of r's faults: section on im (faults.md, "What happens").
 * 0, or -1 with err (a class the map lacks, no memory). */
int exp_faults_plan_build(const struct exp_run *r, const struct image *im, struct plan *p, char *err,
               size_t errlen);

#endif

/* faults_ref.h -- the reference contents of a file system (every path, its
 * type, size and content hash), recorded before a fault and compared with
 * what the fs reads back after it (faults.c). */
#ifndef FLASHLAB_FAULTS_REF_H
#define FLASHLAB_FAULTS_REF_H

#include "faults.h"
#include "fsapi.h"

struct fref_ent {
    char *path;
    uint32_t mode;
    uint64_t size, hash;
};
struct fref {
    struct fref_ent *v;
    size_t n, cap;
};

/* Walk fs from the root into ref.  0, or a negative errno. */
int exp_faults_ref_record(const struct fsapi_fs *fs, struct fref *ref);
/* Read every path of ref from fs: res->files, files_eio, files_wrong,
 * files_missing; the first few problems named in detail. */
void exp_faults_ref_compare(const struct fsapi_fs *fs, const struct fref *ref, struct fault_result *res,
                  char *detail, size_t len);
void exp_faults_ref_free(struct fref *ref);

#endif

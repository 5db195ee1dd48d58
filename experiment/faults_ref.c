/* faults_ref.c -- reference contents and the comparison after a fault
 * (faults_ref.h).  Every path is looked up again by name after the fault,
 * so a damaged directory shows as errors (or missing names) below it. */
#include "faults_ref.h"
#include "fsdigest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REF_DEPTH 64

static int add(struct fref *ref, const char *path, const struct fs_stat *st, uint64_t hash)
{
    if (ref->n == ref->cap) {
        size_t cap = ref->cap ? 2 * ref->cap : 64;
        struct fref_ent *v = realloc(ref->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        ref->v = v;
        ref->cap = cap;
    }
    char *p = strdup(path);
    if (!p)
        return -ENOMEM;
    ref->v[ref->n++] = (struct fref_ent){p, st->mode, S_ISDIR(st->mode) ? 0 : st->size, hash};
    return 0;
}

static int walk(const struct fsapi_fs *fs, const char *dir, struct fref *ref, int depth)
{
    if (depth > REF_DEPTH)
        return -ELOOP;
    char **names = NULL;
    size_t n = 0;
    int rc = wl_fs_list_dir(fs, dir, &names, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        char path[4096];
        struct fs_stat st;
        uint64_t h = 0;
        snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") ? dir : "", names[i]);
        if (!(rc = fs->api->lstat(fs->fs, path, &st)) && !(rc = wl_fs_content_hash(fs, path, &st, &h)) &&
            !(rc = add(ref, path, &st, h)) && S_ISDIR(st.mode))
            rc = walk(fs, path, ref, depth + 1);
    }
    wl_fs_names_free(names, n);
    return rc;
}

int exp_faults_ref_record(const struct fsapi_fs *fs, struct fref *ref)
{
    memset(ref, 0, sizeof *ref);
    return walk(fs, "/", ref, 0);
}

static void note(char *detail, size_t len, const char *what, const char *path, int rc)
{
    size_t n = strlen(detail);
    if (n + 80 >= len)
        return;
    snprintf(detail + n, len - n, "%s%s %s%s%s", n ? "; " : "", what, path, rc ? ": " : "",
             rc ? strerror(-rc) : "");
}

void exp_faults_ref_compare(const struct fsapi_fs *fs, const struct fref *ref, struct fault_result *res,
                  char *detail, size_t len)
{
    res->files = (int64_t)ref->n;
    for (size_t i = 0; i < ref->n; i++) {
        const struct fref_ent *e = &ref->v[i];
        struct fs_stat st;
        uint64_t h = 0;
        int rc = fs->api->lstat(fs->fs, e->path, &st);
        if (rc == -ENOENT) {
            res->files_missing++;
            note(detail, len, "missing", e->path, 0);
            continue;
        }
        if (!rc && (st.mode & S_IFMT) != (e->mode & S_IFMT)) {
            res->files_wrong++;
            note(detail, len, "wrong type", e->path, 0);
            continue;
        }
        if (!rc)
            rc = wl_fs_content_hash(fs, e->path, &st, &h);
        if (rc) {
            res->files_eio++;
            note(detail, len, "error", e->path, rc);
        } else if ((!S_ISDIR(st.mode) && st.size != e->size) || h != e->hash) {
            res->files_wrong++;
            note(detail, len, "wrong bytes", e->path, 0);
        }
    }
}

void exp_faults_ref_free(struct fref *ref)
{
    for (size_t i = 0; i < ref->n; i++)
        free(ref->v[i].path);
    free(ref->v);
    memset(ref, 0, sizeof *ref);
}

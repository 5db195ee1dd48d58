/* paths.c -- the messages about an inode name its path too, where the
 * directory walk found one: "inode 7: ... (path /docs/a.txt)".  An inode
 * no entry names (an orphan, one under a lost directory) keeps its number
 * alone. */
#include "fsck_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT_INO 2  /* the root directory (FORMAT.md) */
#define DEPTH_MAX 64 /* a cycle of directories (an error of its own) stops here */

/* The first entry naming ino, or NULL. */
static const struct fk_dent *entry_of(const struct fk *k, uint64_t ino)
{
    for (size_t i = 0; i < k->ndents; i++)
        if (k->dents[i].ino == ino)
            return &k->dents[i];
    return NULL;
}

/* ino's path into out, "/" for the root; 0, or -1 when none is known. */
static int path_of(const struct fk *k, uint64_t ino, char *out, size_t cap)
{
    char tmp[1024];
    size_t len = 0;
    tmp[0] = 0;
    for (int depth = 0; ino != ROOT_INO; depth++) {
        const struct fk_dent *d = entry_of(k, ino);
        if (!d || depth == DEPTH_MAX || len + d->name_len + 2 > sizeof tmp)
            return -1;
        memmove(tmp + d->name_len + 1, tmp, len + 1); /* prepend "/name" */
        tmp[0] = '/';
        memcpy(tmp + 1, k->names + d->name, d->name_len);
        len += (size_t)d->name_len + 1;
        ino = d->dir;
    }
    snprintf(out, cap, "%s", len ? tmp : "/");
    return 0;
}

void fk_name_paths(struct fk *k)
{
    struct fsck_report *r = k->rep;
    for (size_t i = 0; i < r->nmsgs; i++) {
        struct fsck_msg *m = &r->msgs[i];
        char path[1024];
        if (m->ino < 0 || path_of(k, (uint64_t)m->ino, path, sizeof path))
            continue;
        size_t n = strlen(m->text) + strlen(path) + 9;
        char *t = malloc(n);
        if (!t)
            return; /* the numbers alone, as before */
        snprintf(t, n, "%s (path %s)", m->text, path);
        free(m->text);
        m->text = t;
    }
}

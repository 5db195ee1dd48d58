/*
 * fsdigest.c -- one 64-bit value for the whole state of a file system:
 * every path (sorted), its type, permission bits, link count, size, and a
 * hash of its content or symlink target.  Two states are equal exactly
 * when (up to hash collisions) their digests are, which is what the
 * power-cut checker compares against the reference run's commit points.
 * Inode numbers and times are left out: they are not part of the state a
 * user can tell apart after a crash (a recreated file may get a new
 * number).  Optionally, the same walk as text, for failure reports.
 */
#include "fsdigest.h"
#include "rng.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DIGEST_DEPTH 64

struct names {
    char **v;
    size_t n, cap;
    int err;
};

static int collect(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct names *l = ctx;
    (void)ino;
    (void)type;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->err = -ENOMEM;
            return 1;
        }
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(name))) {
        l->err = -ENOMEM;
        return 1;
    }
    l->n++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int wl_fs_list_dir(const struct fsapi_fs *fs, const char *dir, char ***names, size_t *n)
{
    struct names l = {0};
    uint64_t cookie = 0;
    int rc = fs->api->readdir(fs->fs, *dir ? dir : "/", &cookie, collect, &l);
    if (!rc)
        rc = l.err;
    if (rc) {
        wl_fs_names_free(l.v, l.n);
        return rc;
    }
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_str);
    *names = l.v;
    *n = l.n;
    return 0;
}

void wl_fs_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static uint64_t mix_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return rng_mix(h);
}

struct walk {
    const struct fsapi_fs *fs;
    uint64_t h;
    char *text;
    size_t len, cap;
    int want_text, err;
};

static void text_add(struct walk *w, const char *line)
{
    size_t n = strlen(line);
    if (!w->want_text || w->err)
        return;
    if (w->len + n + 1 > w->cap) {
        size_t cap = (w->cap ? 2 * w->cap : 4096) + n;
        char *t = realloc(w->text, cap);
        if (!t) {
            w->err = -ENOMEM;
            return;
        }
        w->text = t;
        w->cap = cap;
    }
    memcpy(w->text + w->len, line, n + 1);
    w->len += n;
}

/* The content hash of a regular file or the target of a symlink. */
int wl_fs_content_hash(const struct fsapi_fs *fs, const char *path, const struct fs_stat *st,
                    uint64_t *out)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    if (S_ISLNK(st->mode)) {
        char buf[4096];
        int64_t n = fs->api->readlink(fs->fs, path, buf, sizeof buf);
        if (n < 0)
            return (int)n;
        *out = mix_bytes(h, buf, (size_t)n);
        return 0;
    }
    if (!S_ISREG(st->mode)) {
        *out = 0;
        return 0;
    }
    int fd = fs->api->open(fs->fs, path, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    static uint8_t buf[65536];
    int rc = 0;
    for (uint64_t off = 0; off < st->size;) {
        int64_t n = fs->api->pread(fs->fs, fd, buf, sizeof buf, off);
        if (n <= 0) {
            rc = n < 0 ? (int)n : -EIO; /* shorter than its size */
            break;
        }
        h = mix_bytes(h, buf, (size_t)n);
        off += (uint64_t)n;
    }
    fs->api->close(fs->fs, fd);
    *out = h;
    return rc;
}

/* The hash of a file's extended attributes, names and values in the
 * order listed (LogFS lists them sorted); 0 when it has none or its fs
 * keeps none. */
static int xattr_hash(const struct fsapi_fs *fs, const char *path, uint64_t *out)
{
    static char names[65536];
    static uint8_t value[65536];
    *out = 0;
    int64_t n = fsapi_listxattr(fs, path, names, sizeof names);
    if (n == -ENOTSUP || n == 0)
        return 0;
    if (n < 0)
        return (int)n;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int64_t i = 0; i < n; i += (int64_t)strlen(names + i) + 1) {
        int64_t v = fsapi_getxattr(fs, path, names + i, value, sizeof value);
        if (v < 0)
            return (int)v;
        h = mix_bytes(mix_bytes(h, names + i, strlen(names + i) + 1), value, (size_t)v);
        h = mix_bytes(h, &v, sizeof v);
    }
    *out = h;
    return 0;
}

static void walk_dir(struct walk *w, const char *path, int depth)
{
    char **names = NULL;
    size_t n = 0;
    int rc = depth > DIGEST_DEPTH ? -ELOOP : wl_fs_list_dir(w->fs, path, &names, &n);
    if (rc)
        w->err = rc;
    for (size_t i = 0; i < n && !w->err; i++) {
        char p[4096];
        if (snprintf(p, sizeof p, "%s/%s", path, names[i]) >= (int)sizeof p) {
            w->err = -ENAMETOOLONG;
            break;
        }
        struct fs_stat st;
        uint64_t ch = 0, xh = 0;
        if ((rc = w->fs->api->lstat(w->fs->fs, p, &st)) ||
            (rc = wl_fs_content_hash(w->fs, p, &st, &ch)) || (rc = xattr_hash(w->fs, p, &xh))) {
            w->err = rc;
            break;
        }
        /* what a file is: type and mode, owner, links, size, device,
         * content (a symlink's target), attributes */
        uint64_t rec[8] = {st.mode, st.nlink, S_ISDIR(st.mode) ? 0 : st.size, ch,
                           st.uid, st.gid, st.rdev, xh};
        w->h = mix_bytes(mix_bytes(w->h, p, strlen(p) + 1), rec, sizeof rec);
        char line[4300];
        snprintf(line, sizeof line, "%s %o %u:%u nlink %u size %llu rdev %llx hash %016llx "
                 "xattr %016llx\n", p, (unsigned)st.mode, (unsigned)st.uid, (unsigned)st.gid,
                 (unsigned)st.nlink, (unsigned long long)(S_ISDIR(st.mode) ? 0 : st.size),
                 (unsigned long long)st.rdev, (unsigned long long)ch, (unsigned long long)xh);
        text_add(w, line);
        if (S_ISDIR(st.mode))
            walk_dir(w, p, depth + 1);
    }
    wl_fs_names_free(names, n);
}

int wl_fs_digest(const struct fsapi_fs *fs, uint64_t *digest, char **text)
{
    struct walk w = {.fs = fs, .h = 0x6a09e667f3bcc908ULL, .want_text = text != NULL};
    walk_dir(&w, "", 0);
    if (w.err) {
        free(w.text);
        if (text)
            *text = NULL;
        return w.err;
    }
    *digest = w.h;
    if (text)
        *text = w.text ? w.text : strdup("(empty)\n");
    return 0;
}

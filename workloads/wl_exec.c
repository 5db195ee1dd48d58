/*
 * wl_exec.c -- applying trace records to a mounted file system (fsapi).  Files are
 * opened read-write on first use and kept in a small cache keyed by path
 * (LRU close past WL_FDS), so a stream of 4 KiB writes costs no open per
 * write; unlink and rename keep the cache in step with the namespace.
 * Written bytes come from wl_exec_payload: new data every write, never
 * zeros (LogFS stores trailing zeros of a block as a hole).
 */
#include "workload.h"
#include "rng.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WL_FDS 64
#define PAT (64u << 10)
#define IO_MAX (4u << 20) /* larger requests are split into calls of this */

struct wl_fd {
    char *path; /* NULL: slot free */
    int fd;
    uint64_t last_use;
};

struct wl_exec {
    const struct fsapi *api;
    void *fs;
    struct wl_fd fds[WL_FDS];
    uint64_t tick, seq;
    int setup, light;
    uint32_t squeeze;     /* compressible bytes of each WL_COMPRESS_CHUNK */
    uint8_t pat[2 * PAT]; /* the pattern twice: any rotation is one run */
    uint8_t *buf;
    size_t cap;
};

int wl_exec_create(const struct fsapi_fs *fs, struct wl_exec **out)
{
    struct wl_exec *x = calloc(1, sizeof *x);
    if (!(*out = x))
        return -ENOMEM;
    x->api = fs->api;
    x->fs = fs->fs;
    for (uint32_t i = 0; i < PAT; i += 8) {
        uint64_t h = rng_mix(0x5eed0f0a11ull + i);
        for (int k = 0; k < 8; k++, h >>= 8)
            x->pat[i + k] = x->pat[PAT + i + k] = (uint8_t)h ? (uint8_t)h : 0xa5;
    }
    return 0;
}

void wl_exec_set_setup(struct wl_exec *x, int on)
{
    x->setup = on;
}

void wl_exec_set_content_light(struct wl_exec *x, int on)
{
    x->light = on;
}

void wl_exec_set_compressible(struct wl_exec *x, double share)
{
    share = share < 0 ? 0 : share > 1 ? 1 : share;
    x->squeeze = (uint32_t)(share * WL_COMPRESS_CHUNK + 0.5);
}

/* The compressible head of each chunk overlapping [off, off+len): one
 * byte value, never 0 (zeros at a block's end would be a hole). */
static void squeeze(const struct wl_exec *x, uint64_t seq, uint64_t off, uint8_t *p,
                    uint64_t len)
{
    for (uint64_t end = off + len; off < end;) {
        uint64_t chunk = off / WL_COMPRESS_CHUNK, in = off % WL_COMPRESS_CHUNK;
        uint64_t next = (chunk + 1) * WL_COMPRESS_CHUNK, stop = next < end ? next : end;
        if (in < x->squeeze) {
            uint64_t n = x->squeeze - in < stop - off ? x->squeeze - in : stop - off;
            uint64_t h = rng_mix(seq * 0xd1b54a32d192ed03ull ^ rng_mix(chunk));
            memset(p, (int)(h % 255) + 1, n);
        }
        p += stop - off;
        off = stop;
    }
}

uint64_t wl_exec_seq(const struct wl_exec *x)
{
    return x->seq;
}

void wl_exec_payload(const struct wl_exec *x, uint64_t seq, uint64_t off, void *buf,
                     uint64_t len)
{
    uint8_t *p = buf;
    uint64_t off0 = off, len0 = len;
    while (len) {
        uint64_t in = off % PAT, n = PAT - in < len ? PAT - in : len;
        uint64_t h = rng_mix(seq * 0x9e3779b97f4a7c15ull ^ rng_mix(off / PAT));
        if (x->light)
            memset(p, (int)(h % 255) + 1, n); /* never 0: zeros would be holes */
        else
            memcpy(p, x->pat + h % PAT + in, n);
        p += n, off += n, len -= n;
    }
    if (x->squeeze)
        squeeze(x, seq, off0, buf, len0);
}

static struct wl_fd *lookup(struct wl_exec *x, const char *path)
{
    for (int i = 0; i < WL_FDS; i++)
        if (x->fds[i].path && !strcmp(x->fds[i].path, path))
            return &x->fds[i];
    return NULL;
}

static void drop(struct wl_exec *x, struct wl_fd *f)
{
    if (f && f->path) {
        x->api->close(x->fs, f->fd);
        free(f->path);
        f->path = NULL;
    }
}

/* Open path with flags (O_RDWR and more) into the cache, replacing any
 * fd it has for path; the fd, or a negative errno. */
static int cache_open(struct wl_exec *x, const char *path, int flags, uint32_t mode)
{
    drop(x, lookup(x, path));
    struct wl_fd *v = &x->fds[0];
    for (int i = 0; i < WL_FDS && v->path; i++) /* a free slot, else the LRU */
        if (!x->fds[i].path || x->fds[i].last_use < v->last_use)
            v = &x->fds[i];
    char *copy = strdup(path);
    if (!copy)
        return -ENOMEM;
    int fd = x->api->open(x->fs, path, flags, mode);
    if (fd < 0) {
        free(copy);
        return fd;
    }
    drop(x, v);
    *v = (struct wl_fd){.path = copy, .fd = fd, .last_use = ++x->tick};
    return fd;
}

static int fd_of(struct wl_exec *x, const char *path)
{
    struct wl_fd *f = lookup(x, path);
    if (f) {
        f->last_use = ++x->tick;
        return f->fd;
    }
    return cache_open(x, path, O_RDWR, 0);
}

/* Cached paths equal to from or under from/ now start with to. */
static int rekey(struct wl_exec *x, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    for (int i = 0; i < WL_FDS; i++) {
        char *p = x->fds[i].path;
        if (!p || strncmp(p, from, fl) || (p[fl] && p[fl] != '/'))
            continue;
        char *n = malloc(tl + strlen(p + fl) + 1);
        if (!n)
            return -ENOMEM;
        memcpy(n, to, tl);
        strcpy(n + tl, p + fl);
        free(p);
        x->fds[i].path = n;
    }
    return 0;
}

/* mkdir -p of path's parents (setup only). */
static void make_parents(struct wl_exec *x, const char *path)
{
    char *p = strdup(path);
    for (char *s = p ? strchr(p + 1, '/') : NULL; s; s = strchr(s + 1, '/')) {
        *s = 0;
        x->api->mkdir(x->fs, p, 0755); /* -EEXIST for those that are there */
        *s = '/';
    }
    free(p);
}

static int open_flags(uint32_t tf)
{
    return O_RDWR | (tf & TRACE_F_CREAT ? O_CREAT : 0) | (tf & TRACE_F_EXCL ? O_EXCL : 0) |
           (tf & TRACE_F_TRUNC ? O_TRUNC : 0);
}

static int do_mkdir(struct wl_exec *x, const char *path, uint32_t mode)
{
    int rc = x->api->mkdir(x->fs, path, mode);
    if (rc == -ENOENT && x->setup) {
        make_parents(x, path);
        rc = x->api->mkdir(x->fs, path, mode);
    }
    struct fs_stat st;
    if (rc == -EEXIST && x->setup && !x->api->stat(x->fs, path, &st) && S_ISDIR(st.mode))
        rc = 0;
    return rc;
}

static int do_open(struct wl_exec *x, const struct trace_rec *op, uint32_t tf)
{
    int rc = cache_open(x, op->path, open_flags(tf), op->mode);
    if (rc == -ENOENT && x->setup && (tf & TRACE_F_CREAT)) {
        make_parents(x, op->path);
        rc = cache_open(x, op->path, open_flags(tf), op->mode);
    }
    if (rc == -EISDIR && !(tf & (TRACE_F_WRITE | TRACE_F_APPEND | TRACE_F_TRUNC)))
        rc = cache_open(x, op->path, O_RDONLY, 0); /* a directory, opened to read */
    return rc < 0 ? rc : 0;
}

/* truncate(2) by path: the table has only ftruncate (the fd is not
 * cached: a later write opens it read-write as usual). */
static int do_truncate(struct wl_exec *x, const char *path, uint64_t size)
{
    struct wl_fd *f = lookup(x, path);
    if (f)
        return x->api->ftruncate(x->fs, f->fd, size);
    int fd = x->api->open(x->fs, path, O_WRONLY, 0);
    if (fd < 0)
        return fd;
    int rc = x->api->ftruncate(x->fs, fd, size), crc = x->api->close(x->fs, fd);
    return rc ? rc : crc;
}

/* READ, WRITE, DISCARD on op->path, split into calls of at most IO_MAX. */
static int64_t do_io(struct wl_exec *x, const struct trace_rec *op, uint64_t seq,
                     uint64_t *host_bytes)
{
    int fd = fd_of(x, op->path);
    if (fd < 0)
        return fd;
    if (op->op == TRACE_DISCARD)
        return x->api->punch(x->fs, fd, op->offset, op->length);
    uint64_t want = op->length < IO_MAX ? op->length : IO_MAX;
    if (!want) {
        uint8_t none = 0; /* the call still happens: an empty file's read */
        return op->op == TRACE_READ ? x->api->pread(x->fs, fd, &none, 0, op->offset)
                                    : x->api->pwrite(x->fs, fd, &none, 0, op->offset);
    }
    if (want > x->cap) {
        uint8_t *b = realloc(x->buf, want);
        if (!b)
            return -ENOMEM;
        x->buf = b, x->cap = want;
    }
    int64_t done = 0;
    for (uint64_t at = 0; at < op->length; at += want) {
        uint64_t len = op->length - at < want ? op->length - at : want;
        int64_t n;
        if (op->op == TRACE_READ) {
            n = x->api->pread(x->fs, fd, x->buf, len, op->offset + at);
        } else {
            wl_exec_payload(x, seq, op->offset + at, x->buf, len);
            n = x->api->pwrite(x->fs, fd, x->buf, len, op->offset + at);
            if (n > 0 && host_bytes)
                *host_bytes += (uint64_t)n;
        }
        if (n < 0)
            return n;
        done += n;
        if ((uint64_t)n < len)
            break; /* a short read at the end of the file */
    }
    return done;
}

int64_t wl_exec_apply(struct wl_exec *x, const struct trace_rec *op, uint64_t *host_bytes)
{
    uint64_t seq = x->seq++;
    int fd;
    if (op->op != TRACE_SYNC && op->op && !op->path)
        return -EINVAL; /* e.g. a block record: the replayer names the file */
    switch ((int)op->op) {
    case 0:
        return 0; /* a zeroed record */
    case TRACE_READ:
    case TRACE_WRITE:
    case TRACE_DISCARD:
        return do_io(x, op, seq, host_bytes);
    case TRACE_SYNC:
        return x->api->sync(x->fs);
    case TRACE_MKDIR:
        return do_mkdir(x, op->path, op->mode);
    case TRACE_RMDIR:
        drop(x, lookup(x, op->path));
        return x->api->rmdir(x->fs, op->path);
    case TRACE_CREATE:
        return do_open(x, op, op->flags | TRACE_F_CREAT);
    case TRACE_OPEN:
        return do_open(x, op, op->flags);
    case TRACE_CLOSE: {
        struct wl_fd *f = lookup(x, op->path);
        int rc = f ? x->api->close(x->fs, f->fd) : 0;
        if (f)
            free(f->path), f->path = NULL;
        return rc;
    }
    case TRACE_TRUNCATE:
        return do_truncate(x, op->path, op->size);
    case TRACE_UNLINK:
        drop(x, lookup(x, op->path)); /* so that unlink frees the file */
        return x->api->unlink(x->fs, op->path);
    case TRACE_RENAME: {
        if (!op->path2)
            return -EINVAL;
        drop(x, lookup(x, op->path2)); /* the file it replaces, if any */
        int rc = x->api->rename(x->fs, op->path, op->path2);
        return rc ? rc : rekey(x, op->path, op->path2);
    }
    case TRACE_EXCHANGE: {
        if (!op->path2)
            return -EINVAL;
        int rc = fsapi_rename2(&(struct fsapi_fs){x->api, x->fs}, op->path, op->path2,
                               FS_RENAME_EXCHANGE);
        /* open files follow their names: through a name neither has */
        static const char tmp[] = "\x01exchange";
        return rc                                       ? rc
               : (rc = rekey(x, op->path, tmp))         ? rc
               : (rc = rekey(x, op->path2, op->path))   ? rc
                                                        : rekey(x, tmp, op->path2);
    }
    case TRACE_LINK:
        return op->path2 ? x->api->link(x->fs, op->path, op->path2) : -EINVAL;
    case TRACE_SYMLINK:
        return op->path2 ? x->api->symlink(x->fs, op->path, op->path2) : -EINVAL;
    case TRACE_FSYNC:
        fd = fd_of(x, op->path);
        return fd < 0 ? fd : x->api->fsync(x->fs, fd);
    case TRACE_ALLOCATE:
    case TRACE_ALLOCATE_KEEP:
        fd = fd_of(x, op->path);
        return fd < 0 ? fd
                      : fsapi_allocate(&(struct fsapi_fs){x->api, x->fs}, fd, op->offset,
                                       op->length,
                                       op->op == TRACE_ALLOCATE_KEEP ? FS_ALLOC_KEEP_SIZE : 0);
    case (int)WL_OP_STAT: {
        struct fs_stat st;
        return x->api->stat(x->fs, op->path, &st);
    }
    }
    return -EINVAL;
}

void wl_exec_free(struct wl_exec *x)
{
    if (!x)
        return;
    for (int i = 0; i < WL_FDS; i++)
        drop(x, &x->fds[i]);
    free(x->buf);
    free(x);
}

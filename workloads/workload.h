/*
 * workload.h -- workload generators: a stream of file-system operations
 * (the same records the trace layer reads, struct trace_rec), from a
 * synthetic description or a trace, applied to a mounted file system
 * (any in the fsapi table) by wl_exec_apply.  docs/workloads.md describes every kind.
 *
 * A generator is deterministic: the same spec and seed give the same
 * operations.  It keeps its own model of the files it made (names, sizes)
 * so that it never asks for an operation that must fail (e.g. a read past
 * the end of a file it deleted) unless the spec asks for that.
 *
 * Kinds (the YAML `workload: kind:`; parameters in docs/workloads.md):
 *   "uniform"    random writes (and reads, see read_fraction) at uniformly
 *                random block-aligned offsets of `files` preallocated files
 *   "sequential" sequential writes through the files, wrapping around
 *   "zipf"       offsets drawn from Zipf(theta), any theta > 0, over the
 *                blocks (permuted, so the hot ones are spread)
 *   "hotcold"    hot_writes of the writes to hot_data of the blocks
 *   "churn"      file-level: create/append/overwrite/delete/rename/read/
 *                stat of many small files, by the op_* weights
 *   "mailserver", "fileserver": churn with filebench-like presets
 *   "rootfs"     churn preset: fill with a root file system's mix of file
 *                sizes, then read and stat
 *   "trace"      replay of a trace file (workloads/trace/trace.h)
 */
#ifndef FLASHLAB_WORKLOAD_H
#define FLASHLAB_WORKLOAD_H

#include "fsapi.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>

/* A request-size distribution: fixed, uniform in [min, max], or a list of
 * (size, weight) pairs.  Sizes in bytes. */
#define WL_MAX_SIZES 16
struct wl_sizes {
    uint32_t n;                   /* 0: fixed `min` */
    uint64_t min, max;            /* n == 0 and max > min: uniform, multiples of
                                     align (block kinds) or bytes (churn) */
    uint64_t size[WL_MAX_SIZES];  /* n > 0: the choices */
    double weight[WL_MAX_SIZES];
};

struct wl_spec {
    char kind[32];
    /* block-level synthetic kinds */
    uint32_t files;             /* files the data lives in (1) */
    uint64_t file_bytes;        /* bytes per file (0: fill `fill` of the fs) */
    double fill;                /* fraction of the fs's free space to use (0.5); on
                                   a block device (FSAPI_F_ONE_FILE): the share of
                                   /disk written in setup, before measuring */
    double working_set;         /* share of the blocks requests address (1): on a
                                   block device, of its logical space (as MQSim) */
    double utilisation;         /* block kinds, instead of fill: size the data so
                                   that live bytes / the capacity the cleaner can
                                   use reach this (fsapi counters live_bytes and
                                   cleanable_bytes); 0: use fill */
    uint64_t align;             /* offsets are multiples of this (4096) */
    struct wl_sizes req;        /* request sizes (fixed 4096); churn: of appends
                                   and overwrites */
    double read_fraction;       /* of the operations (0) */
    double theta;               /* zipf (0.99) */
    double hot_writes, hot_data;/* hotcold (0.9, 0.1) */
    uint64_t fsync_every;       /* an fsync after this many writes (0: never) */
    uint64_t sync_every;        /* a sync after this many ops (0: never) */
    double discard_fraction;    /* of the operations: punch-holes (0) */
    /* file-level churn */
    uint32_t dirs;              /* directories files are spread over (8) */
    uint32_t max_files;         /* live files at most (1000) */
    struct wl_sizes file_size;  /* sizes of created files (uniform 1..64 KiB) */
    double op_create, op_append, op_overwrite, op_delete, op_rename, op_read, op_stat;
    double prealloc;            /* setup creates this fraction of max_files (0.5) */
    /* trace replay */
    char trace_path[1024];
    enum trace_format trace_format;
    int trace_skip_bad;
    uint64_t trace_disk_bytes;  /* the file per disk: its size (0: from fill) */
    int content_light;          /* written data: one byte value per 64 KiB (cheap to
                                   store on a dedup/compressing device) */
    double compressible;        /* share of each 4 KiB of written data that
                                   compresses (fio's buffer_compress_percentage);
                                   0: today's incompressible payloads */
};

/* A file-level op the trace format has no word for: stat(path).  Churn
 * kinds emit it (op_stat); wl_exec_apply does a stat.  Far above the
 * trace ops so that the trace format can grow. */
#define WL_OP_STAT ((enum trace_op)64)

/* The i-th workload kind ("uniform", ...), NULL past the end. */
const char *wl_kind_name(size_t i);
/* The family of kind: "block" (uniform, sequential, zipf, hotcold),
 * "churn" (churn, mailserver, fileserver, rootfs) or "trace"; NULL for an
 * unknown kind. */
const char *wl_kind_family(const char *kind);
/* Defaults for kind (as above); -EINVAL for an unknown kind. */
int wl_spec_init(struct wl_spec *s, const char *kind);
/* A size drawn from d with the 64 random bits h: a uniform draw picks a
 * multiple of gran in [min, max] (min itself if there is none). */
uint64_t wl_sizes_draw(const struct wl_sizes *d, uint64_t gran, uint64_t h);
uint64_t wl_sizes_max(const struct wl_sizes *d);
/* 0, or -EINVAL and a message naming `what` (no sizes, zero sizes, bad
 * weights). */
int wl_sizes_check(const struct wl_sizes *d, const char *what, char *err, size_t errlen);

struct workload;

/* fs is the mounted file system the ops will be applied to (generators
 * size their files from its free space); seed makes every choice. */
int workload_create(const struct wl_spec *spec, uint64_t seed, const struct fsapi_fs *fs,
                    struct workload **out, char *err, size_t errlen);
/* The setup operations (mkdir, create and fill the files) come first, then
 * the workload proper; workload_in_setup says which phase op was in.
 * 1: *op filled (valid until the next call), 0: the workload is finished
 * (a trace at its end; synthetic kinds never finish), negative errno with
 * err filled on error (a bad trace line). */
int workload_next(struct workload *w, struct trace_rec *op, char *err, size_t errlen);
int workload_in_setup(const struct workload *w);
/* The files the generator's model holds after the records handed out so
 * far (block kinds: the data files, churn: the live files, trace: the disk
 * files; fs-op traces: none), with the sizes it expects; fn returns
 * nonzero to stop (and that value is returned). */
int workload_files(const struct workload *w,
                   int (*fn)(void *ctx, const char *path, uint64_t size), void *ctx);
void workload_free(struct workload *w);

/* Apply op to fs, opening files as needed (an fd cache).  Returns the
 * result of the call (0 or bytes done, negative errno; a read or write
 * above 4 MiB is several calls, their bytes added up); host_bytes, if not
 * NULL, grows by the bytes written. */
struct wl_exec;
int wl_exec_create(const struct fsapi_fs *fs, struct wl_exec **out);
int64_t wl_exec_apply(struct wl_exec *x, const struct trace_rec *op, uint64_t *host_bytes);
/* In setup (pass workload_in_setup), create and mkdir make the missing
 * parent directories first, and mkdir of an existing directory succeeds,
 * so that setup also runs on an aged file system.  Off by default. */
void wl_exec_set_setup(struct wl_exec *x, int on);
/* Content-light payloads (wl_spec.content_light): see wl_exec_payload. */
void wl_exec_set_content_light(struct wl_exec *x, int on);
/* Compressible payloads (wl_spec.compressible, 0..1): see wl_exec_payload. */
void wl_exec_set_compressible(struct wl_exec *x, double share);
/* Ops applied so far: the sequence number the next op's payload gets. */
uint64_t wl_exec_seq(const struct wl_exec *x);
/* The bytes a write of op number seq puts at file offsets [off, off+len):
 * a fixed 64 KiB pattern of nonzero bytes, rotated per (seq, 64 KiB chunk
 * of the file) by a hash, so every write is new data and cheap to make;
 * content-light: one nonzero byte value per (seq, chunk) instead, so that
 * a device with dedup or compression stores a big fill in little RAM.
 * With a compressible share c, the first round(c * 4096) bytes of every
 * 4 KiB of the file (WL_COMPRESS_CHUNK) are then one nonzero byte value
 * per (seq, chunk): a compressor stores about 1 - c of the data. */
#define WL_COMPRESS_CHUNK 4096u
void wl_exec_payload(const struct wl_exec *x, uint64_t seq, uint64_t off, void *buf,
                     uint64_t len);
void wl_exec_free(struct wl_exec *x);

/* ---- for the generator files (wl_block.c, wl_churn.c, wl_trace.c) ---- */
struct wl_family {
    int (*create)(const struct wl_spec *s, uint64_t seed, const struct fsapi_fs *fs,
                  void **state,
                  char *err, size_t errlen);
    /* as workload_next; sets *in_setup for each op */
    int (*next)(void *state, struct trace_rec *op, int *in_setup, char *err,
                size_t errlen);
    int (*files)(const void *state, int (*fn)(void *, const char *, uint64_t), void *ctx);
    void (*free)(void *state);
};
extern const struct wl_family wl_block_family, wl_churn_family, wl_trace_family;
/* snprintf into err (if not NULL); returns rc. */
int wl_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif

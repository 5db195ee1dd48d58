/*
 * logfs.h -- the public interface of flashlab's LogFS.
 *
 * Every call returns 0 (or a count) on success and a negative errno on
 * failure.  The file system talks to flash only through sim/nand.h.
 * Design: docs/logfs-design.md; on-flash format: docs/FORMAT.md.
 *
 * Status: mkfs, mount, sync and unmount (the tree, commit, anchor and
 * segment file underneath) exist; file and directory operations come next.
 */
#ifndef FLASHLAB_LOGFS_H
#define FLASHLAB_LOGFS_H

#include <stdint.h>

#include "nand.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero fields take the default. */
struct logfs_options {
    uint32_t block_size;       /* fs block: a power of two, 512..32768 (4096) */
    uint32_t anchor_blocks;    /* erase blocks in the anchor ring, 2..16 (4) */
    uint32_t reserve_segments; /* kept back for the cleaner (8) */
    uint64_t cache_bytes;      /* node cache bound (4 MiB) */
};

typedef struct logfs logfs;

int logfs_mkfs(nand_dev *dev, const struct logfs_options *opt);
int logfs_mount(nand_dev *dev, const struct logfs_options *opt, logfs **out);
/* Commit what is dirty (one commit point); no-op when nothing changed. */
int logfs_sync(logfs *fs);
/* Sync, then free; the fs is gone either way.  Returns the sync's result. */
int logfs_unmount(logfs *fs);

struct logfs_stats {
    uint64_t commits;          /* sequence number of the last commit */
    uint64_t live_bytes;       /* object bytes the tree references */
    uint64_t mem_bytes;        /* RAM held by the fs (counting allocator) */
    uint64_t cache_hits, cache_misses;
    uint64_t next_ino;
};
void logfs_get_stats(const logfs *fs, struct logfs_stats *st);

#ifdef __cplusplus
}
#endif
#endif

/* lfs_path.h -- LogFS's path walk beyond lfs_resolve (fs/logfs/path.c). */
#ifndef FLASHLAB_LFS_PATH_H
#define FLASHLAB_LFS_PATH_H

#include "lfs.h"

/* A path, given or made by following symbolic links, has at most
 * LFS_PATH_MAX - 1 bytes (ENAMETOOLONG), as the host's PATH_MAX. */
#define LFS_PATH_MAX 4096

/* lfs_resolve without following a final link, and *seen: whether
 * directory ino is r->dir or one of the directories above it (for
 * rename's "a directory into itself"). */
int lfs_resolve_under(struct logfs *fs, const char *path, struct lfs_path *r,
                      uint64_t ino, int *seen);

#endif

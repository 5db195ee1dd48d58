/*
 * fsdigest.h -- the whole visible state of a mounted file system as one 64-bit digest
 * (paths, types, modes, link counts, sizes, contents), and optionally as
 * text: what the power-cut checker compares.
 */
#ifndef FLASHLAB_FSDIGEST_H
#define FLASHLAB_FSDIGEST_H

#include "fsapi.h"

#include <stdint.h>

/* 0, or a negative errno (an unreadable file, a loop).  text (may be NULL)
 * gets a malloc'd listing, one line per path. */
int wl_fs_digest(const struct fsapi_fs *fs, uint64_t *digest, char **text);

/* The names in directory dir ("" or "/": the root), sorted, malloc'd:
 * 0, or a negative errno (nothing to free then).  wl_fs_names_free frees them. */
int wl_fs_list_dir(const struct fsapi_fs *fs, const char *dir, char ***names, size_t *n);
void wl_fs_names_free(char **names, size_t n);

/* The hash of a regular file's content or a symlink's target (0 for
 * other types), st its lstat: 0, or a negative errno (a read error, or a
 * file shorter than its size). */
int wl_fs_content_hash(const struct fsapi_fs *fs, const char *path, const struct fs_stat *st,
                    uint64_t *out);

#endif

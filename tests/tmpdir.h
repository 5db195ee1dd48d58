/*
 * tmpdir.h -- a scratch directory for tests that need files (experiment
 * YAML, databases, traces): made once in $TMPDIR (or /tmp), filled with
 * tmp_write or tmp_write_bytes, removed at the end.
 */
#ifndef FLASHLAB_TMPDIR_H
#define FLASHLAB_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir[256];

/* 0, or -1 if no directory could be made.  $TMPDIR is used unless it is
 * too long or holds a quote (tmp_dir_remove quotes the path for sh). */
static inline int tmp_dir_make(const char *tag)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base || strchr(base, '\'') || strlen(base) > sizeof tmp_dir - 64)
        base = "/tmp";
    snprintf(tmp_dir, sizeof tmp_dir, "%s/flashlab-%s-XXXXXX", base, tag);
    return mkdtemp(tmp_dir) ? 0 : -1;
}

/* The path of name in the directory, in one of 8 static buffers taken in
 * turn: it stays valid for the next 7 calls. */
static inline const char *tmp_path(const char *name)
{
    static char path[8][512];
    static unsigned k;
    char *p = path[k++ % 8];
    snprintf(p, sizeof path[0], "%s/%s", tmp_dir, name);
    return p;
}

/* Write len bytes to name; its path, or NULL. */
static inline const char *tmp_write_bytes(const char *name, const void *data, size_t len)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    int bad = fwrite(data, 1, len, f) != len;
    bad |= fclose(f) != 0;
    return bad ? NULL : path;
}

/* Write text to name; its path, or NULL. */
static inline const char *tmp_write(const char *name, const char *text)
{
    return tmp_write_bytes(name, text, strlen(text));
}

/* Link the repository's configs/ (the tests run from its root) into the
 * scratch directory: experiment YAML written there names its device as
 * configs/devices/..., and a path in an experiment is relative to the
 * experiment file's directory.  0, or -1. */
static inline int tmp_link_configs(void)
{
    char cwd[1024], target[1100];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    snprintf(target, sizeof target, "%s/configs", cwd);
    return symlink(target, tmp_path("configs"));
}

static inline void tmp_dir_remove(void)
{
    char cmd[sizeof tmp_dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd))
        fprintf(stderr, "could not remove %s\n", tmp_dir);
}

#endif

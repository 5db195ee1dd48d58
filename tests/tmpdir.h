/*
 * tmpdir.h -- a scratch directory for tests that need files (experiment
 * YAML, databases): made once, filled with tmp_write, removed at the end.
 */
#ifndef FLASHLAB_TMPDIR_H
#define FLASHLAB_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char tmp_dir[64];

/* 0, or -1 if no directory could be made. */
static inline int tmp_dir_make(const char *tag)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/flashlab-%s-XXXXXX", tag);
    return mkdtemp(tmp_dir) ? 0 : -1;
}

/* The path of name in the directory (a static buffer). */
static inline const char *tmp_path(const char *name)
{
    static char path[160];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

/* Write text to name; its path, or NULL. */
static inline const char *tmp_write(const char *name, const char *text)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

static inline void tmp_dir_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd))
        fprintf(stderr, "could not remove %s\n", tmp_dir);
}

#endif

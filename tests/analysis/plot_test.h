/*
 * plot_test.h -- what the plot tests share: their database made and opened
 * in a scratch directory, and a plot's gnuplot script as a string.
 */
#ifndef FLASHLAB_TEST_PLOT_TEST_H
#define FLASHLAB_TEST_PLOT_TEST_H

#include "plot.h"
#include "fixture.h"

#include <sqlite3.h>

/* A scratch directory named dir, file in it made by make and opened for
 * the plots into *db.  0, or 1 (said on stderr) to exit with. */
static inline int plot_test_open(const char *dir, const char *file, int (*make)(const char *),
                                 sqlite3 **db)
{
    char err[512] = "";
    if (tmp_dir_make(dir)) {
        perror("mkdtemp");
        return 1;
    }
    const char *path = tmp_path(file);
    if (make(path) || plot_open_db(path, db, err, sizeof err)) {
        fprintf(stderr, "fixture failed: %s\n", err);
        tmp_dir_remove();
        return 1;
    }
    return 0;
}

/* p's gnuplot script for an SVG (the caller frees), or NULL. */
static inline char *plot_test_script(const struct plot *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return NULL;
    plot_write_script(fp, p, "set terminal svg");
    fclose(fp);
    return buf;
}

#endif

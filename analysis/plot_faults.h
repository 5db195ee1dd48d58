/*
 * plot_faults.h -- the figure of a media-fault campaign (docs/faults.md):
 * stacked bars of outcomes per page class (per fs kind when a database
 * holds several), from the faults table (docs/results-schema.md).
 */
#ifndef FLASHLAB_PLOT_FAULTS_H
#define FLASHLAB_PLOT_FAULTS_H

#include <stddef.h>
#include <stdint.h>

/* Draw from the database at dbpath into out (.png, .svg or .pdf; NULL:
 * none) and/or write the counts as a table to data (NULL: none); only
 * runs of experiment (NULL: all) or run_id (0: all).  Fills *bars and
 * *points for the caller's report.  0, or -1 with err. */
int plot_faults(const char *dbpath, const char *out, const char *data, const char *experiment,
                int64_t run_id, unsigned *bars, unsigned *points, char *err, size_t errlen);

#endif

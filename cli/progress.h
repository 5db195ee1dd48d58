/* progress.h -- the one-line progress display of the long commands (run,
 * powercut, and any later campaign): "LABEL done/total UNIT  F failed
 * R/s  ETA mm:ss  EXTRA", redrawn in place on stderr.  Only when stderr is
 * a terminal: piped or redirected output (logs, CI) gets none of it, so
 * the commands' own summary lines stay the whole output. */
#ifndef FLASHLAB_CLI_PROGRESS_H
#define FLASHLAB_CLI_PROGRESS_H

#include "exp_progress.h"

#include <stdint.h>

struct progress {
    int on;            /* drawing: stderr is a terminal and not disabled */
    int drawn;         /* a line is on the screen (progress_clear wipes it) */
    uint64_t total, failures; /* failures at the last redraw */
    double t0, shown;  /* start, last redraw (cli_now_s) */
    char label[64], unit[32];
};

/* Start a display of total UNITs ("cut points", "runs"), LABEL before it
 * ("run 3:", or ""); quiet: never draw.  Draws nothing yet. */
void progress_begin(struct progress *p, const char *label, const char *unit, uint64_t total,
                    int quiet);
/* done of total (may be fractional: runs under way count by their share),
 * failures so far; extra (may be NULL) goes at the end.  At most a few
 * redraws a second, but always the last (done == total) and one with a new
 * failure (whose report may have wiped the line). */
void progress_step(struct progress *p, double done, uint64_t failures, const char *extra);
/* The campaigns' side of experiment/exp_progress.h (ctx a struct
 * progress): phase points draws done of total points and the failures so
 * far, phase note wipes the line for the message that follows.  The total
 * is known only once the workload has run, and so the rate counts from the
 * first point, not from progress_begin. */
void progress_campaign(void *ctx, const struct exp_report *r);
/* What a campaign reports to: p's line when p draws, else nothing. */
struct exp_progress progress_sink(struct progress *p);
/* Wipe the line so that a message can be printed; the next step redraws. */
void progress_clear(struct progress *p);
/* Wipe the line for good (the command's summary replaces it). */
void progress_end(struct progress *p);

#endif

/* progress.c -- the progress line of progress.h: on a terminal only. */
#include "progress.h"

#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

/* Redraws closer together than this are skipped: a few a second read well
 * and cost nothing beside the work. */
#define REDRAW_S 0.25

void progress_begin(struct progress *p, const char *label, const char *unit, uint64_t total,
                    int quiet)
{
    *p = (struct progress){.on = !quiet && isatty(STDERR_FILENO), .total = total,
                           .t0 = cli_now_s()};
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    snprintf(p->unit, sizeof p->unit, "%s", unit ? unit : "");
}

void progress_step(struct progress *p, double done, uint64_t failures, const char *extra)
{
    if (!p->on)
        return;
    double now = cli_now_s(), el = now - p->t0;
    if (p->drawn && done < (double)p->total && failures == p->failures &&
        now - p->shown < REDRAW_S)
        return;
    p->shown = now;
    p->failures = failures;
    double rate = el > 0 ? done / el : 0;
    double left = (double)p->total - done;
    double eta = rate > 0 && left > 0 ? left / rate : 0;
    fprintf(stderr, "\r\033[K%s%s%" PRIu64 "/%" PRIu64 " %s  %" PRIu64 " failed  %.1f/s  "
            "ETA %02d:%02d%s%s", p->label, *p->label ? " " : "", (uint64_t)done, p->total,
            p->unit, failures, rate, (int)(eta / 60), (int)eta % 60, extra ? "  " : "",
            extra ? extra : "");
    fflush(stderr);
    p->drawn = 1;
}

void progress_campaign(void *ctx, const struct exp_report *r)
{
    struct progress *p = ctx;
    if (r->phase == EXP_PHASE_NOTE) {
        progress_clear(p);
        return;
    }
    p->total = r->total;
    if (r->done <= 1)
        p->t0 = cli_now_s();
    progress_step(p, r->done, r->bad, NULL);
}

struct exp_progress progress_sink(struct progress *p)
{
    return (struct exp_progress){.report = p->on ? progress_campaign : NULL, .ctx = p};
}

void progress_clear(struct progress *p)
{
    if (p->on && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = 0;
}

void progress_end(struct progress *p)
{
    progress_clear(p);
    p->on = 0;
}

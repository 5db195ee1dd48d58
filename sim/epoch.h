/*
 * epoch.h -- "YYYY-MM-DD[THH:MM:SS[Z]]" (UTC, 1970..2199) or whole seconds
 * since 1970, as ns since 1970: the epoch an fs's timestamps count from
 * (LogFS's option epoch, an experiment's fs.epoch).  Shared like suggest.h.
 */
#ifndef FLASHLAB_EPOCH_H
#define FLASHLAB_EPOCH_H

#include <stdint.h>

/* 0, or -1 when s is not such a date. */
int sim_epoch_parse(const char *s, int64_t *ns);

#endif

/* epoch.c -- a date as the experiments and file systems take it for their
 * timestamps' epoch. */
#include "epoch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* "YYYY-MM-DD[THH:MM:SS[Z]]" (UTC, 1970..2200) or whole seconds since
 * 1970, as ns. */
int sim_epoch_parse(const char *s, int64_t *ns)
{
    unsigned y, mo, d, h = 0, mi = 0, se = 0;
    int n = 0;
    char *end;
    if (*s >= '0' && *s <= '9') {
        errno = 0;
        unsigned long long secs = strtoull(s, &end, 10);
        if (!*end) {
            if (errno || secs > 7258118400ull) /* 2200-01-01 */
                return -1;
            *ns = (int64_t)secs * 1000000000;
            return 0;
        }
    }
    if (sscanf(s, "%4u-%2u-%2u%n", &y, &mo, &d, &n) != 3 || n != 10)
        return -1;
    if (s[n] == 'T' || s[n] == ' ') {
        int m = 0;
        if (sscanf(s + n + 1, "%2u:%2u:%2u%n", &h, &mi, &se, &m) != 3 || m != 8)
            return -1;
        n += 1 + m;
        if (s[n] == 'Z')
            n++;
    }
    if (s[n] || y < 1970 || y >= 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
        mi > 59 || se > 59)
        return -1;
    *ns = ((days_from_civil(y, mo, d) * 24 + h) * 60 * 60 + mi * 60 + se) * 1000000000;
    return 0;
}


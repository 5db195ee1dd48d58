/* optexplain.c -- the error text of a baseline's options: its parser says
 * only -EINVAL, so each "key=value" item is tried alone to name the first
 * one it rejects, beside the keys the kind takes. */
#include "fscommon.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int fs_opts_check(const char *kind, const char *options, int (*parse)(const char *options),
                  const char *(*help)(unsigned i, const char **h), char *err, size_t errlen)
{
    if (!options || !parse(options))
        return 0;
    char item[256] = "";
    for (const char *p = options; *p; p += strcspn(p, ","), p += *p == ',') {
        size_t n = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        if (n >= sizeof item || parse(item))
            break;
    }
    size_t len = (size_t)snprintf(err, errlen, "%s: bad option '%s'; its options:", kind, item);
    for (unsigned i = 0; help(i, NULL) && len < errlen; i++) {
        const char *h;
        const char *key = help(i, &h);
        len += (size_t)snprintf(err + len, errlen - len, "%s %s (%s)", i ? "," : "", key, h);
    }
    return -EINVAL;
}

const char *fs_opts_help(const char *const (*rows)[2], size_t n, unsigned i, const char **help)
{
    if (i >= n)
        return NULL;
    if (help)
        *help = rows[i][1];
    return rows[i][0];
}

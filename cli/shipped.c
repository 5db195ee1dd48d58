/* shipped.c -- finding the files flashlab ships (device presets, configs)
 * from any directory: beside the program in a build tree, or where
 * `make install` put them. */
#include "cli.h"

#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

const char *cli_shipped(const char *rel, char *out, size_t cap)
{
    if (!access(rel, R_OK))
        return rel; /* the repository root, or the user's own copy */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return rel;
    exe[n] = 0;
    const char *dir = dirname(exe);
    /* build/flashlab -> the repository; bin/flashlab -> share/flashlab */
    static const char *const up[] = {"%s/../%s", "%s/../share/flashlab/%s"};
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++)
        if (snprintf(out, cap, up[i], dir, rel) < (int)cap && !access(out, R_OK))
            return out;
    return rel;
}

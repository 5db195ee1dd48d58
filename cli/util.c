/* util.c -- error reporting and dispatch shared by the subcommands. */
#include "cli.h"
#include "fsapi.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("flashlab: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "flashlab%s%s: ", *cmd ? " " : "", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'flashlab%s%s --help'.\n", *cmd ? " " : "", cmd);
    va_end(ap);
    return CLI_USAGE;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return 0;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    }
    return 0;
}

int cli_dispatch(const char *group, const struct cli_cmd *cmds, int argc,
                 char **argv, const char *help)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "help")) {
        fputs(help, argc < 2 ? stderr : stdout);
        for (const struct cli_cmd *c = cmds; c->name; c++)
            fprintf(argc < 2 ? stderr : stdout, "  %-10s %s\n", c->name,
                    c->summary);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    for (const struct cli_cmd *c = cmds; c->name; c++)
        if (!strcmp(argv[1], c->name))
            return c->run(argc - 1, argv + 1);
    return cli_usage_error(group, "unknown command '%s'", argv[1]);
}

int cli_anchor_warning(const char *image, const struct fsapi_fs *m)
{
    struct fsapi_counter c[FSAPI_COUNTERS_MAX];
    size_t n = fsapi_stats(m, c, FSAPI_COUNTERS_MAX); /* 0 for a kind without a ring */
    uint64_t bad = fsapi_counter_value(c, n, "anchor_bad");
    uint64_t left = fsapi_counter_value(c, n, "anchor_left");
    uint64_t fallback = fsapi_counter_value(c, n, "anchor_fallback");
    if (bad)
        fprintf(stderr, "%s: warning: %" PRIu64 " anchor ring block%s went bad; %s\n", image,
                bad, bad == 1 ? "" : "s",
                left ? "the ring goes on in the others"
                     : "no pair of good ring blocks is left for the two copies of "
                       "each anchor record: the file system is read-only");
    if (!fallback)
        return bad != 0;
    fprintf(stderr, "%s: warning: the newest anchor record is damaged; mounted "
            "commit %" PRIu64 ", the newest readable one (%" PRIu64 " newer "
            "anchor page%s unreadable or corrupt: media damage, or a commit "
            "torn by a power cut); run flashlab fsck\n", image,
            fsapi_counter_value(c, n, "anchor_seq"), fallback, fallback == 1 ? "" : "s");
    return 1;
}

int cli_format_note(const char *image, const struct fsapi *api, nand_dev *dev)
{
    char msg[512];
    int rc = api->format_check ? api->format_check(dev, msg, sizeof msg) : 0;
    if (rc)
        fprintf(stderr, "%s: %s\n", image, msg);
    return rc;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

void cli_host_clock_options(const struct fsapi *api, const char *opts, char *out, size_t cap)
{
    int host = fsapi_takes_option(api, "clock", 5) && !(opts && strstr(opts, "epoch="));
    snprintf(out, cap, "%s%s%s", host ? "clock=host" : "", host && opts && *opts ? "," : "",
             opts ? opts : "");
}

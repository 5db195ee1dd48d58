/* cmd_plot.c -- `flashlab plot`: a figure (and its data table) from a
 * results database, through analysis/plot.h.  docs/plots.md has the SQL. */
#include "cli.h"
#include "plot.h"
#include "plot_faults.h"
#include "suggest.h"

#include <errno.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char plot_help[] =
    "usage: flashlab plot DB --kind KIND [-o FILE.png|.svg|.pdf] [--data FILE.dat]\n"
    "                     [--experiment NAME[@HASH]] [--run ID] [--by KEY[,KEY...]]\n"
    "                     [--facet KEY|none]\n"
    "                     [--x host|time] [--np N] [--wa steady|total-steady|cumulative|interval]\n"
    "\n"
    "Draw a figure from a results database with gnuplot; the format comes\n"
    "from the -o file's extension.  --data also writes the numbers behind it\n"
    "as a table (series, x, y in raw units: bytes, ns, counts).  At least one\n"
    "of -o and --data is needed.  DB is only read.\n"
    "\n"
    "  --experiment NAME  only runs of the experiment called NAME (NAME@HASH:\n"
    "                     of its config whose config_hash starts with HASH;\n"
    "                     a name with several configs must say which)\n"
    "  --run ID           only run ID (runs.id)\n"
    "  --by KEYS          name and group runs by these params JSON paths, e.g.\n"
    "                     fs.gc_policy,fs.wear_leveling (default: every swept\n"
    "                     key whose value differs between the runs drawn);\n"
    "                     runs of one setting (seeds) are averaged, with\n"
    "                     +- 1 standard deviation as error bars or a band\n"
    "  --facet KEY        a panel per value of KEY (default: the key with the\n"
    "                     fewest values when there are more than 8 series;\n"
    "                     none: never)\n"
    "  --x host|time      wa-time: x is host data written (default) or\n"
    "                     simulated time\n"
    "  --np N             wa-util: fs blocks per segment of the greedy model\n"
    "                     (default: from the runs' device and fs)\n"
    "  --wa KIND          wa-util's y: steady (data WA after the warm-up, the default),\n"
    "                     total-steady (all pages after the warm-up) or cumulative\n"
    "                     (all pages over the whole measured phase); wa-time's y:\n"
    "                     cumulative (the default) or interval (data WA since the\n"
    "                     previous sample)\n"
    "\n"
    "examples:\n"
    "  flashlab plot results/demo.db --kind wa-util -o wa.png\n"
    "  flashlab plot results/demo.db --kind wa-time --by fs.gc_policy --facet none -o t.svg\n"
    "\n"
    "kinds (see docs/plots.md):\n";

/* "flashlab plot: message" on stderr, as the other commands word it. */
static int plot_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int plot_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("flashlab plot: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_FAIL;
}

static int parse_pos(const char *s, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max)
        return -1;
    *out = v;
    return 0;
}

static void print_help(void)
{
    fputs(plot_help, stdout);
    for (int k = 0; k < PLOT_KIND_COUNT; k++)
        printf("  %-11s %s\n              needs: %s\n", plot_kind_name((enum plot_kind)k),
               plot_kind_help((enum plot_kind)k), plot_kind_needs((enum plot_kind)k));
    printf("  %-11s %s\n              needs: %s\n", "faults",
           "media-fault outcomes, a panel per fault kind, a bar per page\n"
           "              class (also: flashlab plot faults DB -o FILE)",
           "the faults table (flashlab faults)");
}

/* The kinds --kind takes (suggest_at_fn): plot.h's, then faults. */
static const char *kind_at(size_t i, const void *ctx)
{
    (void)ctx;
    return i < PLOT_KIND_COUNT ? plot_kind_name((enum plot_kind)i)
           : i == PLOT_KIND_COUNT ? "faults" : NULL;
}

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        {"kind", required_argument, 0, 'k'},   {"output", required_argument, 0, 'o'},
        {"data", required_argument, 0, 'd'},   {"experiment", required_argument, 0, 'e'},
        {"run", required_argument, 0, 'r'},    {"by", required_argument, 0, 'b'},
        {"x", required_argument, 0, 'x'},      {"np", required_argument, 0, 'n'},
        {"wa", required_argument, 0, 'w'},
        {"facet", required_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    struct plot_filter f = {0};
    const char *kind_name = NULL, *out = NULL, *data = NULL;
    long long v;
    char path[512];
    int c, wa_given = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "k:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'k': kind_name = optarg; break;
        case 'o': out = optarg; break;
        case 'd': data = optarg; break;
        case 'e': f.experiment = optarg; break;
        case 'r':
            if (parse_pos(optarg, INT64_MAX, &v))
                return cli_usage_error("plot", "bad run id '%s'", optarg);
            f.run_id = v;
            break;
        case 'b':
            for (const char *k = optarg;; k += strcspn(k, ",") + 1) {
                char one[512];
                size_t len = strcspn(k, ",");
                snprintf(one, sizeof one, "%.*s", (int)(len < 511 ? len : 511), k);
                if (plot_by_path(one, path, sizeof path))
                    return cli_usage_error("plot", "bad --by key '%s' (params JSON paths "
                                           "such as fs.gc_policy, comma-separated)", one);
                if (!k[len])
                    break;
            }
            f.by = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "none") && plot_by_path(optarg, path, sizeof path))
                return cli_usage_error("plot", "bad --facet key '%s' (a params JSON path "
                                       "such as workload.fill, or none)", optarg);
            f.facet = optarg;
            break;
        case 'x':
            if (strcmp(optarg, "host") && strcmp(optarg, "time"))
                return cli_usage_error("plot", "bad --x '%s' (host or time)", optarg);
            f.x_time = !strcmp(optarg, "time");
            break;
        case 'n':
            if (parse_pos(optarg, 1 << 20, &v) || v < 2)
                return cli_usage_error("plot", "bad --np '%s' (fs blocks per segment, >= 2)",
                                       optarg);
            f.np = (unsigned)v;
            break;
        case 'w':
            if ((f.wa = plot_wa_kind(optarg)) < 0)
                return cli_usage_error("plot", "bad --wa '%s' (steady, total-steady, "
                                       "cumulative or interval)", optarg);
            wa_given = 1;
            break;
        case 'h': print_help(); return CLI_OK;
        default: return cli_usage_error("plot", "bad option");
        }
    }
    /* `plot faults DB`: a media-fault campaign's figure (analysis/plot_faults.c) */
    if (optind == argc - 2 && !strcmp(argv[optind], "faults") && !kind_name) {
        kind_name = "faults";
        optind++;
    }
    if (optind != argc - 1)
        return cli_usage_error("plot", "expected one DB argument");
    if (kind_name && !strcmp(kind_name, "faults")) {
        char ferr_[1024];
        unsigned bars = 0, pts = 0;
        if (!out && !data)
            return cli_usage_error("plot", "give -o FILE.png|.svg|.pdf and/or --data FILE");
        if (plot_faults(argv[optind], out, data, f.experiment, f.run_id, &bars, &pts, ferr_,
                        sizeof ferr_))
            return plot_fail("%s: %s", argv[optind], ferr_);
        printf("%s: faults, %u bars, %u fault points\n", out ? out : data, bars, pts);
        return CLI_OK;
    }
    if (!kind_name)
        return cli_usage_error("plot", "--kind is required");
    int kind = plot_kind_find(kind_name);
    if (kind < 0) {
        char hint[512];
        sim_suggest_among(kind_name, strlen(kind_name), kind_at, NULL, "kinds", hint,
                          sizeof hint);
        return cli_usage_error("plot", "unknown plot kind '%s'%s", kind_name, hint);
    }
    if (kind == PLOT_WA_UTIL && f.wa == PLOT_WA_INTERVAL)
        return cli_usage_error("plot", "--wa interval is per sample: plot it with --kind "
                               "wa-time (wa-util takes steady, total-steady or cumulative)");
    if (kind == PLOT_WA_TIME && wa_given && f.wa != PLOT_WA_CUMULATIVE &&
        f.wa != PLOT_WA_INTERVAL)
        return cli_usage_error("plot", "--wa %s is one value per run: wa-time takes "
                               "cumulative or interval", f.wa ? "total-steady" : "steady");
    if (!out && !data)
        return cli_usage_error("plot", "give -o FILE.png|.svg|.pdf and/or --data FILE");
    int fmt = out ? plot_format_from_path(out) : 0;
    if (fmt < 0)
        return cli_usage_error("plot", "cannot tell the format of '%s': name it .png, "
                               ".svg or .pdf", out);

    const char *dbpath = argv[optind];
    char err[1024];
    sqlite3 *db;
    if (plot_open_db(dbpath, &db, err, sizeof err))
        return plot_fail("%s", err);
    struct plot p = {0};
    int rc = CLI_OK;
    if (plot_build(db, (enum plot_kind)kind, &f, &p))
        rc = p.usage ? cli_usage_error("plot", "%s", p.err) : plot_fail("%s: %s", dbpath, p.err);
    sqlite3_close(db);
    if (!rc && data && plot_write_data(&p, data, err, sizeof err))
        rc = plot_fail("%s", err);
    if (!rc && out && plot_render(&p, out, (enum plot_format)fmt, err, sizeof err))
        rc = plot_fail("%s", err);
    if (!rc) {
        size_t pts = 0;
        for (size_t i = 0; i < p.nseries; i++)
            pts += p.series[i].n;
        printf("%s: %s, %zu series, %zu points", out ? out : data, kind_name, p.nseries, pts);
        if (p.key_title)
            printf(", named by %s", p.key_title);
        if (p.npanels)
            printf(", %zu panels by %s", p.npanels, p.facet);
        if (p.spread)
            printf(", mean +- 1 sd of the runs of each setting");
        putchar('\n');
    }
    plot_free(&p);
    return rc;
}

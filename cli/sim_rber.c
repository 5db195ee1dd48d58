/* sim_rber.c -- `flashlab sim rber`: the raw bit error rate a device
 * file's model gives (nand_rber, the rate every read draws from), as a
 * table for plots and for checking a part against published figures
 * (docs/validation.md, "The bit-error model against published chips"). */
#include "cli.h"
#include "nand.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char rber_help[] =
    "usage: flashlab sim rber [--pe LIST] [--hours LIST] [--reads N] DEVICE.yaml...\n"
    "\n"
    "Print the raw bit error rate per bit that each device file's model\n"
    "gives (docs/simulator.md, \"Bit errors and ECC\"): one tab-separated\n"
    "line `device  pe  hours  reads  rber` per combination, after `#` lines\n"
    "naming each device's source.  pe is the effective P/E count (P/E\n"
    "divided by endurance_scale), hours the time since the page was\n"
    "programmed, reads the block's reads since its erase.\n"
    "\n"
    "options:\n"
    "  --pe LIST      comma-separated P/E counts (default: 1, then 8 points\n"
    "                 a decade up to twice the device's endurance)\n"
    "  --hours LIST   comma-separated retention times (default 0,8760: fresh\n"
    "                 and after a year)\n"
    "  --reads N      reads of the block since its erase (default 0)\n"
    "\n"
    "examples:\n"
    "  flashlab sim rber configs/devices/mlc-2g.yaml\n"
    "  flashlab sim rber --pe 1,3000 --hours 0,8760 configs/devices/mlc-2g.yaml\n";

#define MAX_VALUES 256

/* A comma-separated list of non-negative finite numbers; the count, or -1. */
static int parse_list(const char *s, double *v, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        double d = strtod(s, &end);
        if (end == s || !isfinite(d) || d < 0 || n == max || (*end && *end != ','))
            return -1;
        v[n++] = d;
        s = *end ? end + 1 : end;
        if (*end && !*s)
            return -1; /* a trailing comma */
    }
    return n;
}

/* 1, then 8 points a decade up to 2 x endurance. */
static int default_pe(const struct nand_config *cfg, double *v, int max)
{
    double top = 2.0 * (double)cfg->endurance;
    int n = 0;
    for (int i = 0; n < max; i++) {
        double pe = pow(10.0, i / 8.0);
        if (pe > top * (1 + 1e-9))
            break;
        v[n++] = pe;
    }
    return n;
}

int sim_rber(int argc, char **argv)
{
    static const struct option opts[] = {
        {"pe", required_argument, 0, 'p'}, {"hours", required_argument, 0, 't'},
        {"reads", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    double pe[MAX_VALUES], hours[MAX_VALUES] = {0, 8760};
    int npe = 0, nhours = 2, c;
    uint64_t reads = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if ((npe = parse_list(optarg, pe, MAX_VALUES)) <= 0)
                return cli_usage_error("sim rber", "--pe: expected numbers >= 0 "
                                       "separated by commas, got '%s'", optarg);
            break;
        case 't':
            if ((nhours = parse_list(optarg, hours, MAX_VALUES)) <= 0)
                return cli_usage_error("sim rber", "--hours: expected numbers >= 0 "
                                       "separated by commas, got '%s'", optarg);
            break;
        case 'r':
            if (cli_parse_u64(optarg, &reads))
                return cli_usage_error("sim rber", "--reads: expected a whole number, "
                                       "got '%s'", optarg);
            break;
        case 'h': fputs(rber_help, stdout); return CLI_OK;
        default: return cli_usage_error("sim rber", "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error("sim rber", "expected one or more DEVICE.yaml files");
    printf("# raw bit error rate per bit of each device's model (nand_rber)\n"
           "# device\tpe\thours\treads\trber\n");
    for (int i = optind; i < argc; i++) {
        struct nand_config cfg;
        char err[512];
        if (nand_config_load(argv[i], &cfg, err, sizeof err))
            return cli_error("%s", err);
        printf("# %s: %s\n", cfg.name, cfg.source[0] ? cfg.source : "(no source)");
        double grid[MAX_VALUES];
        const double *p = npe ? pe : grid;
        int n = npe ? npe : default_pe(&cfg, grid, MAX_VALUES);
        for (int h = 0; h < nhours; h++)
            for (int j = 0; j < n; j++)
                printf("%s\t%.6g\t%.6g\t%llu\t%.6g\n", cfg.name, p[j], hours[h],
                       (unsigned long long)reads,
                       nand_rber(&cfg.rber, p[j], hours[h], (double)reads));
    }
    return CLI_OK;
}

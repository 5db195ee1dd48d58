/* cmd_sim.c -- `flashlab sim`: create, inspect and poke simulated devices. */
#include "cli.h"
#include "imglock.h"
#include "nand.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int open_image(const char *path, nand_dev **dev)
{
    char err[512];
    if (nand_open(path, dev, err, sizeof err))
        return cli_error("%s", err);
    return CLI_OK;
}

static int save_image(nand_dev *dev, const char *path)
{
    int rc = nand_save(dev, path);
    if (rc)
        return cli_error("%s: cannot save image: %s", path, nand_strerror(rc));
    return CLI_OK;
}

/* ---- create ---------------------------------------------------------- */

static const char create_help[] =
    "usage: flashlab sim create --device DEVICE.yaml [--seed N] [--force] IMAGE\n"
    "\n"
    "Create a fresh device image: every block erased, factory bad blocks\n"
    "marked.  DEVICE.yaml describes the part (see configs/devices/ and\n"
    "docs/devices.md).  --seed overrides the file's seed; --force overwrites\n"
    "an existing IMAGE.\n"
    "\n"
    "examples:\n"
    "  flashlab sim create --device configs/devices/test-64m.yaml dev.img\n"
    "  flashlab sim create --device configs/devices/mlc-2g.yaml --seed 7 --force dev.img\n";

static int sim_create(int argc, char **argv)
{
    static const struct option opts[] = {
        {"device", required_argument, 0, 'd'}, {"seed", required_argument, 0, 's'},
        {"force", no_argument, 0, 'f'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *device = NULL;
    uint64_t seed = 0;
    int have_seed = 0, force = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "d:s:fh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 's':
            if (cli_parse_u64(optarg, &seed))
                return cli_usage_error("sim create", "bad seed '%s'", optarg);
            have_seed = 1;
            break;
        case 'f': force = 1; break;
        case 'h': fputs(create_help, stdout); return CLI_OK;
        default: return cli_usage_error("sim create", "bad option");
        }
    }
    if (!device)
        return cli_usage_error("sim create", "--device is required");
    if (optind != argc - 1)
        return cli_usage_error("sim create", "expected one IMAGE argument");
    const char *image = argv[optind];
    struct stat st;
    if (!force && stat(image, &st) == 0)
        return cli_error("%s: already exists (use --force to overwrite)", image);

    struct nand_config cfg;
    char err[512];
    if (nand_config_load(device, &cfg, err, sizeof err))
        return cli_error("%s", err);
    if (have_seed)
        cfg.seed = seed;
    nand_dev *dev;
    int rc = nand_create(&cfg, &dev);
    if (rc)
        return cli_error("%s: cannot create device: %s", device, nand_strerror(rc));
    struct imglock lk;
    rc = imglock_create(&lk, image, "sim create") ? CLI_FAIL : save_image(dev, image);
    imglock_release(&lk);
    nand_close(dev);
    if (!rc)
        printf("created %s: %s, %" PRIu64 " MiB\n", image, cfg.name,
               nand_capacity_bytes(&cfg) >> 20);
    return rc;
}

/* ---- info ------------------------------------------------------------- */

static const char info_help[] =
    "usage: flashlab sim info [--blocks] IMAGE\n"
    "\n"
    "Print a device's geometry, timing, wear summary, bad blocks and\n"
    "statistics.  --blocks adds one line per block.\n"
    "\n"
    "examples:\n"
    "  flashlab sim info dev.img\n"
    "  flashlab sim info --blocks dev.img | less\n";

static const char *cell_name(enum nand_cell c)
{
    return c == NAND_MLC ? "mlc" : c == NAND_TLC ? "tlc" : "slc";
}

static void print_config(const struct nand_config *c)
{
    const struct nand_geometry *g = &c->geo;
    printf("device:     %s (%s), seed %" PRIu64 "\n", c->name, cell_name(c->cell),
           c->seed);
    printf("geometry:   %u channel(s) x %u die(s) x %u plane(s) x %u blocks x "
           "%u pages x (%u + %u) B\n", g->channels, g->dies_per_channel,
           g->planes_per_die, g->blocks_per_plane, g->pages_per_block,
           g->page_size, g->oob_size);
    printf("capacity:   %" PRIu64 " blocks, %" PRIu64 " MiB\n", nand_blocks(c),
           nand_capacity_bytes(c) >> 20);
    printf("timing:     tR %" PRIu64 " ns, tPROG %" PRIu64 " ns, tBERS %" PRIu64
           " ns, cycle %" PRIu64 " ns%s\n", c->timing.t_r_ns, c->timing.t_prog_ns,
           c->timing.t_bers_ns, c->timing.t_cycle_ns,
           c->timing.whole_page_reads ? "; every read moves a whole page (nandsim)" : "");
    if (c->pair_distance) /* the upper page of a pair: slower, and exposed */
        printf("pairing:    upper page p pairs with lower p - %u (p / %u odd: upper); "
               "upper tR %" PRIu64 " ns, tPROG %" PRIu64 " ns\n", c->pair_distance,
               c->pair_distance,
               c->timing.t_r_upper_ns ? c->timing.t_r_upper_ns : c->timing.t_r_ns,
               c->timing.t_prog_upper_ns ? c->timing.t_prog_upper_ns : c->timing.t_prog_ns);
    else
        printf("pairing:    none (every page programs alone)\n");
    printf("endurance:  %" PRIu64 " P/E (sigma %.2f, scale %g), NOP %u\n",
           c->endurance, c->endurance_sigma, c->endurance_scale, c->nop);
    printf("ecc:        %u bits per %u B codeword\n", c->ecc.correct_bits,
           c->ecc.codeword_bytes);
}

static int sim_info(int argc, char **argv)
{
    static const struct option opts[] = {
        {"blocks", no_argument, 0, 'b'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int blocks = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "bh", opts, NULL)) != -1) {
        switch (c) {
        case 'b': blocks = 1; break;
        case 'h': fputs(info_help, stdout); return CLI_OK;
        default: return cli_usage_error("sim info", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("sim info", "expected one IMAGE argument");
    nand_dev *dev;
    imglock_read(argv[optind], "sim info");
    if (open_image(argv[optind], &dev))
        return CLI_FAIL;
    const struct nand_config *cfg = nand_get_config(dev);
    print_config(cfg);

    uint64_t n = nand_blocks(cfg), pe_min = UINT64_MAX, pe_max = 0;
    uint64_t factory = 0, grown = 0, marked = 0, torn = 0, used = 0;
    double pe_sum = 0;
    struct nand_block_info bi;
    for (uint64_t b = 0; b < n; b++) {
        nand_block_info(dev, (nand_block_t)b, &bi);
        pe_min = bi.pe_cycles < pe_min ? bi.pe_cycles : pe_min;
        pe_max = bi.pe_cycles > pe_max ? bi.pe_cycles : pe_max;
        pe_sum += (double)bi.pe_cycles;
        factory += (uint64_t)bi.factory_bad;
        grown += (uint64_t)bi.grown_bad;
        marked += (uint64_t)bi.marked_bad;
        torn += (uint64_t)bi.erase_torn;
        used += bi.pages_programmed > 0;
    }
    printf("wear:       P/E min %" PRIu64 ", mean %.1f, max %" PRIu64 "\n", pe_min,
           pe_sum / (double)n, pe_max);
    printf("blocks:     %" PRIu64 " in use, %" PRIu64 " factory bad, %" PRIu64
           " grown bad, %" PRIu64 " marked bad, %" PRIu64 " torn erase\n", used,
           factory, grown, marked, torn);
    struct nand_stats st;
    nand_get_stats(dev, &st);
    printf("stored:     %" PRIu64 " page buffers, %" PRIu64 " bytes\n",
           st.pages_stored, st.bytes_stored);
    printf("operations: %" PRIu64 " reads, %" PRIu64 " programs, %" PRIu64
           " erases; %" PRIu64 " bits corrected, %" PRIu64 " uncorrectable reads\n",
           st.reads, st.programs, st.erases, st.bits_corrected,
           st.uncorrectable_reads);
    printf("violations: %" PRIu64 " not erased, %" PRIu64 " order, %" PRIu64
           " nop, %" PRIu64 " address\n", st.violations_not_erased,
           st.violations_order, st.violations_nop, st.violations_addr);
    printf("power:      %" PRIu64 " cuts (%" PRIu64 " torn programs, %" PRIu64
           " torn erases)\n", st.power_cuts, st.torn_programs, st.torn_erases);
    printf("clock:      %.6f s simulated\n", (double)nand_now(dev) / 1e9);
    if (blocks) {
        printf("%8s %10s %10s %6s %s\n", "block", "pe", "reads", "pages", "flags");
        for (uint64_t b = 0; b < n; b++) {
            nand_block_info(dev, (nand_block_t)b, &bi);
            printf("%8" PRIu64 " %10" PRIu64 " %10" PRIu64 " %6u %s%s%s%s\n", b,
                   bi.pe_cycles, bi.reads_since_erase, bi.pages_programmed,
                   bi.factory_bad ? "factory-bad " : "", bi.grown_bad ? "grown-bad " : "",
                   bi.marked_bad ? "marked " : "", bi.erase_torn ? "torn" : "");
        }
    }
    nand_close(dev);
    return CLI_OK;
}

/* ---- erase / write / read: poke single pages ---------------------------- */

static const char page_help[] =
    "usage: flashlab sim erase IMAGE BLOCK\n"
    "       flashlab sim write IMAGE BLOCK PAGE [--byte N | --file FILE]\n"
    "       flashlab sim read  IMAGE BLOCK PAGE [--raw]\n"
    "\n"
    "Erase a block, program one page (every byte N, default 0x00, or the\n"
    "first page_size bytes of FILE) or dump a page as hex, then save the\n"
    "image.  Each prints the NAND status and the simulated time it took.\n"
    "\n"
    "examples:\n"
    "  flashlab sim erase dev.img 5\n"
    "  flashlab sim write dev.img 5 0 --byte 0x5a\n"
    "  flashlab sim read dev.img 5 0\n";

static int parse_addr(const char *cmd, char **argv, int need, uint64_t *v,
                      const struct nand_config *cfg)
{
    if (cli_parse_u64(argv[0], &v[0]) || v[0] >= nand_blocks(cfg))
        return cli_usage_error(cmd, "bad block '%s' (device has %" PRIu64 ")",
                               argv[0], nand_blocks(cfg));
    if (need > 1 && (cli_parse_u64(argv[1], &v[1]) || v[1] >= cfg->geo.pages_per_block))
        return cli_usage_error(cmd, "bad page '%s' (block has %u)", argv[1],
                               cfg->geo.pages_per_block);
    return CLI_OK;
}

/* Print the operation's status; CLI_FAIL when the chip reported a failure. */
static int report(int rc, const struct nand_result *r)
{
    printf("status: %s, %.3f us\n", nand_strerror(rc),
           (double)(r->done - r->start) / 1000.0);
    return rc == NAND_OK ? CLI_OK : CLI_FAIL;
}

/* The image is saved whatever the status (a failed program or erase
 * leaves its mark on the chip); a failed status still fails the command. */
static int save_after(int status, nand_dev *dev, const char *image)
{
    int rc = save_image(dev, image);
    return rc ? rc : status;
}

static int sim_page(int argc, char **argv)
{
    static const struct option opts[] = {
        {"byte", required_argument, 0, 'b'}, {"file", required_argument, 0, 'f'},
        {"raw", no_argument, 0, 'r'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *file = NULL;
    char cmd[32]; /* "sim write": messages name the whole subcommand */
    snprintf(cmd, sizeof cmd, "sim %s", argv[0]);
    uint64_t fill = 0;
    int raw = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "b:f:rh", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if (cli_parse_u64(optarg, &fill) || fill > 255)
                return cli_usage_error(cmd, "bad byte '%s'", optarg);
            break;
        case 'f': file = optarg; break;
        case 'r': raw = 1; break;
        case 'h': fputs(page_help, stdout); return CLI_OK;
        default: return cli_usage_error(cmd, "bad option");
        }
    }
    const char *op = argv[0];
    int need = strcmp(op, "erase") ? 2 : 1;
    if (argc - optind != need + 1)
        return cli_usage_error(cmd, "expected IMAGE and %s",
                               need == 1 ? "BLOCK" : "BLOCK PAGE");
    const char *image = argv[optind];
    nand_dev *dev;
    struct imglock lk; /* every page command saves the image */
    if (imglock_write(&lk, image, cmd, NULL))
        return CLI_FAIL;
    if (open_image(image, &dev)) {
        imglock_release(&lk);
        return CLI_FAIL;
    }
    const struct nand_config *cfg = nand_get_config(dev);
    uint64_t a[2] = {0, 0};
    int rc = parse_addr(cmd, argv + optind + 1, need, a, cfg);
    uint32_t len = cfg->geo.page_size + cfg->geo.oob_size;
    uint8_t *buf = calloc(1, len);
    struct nand_result res = {0};
    if (!rc && !buf)
        rc = cli_error("out of memory");
    if (!rc && !strcmp(op, "erase")) {
        rc = save_after(report(nand_erase(dev, (nand_block_t)a[0], &res), &res), dev, image);
    } else if (!rc && !strcmp(op, "write")) {
        memset(buf, (int)fill, cfg->geo.page_size);
        memset(buf + cfg->geo.page_size, 0xff, cfg->geo.oob_size);
        FILE *f = file ? fopen(file, "rb") : NULL;
        if (file && !f)
            rc = cli_error("%s: cannot open: %s", file, strerror(errno));
        if (f) {
            size_t got = fread(buf, 1, cfg->geo.page_size, f);
            memset(buf + got, 0xff, cfg->geo.page_size - got);
            fclose(f);
        }
        if (!rc) {
            int st = report(nand_program(dev, (nand_block_t)a[0], (nand_page_t)a[1], buf,
                                         buf + cfg->geo.page_size, &res), &res);
            rc = save_after(st, dev, image);
        }
    } else if (!rc) {
        int st = (raw ? nand_read_raw : nand_read)(dev, (nand_block_t)a[0],
                                                   (nand_page_t)a[1], buf,
                                                   buf + cfg->geo.page_size, &res);
        for (uint32_t i = 0; i < len; i += 16) {
            printf("%06x%s", i, i >= cfg->geo.page_size ? " oob" : "    ");
            for (uint32_t j = i; j < i + 16 && j < len; j++)
                printf(" %02x", buf[j]);
            putchar('\n');
        }
        (void)report(st, &res); /* a read's status is what it shows */
        printf("corrected bits: %u, raw bit errors: %u\n", res.corrected_bits,
               res.raw_bit_errors);
        rc = save_image(dev, image); /* reads count toward read disturb */
    }
    free(buf);
    nand_close(dev);
    imglock_release(&lk);
    return rc;
}

/* ---- export / import: flat dumps for mtd-utils ------------------------------ */

static const char export_help[] =
    "usage: flashlab sim export [--format nanddump|raw] IMAGE OUT\n"
    "\n"
    "Write every page of IMAGE to OUT, block after block, block i at block i.\n"
    "  nanddump  (default) each page's data then its whole OOB, as\n"
    "            `nanddump --oob --noecc --bb=dumpbad` writes and\n"
    "            `nandwrite --oob --noecc` reads; bad blocks are dumped as\n"
    "            stored, markers included\n"
    "  raw       data only, as mkfs.jffs2 --pad and ubinize images are; a bad\n"
    "            block is written as 0xFF (nanddump's --bb=padbad)\n"
    "The stored bits are written without ECC or read noise, and IMAGE is not\n"
    "changed (no read is counted).  See docs/simulator.md.\n"
    "\n"
    "examples:\n"
    "  flashlab sim export --format nanddump dev.img dev.nanddump\n"
    "  flashlab sim export --format raw dev.img dev.bin\n";

static const char import_help[] =
    "usage: flashlab sim import --device DEVICE.yaml [--format nanddump|raw]\n"
    "                           [--seed N] [--force] IN IMAGE\n"
    "\n"
    "Create a fresh device from DEVICE.yaml (as `sim create`) and program\n"
    "into it, in order, every page of IN that is not all 0xFF; block i of IN\n"
    "goes to block i.  IN is a whole number of pages (nanddump: page + OOB,\n"
    "raw: page data only; raw pages get an erased OOB) and no larger than the\n"
    "device; it may be shorter.  A nanddump block whose marker reads bad is\n"
    "marked bad; data for a factory-bad block of the device is refused.\n"
    "--force overwrites an existing IMAGE.  See docs/simulator.md.\n"
    "\n"
    "examples:\n"
    "  flashlab sim import --device configs/devices/test-64m.yaml dev.nanddump dev.img\n"
    "  flashlab sim import --device configs/devices/test-64m.yaml --format raw \\\n"
    "      jffs2.bin dev.img\n";

static int parse_format(const char *cmd, const char *s, enum nand_dump_format *fmt)
{
    if (!strcmp(s, "nanddump"))
        *fmt = NAND_DUMP_NANDDUMP;
    else if (!strcmp(s, "raw"))
        *fmt = NAND_DUMP_RAW;
    else
        return cli_usage_error(cmd, "unknown format '%s' (nanddump or raw)", s);
    return CLI_OK;
}

static int sim_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'F'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    enum nand_dump_format fmt = NAND_DUMP_NANDDUMP;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "F:h", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (parse_format("sim export", optarg, &fmt))
                return CLI_USAGE;
            break;
        case 'h': fputs(export_help, stdout); return CLI_OK;
        default: return cli_usage_error("sim export", "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("sim export", "expected IMAGE and OUT");
    const char *image = argv[optind], *outp = argv[optind + 1];
    nand_dev *dev;
    imglock_read(image, "sim export");
    if (open_image(image, &dev))
        return CLI_FAIL;
    char err[512];
    int rc = nand_export(dev, outp, fmt, err, sizeof err);
    if (rc)
        rc = cli_error("sim export: %s", err);
    else
        printf("exported %s to %s (%s)\n", image, outp,
               fmt == NAND_DUMP_RAW ? "raw" : "nanddump");
    nand_close(dev);
    return rc;
}

static int sim_import(int argc, char **argv)
{
    static const struct option opts[] = {
        {"device", required_argument, 0, 'd'}, {"format", required_argument, 0, 'F'},
        {"seed", required_argument, 0, 's'}, {"force", no_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *device = NULL;
    enum nand_dump_format fmt = NAND_DUMP_NANDDUMP;
    uint64_t seed = 0;
    int have_seed = 0, force = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "d:F:s:fh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'F':
            if (parse_format("sim import", optarg, &fmt))
                return CLI_USAGE;
            break;
        case 's':
            if (cli_parse_u64(optarg, &seed))
                return cli_usage_error("sim import", "bad seed '%s'", optarg);
            have_seed = 1;
            break;
        case 'f': force = 1; break;
        case 'h': fputs(import_help, stdout); return CLI_OK;
        default: return cli_usage_error("sim import", "bad option");
        }
    }
    if (!device)
        return cli_usage_error("sim import", "--device is required");
    if (argc - optind != 2)
        return cli_usage_error("sim import", "expected IN and IMAGE");
    const char *in = argv[optind], *image = argv[optind + 1];
    struct stat st;
    if (!force && stat(image, &st) == 0)
        return cli_error("sim import: %s: already exists (use --force to overwrite)",
                         image);
    struct nand_config cfg;
    char err[512];
    if (nand_config_load(device, &cfg, err, sizeof err))
        return cli_error("%s", err);
    if (have_seed)
        cfg.seed = seed;
    nand_dev *dev;
    if (nand_import(&cfg, in, fmt, &dev, err, sizeof err))
        return cli_error("sim import: %s", err);
    struct imglock lk;
    int rc = imglock_create(&lk, image, "sim import") ? CLI_FAIL : save_image(dev, image);
    imglock_release(&lk);
    if (!rc) {
        struct nand_stats s;
        nand_get_stats(dev, &s);
        printf("imported %s into %s: %s, %" PRIu64 " pages programmed\n", in, image,
               cfg.name, s.programs);
    }
    nand_close(dev);
    return rc;
}

/* ---- dispatch ------------------------------------------------------------- */

int sim_demo(int argc, char **argv);
int sim_corrupt(int argc, char **argv); /* sim_corrupt.c */
int sim_rber(int argc, char **argv);    /* sim_rber.c */

static const struct cli_cmd sim_cmds[] = {
    {"create", "create a fresh device image from a device YAML file", sim_create},
    {"info", "print geometry, wear, bad blocks and statistics", sim_info},
    {"erase", "erase one block of an image", sim_page},
    {"write", "program one page of an image", sim_page},
    {"read", "read one page of an image as hex", sim_page},
    {"export", "write an image as a nanddump or raw file (mtd-utils)", sim_export},
    {"import", "create an image from a nanddump or raw file", sim_import},
    {"corrupt", "damage a page or block of an image (media faults)", sim_corrupt},
    {"rber", "the raw bit error rate a device file's model gives", sim_rber},
    {"demo", "a tour of the simulator on a small device", sim_demo},
    {NULL, NULL, NULL},
};

static const char sim_help[] =
    "usage: flashlab sim <command> [options]\n"
    "\n"
    "examples:\n"
    "  flashlab sim create --device configs/devices/test-64m.yaml dev.img\n"
    "  flashlab sim info dev.img\n"
    "  flashlab sim demo\n"
    "\n"
    "commands:\n";

int cmd_sim(int argc, char **argv)
{
    return cli_dispatch("sim", sim_cmds, argc, argv, sim_help);
}

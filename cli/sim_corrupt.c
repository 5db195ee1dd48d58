/* sim_corrupt.c -- `flashlab sim corrupt`: damage an image on purpose
 * (nand_corrupt; docs/simulator.md "Damage injection"). */
#include "cli.h"
#include "nand.h"
#include "imglock.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char corrupt_help[] =
    "usage: flashlab sim corrupt IMAGE [--block B] [--page P] MODE [options]\n"
    "\n"
    "Damage one page or block of an image the way media faults and failing\n"
    "firmware do, and save it.  The image stays a valid image: the damage is\n"
    "part of the device's stored state.  MODE is one of\n"
    "  flip           --bits N weak cells (default 1) in one ECC codeword:\n"
    "                 raw bit errors on every read, corrected while N <= t\n"
    "  beyond         the same with t+1 bits (or --bits N if larger): the\n"
    "                 codeword is uncorrectable\n"
    "  uncorrectable  every read of the page fails ECC\n"
    "  wipe           the page reads erased (all 0xFF)\n"
    "  tear           the page's program torn after --frac F of tPROG\n"
    "                 (default: drawn from the seed)\n"
    "  bad            the block becomes a grown bad block (marker set,\n"
    "                 programs and erases of it fail); --page is not used\n"
    "  age            --hours H of simulated time pass (retention) and\n"
    "                 --reads N reads are counted on --block B (read\n"
    "                 disturb), or on every block without --block\n"
    "  silent         --bits N bits (default 1) of the stored data change;\n"
    "                 ECC passes the page, only a file system's CRC sees it\n"
    "\n"
    "options:\n"
    "  --offset O   flip/beyond: a byte of the codeword to hit (default: one\n"
    "               drawn from the seed); silent: first byte of the range\n"
    "  --length L   silent: bytes of the range (default: to the end of the\n"
    "               data, or of the spare if O is in the spare)\n"
    "  --seed S     positions and tear fraction are drawn from S (default 1)\n"
    "\n"
    "examples:\n"
    "  flashlab sim corrupt dev.img --block 5 --page 0 flip --bits 2\n"
    "  flashlab sim corrupt dev.img --block 5 --page 0 silent --bits 3 --seed 7\n"
    "  flashlab sim corrupt dev.img --block 9 bad\n"
    "  flashlab sim corrupt dev.img age --hours 8760 --reads 100000\n";

static int u32_opt(const char *what, const char *s, uint32_t *out)
{
    uint64_t v;
    if (cli_parse_u64(s, &v) || v > UINT32_MAX)
        return cli_usage_error("sim corrupt", "bad %s '%s'", what, s);
    *out = (uint32_t)v;
    return CLI_OK;
}

static int real_opt(const char *what, const char *s, double lo, double hi,
                    double *out)
{
    char *end;
    errno = 0;
    double v = s && *s ? strtod(s, &end) : NAN;
    if (!s || !*s || errno || *end || !(v >= lo && v <= hi))
        return cli_usage_error("sim corrupt", "bad %s '%s'", what, s ? s : "");
    *out = v;
    return CLI_OK;
}

/* The options into c; *have_block, *have_page say which were given. */
static int parse(int argc, char **argv, struct nand_corrupt *c,
                 int *have_block, int *have_page, const char **image)
{
    static const struct option opts[] = {
        {"block", required_argument, 0, 'b'}, {"page", required_argument, 0, 'p'},
        {"bits", required_argument, 0, 'n'}, {"offset", required_argument, 0, 'o'},
        {"length", required_argument, 0, 'l'}, {"frac", required_argument, 0, 'f'},
        {"hours", required_argument, 0, 'H'}, {"reads", required_argument, 0, 'r'},
        {"seed", required_argument, 0, 's'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *pos[2] = {NULL, NULL};
    int npos = 0, ch, rc = CLI_OK;
    double hours = 0;
    optind = 1;
    /* "-": options may come before or after MODE; positional arguments
     * arrive as option 1, in order */
    while (!rc && (ch = getopt_long(argc, argv, "-b:p:n:o:l:f:H:r:s:h", opts,
                                    NULL)) != -1) {
        switch (ch) {
        case 1:
            if (npos == 2)
                return cli_usage_error("sim corrupt", "unexpected '%s'", optarg);
            pos[npos++] = optarg;
            break;
        case 'b': rc = u32_opt("block", optarg, &c->block); *have_block = 1; break;
        case 'p': rc = u32_opt("page", optarg, &c->page); *have_page = 1; break;
        case 'n': rc = u32_opt("bit count", optarg, &c->bits); break;
        case 'o': rc = u32_opt("offset", optarg, &c->offset); break;
        case 'l': rc = u32_opt("length", optarg, &c->length); break;
        case 'f': rc = real_opt("fraction", optarg, 0, 1, &c->frac); break;
        case 'H': rc = real_opt("hours", optarg, 0, 1e9, &hours); break;
        case 'r': rc = cli_parse_u64(optarg, &c->reads)
                       ? cli_usage_error("sim corrupt", "bad read count '%s'", optarg)
                       : CLI_OK;
                  break;
        case 's': rc = cli_parse_u64(optarg, &c->seed)
                       ? cli_usage_error("sim corrupt", "bad seed '%s'", optarg)
                       : CLI_OK;
                  break;
        case 'h': fputs(corrupt_help, stdout); return -1;
        default: return cli_usage_error("sim corrupt", "bad option");
        }
    }
    if (rc)
        return rc;
    if (npos != 2)
        return cli_usage_error("sim corrupt", "expected IMAGE and MODE");
    *image = pos[0];
    c->mode = nand_corrupt_mode_parse(pos[1]);
    if (!c->mode)
        return cli_usage_error("sim corrupt",
                               "unknown mode '%s' (flip, beyond, uncorrectable, "
                               "wipe, tear, bad, age, silent)", pos[1]);
    c->age_ns = (uint64_t)(hours * 3.6e12);
    return CLI_OK;
}

int sim_corrupt(int argc, char **argv);
int sim_corrupt(int argc, char **argv)
{
    struct nand_corrupt c = {.frac = -1, .seed = 1};
    int have_block = 0, have_page = 0;
    const char *image = NULL;
    int rc = parse(argc, argv, &c, &have_block, &have_page, &image);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    if (c.mode == NAND_CORRUPT_AGE) {
        c.all_blocks = !have_block;
    } else if (!have_block || (!have_page && c.mode != NAND_CORRUPT_BAD)) {
        return cli_usage_error("sim corrupt", "this mode needs --block%s",
                               c.mode == NAND_CORRUPT_BAD ? "" : " and --page");
    }
    nand_dev *dev;
    char err[512];
    struct imglock lk; /* held until after the save, as by every writer */
    if (imglock_write(&lk, image, "sim corrupt", NULL))
        return CLI_FAIL;
    if (nand_open(image, &dev, err, sizeof err)) {
        imglock_release(&lk);
        return cli_error("%s", err);
    }
    int st = nand_corrupt(dev, &c, err, sizeof err);
    if (st) {
        nand_close(dev);
        imglock_release(&lk);
        return cli_error("%s: %s", image, err);
    }
    if (c.mode == NAND_CORRUPT_AGE)
        printf("%s: aged %.0f hours, %" PRIu64 " reads on %s\n", image,
               (double)c.age_ns / 3.6e12, c.reads,
               c.all_blocks ? "every block" : "the block");
    else if (c.mode == NAND_CORRUPT_BAD)
        printf("%s: block %u is now a grown bad block\n", image, c.block);
    else
        printf("%s: damaged block %u page %u\n", image, c.block, c.page);
    rc = nand_save(dev, image);
    nand_close(dev);
    imglock_release(&lk);
    if (rc)
        return cli_error("%s: cannot save image: %s", image, nand_strerror(rc));
    return CLI_OK;
}

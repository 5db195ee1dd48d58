/* sim_demo.c -- `flashlab sim demo`: a short tour of the simulator. */
#include "cli.h"
#include "imglock.h"
#include "nand.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char demo_help[] =
    "usage: flashlab sim demo [--device DEVICE.yaml] [--image IMAGE]\n"
    "\n"
    "Program and read back a few MiB, queue programs on several dies, age\n"
    "a block to show bit errors growing with wear, tear a program with a\n"
    "power cut and undo it with a snapshot.  Default device:\n"
    "configs/devices/test-64m.yaml (the one flashlab ships, from any directory);\n"
    "the image is saved if --image is given.\n"
    "\n"
    "examples:\n"
    "  flashlab sim demo\n"
    "  flashlab sim demo --image demo.img\n";

static void fill_random(uint8_t *buf, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i++) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[i] = (uint8_t)(*state >> 56);
    }
}

/* Sequential program then read of `mib` MiB; returns 0 if data matched. */
static int demo_stream(nand_dev *dev, uint32_t mib)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ps = c->geo.page_size, ppb = c->geo.pages_per_block;
    uint64_t pages = ((uint64_t)mib << 20) / ps, seed = 42, done = 0;
    uint8_t *w = malloc(ps), *r = malloc(ps);
    int bad = 0;
    nand_time_t t0 = nand_now(dev);
    for (nand_block_t b = 1; done < pages && b < nand_blocks(c); b++) {
        if (nand_is_bad(dev, b))
            continue;
        nand_erase(dev, b, NULL);
        for (nand_page_t p = 0; p < ppb && done < pages; p++, done++) {
            fill_random(w, ps, &seed);
            bad |= nand_program(dev, b, p, w, NULL, NULL) != 0;
        }
    }
    nand_time_t t1 = nand_now(dev);
    seed = 42;
    done = 0;
    uint64_t corrected = 0;
    for (nand_block_t b = 1; done < pages && b < nand_blocks(c); b++) {
        if (nand_is_bad(dev, b))
            continue;
        for (nand_page_t p = 0; p < ppb && done < pages; p++, done++) {
            struct nand_result res;
            fill_random(w, ps, &seed);
            bad |= nand_read(dev, b, p, r, NULL, &res) != 0 || memcmp(w, r, ps);
            corrected += res.corrected_bits;
        }
    }
    nand_time_t t2 = nand_now(dev);
    printf("stream:   wrote %u MiB in %.1f ms simulated (%.1f MB/s), read it "
           "back in %.1f ms (%.1f MB/s), %s, %" PRIu64 " bits corrected\n", mib,
           (double)(t1 - t0) / 1e6, (double)pages * ps / ((double)(t1 - t0) / 1e3),
           (double)(t2 - t1) / 1e6, (double)pages * ps / ((double)(t2 - t1) / 1e3),
           bad ? "MISMATCH" : "data intact", corrected);
    free(w);
    free(r);
    return bad;
}

/* The same programs, one die at a time and queued on all dies. */
static void demo_parallel(const struct nand_config *base)
{
    struct nand_config c = *base;
    c.geo.channels = 4;
    c.geo.dies_per_channel = 1;
    c.geo.blocks_per_plane = 16;
    c.factory_bad_fraction = 0;
    nand_dev *dev;
    if (nand_create(&c, &dev))
        return;
    uint64_t per_die = (uint64_t)c.geo.planes_per_die * c.geo.blocks_per_plane;
    uint8_t *buf = calloc(1, c.geo.page_size);
    nand_time_t t0 = nand_now(dev);
    for (int d = 0; d < 4; d++)
        nand_program(dev, (nand_block_t)(d * per_die), 0, buf, NULL, NULL);
    nand_time_t serial = nand_now(dev) - t0;
    struct nand_op ops[4];
    t0 = nand_now(dev);
    for (int d = 0; d < 4; d++) {
        ops[d] = (struct nand_op){.kind = NAND_OP_PROGRAM,
                                  .block = (nand_block_t)(d * per_die), .page = 1,
                                  .data = buf};
        nand_submit(dev, &ops[d]);
    }
    nand_time_t queued = nand_wait(dev) - t0;
    printf("parallel: 4 programs on 4 dies: %.0f us one by one, %.0f us queued\n",
           (double)serial / 1e3, (double)queued / 1e3);
    free(buf);
    nand_close(dev);
}

/* Raw bit errors of one page as its block wears. */
static void demo_wear(nand_dev *dev)
{
    const struct nand_config *c = nand_get_config(dev);
    nand_block_t b = (nand_block_t)(nand_blocks(c) - 1);
    uint8_t *buf = malloc(c->geo.page_size);
    memset(buf, 0x5a, c->geo.page_size);
    printf("wear:     raw bit errors per page read (mean of 200 reads) at P/E:");
    uint64_t levels[] = {0, c->endurance / 2, c->endurance, c->endurance * 2};
    for (int i = 0; i < 4; i++) {
        nand_set_wear(dev, b, levels[i]);
        nand_erase(dev, b, NULL);
        nand_program(dev, b, 0, buf, NULL, NULL);
        uint64_t errs = 0;
        for (int k = 0; k < 200; k++) {
            struct nand_result res;
            nand_read_raw(dev, b, 0, buf, NULL, &res);
            errs += res.raw_bit_errors;
        }
        printf(" %" PRIu64 ": %.3f", levels[i], errs / 200.0);
    }
    printf("\n");
    nand_set_wear(dev, b, 0);
    free(buf);
}

/* Cut the power in the middle of a program; a snapshot undoes it. */
static void demo_power(nand_dev *dev)
{
    const struct nand_config *c = nand_get_config(dev);
    uint8_t *buf = malloc(c->geo.page_size);
    nand_block_t b = 2;
    nand_snapshot *snap;
    if (nand_snapshot_take(dev, &snap))
        return;
    memset(buf, 0x00, c->geo.page_size);
    nand_erase(dev, b, NULL);
    nand_cut_after_ops(dev, 0, 0.5); /* tear the next program half-way */
    int rc = nand_program(dev, b, 0, buf, NULL, NULL);
    int rc2 = nand_read(dev, b, 0, buf, NULL, NULL);
    nand_power_on(dev);
    int rc3 = nand_read(dev, b, 0, buf, NULL, NULL);
    printf("power:    program cut half-way: '%s'; read while off: '%s'; after "
           "power-on the page reads '%s'\n", nand_strerror(rc), nand_strerror(rc2),
           nand_strerror(rc3));
    nand_snapshot_restore(dev, snap);
    nand_snapshot_free(snap);
    rc = nand_read(dev, b, 0, buf, NULL, NULL);
    printf("snapshot: restored, the page reads '%s' again\n", nand_strerror(rc));
    free(buf);
}

int sim_demo(int argc, char **argv)
{
    static const struct option opts[] = {
        {"device", required_argument, 0, 'd'}, {"image", required_argument, 0, 'i'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    char shipped[4096];
    const char *device = cli_shipped("configs/devices/test-64m.yaml", shipped, sizeof shipped);
    const char *image = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "d:i:h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'i': image = optarg; break;
        case 'h': fputs(demo_help, stdout); return CLI_OK;
        default: return cli_usage_error("sim demo", "bad option");
        }
    }
    if (optind != argc)
        return cli_usage_error("sim demo", "unexpected argument '%s'", argv[optind]);
    struct nand_config cfg;
    char err[512];
    if (nand_config_load(device, &cfg, err, sizeof err))
        return cli_error("%s", err);
    nand_dev *dev;
    int rc = nand_create(&cfg, &dev);
    if (rc)
        return cli_error("%s: %s", device, nand_strerror(rc));
    printf("device:   %s, %" PRIu64 " MiB, %" PRIu64 " blocks of %u x %u B pages\n",
           cfg.name, nand_capacity_bytes(&cfg) >> 20, nand_blocks(&cfg),
           cfg.geo.pages_per_block, cfg.geo.page_size);
    rc = demo_stream(dev, 4);
    demo_parallel(&cfg);
    demo_wear(dev);
    demo_power(dev);
    struct imglock lk = {NULL};
    if (image && imglock_create(&lk, image, "sim demo"))
        rc = CLI_FAIL;
    else if (image && nand_save(dev, image))
        rc = cli_error("%s: cannot save image", image);
    else if (image)
        printf("saved:    %s\n", image);
    imglock_release(&lk);
    nand_close(dev);
    return rc ? CLI_FAIL : CLI_OK;
}

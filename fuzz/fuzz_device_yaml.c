/*
 * fuzz_device_yaml.c -- device descriptions (sim/yaml_config.c).
 *
 * The input is a YAML file for nand_config_load.  Whatever it holds, the
 * loader must return without crashing, leaking or overrunning, and with a
 * NUL-terminated message on failure.  A configuration it accepts must be
 * complete and consistent: nand_config_finish accepts it again unchanged,
 * its block count is the product of its geometry (no 64-bit wrap-around),
 * and, when small enough to build here, nand_create gives a device on which
 * erase, program and read of one page and nand_block_info of every block
 * work.
 */
#include "harness.h"
#include "nand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DY "device_yaml"
/* Devices up to this size are built (the fuzzer's memory is limited). */
#define DY_MAX_BLOCKS (1u << 16)
#define DY_MAX_PAGE_BYTES (1u << 18)

static void dy_check_err(const char *err, size_t cap)
{
    if (!memchr(err, '\0', cap))
        fuzz_fail(DY, "error message not NUL-terminated");
}

/* The real number of blocks, without wrap-around (0 if it needs more
 * than 64 bits). */
static uint64_t dy_exact_blocks(const struct nand_geometry *g)
{
    unsigned __int128 n = (unsigned __int128)g->channels * g->dies_per_channel;
    n *= g->planes_per_die;
    n *= g->blocks_per_plane;
    return n >> 64 ? 0 : (uint64_t)n;
}

static void dy_try_device(const struct nand_config *cfg)
{
    uint64_t blocks = nand_blocks(cfg);
    uint64_t page_bytes = (uint64_t)cfg->geo.page_size + cfg->geo.oob_size;
    if (blocks > DY_MAX_BLOCKS || nand_dies(cfg) > DY_MAX_BLOCKS ||
        cfg->geo.channels > DY_MAX_BLOCKS || page_bytes > DY_MAX_PAGE_BYTES)
        return;
    nand_dev *dev = NULL;
    int rc = nand_create(cfg, &dev);
    if (rc) {
        if (rc != NAND_E_NOMEM)
            fuzz_fail(DY, "nand_create refused an accepted configuration: %s",
                      nand_strerror(rc));
        return;
    }
    uint8_t *buf = malloc(page_bytes * 2);
    if (!buf) {
        nand_close(dev);
        return;
    }
    uint8_t *data = buf, *back = buf + page_bytes;
    memset(data, 0x5a, cfg->geo.page_size);
    memset(data + cfg->geo.page_size, 0xff, cfg->geo.oob_size);
    nand_block_t b = (nand_block_t)(blocks - 1);
    /* a factory-bad block may refuse; block 0 is always good */
    for (int i = 0; i < 2; i++, b = 0) {
        if (nand_erase(dev, b, NULL) ||
            nand_program(dev, b, 0, data, data + cfg->geo.page_size, NULL))
            continue;
        rc = nand_read(dev, b, 0, back, back + cfg->geo.page_size, NULL);
        if (rc && rc != NAND_E_ECC)
            fuzz_fail(DY, "read of a programmed page: %s", nand_strerror(rc));
    }
    /* known: nand_block_info converts endurance * endurance_scale to u64
     * without a range check (UB past 2^64) */
    int skip_info = fuzz_skip_known() &&
                    (double)cfg->endurance * 2.0 * cfg->endurance_scale >= 1.8e19;
    /* every block's drawn endurance is at least endurance * (1 - 8.6 sigma)
     * (Box-Muller from 53-bit uniforms); when even that, scaled, is past
     * 2^64 the reported endurance can only be saturated (gcc's UBSan does
     * not check float-to-integer casts, so say it here) */
    double low = (double)cfg->endurance * (1.0 - 8.6 * cfg->endurance_sigma) *
                 cfg->endurance_scale;
    for (uint64_t i = 0; i < blocks && !skip_info; i++) {
        struct nand_block_info bi;
        if (nand_block_info(dev, (nand_block_t)i, &bi))
            fuzz_fail(DY, "nand_block_info(%llu) of %llu blocks fails", (unsigned long long)i,
                      (unsigned long long)blocks);
        if (low >= 18446744073709551616.0 && bi.endurance != UINT64_MAX)
            fuzz_fail(DY, "nand_block_info: endurance %g x scale %g is past 2^64, reported %llu",
                      (double)cfg->endurance, cfg->endurance_scale,
                      (unsigned long long)bi.endurance);
    }
    struct nand_stats st;
    nand_get_stats(dev, &st);
    free(buf);
    nand_close(dev);
}

int fuzz_device_yaml(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(FUZZ_FILE_INPUT, data, size);
    if (!path)
        return 0;
    struct nand_config cfg;
    char err[512];
    memset(err, 'x', sizeof err);
    int rc = nand_config_load(path, &cfg, err, sizeof err);
    dy_check_err(err, sizeof err);
    if (rc) {
        if (rc != NAND_E_INVAL && rc != NAND_E_NOMEM)
            fuzz_fail(DY, "nand_config_load returned %d", rc);
        if (!err[0])
            fuzz_fail(DY, "nand_config_load failed (%d) without a message", rc);
        if (fuzz_verbose())
            fprintf(stderr, "%s\n", err);
        return 0;
    }
    /* a short buffer must still give a terminated (truncated) message */
    char tiny[3];
    nand_config_load(path, &cfg, tiny, sizeof tiny);
    dy_check_err(tiny, sizeof tiny);

    if (!memchr(cfg.name, '\0', sizeof cfg.name))
        fuzz_fail(DY, "name not NUL-terminated");
    struct nand_config again;
    memcpy(&again, &cfg, sizeof cfg);
    if (nand_config_finish(&again, err, sizeof err))
        fuzz_fail(DY, "nand_config_finish refuses what the loader accepted: %s", err);
    if (memcmp(&again, &cfg, sizeof cfg))
        fuzz_fail(DY, "nand_config_finish changes a loaded configuration");
    uint64_t exact = dy_exact_blocks(&cfg.geo);
    if (!exact || exact != nand_blocks(&cfg)) {
        if (fuzz_skip_known())
            return 0; /* known: nand_config_finish lets the product wrap */
        fuzz_fail(DY,
                  "accepted geometry %u x %u x %u x %u blocks: nand_blocks() = %llu, "
                  "the product does not fit",
                  cfg.geo.channels, cfg.geo.dies_per_channel, cfg.geo.planes_per_die,
                  cfg.geo.blocks_per_plane, (unsigned long long)nand_blocks(&cfg));
    }
    (void)nand_capacity_bytes(&cfg);
    dy_try_device(&cfg);
    return 0;
}

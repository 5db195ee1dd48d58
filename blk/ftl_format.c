/*
 * ftl_format.c -- the FTL's on-flash records, byte by byte (docs/ftl.md,
 * "On-flash format"): a page's spare area (the reverse map: the sectors
 * its slots hold, a sequence number, the block's erase count, a CRC over
 * the spare and the data) and the superblock.  Little-endian throughout.
 */
#include "ftl.h"

#include "crc32.h"

#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

uint32_t ftl_oob_bytes(uint32_t spp)
{
    return FTL_OOB_FIXED + 4 * spp + 4;
}

/* CRC over the spare area from byte 1 to the CRC, then the page's data:
 * a torn program fails it, whichever part it tore. */
static uint32_t oob_crc(const uint8_t *oob, uint32_t spp, const void *data, uint32_t ps)
{
    uint32_t c = flashlab_crc32(0, oob + 1, FTL_OOB_FIXED - 1 + 4 * spp);
    return flashlab_crc32(c, data, ps);
}

void ftl_oob_encode(uint8_t *oob, uint32_t oob_size, uint32_t spp, const struct ftl_oob *o,
                    const void *data, uint32_t page_size)
{
    memset(oob, 0xFF, oob_size);
    oob[1] = FTL_OOB_VERSION; /* byte 0 stays 0xFF: the bad-block marker */
    oob[2] = (uint8_t)spp;
    oob[3] = 0;
    put32(oob + 4, o->erases);
    put64(oob + 8, o->seq);
    for (uint32_t s = 0; s < spp; s++)
        put32(oob + FTL_OOB_FIXED + 4 * s, o->lsn[s]);
    put32(oob + FTL_OOB_FIXED + 4 * spp, oob_crc(oob, spp, data, page_size));
}

int ftl_oob_decode(const uint8_t *oob, uint32_t spp, const void *data, uint32_t page_size,
                   struct ftl_oob *o)
{
    if (oob[1] != FTL_OOB_VERSION || oob[2] != spp || oob[3] != 0)
        return 0;
    if (data && get32(oob + FTL_OOB_FIXED + 4 * spp) != oob_crc(oob, spp, data, page_size))
        return 0;
    o->erases = get32(oob + 4);
    o->seq = get64(oob + 8);
    for (uint32_t s = 0; s < spp; s++)
        o->lsn[s] = get32(oob + FTL_OOB_FIXED + 4 * s);
    return 1;
}

/* magic 8, version 4, sector_size 4, op_ppm 4, 0 4, sectors 8, options
 * 256, then version 2: the copies' blocks 4 + 4; then the CRC 4 */
#define SB_COPIES_AT (32 + FTL_OPTS_MAX)
#define SB_CRC_AT(version) (SB_COPIES_AT + ((version) >= 2 ? 8 : 0))

void ftl_super_encode(uint8_t *page, uint32_t page_size, const struct ftl_super *s)
{
    memset(page, 0, page_size);
    memcpy(page, FTL_MAGIC, 8);
    put32(page + 8, FTL_VERSION);
    put32(page + 12, s->sector_size);
    put32(page + 16, s->op_ppm);
    put64(page + 24, s->sectors);
    memcpy(page + 32, s->options, FTL_OPTS_MAX);
    page[32 + FTL_OPTS_MAX - 1] = 0;
    put32(page + SB_COPIES_AT, s->copy[0]);
    put32(page + SB_COPIES_AT + 4, s->copy[1]);
    put32(page + SB_CRC_AT(FTL_VERSION), flashlab_crc32(0, page, SB_CRC_AT(FTL_VERSION)));
}

int ftl_super_decode(const uint8_t *page, uint32_t page_size, struct ftl_super *s)
{
    uint32_t v = page_size < SB_CRC_AT(FTL_VERSION) + 4 ? 0 : get32(page + 8);
    if ((v != 1 && v != FTL_VERSION) || memcmp(page, FTL_MAGIC, 8) ||
        get32(page + SB_CRC_AT(v)) != flashlab_crc32(0, page, SB_CRC_AT(v)))
        return 0;
    s->version = v;
    s->copy[0] = v >= 2 ? get32(page + SB_COPIES_AT) : FTL_NONE;
    s->copy[1] = v >= 2 ? get32(page + SB_COPIES_AT + 4) : FTL_NONE;
    s->sector_size = get32(page + 12);
    s->op_ppm = get32(page + 16);
    s->sectors = get64(page + 24);
    memcpy(s->options, page + 32, FTL_OPTS_MAX);
    s->options[FTL_OPTS_MAX - 1] = 0;
    return 1;
}

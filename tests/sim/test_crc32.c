/*
 * test_crc32.c -- the CRC every on-flash object and image carries: known
 * check values, and the fast path against a bit-at-a-time reference on
 * every length up to 1 KiB at every alignment, plus continuation, on each
 * path the CPU has (tables, 128-bit and 512-bit carry-less multiply).
 */
#include "crc32.h"
#include "rng.h"
#include "fixture.h"

/* The definition: reflected, polynomial 0xEDB88320, inverted in and out. */
static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}

TEST(check_values)
{
    CHECK_EQ_INT(flashlab_crc32(0, "123456789", 9), 0xCBF43926u);
    CHECK_EQ_INT(flashlab_crc32(0, "hello world", 11), 0x0D4A1185u);
    CHECK_EQ_INT(flashlab_crc32(0, "", 0), 0);
    static uint8_t zeros[4096];
    CHECK_EQ_INT(flashlab_crc32(0, zeros, sizeof zeros), crc_bitwise(0, zeros, sizeof zeros));
    static const char *names[] = {"tables", "carry-less multiply, 128 bits",
                                  "carry-less multiply, 512 bits"};
    fprintf(stderr, "  (path in use: %s)\n", names[flashlab_crc32_accelerated()]);
}

/* Every path the CPU has, each against the definition. */
TEST(every_length_and_alignment)
{
    static uint8_t buf[1024 + 16];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)rng_key(7, 1, i, 0, 0, 0);
    int best = flashlab_crc32_accelerated(), bad = 0;
    for (int level = 0; level <= best; level++) {
        CHECK_EQ_INT(flashlab_crc32_use(level), level);
        for (size_t align = 0; align < 16; align++)
            for (size_t len = 0; len <= 1024; len++) {
                uint32_t seed = (uint32_t)rng_key(7, 2, align, len, 0, 0);
                if (flashlab_crc32(seed, buf + align, len) !=
                        crc_bitwise(seed, buf + align, len) &&
                    bad++ < 5)
                    fprintf(stderr, "  path %d: mismatch at align %zu len %zu\n", level, align,
                            len);
            }
    }
    flashlab_crc32_use(best);
    CHECK_EQ_INT(bad, 0);
}

TEST(continuation_equals_whole)
{
    static uint8_t buf[70000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)rng_key(9, 1, i, 0, 0, 0);
    uint32_t whole = crc_bitwise(0, buf, sizeof buf);
    int best = flashlab_crc32_accelerated();
    for (int level = 0; level <= best; level++) {
        flashlab_crc32_use(level);
        CHECK_EQ_INT(flashlab_crc32(0, buf, sizeof buf), whole);
        for (size_t cut = 0; cut < sizeof buf; cut += 4099)
            CHECK_EQ_INT(flashlab_crc32(flashlab_crc32(0, buf, cut), buf + cut, sizeof buf - cut),
                         whole);
    }
    flashlab_crc32_use(best);
}

/* The CRC that copies: the same CRC as flashlab_crc32 and the same bytes
 * at dst, on every path, at lengths around each path's cut-offs and at
 * every source and destination alignment, continuing a seed. */
TEST(copy_equals_crc_and_memcpy)
{
    static uint8_t src[4096 + 200 + 64], dst[4096 + 200 + 64 + 2];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)rng_key(11, 1, i, 0, 0, 0);
    static const size_t lens[] = {0, 1, 63, 64, 127, 128, 255, 256, 257, 383, 384,
                                  511, 1000, 4095, 4096, 4097, 4144, 4296};
    int best = flashlab_crc32_accelerated(), bad = 0;
    for (int level = 0; level <= best; level++) {
        flashlab_crc32_use(level);
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
            for (size_t sa = 0; sa < 64; sa += 7)
                for (size_t da = 0; da < 64; da += 5) {
                    size_t len = lens[li];
                    uint32_t seed = (uint32_t)rng_key(11, 2, li, sa, da, 0);
                    memset(dst, 0x5a, sizeof dst);
                    uint32_t c = flashlab_crc32_copy(seed, dst + da + 1, src + sa, len);
                    int ok = c == crc_bitwise(seed, src + sa, len) &&
                             !memcmp(dst + da + 1, src + sa, len) && dst[da] == 0x5a &&
                             dst[da + 1 + len] == 0x5a;
                    if (!ok && bad++ < 5)
                        fprintf(stderr, "  path %d: copy mismatch at len %zu src %zu dst %zu\n",
                                level, len, sa, da);
                }
    }
    flashlab_crc32_use(best);
    CHECK_EQ_INT(bad, 0);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(check_values);
    RUN(every_length_and_alignment);
    RUN(continuation_equals_whole);
    RUN(copy_equals_crc_and_memcpy);
    return test_summary(argv[0]);
}

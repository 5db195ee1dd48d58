/* crc32.c -- CRC-32 (IEEE, reflected): the file system checksums every
 * object it writes and reads, so this is hot.  Slicing by eight bytes
 * everywhere; carry-less multiply folding on x86-64 CPUs that have it, on
 * 512-bit registers where they have AVX-512 VPCLMULQDQ, and for short
 * runs (object headers) on one block with a Barrett reduction
 * (FLASHLAB_CRC_TABLES=1 in the environment forces the tables). */
#include "crc32.h"

#include <stdlib.h>
#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "slicing-by-8 below assumes a little-endian host"
#endif

static uint32_t table[8][256];

/* Built before main so that threads never race to build it. */
__attribute__((constructor)) static void make_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

/* The table method on the raw (not inverted) register. */
static uint32_t crc_tables(uint32_t crc, const uint8_t *p, size_t len)
{
    for (; len >= 8; len -= 8, p += 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4); /* little-endian hosts, as everything here */
        memcpy(&hi, p + 4, 4);
        lo ^= crc;
        crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
              table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
              table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
              table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
    }
    if (len >= 4) { /* four at once: an object header is 44 bytes */
        uint32_t w;
        memcpy(&w, p, 4);
        w ^= crc;
        crc = table[3][w & 0xff] ^ table[2][(w >> 8) & 0xff] ^ table[1][(w >> 16) & 0xff] ^
              table[0][w >> 24];
        p += 4;
        len -= 4;
    }
    while (len--)
        crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_CLMUL_PATH 1

/* Carry-less multiplication folding (Intel, "Fast CRC computation for
 * generic polynomials using PCLMULQDQ", 2009).  Folding keeps a 128-bit
 * value congruent, modulo the CRC polynomial, to the message read so far,
 * so the table method run over its 16 bytes (register 0) and then over the
 * tail gives the CRC of the whole message: no Barrett step needed.  The
 * constants are x^(n+32) and x^(n-32) mod P, bit-reflected, for folding
 * across n = 512 bits (four lanes) and n = 128 bits (one lane). */
__attribute__((target("pclmul,sse2"))) static __m128i fold(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The raw CRC of the 16 bytes x stands for, from register 0: folded to
 * 64 bits, then reduced to 32 by Barrett's method (Intel's paper above,
 * its section 4; x^64 mod P, and P with floor(x^64 / P), reflected). */
__attribute__((target("pclmul,sse2"))) static uint32_t reduce128(__m128i x)
{
    const __m128i k128 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
    const __m128i k64 = _mm_set_epi64x(0, 0x163cd6124LL);
    const __m128i poly = _mm_set_epi64x(0x1f7011641LL, 0x1db710641LL);
    const __m128i low32 = _mm_set_epi32(0, ~0, 0, ~0);
    x = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, k128, 0x10));
    x = _mm_xor_si128(_mm_srli_si128(x, 4),
                      _mm_clmulepi64_si128(_mm_and_si128(x, low32), k64, 0x00));
    __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), poly, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), poly, 0x00);
    return (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(_mm_xor_si128(x, t), 4));
}

/* Fold the 64 bytes x0..x3 stand for, and len >= 0 more at p, into the
 * CRC of everything (raw register). */
__attribute__((target("pclmul,sse2"))) static uint32_t fold_finish(__m128i x0, __m128i x1,
                                                                 __m128i x2, __m128i x3,
                                                                 const uint8_t *p, size_t len)
{
    const __m128i k512 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL);
    const __m128i k128 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
    for (; len >= 64; p += 64, len -= 64) {
        x0 = _mm_xor_si128(fold(x0, k512), _mm_loadu_si128((const __m128i *)p));
        x1 = _mm_xor_si128(fold(x1, k512), _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = _mm_xor_si128(fold(x2, k512), _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = _mm_xor_si128(fold(x3, k512), _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    __m128i x = _mm_xor_si128(fold(x0, k128), x1);
    x = _mm_xor_si128(fold(x, k128), x2);
    x = _mm_xor_si128(fold(x, k128), x3);
    for (; len >= 16; p += 16, len -= 16)
        x = _mm_xor_si128(fold(x, k128), _mm_loadu_si128((const __m128i *)p));
    return crc_tables(reduce128(x), p, len);
}

/* 16 <= len < 64 with len % 16 zero or at least 4 (a 44-byte object
 * header): the first len % 16 bytes, the register folded into them, make
 * a block of their own behind zero bytes (which leave a raw register of 0
 * as it is), then whole blocks are folded in and the result reduced.
 * Two folds and a reduction instead of six table steps in a chain. */
__attribute__((target("pclmul,ssse3,sse2"))) static uint32_t crc_clmul_short(uint32_t crc,
                                                                            const uint8_t *p,
                                                                            size_t len)
{
    static const uint8_t shift[32] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const __m128i k128 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
    size_t first = len % 16 ? len % 16 : 16;
    __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
    x = _mm_shuffle_epi8(x, _mm_loadu_si128((const __m128i *)(shift + first)));
    for (p += first, len -= first; len; p += 16, len -= 16)
        x = _mm_xor_si128(fold(x, k128), _mm_loadu_si128((const __m128i *)p));
    return reduce128(x);
}

__attribute__((target("pclmul,sse2"))) static uint32_t crc_clmul(uint32_t crc, const uint8_t *p,
                                                               size_t len)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)p);
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)crc));
    return fold_finish(x0, _mm_loadu_si128((const __m128i *)(p + 16)),
                       _mm_loadu_si128((const __m128i *)(p + 32)),
                       _mm_loadu_si128((const __m128i *)(p + 48)), p + 64, len - 64);
}

/* The same folding four lanes to an instruction (AVX-512 VPCLMULQDQ):
 * each 128-bit lane of a 512-bit register is one of x0..x3 above, and
 * two registers (k1024 between them) keep two multiplies in flight.
 * x^(1024+32) and x^(1024-32) mod P, reflected, fold across 1024 bits. */
__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse2"))) static __m512i
fold4(__m512i x, __m512i k)
{
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(x, k, 0x00),
                            _mm512_clmulepi64_epi128(x, k, 0x11));
}

/* The 128 bytes at p, also stored at *dst (then advanced) if not NULL. */
__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse2"), always_inline)) static inline void
load128(const uint8_t *p, uint8_t **dst, __m512i *a, __m512i *b)
{
    *a = _mm512_loadu_si512((const void *)p);
    *b = _mm512_loadu_si512((const void *)(p + 64));
    if (*dst) {
        _mm512_storeu_si512((void *)*dst, *a);
        _mm512_storeu_si512((void *)(*dst + 64), *b);
        *dst += 128;
    }
}

/* The 512-bit folding, copying the bytes to dst on the way when dst is
 * not NULL: the copy then costs no second pass over the source (the
 * cleaner checks each moved object while copying it out of a victim page
 * that is not in the caches).  len >= 256. */
__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse2"), always_inline)) static inline uint32_t
fold512(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
    const __m512i k512 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL));
    const __m512i k1024 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x14a7fe880LL, 0x1e88ef372LL));
    __m512i a, b, la, lb;
    load128(p, &dst, &a, &b);
    a = _mm512_xor_si512(a, _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)crc)));
    for (p += 128, len -= 128; len >= 128; p += 128, len -= 128) {
        load128(p, &dst, &la, &lb);
        a = _mm512_xor_si512(fold4(a, k1024), la);
        b = _mm512_xor_si512(fold4(b, k1024), lb);
    }
    if (dst)
        memcpy(dst, p, len);
    a = _mm512_xor_si512(fold4(a, k512), b);
    return fold_finish(_mm512_extracti32x4_epi32(a, 0), _mm512_extracti32x4_epi32(a, 1),
                       _mm512_extracti32x4_epi32(a, 2), _mm512_extracti32x4_epi32(a, 3), p,
                       len);
}

__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse2"))) static uint32_t
crc_vpclmul(uint32_t crc, const uint8_t *p, size_t len)
{
    if (len < 256)
        return crc_clmul(crc, p, len);
    return fold512(crc, NULL, p, len);
}

__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse2"))) static uint32_t
crc_copy_vpclmul(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
    return fold512(crc, dst, p, len);
}

/* 0: tables, 1: 128-bit folding, 2: 512-bit folding */
static int path;
static int path_max;
__attribute__((constructor)) static void detect(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3"))
        path_max = 1;
    if (path_max && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("vpclmulqdq"))
        path_max = 2;
    path = getenv("FLASHLAB_CRC_TABLES") ? 0 : path_max;
}
#endif

uint32_t flashlab_crc32(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
#ifdef HAVE_CLMUL_PATH
    if (path == 2 && len >= 64)
        return ~crc_vpclmul(~crc, p, len);
    if (path == 1 && len >= 64)
        return ~crc_clmul(~crc, p, len);
    if (path && len >= 16 && len < 64 && (len % 16 == 0 || len % 16 >= 4))
        return ~crc_clmul_short(~crc, p, len);
#endif
    return ~crc_tables(~crc, p, len);
}

uint32_t flashlab_crc32_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
#ifdef HAVE_CLMUL_PATH
    if (path == 2 && len >= 256)
        return ~crc_copy_vpclmul(~crc, dst, src, len);
#endif
    memcpy(dst, src, len); /* then the CRC of the copy, in the caches now */
    return flashlab_crc32(crc, dst, len);
}

int flashlab_crc32_accelerated(void)
{
#ifdef HAVE_CLMUL_PATH
    return path;
#else
    return 0;
#endif
}

int flashlab_crc32_use(int level)
{
#ifdef HAVE_CLMUL_PATH
    path = level < 0 ? 0 : level > path_max ? path_max : level;
    return path;
#else
    (void)level;
    return 0;
#endif
}

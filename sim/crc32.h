/* crc32.h -- CRC-32 (IEEE 802.3, reflected, as zlib's crc32). */
#ifndef FLASHLAB_CRC32_H
#define FLASHLAB_CRC32_H
#include <stddef.h>
#include <stdint.h>
/* Continue a CRC: start with crc = 0. */
uint32_t flashlab_crc32(uint32_t crc, const void *buf, size_t len);
/* flashlab_crc32(crc, src, len), copying the len bytes to dst (which
 * must not overlap src) in the same pass where the path allows. */
uint32_t flashlab_crc32_copy(uint32_t crc, void *dst, const void *src, size_t len);
/* The path in use (for tests and benches): 0 tables, 1 carry-less
 * multiply on 128 bits, 2 on 512 bits (AVX-512 VPCLMULQDQ). */
int flashlab_crc32_accelerated(void);
/* Use path `level` or the best below it the CPU has; returns the one
 * now in use.  For tests, which check every path. */
int flashlab_crc32_use(int level);
#endif

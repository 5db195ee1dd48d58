/* crc32.h -- CRC-32 (IEEE 802.3, reflected, as zlib's crc32). */
#ifndef FLASHLAB_CRC32_H
#define FLASHLAB_CRC32_H
#include <stddef.h>
#include <stdint.h>
/* Continue a CRC: start with crc = 0. */
uint32_t flashlab_crc32(uint32_t crc, const void *buf, size_t len);
/* 1 if the carry-less multiply path is in use (for tests and benches). */
int flashlab_crc32_accelerated(void);
#endif

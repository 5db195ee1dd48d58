/* crc32.h -- CRC-32 (IEEE 802.3, reflected, as zlib's crc32). */
#ifndef FLASHLAB_CRC32_H
#define FLASHLAB_CRC32_H
#include <stddef.h>
#include <stdint.h>
/* Continue a CRC: start with crc = 0. */
uint32_t flashlab_crc32(uint32_t crc, const void *buf, size_t len);
#endif

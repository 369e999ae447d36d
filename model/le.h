/*
 * le.h - little-endian integers read from bytes, whatever the host's
 * order and alignment: the on-disk and on-wire fields of ext4, ELF,
 * bzImage headers and virtio rings.
 */
#ifndef UBC_LE_H
#define UBC_LE_H

#include <stdint.h>

static inline uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static inline uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

#endif

/*
 * Little-endian fields at any alignment, as Linux's get_unaligned_le*():
 * boot data (multiboot2 tags, ACPI tables) places its fields where the
 * input's own sizes put them, and a misaligned load is undefined in C.
 * Both architectures this kernel runs on are little-endian.
 */
#ifndef LIB_UNALIGNED_H
#define LIB_UNALIGNED_H

#include <stdint.h>

static inline uint16_t get_unaligned_le16(const void *p)
{
	uint16_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t get_unaligned_le32(const void *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t get_unaligned_le64(const void *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

#endif

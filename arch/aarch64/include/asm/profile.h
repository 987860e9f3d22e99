/*
 * make profile's window marks on AArch64 (lib/profile_mark.h has the
 * encodings and how the plugin finds them): movz xzr, #imm16, a write to
 * the zero register, the whole 32-bit instruction the mark.
 */
#ifndef ASM_PROFILE_H
#define ASM_PROFILE_H

#include "profile_mark.h"

#define PROFILE_MARK_ASM(mark)		.inst mark
#define PROFILE_MARK_OPEN_		PROFILE_MARK_ASM(PROFILE_MARK_A64_OPEN)
#define PROFILE_MARK_CLOSE_		PROFILE_MARK_ASM(PROFILE_MARK_A64_CLOSE)

#endif

/*
 * make profile's window marks on x86 (lib/profile_mark.h has the
 * encodings and how the plugin finds them): nopl MARK(%rax), the bytes
 * 0f 1f 80 and the mark as a 32-bit displacement.  The same bytes decode
 * alike in 32-bit code, so the 32-bit known loop uses this file too.
 */
#ifndef ASM_PROFILE_H
#define ASM_PROFILE_H

#include "profile_mark.h"

#define PROFILE_MARK_ASM(mark)		.byte 0x0f, 0x1f, 0x80; .long mark
#define PROFILE_MARK_OPEN_		PROFILE_MARK_ASM(PROFILE_MARK_X86_OPEN)
#define PROFILE_MARK_CLOSE_		PROFILE_MARK_ASM(PROFILE_MARK_X86_CLOSE)

#endif

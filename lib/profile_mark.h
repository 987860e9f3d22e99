/*
 * make profile's window marks (tools/profile/, docs/benchmarks.md): two
 * instructions that do nothing, which the QEMU plugin
 * (tools/profile/insncount.c) recognises by their encoding when it
 * translates them.  It counts every instruction executed between an open
 * and a close, in every task and in the kernel, per instruction address;
 * the marks themselves are not counted.  Outside a profile each costs one
 * instruction of nothing.  Freestanding: the programs (user/include/
 * qprofile.h), the plugin (built for the host) and the known-loop test's
 * assembly (tools/profile/knownloop-*.S) share this file; the
 * instruction itself is in each architecture's asm/profile.h.
 *
 *   x86-64   nopl MARK(%rax): the bytes 0f 1f 80 and MARK as a 32-bit
 *            displacement; a compiler pads with nopl 0x0(...) only
 *   AArch64  movz xzr, #imm16: a write to the zero register, the whole
 *            32-bit instruction the mark
 */
#ifndef LIB_PROFILE_MARK_H
#define LIB_PROFILE_MARK_H

#define PROFILE_MARK_X86_OPEN		0x51500001	/* "PQ" and 1 */
#define PROFILE_MARK_X86_CLOSE		0x51500002
#define PROFILE_MARK_A64_OPEN		0xd28a2a1f	/* movz xzr, #0x5150 */
#define PROFILE_MARK_A64_CLOSE		0xd28a2a3f	/* movz xzr, #0x5151 */

/*
 * The instruction is the architecture's (arch/ARCH/include/asm/profile.h
 * defines PROFILE_MARK_OPEN_ and PROFILE_MARK_CLOSE_ from the encodings
 * above): bare in assembly (.S), as a string for asm() in C.
 */
#ifdef __ASSEMBLER__
#define PROFILE_MARK_OPEN		PROFILE_MARK_OPEN_
#define PROFILE_MARK_CLOSE		PROFILE_MARK_CLOSE_
#else
#define PROFILE_MARK_STR_(...)		#__VA_ARGS__
#define PROFILE_MARK_STR(...)		PROFILE_MARK_STR_(__VA_ARGS__)
#define PROFILE_MARK_OPEN		PROFILE_MARK_STR(PROFILE_MARK_OPEN_)
#define PROFILE_MARK_CLOSE		PROFILE_MARK_STR(PROFILE_MARK_CLOSE_)
#endif

#endif

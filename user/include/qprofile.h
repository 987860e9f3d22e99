/*
 * make profile's window (lib/profile_mark.h, docs/benchmarks.md): the
 * QEMU plugin counts, per instruction, everything executed between
 * q_profile_open() and q_profile_close() -- this program, the kernel,
 * any other task that runs meanwhile.  Each is one instruction that does
 * nothing; the compiler keeps them in place against the calls around
 * them ("memory": no load or store moves across).
 */
#ifndef QPROFILE_H
#define QPROFILE_H

#include <asm/profile.h>

static inline void q_profile_open(void)
{
	__asm__ __volatile__(PROFILE_MARK_OPEN ::: "memory");
}

static inline void q_profile_close(void)
{
	__asm__ __volatile__(PROFILE_MARK_CLOSE ::: "memory");
}

#endif

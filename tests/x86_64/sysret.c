/*
 * x86-64: the choice between sysret and iretq on the way back from a
 * system call (arch/x86_64/user.c: x86_sysret_ok()).  QEMU's TCG does not
 * fault on a sysret to a non-canonical address as Intel CPUs do, so no
 * program can show the danger: the predicate is tested on frames here.
 */
#include "ktest.h"
#include "x86.h"
#include "segments.h"

static struct trap_frame user_frame(u64 rip)
{
	return (struct trap_frame){
		.rip = rip, .rcx = rip, .rflags = 0x202, .r11 = 0x202,
		.cs = USER_CS, .ss = USER_DS, .rsp = 0x10000001000ULL,
	};
}

KTEST(x86_sysret_only_for_a_frame_it_returns_to_faithfully)
{
	struct trap_frame tf = user_frame(0x8000401000ULL);

	KEXPECT(x86_sysret_ok(&tf));
	tf = user_frame(0x00007ffffffff000ULL);	/* USER_TOP: still canonical */
	KEXPECT(x86_sysret_ok(&tf));
	tf = user_frame(0x0000800000000000ULL);	/* 2^47: the first non-canonical address */
	KEXPECT(!x86_sysret_ok(&tf));
	tf = user_frame(0xffff800000000000ULL);	/* canonical, but the upper half */
	KEXPECT(!x86_sysret_ok(&tf));
	tf = user_frame(0x8000401000ULL);
	tf.rcx = 0x8000402000ULL;		/* sysret would not return where the frame says */
	KEXPECT(!x86_sysret_ok(&tf));
	tf = user_frame(0x8000401000ULL);
	tf.r11 = 0x203;
	KEXPECT(!x86_sysret_ok(&tf));
	tf = user_frame(0x8000401000ULL);
	tf.rflags = tf.r11 = 0x202 | (1 << 8);	/* TF */
	KEXPECT(!x86_sysret_ok(&tf));
	tf = user_frame(0x8000401000ULL);
	tf.rflags = tf.r11 = 0x202 | (1 << 16);	/* RF */
	KEXPECT(!x86_sysret_ok(&tf));
	tf = user_frame(0x8000401000ULL);
	tf.cs = SEL_CODE;			/* not a return to user mode at all */
	KEXPECT(!x86_sysret_ok(&tf));
}

/*
 * CR0, the x86 control register every CPU loads whole (never by OR-ing
 * bits into what firmware or INIT left): boot/x86_64/entry.S and
 * trampoline.S use it, and arch_cpu_control_ok() checks it.  CD (bit 30)
 * and NW (bit 29) must be clear, or the CPU runs with its caches off: at
 * power-on and after INIT both are set.  TS (bit 3) and EM (bit 2) clear:
 * SSE and x87 instructions run without a trap.
 */
#ifndef ARCH_X86_CR0_H
#define ARCH_X86_CR0_H

#define CR0_PE		(1 << 0)	/* protected mode */
#define CR0_MP		(1 << 1)	/* wait/fwait honour TS */
#define CR0_EM		(1 << 2)	/* x87 emulation: off */
#define CR0_TS		(1 << 3)	/* task switched: off */
#define CR0_ET		(1 << 4)	/* reads as 1 */
#define CR0_NE		(1 << 5)	/* x87 errors as exceptions */
#define CR0_WP		(1 << 16)	/* read-only pages hold for the kernel too */
#define CR0_NW		0x20000000	/* not write-through: off */
#define CR0_CD		0x40000000	/* cache disable: off */
#define CR0_PG		0x80000000	/* paging */

/* Before paging (the trampoline's first step) and from long mode on. */
#define CR0_PROTECTED	(CR0_PE | CR0_MP | CR0_ET | CR0_NE)
#define CR0_KERNEL	(CR0_PROTECTED | CR0_WP | CR0_PG)

#endif

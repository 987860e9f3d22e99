/*
 * The GDT's layout (cpu_tables.c), shared with assembly.  syscall and
 * sysret take the layout they need from the STAR MSR (syscall.c):
 * syscall loads CS = STAR[47:32] and SS = CS + 8 (the kernel's code and
 * data); sysret to 64-bit mode loads CS = STAR[63:48] + 16 and
 * SS = STAR[63:48] + 8, so user data must sit 8 bytes below user code,
 * and a (never loaded) 32-bit user code slot below both.
 */
#ifndef ARCH_X86_64_SEGMENTS_H
#define ARCH_X86_64_SEGMENTS_H

#define SEL_CODE		0x08	/* kernel code, 64-bit */
#define SEL_DATA		0x10	/* kernel data */
#define SEL_USER32_CODE		0x18	/* sysret's base: never loaded */
#define SEL_USER_DATA		0x20	/* user data (DPL 3) */
#define SEL_USER_CODE		0x28	/* user code, 64-bit (DPL 3) */
#define SEL_TSS			0x30	/* two slots: a 64-bit TSS descriptor is 16 bytes */
#define GDT_ENTRIES		8

#define RPL_USER		3
#define USER_CS			(SEL_USER_CODE | RPL_USER)
#define USER_DS			(SEL_USER_DATA | RPL_USER)

/* The trap frame's vector for a system call (not an interrupt vector). */
#define VEC_SYSCALL		0x100

#endif

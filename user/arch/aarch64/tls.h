/*
 * The thread pointer on AArch64: TPIDR_EL0, which points at the thread's
 * block (SYS_set_tls sets it; the kernel keeps it per thread).
 */
#ifndef USER_ARCH_TLS_H
#define USER_ARCH_TLS_H

static inline void *arch_thread_pointer(void)
{
	void *p;

	__asm__ __volatile__("mrs %0, tpidr_el0" : "=r"(p));
	return p;
}

#endif

/* The thread pointer on x86-64: the FS base, which only the kernel sets (SYS_set_tls). */
#ifndef USER_ARCH_TLS_H
#define USER_ARCH_TLS_H

/* The block's first word points to itself, so one %fs-relative load finds it. */
static inline void *arch_thread_pointer(void)
{
	void *p;

	__asm__ __volatile__("movq %%fs:0, %0" : "=r"(p));
	return p;
}

#endif

#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "compiler.h"

struct trap_frame;

/*
 * Reports the message, this CPU, its task and a symbolized backtrace,
 * stops the other CPUs and ends QEMU with QEMU_EXIT_PANIC.
 */
void panic(const char *fmt, ...) __printf(1, 2) __noreturn;
/* The same for an exception: also the registers of the faulting context. */
void panic_trap(const struct trap_frame *tf, const char *fmt, ...) __printf(2, 3) __noreturn;

/* A warning: message, CPU, task and backtrace; the kernel goes on. */
void warn_slowpath(const char *file, int line, const char *fmt, ...) __printf(3, 4);

/* Prints "[<addr>] symbol+off/size" lines, walking frame pointers from fp. */
void dump_backtrace(uintptr_t pc, uintptr_t fp);
void dump_stack(void);

/* Looks up the function holding addr; NULL when none. */
const char *ksym_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size);

bool panic_in_progress(void);

/* Makes cpu print its backtrace (through an NMI where there is one); false if it did not answer. */
bool trigger_cpu_backtrace(int cpu);
/* For tests: called, if set, by the handler of a backtrace request (NMI context on x86-64). */
extern void (*nmi_backtrace_hook)(void);

#define BUG()	panic("kernel BUG at %s:%d!", __FILE__, __LINE__)
#define BUG_ON(cond)	do { if (unlikely(cond)) panic("kernel BUG at %s:%d: %s", __FILE__, __LINE__, #cond); } while (0)

#define WARN(cond, fmt, ...)						\
({									\
	bool __w = !!(cond);						\
	if (unlikely(__w))						\
		warn_slowpath(__FILE__, __LINE__, fmt, ##__VA_ARGS__);	\
	__w;								\
})
#define WARN_ON(cond)	WARN(cond, "%s", #cond)
#define WARN_ON_ONCE(cond)						\
({									\
	static bool __warned;						\
	bool __w = !!(cond);						\
	if (unlikely(__w) && !__warned) {				\
		__warned = true;					\
		warn_slowpath(__FILE__, __LINE__, "%s", #cond);		\
	}								\
	__w;								\
})

#endif

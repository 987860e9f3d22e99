/*
 * User mode on AArch64: not there yet.  The arch interface of kernel/arch.h
 * is in place so that kernel/user/ builds on both architectures; until
 * this port lands (EL0, svc, TTBR0 per task: docs/user.md), no program
 * starts here: spawning one fails with -ENOMEM from arch_mm_init(), and
 * no boot module is found.
 */
#include "aarch64.h"
#include <asm/mm.h>
#include <errno.h>

int arch_mm_init(struct arch_mm *am)
{
	am->l0 = NULL;
	am->table_pages = 0;
	return -ENOMEM;
}

void arch_mm_destroy(struct arch_mm *am) { (void)am; }
int arch_mm_map(struct arch_mm *am, uintptr_t va, uintptr_t pa, int prot)
{
	(void)am; (void)va; (void)pa; (void)prot;
	return -ENOMEM;
}
uintptr_t arch_mm_unmap(struct arch_mm *am, uintptr_t va) { (void)am; (void)va; return 0; }
uintptr_t arch_mm_lookup(struct arch_mm *am, uintptr_t va) { (void)am; (void)va; return 0; }
void arch_mm_switch(struct arch_mm *am) { (void)am; }
void arch_flush_tlb_user(struct arch_mm *am, uintptr_t start, uintptr_t end)
{
	(void)am; (void)start; (void)end;
}
long arch_mm_table_pages(void) { return 0; }

void arch_enter_user(uintptr_t pc, uintptr_t sp, uintptr_t arg, uintptr_t tls)
{
	(void)sp; (void)arg; (void)tls;
	panic("BUG: arch_enter_user(%#lx): user mode is not ported to AArch64 yet",
	      (unsigned long)pc);
}
void arch_user_thread_switch(uintptr_t kernel_stack_top, uintptr_t tls)
{
	(void)kernel_stack_top; (void)tls;
}
void arch_set_tls(uintptr_t tls) { (void)tls; }
bool arch_frame_user_mode(const struct trap_frame *tf) { (void)tf; return false; }
uintptr_t arch_frame_sp(const struct trap_frame *tf) { return tf->sp; }
unsigned long arch_syscall_nr(const struct trap_frame *tf) { return tf->x[8]; }
unsigned long arch_syscall_arg(const struct trap_frame *tf, int n)
{
	return n >= 0 && n < 6 ? tf->x[n] : 0;
}
void arch_syscall_set_result(struct trap_frame *tf, long ret) { tf->x[0] = ret; }
void arch_syscall_set_arg(struct trap_frame *tf, int n, unsigned long v)
{
	if (n >= 1 && n < 6)
		tf->x[n] = v;
}
size_t arch_copy_from_user(void *dst, const void *usrc, size_t n)
{
	(void)dst; (void)usrc;
	return n;
}
size_t arch_copy_to_user(void *udst, const void *src, size_t n)
{
	(void)udst; (void)src;
	return n;
}
bool arch_user_access_guarded(void) { return false; }

int arch_boot_modules(struct boot_module_desc *out, int max)
{
	(void)out; (void)max;
	return 0;
}
int arch_reserved_regions(struct mem_region *out, int max)
{
	(void)out; (void)max;
	return 0;
}

/*
 * Where every interrupt and exception lands (from vectors.S): exceptions
 * become a panic report, the timer and IPIs go to the kernel, NMIs stop a
 * CPU for panic or fetch its backtrace.
 */
#include "x86.h"
#include "irq.h"

static const char *const exception_names[32] = {
	[0] = "divide error", [1] = "debug", [2] = "NMI", [3] = "breakpoint",
	[4] = "overflow", [5] = "bound range exceeded", [6] = "invalid opcode",
	[7] = "device not available", [8] = "double fault",
	[10] = "invalid TSS", [11] = "segment not present",
	[12] = "stack-segment fault", [13] = "general protection fault",
	[14] = "page fault", [16] = "x87 floating-point error",
	[17] = "alignment check", [18] = "machine check",
	[19] = "SIMD floating-point exception", [21] = "control protection",
};

uintptr_t arch_frame_pc(const struct trap_frame *tf) { return tf->rip; }
uintptr_t arch_frame_fp(const struct trap_frame *tf) { return tf->rbp; }

void arch_dump_frame(const struct trap_frame *tf)
{
	uintptr_t off, size;
	const char *sym = ksym_lookup(tf->rip, &off, &size);

	if (sym)
		printk("RIP: %04llx:%016llx %s+0x%lx/0x%lx\n", (unsigned long long)tf->cs,
		       (unsigned long long)tf->rip, sym, (unsigned long)off, (unsigned long)size);
	else
		printk("RIP: %04llx:%016llx\n", (unsigned long long)tf->cs,
		       (unsigned long long)tf->rip);
	printk("RSP: %016llx EFLAGS: %08llx ERR: %llx\n", (unsigned long long)tf->rsp,
	       (unsigned long long)tf->rflags, (unsigned long long)tf->error);
	printk("RAX: %016llx RBX: %016llx RCX: %016llx\n", (unsigned long long)tf->rax,
	       (unsigned long long)tf->rbx, (unsigned long long)tf->rcx);
	printk("RDX: %016llx RSI: %016llx RDI: %016llx\n", (unsigned long long)tf->rdx,
	       (unsigned long long)tf->rsi, (unsigned long long)tf->rdi);
	printk("RBP: %016llx R08: %016llx R09: %016llx\n", (unsigned long long)tf->rbp,
	       (unsigned long long)tf->r8, (unsigned long long)tf->r9);
	printk("R10: %016llx R11: %016llx R12: %016llx\n", (unsigned long long)tf->r10,
	       (unsigned long long)tf->r11, (unsigned long long)tf->r12);
	printk("R13: %016llx R14: %016llx R15: %016llx\n", (unsigned long long)tf->r13,
	       (unsigned long long)tf->r14, (unsigned long long)tf->r15);
	printk("CR2: %016llx CR3: %016llx\n", (unsigned long long)read_cr2(),
	       (unsigned long long)read_cr3());
}

#define PF_PRESENT	0x1
#define PF_WRITE	0x2
#define PF_FETCH	0x10

static void __noreturn page_fault(struct trap_frame *tf)
{
	unsigned long long addr = read_cr2();
	const char *access = (tf->error & PF_FETCH) ? "instruction fetch" :
			     (tf->error & PF_WRITE) ? "write" : "read";

	if (stack_guard_hit(addr))
		panic_trap(tf, "BUG: kernel stack overflow: %s hit the guard page at %#llx",
			   current ? current->comm : "?", addr);
	if (addr < PAGE_SIZE)
		panic_trap(tf, "BUG: kernel NULL pointer dereference, address: %#llx (%s)",
			   addr, access);
	if ((tf->error & PF_PRESENT) && (tf->error & PF_FETCH))
		panic_trap(tf, "BUG: attempt to execute non-executable memory at %#llx", addr);
	if ((tf->error & PF_PRESENT) && (tf->error & PF_WRITE))
		panic_trap(tf, "BUG: write to read-only memory at %#llx", addr);
	panic_trap(tf, "BUG: unable to handle page fault for address %#llx (%s %s)", addr,
		   (tf->error & PF_PRESENT) ? "protection violation on" : "not-present page,",
		   access);
}

/* A double fault because an NMI (or the double fault's) stack ran into its guard page? */
static void ist_overflow(struct trap_frame *tf)
{
	int cpu;
	const char *which = x86_ist_guard(tf->rsp, &cpu);

	if (!which)
		which = x86_ist_guard(read_cr2(), &cpu);
	if (which)
		panic_trap(tf, "BUG: kernel stack overflow: CPU%d's %s stack ran into its guard "
			   "page (double fault, rsp %#llx)", cpu, which,
			   (unsigned long long)tf->rsp);
}

static void __noreturn exception(struct trap_frame *tf)
{
	const char *name = exception_names[tf->vector];

	switch (tf->vector) {
	case 14:
		page_fault(tf);
	case 8:
		/* On its own stack (IST): the usual cause is an overflowed kernel stack. */
		ist_overflow(tf);
		if (stack_guard_hit(tf->rsp) || stack_guard_hit(read_cr2()))
			panic_trap(tf, "BUG: kernel stack overflow: %s ran past its stack "
				   "(double fault, rsp %#llx)", current ? current->comm : "?",
				   (unsigned long long)tf->rsp);
		break;
	case 6:
		panic_trap(tf, "BUG: invalid instruction (invalid opcode, exception 6)");
	case 0:
		panic_trap(tf, "BUG: division by zero (divide error, exception 0)");
	}
	panic_trap(tf, "%s (exception %llu)", name ? name : "reserved exception",
		   (unsigned long long)tf->vector);
}

void trap_dispatch(struct trap_frame *tf)
{
	int vec = (int)tf->vector;

	if (vec == NMI_VECTOR) {
		mmu_nmi_tlb_flush();	/* a TLB shootdown's, maybe (mmu.c) */
		irq_nmi(tf);
		return;
	}
	if (vec < 32)
		exception(tf);
	if (vec == VEC_SPURIOUS || (vec >= VEC_PIC_BASE && vec < VEC_PIC_BASE + 16))
		return;		/* spurious: no EOI */

	irq_enter();
	lapic_eoi();
	if (vec == VEC_TIMER)
		irq_timer();
	else if (vec >= VEC_IPI_BASE && vec < VEC_IPI_BASE + IPI_NR)
		irq_ipi(vec - VEC_IPI_BASE);
	else
		printk("CPU%d: unexpected interrupt vector %#x\n", smp_processor_id(), vec);
	irq_exit();
	/* PREEMPT=1: interrupts run on the interrupted task's stack, so switch right here. */
	if (preempt_wanted())
		preempt_schedule_irq();
}

/*
 * Where every interrupt and exception lands (from vectors.S): exceptions
 * become a panic report, the timer, IPIs and device interrupts (the I/O
 * APIC's vectors) go to the kernel, NMIs stop a CPU for panic or fetch
 * its backtrace.
 */
#include "x86.h"
#include "irq.h"
#include "user/user.h"
#include "user/uaccess.h"
#include "user_layout.h"

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

static bool user_address(unsigned long long addr)
{
	return addr >= USER_BASE && addr < USER_TOP;
}

/*
 * A page fault in kernel mode.  One kind is expected: copy_from_user()
 * and its kin touching a bad user address, whose instruction has an
 * entry in the fix-up table: the copy ends there and the system call
 * returns -EFAULT.  Any other is a kernel bug, reported and fatal.
 */
static void page_fault(struct trap_frame *tf)
{
	unsigned long long addr = read_cr2();
	const char *access = (tf->error & PF_FETCH) ? "instruction fetch" :
			     (tf->error & PF_WRITE) ? "write" : "read";
	uintptr_t fixup = search_exception_table(tf->rip);

	if (fixup && user_address(addr)) {
		tf->rip = fixup;
		uaccess_note_fixup();
		return;
	}
	if (user_address(addr) && (tf->error & PF_FETCH))
		panic_trap(tf, "BUG: kernel tried to execute user memory at %#llx (SMEP)", addr);
	if (user_address(addr))
		panic_trap(tf, "BUG: kernel %s of user memory at %#llx outside copy_from_user() "
			   "and its kin (SMAP)", access, addr);
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

/*
 * Is the instruction at ip (user memory) one that touches an I/O port:
 * in, out, ins, outs, after at most two prefixes (operand size, rep)?
 * Then a general protection fault there is a port the task was not
 * granted (docs/drivers.md): its bit is set in the TSS's bitmap.
 */
static bool user_io_instruction(uintptr_t ip)
{
	u8 op[3];

	if (copy_from_user(op, ip, sizeof(op)))
		return false;
	for (int i = 0; i < 3; i++) {
		if (op[i] == 0x66 || op[i] == 0xf3 || op[i] == 0xf2)
			continue;
		return (op[i] >= 0xe4 && op[i] <= 0xe7) || (op[i] >= 0xec && op[i] <= 0xef) ||
		       (op[i] >= 0x6c && op[i] <= 0x6f);
	}
	return false;
}

/* An exception in user mode kills the task, named as Linux names it (kernel/user/fault.c). */
static void __noreturn user_exception(struct trap_frame *tf)
{
	const char *name = exception_names[tf->vector];
	struct user_fault f = { .type = UFAULT_OTHER, .name = name ? name : "exception" };

	if (tf->vector == 13 && user_io_instruction(tf->rip))
		f.name = "general protection fault: I/O port not granted to the task";

	if (tf->vector == 14) {
		f = (struct user_fault){
			.type = UFAULT_PAGE, .name = "segfault", .addr = read_cr2(),
			.write = tf->error & PF_WRITE, .exec = tf->error & PF_FETCH,
			.present = tf->error & PF_PRESENT,
		};
	}
	user_fault(tf, &f);
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

/*
 * A machine check: the hardware reports an error it could not correct,
 * and nothing here recovers from one.  It may strike anywhere -- between
 * `syscall` and the entry's switch to a kernel stack, with rsp still the
 * user's -- so it runs on a stack of its own (IST, cpu_tables.c), which
 * the report names; and it never takes the path of a fault in user mode,
 * which could switch threads away from that stack.
 */
static void __noreturn machine_check(struct trap_frame *tf)
{
	uintptr_t sp;

	__asm__ __volatile__("mov %%rsp, %0" : "=r"(sp));
	panic_trap(tf, "machine check (exception 18): the hardware reports an error it could not "
		   "correct (handled %s)", x86_on_machine_check_stack(sp) ?
		   "on this CPU's machine-check stack" : "on the interrupted code's stack");
}

static void exception(struct trap_frame *tf)
{
	const char *name = exception_names[tf->vector];

	switch (tf->vector) {
	case 14:
		page_fault(tf);
		return;
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

static void interrupt(int vec)
{
	if (vec >= VEC_IRQ_BASE && vec < VEC_IRQ_BASE + ARCH_NR_IRQS) {
		handle_device_irq(vec - VEC_IRQ_BASE);	/* irq_enter() to EOI, itself */
		return;
	}
	irq_enter();
	lapic_eoi();
	if (vec == VEC_TIMER)
		irq_timer();
	else if (vec >= VEC_IPI_BASE && vec < VEC_IPI_BASE + IPI_NR)
		irq_ipi(vec - VEC_IPI_BASE);
	else
		printk("CPU%d: unexpected interrupt vector %#x\n", smp_processor_id(), vec);
	irq_exit();
}

static bool spurious(int vec)
{
	return vec == VEC_SPURIOUS || (vec >= VEC_PIC_BASE && vec < VEC_PIC_BASE + 16);
}

void trap_dispatch(struct trap_frame *tf)
{
	int vec = (int)tf->vector;

	if (vec == NMI_VECTOR) {
		mmu_nmi_tlb_flush();	/* a TLB shootdown's, maybe (mmu.c) */
		irq_nmi(tf);	/* never a switch or a kill: it may strike anywhere */
		return;
	}
	if (vec == MC_VECTOR)
		machine_check(tf);	/* (from user mode too: never a switch) */
	if (arch_frame_user_mode(tf)) {
		enter_from_user_mode();
		if (vec < 32)
			user_exception(tf);
		if (!spurious(vec))
			interrupt(vec);
		exit_to_user_mode();	/* may switch threads: we are on this one's own stack */
		return;
	}
	if (vec < 32) {
		exception(tf);
		return;
	}
	if (spurious(vec))
		return;		/* no EOI */
	interrupt(vec);
	/* PREEMPT=1: interrupts run on the interrupted task's stack, so switch right here. */
	if (preempt_wanted())
		preempt_schedule_irq();
}

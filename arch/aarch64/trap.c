/*
 * Where every exception lands (from vectors.S): IRQs go to the GIC
 * dispatcher, synchronous exceptions become a panic report with the
 * exception syndrome (ESR_EL1) decoded, in the words x86-64 uses for the
 * same faults (NULL dereference, stack overflow, read-only text...);
 * anything else (FIQ, SError, an exception from a lower EL) is a bug.
 */
#include "aarch64.h"

#define ESR_EC(esr)	(((esr) >> 26) & 0x3f)
#define ESR_ISS(esr)	((esr) & 0x1ffffff)
#define ISS_WNR		(1U << 6)	/* data abort: write, not read */
#define ISS_FNV		(1U << 10)	/* data abort: FAR not valid */

#define EC_UNKNOWN	0x00
#define EC_FP_ACCESS	0x07
#define EC_ILLEGAL	0x0e
#define EC_SVC64	0x15
#define EC_SYSREG	0x18
#define EC_IABT_LOW	0x20
#define EC_IABT_CUR	0x21
#define EC_PC_ALIGN	0x22
#define EC_DABT_LOW	0x24
#define EC_DABT_CUR	0x25
#define EC_SP_ALIGN	0x26
#define EC_FP_EXC64	0x2c
#define EC_SERROR	0x2f
#define EC_BRK64	0x3c
#define INSN_HLT_SEMIHOSTING	0xd45e0000	/* hlt #0xf000 */

static const char *const ec_names[64] = {
	[EC_UNKNOWN] = "undefined instruction",
	[0x01] = "trapped WFI/WFE",
	[EC_FP_ACCESS] = "FP/SIMD access trap (CPACR_EL1.FPEN)",
	[EC_ILLEGAL] = "illegal execution state",
	[EC_SVC64] = "svc",
	[EC_SYSREG] = "trapped system register access",
	[EC_IABT_LOW] = "instruction abort from EL0",
	[EC_IABT_CUR] = "instruction abort",
	[EC_PC_ALIGN] = "PC alignment fault",
	[EC_DABT_LOW] = "data abort from EL0",
	[EC_DABT_CUR] = "data abort",
	[EC_SP_ALIGN] = "SP alignment fault",
	[EC_FP_EXC64] = "floating-point exception",
	[EC_SERROR] = "SError",
	[0x30] = "breakpoint from EL0", [0x31] = "breakpoint",
	[0x32] = "software step from EL0", [0x33] = "software step",
	[0x34] = "watchpoint from EL0", [0x35] = "watchpoint",
	[EC_BRK64] = "brk instruction",
};

static const char *const vector_names[16] = {
	"synchronous", "IRQ", "FIQ", "SError",
	"synchronous (in a handler)", "IRQ (in a handler)", "FIQ (in a handler)",
	"SError (in a handler)",
	"synchronous from EL0", "IRQ from EL0", "FIQ from EL0", "SError from EL0",
	"synchronous from AArch32", "IRQ from AArch32", "FIQ from AArch32",
	"SError from AArch32",
};

uintptr_t arch_frame_pc(const struct trap_frame *tf) { return tf->elr; }
uintptr_t arch_frame_fp(const struct trap_frame *tf) { return tf->x[29]; }

void arch_dump_frame(const struct trap_frame *tf)
{
	uintptr_t off, size;
	const char *sym = ksym_lookup(tf->elr, &off, &size);

	if (sym)
		printk("pc : %016llx %s+0x%lx/0x%lx\n", (unsigned long long)tf->elr, sym,
		       (unsigned long)off, (unsigned long)size);
	else
		printk("pc : %016llx\n", (unsigned long long)tf->elr);
	sym = ksym_lookup(tf->x[30], &off, &size);
	if (sym)
		printk("lr : %016llx %s+0x%lx/0x%lx\n", (unsigned long long)tf->x[30], sym,
		       (unsigned long)off, (unsigned long)size);
	else
		printk("lr : %016llx\n", (unsigned long long)tf->x[30]);
	printk("sp : %016llx pstate: %08llx esr: %08llx far: %016llx\n",
	       (unsigned long long)tf->sp, (unsigned long long)tf->spsr,
	       (unsigned long long)tf->esr, (unsigned long long)tf->far);
	for (int i = 29; i >= 0; i -= 3) {
		if (i >= 2)
			printk("x%-2d: %016llx x%-2d: %016llx x%-2d: %016llx\n",
			       i, (unsigned long long)tf->x[i], i - 1,
			       (unsigned long long)tf->x[i - 1], i - 2,
			       (unsigned long long)tf->x[i - 2]);
		else
			printk("x1 : %016llx x0 : %016llx\n",
			       (unsigned long long)tf->x[1], (unsigned long long)tf->x[0]);
	}
}

/* The fault status code (ISS[5:0] of an abort) in words. */
static const char *fault_status(u32 fsc)
{
	switch (fsc & 0x3c) {
	case 0x00: return "address size fault";
	case 0x04: return "translation fault";
	case 0x08: return "access flag fault";
	case 0x0c: return "permission fault";
	}
	if (fsc == 0x21)
		return "alignment fault";
	if (fsc == 0x10)
		return "synchronous external abort";
	return "fault";
}

#define FSC_PERMISSION(fsc)	(((fsc) & 0x3c) == 0x0c)

/* Fault status codes below 0x10 carry the translation level in bits [1:0]. */
static const char *const levels[4] = {
	" at level 0", " at level 1", " at level 2", " at level 3",
};

/* A data or instruction abort at EL1: the same reports as x86's page faults. */
static void __noreturn kernel_abort(struct trap_frame *tf, u32 ec, u32 iss)
{
	bool fetch = ec == EC_IABT_CUR;
	bool far_valid = fetch || !(iss & ISS_FNV);
	unsigned long long addr = far_valid ? tf->far : 0;
	u32 fsc = iss & 0x3f;
	const char *access = fetch ? "instruction fetch" : (iss & ISS_WNR) ? "write" : "read";

	if (far_valid && (stack_guard_hit(addr) || stack_guard_hit(tf->sp)))
		panic_trap(tf, "BUG: kernel stack overflow: %s hit the guard page at %#llx",
			   current ? current->comm : "?", addr);
	if (far_valid && addr < PAGE_SIZE)
		panic_trap(tf, "BUG: kernel NULL pointer dereference, address: %#llx (%s)",
			   addr, access);
	if (fetch && FSC_PERMISSION(fsc))
		panic_trap(tf, "BUG: attempt to execute non-executable memory at %#llx", addr);
	if (!fetch && FSC_PERMISSION(fsc) && (iss & ISS_WNR))
		panic_trap(tf, "BUG: write to read-only memory at %#llx", addr);
	panic_trap(tf, "BUG: unable to handle kernel paging request at virtual address "
		   "%016llx (%s: %s%s, %s)", addr, ec_names[ec], fault_status(fsc),
		   fsc < 0x10 ? levels[fsc & 3] : "", access);
}

static void __noreturn sync_exception(struct trap_frame *tf)
{
	u32 esr = tf->esr, ec = ESR_EC(esr), iss = ESR_ISS(esr);
	const char *name = ec_names[ec];

	switch (ec) {
	case EC_DABT_CUR:
	case EC_IABT_CUR:
		kernel_abort(tf, ec, iss);
	case EC_UNKNOWN:
		panic_trap(tf, "BUG: invalid instruction (undefined instruction, esr %#x)", esr);
	case EC_BRK64:
		/* __builtin_trap() is brk #0x3e8 on AArch64. */
		panic_trap(tf, "BUG: invalid instruction (brk #%#x, esr %#x)", iss & 0xffff, esr);
	case EC_PC_ALIGN:
	case EC_SP_ALIGN:
		panic_trap(tf, "%s at %016llx (esr %#x)", name, (unsigned long long)tf->far, esr);
	}
	panic_trap(tf, "%s (esr %#x: class %#x, iss %#x)",
		   name ? name : "unknown exception class", esr, ec, iss);
}

/*
 * PREEMPT=1.  The interrupt came in on this CPU's exception stack, which
 * the next task's interrupts reuse: the switch cannot happen on it.  So
 * the frame is copied onto the interrupted task's own stack, just below
 * its sp, and the exception returns into preempt_return (vectors.S) on
 * that stack, interrupts still off: it switches tasks there, then restores
 * the copy and returns where the interrupt struck, as trap_entry would.
 */
extern char preempt_return[];

static void preempt_on_task_stack(struct trap_frame *tf)
{
	struct trap_frame *copy = (struct trap_frame *)(uintptr_t)(tf->sp - sizeof(*tf));

	if (tf->sp & 15)
		return;		/* the restore needs sp = copy + TF_SIZE exactly */
	*copy = *tf;
	write_sysreg(sp_el0, copy);
	tf->elr = (u64)(uintptr_t)preempt_return;
	tf->spsr |= DAIF_I;
}

void trap_dispatch(struct trap_frame *tf)
{
	switch (tf->kind) {
	case VEC_CUR_SP0_IRQ:
	case VEC_CUR_SPX_IRQ:
		gic_handle_irq(tf);
		/* PREEMPT=1: task code (on SP_EL0) only, not a handler's. */
		if (tf->kind == VEC_CUR_SP0_IRQ && preempt_wanted())
			preempt_on_task_stack(tf);
		return;
	case VEC_CUR_SP0_SYNC:
	case VEC_CUR_SPX_SYNC:
		/*
		 * The semihosting call in arch_qemu_exit() when QEMU runs
		 * without semihosting: skip it (it then halts), or the panic
		 * it would cause would call it again.
		 */
		if (ESR_EC(tf->esr) == EC_UNKNOWN &&
		    *(const u32 *)tf->elr == INSN_HLT_SEMIHOSTING) {
			tf->elr += 4;
			return;
		}
		sync_exception(tf);
	default:
		panic_trap(tf, "unexpected %s exception (vector %llu, esr %#llx)",
			   vector_names[tf->kind & 15], (unsigned long long)tf->kind,
			   (unsigned long long)tf->esr);
	}
}

/*
 * From vectors.S, on the emergency stack: a handler overflowed this CPU's
 * exception stack (sp: where it got to; pc, far: the exception that no
 * longer fit).
 */
void __noreturn exception_stack_overflow_report(uintptr_t sp, uintptr_t pc, uintptr_t far);

void exception_stack_overflow_report(uintptr_t sp, uintptr_t pc, uintptr_t far)
{
	uintptr_t off, size;
	const char *sym = ksym_lookup(pc, &off, &size);

	panic("BUG: kernel stack overflow: CPU%d's exception stack (an interrupt or exception "
	      "handler) ran into its guard page: sp %#lx, pc %#lx (%s), address %#lx",
	      smp_processor_id(), (unsigned long)sp, (unsigned long)pc, sym ? sym : "?",
	      (unsigned long)far);
}

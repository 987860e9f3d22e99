/*
 * Where every exception lands (from vectors.S): IRQs go to the GIC
 * dispatcher; a synchronous exception in the kernel becomes a panic
 * report with the exception syndrome (ESR_EL1) decoded, in the words
 * x86-64 uses for the same faults (NULL dereference, stack overflow,
 * read-only text...), unless it is copy_from_user() and its kin meeting
 * a bad user address (fixed up: the system call returns -EFAULT).  From
 * user mode (EL0): svc is a system call, any other synchronous exception
 * kills the task with the fault named (kernel/user/fault.c), an IRQ is
 * taken and may switch threads on the way back.  Anything else (FIQ,
 * SError, AArch32) is a bug.
 */
#include "aarch64.h"
#include "user/user.h"
#include "user/uaccess.h"
#include "user_layout.h"

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
#define FSC_ALIGNMENT		0x21

/* Fault status codes below 0x10 carry the translation level in bits [1:0]. */
static const char *const levels[4] = {
	" at level 0", " at level 1", " at level 2", " at level 3",
};

static bool user_address(unsigned long long addr)
{
	return addr >= USER_BASE && addr < USER_TOP;
}

/*
 * A data abort at EL1 that copy_from_user() and its kin expect: one of
 * their ldtr/sttr (uaccess.S, listed in the fix-up table) met a bad user
 * address.  The copy goes on at its fix-up, which returns what was left.
 */
static bool uaccess_fixup(struct trap_frame *tf, u32 iss)
{
	uintptr_t fixup = search_exception_table(tf->elr);

	if (!fixup || (iss & ISS_FNV) || !user_address(tf->far))
		return false;
	tf->elr = fixup;
	uaccess_note_fixup();
	return true;
}

/* A data or instruction abort at EL1: the same reports as x86's page faults. */
static void __noreturn kernel_abort(struct trap_frame *tf, u32 ec, u32 iss)
{
	bool fetch = ec == EC_IABT_CUR;
	bool far_valid = fetch || !(iss & ISS_FNV);
	unsigned long long addr = far_valid ? tf->far : 0;
	u32 fsc = iss & 0x3f;
	const char *access = fetch ? "instruction fetch" : (iss & ISS_WNR) ? "write" : "read";

	if (far_valid && user_address(addr) && fetch)
		panic_trap(tf, "BUG: kernel tried to execute user memory at %#llx (%s)", addr,
			   FSC_PERMISSION(fsc) ? "PXN" : "not mapped");
	if (far_valid && user_address(addr))
		panic_trap(tf, "BUG: kernel %s of user memory at %#llx outside copy_from_user() "
			   "and its kin (%s)", access, addr, FSC_PERMISSION(fsc) ? "PAN" : "not mapped");
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

static void sync_exception(struct trap_frame *tf)
{
	u32 esr = tf->esr, ec = ESR_EC(esr), iss = ESR_ISS(esr);
	const char *name = ec_names[ec];

	switch (ec) {
	case EC_DABT_CUR:
		if (uaccess_fixup(tf, iss))
			return;
		kernel_abort(tf, ec, iss);
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

/*
 * An exception in user mode, named as Linux would (kernel/user/fault.c
 * prints it and kills the task).  Integer division by zero is missing
 * from the list: AArch64's sdiv and udiv return 0 for it, nothing traps.
 */
static void __noreturn user_exception(struct trap_frame *tf)
{
	u32 esr = tf->esr, ec = ESR_EC(esr), iss = ESR_ISS(esr), fsc = iss & 0x3f;
	struct user_fault f = { .type = UFAULT_OTHER, .name = ec_names[ec] };

	switch (ec) {
	case EC_DABT_LOW:
		if (fsc == FSC_ALIGNMENT) {
			f.name = "alignment fault";
			break;
		}
		/* fall through */
	case EC_IABT_LOW:
		f = (struct user_fault){
			.type = UFAULT_PAGE, .name = "segfault", .addr = tf->far,
			.write = ec == EC_DABT_LOW && (iss & ISS_WNR), .exec = ec == EC_IABT_LOW,
			.present = FSC_PERMISSION(fsc),
		};
		break;
	case EC_UNKNOWN:
		f.name = "undefined instruction";
		break;
	case EC_SYSREG:
		f.name = "privileged instruction (system register access)";
		break;
	case EC_BRK64:
		f.name = "breakpoint (brk)";
		break;
	}
	if (!f.name)
		f.name = "unknown exception";
	user_fault(tf, &f);
}

/* From EL0: a system call, another synchronous exception, or an IRQ. */
static void from_user(struct trap_frame *tf)
{
	if (tf->kind == VEC_LOWER_A64_SYNC && ESR_EC(tf->esr) == EC_SVC64) {
		syscall_dispatch(tf);	/* enters and leaves as below, itself */
		return;
	}
	enter_from_user_mode();
	if (tf->kind == VEC_LOWER_A64_SYNC)
		user_exception(tf);
	gic_handle_irq(tf);
	exit_to_user_mode();	/* may switch threads: we are on this one's own stack */
}

void trap_dispatch(struct trap_frame *tf)
{
	switch (tf->kind) {
	case VEC_LOWER_A64_SYNC:
	case VEC_LOWER_A64_IRQ:
		from_user(tf);
		return;
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
		return;
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

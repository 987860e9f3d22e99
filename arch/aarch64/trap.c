/*
 * Where every exception lands (from vectors.S): IRQs go to the GIC
 * dispatcher, synchronous exceptions become a panic report with the
 * exception syndrome (ESR_EL1) decoded, anything else is a bug.
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
	"synchronous (SP_EL0)", "IRQ (SP_EL0)", "FIQ (SP_EL0)", "SError (SP_EL0)",
	"synchronous", "IRQ", "FIQ", "SError",
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

/* The data/instruction fault status code (ISS[5:0]) in words. */
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

static void __noreturn sync_exception(struct trap_frame *tf)
{
	u32 esr = tf->esr, ec = ESR_EC(esr), iss = ESR_ISS(esr);
	const char *name = ec_names[ec];

	if (ec == EC_DABT_CUR || ec == EC_IABT_CUR) {
		bool far_valid = ec == EC_IABT_CUR || !(iss & ISS_FNV);

		panic_trap(tf, "BUG: unable to handle kernel paging request at virtual "
			   "address %016llx (%s, %s at level %u, %s)",
			   far_valid ? (unsigned long long)tf->far : 0ULL,
			   name, fault_status(iss & 0x3f), iss & 3,
			   ec == EC_IABT_CUR ? "instruction fetch" :
			   (iss & ISS_WNR) ? "write" : "read");
	}
	if (ec == EC_PC_ALIGN || ec == EC_SP_ALIGN)
		panic_trap(tf, "%s at %016llx (esr %#x)", name,
			   (unsigned long long)tf->far, esr);
	panic_trap(tf, "%s (esr %#x: class %#x, iss %#x)",
		   name ? name : "unknown exception class", esr, ec, iss);
}

void trap_dispatch(struct trap_frame *tf);

void trap_dispatch(struct trap_frame *tf)
{
	switch (tf->kind) {
	case VEC_CUR_SPX_IRQ:
		gic_handle_irq(tf);
		return;
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

/*
 * Per-CPU descriptor tables: a GDT with the kernel's and user mode's
 * segments (laid out as syscall and sysret need: segments.h) and a TSS.
 * The TSS's RSP0 is the stack an interrupt from user mode lands on: the
 * running user thread's own kernel stack, rewritten at every switch to a
 * user thread (x86_set_kernel_stack()).  Its interrupt stacks give the
 * double fault, the NMI and the machine check stacks of their own: a
 * kernel stack overflow faults again on the overflowed stack otherwise,
 * and the CPU resets; an NMI or a machine check may strike between the
 * syscall instruction and the entry code's switch to a kernel stack,
 * while rsp is still the user's (a machine check is also enabled here,
 * CR4.MCE, so that it reports instead of shutting the machine down).
 * Each of those stacks has an unmapped guard page below it (mmu.c): an
 * NMI handler that overflows faults, and the double fault reports it,
 * instead of writing over the double-fault stack beneath.  The IDT,
 * shared, points at the stubs in vectors.S.
 *
 * The TSS's I/O permission bitmap follows it: one bit per port, set =
 * user mode faults (#GP) on in/out.  It covers the ISA ports (below
 * IO_BITMAP_PORTS); ports past its end always fault.  All set, but for
 * the ranges the loaded address space was granted (x86_io_load()), so a
 * driver uses exactly its devices' ports, and IOPL stays 0.
 */
#include "x86.h"
#include "segments.h"
#include <asm/mm.h>

#define IST_DOUBLE_FAULT 1
#define IST_NMI		2
#define IST_MACHINE_CHECK 3
#define IST_STACK_SIZE	8192
#define CR4_MCE		(1ULL << 6)
#define CPUID1_EDX_MCE	(1U << 7)

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3, iomap_base;
} __attribute__((packed));

struct idt_gate {
	u16 offset_lo, selector;
	u8 ist, type;
	u16 offset_mid;
	u32 offset_hi, reserved;
} __attribute__((packed));

#define IO_BITMAP_BYTES	(IO_BITMAP_PORTS / 8)

struct x86_cpu {
	u64 gdt[GDT_ENTRIES];	/* segments.h: null, kernel, user, TSS (two slots) */
	struct tss tss;
	/* Right after the TSS, inside its limit; the last byte all ones, as the CPU wants. */
	u8 io_bitmap[IO_BITMAP_BYTES + 1];
	u32 io_loaded[IO_RANGES];	/* the grants the bitmap holds (struct arch_mm's io_ports) */
};
_Static_assert(offsetof(struct x86_cpu, io_bitmap) ==
	       offsetof(struct x86_cpu, tss) + sizeof(struct tss), "the bitmap follows the TSS");

/* The interrupt stacks, each above its guard page. */
struct ist_stacks {
	u8 df_guard[PAGE_SIZE];
	u8 df_stack[IST_STACK_SIZE];
	u8 nmi_guard[PAGE_SIZE];
	u8 nmi_stack[IST_STACK_SIZE];
	u8 mc_guard[PAGE_SIZE];
	u8 mc_stack[IST_STACK_SIZE];
};

static struct x86_cpu x86_cpus[NR_CPUS] __aligned(16);
static struct ist_stacks ist_stacks[NR_CPUS] __aligned(PAGE_SIZE);
static struct idt_gate idt[256] __aligned(16);
extern const u8 trap_stubs[];

struct __attribute__((packed)) desc_ptr {
	u16 limit;
	u64 base;
};

static void set_gate(int vec, int ist)
{
	uintptr_t a = (uintptr_t)(trap_stubs + 16 * vec);

	idt[vec] = (struct idt_gate){
		.offset_lo = a & 0xffff, .selector = SEL_CODE, .ist = ist,
		.type = 0x8e,	/* present, interrupt gate: IF off on entry */
		.offset_mid = (a >> 16) & 0xffff, .offset_hi = a >> 32,
	};
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, 0);
	set_gate(8, IST_DOUBLE_FAULT);
	set_gate(NMI_VECTOR, IST_NMI);
	set_gate(MC_VECTOR, IST_MACHINE_CHECK);
}

/* Machine checks raise #MC, if the CPU has them, instead of shutting the machine down. */
static void enable_machine_check(void)
{
	u32 a, b, c, d;
	u64 cr4;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & CPUID1_EDX_MCE))
		return;
	__asm__ __volatile__("mov %%cr4, %0" : "=r"(cr4));
	__asm__ __volatile__("mov %0, %%cr4" : : "r"(cr4 | CR4_MCE) : "memory");
}

bool x86_on_machine_check_stack(uintptr_t sp)
{
	const struct ist_stacks *st = &ist_stacks[smp_processor_id()];

	return sp >= (uintptr_t)st->mc_stack && sp < (uintptr_t)st->mc_stack + IST_STACK_SIZE;
}

void x86_cpu_tables_init(int cpu)
{
	struct x86_cpu *x = &x86_cpus[cpu];
	uintptr_t tss = (uintptr_t)&x->tss;
	struct desc_ptr gdtr = { sizeof(x->gdt) - 1, (uintptr_t)x->gdt };
	struct desc_ptr idtr = { sizeof(idt) - 1, (uintptr_t)idt };

	x->tss.ist[IST_DOUBLE_FAULT - 1] = (uintptr_t)(ist_stacks[cpu].df_stack + IST_STACK_SIZE);
	x->tss.ist[IST_NMI - 1] = (uintptr_t)(ist_stacks[cpu].nmi_stack + IST_STACK_SIZE);
	x->tss.ist[IST_MACHINE_CHECK - 1] = (uintptr_t)(ist_stacks[cpu].mc_stack + IST_STACK_SIZE);
	x->tss.iomap_base = sizeof(x->tss);
	memset(x->io_bitmap, 0xff, sizeof(x->io_bitmap));
	memset(x->io_loaded, 0, sizeof(x->io_loaded));
	x->gdt[0] = 0;
	x->gdt[SEL_CODE / 8] = 0x00af9a000000ffffULL;		/* 64-bit code, DPL 0 */
	x->gdt[SEL_DATA / 8] = 0x00cf92000000ffffULL;		/* data, DPL 0 */
	x->gdt[SEL_USER32_CODE / 8] = 0;			/* never loaded */
	x->gdt[SEL_USER_DATA / 8] = 0x00cff2000000ffffULL;	/* data, DPL 3 */
	x->gdt[SEL_USER_CODE / 8] = 0x00affa000000ffffULL;	/* 64-bit code, DPL 3 */
	x->gdt[SEL_TSS / 8] = (sizeof(x->tss) + sizeof(x->io_bitmap) - 1) | ((tss & 0xffffff) << 16) |
			      (0x89ULL << 40) | ((u64)(tss >> 24) & 0xff) << 56;
	x->gdt[SEL_TSS / 8 + 1] = tss >> 32;

	__asm__ __volatile__(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ds\n\t"
		"movw %w2, %%es\n\t"
		"movw %w2, %%ss\n\t"
		"ltr %w3\n\t"
		"lidt %4"
		: : "m"(gdtr), "i"(SEL_CODE), "r"(SEL_DATA), "r"(SEL_TSS), "m"(idtr)
		: "rax", "memory");
	cpus[cpu].arch = x;
	enable_machine_check();
	syscall_cpu_init();
}

/* Where the next interrupt or system call from user mode on this CPU lands. */
void x86_set_kernel_stack(uintptr_t top)
{
	struct cpu *c = this_cpu();

	((struct x86_cpu *)c->arch)->tss.rsp[0] = top;
	c->user_entry_sp = top;
}

/* Sets (deny) or clears (allow) the bits of the ports in io_ports. */
static void io_bits(u8 *bitmap, u32 io_ports, bool deny)
{
	unsigned int base = io_ports & 0xffff, n = io_ports >> 16;

	for (unsigned int p = base; p < base + n; p++) {
		if (deny)
			bitmap[p / 8] |= 1U << (p % 8);
		else
			bitmap[p / 8] &= ~(1U << (p % 8));
	}
}

/*
 * Interrupts off: this CPU's bitmap becomes the grants io_ports, and
 * nothing else.  All the old ranges are denied before the new ones are
 * allowed, so ranges that overlap come out right.
 */
void x86_io_load(const u32 *io_ports)
{
	struct x86_cpu *x = this_cpu()->arch;
	u32 want[IO_RANGES];
	bool same = true;

	for (int i = 0; i < IO_RANGES; i++) {
		want[i] = READ_ONCE(io_ports[i]);	/* (a grant on another CPU may be landing) */
		same &= want[i] == x->io_loaded[i];
	}
	if (same)
		return;
	for (int i = 0; i < IO_RANGES; i++)
		io_bits(x->io_bitmap, x->io_loaded[i], true);
	for (int i = 0; i < IO_RANGES; i++) {
		io_bits(x->io_bitmap, want[i], false);
		x->io_loaded[i] = want[i];
	}
}

/*
 * Which interrupt stack's guard page holds addr: "double-fault", "NMI" or "machine-check",
 * with its CPU in *cpu; NULL when none does.  (mmu.c leaves these pages
 * unmapped; the double-fault handler names the overflow.)
 */
const char *x86_ist_guard(uintptr_t addr, int *cpu)
{
	uintptr_t base = (uintptr_t)ist_stacks, page = ALIGN_DOWN(addr, PAGE_SIZE);
	int i;

	if (addr < base || addr >= (uintptr_t)(ist_stacks + NR_CPUS))
		return NULL;
	i = (addr - base) / sizeof(ist_stacks[0]);
	*cpu = i;
	if (page == (uintptr_t)ist_stacks[i].df_guard)
		return "double-fault";
	if (page == (uintptr_t)ist_stacks[i].nmi_guard)
		return "NMI";
	if (page == (uintptr_t)ist_stacks[i].mc_guard)
		return "machine-check";
	return NULL;
}

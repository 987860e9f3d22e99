/*
 * Per-CPU descriptor tables: a GDT with a TSS whose interrupt stacks give
 * the double fault and the NMI stacks of their own (a kernel stack
 * overflow faults again on the overflowed stack otherwise, and the CPU
 * resets), and the shared IDT pointing at the stubs in vectors.S.  Each
 * of those stacks has an unmapped guard page below it (mmu.c): an NMI
 * handler that overflows faults, and the double fault reports it, instead
 * of writing over the double-fault stack beneath.
 */
#include "x86.h"

#define SEL_CODE	0x08
#define SEL_DATA	0x10
#define SEL_TSS		0x18
#define IST_DOUBLE_FAULT 1
#define IST_NMI		2
#define IST_STACK_SIZE	8192

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

struct x86_cpu {
	u64 gdt[5];		/* null, code, data, TSS (two slots) */
	struct tss tss;
};

/* The interrupt stacks, each above its guard page. */
struct ist_stacks {
	u8 df_guard[PAGE_SIZE];
	u8 df_stack[IST_STACK_SIZE];
	u8 nmi_guard[PAGE_SIZE];
	u8 nmi_stack[IST_STACK_SIZE];
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
}

void x86_cpu_tables_init(int cpu)
{
	struct x86_cpu *x = &x86_cpus[cpu];
	uintptr_t tss = (uintptr_t)&x->tss;
	struct desc_ptr gdtr = { sizeof(x->gdt) - 1, (uintptr_t)x->gdt };
	struct desc_ptr idtr = { sizeof(idt) - 1, (uintptr_t)idt };

	x->tss.ist[IST_DOUBLE_FAULT - 1] = (uintptr_t)(ist_stacks[cpu].df_stack + IST_STACK_SIZE);
	x->tss.ist[IST_NMI - 1] = (uintptr_t)(ist_stacks[cpu].nmi_stack + IST_STACK_SIZE);
	x->tss.iomap_base = sizeof(x->tss);
	x->gdt[0] = 0;
	x->gdt[1] = 0x00af9a000000ffffULL;	/* 64-bit code */
	x->gdt[2] = 0x00cf92000000ffffULL;	/* data */
	x->gdt[3] = (sizeof(x->tss) - 1) | ((tss & 0xffffff) << 16) |
		    (0x89ULL << 40) | ((u64)(tss >> 24) & 0xff) << 56;
	x->gdt[4] = tss >> 32;

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
}

/*
 * Which interrupt stack's guard page holds addr: "double-fault" or "NMI",
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
	return NULL;
}

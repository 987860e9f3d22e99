/* Private helpers of the x86-64 port: port I/O, MSRs, CPUID, descriptors. */
#ifndef ARCH_X86_H
#define ARCH_X86_H

#include "kernel.h"
#include <asm/syscall.h>

static inline void outb(u16 port, u8 v) { __asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline u8 inb(u16 port) { u8 v; __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline void outw(u16 port, u16 v) { __asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port)); }

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ __volatile__("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline void cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static inline u64 read_cr2(void) { u64 v; __asm__ __volatile__("mov %%cr2, %0" : "=r"(v)); return v; }
static inline u64 read_cr3(void) { u64 v; __asm__ __volatile__("mov %%cr3, %0" : "=r"(v)); return v; }

#define MSR_APIC_BASE	0x1b
#define MSR_EFER	0xc0000080
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define MSR_FMASK	0xc0000084
#define MSR_FS_BASE	0xc0000100
#define MSR_GS_BASE	0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102

/* Interrupt vectors. */
#define VEC_PIC_BASE	0x50	/* legacy PIC, remapped and masked */
#define VEC_IRQ_BASE	0x60	/* + ISA IRQ: device interrupts through the I/O APIC */
#define VEC_TIMER	0x40
#define VEC_IPI_BASE	0xf0	/* + enum ipi_kind */
#define VEC_SPURIOUS	0xff
#define NMI_VECTOR	2
#define MC_VECTOR	18	/* machine check: on its own stack (IST), like the NMI */

/* What every interrupt and exception entry (vectors.S) pushes: struct trap_frame, asm/syscall.h. */

void x86_cpu_tables_init(int cpu);
const char *x86_ist_guard(uintptr_t addr, int *cpu);
/* Is sp on this CPU's machine-check stack (cpu_tables.c)? */
bool x86_on_machine_check_stack(uintptr_t sp);
void idt_init(void);
void lapic_init(void);
void lapic_cpu_init(void);
void lapic_timer_stop(void);
void lapic_eoi(void);
void ioapic_init(void);
u32 lapic_id(void);
u32 cpu_initial_apic_id(void);
bool lapic_set_up_uncached(int cpu);
bool mmu_uncached(uintptr_t addr);
void mmu_nmi_tlb_flush(void);
void lapic_send(u32 apic_id, u32 icr_low);
void clock_init(void);
void mmu_init(void);
void mmu_cpu_init(void);
uintptr_t mmu_kernel_tables(void);
u64 mmu_nx_bit(void);
extern bool x86_smap_enabled;
void syscall_cpu_init(void);
void x86_set_kernel_stack(uintptr_t top);
/* The ports user mode may use on this CPU from now on (struct arch_mm's io_ports). */
void x86_io_load(const u32 *io_ports);
/* The I/O permission bitmap covers ports 0 to this - 1 (the ISA ports); the rest always fault. */
#define IO_BITMAP_PORTS	0x400
bool x86_sysret_ok(const struct trap_frame *tf);
void uart_init(void);
void pic_disable(void);
void acpi_init(u64 rsdp_phys, size_t rsdp_len);
extern u32 cpu_apic_id[];
extern int acpi_ncpus;
extern u64 lapic_base_phys;
extern u32 lapic_ticks_per_tick;

#endif

/* Private helpers of the AArch64 port: system registers, MMIO, the trap frame. */
#ifndef ARCH_AARCH64_H
#define ARCH_AARCH64_H

#include "kernel.h"
#include "trap_frame.h"
#include "exception_stack.h"
#include "sctlr.h"

#define read_sysreg(r) ({						\
	u64 __v;							\
	__asm__ __volatile__("mrs %0, " #r : "=r"(__v));		\
	__v;								\
})
#define write_sysreg(r, v)						\
	__asm__ __volatile__("msr " #r ", %0" : : "r"((u64)(v)) : "memory")
#define isb()		__asm__ __volatile__("isb" ::: "memory")

/*
 * Device registers (device-nGnRnE memory, mapped by boot/aarch64/entry.S).
 * The "memory" clobber keeps them in program order with normal accesses
 * as far as the compiler goes; the CPU keeps device accesses in order.
 */
static inline u32 mmio_read32(uintptr_t a)
{
	return *(volatile u32 *)a;
}

static inline void mmio_write32(uintptr_t a, u32 v)
{
	__asm__ __volatile__("" ::: "memory");
	*(volatile u32 *)a = v;
}

static inline u64 mmio_read64(uintptr_t a)
{
	return *(volatile u64 *)a;
}

static inline void mmio_write64(uintptr_t a, u64 v)
{
	__asm__ __volatile__("" ::: "memory");
	*(volatile u64 *)a = v;
}

/* Privileged access never (ARMv8.1): boot/aarch64/entry.S turns it on where the CPU has it. */
static inline bool cpu_has_pan(void)
{
	return (read_sysreg(id_aa64mmfr1_el1) >> MMFR1_PAN_SHIFT) & 0xf;
}

static inline bool pan_enabled(void)
{
	return read_sysreg(S3_0_C4_C2_3) & (1ULL << 22);	/* PSTATE.PAN, as the PAN register reads */
}

/* MPIDR_EL1's affinity fields, Aff3 moved down next to Aff2: 0xAA3AA2AA1AA0. */
#define MPIDR_AFF_MASK	0xff00ffffffULL

static inline u64 mpidr_affinity(u64 mpidr)
{
	return mpidr & MPIDR_AFF_MASK;
}

/*
 * The device window: what the kernel maps as devices (boot/aarch64/entry.S,
 * mmu.c), 2 MiB to 1 GiB, where QEMU virt has its devices (RAM starts at
 * 1 GiB).  A device register elsewhere would fault on its first access.
 */
#define DEVICE_WINDOW_START	0x200000UL
#define DEVICE_WINDOW_END	0x40000000UL

/* The register frames the kernel uses: PL011, GICv3 distributor, one redistributor. */
#define UART_SIZE		0x1000
#define GICD_SIZE		0x10000
#define GICR_FRAME_SIZE		0x20000		/* RD_base + SGI_base, 64 KiB each */

/* Machine description from the device tree (fdt.c), with QEMU virt's defaults. */
struct dt_info {
	u64 ram_start, ram_size;
	u64 uart_base;
	u32 uart_intid;		/* its interrupt, a GIC SPI's INTID (0: none known) */
	bool uart_irq_edge;	/* edge-triggered (the PL011's is level) */
	u64 gicd_base, gicr_base;
	u64 gicr_size;		/* the first redistributor region: one frame per CPU */
	bool psci_smc;		/* PSCI conduit: smc, else hvc */
	bool psci_found;
	int ncpus;		/* CPUs listed, up to NR_CPUS */
	int cpus_found;		/* CPUs listed in all */
	u64 cpu_mpidr[NR_CPUS];
	char bootargs[4096];
	bool bootargs_truncated;
	/* Where the blob itself lies: its header and blocks (not the padding after). */
	u64 fdt_start, fdt_size;
	/* /chosen's linux,initrd-start and -end: the boot modules (initrd.c). */
	u64 initrd_start, initrd_end;
	bool initrd_found;
};
extern struct dt_info dt;

#define BOOT_STACK_SIZE		(16 * 1024)
extern const uintptr_t boot_stack_guard;
void *exception_stack_top(int cpu);
bool exception_stack_guard(uintptr_t page);

/* Fills *dt from the device tree blob; what the blob does not say stays as it was. */
void fdt_parse(struct dt_info *dt, const void *blob);
void mmu_init(void);
void boot_map_ram(void);
/* user_mm.c: ASID flushes before a load on cpu; for tests, a lower ASID count (the old one back). */
unsigned long arch_asid_flushes(int cpu);
unsigned int arch_asid_limit(unsigned int n);
/* The boot modules in an initrd (initrd.c): how many were put in out. */
int initrd_parse(const void *initrd, size_t size, struct boot_module_desc *out, int max);
bool boot_map_fdt(uintptr_t blob);
uintptr_t mmu_kernel_tables(void);
void mmu_switch_ttbr0(uintptr_t tables);	/* entry.S */
void dcache_clean_poc(const void *addr, size_t size);
void uart_init(uintptr_t base);
void clock_init(void);
void gic_init(void);
void gic_cpu_init(void);
void gicd_wait_rwp(void);
/* The one priority of every interrupt the kernel enables (SGIs, PPIs, SPIs). */
#define GIC_IRQ_PRIORITY	0xa0
void timer_cpu_init(void);
void timer_handle(void);
void gic_handle_irq(struct trap_frame *tf);
void trap_dispatch(struct trap_frame *tf);	/* from vectors.S */
void set_cpu_self(int cpu);
extern u32 timer_interval;

#endif

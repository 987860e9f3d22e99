/* Private helpers of the AArch64 port: system registers, MMIO, the trap frame. */
#ifndef ARCH_AARCH64_H
#define ARCH_AARCH64_H

#include "kernel.h"
#include "trap_frame.h"
#include "exception_stack.h"

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
	u64 gicd_base, gicr_base;
	u64 gicr_size;		/* the first redistributor region: one frame per CPU */
	bool psci_smc;		/* PSCI conduit: smc, else hvc */
	bool psci_found;
	int ncpus;		/* CPUs listed, up to NR_CPUS */
	int cpus_found;		/* CPUs listed in all */
	u64 cpu_mpidr[NR_CPUS];
	char bootargs[4096];
	bool bootargs_truncated;
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
uintptr_t mmu_kernel_tables(void);
void mmu_switch_ttbr0(uintptr_t tables);	/* entry.S */
void dcache_clean_poc(const void *addr, size_t size);
void uart_init(uintptr_t base);
void clock_init(void);
void gic_init(void);
void gic_cpu_init(void);
void timer_cpu_init(void);
void timer_handle(void);
void gic_handle_irq(struct trap_frame *tf);
void trap_dispatch(struct trap_frame *tf);	/* from vectors.S */
void set_cpu_self(int cpu);
extern u32 timer_interval;

#endif

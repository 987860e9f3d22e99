/*
 * The arch interface: everything kernel/ needs from arch/<arch>/.  kernel/
 * holds no #ifdef on the architecture; it calls these.  Inline pieces
 * (barriers, irq flags, the per-CPU self pointer) live in arch/<arch>/include/asm/.
 */
#ifndef KERNEL_ARCH_H
#define KERNEL_ARCH_H

#include "types.h"
#include <asm/processor.h>

#ifndef ARCH_INTEGER_DIVIDE_TRAPS
#define ARCH_INTEGER_DIVIDE_TRAPS 0	/* AArch64: x / 0 is 0, no exception */
#endif

/* Exit statuses QEMU returns to the host (tools/run.py reads them). */
#define QEMU_EXIT_PASS	33
#define QEMU_EXIT_FAIL	35
#define QEMU_EXIT_PANIC	37

struct trap_frame;

/* Early set-up on the boot CPU: console, boot info, memory map, CPU list. */
void arch_early_init(void *boot_info);
/* The rest of the boot CPU's set-up once memory works: interrupts, clock. */
void arch_init(void);
/* Starts CPU `cpu` at ap_main() on `stack`; false if it did not come up. */
bool arch_start_cpu(int cpu, void *stack_top);
/*
 * CPU hotplug.  arch_cpu_die(): the CPU going down stops itself, its timer
 * first, with interrupts off (x86-64: says it is dead, then halts, again
 * after any NMI; AArch64: PSCI CPU_OFF).  arch_cpu_is_dead(cpu), from
 * another CPU: true once cpu is stopped (AArch64: PSCI AFFINITY_INFO says
 * off), so its stack may be reused and arch_start_cpu() may start it again.
 */
void arch_cpu_die(int cpu) __attribute__((noreturn));
bool arch_cpu_is_dead(int cpu);
/*
 * A CPU that arrived after the boot CPU gave up on it, before any set-up
 * of its own (interrupts off, no timer, no interrupt controller): it stops
 * so that arch_start_cpu() can start it again for add_cpu() (x86-64: halts
 * until INIT; AArch64: PSCI CPU_OFF).
 */
void arch_cpu_left_out(int cpu) __attribute__((noreturn));
/* Per-CPU set-up, run by every CPU (boot CPU included) on itself. */
void arch_cpu_init(int cpu);
/*
 * True when this CPU's control registers hold what the kernel loads
 * (x86-64 CR0 and CR3; AArch64 SCTLR_EL1 and TTBR0_EL1): caches and MMU
 * on, the kernel's page tables, nothing left over from firmware or a boot
 * map (x86-64: nor its local APIC set up through the boot map's write-back
 * pages).  Otherwise false, with the difference described in why.
 */
bool arch_cpu_control_ok(char *why, size_t size);

/* Serial console. */
void arch_console_putc(char c);
int arch_console_getc(void);		/* -1 when nothing is waiting */

/*
 * The console UART's receive side (kernel/console_input.c): its interrupt
 * line (-1: none known, the console stays polled), and the UART raising
 * it whenever a character waits (x86-64 16550 IER, AArch64 PL011 IMSC).
 */
int arch_console_irq(void);
void arch_console_rx_irq(bool on);

/*
 * A device's registers as a driver in user mode gets them
 * (kernel/object/device.c, docs/drivers.md): I/O ports [base, base +
 * size) (x86-64), or MMIO [base, base + size), page-aligned, mapped into
 * the driver uncached and never executable.  arch_console_regs(): the
 * console UART's.  arch_io_grant(): user mode in am may use the ports
 * [base, base + n), at once on this CPU (which has am loaded), on others
 * from their next switch to am: 0, -EINVAL (beyond the ports the kernel
 * can grant), -ENOSPC (am holds as many ranges as the arch keeps: x86-64 4),
 * -ENOTSUP (no I/O ports on this architecture); the same range granted
 * again counts one grant more.  arch_io_revoke() (am's mm->lock held)
 * takes one grant back, and the range with its last; the caller's
 * tlb_shootdown() of am then reloads every CPU that has am loaded
 * (arch_flush_tlb_user() rereads the grant).
 */
struct arch_mm;
struct device_regs {
	bool ports;
	uintptr_t base;
	size_t size;
};
void arch_console_regs(struct device_regs *r);
int arch_io_grant(struct arch_mm *am, unsigned int base, unsigned int n);
void arch_io_revoke(struct arch_mm *am, unsigned int base, unsigned int n);

/*
 * Device interrupts (kernel/irqdesc.c drives them; docs/drivers.md).  A
 * line is the arch's number for a device's interrupt, below ARCH_NR_IRQS
 * (asm/processor.h): x86-64 an ISA IRQ (0-15, on the I/O APIC pin the
 * MADT's overrides give it), AArch64 a GIC SPI's INTID (32-1019).  Lines
 * start masked.  The arch's interrupt entry calls handle_device_irq()
 * (irq.h) with the line; it ends with arch_irq_eoi().
 *
 * arch_irq_setup():  prepares line (masked, routed to the boot CPU) and
 *                    says whether it is level-triggered; 0, -EINVAL (no
 *                    such line here), -ENODEV (no controller serves it).
 * arch_irq_route():  delivered to cpu (online) only, from now on.
 * arch_irq_mask(), arch_irq_unmask(): the controller holds it back or
 *                    lets it through; once mask returns, no new delivery.
 * arch_irq_eoi():    end of interrupt on this CPU, after the handler.
 * arch_irq_describe(): its name for messages ("IRQ 4 (I/O APIC pin 4,
 *                    vector 0x64)", "SPI 33 (INTID 33)").
 * arch_irq_masked(): what the controller itself says: does it hold the
 *                    line back now?  (For tests: the kernel's own record
 *                    could say masked while the controller does not.)
 */
int arch_irq_setup(unsigned int irq, bool *level);
void arch_irq_route(unsigned int irq, int cpu);
void arch_irq_mask(unsigned int irq);
void arch_irq_unmask(unsigned int irq);
void arch_irq_eoi(unsigned int irq);
void arch_irq_describe(unsigned int irq, char *buf, size_t size);
bool arch_irq_masked(unsigned int irq);

/* Inter-processor interrupts and the NMI-like "stop" used by panic. */
enum ipi_kind { IPI_CALL_FUNC, IPI_RESCHEDULE, IPI_NR };
void arch_send_ipi(int cpu, enum ipi_kind kind);
/* Interrupts a CPU even if it has interrupts off (x86: NMI). */
bool arch_send_nmi(int cpu);

/*
 * Context switch: pushes the callee-saved registers on the current stack,
 * stores the stack pointer in *prev_sp, loads next_sp and pops the next
 * task's registers, returning into the next task.
 */
void arch_switch_to(void **prev_sp, void *next_sp);
/* Where a switched-out task stands: its saved pc and frame pointer, for backtraces. */
void arch_switched_frame(const void *sp, uintptr_t *pc, uintptr_t *fp);
/* A new task's first stack: switching to it calls entry() on that stack. */
void *arch_task_stack_init(void *stack_top, void (*entry)(void));
/*
 * FP/SIMD state: every entry to the kernel (a system call, an interrupt,
 * an exception) saves the interrupted code's whole FP/SIMD state in its
 * trap frame and restores it on the way back, and the kernel's own code
 * keeps only what the C ABI makes callee-saved, which arch_switch_to()
 * switches.  So no task carries a saved FP/SIMD area, and a switch
 * saves no register file.
 */

/*
 * For tests: the FP registers the ABI says a called function preserves
 * (AArch64: d8-d15 and FPCR's control bits; x86-64: MXCSR's control bits
 * and the x87 control word), ARCH_FP_CALLEE_SAVED_WORDS of them.  _sample
 * fills regs with legal values that differ with seed; _call loads `set`
 * into those registers, calls fn(arg) and stores what they hold after it.
 */
void arch_fp_callee_saved_sample(unsigned int seed, u64 *regs);
void arch_fp_callee_saved_call(const u64 *set, u64 *got, void (*fn)(void *), void *arg);

/* Makes page (4 KiB) a not-present guard page below a stack, or undoes it. */
void arch_stack_guard(void *page, bool guard);
/*
 * For tests: how the kernel's page tables map addr -- not at all, as
 * RAM (normal write-back memory) or as a device (uncached).
 */
enum arch_mapping { ARCH_MAP_NONE, ARCH_MAP_RAM, ARCH_MAP_DEVICE };
enum arch_mapping arch_mapping_of(uintptr_t addr);

/* Monotonic clock since boot. */
u64 arch_clock_ns(void);
u64 arch_cycles(void);

/* Ends QEMU with `status` (one of QEMU_EXIT_*); never returns. */
void arch_qemu_exit(int status) __attribute__((noreturn));

/* Registers and backtrace of an interrupted context. */
void arch_dump_frame(const struct trap_frame *tf);
uintptr_t arch_frame_pc(const struct trap_frame *tf);
uintptr_t arch_frame_fp(const struct trap_frame *tf);

/* The CPUs firmware described, in logical order (boot CPU first). */
int arch_possible_cpus(void);

/* The boot command line, as the boot loader gave it. */
const char *arch_cmdline(void);

/* Usable RAM regions, for the page allocator. */
struct mem_region { uintptr_t start, end; };
int arch_mem_regions(struct mem_region *out, int max);

/*
 * User space (kernel/user/, docs/user.md).  Each user address space has a
 * struct arch_mm (asm/mm.h): its top-level table, whose first entry is
 * the kernel's, shared by all (x86-64 PML4[0], AArch64 L0[0]), and whose
 * others map user pages only.
 *
 * arch_mm_init():    an address space with nothing mapped in its user
 *                    half, its page tables charged to q (NULL: to
 *                    nobody; never waiting: pgtable.c); 0, or -ENOMEM.
 * arch_mm_destroy(): frees its tables; every user page unmapped first,
 *                    and no CPU has it loaded.
 * arch_mm_map():     maps the frame at pa at user address va with prot
 *                    (SYS_PROT_* of lib/syscall.h; never write and exec
 *                    together); 0, or -ENOMEM for a page table (no
 *                    memory, or its quota spent).
 * arch_mm_unmap():   unmaps va and returns the frame it mapped (0: none).
 *                    The caller flushes TLBs (kernel/user/tlb.c).
 * arch_mm_lookup():  the frame mapped at va, or 0.
 * arch_mm_switch():  loads am on this CPU (NULL: the kernel's tables),
 *                    leaving no translation of the one it replaces.
 * arch_flush_tlb_user(): drops this CPU's translations of [start, end) of am.
 */
struct arch_mm;
struct quota;
/* arch_mm_map()'s prot may add: device registers, uncached, never executable. */
#define ARCH_PROT_DEVICE	0x100
int arch_mm_init(struct arch_mm *am, struct quota *q);
void arch_mm_destroy(struct arch_mm *am);
int arch_mm_map(struct arch_mm *am, uintptr_t va, uintptr_t pa, int prot);
uintptr_t arch_mm_unmap(struct arch_mm *am, uintptr_t va);
uintptr_t arch_mm_lookup(struct arch_mm *am, uintptr_t va);
void arch_mm_switch(struct arch_mm *am);
void arch_flush_tlb_user(struct arch_mm *am, uintptr_t start, uintptr_t end);
/* Page-table pages all address spaces hold now (the leak check counts them apart). */
long arch_mm_table_pages(void);

/*
 * Threads in user mode.  arch_enter_user(): the first entry of a thread:
 * user mode at pc with stack sp, arg in the first argument register, the
 * thread pointer tls (x86-64 FS base, AArch64 TPIDR_EL0), every other
 * register and the FP/SIMD state zero.  arch_user_thread_switch(): a user
 * thread is about to run on this CPU: entries from user mode will land
 * on kernel_stack_top, and its thread pointer is tls.  arch_set_tls():
 * the running thread's thread pointer changes.
 */
void arch_enter_user(uintptr_t pc, uintptr_t sp, uintptr_t arg, uintptr_t tls)
	__attribute__((noreturn));
void arch_user_thread_switch(uintptr_t kernel_stack_top, uintptr_t tls);
void arch_set_tls(uintptr_t tls);

/* A trap frame: from user mode?  Its sp. */
bool arch_frame_user_mode(const struct trap_frame *tf);
uintptr_t arch_frame_sp(const struct trap_frame *tf);
/*
 * A system call's number, arguments and result in its trap frame are
 * inline, in asm/syscall.h (with struct trap_frame), for the system-call
 * code that includes it:
 *   arch_syscall_nr(tf), arch_syscall_arg(tf, n) (n 0 to 5),
 *   arch_syscall_set_result(tf, ret),
 *   arch_syscall_set_arg(tf, n, v): writes argument register n (1 to 5),
 *     which user mode sees on return: IPC hands a received message back
 *     in them (lib/ipc.h).  Never argument 0 (on AArch64 it is the
 *     result register).
 */

/*
 * Copies between kernel and user memory with a fault fix-up: a fault
 * inside ends the copy (kernel/user/uaccess.c checks the range first).
 * Returns the bytes NOT copied (0: all).
 */
size_t arch_copy_from_user(void *dst, const void *usrc, size_t n);
size_t arch_copy_to_user(void *udst, const void *src, size_t n);
/*
 * Does the CPU fault the kernel's accesses to user memory outside those
 * copies (x86-64 SMAP, AArch64 PAN)?  The report then says the access
 * was "outside copy_from_user()".
 */
bool arch_user_access_guarded(void);

/*
 * Boot modules (kernel/user/module.c): the programs the boot loader
 * loaded beside the kernel (x86-64: multiboot2 module tags; AArch64: an
 * initrd), up to max of them.  Each lies in memory the page allocator
 * never hands out (arch_reserved_regions()).
 */
struct boot_module_desc {
	uintptr_t start, end;		/* the bytes, [start, end) */
	const char *cmdline;		/* argv: the program's name first */
};
int arch_boot_modules(struct boot_module_desc *out, int max);
/* RAM the boot loader filled for us (modules, initrd, device tree): never allocated. */
int arch_reserved_regions(struct mem_region *out, int max);

#endif

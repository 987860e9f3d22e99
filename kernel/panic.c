/*
 * panic() and warnings.  A panic stops the other CPUs (an NMI on x86-64
 * reaches even a CPU spinning with interrupts off), prints the message,
 * this CPU, its task and a symbolized backtrace, and ends QEMU with the
 * panic code.  It never waits for a lock a stopped CPU may hold: printk
 * writes without the console lock once a panic is in progress.
 */
#include <stdio.h>
#include "kernel.h"
#include "irq.h"

#define STOP_WAIT_NS	(500 * NSEC_PER_MSEC)
#define MAX_FRAMES	32

static int panic_cpu = -1;
/* Did every CPU the panic asked to stop stop?  (Only the owner of the panic writes it.) */
static bool others_stopped;
/* Set by each CPU a panic stopped; a flag per CPU, so none is counted twice. */
static bool cpu_stopped[NR_CPUS];

bool panic_in_progress(void)
{
	return READ_ONCE(panic_cpu) != -1;
}

static const char *task_name(void)
{
	const char *n = this_cpu()->task_name;

	return n ? n : "?";
}

/*
 * Is the page of addr RAM the kernel maps?  Before the kernel's page
 * tables exist (a fault early in the boot) the memory map says.
 */
static bool mapped_ram(uintptr_t addr)
{
	struct mem_region r[16];
	int n;

	switch (arch_mapping_of(addr)) {
	case ARCH_MAP_RAM:
		return true;
	case ARCH_MAP_DEVICE:
		return false;
	case ARCH_MAP_NONE:
		break;
	}
	if (arch_mapping_of((uintptr_t)&panic_cpu) != ARCH_MAP_NONE)
		return false;	/* the tables exist and leave addr out: a guard page, a hole */
	n = arch_mem_regions(r, ARRAY_SIZE(r));
	return mem_regions_cover(r, n, ALIGN_DOWN(addr, PAGE_SIZE),
				 ALIGN_DOWN(addr, PAGE_SIZE) + PAGE_SIZE);
}

static bool plausible_frame(uintptr_t fp, uintptr_t prev)
{
	/*
	 * Frames are aligned, grow upwards, and live in RAM the kernel maps:
	 * a corrupt frame pointer must make us read neither a device
	 * register (AArch64 has its devices below RAM: a read may have side
	 * effects, or abort) nor a guard page (a fault inside the report).
	 */
	return fp >= 0x100000 && fp < (1ULL << 32) && !(fp & 7) && fp > prev &&
	       mapped_ram(fp) && mapped_ram(fp + 2 * sizeof(uintptr_t) - 1);
}

static void print_addr(uintptr_t pc)
{
	uintptr_t off, size;
	const char *sym = ksym_lookup(pc, &off, &size);

	if (sym)
		printk(" [<%016lx>] %s+0x%lx/0x%lx\n", (unsigned long)pc, sym,
		       (unsigned long)off, (unsigned long)size);
	else
		printk(" [<%016lx>] ?\n", (unsigned long)pc);
}

void dump_backtrace(uintptr_t pc, uintptr_t fp)
{
	printk("Call Trace:\n");
	if (pc)
		print_addr(pc);
	for (int i = 0; i < MAX_FRAMES && plausible_frame(fp, 0); i++) {
		uintptr_t next = ((uintptr_t *)fp)[0];
		uintptr_t ret = ((uintptr_t *)fp)[1];

		if (!ret)
			break;
		print_addr(ret - 1);	/* the call, not the instruction after it */
		if (!plausible_frame(next, fp))
			break;
		fp = next;
	}
}

void dump_stack(void)
{
	dump_backtrace(0, arch_current_fp());
}

/* Of the CPUs we asked to stop, how many have not (one gone offline is dropped)? */
static int cpus_still_running(bool *sent)
{
	int running = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (sent[cpu] && !cpu_online(cpu))
			sent[cpu] = false;	/* it went down: nothing to stop */
		/* [panic_stopped_acquire] pairs [panic_stopped_release]: its output is done. */
		if (sent[cpu] && !smp_load_acquire(&cpu_stopped[cpu]))
			running++;
	}
	return running;
}

/*
 * Interrupts the other CPUs and waits (bounded) until each says it
 * stopped.  Offline CPUs are skipped (they run nothing), and one that goes
 * offline meanwhile is no longer waited for: it stops on its own.  Each
 * CPU's own flag counts it once: a CPU that lost the race to panic stops
 * itself, and then our NMI enters its stop again (a shared count once
 * counted it twice, and we went on while another CPU still printed).
 * True when every one stopped.
 */
static bool stop_other_cpus(void)
{
	static bool sent[NR_CPUS];	/* (only the first CPU to panic gets here) */
	int cpu, others = 0, running;
	u64 end;

	for_each_online_cpu(cpu) {
		if (cpu != smp_processor_id() && arch_send_nmi(cpu)) {
			others++;
			sent[cpu] = true;
		}
	}
	end = ktime_get_ns() + STOP_WAIT_NS;
	while ((running = cpus_still_running(sent)) && ktime_get_ns() < end)
		cpu_relax();
	if (running) {
		for (others = 0, cpu = 0; cpu < NR_CPUS; cpu++)
			others += sent[cpu];	/* (less those gone offline) */
		printk("panic: %d of %d other CPUs did not stop\n", running, others);
	}
	return !running;
}

/*
 * A panic inside this CPU's own report.  The message may fault too (a
 * console at a bad address faults on every character): then we exit at
 * once, before writing anything, rather than fault and recurse forever.
 */
static void __noreturn panic_recursive(void)
{
	static const char msg[] = "\nKernel panic while panicking: giving up\n";
	static bool giving_up;	/* (only the owner of the panic gets here) */

	if (giving_up)
		arch_qemu_exit(QEMU_EXIT_PANIC);
	giving_up = true;
	console_write_unlocked(msg, sizeof(msg) - 1);
	arch_qemu_exit(QEMU_EXIT_PANIC);
}

/* Returns only to the first CPU to panic; any other CPU stops here. */
static void panic_enter(void)
{
	int me, owner = -1;

	arch_irq_disable();
	me = smp_processor_id();
	/*
	 * [panic_claim] pairs [panic_claim]: only the CPU that changes
	 * panic_cpu from -1 (nobody) reports.  Fully ordered, as is every
	 * other CPU's attempt: of two CPUs that panic at once exactly one
	 * wins, and the loser learns who did.  It then stops as the winner's
	 * stop request would stop it (irq_nmi()), so the first report is the
	 * one that comes out whole (tests/panic.c).  Only a panic inside this
	 * CPU's own report finds itself the owner.
	 */
	if (!__atomic_compare_exchange_n(&panic_cpu, &owner, me, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (owner == me)
			panic_recursive();
		irq_nmi(NULL);	/* another CPU panics first: stop like its NMI would */
	}
	others_stopped = stop_other_cpus();
}

/* After the report, so that a fault in the drain (a panic inside the panic) loses none of it. */
static void __noreturn panic_finish(const char *msg)
{
	trace_stream_panic(others_stopped);
	printk("---[ end Kernel panic - not syncing: %s ]---\n", msg);
	arch_qemu_exit(QEMU_EXIT_PANIC);
}

static char panic_msg[512];

void panic(const char *fmt, ...)
{
	va_list ap;

	panic_enter();
	va_start(ap, fmt);
	vsnprintf(panic_msg, sizeof(panic_msg), fmt, ap);
	va_end(ap);
	printk("Kernel panic - not syncing: %s\n", panic_msg);
	printk("CPU: %d Task: %s\n", smp_processor_id(), task_name());
	dump_stack();
	panic_finish(panic_msg);
}

void panic_trap(const struct trap_frame *tf, const char *fmt, ...)
{
	va_list ap;

	panic_enter();
	va_start(ap, fmt);
	vsnprintf(panic_msg, sizeof(panic_msg), fmt, ap);
	va_end(ap);
	printk("%s\n", panic_msg);
	printk("CPU: %d Task: %s\n", smp_processor_id(), task_name());
	arch_dump_frame(tf);
	dump_backtrace(arch_frame_pc(tf), arch_frame_fp(tf));
	printk("Kernel panic - not syncing: Fatal exception on CPU%d\n", smp_processor_id());
	panic_finish(panic_msg);
}

void warn_slowpath(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk("WARNING: CPU: %d Task: %s at %s:%d: %s\n", smp_processor_id(),
	       task_name(), file, line, msg);
	dump_stack();
	printk("---[ end trace ]---\n");
}

static bool backtrace_wanted[NR_CPUS];

bool trigger_cpu_backtrace(int cpu)
{
	u64 end = ktime_get_ns() + NSEC_PER_SEC;

	WRITE_ONCE(backtrace_wanted[cpu], true);
	/*
	 * [backtrace_req_mb] pairs [hw_irq_entry]: the request is visible
	 * before the NMI arrives, or the target would take it for a stop
	 * request's leftover and print nothing.
	 */
	smp_mb();
	if (!cpu_online(cpu) || !arch_send_nmi(cpu))
		return false;
	/* (a CPU that goes offline meanwhile will not answer: stop waiting) */
	while (READ_ONCE(backtrace_wanted[cpu]) && cpu_online(cpu) && ktime_get_ns() < end)
		cpu_relax();
	return !READ_ONCE(backtrace_wanted[cpu]);
}

void (*nmi_backtrace_hook)(void);

/* The NMI: the stop request of a panic on another CPU, or a backtrace request. */
void irq_nmi(const struct trap_frame *tf)
{
	int me = smp_processor_id();

	if (panic_in_progress() && READ_ONCE(panic_cpu) != me) {
		/*
		 * [panic_stopped_release] pairs [panic_stopped_acquire]: what
		 * this CPU printed is out before the panicking CPU, seeing the
		 * flag, starts its report.
		 */
		smp_store_release(&cpu_stopped[me], true);
		for (;;)
			arch_irq_disable(), arch_cpu_halt();
	}
	if (tf && READ_ONCE(backtrace_wanted[me])) {
		void (*hook)(void) = READ_ONCE(nmi_backtrace_hook);

		this_cpu()->in_nmi = true;
		if (hook)
			hook();		/* a test's, in NMI context */
		printk("NMI backtrace for cpu %d (task %s)\n", me, task_name());
		dump_backtrace(arch_frame_pc(tf), arch_frame_fp(tf));
		this_cpu()->in_nmi = false;
		WRITE_ONCE(backtrace_wanted[me], false);
	}
}

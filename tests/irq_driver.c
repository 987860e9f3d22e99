/*
 * Interrupts delivered to a driver in user mode (kernel/object/interrupt.c,
 * device.c; docs/drivers.md): the kernel lets the console UART's receive
 * line go, grants tests/user/helpers/irq_driver an interrupt capability
 * for it and one for the UART's registers, and types on the serial line.
 * The driver binds the line to a notification and waits; the interrupt
 * comes in on the CPU the line is routed to (CPU0) and wakes the driver
 * on another, which reads the characters from the UART itself.  Each test
 * takes the line back for the console at its end.
 */
#include <errno.h>
#include "ktest.h"
#include "irq.h"
#include "object/interrupt.h"
#include "object/notification.h"
#include "object/device.h"
#include "object/cap.h"
#include "user/task.h"
#include "user/module.h"
#include "driver_test.h"
#include "object/lookup.h"

#define DRIVER		"tests/user/helpers/irq_driver"
#define EXIT_EBUSY	16	/* the driver's exit status when its bind got -SYS_EBUSY */
#define EXIT_WOKE_ON	64	/* + the CPU the driver woke on */
#define TYPED		"hi!"	/* what the serving driver waits for */
#define GO_BIT		2	/* late mode: the test's go-ahead, on the driver's notification */

/*
 * A second device for the driver's slot 2: COM2's ports where the UART is
 * port I/O (a second range in the task's bitmap), else the UART's frame
 * again (a second mapping).
 */
#define COM2_PORT	0x2f8

static void second_device(struct device_regs *regs)
{
	arch_console_regs(regs);
	if (regs->ports)
		*regs = (struct device_regs){ .ports = true, .base = COM2_PORT, .size = 8 };
}

/* The driver's slot 0: the line; slot 1: the UART's registers; slot 2: a second device. */
static int grant_line(struct user_task *t, void *arg)
{
	struct device_regs regs;
	int s = interrupt_cap_grant(t->cspace, 0, *(unsigned int *)arg);

	arch_console_regs(&regs);
	if (s >= 0)
		s = device_cap_grant(t->cspace, 1, &regs);
	second_device(&regs);
	if (s >= 0)
		s = device_cap_grant(t->cspace, 2, &regs);
	return s < 0 ? s : 0;
}

/* irq_driver MODE CPU with the line's capability in its slot 0, the UART's in 1. */
static struct user_task *start_driver_with(const char *mode, int cpu, unsigned int line,
					   const char *more)
{
	struct user_task *t;
	char cmd[96];
	int err;

	/* serve and late wait for TYPED; the others take no third argument */
	snprintf(cmd, sizeof(cmd), DRIVER " %s %d %s%s", mode, cpu, TYPED, more);
	t = user_spawn_with(cmd, NULL, &err, grant_line, &line);
	if (!t)
		ktest_info("%s did not start (error %d)", cmd, err);
	return t;
}

static struct user_task *start_driver(const char *mode, int cpu, unsigned int line)
{
	return start_driver_with(mode, cpu, line, "");
}

/* The console's line, back to the kernel (every test ends with this; it empties the UART). */
static void give_back(void)
{
	KEXPECT_EQ(console_input_reclaim(), 0);
}

static int console_line(void)
{
	if (!boot_module_find(DRIVER))
		return -ENOENT;
	return kernel_console_line();
}

/*
 * Lets the console's line go, routed to CPU0, to the driver start() starts
 * on cpu; once it holds the line (open: the controller lets it through),
 * notes the line's arrivals in *before and types TYPED.  NULL when the
 * driver did not start (a failed check) or nobody types (the test is
 * skipped), the line given back.
 */
static struct user_task *drive_typed(struct user_task *(*start)(int cpu, unsigned int line),
				     int cpu, unsigned int line, unsigned long *before)
{
	struct user_task *t;
	struct irq_stats st;

	console_input_release();
	KEXPECT_EQ(irq_set_affinity(line, 0), 0);
	t = start(cpu, line);
	KEXPECT(t);
	if (t) {
		KEXPECT(wait_held(line, true));
		KEXPECT(!arch_irq_masked(line));
		*before = irq_get_stats(line, &st) ? st.count : 0;
		if (ktest_type_on_console(TYPED))
			return t;
		killed(t);
		ktest_skip("nobody types on the serial line (run from the monitor)");
	}
	give_back();
	return NULL;
}

static struct user_task *start_serving(int cpu, unsigned int line)
{
	return start_driver("serve", cpu, line);
}

/*
 * The driver reads TYPED from the UART itself, woken on its CPU by an
 * interrupt that arrived on CPU0.
 */
KTEST(irq_user_driver_serves_the_uart_from_another_cpu)
{
	int line = console_line(), drv_cpu = nr_cpu_ids - 1;
	struct user_task *t;
	struct irq_stats st;
	unsigned long before;

	if (line < 0)
		KTEST_SKIP("needs " DRIVER " and " NOT_THE_KERNELS);
	while (drv_cpu > 0 && !cpu_online(drv_cpu))
		drv_cpu--;
	if (!drv_cpu)
		ktest_info("one CPU: the driver runs on the CPU the line is routed to");
	t = drive_typed(start_serving, drv_cpu, line, &before);
	if (!t)
		return;
	KEXPECT_EQ(end_of(t), EXIT_WOKE_ON + drv_cpu);
	KEXPECT(irq_get_stats(line, &st) && st.count > before && st.last_cpu == 0);
	KEXPECT(wait_held(line, false));	/* its capability went with it */
	give_back();
}

KTEST(irq_user_driver_killed_releases_its_interrupt)
{
	int line = console_line();
	struct user_task *t;

	if (line < 0)
		KTEST_SKIP("needs " DRIVER " and " NOT_THE_KERNELS);
	console_input_release();
	t = start_driver("hold", 0, line);
	if (t) {
		KEXPECT(wait_held(line, true));
		KEXPECT_EQ(killed(t), -1);
		KEXPECT(wait_held(line, false));
	}
	give_back();		/* -EBUSY if the dead driver still held it */
}

KTEST(irq_second_holder_is_refused)
{
	int line = console_line();
	struct user_task *a;

	if (line < 0)
		KTEST_SKIP("needs " DRIVER " and " NOT_THE_KERNELS);
	/* The kernel's console holds the line: a driver is refused. */
	KEXPECT_EQ(end_of(start_driver("hold", 0, line)), EXIT_EBUSY);
	console_input_release();
	a = start_driver("hold", 0, line);
	KEXPECT(a && wait_held(line, true));
	/* Another driver, with a capability of its own for the same line. */
	KEXPECT_EQ(end_of(start_driver("hold", 0, line)), EXIT_EBUSY);
	/* And the kernel. */
	KEXPECT_EQ(console_input_reclaim(), -EBUSY);
	if (a)
		killed(a);
	KEXPECT(wait_held(line, false));
	give_back();
}

/* Runs irq_driver MODE on CPU0; true if it was killed by a fault whose name has want. */
static bool killed_by(const char *mode, const char *want)
{
	struct sys_exit_status st = { 0 };
	struct user_task *t = start_driver(mode, 0, console_input_irq());
	char kind[64] = "";

	if (!t)
		return false;
	if (user_task_wait_timeout(t, WAIT_NS, &st)) {
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, WAIT_NS, &st);
	}
	if (t->fault.kind)
		strncpy(kind, t->fault.kind, sizeof(kind) - 1);
	user_task_put(t);
	ktest_info("irq_driver %s: status %d, killed %d by %s", mode, st.status, st.killed,
		   kind[0] ? kind : "nothing");
	return st.killed == SYS_KILLED_FAULT && strstr(kind, want);
}

/* The name of the fault a driver gets for a register it was not given. */
static const char *not_given_fault(void)
{
	struct device_regs regs;

	arch_console_regs(&regs);
	return regs.ports ? "I/O port not granted" : "segfault";
}

/*
 * Exactly its own registers: a driver that touches a device it was not
 * given (x86-64: the PIC's port; AArch64: the GIC distributor's address)
 * is killed, and the fault is named (the port's: "I/O port not granted").
 */
KTEST(irq_user_driver_touching_another_device_is_killed)
{
	if (console_line() < 0)
		KTEST_SKIP("needs " DRIVER " and " NOT_THE_KERNELS);
	KEXPECT(killed_by("poke", not_given_fault()));
}

/*
 * A driver may hold several devices: given the UART's registers and a
 * second device's (x86-64: COM2's ports, a second range in its bitmap),
 * it reads both and exits 0 (killed if either were not open to it).
 */
KTEST(irq_user_driver_uses_two_devices)
{
	if (console_line() < 0)
		KTEST_SKIP("needs " DRIVER " and " NOT_THE_KERNELS);
	KEXPECT_EQ(end_of(start_driver("two", 0, console_input_irq())), 0);
}

/*
 * A grant lasts as long as the device capability: the driver deletes its
 * only one while its second thread, on another CPU, reads the UART over
 * and over; that CPU loses the registers at once (x86-64: its bitmap
 * reloaded by the shootdown; AArch64: the page unmapped), and the reader
 * is killed with the fault named.
 */
KTEST(irq_device_grant_ends_with_its_capability)
{
	if (console_line() < 0)
		KTEST_SKIP("needs " DRIVER " and " NOT_THE_KERNELS);
	KEXPECT(killed_by("drop", not_given_fault()));
}

/*
 * The registers come only from SYS_dev_map, and stay with its address
 * space: a program that did not ask, started on the CPU where a driver
 * just used them, is killed when it touches them.
 */
KTEST(irq_device_registers_only_through_their_capability)
{
	if (console_line() < 0)
		KTEST_SKIP("needs " DRIVER " and " NOT_THE_KERNELS);
	KEXPECT_EQ(end_of(start_driver("grab", 0, console_input_irq())), 0);
	KEXPECT(killed_by("sneak", not_given_fault()));
}

/* Signals bits to the notification t's driver bound its line (slot 0) to. */
static bool signal_driver(struct user_task *t, unsigned long bits)
{
	struct interrupt_obj *o;
	struct cap_ref r;
	bool ok = false;

	if (cap_lookup(t->cspace, 0, KOBJ_INTERRUPT, SYS_CAP_WRITE, &r))
		return false;
	o = container_of(r.obj, struct interrupt_obj, base);
	mutex_lock(&o->lock);
	if (o->ntf)
		ok = notification_signal(o->ntf, bits) == 0;
	mutex_unlock(&o->lock);
	kobject_put(r.obj);
	return ok;
}

/* Until the line has arrived n times in all; false at the budget. */
static bool line_arrived(unsigned int line, unsigned long n)
{
	u64 end = ktime_get_ns() + WAIT_NS;
	struct irq_stats st;

	while (irq_get_stats(line, &st) && st.count < n && ktime_get_ns() < end)
		msleep(1);
	return irq_get_stats(line, &st) && st.count >= n;
}

/* irq_driver late: told whether the line is level-triggered (then it waits once more). */
static struct user_task *start_late(int cpu, unsigned int line)
{
	struct irq_stats st;

	return start_driver_with("late", cpu, line,
				 irq_get_stats(line, &st) && st.level ? " 1" : " 0");
}

/*
 * A line stays masked from its delivery until the driver's SYS_irq_ack:
 * a level-triggered line would fire again at once, for ever, while the
 * device still wants service.  The driver (irq_driver late) takes the
 * first interrupt and neither reads the UART nor acknowledges until we
 * say so.  Meanwhile the controller itself must hold the line back
 * (arch_irq_masked()), and on a level line (the UART's on AArch64; COM1's
 * is edge-triggered on x86-64) no second interrupt comes while the line's
 * CPU takes two ticks -- it would come at once, since the UART still
 * asserts the line.  After the ack the line is open again, and on a level
 * line the interrupt comes once more before the driver reads: the driver
 * checks that order itself (exit 11: a second interrupt before its ack).
 */
KTEST(irq_line_stays_masked_from_delivery_until_the_drivers_ack)
{
	int line = console_line(), drv_cpu = nr_cpu_ids - 1;
	unsigned long before;
	struct user_task *t;
	struct irq_stats st;
	u64 ticks;

	if (line < 0)
		KTEST_SKIP("needs " DRIVER " and " NOT_THE_KERNELS);
	while (drv_cpu > 0 && !cpu_online(drv_cpu))
		drv_cpu--;
	run_on(drv_cpu);	/* not on the line's CPU: a line that never closes keeps it */
	t = drive_typed(start_late, drv_cpu, line, &before);
	if (!t)
		return;
	KEXPECT(line_arrived(line, before + 1));
	KEXPECT(arch_irq_masked(line));
	ticks = READ_ONCE(cpus[0].ticks);
	while (READ_ONCE(cpus[0].ticks) < ticks + 2)
		msleep(1);
	KASSERT(irq_get_stats(line, &st));
	if (st.count != before + 1 || !arch_irq_masked(line))
		ktest_info("%s line: %lu interrupts before the driver's acknowledgement, the "
			   "controller %s", st.level ? "a level" : "an edge", st.count - before,
			   arch_irq_masked(line) ? "holds the line back" : "lets it through");
	KEXPECT_EQ(st.count, before + 1);
	KEXPECT(arch_irq_masked(line));
	KEXPECT(signal_driver(t, GO_BIT));
	KEXPECT_EQ(end_of(t), EXIT_WOKE_ON + drv_cpu);
	if (st.level)
		KEXPECT(irq_get_stats(line, &st) && st.count >= before + 2);
	KEXPECT(wait_held(line, false));
	give_back();
	run_on(0);
}

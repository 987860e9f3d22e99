/*
 * The kernel monitor: a command prompt on the serial console, after the
 * demos, when a terminal is attached.  Like JOS's monitor it is a table
 * of commands and a line reader; the reader polls console_getc() and
 * sleeps a little between polls (the UART raises no interrupt here), so
 * the CPU it runs on keeps passing quiescent states while it waits.
 *
 * monitor_exec() runs one line and is what the tests call.
 */
#include <errno.h>
#include <stdlib.h>
#include "kernel.h"
#include "ktest.h"
#include "ktest_runner.h"
#include "demo.h"
#include "monitor.h"
#include "irq.h"
#include "user/user.h"
#include "user/task.h"
#include "object/cap.h"

#define POLL_MS		10

extern const struct ktest __ktest_start[], __ktest_end[];

struct command {
	const char *name;
	const char *args;
	const char *help;
	enum monitor_result (*fn)(int argc, char **argv);
};

static const struct command commands[];

static enum monitor_result usage(const char *name, const char *why);

static enum monitor_result cmd_help(int argc, char **argv);

static enum monitor_result cmd_cpus(int argc, char **argv)
{
	int cpu;

	(void)argc, (void)argv;
	printk("%d CPUs online, %d offline\n", num_online_cpus(), nr_cpu_ids - num_online_cpus());
	for_each_possible_cpu(cpu) {
		char comm[TASK_COMM_LEN];
		const char *state;
		int pid;

		if (!cpu_online(cpu)) {
			printk("CPU%d: offline (cpu on %d brings it back)\n", cpu, cpu);
			continue;
		}
		if (!sched_cpu_idle(cpu))
			state = "busy";
		else if (rcu_cpu_in_eqs(cpu))
			state = "idle (halted: call_rcu()'s grace periods count it "
				"quiescent; a synchronize_rcu() tour wakes it with an IPI)";
		else
			state = "idle";
		/*
		 * Another CPU's current task may exit and be freed as we read
		 * it: copy its name under that CPU's run-queue lock, which
		 * keeps it current (a trylock, as it is an interrupt's; the
		 * holder lets go soon).
		 */
		while (!sched_curr_copy(cpu, &pid, comm))
			cpu_relax();
		printk("CPU%d: running %s (pid %d), %llu switches, %d queued, %s; "
		       "%llu ticks, %llu IPIs\n", cpu, comm, pid,
		       (unsigned long long)sched_nr_switches(cpu), sched_nr_running(cpu), state,
		       (unsigned long long)cpus[cpu].ticks, (unsigned long long)cpus[cpu].ipis);
	}
	return MON_OK;
}

/* A CPU number from the monitor's line, or -1 after saying what is wrong. */
static long parse_cpu(const char *cmd, const char *arg)
{
	char *end;
	long cpu = strtol(arg, &end, 10);

	if (!*arg || *end || cpu < 0) {
		printk("%s: '%s' is not a CPU number\n", cmd, arg);
		return -1;
	}
	if (cpu >= nr_cpu_ids) {
		printk("%s: no CPU%s: this machine has CPUs 0 to %d\n", cmd, arg, nr_cpu_ids - 1);
		return -1;
	}
	return cpu;
}

/* cpu off N, cpu on N: remove_cpu()/add_cpu(), with what went wrong said plainly. */
static enum monitor_result cmd_cpu(int argc, char **argv)
{
	long cpu;
	int ret;

	if (argc != 3 || (strcmp(argv[1], "off") && strcmp(argv[1], "on")))
		return usage("cpu", "needs off N or on N, e.g. cpu off 1");
	cpu = parse_cpu("cpu", argv[2]);
	if (cpu < 0)
		return MON_ERROR;
	if (!strcmp(argv[1], "off")) {
		ret = remove_cpu(cpu);
		if (ret == -EPERM)
			printk("cpu: CPU%ld is the boot CPU: it cannot go offline\n", cpu);
		else if (ret == 1)
			printk("cpu: CPU%ld is already offline\n", cpu);
	} else {
		ret = add_cpu(cpu);
		if (ret == 1)
			printk("cpu: CPU%ld is already online\n", cpu);
		else if (ret == -EIO)
			printk("cpu: CPU%ld did not come up\n", cpu);
	}
	if (ret < 0 && ret != -EPERM && ret != -EIO)
		printk("cpu: %s %ld failed: error %d\n", argv[1], cpu, ret);
	return ret ? MON_ERROR : MON_OK;
}

static void show_task(struct task_struct *t, void *arg)
{
	static const char *const states[] = { "running", "blocked", "dead" };

	(void)arg;
	if (t->user)
		return;		/* a user thread: listed under its task */
	printk("  %4d  %-15s CPU%-2d %-8s %llu switches\n", t->pid, t->comm, t->cpu,
	       t->state <= TASK_DEAD ? states[t->state] : "?", (unsigned long long)t->switches);
}

static enum monitor_result cmd_ps(int argc, char **argv)
{
	int cpu;

	(void)argc, (void)argv;
	for_each_online_cpu(cpu)
		sched_show_cpu(cpu);
	printk("  kernel threads:\n  pid   task            cpu  state\n");
	for_each_task(show_task, NULL);
	user_show_tasks();
	return MON_OK;
}

static enum monitor_result cmd_caps(int argc, char **argv)
{
	struct user_task *t;
	char *end;
	long id;

	if (argc != 2)
		return usage("caps", "which task? caps TASK (its id, as ps lists it)");
	id = strtol(argv[1], &end, 10);
	if (*end || id <= 0 || (int)id != id)
		return usage("caps", "TASK is a task id (a number, as ps lists it)");
	t = user_task_find((int)id);
	if (!t)
		return usage("caps", "no user task with that id");
	printk("  task %d (%s):\n", t->id, t->name);
	if (t->cspace)
		cap_show_space(t->cspace);
	user_task_put(t);
	return MON_OK;
}

static enum monitor_result cmd_rcu(int argc, char **argv)
{
	struct rcu_stats s;
	char owe[8 * NR_CPUS] = "", mask[CPUMASK_FORMAT_LEN];
	size_t len = 0;
	int cpu;

	(void)argc, (void)argv;
	rcu_get_stats(&s);
	for_each_cpu(cpu, &s.qs_mask)
		demo_fmt(owe, sizeof(owe), &len, "%sCPU%d", len ? " " : "", cpu);
	/* gp_seq starts 300 grace periods below the wrap: read signed, -600 at boot. */
	printk("call_rcu() grace period %ld: %s (gp_seq %ld)\n", (long)s.gp_seq >> 1,
	       (s.gp_seq & 1) ? "in progress" : "none in progress", (long)s.gp_seq);
	/* Tours do not touch gp_seq: each updater visits the CPUs itself. */
	printk("synchronize_rcu() tours in progress: %lu (started %lu, completed %lu)\n",
	       s.tours_started - s.tours_completed, s.tours_started, s.tours_completed);
	cpumask_format(mask, sizeof(mask), &s.qs_mask);
	printk("CPUs that still owe it a quiescent state: %s (qs_mask %s)\n",
	       len ? owe : "none", mask);
	printk("callbacks queued: %ld, invoked: %llu\n", s.cbs_queued, s.cbs_invoked);
	printk("call_rcu() grace periods completed: %lu, stall reports: %lu\n",
	       s.gps_completed, s.stall_reports);
	return MON_OK;
}

static enum monitor_result cmd_demo(int argc, char **argv)
{
	const struct demo *d;

	if (argc < 2 || !strcmp(argv[1], "list")) {
		demo_list();
		return MON_OK;
	}
	if (!strcmp(argv[1], "all")) {
		int failed = demo_run_all();

		printk("%d demo%s failed\n", failed, failed == 1 ? "" : "s");
		return MON_OK;
	}
	d = demo_find(argv[1]);
	if (!d) {
		printk("demo: no demo named '%s' (demo list shows them)\n", argv[1]);
		return MON_ERROR;
	}
	demo_run(d);
	return MON_OK;
}

/* Runs the tests matching glob (kernel/ktest.c) and reports their verdicts. */
static enum monitor_result run_tests(const char *glob)
{
	int passed = 0, failed = ktest_run_glob(glob, &passed);

	if (failed < 0) {
		printk("test: no test matches '%s'\n", glob);
		return MON_ERROR;
	}
	printk("test: %d passed, %d failed\n", passed, failed);
	return MON_OK;
}

static enum monitor_result cmd_test(int argc, char **argv)
{
	if (argc != 2)
		return usage("test", "needs one GLOB, e.g. test 'rcu_*'");
	return run_tests(argv[1]);
}

static enum monitor_result cmd_torture(int argc, char **argv)
{
	char word[48], *end;
	long secs;
	bool found = false;

	if (argc != 2)
		return usage("torture", "needs a duration in seconds, e.g. torture 5");
	secs = strtol(argv[1], &end, 10);
	if (!*argv[1] || *end || secs < 1 || secs > 3600)
		return usage("torture", "SECONDS must be a number from 1 to 3600");
	for (const struct ktest *t = __ktest_start; t < __ktest_end; t++)
		found |= !strcmp(t->name, "rcutorture");
	if (!found) {
		printk("torture: this kernel has no rcutorture test (tests/rcutorture.c)\n");
		return MON_ERROR;
	}
	snprintf(word, sizeof(word), "rcutorture.duration=%ld", secs);
	if (cmdline_parse(word, true))
		return MON_ERROR;
	printk("torture: rcutorture for %ld s on %d CPUs\n", secs, num_online_cpus());
	return run_tests("rcutorture");
}

static enum monitor_result cmd_trace(int argc, char **argv)
{
	if (argc != 2)
		return usage("trace", "needs on, off, dump or clear");
	if (!strcmp(argv[1], "on")) {
		trace_start();
		printk("trace: recording (trace dump prints it)\n");
	} else if (!strcmp(argv[1], "off")) {
		trace_stop();
		printk("trace: stopped\n");
	} else if (!strcmp(argv[1], "dump")) {
		trace_dump();
	} else if (!strcmp(argv[1], "clear")) {
		trace_clear();
		printk("trace: cleared\n");
	} else {
		return usage("trace", "needs on, off, dump or clear");
	}
	return MON_OK;
}

static enum monitor_result cmd_backtrace(int argc, char **argv)
{
	int cpu, self = smp_processor_id();

	(void)argc, (void)argv;
	printk("CPU%d (the monitor, %s):\n", self, current->comm);
	dump_stack();
	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		if (!trigger_cpu_backtrace(cpu))
			printk("CPU%d: did not answer\n", cpu);
	}
	return MON_OK;
}

static enum monitor_result cmd_irqs(int argc, char **argv)
{
	(void)argc, (void)argv;
	irq_show();
	return MON_OK;
}

static enum monitor_result cmd_halt(int argc, char **argv)
{
	(void)argc, (void)argv;
	return MON_HALT;
}

static const struct command commands[] = {
	{ "help", "", "this list", cmd_help },
	{ "cpus", "", "each CPU: current task, switches, idle, busy or offline", cmd_cpus },
	{ "cpu", "off|on N", "take CPU N offline or bring it back", cmd_cpu },
	{ "ps", "", "each CPU's run queue and current task; every kernel thread; every user task and its threads", cmd_ps },
	{ "caps", "TASK", "a user task's capabilities: type, rights, badge, object, derived from", cmd_caps },
	{ "rcu", "", "call_rcu() grace period, synchronize_rcu() tours, callbacks", cmd_rcu },
	{ "demo", "[NAME|list|all]", "play a demo (no name: list them)", cmd_demo },
	{ "test", "GLOB", "run the in-kernel tests matching GLOB", cmd_test },
	{ "torture", "SECONDS", "run rcutorture for SECONDS", cmd_torture },
	{ "trace", "on|off|dump|clear", "the RCU event trace (docs/trace.md)", cmd_trace },
	{ "backtrace", "", "backtrace of the monitor and of every other CPU", cmd_backtrace },
	{ "irqs", "", "each device interrupt line: holder, CPU, arrivals, unclaimed", cmd_irqs },
	{ "halt", "", "end QEMU cleanly", cmd_halt },
};

static enum monitor_result cmd_help(int argc, char **argv)
{
	(void)argc, (void)argv;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		char left[40];

		snprintf(left, sizeof(left), "%s %s", commands[i].name, commands[i].args);
		printk("  %-28s %s\n", left, commands[i].help);
	}
	return MON_OK;
}

static enum monitor_result usage(const char *name, const char *why)
{
	printk("%s: %s\n", name, why);
	return MON_ERROR;
}

enum monitor_result monitor_exec(const char *line)
{
	char buf[MON_LINE], *argv[MON_ARGS + 1];
	int argc = monitor_parse(line, buf, argv);

	if (argc < 0)
		return MON_ERROR;
	if (!argc)
		return MON_EMPTY;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[0], commands[i].name))
			return commands[i].fn(argc, argv);
	printk("unknown command '%s' (type help)\n", argv[0]);
	return MON_ERROR;
}

/* Reads one line with echo (kernel/monitor_parse.c edits it). */
static void read_line(struct mon_line *l)
{
	mon_line_reset(l);
	for (;;) {
		int ch = console_getc();

		if (ch < 0)
			msleep(POLL_MS);
		else if (mon_line_feed(l, ch))
			return;
	}
}

void monitor_run(void)
{
	struct mon_line line;

	printk("\nQuiescent kernel monitor. Type 'help' for the commands, 'halt' to end.\n");
	for (;;) {
		printk("quiescent> ");
		read_line(&line);
		if (line.dropped) {
			printk("line too long (at most %d characters): nothing run\n", MON_LINE - 1);
			continue;
		}
		if (monitor_exec(line.buf) == MON_HALT) {
			printk("halting\n");
			arch_qemu_exit(QEMU_EXIT_PASS);
		}
	}
}

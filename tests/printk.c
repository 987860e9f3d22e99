/* printk formats with newlib's full vsnprintf: every length modifier works. */
#include "ktest.h"

static char out[256];

KTEST(printk_formats_with_newlib)
{
	int n;

	console_capture(out, sizeof(out));
	n = printk("# fmt: %lld %llu %zu %lx %p %s|%5d|%-3c|\n", -1234567890123LL,
		   18446744073709551615ULL, (size_t)4096, 0xdeadbeefUL,
		   (void *)0x1234, "str", 42, 'x');
	console_capture(NULL, 0);
	KEXPECT(!strcmp(out, "# fmt: -1234567890123 18446744073709551615 4096 deadbeef "
			     "0x1234 str|   42|x  |\n"));
	KEXPECT_EQ(n, (long long)strlen(out));
}

KTEST(printk_formats_floating_point)
{
	console_capture(out, sizeof(out));
	printk("# float: %.3f %e\n", 3.14159, 12345.678);
	console_capture(NULL, 0);
	KEXPECT(!strcmp(out, "# float: 3.142 1.234568e+04\n"));
}

KTEST(printk_cuts_overlong_messages_at_a_line_end)
{
	static char big[2000];

	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "# long: ", 8);
	console_capture(out, sizeof(out));
	printk("%s\n", big);
	console_capture(NULL, 0);
	KEXPECT_EQ(strlen(out), sizeof(out) - 1);	/* the capture holds the start */
	KEXPECT_EQ(out[8], 'a');
}

/*
 * An NMI that arrives while its CPU is inside printk (x86-64: a stall
 * report's backtrace request) must not corrupt the line being written,
 * nor wait for the console lock its own CPU holds.  A thread on the last
 * CPU prints long numbered lines while this CPU keeps asking it for its
 * backtrace; everything that CPU wrote to the console is captured, and
 * every line must come out whole: each numbered line exactly as printed,
 * in order, and each backtrace line starting where it should.
 *
 * Where NMIs exist, the window is forced by events, not by timing: the
 * printer goes on past NMI_LINES until printk has held back an NMI's
 * message (one arrived inside a line), and the requests go on until the
 * printer stops.  A host that pauses a vCPU cannot make the two miss each
 * other; only a printk that never holds an NMI back runs to the limit.
 */
#define NMI_LINES	40
#define NMI_LINES_MAX	100	/* 100 lines and 60 backtraces fit in nmi_capture */
#define NMI_REQUESTS	60
#define NMI_ROUNDS	10
#define NMI_PAYLOAD	"0123456789abcdefghijklmnopqrstuvwxyz"

static char nmi_capture[64 * 1024];
static bool nmi_printer_started, nmi_printer_done;
static int nmi_held_before, nmi_lines_printed;

/* True once printk has held back an NMI's message since the test began. */
static bool nmi_seen_inside_printk(void)
{
	return atomic_read(&printk_nmi_held) > nmi_held_before;
}

static int nmi_printer(void *arg)
{
	int i;

	(void)arg;
	console_capture(nmi_capture, sizeof(nmi_capture));
	WRITE_ONCE(nmi_printer_started, true);
	for (i = 0; i < NMI_LINES_MAX; i++) {
		if (i >= NMI_LINES && (!ARCH_HAS_NMI || nmi_seen_inside_printk()))
			break;
		printk("# nmi-printk %03d: %s%s%s%s%s%s%s%s|\n", i, NMI_PAYLOAD, NMI_PAYLOAD,
		       NMI_PAYLOAD, NMI_PAYLOAD, NMI_PAYLOAD, NMI_PAYLOAD, NMI_PAYLOAD,
		       NMI_PAYLOAD);
	}
	console_capture(NULL, 0);
	nmi_lines_printed = i;
	/* [nmi_done_release] pairs [nmi_done_acquire]: the count is written before the flag. */
	smp_store_release(&nmi_printer_done, true);
	return 0;
}

/* printk's "[N bytes of NMI output dropped]" line. */
static bool is_nmi_drop_note(const char *line, size_t len)
{
	static const char tail[] = " bytes of NMI output dropped]";
	size_t n = sizeof(tail) - 1;

	return len > n + 1 && line[0] == '[' && !strncmp(line + len - n, tail, n);
}

/* Checks one captured line; returns the next numbered line expected. */
static int check_captured_line(const char *line, size_t len, int next)
{
	char want[512];
	int n;

	if (len >= 12 && !strncmp(line, "# nmi-printk", 12)) {
		n = snprintf(want, sizeof(want), "# nmi-printk %03d: %s%s%s%s%s%s%s%s|", next,
			     NMI_PAYLOAD, NMI_PAYLOAD, NMI_PAYLOAD, NMI_PAYLOAD, NMI_PAYLOAD,
			     NMI_PAYLOAD, NMI_PAYLOAD, NMI_PAYLOAD);
		if ((size_t)n != len || strncmp(line, want, len))
			ktest_info("line %d is not whole: %.*s", next, (int)min(len, (size_t)200), line);
		KEXPECT((size_t)n == len && !strncmp(line, want, len));
		return next + 1;
	}
	/*
	 * Anything else here is the NMI's: a backtrace header or frame,
	 * whole, or the note printk writes when NMIs that arrived inside one
	 * line overflowed the buffer that holds them back (a vCPU the host
	 * paused mid-line can take many): a whole line too.
	 */
	if (strncmp(line, "NMI backtrace for cpu ", 22) && strncmp(line, "Call Trace:", 11) &&
	    strncmp(line, " [<", 3) && !is_nmi_drop_note(line, len)) {
		ktest_info("corrupt line: %.*s", (int)min(len, (size_t)200), line);
		KEXPECT(false);
	}
	return next;
}

/*
 * One round: the printer on `cpu` prints while we ask for its backtrace,
 * then every captured line is checked.
 */
static void nmi_round(int cpu)
{
	int requests = 0, next = 0;
	struct task_struct *t;

	WRITE_ONCE(nmi_printer_started, false);
	WRITE_ONCE(nmi_printer_done, false);
	t = kthread_run_on_cpu(nmi_printer, NULL, cpu, "nmi_printer");
	KEXPECT(t != NULL);
	if (!t)
		return;
	while (!READ_ONCE(nmi_printer_started))
		cond_resched();
	/*
	 * Ask until the printer stops; once one NMI was held back, no more
	 * are needed.  [nmi_done_acquire] pairs [nmi_done_release]: once the
	 * flag is seen, so is the printer's line count.
	 */
	while (!smp_load_acquire(&nmi_printer_done)) {
		if (requests < NMI_REQUESTS && !nmi_seen_inside_printk()) {
			KEXPECT(trigger_cpu_backtrace(cpu));
			requests++;
		}
		mdelay(1);	/* spread the requests over the lines */
	}
	kthread_stop(t);
	for (const char *p = nmi_capture, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		next = check_captured_line(p, nl - p, next);
	}
	KEXPECT_EQ(next, nmi_lines_printed);
	KEXPECT(next >= NMI_LINES);
	ktest_info("%d lines, %d backtrace requests, %d NMI messages held back inside printk",
		   next, requests, atomic_read(&printk_nmi_held) - nmi_held_before);
}

KTEST(printk_nmi_inside_printk_keeps_lines_whole)
{
	int cpu = num_online_cpus() - 1;

	if (cpu == 0)
		KTEST_SKIP("needs two CPUs");
	nmi_held_before = atomic_read(&printk_nmi_held);
	/*
	 * Under TCG an NMI can reach the printer's vCPU only after it has
	 * printed every line (QEMU's lock for device I/O, which each
	 * character takes, may keep the sender's APIC write waiting): then
	 * nothing was tested, and the round is played again, up to
	 * NMI_ROUNDS times.  Without NMIs (AArch64) one round checks the lines.
	 */
	for (int round = 0; round < (ARCH_HAS_NMI ? NMI_ROUNDS : 1); round++) {
		nmi_round(cpu);
		if (nmi_seen_inside_printk())
			break;
	}
	/* Not vacuous where NMIs exist: some arrived inside printk. */
	if (ARCH_HAS_NMI)
		KEXPECT(nmi_seen_inside_printk());
}

/*
 * An NMI that lands while its CPU holds the console lock in
 * console_capture() (a stall report's backtrace request while a test or a
 * demo captures the console) must not wait for that lock: it would wait
 * for the code it interrupted, forever.  Forced, not raced: with the lock
 * held, this CPU sends the NMI to itself and waits for its answer.  (A
 * console_capture() that did not tell the NMI hung here; before, a CPU
 * looping on console_capture() hung once in about 16 requests.)
 */
static char self_capture[8192];
static bool self_nmi_answered;
static int self_cpu;

static void backtrace_of_self(void)
{
	self_cpu = smp_processor_id();
	self_nmi_answered = trigger_cpu_backtrace(self_cpu);
}

KTEST(printk_nmi_while_console_capture_holds_the_lock)
{
	char want[48];

	if (!ARCH_HAS_NMI)
		KTEST_SKIP("no NMI: interrupts off keep the request out while the lock is held");
	self_nmi_answered = false;
	WRITE_ONCE(console_capture_hook, backtrace_of_self);
	console_capture(self_capture, sizeof(self_capture));
	WRITE_ONCE(console_capture_hook, NULL);
	console_capture(NULL, 0);
	KEXPECT(self_nmi_answered);
	snprintf(want, sizeof(want), "NMI backtrace for cpu %d", self_cpu);
	/* Held back while the lock was ours, then written into the new capture. */
	KEXPECT(strstr(self_capture, want) != NULL);
}

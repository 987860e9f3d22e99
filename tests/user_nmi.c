/*
 * NMIs land anywhere, also between a system call's `syscall` and the
 * swapgs that follows it, where CS is already the kernel's but GS still
 * the user's.  The NMI entry decides whether to swap by reading the GS
 * base itself (arch/x86_64/vectors.S; AArch64 has no such window): a
 * decision by CS would run the handler on the user's GS and crash.  Here
 * a program makes system calls in a loop on one CPU while this one sends
 * that CPU NMIs, 1500 of them; the program must end cleanly and the
 * kernel live on.  (Under TCG an NMI pending as `syscall` retires is
 * taken right at the entry's first instruction: the window.)
 */
#include "ktest.h"
#include "user/thread.h"

#define HELPER	"tests/user/helpers/nullcall 150000"	/* and the CPU it moves to */
#define NMIS	1500

KTEST(user_nmis_during_system_calls_find_their_way)
{
	struct sys_exit_status st;
	struct user_task *t;
	int err, cpu = -1, sent = 0;
	char cmd[64];

	if (!ARCH_HAS_NMI || num_online_cpus() < 2)
		KTEST_SKIP("needs NMIs and a second CPU");
	/* On another CPU than ours: we spin (udelay) while it runs. */
	snprintf(cmd, sizeof(cmd), HELPER " %d", cpu_next_online(smp_processor_id()) < nr_cpu_ids ?
		 cpu_next_online(smp_processor_id()) : cpumask_first(cpu_online_mask));
	t = user_spawn(cmd, NULL, &err);
	if (!t)
		KTEST_SKIP("no boot module tests/user/helpers/nullcall (no user programs)");
	while (!completion_done(&t->done) && sent < NMIS) {
		struct user_thread *ut;
		unsigned long flags;

		spin_lock_irqsave(&t->lock, flags);
		ut = list_first_entry_or_null(&t->threads, struct user_thread, node);
		cpu = ut && ut->kt && !ut->exited ? READ_ONCE(ut->kt->cpu) : -1;
		spin_unlock_irqrestore(&t->lock, flags);
		if (cpu >= 0 && cpu != smp_processor_id() && arch_send_nmi(cpu))
			sent++;
		udelay(50);
		cond_resched();	/* (while it is still on our CPU, moving away) */
	}
	KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(60, 2), &st), 0);
	ktest_info("%d NMIs sent to CPU%d while it made system calls", sent, cpu);
	KEXPECT(sent > 100);
	KEXPECT_EQ(st.killed, 0);
	KEXPECT_EQ(st.status, 0);
	user_task_put(t);
}

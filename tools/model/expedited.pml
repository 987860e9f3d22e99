/*
 * synchronize_rcu_expedited() (kernel/rcu/expedited.c): the caller asks
 * every CPU at once, reports the idle ones itself and sends the others an
 * IPI through on_each_cpu_mask() (kernel/smp.c); a CPU the IPI finds
 * running a task reports at its next context switch, or when it enters
 * idle.  Every interleaving of three CPUs, sequentially consistent (the
 * memory order is tools/model/armv8/expedited.wmm).
 *
 *   CPU0  the caller task: removes the element, synchronize_rcu_expedited(),
 *         kfree().  With FULL=1, a device interrupt whose handler reads.
 *   CPU1  busy: a reader task (two read-side critical sections, a
 *         cond_resched() after each), which then exits; the idle task.
 *         Interrupts: the IPI, a device interrupt whose handler reads.
 *   CPU2  idle; a device interrupt whose handler reads; the IPI.  It goes
 *         down once, and perhaps comes back (remove_cpu(2), add_cpu(2),
 *         holding cpu_hotplug_lock for writing); coming back, its idle
 *         task may read with interrupts on before its idle loop, as the
 *         boot CPU's does in kmain()'s set-up (cpu_starting_hook).
 *
 * Modelled as written: the caller's cpus_read_lock() (the writer waits for
 * the readers and the other way round), exp_mask and exp_remaining,
 * [exp_start_mb]'s snapshot of the idle flags (rcu_cpu_in_eqs()), the
 * caller's own report, on_each_cpu_mask() (its targets are the CPUs of the
 * mask still online; it waits until each took the call, and takes back
 * the call of a CPU that went offline, abandon_offline_targets()),
 * rcu_exp_handler() (reports if the interrupt came from the idle loop's
 * extended quiescent state, rcu_irq_from_idle(); else sets exp_noted), rcu_exp_note_qs() from rcu_note_context_switch() and from
 * rcu_idle_enter(), rcu_exp_report()'s test-and-clear and count, the idle
 * loop (rcu_idle_enter(), halt, rcu_idle_exit()), rcu_irq_enter()/exit()
 * leaving and re-entering idle around a handler, __schedule()'s window
 * between rcu_note_context_switch() and turning interrupts off (an IPI
 * there finds the task still current), and the way down: cpu_die() running
 * the call addressed to the CPU, then rcu_report_dead() (idle, offline).
 *
 * Left out: the asynchronous grace period's part of the same hooks
 * (async.pml), the polled API's wait number (barrier.pml), a second
 * expedited grace period (exp_mutex serialises them, and each ends only
 * after every CPU of its mask reported, which clears its note), the caller
 * blocking in wait_for_completion() (its CPU runs nothing of interest).
 *
 * Safety: when the caller frees the element, no reader that held it when
 * synchronize_rcu_expedited() began still holds it; no reader reads it
 * freed; no deadlock (the grace period, the hotplug operations and every
 * task end).
 *
 * @title synchronize_rcu_expedited(): idle and busy CPUs, IPIs, a CPU going down
 * @check safety
 * @cflags -DCOLLAPSE -DVECTORSZ=2048
 * @hashbits 20
 * @variant base: verify
 * @variant inject_no_wait -DINJECT_NO_WAIT: reject safety "rcu.inject=no_wait: synchronize_rcu_expedited() returns at once"
 * @variant ipi_reports_busy -DIPI_REPORTS_BUSY: reject safety "rcu.inject=exp_ipi_reports_busy: the IPI handler reports a CPU that runs a task, which may be inside rcu_read_lock()"
 * @variant idle_forgets_note -DIDLE_FORGETS_NOTE: reject safety "rcu_idle_enter() does not call rcu_exp_note_qs(): an IPI taken just before the switch to the idle task leaves a note nobody reads, and the grace period waits for ever"
 * @variant idle_task_reports -DIDLE_TASK_REPORTS: reject safety "rcu_exp_handler() reports whenever the idle task is current (the code before issue 44): the idle task of a CPU that has not reached its idle loop reads, and is reported"
 * @variant no_hotplug_lock -DNO_HOTPLUG_LOCK: reject safety "no cpus_read_lock(): a CPU of the mask goes offline before the IPI, on_each_cpu_mask() leaves it out, and it never reports"
 */

mtype = { caller, reader_1, swapper_1, swapper_2, irq_0, irq_1, irq_2, hotplug };

#define NCPU		3
#define C		0	/* the caller, CPU0 */
#define R		1	/* the reader task, CPU1 */
#define IDLE(c)		(1 + (c))	/* swapper/1: 2, swapper/2: 3 */
#define NOTASK		255
#define ALL		7
/* readers: a bit each in holding and pre */
#define RD_TASK		1
#define RD_IRQ(c)	(2 << (c))	/* 2, 4, 8 */
#define RD_ARRIVAL	16		/* CPU2's idle task, before its idle loop */

byte cur[NCPU];			/* rq->curr */
bit idle[NCPU];			/* rcu_data[cpu].idle */
bit irq_from_idle[NCPU];
bit online[NCPU];
bit dying[NCPU];
bit stopped[NCPU];
bit start_req[NCPU];
bit irq_on[NCPU];
bit in_irq[NCPU];
bit halted[NCPU];
bit ipi_resched[NCPU];
bit call_req[NCPU];		/* call_for_cpu[]: rcu_exp_handler() requested */
byte irq_left[NCPU];
/* cpu_hotplug_lock */
byte hp_readers = 0;
bit hp_writer = 0;
/* the expedited grace period */
byte exp_mask = 0;
byte exp_noted = 0;
byte exp_remaining = 0;
/* the element */
bit published = 1;
bit freed = 0;
byte holding = 0;
byte pre = 0;

#define RUNS(t, c)	(cur[c] == (t) && !in_irq[c])
#define CALLER		(!in_irq[0])

/* rcu_exp_report(cpu): once per CPU (its bit), the last one completes. */
inline rcu_exp_report(rc, rcpu)
{
#ifdef NO_TEST_AND_CLEAR
	exp_mask = exp_mask & ~(1 << rcpu);
	exp_remaining--;
	printf("@@ CPU%d %e rcu_exp_report(CPU%d): (bug) no test of its bit: exp_remaining = %d\n", rc, who, rcpu, exp_remaining)
#else
	if
	:: exp_mask & (1 << rcpu) ->
		exp_mask = exp_mask & ~(1 << rcpu);
		exp_remaining--;
		printf("@@ CPU%d %e rcu_exp_report(CPU%d): exp_remaining = %d\n", rc, who, rcpu, exp_remaining)
	:: else -> skip
	fi
#endif
}

/* rcu_exp_note_qs() on CPU nc: the note an IPI left, if any. */
inline rcu_exp_note_qs(nc)
{
	if
	:: exp_noted & (1 << nc) -> exp_noted = exp_noted & ~(1 << nc);
		printf("@@ CPU%d %e rcu_exp_note_qs(): the IPI left a note\n", nc, who);
		rcu_exp_report(nc, nc)
	:: else -> skip
	fi
}

/* rcu_idle_enter() on CPU ic, one step (the barriers are the ARMv8 model's). */
inline rcu_idle_enter(ic)
{
	idle[ic] = 1;
	printf("@@ CPU%d %e rcu_idle_enter(): idle = 1\n", ic, who);
#ifndef IDLE_FORGETS_NOTE
	rcu_exp_note_qs(ic)
#endif
}

/* rcu_exp_handler() on CPU hc: from the idle state (or under a variant's rule) it reports. */
#ifdef IPI_REPORTS_BUSY
#define EXP_QUIET(hc)	1
#elif defined(IDLE_TASK_REPORTS)
#define EXP_QUIET(hc)	(cur[hc] == IDLE(hc))
#else
#define EXP_QUIET(hc)	(in_irq[hc] && irq_from_idle[hc])	/* rcu_irq_from_idle() */
#endif
#define RCU_EXP_HANDLER(hc)								\
	if										\
	:: EXP_QUIET(hc) ->								\
		printf("@@ CPU%d %e rcu_exp_handler(): reports its CPU\n", hc, who);	\
		rcu_exp_report(hc, hc)							\
	:: else -> exp_noted = exp_noted | (1 << hc);					\
		printf("@@ CPU%d %e rcu_exp_handler(): not from idle: exp_noted\n", hc, who)	\
	fi

#define READ_SECTION(guard, rd, c)							\
	atomic { guard -> got = published;						\
		if									\
		:: got -> holding = holding | (rd);					\
			printf("@@ CPU%d %e rcu_read_lock(); rcu_dereference(): read list -> the element\n", c, who)	\
		:: else -> printf("@@ CPU%d %e rcu_read_lock(); rcu_dereference(): read list -> NULL\n", c, who)	\
		fi }									\
	atomic { guard ->								\
		if									\
		:: got && freed -> printf("@@ CPU%d %e reader: read the element: IT WAS FREED\n", c, who)	\
		:: got && !freed -> printf("@@ CPU%d %e reader: read the element; rcu_read_unlock()\n", c, who)	\
		:: else -> printf("@@ CPU%d %e rcu_read_unlock()\n", c, who)	\
		fi;									\
		assert(!(got && freed));						\
		holding = holding & ~(rd); pre = pre & ~(rd); got = 0 }

proctype caller_task()
{
	mtype who = caller;
	byte ipi, cpu;

	atomic { CALLER -> published = 0; printf("@@ CPU0 %e list_del_rcu(): remove the element\n", who) }
	atomic { CALLER -> pre = holding;
		printf("@@ CPU0 %e synchronize_rcu_expedited(): begins (readers holding the element: %d)\n", who, holding) }
#ifndef INJECT_NO_WAIT
#ifndef NO_HOTPLUG_LOCK
	atomic { CALLER && !hp_writer -> hp_readers++; printf("@@ CPU0 %e cpus_read_lock()\n", who) }
#endif
	atomic { CALLER -> exp_mask = (online[0] | online[1] << 1 | online[2] << 2);
		ipi = exp_mask;
		exp_remaining = online[0] + online[1] + online[2];
		printf("@@ CPU0 %e synchronize_rcu_expedited(): exp_mask = %d\n", who, exp_mask) }
	/* [exp_start_mb], then the idle flags: the caller reports itself and every idle CPU. */
	cpu = 0;
	do
	:: cpu < NCPU ->
		atomic { CALLER ->
			if
			:: (ipi & (1 << cpu)) && (cpu == 0 || idle[cpu]) ->
				printf("@@ CPU0 %e synchronize_rcu_expedited(): CPU%d is us or idle\n", who, cpu);
				rcu_exp_report(0, cpu);
				ipi = ipi & ~(1 << cpu)
			:: else -> skip
			fi;
			cpu++ }
	:: else -> break
	od;
	/* on_each_cpu_mask(&ipi, rcu_exp_handler, NULL, false) */
	atomic { CALLER -> ipi = ipi & (online[0] | online[1] << 1 | online[2] << 2);
		call_req[1] = (ipi >> 1) & 1;
		call_req[2] = (ipi >> 2) & 1;
		printf("@@ CPU0 %e on_each_cpu_mask(): IPI_CALL_FUNC to %d\n", who, ipi) }
	atomic { CALLER && (!call_req[1] || !online[1]) && (!call_req[2] || !online[2]) ->
		call_req[1] = 0; call_req[2] = 0;	/* abandon_offline_targets() */
		printf("@@ CPU0 %e on_each_cpu_mask(): every target took the call or went offline\n", who) }
	atomic { CALLER && exp_remaining == 0 -> printf("@@ CPU0 %e wait_for_completion(): done\n", who) }
#endif
	atomic { CALLER ->
		if
		:: pre -> printf("@@ CPU0 %e BUG: kfree() while a reader that held the element when synchronize_rcu_expedited() began still holds it (readers: %d)\n", who, pre)
		:: else -> printf("@@ CPU0 %e kfree(the element)\n", who)
		fi;
		assert(pre == 0);
		freed = 1 }
#if !defined(INJECT_NO_WAIT) && !defined(NO_HOTPLUG_LOCK)
	atomic { CALLER -> hp_readers--; printf("@@ CPU0 %e cpus_read_unlock()\n", who) }
#endif
}

/* The reader task on CPU1: two critical sections, each followed by a context switch's hook, then exit. */
proctype reader_task()
{
	mtype who = reader_1;
	bit got;

	READ_SECTION(RUNS(R, 1), RD_TASK, 1);
	atomic { RUNS(R, 1) -> printf("@@ CPU1 %e cond_resched(): rcu_note_context_switch()\n", who);
		rcu_exp_note_qs(1) }
	READ_SECTION(RUNS(R, 1), RD_TASK, 1);
	atomic { RUNS(R, 1) -> printf("@@ CPU1 %e exits: __schedule(): rcu_note_context_switch()\n", who);
		rcu_exp_note_qs(1) }
	/* an interrupt may come here: the task is still current */
	atomic { RUNS(R, 1) -> irq_on[1] = 0; cur[1] = IDLE(1);
		printf("@@ CPU1 %e __schedule(): interrupts off, switch to the idle task\n", who) }
}

/* The idle task of CPU c (1 or 2): cpu_idle_loop(); CPU2 also goes down and comes back. */
proctype idle_task(byte c; mtype who)
{
	bit got;

end_idle:
	do
	:: atomic { RUNS(IDLE(c), c) -> irq_on[c] = 0 };
		if
		:: atomic { dying[c] -> skip } -> goto going_down
		:: atomic { !dying[c] -> rcu_idle_enter(c) };
			atomic { irq_on[c] = 1; halted[c] = 1;	/* sti; hlt */
				printf("@@ CPU%d %e cpu_idle_loop(): halt\n", c, who) };
end_halt:
			atomic { !halted[c] && !in_irq[c] -> irq_on[c] = 0; idle[c] = 0;
				printf("@@ CPU%d %e rcu_idle_exit(): idle = 0\n", c, who) }
		fi
	od;
going_down:
	/* sched_cpu_dying(): nothing queued here; cpu_die(), interrupts off */
	if
	:: atomic { call_req[c] -> call_req[c] = 0;
		printf("@@ CPU%d %e cpu_die(): smp_handle_call_ipi()\n", c, who);
		RCU_EXP_HANDLER(c) }
	:: atomic { !call_req[c] -> skip }
	fi;
	atomic { idle[c] = 1; online[c] = 0;
		printf("@@ CPU%d %e rcu_report_dead(): idle = 1, clear the online bit\n", c, who) };
	atomic { stopped[c] = 1; cur[c] = NOTASK; ipi_resched[c] = 0;
		printf("@@ CPU%d %e arch_cpu_die(): stopped\n", c, who) };
end_stopped:
	atomic { start_req[c] -> stopped[c] = 0; cur[c] = IDLE(c); dying[c] = 0;
		printf("@@ CPU%d %e ap_main(): init_idle()\n", c, who) };
	atomic { idle[c] = 0; online[c] = 1;
		printf("@@ CPU%d %e rcu_cpu_starting(): idle = 0, set the online bit\n", c, who) };
	/* cpu_starting_hook: a reader, interrupts on, before the idle loop */
	if
	:: atomic { irq_on[c] = 1; printf("@@ CPU%d %e cpu_starting_hook(): interrupts on\n", c, who) };
		READ_SECTION(RUNS(IDLE(c), c), RD_ARRIVAL, c);
		atomic { RUNS(IDLE(c), c) -> irq_on[c] = 0 }
	:: skip
	fi;
	goto end_idle
}

/*
 * Interrupts on CPU c, when they are on: rcu_irq_enter() (leaving idle),
 * the handler, rcu_irq_exit() (entering idle again).
 */
proctype interrupts(byte c; mtype who)
{
	bit got, reader;

end_irq:
	do
	:: atomic { halted[c] && !in_irq[c] && ipi_resched[c] ->
		in_irq[c] = 1; halted[c] = 0; ipi_resched[c] = 0;
		printf("@@ CPU%d %e interrupt: IPI_RESCHEDULE\n", c, who) };
		atomic { in_irq[c] = 0 }
	:: atomic { irq_on[c] && !in_irq[c] && !stopped[c] && (irq_left[c] > 0 || call_req[c]) ->
		in_irq[c] = 1; halted[c] = 0;
		if
		:: irq_left[c] > 0 -> irq_left[c]--; reader = 1;
			printf("@@ CPU%d %e interrupt: a handler that reads the list\n", c, who)
		:: call_req[c] -> call_req[c] = 0; reader = 0;
			printf("@@ CPU%d %e interrupt: IPI_CALL_FUNC\n", c, who)
		fi;
		if
		:: idle[c] -> idle[c] = 0; irq_from_idle[c] = 1;
			printf("@@ CPU%d %e rcu_irq_enter(): leave idle: idle = 0\n", c, who)
		:: else -> skip
		fi }
		if
		:: reader -> READ_SECTION(in_irq[c], RD_IRQ(c), c)
		:: else ->
			atomic { RCU_EXP_HANDLER(c) }
		fi;
		atomic {
			if
			:: irq_from_idle[c] -> irq_from_idle[c] = 0;
				printf("@@ CPU%d %e rcu_irq_exit():\n", c, who);
				rcu_idle_enter(c)
			:: else -> skip
			fi;
			in_irq[c] = 0; reader = 0 }
	od
}

/* remove_cpu(2), then perhaps add_cpu(2): cpu_hotplug_lock held for writing. */
active proctype hotplug_ops()
{
	mtype who = hotplug;

	atomic { hp_readers == 0 && !hp_writer -> hp_writer = 1;
		dying[2] = 1; ipi_resched[2] = 1;
		printf("@@ CPU0 %e remove_cpu(2): cpus_write_lock(), sched_cpu_set_dying(2), kick_cpu(2)\n", who) };
	atomic { !online[2] && stopped[2] -> printf("@@ CPU0 %e remove_cpu(2): CPU2 is offline and stopped\n", who) };
	if
	:: skip
	:: atomic { start_req[2] = 1; printf("@@ CPU0 %e add_cpu(2): smp_start_cpu(2)\n", who) };
		atomic { online[2] -> start_req[2] = 0; printf("@@ CPU0 %e add_cpu(2): CPU2 is online\n", who) }
	fi;
	atomic { hp_writer = 0; printf("@@ CPU0 %e cpus_write_unlock()\n", who) }
}

init
{
	atomic {
		online[0] = 1; online[1] = 1; online[2] = 1;
		cur[0] = C; cur[1] = R; cur[2] = IDLE(2);
		irq_on[0] = 1; irq_on[1] = 1;
		irq_on[2] = 1;
		irq_left[1] = 1;
		irq_left[2] = 1;
#ifdef FULL
		irq_left[0] = 1;
		irq_on[0] = 1;
		run interrupts(0, irq_0);
#endif
		run caller_task();
		run reader_task();
		run idle_task(1, swapper_1);
		run idle_task(2, swapper_2);
		run interrupts(1, irq_1);
		run interrupts(2, irq_2)
	}
}

/*
 * synchronize_rcu() as the article writes it, `for_each_online_cpu(cpu)
 * run_on(cpu); run_on(home);` (kernel/rcu/sync.c), on the scheduler of
 * kernel/sched.c and kernel/run_on.c, with interrupts, the idle loop and
 * a CPU going down and coming back (kernel/hotplug.c,
 * kernel/sched_hotplug.c, rcu_report_dead() and rcu_cpu_starting() in
 * kernel/rcu/gp.c, ap_main() in kernel/smp.c).  Every interleaving of two
 * CPUs, sequentially consistent (the memory order of a hop and of the
 * tour's end is tools/model/armv8/migrate.wmm and tour_end.wmm).
 *
 *   CPU0  the updater task (or on CPU1: `home` is either): removes the
 *         element, synchronize_rcu(), kfree().  The idle task.  With
 *         FULL=1 also a reader task and an interrupt whose handler reads.
 *   CPU1  a reader task; the idle task; an interrupt whose handler is a
 *         reader; a cross-CPU call (on_each_cpu()) whose function is a
 *         reader, taken as an IPI or, going down, in cpu_die(); it goes
 *         down once (cpu_dying_hook holds a reader) and perhaps comes
 *         back (cpu_starting_hook holds a reader).
 *   remove_cpu(1), then perhaps add_cpu(1), from a task on a CPU that
 *         stays (it only waits, so it is a process of its own).
 *   Each reader task: two read-side critical sections, a cond_resched()
 *   after each (a context switch if a task waits for the CPU, or the CPU
 *   is going down), then it exits.
 *
 * Modelled as written: run_on() (its online check, migrate_to, the switch,
 * finish_task_switch() queueing the task on its target through
 * enqueue_on(), which sends it to fallback_cpu() when the target's run
 * queue is offline, and the -ENODEV when it ran elsewhere); __schedule()
 * moving prev off a dying CPU; pick_next() (any queued task: more orders
 * than FIFO); the idle loop with its checks with interrupts off and its
 * halt (sti;hlt), woken by an IPI (kick_cpu() from enqueue_locked() when
 * the target runs its idle task) or an interrupt; interrupts taken
 * whenever they are on, their handlers running to completion before the
 * interrupted code goes on; and the two halves of a CPU leaving, as
 * separate steps: the run queue (sched_cpu_dying() draining it with
 * interrupts off, then sched_cpu_offline() marking it offline and sending
 * on what was queued meanwhile) and RCU's (rcu_report_dead() clearing the
 * online bit), with the dying hook and the pending cross-CPU call before
 * them, interrupts off throughout (the fix of issue 26); and coming
 * back: init_idle() (the run queue usable again), rcu_cpu_starting() (the
 * online bit), the starting hook.  A switch and the enqueue_on() of the
 * task it switched away from are one step: finish_task_switch() runs with
 * interrupts off and touches only the target's run queue, under its lock.
 *
 * Left out: per-CPU threads (none here: they park, and a per-CPU thread's
 * synchronize_rcu() waits for an asynchronous grace period instead of
 * touring), the asynchronous grace period (async.pml; the tour uses none
 * of it), RCU's idle flags (the tour does not read them), more than one
 * down-up cycle, the timer tick.  An IPI_RESCHEDULE is taken only by a
 * halted CPU: elsewhere its handler does nothing the model can see.
 *
 * Safety: when the updater frees the element, no reader that held it when
 * synchronize_rcu() began (it found it before the removal) still holds it;
 * no reader dereferences a freed element; no task switches inside a
 * read-side critical section (the checking build's might_sleep_check());
 * and no deadlock: the tour, the hotplug operations and every task end.
 *
 * @title synchronize_rcu()'s tour with interrupts, idle, and a CPU going down and back up
 * @check safety
 * @cflags -DCOLLAPSE -DVECTORSZ=2048
 * @hashbits 20
 * @variant base: verify
 * @variant offline_window -DOFFLINE_WINDOW: reject safety "rcu.inject=offline_window: sched_cpu_dying() marks the run queue offline in its last pass, as before the fix of issue 26: a hop sent on from then on lets the tour end while the dying hook or the pending call still reads"
 * @variant old_offline_window -DOLD_OFFLINE_WINDOW: reject safety "the code before the fix of issue 26: the run queue offline in sched_cpu_dying(), then interrupts on until cpu_die(): an interrupt handler's reader too"
 * @variant old_window_irq_only -DOLD_OFFLINE_WINDOW -DNO_DYING_READERS: reject safety "the same with no reader in the dying hook and no cross-CPU call: the interrupt handler's reader alone is enough"
 * @variant offline_before_report -DOFFLINE_BEFORE_REPORT: reject safety "sched_cpu_offline() before the pending call, the hook and rcu_report_dead(): a hop sent on before the CPU's last readers ended"
 * @variant hop_left_on_dead_cpu -DHOP_LEFT_ON_DEAD_CPU: reject safety "sched_cpu_offline() marks the queue offline but does not send on what was queued meanwhile: the tour's hop stays on a dead CPU (a deadlock)"
 * @variant dying_redirects -DDYING_REDIRECTS: reject safety "rcu.inject=dying_redirects: enqueue_on() treats a dying CPU as gone: the hop leaves before the CPU's running task, which may be reading, has switched"
 * @variant dying_sends_queue_on -DDYING_SENDS_QUEUE_ON: reject safety "rcu.inject=dying_sends_queue_on: sched_cpu_set_dying() sends the queued tasks on at once: the tour's hop leaves before the running task switched"
 * @variant no_kick -DNO_KICK: reject safety "enqueue_locked() sends no IPI to a CPU running its idle task: the hop waits on a halted CPU for ever"
 * @variant reader_before_online -DREADER_BEFORE_ONLINE: reject safety "an arriving CPU runs a reader before rcu_cpu_starting() sets its online bit: a tour that finds it offline skips it"
 * @variant inject_no_wait -DINJECT_NO_WAIT: reject safety "rcu.inject=no_wait: synchronize_rcu() returns at once"
 * @variant tour_skips_cpu -DTOUR_SKIPS_CPU1: reject safety "the tour leaves CPU1 out"
 * @variant hop_returns_early -DHOP_RETURNS_EARLY: reject safety "run_on() returns once the task is queued on the target, before the target switched to it"
 * @variant reader_switches -DREADER_SWITCHES: reject safety "a reader calls cond_resched() inside rcu_read_lock(): the checking build reports it"
 * @variant reader_switches_production -DREADER_SWITCHES -DPRODUCTION: reject safety "the same reader in the production build (no check): the hop completes under the reader, which then reads freed memory"
 */

mtype = { updater, reader_0, reader_1, swapper_0, swapper_1, irq_0, irq_1, hotplug };

#define NCPU		2
#define NTASK		5
/* tasks */
#define U		0	/* the updater */
#define R0		1	/* reader task, CPU0 */
#define R1		2	/* reader task, CPU1 */
#define IDLE(c)		(3 + (c))
#define NOTASK		255
#define TB(t)		(1 << (t))
/* task states */
#define RUNNING		0
#define DEAD		2
/* readers: a bit each in holding and pre */
#define RD_TASK(t)	(1 << ((t) - 1))	/* R0: 1, R1: 2 */
#define RD_IRQ(c)	(4 << (c))		/* 4, 8 */
#define RD_CALL		16			/* the cross-CPU call's function on CPU1 */
#define RD_HOOK		32			/* cpu_dying_hook on CPU1 */
#define RD_START	64			/* cpu_starting_hook on CPU1 */

/* the scheduler */
byte cur[NCPU];			/* rq->curr; NOTASK once the CPU is stopped */
byte queued[NCPU];		/* rq->queue: a bit per task */
byte cpu_of[NTASK];		/* t->cpu */
byte state[NTASK];
byte nesting[NTASK];		/* t->rcu_read_lock_nesting (checking build) */
bit dying[NCPU];		/* rq->dying */
bit rq_offline[NCPU];		/* rq->offline */
/* the CPUs */
bit online[NCPU];		/* cpu_online_mask */
bit stopped[NCPU];		/* arch_cpu_die() done: the CPU executes nothing */
bit start_req[NCPU];		/* add_cpu(): smp_start_cpu() started it */
bit irq_on[NCPU];		/* interrupts enabled */
bit in_irq[NCPU];		/* a handler runs: the interrupted code waits */
bit halted[NCPU];		/* in the idle loop's halt */
bit ipi_resched[NCPU];		/* IPI_RESCHEDULE pending */
byte irq_left[NCPU];		/* device interrupts still to come */
byte call_req = 0;		/* call_for_cpu[1]: 0 none yet, 1 pending, 2 taken or abandoned */
/* the element and its readers */
bit published = 1;
bit freed = 0;
byte holding = 0;		/* readers inside a critical section that found the element */
byte pre = 0;			/* those when synchronize_rcu() began */

/* Task t's code runs: it is current on its CPU, and no handler interrupted it. */
#define RUNS(t)		(cur[cpu_of[t]] == (t) && !in_irq[cpu_of[t]])

/* fallback_cpu(from): the next CPU online and not going down (CPU0 always is). */
inline fallback_cpu(from, res)
{
	res = (from + 1) % NCPU;
	if
	:: !(online[res] && !dying[res]) -> res = (res + 1) % NCPU
	:: else -> skip
	fi
}

/*
 * enqueue_on(t, cpu), one step (its loop takes one run-queue lock at a
 * time, and each try is under that lock): a CPU whose queue is offline
 * sends t to fallback_cpu().  enqueue_locked() kicks a CPU that runs its
 * idle task, unless it is this one (`from`).
 */
inline enqueue_on(t, cpu, from)
{
	dst = cpu;
	do
#ifdef DYING_REDIRECTS
	:: rq_offline[dst] || dying[dst] ->	/* (bug) a dying CPU counts as gone */
#else
	:: rq_offline[dst] ->
#endif
		fallback_cpu(dst, dst);
	:: else -> break
	od;
	cpu_of[t] = dst;
	state[t] = RUNNING;
	queued[dst] = queued[dst] | TB(t);
#ifndef NO_KICK
	if
	:: cur[dst] == IDLE(dst) && dst != from -> ipi_resched[dst] = 1
	:: else -> skip
	fi;
#endif
	if
	:: dst != cpu -> printf("@@ CPU%d %e enqueue_on(CPU%d): its run queue is offline: to CPU%d\n", from, who, cpu, dst)
	:: else -> printf("@@ CPU%d %e enqueue_on(CPU%d)\n", from, who, dst)
	fi;
	dst = 0
}

inline print_next(c)
{
	if
	:: cur[c] == U -> printf("@@ CPU%d %e __schedule(): switch to the updater\n", c, who)
	:: cur[c] == IDLE(c) -> printf("@@ CPU%d %e __schedule(): switch to the idle task\n", c, who)
	:: cur[c] == R0 -> printf("@@ CPU%d %e __schedule(): switch to reader/0\n", c, who)
	:: cur[c] == R1 -> printf("@@ CPU%d %e __schedule(): switch to reader/1\n", c, who)
	fi
}

/* pick_next(): any queued task, else the idle task (a dying CPU runs only per-CPU threads: none here). */
inline pick_next(c)
{
	if
	:: !dying[c] && (queued[c] & TB(U)) -> cur[c] = U
	:: !dying[c] && (queued[c] & TB(R0)) -> cur[c] = R0
	:: !dying[c] && (queued[c] & TB(R1)) -> cur[c] = R1
	:: dying[c] || queued[c] == 0 -> cur[c] = IDLE(c)
	fi;
	queued[c] = queued[c] & ~TB(cur[c])
}

/*
 * __schedule() by task `me`, one step (interrupts off, the run-queue lock
 * held from the pick to finish_task_switch()): prev goes to the back of
 * the queue; or, migrating (run_on(), or off a dying CPU), is queued on
 * its target by finish_task_switch() -> enqueue_on().
 */
inline schedule_step(target)
{
	atomic { RUNS(me) ->
		sc = cpu_of[me];
		mig = target;
		if
		:: mig == sc && state[me] == RUNNING && me != IDLE(sc) && dying[sc] ->
			fallback_cpu(sc, mig)	/* this CPU is going down: prev moves */
		:: else -> skip
		fi;
		if
		:: mig != sc ->
			pick_next(sc);
			print_next(sc);
			enqueue_on(me, mig, sc)
		:: mig == sc && state[me] == RUNNING && me != IDLE(sc) ->
			queued[sc] = queued[sc] | TB(me);
			pick_next(sc);
			if
			:: cur[sc] != me -> print_next(sc)
			:: else -> skip
			fi
		:: mig == sc && (state[me] != RUNNING || me == IDLE(sc)) ->
			pick_next(sc);
			print_next(sc)
		fi;
		mig = 0; sc = 0 }
}

/* might_sleep_check(): the checking build's rule. */
inline might_sleep_check()
{
#ifndef PRODUCTION
	atomic { RUNS(me) ->
		if
		:: nesting[me] > 0 ->
			printf("@@ CPU%d %e might_sleep_check(): BUG: Illegal context switch in RCU read-side critical section\n",
			       cpu_of[me], who)
		:: else -> skip
		fi;
		assert(nesting[me] == 0) }
#else
	skip
#endif
}

/* cond_resched(): switch if a task waits for this CPU or it is going down. */
inline cond_resched()
{
	might_sleep_check();
	if
	:: atomic { RUNS(me) && (queued[cpu_of[me]] != 0 || dying[cpu_of[me]]) ->
		printf("@@ CPU%d %e cond_resched(): a task waits, or the CPU is going down\n", cpu_of[me], who) };
		schedule_step(cpu_of[me])
	:: atomic { RUNS(me) && queued[cpu_of[me]] == 0 && !dying[cpu_of[me]] -> skip }
	fi
}

/* run_on(cpu): returns once this task has run on cpu after a switch there, or -ENODEV. */
inline run_on(target)
{
	might_sleep_check();
	if
	:: atomic { RUNS(me) && !online[target] ->
		printf("@@ CPU%d %e run_on(%d): CPU%d is offline: -ENODEV\n", cpu_of[me], who, target, target) }
	:: atomic { RUNS(me) && online[target] ->
		printf("@@ CPU%d %e run_on(%d)\n", cpu_of[me], who, target) };
#ifdef HOP_RETURNS_EARLY
		atomic { RUNS(me) ->
			printf("@@ CPU%d %e run_on(%d): (bug) returns without waiting for CPU%d to switch\n",
			       cpu_of[me], who, target, target) }
#else
		schedule_step(target);
		atomic { RUNS(me) ->
			if
			:: cpu_of[me] == target ->
				printf("@@ CPU%d %e run_on(%d): running on CPU%d\n", cpu_of[me], who, target, target)
			:: else ->
				printf("@@ CPU%d %e run_on(%d): sent on to CPU%d: -ENODEV\n", cpu_of[me], who, target, cpu_of[me])
			fi }
#endif
	fi
}

proctype updater_task()
{
	byte me = U;
	mtype who = updater;
	byte sc, cpu, home, dst, mig;

	atomic { RUNS(me) -> published = 0; home = cpu_of[me];
		printf("@@ CPU%d %e list_del_rcu(): remove the element\n", cpu_of[me], who) }
	/* synchronize_rcu() */
	might_sleep_check();
	atomic { RUNS(me) -> pre = holding;
		printf("@@ CPU%d %e synchronize_rcu(): begins (readers holding the element: %d)\n", cpu_of[me], who, holding) }
#ifndef INJECT_NO_WAIT
	cpu = 0;
	do
	:: cpu < NCPU ->
		if
#ifdef TOUR_SKIPS_CPU1
		:: atomic { RUNS(me) && cpu == 1 -> skip }
#endif
		:: atomic { RUNS(me) && !online[cpu] ->
			printf("@@ CPU%d %e for_each_online_cpu(): CPU%d is offline\n", cpu_of[me], who, cpu) }
		:: atomic { RUNS(me) && online[cpu] -> skip };
			run_on(cpu)
		fi;
		cpu++
	:: else -> break
	od;
	run_on(home);
#else
	atomic { RUNS(me) -> printf("@@ CPU%d %e synchronize_rcu(): rcu.inject=no_wait: returns at once\n", cpu_of[me], who) }
#endif
	atomic { RUNS(me) ->
		if
		:: pre -> printf("@@ CPU%d %e BUG: kfree() while a reader that held the element when synchronize_rcu() began still holds it (readers: %d)\n",
				 cpu_of[me], who, pre)
		:: else -> printf("@@ CPU%d %e kfree(the element)\n", cpu_of[me], who)
		fi;
		assert(pre == 0);
		freed = 1 }
	atomic { RUNS(me) -> state[me] = DEAD }
	schedule_step(cpu_of[me])
}

/* A read-side critical section; `guard` says when its code runs (a task: RUNS(me); a handler: its CPU's in_irq). */
#define READ_SECTION(guard, rd, c, switch_inside)					\
	atomic { guard -> got = published;						\
		if									\
		:: got -> holding = holding | (rd)					\
		:: else -> skip								\
		fi;									\
		if									\
		:: got -> printf("@@ CPU%d %e rcu_read_lock(); rcu_dereference(): read list -> the element\n", c, who)	\
		:: else -> printf("@@ CPU%d %e rcu_read_lock(); rcu_dereference(): read list -> NULL\n", c, who)	\
		fi }									\
	switch_inside;									\
	atomic { guard ->								\
		if									\
		:: got && freed -> printf("@@ CPU%d %e reader: read the element: IT WAS FREED\n", c, who)	\
		:: got && !freed -> printf("@@ CPU%d %e reader: read the element; rcu_read_unlock()\n", c, who)	\
		:: else -> printf("@@ CPU%d %e rcu_read_unlock()\n", c, who)	\
		fi;									\
		assert(!(got && freed));						\
		holding = holding & ~(rd); pre = pre & ~(rd); got = 0 }

inline task_read_section(k)
{
	atomic { RUNS(me) -> nesting[me]++ }
#ifdef READER_SWITCHES
	READ_SECTION(RUNS(me), RD_TASK(me), cpu_of[me],
		if
		:: k == 0 && me == R1 -> cond_resched()	/* reader/1's first section: the bug */
		:: else -> skip
		fi);
#else
	READ_SECTION(RUNS(me), RD_TASK(me), cpu_of[me], skip);
#endif
	atomic { RUNS(me) -> nesting[me]-- }
}

proctype reader_task(byte me; mtype who)
{
	byte sc, dst, mig;
	bit got;

	task_read_section(0);
	cond_resched();
	task_read_section(1);
	cond_resched();
	atomic { RUNS(me) -> state[me] = DEAD;
		printf("@@ CPU%d %e exits\n", cpu_of[me], who) }
	schedule_step(cpu_of[me])
}

/*
 * Interrupts on CPU c: taken when they are on and one is pending, the
 * handler running to completion while the interrupted code waits.  A
 * device interrupt whose handler reads; IPI_RESCHEDULE (nothing to do: the
 * idle loop looks again); on CPU1 the cross-CPU call, whose function reads.
 */
proctype interrupts(byte c; mtype who)
{
	bit got;

end_irq:
	do
	:: atomic { halted[c] && !in_irq[c] && ipi_resched[c] ->
		in_irq[c] = 1; halted[c] = 0; ipi_resched[c] = 0;
		printf("@@ CPU%d %e interrupt: IPI_RESCHEDULE\n", c, who) };
		atomic { in_irq[c] = 0 }
	:: atomic { irq_on[c] && !in_irq[c] && !stopped[c] && irq_left[c] > 0 ->
		in_irq[c] = 1; halted[c] = 0; irq_left[c]--;
		printf("@@ CPU%d %e interrupt: a handler that reads the list\n", c, who) };
		READ_SECTION(in_irq[c], RD_IRQ(c), c, skip);
		atomic { in_irq[c] = 0 }
	:: atomic { irq_on[c] && !in_irq[c] && !stopped[c] && c == 1 && call_req == 1 ->
		in_irq[c] = 1; halted[c] = 0; call_req = 2;
		printf("@@ CPU%d %e interrupt: IPI_CALL_FUNC: smp_handle_call_ipi() runs the call\n", c, who) };
		READ_SECTION(in_irq[c], RD_CALL, c, skip);
		atomic { in_irq[c] = 0 }
	od
}

/* A cross-CPU call to CPU1 (on_each_cpu() elsewhere): addressed while it is online. */
active proctype call_sender()
{
end_send:
#ifndef NO_DYING_READERS
	atomic { online[1] && call_req == 0 -> call_req = 1;
		printf("@@ CPU0 on_each_cpu(): a call for CPU1 (IPI_CALL_FUNC)\n") }
#else
	skip
#endif
}

/* A reader on the CPU's own idle task, outside every task: the hooks. */
#define IDLE_READER(rd)	READ_SECTION(cur[c] == me && !in_irq[c], rd, c, skip)

/* Moves every task queued on c (none is per-CPU) to a list of our own; rq lock held. */
inline drain_queue(c)
{
	leaving = queued[c];
	queued[c] = 0
}

/* Sends on the tasks drained: enqueue_on(t, fallback_cpu()), one at a time. */
inline send_on(c)
{
	do
	:: atomic { cur[c] == me && !in_irq[c] && (leaving & TB(U)) -> leaving = leaving & ~TB(U);
		fallback_cpu(c, fb); enqueue_on(U, fb, c) }
	:: atomic { cur[c] == me && !in_irq[c] && (leaving & TB(R0)) -> leaving = leaving & ~TB(R0);
		fallback_cpu(c, fb); enqueue_on(R0, fb, c) }
	:: atomic { cur[c] == me && !in_irq[c] && (leaving & TB(R1)) -> leaving = leaving & ~TB(R1);
		fallback_cpu(c, fb); enqueue_on(R1, fb, c) }
	:: atomic { leaving == 0 -> fb = 0; break }
	od
}

/* sched_cpu_offline() (the fix): the run queue offline, what was queued meanwhile sent on. */
inline sched_cpu_offline(c)
{
	atomic { cur[c] == me && !in_irq[c] -> rq_offline[c] = 1;
#ifndef HOP_LEFT_ON_DEAD_CPU
		drain_queue(c);
#endif
		printf("@@ CPU%d %e sched_cpu_offline(): rq->offline = 1, send on what was queued (%d)\n", c, who, leaving) };
	send_on(c)
}

/*
 * The idle task of CPU c: cpu_idle_loop(), and on CPU1 the way down
 * (sched_cpu_dying(), cpu_die()) and back up (ap_main()).
 */
proctype idle_task(byte c; byte me; mtype who)
{
	byte sc, dst, mig, fb, leaving;
	bit got;

end_idle:
	do
	:: atomic { cur[c] == me && !in_irq[c] -> irq_on[c] = 0 };	/* local_irq_disable() */
		if
		:: atomic { dying[c] -> skip } ->
			goto going_down
		:: atomic { !dying[c] && queued[c] != 0 -> irq_on[c] = 1 };
			schedule_step(c)
		:: atomic { !dying[c] && queued[c] == 0 ->
			/* (rcu_idle_enter(), the check again: nothing queued meanwhile by this CPU) */
			irq_on[c] = 1; halted[c] = 1;	/* sti; hlt */
			printf("@@ CPU%d %e cpu_idle_loop(): halt\n", c, who) };
end_halt:
			atomic { !halted[c] && !in_irq[c] -> skip }
		fi
	od;
going_down:
	/*
	 * cpu_idle_loop() turns interrupts on and calls sched_cpu_dying(),
	 * which turns them off for its pass: every queued task (none is
	 * per-CPU) to another CPU.  Since the fix it returns with them off,
	 * for good, and leaves the run queue online.
	 */
	atomic { irq_on[c] = 1 };
	atomic { cur[c] == me && !in_irq[c] -> irq_on[c] = 0; drain_queue(c);
#if defined(OFFLINE_WINDOW) || defined(OLD_OFFLINE_WINDOW)
		rq_offline[c] = 1;
		printf("@@ CPU%d %e sched_cpu_dying(): send on what is queued (%d), (offline window) rq->offline = 1\n", c, who, leaving) };
#else
		printf("@@ CPU%d %e sched_cpu_dying(): send on what is queued (%d); the run queue stays online\n", c, who, leaving) };
#endif
	send_on(c);
#ifdef OLD_OFFLINE_WINDOW
	atomic { irq_on[c] = 1; printf("@@ CPU%d %e sched_cpu_dying(): (before the fix) interrupts on\n", c, who) };
	atomic { cur[c] == me && !in_irq[c] -> irq_on[c] = 0;
		printf("@@ CPU%d %e cpu_die(): local_irq_disable()\n", c, who) };
#endif
#ifdef OFFLINE_BEFORE_REPORT
	sched_cpu_offline(c);
#endif
	/* cpu_die(), interrupts off: the hook, the pending call, rcu_report_dead(), sched_cpu_offline(). */
	atomic { cur[c] == me -> printf("@@ CPU%d %e cpu_die(): cpu_dying_hook\n", c, who) };
#ifndef NO_DYING_READERS
	IDLE_READER(RD_HOOK);
#endif
	if
	:: atomic { call_req == 1 -> call_req = 2;
		printf("@@ CPU%d %e cpu_die(): smp_handle_call_ipi(): the call addressed to us\n", c, who) };
		IDLE_READER(RD_CALL)
	:: atomic { call_req != 1 -> skip }
	fi;
	atomic { cur[c] == me -> online[c] = 0;
		printf("@@ CPU%d %e rcu_report_dead(): clear the online bit\n", c, who) };
#if !defined(OFFLINE_WINDOW) && !defined(OLD_OFFLINE_WINDOW) && !defined(OFFLINE_BEFORE_REPORT)
	sched_cpu_offline(c);
#endif
	atomic { cur[c] == me -> stopped[c] = 1; cur[c] = NOTASK; ipi_resched[c] = 0;
		if	/* a call addressed after cpu_die() looked: the sender takes it back */
		:: call_req == 1 -> call_req = 2
		:: else -> skip
		fi;
		printf("@@ CPU%d %e arch_cpu_die(): stopped\n", c, who) };
	/* add_cpu(): ap_main() on the CPU started again. */
end_stopped:
	atomic { start_req[c] -> stopped[c] = 0;
		cur[c] = me; dying[c] = 0; rq_offline[c] = 0;
		printf("@@ CPU%d %e ap_main(): init_idle(): the run queue is usable again\n", c, who) };
#ifdef READER_BEFORE_ONLINE
	atomic { cur[c] == me -> printf("@@ CPU%d %e ap_main(): (bug) cpu_starting_hook before rcu_cpu_starting()\n", c, who) };
	IDLE_READER(RD_START);
	atomic { cur[c] == me -> online[c] = 1;
		printf("@@ CPU%d %e rcu_cpu_starting(): set the online bit\n", c, who) };
#else
	atomic { cur[c] == me -> online[c] = 1;
		printf("@@ CPU%d %e rcu_cpu_starting(): set the online bit\n", c, who) };
	atomic { cur[c] == me -> printf("@@ CPU%d %e ap_main(): cpu_starting_hook\n", c, who) };
	IDLE_READER(RD_START);
#endif
	goto end_idle
}

/* remove_cpu(1), then perhaps add_cpu(1), from a task on CPU0 that only waits. */
active proctype hotplug_ops()
{
	mtype who = hotplug;

#ifdef DYING_SENDS_QUEUE_ON
	/* (bug) the queued tasks leave before CPU1's current task switched */
	atomic { dying[1] = 1; ipi_resched[1] = 1;
		printf("@@ CPU0 %e remove_cpu(1): sched_cpu_set_dying(1): (bug) sends on what is queued (%d)\n", who, queued[1]);
		if
		:: queued[1] & TB(U) -> queued[1] = queued[1] & ~TB(U); queued[0] = queued[0] | TB(U); cpu_of[U] = 0;
			if
			:: cur[0] == IDLE(0) -> ipi_resched[0] = 1
			:: else -> skip
			fi
		:: else -> skip
		fi };
#else
	atomic { dying[1] = 1; ipi_resched[1] = 1;
		printf("@@ CPU0 %e remove_cpu(1): sched_cpu_set_dying(1), kick_cpu(1)\n", who) };
#endif
	atomic { !online[1] -> printf("@@ CPU0 %e remove_cpu(1): CPU1 is offline\n", who) };
	atomic { stopped[1] -> printf("@@ CPU0 %e remove_cpu(1): arch_cpu_is_dead(1)\n", who) };
	if
	:: skip		/* it stays down */
	:: atomic { start_req[1] = 1; printf("@@ CPU0 %e add_cpu(1): smp_start_cpu(1)\n", who) };
		atomic { online[1] -> start_req[1] = 0; printf("@@ CPU0 %e add_cpu(1): CPU1 is online\n", who) }
	fi
}

init
{
	atomic {
		online[0] = 1; online[1] = 1;
#ifdef FULL
		irq_left[0] = 1;
#endif
		irq_left[1] = 1;
		cpu_of[R0] = 0; cpu_of[R1] = 1;
		cpu_of[IDLE(0)] = 0; cpu_of[IDLE(1)] = 1;
		cur[1] = R1;
		/* the updater starts on CPU0 or on CPU1 (the CPU that goes down) */
		if
#ifdef FULL
		:: cpu_of[U] = 0; cur[0] = U; queued[0] = TB(R0)
		:: cpu_of[U] = 1; cur[0] = R0; queued[1] = TB(U)
#else
		:: cpu_of[U] = 0; cur[0] = U
		:: cpu_of[U] = 1; cur[0] = IDLE(0); queued[1] = TB(U)
#endif
		fi;
		irq_on[0] = 1; irq_on[1] = 1;
		run updater_task();
#ifdef FULL
		run reader_task(R0, reader_0);
#endif
		run reader_task(R1, reader_1);
		run idle_task(0, IDLE(0), swapper_0);
		run idle_task(1, IDLE(1), swapper_1);
		run interrupts(0, irq_0);
		run interrupts(1, irq_1)
	}
}

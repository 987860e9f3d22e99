/*
 * The asynchronous grace periods of kernel/rcu/gp.c and the callbacks of
 * kernel/rcu/callbacks.c, every interleaving of
 * two CPUs (sequentially consistent: the ARMv8 side is tools/model/armv8/).
 *
 *   CPU0  the updater task: removes element 0, call_rcu()s it, removes
 *         element 1, call_rcu()s it, exits.  rcuc/0 invokes the callbacks.
 *         The idle task, and an interrupt taken while idle.
 *   CPU1  a reader task: two read-side critical sections, each on element
 *         0 or 1, a context switch (cond_resched()) after each, then exits.
 *         The idle task, and an interrupt taken while idle whose handler
 *         is a reader too (rcu_irq_enter() leaves idle first).
 *
 * Modelled as written: the grace-period number and its low state bit
 * (rcu_seq_snap, rcu_seq_done), the quiescent-state mask, gp_needed,
 * rcu_state.lock, rcu_gp_start()'s scan of the idle flags, note_qs(),
 * rcu_idle_enter()/exit(), rcu_irq_enter()/exit() and irq_from_idle,
 * call_rcu()'s snapshot, its done/wait/next segments and its one request per
 * grace period (gp_requested), advance_callbacks(),
 * wake_cb_thread() and cb_work, rcuc/N's loop, wake_up_process(), the
 * non-preemptive scheduler (a context switch reports a quiescent state),
 * the idle loop with its re-check before halting, and IPIs to halted CPUs.
 * Left out (docs/model.md): the timer tick (liveness must not need it), the
 * stall detector, rcu_barrier() and the polled API, rcuc/1 (CPU1 never
 * queues callbacks), more than two callbacks, interrupts taken while a task
 * runs (such a handler is inside the task's non-switching stretch anyway).
 *
 * Safety (-DSAFETY): a callback never runs while a reader that began
 * before its call_rcu() is still inside; no reader dereferences a freed
 * element; call_rcu()'s "three grace periods pending" never fires.
 * Liveness (weak fairness): every queued callback eventually runs
 * (cbs_run); rcuc/0 never stays asleep while callbacks are ready (rcuc_wakes).
 *
 * @title the asynchronous machinery: gp_seq, qs_mask, idle and interrupts, call_rcu segments, rcuc
 * @check safety
 * @check ltl cbs_run
 * @check ltl rcuc_wakes
 * @cflags -DCOLLAPSE -DVECTORSZ=2048
 * @hashbits 18
 * @variant base: verify
 * @variant inject_no_wait -DINJECT_NO_WAIT: reject safety "rcu.inject=no_wait: call_rcu() invokes the callback at once"
 * @variant snap_off_by_one -DSNAP_OFF_BY_ONE: reject safety "rcu_seq_snap() as (s + 2) & ~1: a callback queued during a grace period waits only for that one, which may have started before the removal"
 * @variant mask_misses_cpu -DMASK_MISSES_CPU1: reject safety "rcu_gp_start() leaves CPU1 out of qs_mask: grace periods do not wait for its readers"
 * @variant irq_stays_idle -DIRQ_STAYS_IDLE: reject safety "rcu_irq_enter() does not leave idle: a grace period that starts during the handler skips the CPU"
 * @variant wait_gp_not_updated -DWAIT_GP_NOT_UPDATED: reject safety "advance_callbacks() moves next up to wait but leaves wait.gp as it was"
 * @variant done_one_early -DDONE_ONE_EARLY: reject safety "rcu_seq_done() true one step early: a callback runs when its grace period starts"
 * @variant idle_not_counted -DIDLE_NOT_COUNTED: reject ltl cbs_run "rcu_gp_start() ignores the idle flags: a grace period waits for a CPU that sleeps"
 * @variant no_gp_request -DNO_GP_REQUEST: reject ltl cbs_run "call_rcu() never asks for a grace period"
 * @variant request_only_once -DREQUEST_ONLY_ONCE: reject ltl cbs_run "call_rcu() skips the request whenever this CPU asked for any grace period before, not for the one its callback waits for: the second callback waits for a grace period nobody asked for"
 * @variant gp_needed_lost -DGP_NEEDED_LOST: reject ltl cbs_run "rcu_gp_end() forgets gp_needed: a callback queued during a grace period waits for one that never starts"
 * @variant lost_wakeup -DLOST_WAKEUP: reject ltl rcuc_wakes "rcuc/N reads cb_work before it marks itself TASK_BLOCKED: a wake-up between the two is lost"
 * @variant idle_halt_no_recheck -DIDLE_HALT_NO_RECHECK: reject ltl rcuc_wakes "the idle loop halts without re-checking its queue after rcu_idle_enter(), which may have woken rcuc/N on this CPU (no IPI to itself)"
 */

mtype = { updater, rcuc_0, reader, idle_0, idle_1 };

#define NCPU		2
/* tasks */
#define U		0	/* the updater, CPU0 */
#define RCUC		1	/* rcuc/0 */
#define R		2	/* the reader task, CPU1 */
#define IDLE0		3
#define IDLE1		4
#define TB(t)		(1 << (t))
/* task states */
#define RUNNING		0
#define BLOCKED		1
#define DEAD		2
/* where a callback is: not yet queued, a segment of CPU0, being invoked, done */
#define NONE		0
#define NEXT		1
#define WAIT		2
#define DONE		3
#define BATCH		4
#define INVOKED		5
/* readers: bit in in_cs / pre[] */
#define RD_TASK		1	/* the reader task on CPU1 */
#define RD_IRQ1		2	/* an interrupt handler on CPU1 */
#define RD_IRQ0		4	/* an interrupt handler on CPU0 */
#define FREE		255

/* rcu_state */
byte gp_seq = 0;
byte qs_mask = 0;
bit gp_needed = 0;
byte rcu_lock = FREE;		/* rcu_state.lock: the CPU holding it */
/* rcu_data[cpu] */
bit idle[NCPU];
bit cb_work = 0;		/* rcu_data[0].cb_work */
byte ncbs = 0;			/* rcu_data[0].ncbs */
byte wait_gp = 0, next_gp = 0;	/* rcu_data[0].wait.gp, .next.gp */
byte gp_requested = 0;		/* rcu_data[0].gp_requested: the last grace period call_rcu() asked for */
byte cbseg[2];			/* where callback k (for element k) is */
/* the scheduler */
byte cur[NCPU];			/* task running on each CPU */
byte queued[NCPU];		/* run queue: a bit per task */
byte state[5];
bit ipi[NCPU];			/* IPI_RESCHEDULE pending */
byte irq_left[NCPU];		/* interrupts still to come while idle */
/* the elements and their readers */
bit published[2];
bit freed[2];
byte in_cs = 0;			/* readers inside a read-side critical section */
byte pre[2];			/* readers that were inside when call_rcu(element k) ran */

#define RUN(t, c)	(cur[c] == (t))
#define SEG_EMPTY(s)	(cbseg[0] != (s) && cbseg[1] != (s))
#ifdef DONE_ONE_EARLY
#define SEQ_DONE(cur, target)	((cur) + 1 >= (target))
#else
#define SEQ_DONE(cur, target)	((cur) >= (target))
#endif
#ifdef SNAP_OFF_BY_ONE
#define SEQ_SNAP(s)	(((s) + 2) & 254)
#else
#define SEQ_SNAP(s)	(((s) + 3) & 254)
#endif
#ifdef MASK_MISSES_CPU1
#define ALL_CPUS	1
#else
#define ALL_CPUS	3
#endif

/* For the liveness claims. */
#define all_invoked	(cbseg[0] == INVOKED && cbseg[1] == INVOKED)
#define ready(k)	(cbseg[k] == DONE || (cbseg[k] == WAIT && gp_seq >= wait_gp) || \
			 (cbseg[k] == NEXT && gp_seq >= next_gp))
#define rcuc_stuck	((ready(0) || ready(1)) && cur[0] != RCUC)
ltl cbs_run { <> all_invoked }
ltl rcuc_wakes { [] (rcuc_stuck -> <> !rcuc_stuck) }

inline splice(dst, src)
{
	if
	:: cbseg[0] == src -> cbseg[0] = dst
	:: else -> skip
	fi;
	if
	:: cbseg[1] == src -> cbseg[1] = dst
	:: else -> skip
	fi
}

/* advance_callbacks(): CPU0 only, interrupts off; one step (it reads gp_seq once). */
inline advance_callbacks()
{
	g = gp_seq;
	i = 0;
	do
	:: i < 2 ->
		if
		:: !SEG_EMPTY(WAIT) && SEQ_DONE(g, wait_gp) -> splice(DONE, WAIT)
		:: else -> skip
		fi;
		if
		:: !SEG_EMPTY(NEXT) && (SEG_EMPTY(WAIT) || wait_gp == next_gp) ->
#ifndef WAIT_GP_NOT_UPDATED
			wait_gp = next_gp;
#endif
			splice(WAIT, NEXT)
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
	i = 0
}

/* The wake-up: rcu_data[0].cb_work, then wake_up_process(rcuc/0), from CPU c. */
inline wake_cb_thread(c)
{
	atomic { RUN(me, c) -> cb_work = 1;
		printf("@@ CPU%d %e wake_cb_thread(0): write cb_work = 1\n", c, who) }
	atomic { RUN(me, c) ->
		if
		:: state[RCUC] == BLOCKED && cur[0] == RCUC ->
			state[RCUC] = RUNNING;
			printf("@@ CPU%d %e wake_up_process(rcuc/0): it has not switched out yet: state = RUNNING\n", c, who)
		:: state[RCUC] == BLOCKED && cur[0] != RCUC ->
			state[RCUC] = RUNNING;
			queued[0] = queued[0] | TB(RCUC);
			if
			:: c != 0 && cur[0] == IDLE0 -> ipi[0] = 1;
				printf("@@ CPU%d %e wake_up_process(rcuc/0): queue it on CPU0, send CPU0 an IPI\n", c, who)
			:: else ->
				printf("@@ CPU%d %e wake_up_process(rcuc/0): queue it on CPU0 (no IPI: CPU0 is not halted, or it is this CPU)\n", c, who)
			fi
		:: else ->
			printf("@@ CPU%d %e wake_up_process(rcuc/0): it is not blocked: nothing to do\n", c, who)
		fi }
}

inline wake_cb_threads(c)
{
	if
	:: atomic { RUN(me, c) && ncbs > 0 ->
		printf("@@ CPU%d %e wake_cb_threads(): read rcu_data[0].ncbs = %d\n", c, who, ncbs) };
		wake_cb_thread(c)
	:: atomic { RUN(me, c) && ncbs == 0 -> skip }
	fi
}

/*
 * report_qs_locked(cpu, gp) with rcu_state.lock held, inside one step of
 * the caller; sets `ended` and `scan` (a new grace period started and its
 * idle scan is to run: rcu_gp_end() -> rcu_gp_start()).
 */
inline report_qs_locked(rc, rcpu, rgp)
{
	if
	:: gp_seq == rgp && (qs_mask & (1 << rcpu)) ->
		qs_mask = qs_mask & ~(1 << rcpu);
		printf("@@ CPU%d %e report_qs_locked(CPU%d): write qs_mask = %d\n", rc, who, rcpu, qs_mask);
		if
		:: qs_mask == 0 ->
			gp_seq++;
			ended = 1;
			gpend = 1;
			printf("@@ CPU%d %e rcu_gp_end(): write gp_seq = %d (grace period %d has ended)\n",
			       rc, who, gp_seq, gp_seq - 1);
#ifndef GP_NEEDED_LOST
			if
			:: gp_needed ->
				gp_needed = 0;
				qs_mask = ALL_CPUS;
				gp_seq++;
				started = 1;
				printf("@@ CPU%d %e rcu_gp_start() (gp_needed): write qs_mask = %d, gp_seq = %d\n",
				       rc, who, qs_mask, gp_seq)
			:: else -> skip
			fi
#endif
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/* rcu_gp_start()'s scan: an idle CPU owes nothing.  rcu_state.lock held. */
inline gp_start_scan(c)
{
#ifndef IDLE_NOT_COUNTED
	cpu = 0;
	do
	:: scan && cpu < NCPU ->
		atomic { RUN(me, c) ->
			printf("@@ CPU%d %e rcu_gp_start(): read rcu_data[%d].idle = %d\n", c, who, cpu, idle[cpu]);
			gpend = 0;
			started = 0;
			if
			:: idle[cpu] ->
				report_qs_locked(c, cpu, gp_seq)
			:: else -> skip
			fi;
			if
			:: started -> cpu = 0	/* it ended and rcu_gp_end() started the needed one: its scan */
			:: !started && gpend -> scan = 0	/* ended: rcu_gp_start() returns true */
			:: !started && !gpend -> cpu++
			fi;
			gpend = 0;
			started = 0 }
	:: else -> break
	od;
#endif
	scan = 0;
	cpu = 0
}

inline lock_rcu(c)
{
	atomic { RUN(me, c) && rcu_lock == FREE -> rcu_lock = c }
}

inline unlock_rcu(c)
{
	atomic { RUN(me, c) -> rcu_lock = FREE }
}

inline rcu_report_qs(c, gp)
{
	ended = 0;
	atomic { RUN(me, c) && rcu_lock == FREE -> rcu_lock = c;
		report_qs_locked(c, c, gp);
		scan = started; started = 0; gpend = 0 };
	gp_start_scan(c);
	unlock_rcu(c);
	if
	:: ended -> ended = 0; wake_cb_threads(c)
	:: else -> skip
	fi
}

/* note_qs(): report this CPU's quiescent state if the running grace period wants it. */
inline note_qs(c)
{
	atomic { RUN(me, c) ->
		g = gp_seq;
		m = qs_mask;
		if
		:: g & 1 -> printf("@@ CPU%d %e note_qs(): read gp_seq = %d, qs_mask = %d\n", c, who, g, m)
		:: else -> printf("@@ CPU%d %e note_qs(): read gp_seq = %d (no grace period)\n", c, who, g)
		fi }
	if
	:: (g & 1) && (m & (1 << c)) -> rcu_report_qs(c, g)
	:: else -> skip
	fi;
	g = 0;
	m = 0
}

inline rcu_request_gp(c)
{
	ended = 0;
	atomic { RUN(me, c) && rcu_lock == FREE -> rcu_lock = c;
		if
		:: gp_seq & 1 -> gp_needed = 1;
			printf("@@ CPU%d %e rcu_request_gp(): grace period %d running: write gp_needed = 1\n", c, who, gp_seq)
		:: else -> qs_mask = ALL_CPUS; gp_seq++; scan = 1;
			printf("@@ CPU%d %e rcu_gp_start(): write qs_mask = %d, gp_seq = %d\n", c, who, qs_mask, gp_seq)
		fi }
	gp_start_scan(c);
	unlock_rcu(c);
	if
	:: ended -> ended = 0; wake_cb_threads(c)
	:: else -> skip
	fi
}

inline rcu_idle_enter(c)
{
	atomic { RUN(me, c) -> idle[c] = 1;
		printf("@@ CPU%d %e rcu_idle_enter(): write rcu_data[%d].idle = 1\n", c, who, c) }
	note_qs(c)
}

inline rcu_idle_exit(c)
{
	atomic { RUN(me, c) -> idle[c] = 0;
		printf("@@ CPU%d %e rcu_idle_exit(): write rcu_data[%d].idle = 0\n", c, who, c) }
}

/* One read-side critical section by reader `rd` on CPU c. */
inline read_section(c, rd)
{
	atomic { RUN(me, c) -> in_cs = in_cs | rd;
		printf("@@ CPU%d %e rcu_read_lock()\n", c, who) }
	atomic { RUN(me, c) ->
		if
		:: e = 0
		:: e = 1
		fi;
		got = published[e];
		if
		:: got -> printf("@@ CPU%d %e rcu_dereference(): read list -> element %d\n", c, who, e)
		:: else -> printf("@@ CPU%d %e rcu_dereference(): read list -> NULL (element %d removed)\n", c, who, e)
		fi }
	atomic { RUN(me, c) ->
		if
		:: got ->
			if
			:: freed[e] -> printf("@@ CPU%d %e reader: read element %d: IT WAS FREED\n", c, who, e)
			:: else -> printf("@@ CPU%d %e reader: read element %d\n", c, who, e)
			fi;
			assert(!freed[e])
		:: else -> skip
		fi }
	atomic { RUN(me, c) -> in_cs = in_cs & ~rd;
		pre[0] = pre[0] & ~rd;
		pre[1] = pre[1] & ~rd;
		printf("@@ CPU%d %e rcu_read_unlock()\n", c, who);
		e = 0; got = 0 }
}

/*
 * __schedule() on CPU c by task `me`: the quiescent state, then the switch
 * (one step: the run-queue lock is held throughout).  `requeue`: whether
 * prev goes back on the queue (it is running and not the idle task).
 */
inline pick_next(c, idl)
{
	if
	:: queued[c] & TB(U) -> cur[c] = U
	:: queued[c] & TB(RCUC) -> cur[c] = RCUC
	:: queued[c] & TB(R) -> cur[c] = R
	:: queued[c] == 0 -> cur[c] = idl
	fi;
	queued[c] = queued[c] & ~TB(cur[c])
}

inline schedule(c, idl)
{
	note_qs(c);
	atomic { RUN(me, c) ->
		if
		:: me != idl && state[me] == RUNNING -> queued[c] = queued[c] | TB(me)
		:: else -> skip
		fi;
		pick_next(c, idl);
		if
		:: cur[c] == U -> printf("@@ CPU%d %e __schedule(): switch to the updater\n", c, who)
		:: cur[c] == RCUC -> printf("@@ CPU%d %e __schedule(): switch to rcuc/0\n", c, who)
		:: cur[c] == R -> printf("@@ CPU%d %e __schedule(): switch to the reader\n", c, who)
		:: cur[c] == idl -> printf("@@ CPU%d %e __schedule(): switch to the idle task\n", c, who)
		fi }
}

/* call_rcu(element k) on CPU0 (interrupts off from the snapshot to the queueing). */
inline call_rcu(k)
{
	atomic { RUN(me, 0) -> pre[k] = in_cs;
#ifdef INJECT_NO_WAIT
		printf("@@ CPU0 %e call_rcu(%d): rcu.inject=no_wait: invoke the callback at once\n", who, k);
		if
		:: pre[k] -> printf("@@ CPU0 %e BUG: the callback for element %d runs while a reader that began before its call_rcu() is still inside (readers: %d; 1 = CPU1 task, 2 = CPU1 interrupt, 4 = CPU0 interrupt)\n", who, k, pre[k])
		:: else -> skip
		fi;
		assert(pre[k] == 0);
		freed[k] = 1;
		cbseg[k] = INVOKED }
#else
		snap = SEQ_SNAP(gp_seq);
		printf("@@ CPU0 %e call_rcu(%d): read gp_seq = %d, snap = %d\n", who, k, gp_seq, snap) }
	atomic { RUN(me, 0) ->
		printf("@@ CPU0 %e advance_callbacks(): read gp_seq = %d\n", who, gp_seq);
		advance_callbacks();
		if
		:: !SEG_EMPTY(NEXT) && next_gp != snap ->
			if
			:: !SEG_EMPTY(WAIT) ->
				printf("@@ CPU0 %e BUG: call_rcu: three grace periods pending (wait %d, next %d, now %d)\n", who,
				       wait_gp, next_gp, snap)
			:: else -> skip
			fi;
			assert(SEG_EMPTY(WAIT));
			wait_gp = next_gp;
			splice(WAIT, NEXT)
		:: else -> skip
		fi;
		cbseg[k] = NEXT;
		next_gp = snap;
		ncbs++;
		printf("@@ CPU0 %e call_rcu(%d): queue it on next (waits for gp_seq %d); ncbs = %d\n", who, k, snap, ncbs) }
	atomic { RUN(me, 0) ->
#ifdef REQUEST_ONLY_ONCE
		need_gp = !SEQ_DONE(gp_seq, snap) && gp_requested == 0;
#else
		need_gp = !SEQ_DONE(gp_seq, snap) && gp_requested != snap;
#endif
		ready = !SEG_EMPTY(DONE) }
#ifndef NO_GP_REQUEST
	if
	:: need_gp -> rcu_request_gp(0);
		atomic { RUN(me, 0) -> gp_requested = snap;
			printf("@@ CPU0 %e call_rcu(%d): write gp_requested = %d\n", who, k, snap) }
	:: else -> skip
	fi;
#endif
	if
	:: ready -> wake_cb_thread(0)
	:: else -> skip
	fi;
	need_gp = 0;
	ready = 0;
	snap = 0
#endif
}

/* The updater: remove, call_rcu(), twice; then exit. */
proctype updater_task()
{
	byte me = U;
	mtype who = updater;
	byte g, m, i, cpu, snap;
	bit ended, gpend, started, scan, need_gp, ready;

	atomic { RUN(me, 0) -> published[0] = 0;
		printf("@@ CPU0 %e list_del_rcu(): remove element 0\n", who) }
	call_rcu(0);
	atomic { RUN(me, 0) -> published[1] = 0;
		printf("@@ CPU0 %e list_del_rcu(): remove element 1\n", who) }
	call_rcu(1);
	atomic { RUN(me, 0) -> state[me] = DEAD;
		printf("@@ CPU0 %e kthread_exit()\n", who) }
	schedule(0, IDLE0)
}

/* The reader task on CPU1: two critical sections, a context switch after each. */
proctype reader_task()
{
	byte me = R;
	mtype who = reader;
	byte g, m, i, cpu, e;
	bit ended, gpend, started, scan, got;

	read_section(1, RD_TASK);
	note_qs(1);		/* cond_resched(): nothing queued, so rcu_note_context_switch() */
	read_section(1, RD_TASK);
	note_qs(1);
	atomic { RUN(me, 1) -> state[me] = DEAD;
		printf("@@ CPU1 %e kthread_exit()\n", who) }
	schedule(1, IDLE1)
}

/* rcuc/0 (rcu_cb_thread): invokes CPU0's callbacks whose grace period has ended. */
proctype rcuc_thread()
{
	byte me = RCUC;
	mtype who = rcuc_0;
	byte g, m, i, cpu, n, k;
	bit ended, gpend, started, scan;

end_sleep:
#ifdef LOST_WAKEUP
	if
	:: atomic { RUN(me, 0) && !cb_work ->
		printf("@@ CPU0 %e rcu_cb_thread(): read cb_work = 0\n", who) };
		atomic { RUN(me, 0) -> state[me] = BLOCKED;
			printf("@@ CPU0 %e rcu_cb_thread(): write state = TASK_BLOCKED\n", who) };
		schedule(0, IDLE0);
		goto end_sleep
	:: atomic { RUN(me, 0) && cb_work -> skip }
	fi;
#else
	atomic { RUN(me, 0) -> state[me] = BLOCKED;
		printf("@@ CPU0 %e rcu_cb_thread(): write state = TASK_BLOCKED\n", who) };
	if
	:: atomic { RUN(me, 0) && !cb_work ->
		printf("@@ CPU0 %e rcu_cb_thread(): read cb_work = 0: sleep\n", who) };
		schedule(0, IDLE0);
		goto end_sleep
	:: atomic { RUN(me, 0) && cb_work -> skip }
	fi;
#endif
	atomic { RUN(me, 0) -> state[me] = RUNNING; cb_work = 0;
		printf("@@ CPU0 %e rcu_cb_thread(): read cb_work = 1, write cb_work = 0\n", who) }
	atomic { RUN(me, 0) ->
		printf("@@ CPU0 %e advance_callbacks(): read gp_seq = %d\n", who, gp_seq);
		advance_callbacks();
		splice(BATCH, DONE) }
	n = 0;
	k = 0;
	do
	:: k < 2 ->
		atomic { RUN(me, 0) ->
			if
			:: cbseg[k] == BATCH ->
				if
				:: pre[k] -> printf("@@ CPU0 %e BUG: the callback for element %d runs while a reader that began before its call_rcu() is still inside (readers: %d; 1 = CPU1 task, 2 = CPU1 interrupt, 4 = CPU0 interrupt)\n", who, k, pre[k])
				:: else -> printf("@@ CPU0 %e invoke_callback(): kfree(element %d)\n", who, k)
				fi;
				assert(pre[k] == 0);
				freed[k] = 1;
				cbseg[k] = INVOKED;
				n++
			:: else -> skip
			fi;
			k++ }
	:: else -> break
	od;
	atomic { RUN(me, 0) ->
		ncbs = ncbs - n;
		if
		:: ncbs > 0 && SEQ_DONE(gp_seq, wait_gp) -> cb_work = 1;
			printf("@@ CPU0 %e rcu_cb_thread(): ncbs = %d, more are ready: write cb_work = 1\n", who, ncbs)
		:: else -> printf("@@ CPU0 %e rcu_cb_thread(): ncbs = %d\n", who, ncbs)
		fi;
		n = 0; k = 0 }
	goto end_sleep
}

/*
 * An interrupt taken while CPU c is halted in its idle loop: irq_enter()
 * -> rcu_irq_enter(), the handler (a reader, or nothing for an IPI),
 * irq_exit() -> rcu_irq_exit().
 */
inline interrupt(c, rd)
{
	atomic { RUN(me, c) ->
		if
		:: ipi[c] -> ipi[c] = 0; reader_irq = 0;
			printf("@@ CPU%d %e interrupt: IPI_RESCHEDULE\n", c, who)
		:: irq_left[c] > 0 -> irq_left[c]--; reader_irq = 1;
			printf("@@ CPU%d %e interrupt: a handler that reads the list\n", c, who)
		fi;
#ifdef IRQ_STAYS_IDLE
		irq_from_idle = 0 }
#else
		if
		:: idle[c] -> idle[c] = 0; irq_from_idle = 1;
			printf("@@ CPU%d %e rcu_irq_enter() -> rcu_idle_exit(): write rcu_data[%d].idle = 0\n", c, who, c)
		:: else -> irq_from_idle = 0
		fi }
#endif
	if
	:: reader_irq -> read_section(c, rd)
	:: else -> skip
	fi;
	if
	:: irq_from_idle -> irq_from_idle = 0; rcu_idle_enter(c)	/* rcu_irq_exit() */
	:: else -> skip
	fi;
	reader_irq = 0
}

/* cpu_idle_loop() on CPU c. */
proctype idle_loop(byte c; byte me; byte rd; mtype who)
{
	byte g, m, i, cpu, e;
	bit ended, gpend, started, scan, got, irq_from_idle, reader_irq;

end_idle:
	do
	:: atomic { RUN(me, c) && queued[c] != 0 -> skip };
		schedule(c, me)
	:: atomic { RUN(me, c) && queued[c] == 0 -> skip };
		rcu_idle_enter(c);
#ifndef IDLE_HALT_NO_RECHECK
		if
		:: atomic { RUN(me, c) && queued[c] != 0 ->
			printf("@@ CPU%d %e cpu_idle_loop(): work queued meanwhile: do not halt\n", c, who) };
			rcu_idle_exit(c);
			goto end_idle
		:: atomic { RUN(me, c) && queued[c] == 0 -> skip }
		fi;
#endif
		atomic { RUN(me, c) -> printf("@@ CPU%d %e cpu_idle_loop(): halt\n", c, who) }
end_halt:
		atomic { RUN(me, c) && (ipi[c] || irq_left[c] > 0) -> skip };
		interrupt(c, rd);
		rcu_idle_exit(c)
	od
}

init
{
	atomic {
		published[0] = 1;
		published[1] = 1;
		cur[0] = U;
		cur[1] = R;
		state[RCUC] = BLOCKED;
		irq_left[0] = 1;
		irq_left[1] = 1;
		/*
		 * Either no grace period runs yet, or one that a call_rcu() on
		 * some CPU asked for before is running and waits for both CPUs:
		 * then the updater's first call_rcu() marks the next one needed,
		 * and a second that comes while the first grace period still runs
		 * waits for the same one, and finds it asked for (gp_requested).
		 */
		if
		:: skip
		:: gp_seq = 1; qs_mask = ALL_CPUS;
			printf("@@ CPU1 %e a grace period asked for before the updater started: gp_seq = 1, qs_mask = %d\n", idle_1, qs_mask)
		fi;
		run updater_task();
		run reader_task();
		run rcuc_thread();
		run idle_loop(0, IDLE0, RD_IRQ0, idle_0);
		run idle_loop(1, IDLE1, RD_IRQ1, idle_1)
	}
}

/*
 * rcu_barrier() (kernel/rcu/sync.c) over the callback lists and the rcuc
 * threads of kernel/rcu/callbacks.c, with CPU1 going down
 * (rcu_migrate_callbacks()).  Every interleaving of two CPUs, sequentially
 * consistent (the ordering of the count is tools/model/armv8/barrier.wmm).
 *
 *   X0, X1   a callback queued on CPU0 and one on CPU1 before rcu_barrier()
 *            is called: it must not return before both have run.
 *   caller   rcu_barrier(): cpus_read_lock(), barrier_pending = 1, then for
 *            each online CPU run_on(cpu), barrier_pending++, call_rcu() of
 *            that CPU's marker; run_on(home); its own decrement; the wait.
 *   rcuc/0, rcuc/1  take the ready callbacks at the head of their CPU's
 *            list as one batch (off the list) and invoke them in order; a
 *            marker's barrier_callback() decrements barrier_pending and the
 *            one that reaches zero completes.
 *   remove_cpu(1)  under cpus_write_lock(): once no task runs there (rcuc/1
 *            has blocked, the caller is elsewhere), CPU1 goes offline; a CPU that stays moves its callbacks over, the
 *            ready ones after its own ready ones, the others at the end
 *            (rcu_migrate_callbacks()).
 *
 * A CPU's list is done, wait and next in one queue, in the order
 * call_rcu() queued them (advance_callbacks() keeps it); which callbacks
 * are ready is the grace periods' business (async.pml): here any prefix
 * may become ready at any time, and always eventually does, so nothing
 * may depend on when.  (`ready` counts the ready callbacks at the head.)
 *
 * Left out: the grace-period machinery (async.pml), the polled API
 * (poll.pml), rcu_barrier()'s mutex (one caller here).
 *
 * Safety: when rcu_barrier() returns, X0 and X1 have been invoked (and
 * returned); no deadlock.
 *
 * @title rcu_barrier(): a marker behind each CPU's callbacks, rcuc batches, a CPU going down
 * @check safety
 * @cflags -DCOLLAPSE
 * @hashbits 20
 * @variant base: verify
 * @variant skip_cpu -DSKIP_CPU1: reject safety "rcu.inject=barrier_skip_cpu: no marker on CPU1"
 * @variant skips_ready -DSKIPS_READY: reject safety "rcu.inject=barrier_skips_ready: no marker on a CPU where no callback waits for a grace period, though its ready callbacks, or the batch its rcuc runs, have not run yet"
 * @variant no_own_count -DNO_OWN_COUNT: reject safety "barrier_pending starts at 0, without rcu_barrier()'s own count: the first marker to run may bring it to zero while the second is not queued yet"
 * @variant marker_from_home -DMARKER_FROM_HOME: reject safety "call_rcu() of every marker from the caller's CPU, without run_on(): a marker on CPU0 does not wait behind CPU1's callbacks"
 * @variant lists_empty -DLISTS_EMPTY: reject safety "rcu_barrier() waits until every CPU's lists are empty instead of queueing markers: a batch rcuc has taken off its list may still be running"
 * @variant no_hotplug_lock -DNO_HOTPLUG_LOCK: reject safety "no cpus_read_lock(): CPU1 goes down after the marker on CPU0 ran, and its callback moves behind it to CPU0"
 */

mtype = { caller, rcuc_0, rcuc_1, hotplug };

#define NCPU		2
#define QLEN		4
/* callbacks */
#define NOCB		0
#define X0		1
#define X1		2
#define M0		3	/* barrier_heads[0] */
#define M1		4	/* barrier_heads[1] */

byte q[NCPU * QLEN];		/* each CPU's list, head first */
byte qn[NCPU];			/* its length */
byte ready[NCPU];		/* ready callbacks at its head (done) */
bit invoked[5];			/* the callback has run and returned */
bit online[NCPU];
byte pending = 0;		/* barrier_pending */
bit barrier_done = 0;		/* the completion */
byte caller_cpu = 0;
byte bq[NCPU * QLEN];		/* the batch rcuc/N took off its list and has not invoked yet */
byte bn[NCPU];
byte hp_readers = 0;
bit hp_writer = 0;

#define Q(c, i)		q[(c) * QLEN + (i)]
#define B(c, i)		bq[(c) * QLEN + (i)]

/* call_rcu(cb) on CPU c: at the tail (its `next`). */
inline enqueue(c, cb)
{
	assert(qn[c] < QLEN);
	Q(c, qn[c]) = cb;
	qn[c]++
}

/* Removes the head of CPU c's list into `got` (a ready callback). */
inline dequeue(c)
{
	got = Q(c, 0);
	i = 0;
	do
	:: i + 1 < qn[c] -> Q(c, i) = Q(c, i + 1); i++
	:: else -> break
	od;
	Q(c, qn[c] - 1) = NOCB;
	qn[c]--;
	ready[c]--;
	i = 0
}

/* The grace periods: one more callback at the head of CPU c's list is ready. */
proctype grace_periods(byte c)
{
end_gp:
	do
	:: atomic { ready[c] < qn[c] -> ready[c]++;
		printf("@@ CPU%d a grace period ended: %d callback(s) ready on CPU%d\n", c, ready[c], c) }
	od
}

inline barrier_callback(cb)
{
	pending--;
	printf("@@ CPU%d %e barrier_callback(marker %d): barrier_pending = %d\n", c, who, cb - M0, pending);
	if
	:: pending == 0 -> barrier_done = 1;
		printf("@@ CPU%d %e complete(&barrier_done)\n", c, who)
	:: else -> skip
	fi
}

/* rcuc/N: takes the ready callbacks off its list as a batch, then invokes them one by one. */
proctype rcuc(byte c; mtype who)
{
	byte got, i;

end_sleep:
	do
	:: atomic { online[c] && ready[c] > 0 ->
		printf("@@ CPU%d %e rcu_cb_thread(): takes %d ready callback(s) off its list as a batch\n", c, who, ready[c]);
		do
		:: ready[c] > 0 -> dequeue(c); B(c, bn[c]) = got; bn[c]++
		:: else -> break
		od;
		got = 0 }
		do
		:: atomic { bn[c] > 0 ->
			got = B(c, 0);
			i = 0;
			do
			:: i + 1 < bn[c] -> B(c, i) = B(c, i + 1); i++
			:: else -> break
			od;
			bn[c]--;
			B(c, bn[c]) = NOCB;
			invoked[got] = 1;
			if
			:: got == X0 || got == X1 ->
				printf("@@ CPU%d %e invoke_callback(): X%d runs\n", c, who, got - X0)
			:: else -> barrier_callback(got)
			fi;
			got = 0; i = 0 }
		:: atomic { bn[c] == 0 -> break }
		od
	od
}

/* run_on(cpu) for the caller: it runs there afterwards, unless the CPU is offline (-ENODEV). */
inline run_on(cpu)
{
	atomic {
		if
		:: online[cpu] -> caller_cpu = cpu;
			printf("@@ CPU%d caller run_on(%d)\n", cpu, cpu)
		:: else -> printf("@@ CPU%d caller run_on(%d): offline: -ENODEV\n", caller_cpu, cpu)
		fi }
}

proctype barrier_caller()
{
	mtype who = caller;
	byte cpu;

#ifndef NO_HOTPLUG_LOCK
	atomic { !hp_writer -> hp_readers++; printf("@@ CPU0 caller rcu_barrier(): cpus_read_lock()\n") }
#endif
#ifdef LISTS_EMPTY
	atomic { qn[0] == 0 && qn[1] == 0 -> /* (and nothing in their batches' place: they are off the lists) */
		printf("@@ CPU0 caller rcu_barrier(): (bug) every list is empty: returns\n") }
#else
#ifdef NO_OWN_COUNT
	pending = 0;
#else
	pending = 1;
#endif
	cpu = 0;
	do
	:: cpu < NCPU ->
		if
#ifdef SKIP_CPU1
		:: cpu == 1 -> skip
#endif
#ifdef SKIPS_READY
		:: atomic { online[cpu] && ready[cpu] == qn[cpu] ->	/* nothing waits for a grace period there */
			printf("@@ CPU%d caller rcu_barrier(): (barrier_skips_ready) no callback of CPU%d waits: no marker\n", caller_cpu, cpu) }
		:: atomic { online[cpu] && ready[cpu] < qn[cpu] -> skip };
#else
		:: atomic { online[cpu] -> skip };	/* for_each_online_cpu() */
#endif
#ifndef MARKER_FROM_HOME
			run_on(cpu);
#endif
			atomic { pending++; enqueue(caller_cpu, M0 + cpu);
				printf("@@ CPU%d caller rcu_barrier(): barrier_pending = %d, call_rcu(marker %d)\n", caller_cpu, pending, cpu) }
		:: atomic { !online[cpu] -> skip }
		fi;
		cpu++
	:: else -> break
	od;
	run_on(0);
#ifndef NO_OWN_COUNT
	atomic { pending--; printf("@@ CPU0 caller rcu_barrier(): own decrement: barrier_pending = %d\n", pending);
		if
		:: pending == 0 -> barrier_done = 1
		:: else -> skip
		fi }
#endif
	atomic { barrier_done -> printf("@@ CPU0 caller rcu_barrier(): wait_for_completion() returns\n") }
#endif
	atomic {
		if
		:: !(invoked[X0] && invoked[X1]) ->
			printf("@@ CPU0 caller BUG: rcu_barrier() returned before X0 and X1 ran (X0: %d, X1: %d)\n", invoked[X0], invoked[X1])
		:: else -> skip
		fi;
		assert(invoked[X0] && invoked[X1]) }
#ifndef NO_HOTPLUG_LOCK
	atomic { hp_readers--; printf("@@ CPU0 caller cpus_read_unlock()\n") }
#endif
}

/* remove_cpu(1): CPU1 goes offline once rcuc/1 blocked; CPU0 takes its callbacks. */
active proctype hotplug_ops()
{
	mtype who = hotplug;
	byte got, i, n;

	/* no task runs on CPU1 any more: rcuc/1 has blocked, the caller is not there */
	atomic { hp_readers == 0 && !hp_writer && bn[1] == 0 && caller_cpu != 1 -> hp_writer = 1; online[1] = 0;
		printf("@@ CPU0 %e remove_cpu(1): CPU1 is offline\n", who) }
	/* rcu_migrate_callbacks(1): the ready ones after CPU0's ready ones, the others at the end */
	atomic {
		n = qn[1];
		do
		:: ready[1] > 0 ->
			dequeue(1);
			assert(qn[0] < QLEN);
			i = qn[0];
			do
			:: i > ready[0] -> Q(0, i) = Q(0, i - 1); i--
			:: else -> break
			od;
			Q(0, ready[0]) = got;
			qn[0]++;
			ready[0]++
		:: ready[1] == 0 && qn[1] > 0 ->
			ready[1] = 1; dequeue(1);	/* (dequeue() counts it as ready) */
			enqueue(0, got)
		:: else -> break
		od;
		printf("@@ CPU0 %e rcu_migrate_callbacks(1): %d callback(s) moved to CPU0\n", who, n);
		got = 0; i = 0; n = 0 }
	atomic { hp_writer = 0; printf("@@ CPU0 %e cpus_write_unlock()\n", who) }
}

init
{
	atomic {
		online[0] = 1; online[1] = 1;
		enqueue(0, X0);
		enqueue(1, X1);
		run grace_periods(0);
		run grace_periods(1);
		run rcuc(0, rcuc_0);
		run rcuc(1, rcuc_1);
		run barrier_caller()
	}
}

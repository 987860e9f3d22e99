/*
 * SRCU (kernel/rcu/srcu.c, kernel/rcu/srcu.h): the two ranks of per-CPU
 * lock and unlock counters, the flips of ->completed, and the grace-period
 * thread's state machine with its callback lists.  Every interleaving,
 * sequentially consistent (the barriers are tools/model/armv8/srcu.wmm's).
 *
 *   the updater  removes element 0, call_srcu()s its kfree(), removes
 *                element 1, call_srcu()s its kfree(), then srcu_barrier()
 *                (a marker callback queued behind them, waited for).
 *   two readers  each one read-side critical section: srcu_read_lock()
 *                (read ->completed, then count on this CPU), the
 *                dereference of the first element still on the list, the
 *                read of the element, srcu_read_unlock() (count on the CPU
 *                it is on now).  Reader A starts on CPU1 and may sleep
 *                inside, waking on CPU0; reader B runs on CPU0.
 *   srcu_gp      the grace-period thread: srcu_advance() again and again
 *                (its msleep() between passes is a retry) while callbacks
 *                are queued.
 *   CPU1 goes down once its reader has left (slept elsewhere or ended:
 *   nothing switches between reading ->completed and counting); its
 *   counters stay.  With FULL=1 it may come back.
 *
 * Modelled as written: srcu_read_lock()'s two steps (the index, then the
 * count), srcu_readers_gone() summing every possible CPU's unlocks, then
 * every CPU's locks (each sum one step; FULL=1: one load at a time, as
 * the code does), srcu_flip(), srcu_old_rank(), the
 * states SRCU_GP_IDLE, _FIRST_RANK, _SECOND_RANK, srcu_gp_begin() moving
 * `next` to `wait`, srcu_gp_end() invoking `wait` in order, call_srcu()
 * queueing on `next`, srcu_barrier()'s marker.  With FULL=1 also an
 * interrupt handler on CPU0 that is a reader (it may come between a
 * task's reading of the index and its count: a straggler of its own).
 * Steps that touch only one process's own state are merged with the next
 * (a removal and its call_srcu(), a read and the unlock after it, the
 * invocation of one srcu_gp_end()'s callbacks): what another process could do between
 * them it can do before the first, where the same checks catch it.
 *
 * Left out: the grace-period thread's list of domains (one domain here),
 * cleanup_srcu_struct(), the checking build's per-task record, counter
 * wrap.
 *
 * Safety: no callback frees an element a reader still holds (one that
 * found it before its removal); no reader reads a freed element;
 * srcu_barrier() returns only after every callback queued before it has
 * run; no deadlock.
 *
 * @title SRCU: two ranks of per-CPU counters, the flips, the grace-period thread
 * @check safety
 * @cflags -DCOLLAPSE
 * @hashbits 20
 * @full-hashbits 24
 * @variant base: verify
 * @variant locks_first -DLOCKS_FIRST: reject safety "srcu_readers_gone() sums the locks before the unlocks: a reader that locks and unlocks between the two sums balances one that is still inside"
 * @variant single_flip -DSINGLE_FLIP: reject safety "one flip per grace period: a reader that read the index before the previous grace period's flip and counted after its check holds the other rank, which this grace period does not wait for"
 * @variant skip_offline -DSKIP_OFFLINE: reject safety "srcu_readers_gone() sums only the online CPUs: a reader that locked on a CPU that went down is not counted"
 * @variant barrier_skips_idle -DBARRIER_SKIPS_IDLE: reject safety "srcu.inject=barrier_skips_idle: srcu_barrier() returns at once when no callback is pending, though srcu_gp_end() may have taken one off the list and not run it yet"
 * @variant no_flip -DNO_FLIP: reject safety "srcu.inject=no_flip: grace periods wait for the rank no reader uses"
 */

mtype = { updater, reader_A, reader_B, reader_irq, srcu_gp, hotplug };

#define NCPU		2
#define A		0
#define B		1
#define IRQ		2
#define IDLE_ST		0
#define FIRST		1
#define SECOND		2
/* callbacks: kfree(element 0), kfree(element 1), the barrier's marker */
#define NCB		3
#define CB_NONE		0
#define CB_NEXT		1
#define CB_WAIT		2
#define CB_DONE		3
#define CB_RUN		4	/* taken off the lists, not yet invoked */

/* the domain */
byte completed = 0;
byte lock_count[4];		/* [cpu * 2 + rank] */
byte unlock_count[4];
byte gp_state = IDLE_ST;
byte cb[NCB];			/* where each callback is */
bit gp_work = 0;
/* the CPUs */
bit online[NCPU];
bit dying[NCPU];
bit in_irq[NCPU];
/* the readers */
byte cpu_of[3];
bit done[3];			/* the reader's section is over */
bit published[2];
bit freed[2];
byte holding[2];		/* readers (a bit each) holding element k */

#define RUNS(r)		(!in_irq[cpu_of[r]] || (r) == IRQ)

/*
 * srcu_readers_gone(rank)'s sums: one load per CPU (FULL=1, as the code
 * does), or the whole sum in one step.  SKIP_OFFLINE: only online CPUs.
 */
#ifdef SKIP_OFFLINE
#define COUNTED(cpu)	online[cpu]
#else
#define COUNTED(cpu)	1
#endif
#define ADD(sum, counts, cpu, rank)	sum = sum + (COUNTED(cpu) -> counts[(cpu) * 2 + (rank)] : 0)
#ifdef FULL
#define SUM(sum, counts, rank)	atomic { ADD(sum, counts, 0, rank) }; atomic { ADD(sum, counts, 1, rank) }
#else
#define SUM(sum, counts, rank)	atomic { ADD(sum, counts, 0, rank); ADD(sum, counts, 1, rank) }
#endif

inline readers_gone(rank)
{
	locks = 0;
	unlocks = 0;
#ifdef LOCKS_FIRST
	SUM(locks, lock_count, rank);
	SUM(unlocks, unlock_count, rank);
#else
	SUM(unlocks, unlock_count, rank);
	SUM(locks, lock_count, rank);
#endif
	atomic { gone = (locks == unlocks);
		printf("@@ srcu_gp srcu_readers_gone(rank %d): unlocks %d, locks %d\n", rank, unlocks, locks);
		locks = 0; unlocks = 0 }
}

inline srcu_flip()
{
#ifndef NO_FLIP
	atomic { completed++; printf("@@ srcu_gp srcu_flip(): completed = %d\n", completed) }
#else
	atomic { printf("@@ srcu_gp srcu_flip(): (srcu.inject=no_flip) completed stays %d\n", completed) }
#endif
}

/*
 * srcu_gp_end(): under the domain's lock the `wait` callbacks are taken
 * off (ncbs counts them no more), then invoked in the order they were
 * queued, outside it.
 */
inline srcu_gp_uncount()
{
	k = 0;
	do
	:: k < NCB ->
		if
		:: cb[k] == CB_WAIT -> cb[k] = CB_RUN
		:: else -> skip
		fi;
		k++
	:: else -> break
	od;
	k = 0;
	printf("@@ srcu_gp srcu_gp_end(): the callbacks taken off the list, ncbs lowered\n")
}

inline srcu_gp_run()
{
	k = 0;
	do
	:: k < NCB ->
			if
			:: cb[k] == CB_RUN ->
				if
				:: k < 2 ->
					if
					:: holding[k] -> printf("@@ srcu_gp BUG: kfree(element %d) while a reader holds it (readers: %d)\n", k, holding[k])
					:: else -> printf("@@ srcu_gp callback: kfree(element %d)\n", k)
					fi;
					assert(holding[k] == 0);
					freed[k] = 1
				:: else -> printf("@@ srcu_gp callback: srcu_barrier()'s marker: complete()\n")
				fi;
				cb[k] = CB_DONE
			:: else -> skip
			fi;
			k++
	:: else -> break
	od;
	k = 0
}

proctype gp_thread()
{
	mtype who = srcu_gp;
	byte locks, unlocks, k;
	bit gone, any;

end_sleep:
	atomic { gp_work -> gp_work = 0 }
	do
	/* srcu_advance() */
	:: gp_state == IDLE_ST ->
		atomic {	/* srcu_gp_begin(): `next` joins `wait` */
			any = 0;
			k = 0;
			do
			:: k < NCB -> if
				:: cb[k] == CB_NEXT -> cb[k] = CB_WAIT
				:: else -> skip
				fi;
				if
				:: cb[k] == CB_WAIT -> any = 1
				:: else -> skip
				fi;
				k++
			:: else -> break
			od;
			k = 0;
			printf("@@ srcu_gp srcu_gp_begin(): callbacks to wait for: %d\n", any) }
		if
		:: any -> any = 0; srcu_flip(); gp_state = FIRST
		:: else -> goto end_sleep	/* srcu_retire(); sleep until call_srcu() */
		fi
	:: gp_state == FIRST ->
		readers_gone((completed & 1) ^ 1);
		if
		:: gone -> gone = 0;
#ifdef SINGLE_FLIP
			atomic { gp_state = IDLE_ST; srcu_gp_uncount() };
			atomic { srcu_gp_run() }
#else
			srcu_flip(); gp_state = SECOND
#endif
		:: else -> skip		/* readers remain: msleep(), look again */
		fi
	:: gp_state == SECOND ->
		readers_gone((completed & 1) ^ 1);
		if
		:: gone -> atomic { gone = 0; gp_state = IDLE_ST; srcu_gp_uncount() };
			atomic { srcu_gp_run() }
		:: else -> skip
		fi
	od
}

/* call_srcu(): on `next`, and the thread woken. */
inline call_srcu(k)
{
	cb[k] = CB_NEXT; gp_work = 1;
	printf("@@ updater call_srcu(callback %d)\n", k)
}

proctype updater_task()
{
	mtype who = updater;

	atomic { published[0] = 0; printf("@@ updater list_del_rcu(element 0)\n");
		call_srcu(0) }
	atomic { published[1] = 0; printf("@@ updater list_del_rcu(element 1)\n");
		call_srcu(1) }
	/* srcu_barrier(): the marker, behind everything queued so far */
#ifdef BARRIER_SKIPS_IDLE
	if
	:: atomic { cb[0] != CB_NEXT && cb[0] != CB_WAIT && cb[1] != CB_NEXT && cb[1] != CB_WAIT ->
		printf("@@ updater srcu_barrier(): (srcu.inject=barrier_skips_idle) ncbs is 0: returns at once\n") }
		goto barrier_done
	:: else -> skip
	fi;
#endif
	atomic { call_srcu(2) }
	atomic { cb[2] == CB_DONE -> printf("@@ updater srcu_barrier(): returns\n") }
barrier_done:
	atomic {
		if
		:: cb[0] != CB_DONE || cb[1] != CB_DONE ->
			printf("@@ updater BUG: srcu_barrier() returned before every callback queued before it had run\n")
		:: else -> skip
		fi;
		assert(cb[0] == CB_DONE && cb[1] == CB_DONE) }
}

/* One SRCU read-side critical section by reader r. */
proctype reader(byte r; mtype who)
{
	byte idx, e;
	bit got;

	atomic { RUNS(r) -> idx = completed & 1;
		printf("@@ CPU%d %e srcu_read_lock(): read completed = %d: rank %d\n", cpu_of[r], who, completed, idx) }
	atomic { RUNS(r) -> lock_count[cpu_of[r] * 2 + idx]++;
		printf("@@ CPU%d %e srcu_read_lock(): lock_count[%d] = %d\n", cpu_of[r], who, idx, lock_count[cpu_of[r] * 2 + idx]) }
	atomic { RUNS(r) ->	/* the first element still on the list */
		if
		:: published[0] -> e = 0; got = 1
		:: !published[0] && published[1] -> e = 1; got = 1
		:: else -> got = 0
		fi;
		if
		:: got -> holding[e] = holding[e] | (1 << r);
			printf("@@ CPU%d %e srcu_dereference(): element %d\n", cpu_of[r], who, e)
		:: else -> printf("@@ CPU%d %e srcu_dereference(): the list is empty\n", cpu_of[r], who)
		fi }
	if
	:: atomic { r == A && RUNS(r) && online[1 - cpu_of[r]] && !dying[1 - cpu_of[r]] ->
		cpu_of[r] = 1 - cpu_of[r];
		printf("@@ CPU%d %e msleep(): wakes up on CPU%d\n", cpu_of[r], who, cpu_of[r]) }
	:: skip
	fi;
	atomic { RUNS(r) ->
		if
		:: got && freed[e] -> printf("@@ CPU%d %e reader: read element %d: IT WAS FREED\n", cpu_of[r], who, e)
		:: got && !freed[e] -> printf("@@ CPU%d %e reader: read element %d\n", cpu_of[r], who, e)
		:: else -> skip
		fi;
		assert(!(got && freed[e]));
		unlock_count[cpu_of[r] * 2 + idx]++;
		holding[e] = holding[e] & ~(1 << r);
		printf("@@ CPU%d %e srcu_read_unlock(%d): unlock_count[%d] = %d\n", cpu_of[r], who, idx, idx, unlock_count[cpu_of[r] * 2 + idx]);
		done[r] = 1;
		if
		:: r == IRQ -> in_irq[cpu_of[r]] = 0
		:: else -> skip
		fi;
		idx = 0; e = 0; got = 0 }
}

/* remove_cpu(1) once its reader has left it, and with FULL=1 perhaps add_cpu(1). */
active proctype hotplug_ops()
{
	mtype who = hotplug;

	atomic { dying[1] = 1; printf("@@ CPU0 %e remove_cpu(1)\n", who) }
	atomic { (cpu_of[A] != 1 || done[A]) && (cpu_of[B] != 1 || done[B]) -> online[1] = 0;
		printf("@@ CPU0 %e remove_cpu(1): CPU1 is offline (its counters stay)\n", who) }
#ifdef FULL
	if
	:: skip
	:: atomic { online[1] = 1; dying[1] = 0; printf("@@ CPU0 %e add_cpu(1)\n", who) }
	fi
#endif
}

init
{
	atomic {
		online[0] = 1; online[1] = 1;
		published[0] = 1; published[1] = 1;
		cpu_of[A] = 1; cpu_of[B] = 0; cpu_of[IRQ] = 0;
		run gp_thread();
		run updater_task();
		run reader(A, reader_A);
		run reader(B, reader_B);
	}
#ifdef FULL
	atomic { in_irq[0] = 1; printf("@@ CPU0 interrupt: a handler that is an SRCU reader\n");
		run reader(IRQ, reader_irq) }
#endif
}

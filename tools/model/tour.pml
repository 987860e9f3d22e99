/*
 * The article's grace period: synchronize_rcu() is the run_on() tour of
 * kernel/rcu_sync.c, `for_each_online_cpu(cpu) run_on(cpu);`, on the
 * non-preemptive scheduler of kernel/sched.c.  Every interleaving of three
 * CPUs (sequentially consistent: the memory-ordering side of a hop is
 * tools/model/armv8/migrate.wmm).
 *
 *   CPU0  the updater task: removes the element, synchronize_rcu(), kfree().
 *         A reader task queued behind it.
 *   CPU1, CPU2  a reader task each.
 *   Each reader: two read-side critical sections (rcu_read_lock(),
 *   rcu_dereference(), a read of the element, rcu_read_unlock()), with a
 *   cond_resched() after each -- a context switch if a task is queued,
 *   which is how the updater's hop gets the CPU -- then it exits.
 *
 * Modelled as written: run_on() (migrate_to, __schedule() switching to the
 * next task, finish_task_switch() queueing the migrating task on its
 * target), round-robin run queues (the next task is any queued one: more
 * orders than FIFO), the idle task running what is queued, and the checking
 * build's might_sleep_check().  Left out: interrupts (a handler runs to
 * completion before its CPU can switch, so it is inside the task's stretch
 * without a switch), IPIs and halting (the idle task just waits for work),
 * the tour accounting of the polled API.
 *
 * Safety: when the updater frees the element, no reader that was inside a
 * read-side critical section when synchronize_rcu() began is still inside;
 * no reader dereferences a freed element; and (checking build) no task
 * switches inside a read-side critical section.
 *
 * @title the article's grace period: the run_on() tour over three CPUs
 * @check safety
 * @cflags -DCOLLAPSE
 * @hashbits 18
 * @variant base: verify
 * @variant inject_no_wait -DINJECT_NO_WAIT: reject safety "rcu.inject=no_wait: synchronize_rcu() returns at once"
 * @variant tour_skips_cpu -DTOUR_SKIPS_LAST_CPU: reject safety "the tour stops one CPU short"
 * @variant hop_returns_early -DHOP_RETURNS_EARLY: reject safety "run_on() returns once the task is queued on the target, before the target switched to it"
 * @variant reader_switches -DREADER_SWITCHES: reject safety "a reader calls cond_resched() inside rcu_read_lock(): the checking build reports it"
 * @variant reader_switches_production -DREADER_SWITCHES -DPRODUCTION: reject safety "the same reader in the production build (no check): the hop completes under the reader, which then reads freed memory"
 */

mtype = { updater, reader_0, reader_1, reader_2, swapper_0, swapper_1, swapper_2 };

#define NCPU		3
#define U		0
#define IDLE(c)		(4 + (c))
#define TB(t)		(1 << (t))
#define RUNNING		0
#define DEAD		2

byte cur[NCPU];			/* task running on each CPU */
byte queued[NCPU];		/* run queue: a bit per task */
byte cpu_of[7];			/* t->cpu */
byte state[7];
byte nesting[7];		/* t->rcu_read_lock_nesting (checking build) */
bit published = 1;		/* the list still points to the element */
bit freed = 0;
byte in_cs = 0;			/* readers inside a critical section: a bit per task */
byte pre = 0;			/* readers inside when synchronize_rcu() began */
bit tour_done = 0;

#define ON(t)		(cur[cpu_of[t]] == (t))

/* might_sleep_check(what): the checking build's rule. */
inline might_sleep_check()
{
#ifndef PRODUCTION
	atomic { ON(me) ->
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

inline print_next(c)
{
	if
	:: cur[c] == U -> printf("@@ CPU%d %e __schedule(): switch to the updater\n", c, who)
	:: cur[c] == IDLE(c) -> printf("@@ CPU%d %e __schedule(): switch to the idle task\n", c, who)
	:: else -> printf("@@ CPU%d %e __schedule(): switch to reader/%d\n", c, who, cur[c] - 1)
	fi
}

/* pick_next(): any queued task (round-robin is one of these orders), else idle. */
inline pick_next(c)
{
	if
	:: queued[c] & TB(0) -> cur[c] = 0
	:: queued[c] & TB(1) -> cur[c] = 1
	:: queued[c] & TB(2) -> cur[c] = 2
	:: queued[c] & TB(3) -> cur[c] = 3
	:: queued[c] == 0 -> cur[c] = IDLE(c)
	fi;
	queued[c] = queued[c] & ~TB(cur[c])
}

/*
 * __schedule() by task `me` on its CPU, in one step (the run-queue lock is
 * held from the pick to finish_task_switch()): prev goes to the back of
 * the queue if it still runs here, or, migrating (run_on()), is queued on
 * its target by finish_task_switch() -> enqueue_on().
 */
inline schedule_step(target)
{
	atomic { ON(me) ->
		c = cpu_of[me];
		if
		:: target != c ->
			pick_next(c);
			cpu_of[me] = target;
			queued[target] = queued[target] | TB(me);
			print_next(c);
			printf("@@ CPU%d %e finish_task_switch(): enqueue_on(CPU%d) the migrating task\n", c, who, target)
		:: target == c && state[me] == RUNNING && me != IDLE(c) ->
			queued[c] = queued[c] | TB(me);
			pick_next(c);
			print_next(c)
		:: target == c && (state[me] != RUNNING || me == IDLE(c)) ->
			pick_next(c);
			print_next(c)
		fi }
}

/* cond_resched(): switch if another task waits for this CPU. */
inline cond_resched()
{
	might_sleep_check();
	if
	:: atomic { ON(me) && queued[cpu_of[me]] != 0 ->
		printf("@@ CPU%d %e cond_resched(): a task waits for this CPU\n", cpu_of[me], who) };
		schedule_step(cpu_of[me])
	:: atomic { ON(me) && queued[cpu_of[me]] == 0 -> skip }
	fi
}

/* run_on(cpu): return only once this task has run on cpu after a switch there. */
inline run_on(target)
{
	might_sleep_check();
	atomic { ON(me) -> printf("@@ CPU%d %e run_on(%d)\n", cpu_of[me], who, target) }
#ifdef HOP_RETURNS_EARLY
	atomic { ON(me) ->
		printf("@@ CPU%d %e run_on(%d): (bug) returns without waiting for CPU%d to switch\n",
		       cpu_of[me], who, target, target) }
#else
	schedule_step(target);
	atomic { ON(me) -> assert(cpu_of[me] == target);
		printf("@@ CPU%d %e run_on(%d): running on CPU%d\n", cpu_of[me], who, target, target) }
#endif
}

proctype updater_task()
{
	byte me = U;
	mtype who = updater;
	byte c, cpu;

	atomic { ON(me) -> published = 0;
		printf("@@ CPU0 %e list_del_rcu(): remove the element\n", who) }
	/* synchronize_rcu() */
	might_sleep_check();
	atomic { ON(me) -> pre = in_cs;
		printf("@@ CPU0 %e synchronize_rcu(): begins\n", who) }
#ifndef INJECT_NO_WAIT
	cpu = 0;
	do
#ifdef TOUR_SKIPS_LAST_CPU
	:: cpu < NCPU - 1 ->
#else
	:: cpu < NCPU ->
#endif
		run_on(cpu);
		cpu++
	:: else -> break
	od;
	run_on(0);
#else
	atomic { ON(me) -> printf("@@ CPU0 %e synchronize_rcu(): rcu.inject=no_wait: returns at once\n", who) }
#endif
	atomic { ON(me) ->
		if
		:: pre -> printf("@@ CPU%d %e BUG: kfree() while a reader that was inside when synchronize_rcu() began is still inside\n",
				 cpu_of[me], who)
		:: else -> printf("@@ CPU%d %e kfree(the element)\n", cpu_of[me], who)
		fi;
		assert(pre == 0);
		freed = 1 }
	atomic { ON(me) -> state[me] = DEAD }
	schedule_step(cpu_of[me])
}

inline read_section(k)
{
	atomic { ON(me) -> nesting[me]++; in_cs = in_cs | TB(me);
		printf("@@ CPU%d %e rcu_read_lock()\n", cpu_of[me], who) }
	atomic { ON(me) -> got = published;
		if
		:: got -> printf("@@ CPU%d %e rcu_dereference(): read list -> the element\n", cpu_of[me], who)
		:: else -> printf("@@ CPU%d %e rcu_dereference(): read list -> NULL\n", cpu_of[me], who)
		fi }
#ifdef READER_SWITCHES
	if
	:: k == 0 && me == 2 -> cond_resched()	/* reader/1's first section: the bug */
	:: else -> skip
	fi;
#endif
	atomic { ON(me) ->
		if
		:: got && freed -> printf("@@ CPU%d %e reader: read the element: IT WAS FREED\n", cpu_of[me], who)
		:: got && !freed -> printf("@@ CPU%d %e reader: read the element\n", cpu_of[me], who)
		:: else -> skip
		fi;
		assert(!(got && freed)) }
	atomic { ON(me) -> nesting[me]--; in_cs = in_cs & ~TB(me); pre = pre & ~TB(me); got = 0;
		printf("@@ CPU%d %e rcu_read_unlock()\n", cpu_of[me], who) }
}

proctype reader_task(byte me; mtype who)
{
	byte c;
	bit got;

	read_section(0);
	cond_resched();
	read_section(1);
	cond_resched();
	atomic { ON(me) -> state[me] = DEAD;
		printf("@@ CPU%d %e exits\n", cpu_of[me], who) }
	schedule_step(cpu_of[me])
}

proctype idle_task(byte me; mtype who)
{
	byte c;

end_idle:
	do
	:: atomic { ON(me) && queued[cpu_of[me]] != 0 -> skip };
		schedule_step(cpu_of[me])
	od
}

init
{
	atomic {
		cpu_of[0] = 0; cpu_of[1] = 0; cpu_of[2] = 1; cpu_of[3] = 2;
		cpu_of[4] = 0; cpu_of[5] = 1; cpu_of[6] = 2;
		cur[0] = U; cur[1] = 2; cur[2] = 3;
		queued[0] = TB(1);
		run updater_task();
		run reader_task(1, reader_0);
		run reader_task(2, reader_1);
		run reader_task(3, reader_2);
		run idle_task(4, swapper_0);
		run idle_task(5, swapper_1);
		run idle_task(6, swapper_2)
	}
}

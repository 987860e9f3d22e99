/*
 * The polled grace-period API (kernel/rcu/sync.c): wait numbers taken by
 * every grace-period wait before it looks at any CPU (rcu_wait_begin()),
 * raised into waits_done when it ends (rcu_wait_end(): a compare-and-swap
 * loop, since waits end in any order), cookies (get_state_synchronize_rcu())
 * and their test (poll_state_synchronize_rcu(): wrap-safe, done - cookie
 * > 0), cond_synchronize_rcu().  Every interleaving, sequentially
 * consistent (the barriers are tools/model/armv8/poll.wmm's).
 *
 *   readers     one task on each of two CPUs, two read-side critical
 *               sections each.
 *   the poller  removes the element, takes a cookie, polls it; if the poll
 *               says done it frees the element at once and polls again
 *               (a poll that said done must keep saying it); else
 *               cond_synchronize_rcu(): a tour of its own, then the free.
 *   a tour      synchronize_rcu() by another task: its number, a look at
 *               CPU0 then CPU1, its end.
 *   a grace period  the asynchronous one (rcu_gp_start() numbers it, the
 *               CPUs report in either order, rcu_gp_end() ends it).
 *   A look at a CPU waits until its reader is outside a critical section
 *   (a context switch there, or its report): the tour and grace-period
 *   models (tour.pml, async.pml) show that a look does that.
 *
 * The counters are bytes that start just below the wrap (255, as
 * RCU_WAITS_INIT starts below it), so the first wait is number 0 and
 * every comparison crosses the wrap.
 *
 * Left out: the expedited grace period's number (taken and ended as a
 * tour's: expedited.pml shows the rest), start_poll_synchronize_rcu()'s
 * request (async.pml's).
 *
 * Safety: a cookie that polls done was taken after the removal and every
 * reader that held the element then has ended; a poll that said done
 * says it again later; no reader reads the element freed.
 *
 * @title the polled API: wait numbers, cookies, waits that end in any order, the wrap
 * @check safety
 * @cflags -DCOLLAPSE
 * @hashbits 20
 * @variant base: verify
 * @variant poll_tour_early -DPOLL_TOUR_EARLY: reject safety "rcu.inject=poll_tour_early: a tour ends the next number too, taken after it began"
 * @variant poll_gp_early -DPOLL_GP_EARLY: reject safety "rcu.inject=poll_gp_early: a grace period is reported ended as it starts"
 * @variant cookie_off_by_one -DCOOKIE_OFF_BY_ONE: reject safety "poll_state_synchronize_rcu() as done - cookie >= 0: the wait the cookie names began before it"
 * @variant number_late -DNUMBER_LATE: reject safety "the tour takes its number after looking at CPU0: a reader that began there after the look holds what a cookie older than the number protects"
 * @variant plain_wait_end -DPLAIN_WAIT_END: reject safety "rcu_wait_end() stores its number instead of raising waits_done to it: a wait that ends after a later one lowers it, and a poll that said done says not done"
 * @variant not_wrap_safe -DNOT_WRAP_SAFE: reject safety "poll_state_synchronize_rcu() as done > cookie: across the wrap an old done looks newer than the cookie"
 */

mtype = { poller, tour, gp, reader_0, reader_1 };

#define NCPU		2
#define INIT		255	/* RCU_WAITS_INIT, below the wrap */

byte waits_started = INIT;
byte waits_done = INIT;
bit in_cs[NCPU];		/* a reader inside on this CPU */
byte holding = 0;		/* readers (a bit per CPU) that found the element */
bit published = 1;
bit freed = 0;

/* (long)(a - b) > 0 on bytes */
#define AFTER(a, b)	((((a) - (b) + 256) % 256) != 0 && (((a) - (b) + 256) % 256) < 128)

/* rcu_wait_begin(): the next number, before the wait looks at any CPU. */
inline wait_begin(n)
{
	waits_started = (waits_started + 1) % 256;
	n = waits_started
}

/* rcu_wait_end(n): waits_done raised to n, never lowered. */
inline wait_end(n)
{
#ifdef PLAIN_WAIT_END
	waits_done = n
#else
	if
	:: AFTER(n, waits_done) -> waits_done = n
	:: else -> skip
	fi
#endif
}

/* A look at CPU c: it passed a quiescent state (its reader, if any, ended). */
inline look(c)
{
	atomic { !in_cs[c] -> printf("@@ %e quiescent state of CPU%d\n", who, c) }
}

inline tour_of_cpus(n)
{
#ifdef NUMBER_LATE
	look(0);
	atomic { wait_begin(n); printf("@@ %e rcu_wait_begin(): number %d (after CPU0)\n", who, n) }
#else
	atomic { wait_begin(n); printf("@@ %e rcu_wait_begin(): number %d\n", who, n) }
	look(0);
#endif
	look(1)
}

/* synchronize_rcu() by another task. */
proctype other_tour()
{
	mtype who = tour;
	byte n;

	tour_of_cpus(n);
#ifdef POLL_TOUR_EARLY
	atomic { wait_end((n + 1) % 256); printf("@@ %e tour_end(): (poll_tour_early) rcu_wait_end(%d): waits_done = %d\n", who, (n + 1) % 256, waits_done) }
#else
	atomic { wait_end(n); printf("@@ %e tour_end(): rcu_wait_end(%d): waits_done = %d\n", who, n, waits_done) }
#endif
}

/* An asynchronous grace period: numbered by rcu_gp_start(), the CPUs report in either order. */
proctype grace_period()
{
	mtype who = gp;
	byte n;

	atomic { wait_begin(n); printf("@@ %e rcu_gp_start(): number %d\n", who, n);
#ifdef POLL_GP_EARLY
		wait_end(n); printf("@@ %e rcu_gp_start(): (poll_gp_early) waits_done = %d\n", who, waits_done)
#endif
	}
	if
	:: look(0); look(1)
	:: look(1); look(0)
	fi;
	atomic { wait_end(n); printf("@@ %e rcu_gp_end(): rcu_wait_end(%d): waits_done = %d\n", who, n, waits_done) }
}

/* poll_state_synchronize_rcu(cookie) */
#ifdef COOKIE_OFF_BY_ONE
#define POLL(cookie)	(AFTER(waits_done, cookie) || waits_done == (cookie))
#elif defined(NOT_WRAP_SAFE)
#define POLL(cookie)	(waits_done > (cookie))
#else
#define POLL(cookie)	AFTER(waits_done, cookie)
#endif

proctype poller_task()
{
	mtype who = poller;
	byte cookie, pre, n;

	atomic { published = 0; printf("@@ %e list_del_rcu(): remove the element\n", who) }
	atomic { cookie = waits_started; pre = holding;
		printf("@@ %e get_state_synchronize_rcu(): cookie %d (readers holding the element: %d)\n", who, cookie, holding) }
	if
	:: atomic { POLL(cookie) ->
		printf("@@ %e poll_state_synchronize_rcu(%d): done (waits_done %d)\n", who, cookie, waits_done);
		if
		:: pre & holding -> printf("@@ %e BUG: kfree() while a reader that held the element when the cookie was taken still holds it\n", who)
		:: else -> printf("@@ %e kfree(the element)\n", who)
		fi;
		assert((pre & holding) == 0);
		freed = 1 }
		atomic {
			if
			:: !POLL(cookie) -> printf("@@ %e BUG: poll_state_synchronize_rcu(%d) says not done after saying done (waits_done %d)\n", who, cookie, waits_done)
			:: else -> printf("@@ %e poll_state_synchronize_rcu(%d): still done\n", who, cookie)
			fi;
			assert(POLL(cookie)) }
	:: atomic { !POLL(cookie) ->
		printf("@@ %e poll_state_synchronize_rcu(%d): not done: cond_synchronize_rcu() tours\n", who, cookie) };
		tour_of_cpus(n);
		atomic { wait_end(n);
			assert((pre & holding) == 0);
			freed = 1; printf("@@ %e kfree(the element)\n", who) }
	fi
}

proctype reader(byte c; mtype who)
{
	bit got;
	byte k;

	do
	:: k < 2 ->
		atomic { in_cs[c] = 1; got = published;
			if
			:: got -> holding = holding | (1 << c);
				printf("@@ CPU%d %e rcu_read_lock(); rcu_dereference(): the element\n", c, who)
			:: else -> printf("@@ CPU%d %e rcu_read_lock(); rcu_dereference(): NULL\n", c, who)
			fi }
		atomic {
			if
			:: got && freed -> printf("@@ CPU%d %e reader: read the element: IT WAS FREED\n", c, who)
			:: else -> printf("@@ CPU%d %e rcu_read_unlock()\n", c, who)
			fi;
			assert(!(got && freed));
			in_cs[c] = 0; holding = holding & ~(1 << c); got = 0; k++ }
	:: else -> break
	od
}

init
{
	atomic {
		run reader(0, reader_0);
		run reader(1, reader_1);
		run poller_task();
		run other_tour();
		run grace_period()
	}
}

/*
 * mode=window: one reader held across one grace period, deterministic
 * (tests/urcu_window.c runs it for each flavor, and with each injection).
 *
 * A reader on CPU 1 (CPU 0 alone: beside the writer) takes the element,
 * says so, and holds it.  The writer (this thread, on CPU 0) replaces
 * the element, waits for a grace period, and marks the old one freed.
 * The reader lets go only once the writer sleeps waiting for it -- the
 * library's count of writer sleeps grows -- which a correct RCU makes
 * happen: then the mark comes after it let go.  A grace period that ends
 * under the reader (inject=no_wait, inject=qs_in_reader, a barrier that
 * misses the reader's CPU) lets the writer mark the element while the
 * reader holds it, and the reader sees the mark.  Event counts, and a
 * deadline only a hung writer reaches.
 */
#include "urcutorture.h"

#define WINDOW_DEADLINE_NS	(30 * UT_NS_PER_S)

struct window_elem {
	int freed;
};

static struct window_elem first, second;
static struct window_elem *window_current = &first;
static int reader_holds, writer_done, reader_cpu;

/* What the reader saw; 0: it let go because the writer slept waiting for it. */
enum reader_saw { LET_GO_FOR_WRITER, FREED_UNDER_IT, WRITER_DONE_FIRST, DEADLINE };
static enum reader_saw saw;

static int window_reader(void *arg)
{
	uint64_t end = ut_now() + WINDOW_DEADLINE_NS;
	struct window_elem *p;
	struct urcu_stats s0, s;

	(void)arg;
	reader_cpu = q_cpu();
	ut->register_thread();
	ut->get_stats(&s0);
	ut->read_lock();
	p = rcu_dereference(window_current);
	__atomic_store_n(&reader_holds, 1, __ATOMIC_RELEASE);
	for (saw = DEADLINE; ut_now() < end;) {
		if (ut_qs_in_reader) {
			ut->read_unlock();	/* (the injection: announced while p is still ours) */
			ut->quiescent_state();
			ut->read_lock();
		}
		if (READ_ONCE(p->freed)) {
			saw = FREED_UNDER_IT;
			break;
		}
		ut->get_stats(&s);
		if (s.writer_sleeps > s0.writer_sleeps) {
			saw = LET_GO_FOR_WRITER;
			break;
		}
		if (__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE)) {
			saw = READ_ONCE(p->freed) ? FREED_UNDER_IT : WRITER_DONE_FIRST;
			break;
		}
	}
	ut->read_unlock();
	if (ut->quiescent_state)
		ut->quiescent_state();
	ut->unregister_thread();
	return 0;
}

int ut_window(void)
{
	static const char *const said[] = {
		[LET_GO_FOR_WRITER] = "held its element until the writer slept waiting for it",
		[FREED_UNDER_IT] = "saw its element freed while it held it: a grace period ended under it",
		[WRITER_DONE_FIRST] = "saw the writer's grace period end while it held its element",
		[DEADLINE] = "held its element for the whole deadline: the writer never came",
	};
	int cpu = q_nr_cpus() > 1 ? 1 : 0, tid;
	struct sys_exit_status st;
	struct window_elem *old;

	q_set_cpu(0);
	tid = q_thread_create(window_reader, NULL, cpu);
	if (tid < 0) {
		printf("urcutorture: window: no reader thread (error %d)\n", -tid);
		return 1;
	}
	while (!__atomic_load_n(&reader_holds, __ATOMIC_ACQUIRE))
		q_yield();
	old = window_current;
	rcu_assign_pointer(window_current, &second);
	ut->synchronize();
	WRITE_ONCE(old->freed, 1);	/* what a free would do */
	__atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
	q_thread_join(tid, &st);
	printf("urcutorture: window: %s flavor, the reader on CPU%d %s\n", ut->name, reader_cpu,
	       said[saw]);
	printf("urcutorture: --- End of test: %s\n", saw == LET_GO_FOR_WRITER ? "SUCCESS" : "FAILURE");
	return saw != LET_GO_FOR_WRITER;
}

/* What the servers on RCU share (qserver.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qserver.h"
#include "qcap.h"
#include "qlock.h"
#include "urcu-qsbr.h"

struct serving {
	long (*serve)(void *arg);
	void *arg;
	struct q_mutex start;	/* held until the first thread said how many serve */
};

static long serve_registered(const struct serving *s)
{
	long r;

	rcu_register_thread();
	q_recv_slot(SYS_CAP_ANY_SLOT);
	r = s->serve(s->arg);
	rcu_unregister_thread();
	return r;
}

static int serving_thread(void *arg)
{
	struct serving *s = arg;

	/* (its requests' lines after that one: the console takes a line in pieces) */
	q_mutex_lock(&s->start);
	q_mutex_unlock(&s->start);
	return serve_registered(arg) == -SYS_EPIPE ? 0 : 1;
}

long q_serve_on_cpus(const char *says, long (*serve)(void *arg), void *arg, int max,
		     int *threads)
{
	struct serving s = { serve, arg, { 0, -1 } };
	int ncpus = q_nr_cpus(), tids[Q_SERVE_MAX_THREADS], n = 0;
	struct sys_exit_status st;
	long r;

	q_set_cpu(0);
	if (q_mutex_init(&s.start))
		max = 1;	/* (no notification: no other thread could wait for the line) */
	else
		q_mutex_lock(&s.start);
	for (int cpu = 1; cpu < ncpus && cpu < max && cpu < Q_SERVE_MAX_THREADS; cpu++) {
		int tid = q_thread_create(serving_thread, &s, cpu);

		if (tid < 0)
			break;		/* (-SYS_ENOMEM: the quota pays for no more) */
		tids[n++] = tid;
	}
	*threads = n + 1;
	if (n)
		printf("%s, from %d threads (CPUs 0-%d)\n", says, n + 1, n);
	else
		printf("%s, from 1 thread (CPU 0)\n", says);
	fflush(stdout);
	if (s.start.ntf >= 0)
		q_mutex_unlock(&s.start);
	r = serve_registered(&s);
	for (int i = 0; i < n; i++)
		q_thread_join(tids[i], &st);
	return r;
}

long q_serve_replying(int ep, bool (*handle)(unsigned long badge, const struct q_msg *req,
						struct q_msg *reply))
{
	struct q_msg m = { 0 }, req;
	long badge = q_recv(ep, &m);

	while (!SYS_IS_ERROR(badge)) {
		req = m;
		m = q_msg(q_msg_label(&req), 0, 0, 0, 0);
		if (handle(badge, &req, &m))
			badge = q_recv(ep, &m);
		else
			badge = q_reply_recv(ep, &m);	/* (the reply goes nowhere if req was a send) */
		/* (blocking in either put us offline: a quiescent state) */
	}
	return badge;
}

void q_entry_check(const char *who, unsigned long live)
{
	if (live != Q_ENTRY_LIVE)
		panic("%s: BUG: a reader met an entry freed under it (live word %#lx): a grace "
		      "period missing before the free?", who, live);
}

void q_entry_free(void *entry, size_t size, unsigned long *live)
{
	memset(entry, Q_POISON_BYTE, size);
	__atomic_store_n(live, Q_ENTRY_FREED, __ATOMIC_RELAXED);
	free(entry);
}

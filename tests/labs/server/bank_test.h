/*
 * The clients of lab server (docs/labs/server.md), each a user test
 * of this folder, which make grade boots as tests/user/NAME (user/user.mk's
 * LAB_TESTS): what they share.  bank_start() starts a name
 * server and the bank (user/bank), the bank with a capability to the
 * name server in its slot 0 and a quota of its own, and finds the front
 * desk by name, as any client does; bank_stop() kills both.
 *
 * A client that finds the bank doing wrong says what in a line that
 * starts "FAILED:", and the lesson in the next, "lesson: ..." (FAIL(),
 * LESSON()): the grader shows the first lines a test printed.  Each
 * test is also a program its own clients run as (bank_client_mode():
 * "tests/user/bank_x client ..."), so that a client is a task of its own
 * with only the capability it was given.
 */
#ifndef BANK_TEST_H
#define BANK_TEST_H

#include <stdio.h>
#include <string.h>
#include "qbank.h"
#include "utest.h"

#define BANK		"user/bank"
#define NAMESERVER	"user/nameserver"
#define BANK_NS_TASK	200	/* our slots for the task capabilities */
#define BANK_TASK	201
/*
 * The bank's share of ours: everything it is made of is charged to it
 * (docs/microkernel.md, "Quotas"): its program, its first stack (128 KiB
 * alone), kernel stacks, page tables and capability table, then the
 * accounts its clients open.
 */
#define BANK_QUOTA_KB	512
#define BANK_FIND_MS	20000	/* how long the bank may take to register (a loaded host) */

/* The lessons: what a failed check prints under what went wrong. */
#define GO_ON		"a server answers a bad request with an error reply, and goes on serving"
#define ANSWER_ERRORS	"a request the server cannot do gets an error reply, and changes nothing"
#define BADGED		"hand out only badged send capabilities: an unbadged one mints any badge"
#define SEND_ONLY	"hand out send-only capabilities: one that can receive takes others' calls"
#define RIGHTS_IN_BADGE	"rights a server defines live in the badge, which the holder cannot change"
#define NO_MORE		"a share never gives more rights than the caller's capability has"
#define NO_LEAK		"delete each capability a request brought, and your copy of what a reply gave"
#define SERVES		"the protocol (user/include/qbank.h): what a correct request gets"

/* What went wrong (printf's arguments) and its lesson; counted as CHECK() counts. */
#define FAIL(lesson, ...)						\
	do {								\
		printf("FAILED: " __VA_ARGS__);				\
		printf(" (%s:%d)\nlesson: %s\n", __FILE__, __LINE__, lesson);	\
		utest_failed();						\
	} while (0)

#define LESSON(cond, lesson, ...)					\
	do {								\
		if (!(cond))						\
			FAIL(lesson, __VA_ARGS__);			\
	} while (0)

struct bank {
	int ns;		/* the name server: send and grant */
	int quota;	/* the bank's quota (read its counts) */
	int front;	/* the front desk, from the name server */
	struct sys_exit_status end;	/* how the bank ended, once bank_ended */
	int ended;
};

static struct bank bank;

/* Waits for the bank's end (a thread of ours): a bank that ends early is seen at once. */
static int bank_watch(void *arg)
{
	(void)arg;
	q_wait_for(BANK_TASK, &bank.end);
	__atomic_store_n(&bank.ended, 1, __ATOMIC_RELEASE);
	return 0;
}

static int bank_watcher;

/* The bank, started and found through the name server: 0, or the test cannot go on. */
static inline int bank_start(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), ns_bank;
	uint64_t end = q_clock_ns() + (uint64_t)BANK_FIND_MS * 1000000;
	long r = -SYS_ENOENT;

	memset(&bank, 0, sizeof(bank));
	CHECK(ep >= 0 && q_spawn_caps(NAMESERVER, &ep, 1, BANK_NS_TASK) > 0);
	bank.ns = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE | SYS_CAP_GRANT, 1);
	ns_bank = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE | SYS_CAP_GRANT, 2);
	q_cap_delete(ep);		/* the name server's is the one that receives */
	bank.quota = q_quota_create(SYS_CAP_ANY_SLOT, BANK_QUOTA_KB);
	if (q_spawn_quota(BANK, bank.quota, &ns_bank, 1, BANK_TASK) < 0) {
		FAIL(SERVES, "%s did not start", BANK);
		return -1;
	}
	q_cap_delete(ns_bank);
	bank_watcher = q_thread_create(bank_watch, NULL, SYS_CPU_ANY);
	while (r == -SYS_ENOENT && !__atomic_load_n(&bank.ended, __ATOMIC_ACQUIRE) &&
	       q_clock_ns() < end) {
		r = q_ns_lookup(bank.ns, BANK_NAME);
		if (r == -SYS_ENOENT)
			q_sleep_ns(2000000);
	}
	bank.front = r;
	if (r >= 0)
		return 0;
	if (__atomic_load_n(&bank.ended, __ATOMIC_ACQUIRE))
		FAIL(SERVES, "the bank ended (%s %d) before it registered \"%s\" with the name "
		     "server", bank.end.killed ? "killed, reason" : "exit status",
		     bank.end.killed ? bank.end.killed : bank.end.status, BANK_NAME);
	else
		FAIL(SERVES, "no \"%s\" at the name server %d s after the bank started (%ld)",
		     BANK_NAME, BANK_FIND_MS / 1000, r);
	return -1;
}

/* Is the bank still serving?  (after a request that a bank might die of) */
static inline int bank_alive(int account)
{
	unsigned long b;
	long r = q_bank_balance(account, &b);

	return r != -SYS_EPIPE && !__atomic_load_n(&bank.ended, __ATOMIC_ACQUIRE);
}

static inline void bank_stop(void)
{
	struct sys_exit_status st;

	q_kill(BANK_TASK);
	if (bank_watcher > 0)
		q_thread_join(bank_watcher, &st);
	q_kill(BANK_NS_TASK);
	q_wait_for(BANK_NS_TASK, &st);
	q_cap_delete(BANK_TASK);
	q_cap_delete(BANK_NS_TASK);
}

/* Starts this test's own program as a client with cap in its slot 0: its task id, or -error. */
static inline int bank_client(const char *self, const char *args, int cap, int task_slot)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "%s client %s", self, args);
	return q_spawn_caps(cmd, &cap, 1, task_slot);
}

/* argv says this program runs as a client (bank_client()). */
static inline int bank_client_mode(int argc, char **argv)
{
	return argc > 1 && !strcmp(argv[1], "client");
}

#endif

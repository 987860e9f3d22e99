/*
 * Lab server, part deaths (docs/labs/server.md): tasks die around the
 * bank.  A client task killed in the middle of its calls (KILLS times,
 * each after it made some) leaves the bank serving the others: the reply
 * it owed goes nowhere, and that is no reason to stop.  Then the bank is
 * killed under clients calling it from THREADS threads: each call wakes
 * with -EPIPE -- the only capability that could receive went with the
 * bank, so nobody can ever answer -- and every later call fails at once.
 */
#include "bank_test.h"

#define SELF		"tests/user/bank_deaths"
#define CLIENT_TASK	300
#define KILLS		5
#define THREADS		3
#define WAIT_MS		10000

/* A client task: deposits 1 into the account in its slot 0 until it is killed. */
static int client(void)
{
	while (q_bank_deposit(0, 1) == 0)
		;
	return 1;
}

static unsigned long balance_of(long acct)
{
	unsigned long b = 0;

	q_bank_balance(acct, &b);
	return b;
}

/* Until the account's balance passed n (the client is calling), or WAIT_MS. */
static int calls_came(long acct, unsigned long n)
{
	uint64_t end = q_clock_ns() + (uint64_t)WAIT_MS * 1000000;

	while (balance_of(acct) <= n && q_clock_ns() < end)
		q_sleep_ns(1000000);
	return balance_of(acct) > n;
}

static void clients_killed(long acct)
{
	struct sys_exit_status st;

	for (int i = 0; i < KILLS; i++) {
		unsigned long before = balance_of(acct);

		CHECK(bank_client(SELF, "", acct, CLIENT_TASK) > 0);
		CHECK(calls_came(acct, before + 10 * i));
		CHECK_EQ(q_kill(CLIENT_TASK), 0);
		CHECK_EQ(q_wait_for(CLIENT_TASK, &st), 0);
		CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
		q_cap_delete(CLIENT_TASK);
		if (!bank_alive(acct)) {
			FAIL("a reply that goes nowhere (its caller died) is no reason to stop",
			     "the bank stopped serving after a client task was killed mid-call");
			return;
		}
	}
}

static long thread_acct[THREADS];

static int caller(void *arg)
{
	long acct = thread_acct[(long)arg], r;

	while ((r = q_bank_deposit(acct, 1)) == 0)
		;
	return r == -SYS_EPIPE ? 0 : 1;
}

static void bank_killed(void)
{
	struct sys_exit_status st;
	int tid[THREADS];
	long r;

	for (long i = 0; i < THREADS; i++) {
		thread_acct[i] = q_bank_open(bank.front);
		tid[i] = q_thread_create(caller, (void *)i, SYS_CPU_ANY);
		CHECK(thread_acct[i] >= 0 && tid[i] > 0);
		CHECK(calls_came(thread_acct[i], 0));
	}
	CHECK_EQ(q_kill(BANK_TASK), 0);
	for (int i = 0; i < THREADS; i++) {
		CHECK_EQ(q_thread_join(tid[i], &st), 0);
		LESSON(st.status == 0, SEND_ONLY, "a client's call ended with an error other than "
		       "-EPIPE once the bank was killed");
	}
	r = q_bank_deposit(thread_acct[0], 1);
	LESSON(r == -SYS_EPIPE, SEND_ONLY, "a call to the killed bank answered %ld, not -EPIPE",
	       r);
}

int main(int argc, char **argv)
{
	long acct;

	if (bank_client_mode(argc, argv))
		return client();
	if (bank_start())
		return 1;
	acct = q_bank_open(bank.front);
	CHECK(acct >= 0);
	clients_killed(acct);
	bank_killed();
	bank_stop();
	return check_result();
}

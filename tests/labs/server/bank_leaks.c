/*
 * Lab server, part leaks (docs/labs/server.md): requests that bring the
 * bank a capability (a transfer's, and ones nobody asked for) or take one
 * from it (a share) leave it holding no more than before.  A capability
 * is memory charged to the bank's quota, which we carved for it and can
 * read: ROUNDS of such requests must leave the quota's use where it was,
 * give or take SLACK_BYTES (a capability kept per request is ROUNDS
 * nodes, and the table grown to hold them).
 */
#include "bank_test.h"

#define ROUNDS		100
#define SLACK_BYTES	4096
#define SETTLE_MS	3000	/* what the bank deleted is freed a grace period later */

static long used(void)
{
	struct sys_quota_info q;

	return q_quota_info(bank.quota, &q) ? -1 : q.used;
}

/* One round: a share (its capability deleted), a transfer, a balance with a stray capability. */
static void round_trip(long acct, long to, int stray)
{
	struct q_msg m = q_msg(BANK_BALANCE, 0, 0, 0, 0);
	long share = q_bank_share(acct, BANK_R_BALANCE);

	CHECK(share >= 0);
	if (share >= 0)
		q_cap_delete(share);
	CHECK_EQ(q_bank_transfer(acct, 1, to), 0);
	q_msg_give_cap(&m, stray);
	CHECK(q_call(acct, &m) == 0 && m.w[0] == 0);
}

int main(void)
{
	int stray = q_notification_create(SYS_CAP_ANY_SLOT);
	long acct, to, before, after;
	uint64_t end;

	if (bank_start())
		return 1;
	acct = q_bank_open(bank.front);
	to = q_bank_open(bank.front);
	CHECK(acct >= 0 && to >= 0);
	CHECK_EQ(q_bank_deposit(acct, 10 * ROUNDS), 0);
	round_trip(acct, to, stray);		/* (whatever the first of each allocates) */
	before = used();
	for (int i = 0; i < ROUNDS; i++)
		round_trip(acct, to, stray);
	end = q_clock_ns() + (uint64_t)SETTLE_MS * 1000000;
	do {
		q_sleep_ns(10000000);
		after = used();
	} while (after > before + SLACK_BYTES && q_clock_ns() < end);
	LESSON(after <= before + SLACK_BYTES, NO_LEAK, "the bank's quota grew by %ld bytes over %d "
	       "requests that bring or take a capability: it keeps one per request",
	       after - before, 3 * ROUNDS);
	LESSON(bank_alive(acct), GO_ON, "the bank stopped serving during the rounds");
	bank_stop();
	return check_result();
}

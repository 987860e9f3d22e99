/*
 * Lab server, part errors (docs/labs/server.md): every bad request gets
 * its error reply, changes nothing, and the bank goes on serving.  Each
 * request below is one a client may send by mistake or on purpose: an
 * unknown label, an amount out of range, more than the balance, rights
 * nobody has, a transfer without a capability or with one that is not
 * an account of this bank.  After each, the bank must still answer, and
 * the balance must be what it was.
 */
#include "bank_test.h"

#define START		500	/* the account's balance */

static long acct = -1;

struct bad {
	const char *what;
	unsigned int label;
	unsigned long w1;
	int via_front;		/* sent through the front desk, not the account */
	int cap;		/* a capability sent with it (-1: none) */
	long want;
};

static long send_bad(const struct bad *b)
{
	struct q_msg m = q_msg(b->label, 0, b->w1, 0, 0);
	long r;

	if (b->cap >= 0)
		q_msg_give_cap(&m, b->cap);
	r = q_call(b->via_front ? bank.front : acct, &m);
	return r < 0 ? r : (long)m.w[0];
}

/* Sends it; 0 if the bank can go on (it answered and still serves). */
static int try_bad(const struct bad *b)
{
	unsigned long bal = 0;
	long r = send_bad(b), after;

	if (r == -SYS_EPIPE || !bank_alive(acct)) {
		FAIL(GO_ON, "the bank stopped serving after %s (calls now fail with -EPIPE)",
		     b->what);
		return -1;
	}
	LESSON(r == b->want, ANSWER_ERRORS, "%s was answered %ld, not %ld", b->what, r,
	       b->want);
	after = q_bank_balance(acct, &bal);
	LESSON(after == 0 && bal == START, ANSWER_ERRORS, "after %s the balance is %lu, not %d",
	       b->what, bal, START);
	return 0;
}

int main(void)
{
	int ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	int other = q_endpoint_create(SYS_CAP_ANY_SLOT), fake;
	struct sys_cap_info info = { 0 };
	long second;

	if (bank_start())
		return 1;
	acct = q_bank_open(bank.front);
	second = q_bank_open(bank.front);
	CHECK(acct >= 0 && second >= 0);
	CHECK_EQ(q_bank_deposit(acct, START), 0);
	/* Another endpoint's capability with our account's very badge. */
	CHECK_EQ(q_cap_inspect(acct, &info), 0);
	fake = q_cap_mint(other, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, info.badge);
	{
		const struct bad bad[] = {
			{ "an unknown label (99)", 99, 0, 0, -1, -SYS_EINVAL },
			{ "label 0", 0, 0, 0, -1, -SYS_EINVAL },
			{ "BANK_OPEN through an account", BANK_OPEN, 0, 0, -1, -SYS_EACCES },
			{ "BANK_BALANCE through the front desk", BANK_BALANCE, 0, 1, -1, -SYS_EACCES },
			{ "BANK_WITHDRAW through the front desk", BANK_WITHDRAW, 1, 1, -1,
			  -SYS_EACCES },
			{ "BANK_DEPOSIT of 0", BANK_DEPOSIT, 0, 0, -1, -SYS_EINVAL },
			{ "BANK_DEPOSIT of BANK_MAX + 1", BANK_DEPOSIT, BANK_MAX + 1, 0, -1,
			  -SYS_EINVAL },
			{ "BANK_DEPOSIT of -5", BANK_DEPOSIT, -5UL, 0, -1, -SYS_EINVAL },
			{ "BANK_DEPOSIT of BANK_MAX (the balance would pass it)", BANK_DEPOSIT,
			  BANK_MAX, 0, -1, -SYS_EINVAL },
			{ "BANK_WITHDRAW of 0", BANK_WITHDRAW, 0, 0, -1, -SYS_EINVAL },
			{ "BANK_WITHDRAW of more than the balance", BANK_WITHDRAW, START + 1, 0, -1,
			  -SYS_EAGAIN },
			{ "BANK_WITHDRAW of -1", BANK_WITHDRAW, -1UL, 0, -1, -SYS_EINVAL },
			{ "BANK_SHARE of a right that does not exist (8)", BANK_SHARE, 8, 0, -1,
			  -SYS_EINVAL },
			{ "BANK_TRANSFER without a capability", BANK_TRANSFER, 1, 0, -1, -SYS_EINVAL },
			{ "BANK_TRANSFER with a notification", BANK_TRANSFER, 1, 0, ntf, -SYS_EINVAL },
			{ "BANK_TRANSFER with another endpoint's capability that has our account's "
			  "badge", BANK_TRANSFER, 1, 0, fake, -SYS_EINVAL },
			{ "BANK_TRANSFER with the front desk", BANK_TRANSFER, 1, 0, bank.front,
			  -SYS_EINVAL },
			{ "BANK_TRANSFER of more than the balance", BANK_TRANSFER, START + 1, 0, second,
			  -SYS_EAGAIN },
			{ "BANK_TRANSFER of 0", BANK_TRANSFER, 0, 0, second, -SYS_EINVAL },
		};

		for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (try_bad(&bad[i]))
				break;
	}
	bank_stop();
	return check_result();
}

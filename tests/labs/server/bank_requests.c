/*
 * Lab server, part serves (docs/labs/server.md): the bank answers correct
 * requests.  Accounts opened through the front desk; deposits, withdrawals
 * and balances; a capability shared with fewer rights that still does
 * what its rights allow; a transfer to another account; and two client
 * tasks at once, each with its own account, whose deposits all count.
 */
#include <stdlib.h>
#include "bank_test.h"

#define SELF		"tests/user/bank_requests"
#define CLIENTS		2
#define CLIENT_TASK	300
#define DEPOSITS	40

static unsigned long balance_of(int account)
{
	unsigned long b = ~0UL;
	long r = q_bank_balance(account, &b);

	LESSON(r == 0, SERVES, "BANK_BALANCE was answered %ld, not 0", r);
	return b;
}

static void one_account(void)
{
	long a = q_bank_open(bank.front), b, share;

	LESSON(a >= 0, SERVES, "BANK_OPEN through the front desk: %ld, not a capability", a);
	if (a < 0)
		return;
	CHECK_EQ(balance_of(a), 0);
	LESSON(q_bank_deposit(a, 100) == 0, SERVES, "BANK_DEPOSIT of 100 into a new account failed");
	LESSON(q_bank_withdraw(a, 30) == 0, SERVES, "BANK_WITHDRAW of 30 of its 100 failed");
	CHECK_EQ(balance_of(a), 70);

	/* Fewer rights: what they allow still works, on the same account. */
	share = q_bank_share(a, BANK_R_BALANCE | BANK_R_DEPOSIT);
	LESSON(share >= 0, SERVES, "BANK_SHARE of BANK_R_BALANCE|BANK_R_DEPOSIT: %ld", share);
	if (share >= 0) {
		LESSON(q_bank_deposit(share, 5) == 0, SERVES,
		       "a deposit through a shared capability failed");
		CHECK_EQ(balance_of(share), 75);
	}

	/* A transfer to a second account, through a capability that may only deposit. */
	b = q_bank_open(bank.front);
	LESSON(b >= 0, SERVES, "a second BANK_OPEN was answered %ld", b);
	if (b < 0)
		return;
	share = q_bank_share(b, BANK_R_DEPOSIT);
	LESSON(q_bank_transfer(a, 25, share) == 0, SERVES,
	       "BANK_TRANSFER of 25 to another account (its capability with BANK_R_DEPOSIT) failed");
	CHECK_EQ(balance_of(a), 50);
	CHECK_EQ(balance_of(b), 25);
}

/* A client task: DEPOSITS deposits of 1 into the account in its slot 0. */
static int client(void)
{
	unsigned long b;
	int bad = 0;

	for (int i = 0; i < DEPOSITS; i++)
		bad += q_bank_deposit(0, 1) != 0;
	return bad || q_bank_balance(0, &b) || b != DEPOSITS;
}

static void clients_at_once(void)
{
	struct sys_exit_status st;
	long acct[CLIENTS];

	for (int i = 0; i < CLIENTS; i++) {
		acct[i] = q_bank_open(bank.front);
		CHECK(acct[i] >= 0 && bank_client(SELF, "", acct[i], CLIENT_TASK + i) > 0);
	}
	for (int i = 0; i < CLIENTS; i++) {
		CHECK_EQ(q_wait_for(CLIENT_TASK + i, &st), 0);
		LESSON(!st.killed && !st.status, SERVES, "client task %d: its %d deposits did not "
		       "all count", i + 1, DEPOSITS);
		CHECK_EQ(balance_of(acct[i]), DEPOSITS);
	}
}

int main(int argc, char **argv)
{
	if (bank_client_mode(argc, argv))
		return client();
	if (bank_start())
		return 1;
	one_account();
	clients_at_once();
	bank_stop();
	return check_result();
}

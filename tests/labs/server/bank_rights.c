/*
 * Lab server, part rights (docs/labs/server.md): the bank's capability
 * design.  What it hands out can send and nothing more (no receive right:
 * a holder could take other clients' calls), and carries a badge: a
 * holder of an unbadged send capability mints itself any badge, so the
 * front desk's and each account's must have one.  A capability shared
 * with fewer rights gets a badge of its own -- the bank's rights live in
 * the badge, which the holder cannot change -- and a client task holding
 * only that capability is refused what its rights do not allow, and
 * served what they do.
 */
#include <stdlib.h>
#include "bank_test.h"

#define SELF		"tests/user/bank_rights"
#define CLIENT_TASK	300

/* Its kernel rights and badge; 0 if it is an endpoint capability. */
static int inspect(long cap, struct sys_cap_info *info)
{
	return cap >= 0 && !q_cap_inspect(cap, info) && info->type == SYS_OBJ_ENDPOINT ? 0 : -1;
}

/* The front desk: send only, badged; else show what its holder can do. */
static void front_desk(long acct)
{
	struct sys_cap_info info, mine;
	int forged;

	CHECK_EQ(inspect(bank.front, &info), 0);
	LESSON(!(info.rights & SYS_CAP_READ), SEND_ONLY, "the front desk capability (from the "
	       "name server) can receive");
	if (info.badge || inspect(acct, &mine))
		return;
	/* Unbadged: mint ourselves our own account's badge, and withdraw through it. */
	forged = q_cap_mint(bank.front, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, mine.badge);
	FAIL(BADGED, "the front desk capability has no badge: we minted an account's badge (%lu) "
	     "from it and withdrew (%ld)", mine.badge,
	     forged < 0 ? (long)forged : q_bank_withdraw(forged, 1));
}

/* An account's capability: send only, badged, its badge fixed. */
static void account(long acct)
{
	struct sys_cap_info info;

	if (inspect(acct, &info)) {
		FAIL(SERVES, "BANK_OPEN's capability is not an endpoint capability");
		return;
	}
	LESSON(!(info.rights & SYS_CAP_READ), SEND_ONLY, "an account capability can receive");
	LESSON(info.badge, BADGED, "an account capability has no badge");
	if (info.badge)		/* (the kernel's promise, which the design relies on) */
		CHECK_EQ(q_cap_mint(acct, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, info.badge + 1),
			 -SYS_EPERM);
}

/* A client task with only a BANK_R_BALANCE capability. */
static int balance_only_client(void)
{
	unsigned long b;
	long r;

	r = q_bank_balance(0, &b);
	LESSON(r == 0, SERVES, "a client task with BANK_R_BALANCE read no balance (%ld)", r);
	r = q_bank_withdraw(0, 1);
	LESSON(r == -SYS_EACCES, RIGHTS_IN_BADGE, "a client task given BANK_R_BALANCE only "
	       "withdrew (answer %ld, not -EACCES)", r);
	r = q_bank_deposit(0, 1);
	LESSON(r == -SYS_EACCES, RIGHTS_IN_BADGE, "a client task given BANK_R_BALANCE only "
	       "deposited (answer %ld, not -EACCES)", r);
	r = q_bank_share(0, BANK_R_ALL);
	LESSON(r == -SYS_EACCES, NO_MORE, "a client task given BANK_R_BALANCE only was shared "
	       "every right (answer %ld, not -EACCES)", r);
	return check_result();
}

static void fewer_rights(long acct)
{
	struct sys_exit_status st;
	struct sys_cap_info full, less;
	long share = q_bank_share(acct, BANK_R_BALANCE);

	LESSON(share >= 0, SERVES, "BANK_SHARE of BANK_R_BALANCE was answered %ld", share);
	if (share < 0 || inspect(acct, &full) || inspect(share, &less))
		return;
	LESSON(less.badge != full.badge, RIGHTS_IN_BADGE, "a share of BANK_R_BALANCE only has "
	       "the badge of the account's capability with every right (%lu)", full.badge);
	CHECK(bank_client(SELF, "", share, CLIENT_TASK) > 0);
	CHECK_EQ(q_wait_for(CLIENT_TASK, &st), 0);
	LESSON(!st.killed, SERVES, "the client task was killed (reason %d)", st.killed);
	CHECK_EQ(st.status, 0);
	q_cap_delete(CLIENT_TASK);
}

int main(int argc, char **argv)
{
	long acct;

	if (bank_client_mode(argc, argv))
		return balance_only_client();
	if (bank_start())
		return 1;
	acct = q_bank_open(bank.front);
	CHECK(acct >= 0);
	CHECK_EQ(q_bank_deposit(acct, 100), 0);
	front_desk(acct);
	account(acct);
	fewer_rights(acct);
	bank_stop();
	return check_result();
}

/*
 * An unseen client of lab server (docs/labs/INSTRUCTOR.md, "Clients the
 * students never saw"): graded with part rights (its name matches the
 * part's tests, user_bank_rights*), in the instructor's make grade only.
 * A share of a share: a capability shared with BANK_R_BALANCE |
 * BANK_R_DEPOSIT, shared again, never yields BANK_R_WITHDRAW, and what it
 * yields with BANK_R_DEPOSIT deposits but cannot read the balance.  A
 * bank that checks a share against the account's rights instead of the
 * caller's capability fails it.
 */
#include "bank_test.h"

int main(void)
{
	unsigned long b;
	long acct, middle, last, r;

	if (bank_start())
		return 1;
	acct = q_bank_open(bank.front);
	CHECK(acct >= 0 && q_bank_deposit(acct, 10) == 0);
	middle = q_bank_share(acct, BANK_R_BALANCE | BANK_R_DEPOSIT);
	CHECK(middle >= 0);
	r = q_bank_share(middle, BANK_R_WITHDRAW);
	LESSON(r == -SYS_EACCES, NO_MORE, "a share of a capability without BANK_R_WITHDRAW was "
	       "given it (answer %ld, not -EACCES)", r);
	last = q_bank_share(middle, BANK_R_DEPOSIT);
	CHECK(last >= 0);
	CHECK_EQ(q_bank_deposit(last, 5), 0);
	r = q_bank_balance(last, &b);
	LESSON(r == -SYS_EACCES, RIGHTS_IN_BADGE, "a capability shared with BANK_R_DEPOSIT only "
	       "read the balance (answer %ld, not -EACCES)", r);
	CHECK(q_bank_balance(acct, &b) == 0 && b == 15);
	bank_stop();
	return check_result();
}

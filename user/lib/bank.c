/*
 * Client calls of the bank (user/include/qbank.h, lab server): each packs
 * a message, calls, and returns the bank's answer or the kernel's error.
 */
#include "qbank.h"

long q_bank_open(int front)
{
	struct q_msg m = q_msg(BANK_OPEN, 0, 0, 0, 0);

	return q_call_for_cap(front, &m);
}

long q_bank_balance(int account, unsigned long *balance)
{
	struct q_msg m = q_msg(BANK_BALANCE, 0, 0, 0, 0);
	long r = q_call_answer(account, &m);

	if (r == 0)
		*balance = m.w[1];
	return r;
}

long q_bank_deposit(int account, unsigned long amount)
{
	struct q_msg m = q_msg(BANK_DEPOSIT, 0, amount, 0, 0);

	return q_call_answer(account, &m);
}

long q_bank_withdraw(int account, unsigned long amount)
{
	struct q_msg m = q_msg(BANK_WITHDRAW, 0, amount, 0, 0);

	return q_call_answer(account, &m);
}

long q_bank_share(int account, unsigned int rights)
{
	struct q_msg m = q_msg(BANK_SHARE, 0, rights, 0, 0);

	return q_call_for_cap(account, &m);
}

long q_bank_transfer(int account, unsigned long amount, int to)
{
	struct q_msg m = q_msg(BANK_TRANSFER, 0, amount, 0, 0);

	q_msg_give_cap(&m, to);
	return q_call_answer(account, &m);
}

/*
 * The bank's protocol (lab server: docs/labs/server.md): what the bank
 * (user/bank.c) and its clients agree on, and the client calls over it.
 *
 * The bank is started with a capability to the name server in its slot 0
 * and registers "bank" there: the front desk, a capability that can open
 * accounts and do nothing else.  An account is reached only through the
 * capabilities the bank hands out in its replies (BANK_OPEN, BANK_SHARE),
 * each with a set of the bank's own rights (BANK_R_*): whoever holds one
 * may do what its rights allow, whatever it sends.
 *
 * Every reply's w[0] is 0 or a negative error; the client calls return
 * it, or the kernel's error if the call itself failed (-SYS_EPIPE: the
 * bank is gone).  Any request may be answered -SYS_EINVAL (an unknown
 * label, or an argument out of range) or -SYS_EACCES (a right missing);
 * a capability sent with any request but BANK_TRANSFER is dropped by the
 * bank, which answers the request as if it came alone.
 */
#ifndef QBANK_H
#define QBANK_H

#include "qservices.h"

#define BANK_NAME	"bank"		/* the front desk's name at the name server */

/* The bank's rights, carried by each account capability it hands out. */
#define BANK_R_BALANCE	1	/* read the balance */
#define BANK_R_DEPOSIT	2	/* put money in; receive a transfer */
#define BANK_R_WITHDRAW	4	/* take money out; transfer it away */
#define BANK_R_ALL	7

#define BANK_MAX	1000000000000UL	/* no amount and no balance is larger */

/*
 * The labels: w1 is the amount or the rights asked for.  Amounts are 1
 * to BANK_MAX (-SYS_EINVAL otherwise); a request that fails changes
 * nothing.
 */
#define BANK_OPEN	1	/* front desk only: -> 0 and a capability to a new account
				   (balance 0, every right); -ENOSPC: no room for one more */
#define BANK_BALANCE	2	/* BANK_R_BALANCE: -> 0, w1 = the balance */
#define BANK_DEPOSIT	3	/* BANK_R_DEPOSIT, w1 amount: -> 0; -EINVAL if the balance
				   would pass BANK_MAX */
#define BANK_WITHDRAW	4	/* BANK_R_WITHDRAW, w1 amount: -> 0; -EAGAIN: more than the
				   balance */
#define BANK_SHARE	5	/* w1 rights: -> 0 and a capability to the same account with
				   those rights; -EINVAL: a bit outside BANK_R_ALL; -EACCES: a
				   right the caller's capability lacks */
#define BANK_TRANSFER	6	/* BANK_R_WITHDRAW, w1 amount, with a capability to the
				   account it goes to, which needs BANK_R_DEPOSIT (-EACCES
				   otherwise): -> 0; -EINVAL: no capability, not an account
				   of this bank, or its balance would pass BANK_MAX;
				   -EAGAIN: more than the balance */

/* A new account through the front desk: its capability's slot, or -error. */
long q_bank_open(int front);
long q_bank_balance(int account, unsigned long *balance);
long q_bank_deposit(int account, unsigned long amount);
long q_bank_withdraw(int account, unsigned long amount);
/* A capability to the same account with rights, in a new slot: the slot, or -error. */
long q_bank_share(int account, unsigned int rights);
long q_bank_transfer(int account, unsigned long amount, int to);

#endif

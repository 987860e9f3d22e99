/*
 * The bank (lab server: docs/labs/server.md; the protocol is
 * user/include/qbank.h): accounts with balances, reached only through
 * capabilities the bank hands out.
 *
 * It is started with a capability to the name server in slot 0.  It
 * makes its endpoint and keeps the only capability that can receive on
 * it; everyone else gets send-only copies, each with a badge.  A badge
 * is all the bank learns of a caller, so the badge says everything the
 * bank needs: which account, and which of the bank's rights.  A client
 * cannot change the badge of a capability it was given (the kernel
 * refuses), and never holds an unbadged copy, from which it could mint
 * itself any badge.
 */
#include <stdio.h>
#include "qbank.h"

#define NS		0	/* the name server, from whoever started us */
#define FRONT_DESK	(-1)	/* the front desk's "account": it opens accounts, nothing else */
#define NOT_OURS	(-2)	/* no account of this bank */
#define MAX_ACCOUNTS	64

static unsigned long balance[MAX_ACCOUNTS];
static int nr_accounts;
static int ep = -1;		/* our endpoint: the one capability that receives on it */
static unsigned long ep_object;	/* its object number: every capability we hand out names it */
static int out = -1;		/* our copy of the capability in the last reply that had one */
static unsigned long served;

/* The badge of a capability to account with rights (FRONT_DESK: the front desk's). */
static unsigned long badge_of(int account, unsigned int rights)
{
	/* The rights in the low 3 bits, the account above: never 0, which is no badge. */
	return (unsigned long)(account + 2) << 3 | rights;
}

/* The account a badge names (FRONT_DESK, 0.., or NOT_OURS), its rights in *rights. */
static int account_of(unsigned long badge, unsigned int *rights)
{
	long account = (long)(badge >> 3) - 2;

	*rights = badge & BANK_R_ALL;
	if (account == FRONT_DESK)
		return *rights ? NOT_OURS : FRONT_DESK;
	return account >= 0 && account < nr_accounts ? (int)account : NOT_OURS;
}

/* The account a capability we received names, if it is one of ours. */
static int account_of_cap(int slot, unsigned int *rights)
{
	struct sys_cap_info info;

	if (slot < 0 || q_cap_inspect(slot, &info) || info.type != SYS_OBJ_ENDPOINT ||
	    info.object != ep_object)
		return NOT_OURS;	/* none, or another endpoint: its badge means nothing */
	return account_of(info.badge, rights);
}

/*
 * A capability to account with rights, in the reply: send and grant (a
 * transfer sends one), never receive.  We give a copy, and keep ours until
 * the next reply that has one, then delete it: one at a time, never one
 * per request.  (A moved one would stay with us if the caller set no
 * receive slot.)
 */
static long hand_out(struct q_msg *reply, int account, unsigned int rights)
{
	if (out >= 0)
		q_cap_delete(out);	/* that reply went long ago */
	out = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE | SYS_CAP_GRANT,
			 badge_of(account, rights));
	if (out < 0)
		return out;
	q_msg_give_cap(reply, out);
	return 0;
}

static long open_account(struct q_msg *reply)
{
	long r;

	if (nr_accounts == MAX_ACCOUNTS)
		return -SYS_ENOSPC;
	r = hand_out(reply, nr_accounts, BANK_R_ALL);
	if (!r)
		balance[nr_accounts++] = 0;
	return r;
}

static int amount_ok(unsigned long amount)
{
	return amount >= 1 && amount <= BANK_MAX;
}

/* amount from account a to the account of the capability `to`. */
static long transfer(int a, unsigned long amount, int to)
{
	unsigned int rights;
	int b = account_of_cap(to, &rights);

	if (b < 0 || !amount_ok(amount))
		return -SYS_EINVAL;
	if (!(rights & BANK_R_DEPOSIT))
		return -SYS_EACCES;
	if (amount > balance[a])
		return -SYS_EAGAIN;
	if (b != a && balance[b] > BANK_MAX - amount)
		return -SYS_EINVAL;
	balance[a] -= amount;
	balance[b] += amount;
	return 0;
}

/* A request on account a through a capability with rights. */
static long serve_account(int a, unsigned int rights, const struct q_msg *req,
			  struct q_msg *reply)
{
	static const unsigned int needs[] = {
		[BANK_BALANCE] = BANK_R_BALANCE, [BANK_DEPOSIT] = BANK_R_DEPOSIT,
		[BANK_WITHDRAW] = BANK_R_WITHDRAW, [BANK_SHARE] = 0,
		[BANK_TRANSFER] = BANK_R_WITHDRAW,
	};
	unsigned int label = q_msg_label(req);
	unsigned long arg = req->w[1];

	if ((rights & needs[label]) != needs[label])
		return -SYS_EACCES;
	switch (label) {
	case BANK_BALANCE:
		reply->w[1] = balance[a];
		return 0;
	case BANK_DEPOSIT:
		if (!amount_ok(arg) || balance[a] > BANK_MAX - arg)
			return -SYS_EINVAL;
		balance[a] += arg;
		return 0;
	case BANK_WITHDRAW:
		if (!amount_ok(arg))
			return -SYS_EINVAL;
		if (arg > balance[a])
			return -SYS_EAGAIN;
		balance[a] -= arg;
		return 0;
	case BANK_SHARE:
		if (arg & ~(unsigned long)BANK_R_ALL)
			return -SYS_EINVAL;
		if (arg & ~(unsigned long)rights)
			return -SYS_EACCES;	/* never more than the caller holds */
		return hand_out(reply, a, arg);
	default:
		return transfer(a, arg, q_msg_cap(req));
	}
}

static long handle(unsigned long badge, const struct q_msg *req, struct q_msg *reply,
		   void *arg)
{
	unsigned int rights, label = q_msg_label(req);
	int account = account_of(badge, &rights), cap = q_msg_cap(req);

	(void)arg;
	served++;
	if (label < BANK_OPEN || label > BANK_TRANSFER)
		reply->w[0] = -SYS_EINVAL;
	else if (label == BANK_OPEN)
		reply->w[0] = account == FRONT_DESK ? open_account(reply) : -SYS_EACCES;
	else if (account < 0)
		reply->w[0] = -SYS_EACCES;	/* the front desk opens accounts, nothing else */
	else
		reply->w[0] = serve_account(account, rights, req, reply);
	if (cap >= 0)
		q_cap_delete(cap);	/* a transfer's, or one nobody asked for: we keep none */
	return 0;			/* every request is answered; the bank goes on */
}

int main(void)
{
	struct sys_cap_info info;
	int front;
	long r;

	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	if (ep < 0 || q_cap_inspect(ep, &info)) {
		printf("bank: no endpoint (error %d)\n", ep);
		return 1;
	}
	ep_object = info.object;
	/* The front desk: send only (no receive, no capability with its calls), badged. */
	front = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, badge_of(FRONT_DESK, 0));
	r = front < 0 ? front : q_ns_register(NS, BANK_NAME, front);
	if (r) {
		printf("bank: cannot register \"%s\" (error %ld)\n", BANK_NAME, r);
		return 1;
	}
	q_recv_slot(SYS_CAP_ANY_SLOT);	/* a transfer brings a capability */
	printf("bank: task %d serves \"%s\"\n", q_task_id(), BANK_NAME);
	r = q_serve(ep, handle, NULL);
	printf("bank: ends (%ld) after %lu requests\n", r, served);
	return 1;
}

# Lab 9: write a server.  Handout: docs/labs/server.md
ORDER = 9
SUMMARY = "write a server in user space and its capability design: the bank"

# The student writes the whole bank (user/bank.c): every function of it
# is a stub.  The protocol (user/include/qbank.h), its client calls
# (user/lib/bank.c) and the clients that grade it (tests/labs/server/,
# user tests booted by make grade only, with the bank) are given.  The
# starter builds, starts, says it is a stub and ends: no "bank" is ever
# registered.
MAKE_VARS = ["LAB_TESTS=tests/labs/server", "LAB_PROGRAMS=user/bank"]
FUNCTIONS = [
    ("user/bank.c", "badge_of", """
	/* lab stub: badge_of: your capability design (docs/labs/server.md) */
	(void)account;
	(void)rights;
	return 0;
"""),
    ("user/bank.c", "account_of", """
	/* lab stub: account_of: a badge back into an account and its rights */
	(void)badge;
	*rights = 0;
	return NOT_OURS;
"""),
    ("user/bank.c", "account_of_cap", """
	/* lab stub: account_of_cap: is the capability a transfer brought one of ours? */
	(void)slot;
	*rights = 0;
	return NOT_OURS;
"""),
    ("user/bank.c", "hand_out", """
	/* lab stub: hand_out: a new capability in the reply */
	(void)reply;
	(void)account;
	(void)rights;
	(void)out;
	return -SYS_ENOSYS;
"""),
    ("user/bank.c", "open_account", """
	/* lab stub: open_account */
	(void)reply;
	(void)hand_out;
	return -SYS_ENOSYS;
"""),
    ("user/bank.c", "amount_ok", """
	/* lab stub: amount_ok: 1 to BANK_MAX */
	(void)amount;
	return 0;
"""),
    ("user/bank.c", "transfer", """
	/* lab stub: transfer */
	(void)a;
	(void)amount;
	(void)to;
	(void)account_of_cap;
	return -SYS_ENOSYS;
"""),
    ("user/bank.c", "serve_account", """
	/* lab stub: serve_account: BANK_BALANCE .. BANK_TRANSFER on account a */
	(void)a;
	(void)rights;
	(void)req;
	(void)reply;
	(void)amount_ok;
	(void)transfer;
	(void)balance;
	return -SYS_ENOSYS;
"""),
    ("user/bank.c", "handle", """
	/* lab stub: handle: one request, answered */
	(void)badge;
	(void)req;
	(void)arg;
	(void)account_of;
	(void)open_account;
	(void)serve_account;
	reply->w[0] = -SYS_ENOSYS;
	return 0;
"""),
    ("user/bank.c", "main", """
	/*
	 * lab stub: main: make the endpoint, register the front desk as
	 * BANK_NAME with the name server (slot NS), then serve with handle().
	 */
	(void)badge_of;
	(void)handle;
	(void)nr_accounts;
	(void)ep;
	(void)ep_object;
	(void)served;
	printf("bank: lab stub: main() (docs/labs/server.md)\\n");
	return 1;
"""),
]

# One boot runs every part's clients (SHARED_BOOT): each part is scored
# on its own tests' results.  An instructor's unseen clients
# (tools/labs/unseen/server/, docs/labs/INSTRUCTOR.md) join the part whose
# tests their names match.
SHARED_BOOT = True

PARTS = [
    {"id": "serves", "name": "correct requests, from two client tasks at once", "points": 20,
     "smp": [2], "tests": "user_bank_requests*", "timeout": 60},
    {"id": "errors", "name": "every bad request answered its error; the bank goes on",
     "points": 25, "smp": [2], "tests": "user_bank_errors*", "timeout": 60},
    {"id": "rights", "name": "badged send-only capabilities; fewer rights refused",
     "points": 25, "smp": [2], "tests": "user_bank_rights*", "timeout": 60},
    {"id": "leaks", "name": "no capability kept per request", "points": 15, "smp": [2],
     "tests": "user_bank_leaks*", "timeout": 60},
    {"id": "deaths", "name": "clients killed mid-call; the bank killed under its clients",
     "points": 15, "smp": [2], "tests": "user_bank_deaths*", "timeout": 60},
]

NOT_GRADED = [
    "the bank's speed, and how many accounts it holds (64 in the reference; -ENOSPC after)",
    "a bank of several threads: the clients call one at a time per task, and nothing "
    "here needs more",
]

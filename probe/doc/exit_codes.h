/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_EXIT_CODES_H
#define PMUGUARD_EXIT_CODES_H

/*
 * The command's exit codes, documented in the README and pmuguard(1): one
 * definition, for the subcommands that give them (../cli/, through cli.h)
 * and for status, which reads them as data from the children it runs
 * (`probe --check`, `canary`, `enforce status`).  Here, the lowest folder
 * both include, so that status names them without an arrow up to cli/.
 */
enum {
	EXIT_OK = 0,
	EXIT_INTERNAL = 1,
	EXIT_USAGE = 2,
	EXIT_HAZARD = 3,         /* probe --check: the fixed-counter-3 hazard is present */
	EXIT_ENFORCE_FAILED = 4, /* enforce start: the kernel could not attach the guard */
	EXIT_NO_ENFORCE = 5,     /* enforce: built without kernel enforcement */
	EXIT_NOT_ATTACHED = 6,   /* enforce status: nothing is attached */
	/* enforce start, status, ready: a denying guard is attached, and perf
	 * events of the counter-3 class opened before it still exist (listed):
	 * enabled, each still reaches the counter */
	EXIT_EXISTING_EVENTS = 7,
	/* enforce status: attached, but the self-test's canary was not refused:
	 * the program does not run, or whether it runs is unknown.  It does
	 * not protect the host. */
	EXIT_UNVERIFIED = 8,
	/* enforce status, ready: attached and running in audit mode, which
	 * attaches only where the policy found the hazard and then allows
	 * every call: it protects nothing. */
	EXIT_AUDIT = 9,
};

/* `pmuguard status` alone gives the host's state in LSB's status codes
 * (pmuguard(1), pmuguard-fleet(8)): decided by status_decide(). */
enum status_exit {
	STATUS_EXIT_OK = 0,          /* guarded, or no hazard */
	STATUS_EXIT_NOT_GUARDED = 3, /* the hazard, and nothing guards it, or PARTLY */
	STATUS_EXIT_UNKNOWN = 4,     /* no verdict: nothing can say the host is fine */
};

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seccomp supervisor: runs a command under a filter that sends
 * perf_event_open (and nothing else) to us, classifies each attr with the
 * same code as the preload shim, and answers ENOENT or lets the call
 * continue to the kernel.  Covers what LD_PRELOAD cannot: static binaries,
 * Go, inline syscall instructions, setuid steps.
 *
 * A safety guard against accidents, not a security boundary: a racing
 * thread can change the attr between our read and the kernel's.
 */
#ifndef PMUGUARD_SUPERVISE_H
#define PMUGUARD_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>

#include "classify.h"
#include "settings.h"

struct sup_options {
	struct guard_policy policy; /* what answers each call */
	/* What the audit table judges each call with: the same, or (run
	 * --audit under lock = yes) the facts the command line named, while
	 * the host's policy still answers. */
	struct guard_policy view;
	bool audit;           /* judge every call for the audit (sup_run's audit) */
	enum guard_log log;   /* quiet, warn or debug (settings.h) */
	enum guard_dest dest; /* where block lines go: stderr, syslog or nowhere */
	/* The preload judges the tree's dynamic programs too (auto mode):
	 * make a random cookie and export it as PMUGUARD_SECCOMP_COOKIE; the
	 * preload passes it with the calls it forwards.  Every call is still
	 * notified and judged here: any process of the tree can read the
	 * cookie, so it only spares the line of a call we let through that
	 * the preload has reported already (mode audit), never a denial. */
	bool preload_cookie;
	const char *facts_src; /* "live" or the snapshot directory, for the summary */
	const struct probe_facts *facts;
};

/* The cookie travels in guard_env_cookie_name (settings.h): 16 lowercase
 * hex digits.  Not a secret, and no call is let through for it. */
#define SUP_COOKIE_ENV guard_env_cookie_name

/* What --audit tells of every call the tree made: one row per distinct
 * (type, config), and the calls whose attr could not be read.  Data: the
 * command renders it. */
#define SUP_AUDIT_MAX 1024
struct sup_audit_row {
	uint32_t type;
	uint64_t config;
	unsigned long calls;
	enum guard_hit hit; /* judged with sup_options.view, whatever the policy */
	bool denied;
	bool in_process; /* answered by a guard inside the process (decide.h) */
};
struct sup_audit {
	struct sup_audit_row rows[SUP_AUDIT_MAX];
	unsigned n_rows;
	bool rows_full;                        /* more encodings than rows */
	unsigned long unreadable;              /* EFAULT: the kernel's to answer */
	unsigned long refused, refused_denied; /* reading refused: failed closed */
	int refused_err;
	bool complete; /* the tree was served to its end */
};

/* Run argv under the supervisor, as a child subreaper: it serves the tree
 * until its last process is gone, reaping every orphan (also as pid 1), and
 * ignores SIGPIPE (the command gets the disposition we were started with).
 * Returns the command's exit status (128+signal when it was killed), or
 * -errno with a message already printed when the command could not be
 * started under the filter.  audit, where not NULL, gets what every call
 * was (o->audit: the audit's table). */
int sup_run(char *const argv[], const struct sup_options *o, struct sup_audit *audit);

#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one decision of `pmuguard status`, a pure function of the model: the
 * verdict, which layer was seen to guard the host, whether events escape
 * it, and the exit code (LSB's status actions).  No I/O.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

bool status_digits(const char *s)
{
	return s && *s && strspn(s, "0123456789") == strlen(s);
}

const char *status_layer_word(unsigned layers)
{
	static const char *const words[] = {
		[0] = "none",
		[STATUS_LAYER_KERNEL] = "kernel",
		[STATUS_LAYER_PRELOAD] = "preload",
		[STATUS_LAYER_KERNEL | STATUS_LAYER_PRELOAD] = "kernel+preload",
	};
	return layers < sizeof(words) / sizeof(*words) ? words[layers] : "none";
}

void status_decide(struct status_decision *d, const struct status_model *m)
{
	memset(d, 0, sizeof(*d));
	const struct status_kernel_layer *k = &m->kernel;
	/* Exit 0 of the probe also covers facts that could not be read: the
	 * guard's state "unknown" is no proof of health. */
	d->verdict = m->probe_exit == EXIT_HAZARD                          ? STATUS_HAZARD
		     : m->probe_exit == EXIT_OK && !m->probe_guard_unknown ? STATUS_SAFE
									   : STATUS_UNKNOWN;
	/* The kernel guard's state as enforce status decided it and
	 * status_kernel_read() read it: attached is verified and denying
	 * (audit mode counts and allows), never the pin alone. */
	d->kernel = k->state;
	d->kernel_err = *k->err ? k->err : NULL;
	if (d->kernel == ENF_GUARD_DETACHED) {
		const char *why = k->why;
		const char *w = k->policy_reason;
		if (k->policy_would_attach)
			snprintf(d->kernel_why, sizeof(d->kernel_why), "%s", why ? why : "");
		else
			snprintf(d->kernel_why, sizeof(d->kernel_why),
				 "%s; the policy attaches nothing: %s", why ? why : "", w ? w : "");
		d->kernel_err = *d->kernel_why ? d->kernel_why : NULL;
	}
	d->verify_why = k->verify_why && *k->verify_why ? k->verify_why : NULL;

	/* A layer counts only where it was seen to work: the kernel guard's
	 * self-test passed; the library listed, loadable, and a canary started
	 * now as nobody was refused.  Under --root there is no process to ask:
	 * the tree's files decide by the same rules (listed as the loader
	 * parses the file, loadable as nobody, and the tree's policy file read
	 * by the guard's settings guards); what cannot be known there is
	 * unknown, never yes. */
	bool under_root = m->o->root && *m->o->root;
	enum status_policy_state tp = m->tree_policy.state;
	d->pre_guards = m->listed && m->loads &&
			(under_root ? tp == STATUS_POLICY_GUARDS : m->canary == STATUS_C_REFUSED);
	d->pre_unknown = under_root && m->listed && m->loads && tp == STATUS_POLICY_UNKNOWN;
	/* The preload honours PMUGUARD_MODE=off from any user's environment
	 * unless the policy is locked: said wherever it is listed, whatever
	 * made it so (a typo is locked: conf.h; install --no-lock is not). */
	d->unlocked = m->listed && m->policy_locked == 0;
	bool attached = d->kernel == ENF_GUARD_ATTACHED;
	d->layers =
		(attached ? STATUS_LAYER_KERNEL : 0) | (d->pre_guards ? STATUS_LAYER_PRELOAD : 0);

	/* A denying, verified guard cannot stop the events of the class that
	 * were allocated before it (the kernel judges an event once, at its
	 * allocation): enabled, one still panics the host, so it guards only
	 * PARTLY until their processes restart.  On a host without the hazard
	 * they are harmless, and none escapes. */
	if (d->verdict == STATUS_HAZARD && attached && k->existing_unguarded && k->existing_known) {
		d->partly = k->existing_hits.said;
		d->escaped_known = k->existing_hits.known;
		d->escaped = k->existing_hits.n;
		unsigned n = k->n_events;
		/* The events in order while they fit, room kept for the count of
		 * the rest: an entry that does not fit ends the list (none is
		 * skipped for a later, shorter one), and "N more" counts from
		 * the last one named. */
		const size_t size = sizeof(d->escaped_who), tail = 32;
		size_t at = 0;
		unsigned named = 0;
		for (; named < n; named++) {
			const char *pid = k->events[named].pid;
			const char *comm = k->events[named].comm;
			int w = snprintf(d->escaped_who + at, size - tail - at, "%spid %s %s",
					 named ? ", " : "", pid ? pid : "", comm ? comm : "");
			if (w < 0 || (size_t)w >= size - tail - at) {
				d->escaped_who[at] = '\0';
				break;
			}
			at += (size_t)w;
		}
		uint64_t rest = d->escaped_known && d->escaped > named ? d->escaped - named
				: d->escaped_known                     ? 0
								       : n - named;
		if (rest)
			snprintf(d->escaped_who + at, size - at, "%s%" PRIu64 " more",
				 named ? ", " : "", rest);
	}
	d->containers_covered = attached;
	d->guarded = d->layers != 0;
	d->protected_ = d->guarded && !d->partly;
	/* 3: the hazard and nothing guards, or events escape the guard; 4
	 * (LSB's "status unknown"): no verdict, so nothing can say the host is
	 * fine. */
	d->exit = STATUS_EXIT_OK;
	if (d->verdict == STATUS_HAZARD && !d->protected_)
		d->exit = STATUS_EXIT_NOT_GUARDED;
	if (d->verdict == STATUS_UNKNOWN ||
	    (d->verdict == STATUS_HAZARD && !d->protected_ && d->pre_unknown))
		d->exit = STATUS_EXIT_UNKNOWN;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy: what the guard does on this machine, per mode (policy.c).
 * Settings -> facts -> verdict -> policy is the one path every enforcer
 * takes; the classifier (classify.h) then judges each encoding against the
 * core PMU types the policy holds.
 */
#ifndef PMUGUARD_POLICY_H
#define PMUGUARD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

/* Ordered by strictness: a lock lets a request through only when it is
 * not below the policy file's mode. */
enum guard_mode { GUARD_OFF = 0, GUARD_AUDIT, GUARD_AUTO, GUARD_ALWAYS };

struct guard_policy {
	enum guard_mode mode;
	bool watch;      /* classify perf_event_open at all */
	bool enforce;    /* deny what the classifier hits (false in audit mode) */
	bool substitute; /* slots = substitute: count TOPDOWN.SLOTS as TOPDOWN.SLOTS_P
			    instead of denying it (the preload alone can) */
	/* Per core PMU type: the fixed counters whose encodings are denied
	 * there (bit n: counter n, within GUARD_RULE_HAZARD_ALL) and how its
	 * constraint table places encodings (enum guard_table); the rule is
	 * classify_rule.h.  core_types[0] is PERF_TYPE_RAW. */
	uint32_t core_types[PROBE_MAX_PMUS + 1];
	uint32_t core_hazard[PROBE_MAX_PMUS + 1];
	uint32_t core_table[PROBE_MAX_PMUS + 1];
	unsigned n_core;
	const char *reason; /* the verdict's reason, static storage */
};

/* Returns the mode, or -1 for a value that names none. */
int guard_mode_parse(const char *s);
/* The same for the len bytes at s (no NUL needed). */
int guard_mode_parse_n(const char *s, size_t len);
const char *guard_mode_name(enum guard_mode m);

/* The policy for a mode from the probe's facts and verdict. */
void guard_policy_init(struct guard_policy *p, enum guard_mode mode, const struct probe_facts *f,
		       const struct probe_verdict *v);

/* The guard could not read what it needs to decide (its policy file, for
 * a reason that passes): deny the class of every guarded counter (3-6) on
 * every core type the policy knows, for now.  Costs nothing where the cause is the fd limit:
 * the kernel could not have opened the event either. */
void guard_policy_fail_closed(struct guard_policy *p, const char *reason);

struct guard_settings; /* settings.h */

/* The probe (none in mode off) and the policy it gives under set, failing
 * closed where the policy file could not be read just now.  Whether TOPDOWN.SLOTS
 * may be substituted is the caller's (only the preload can). */
void guard_policy_for(const struct guard_settings *set, struct probe_facts *f,
		      struct probe_verdict *v, struct guard_policy *p);

#endif

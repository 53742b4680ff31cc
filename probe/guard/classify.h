/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The classifier: does a perf_event_attr land on fixed counter 3?  A pure
 * function of (type, config, the core PMU types); the policy decides what
 * to do about it.  Shared by the preload shim, the command and the seccomp
 * supervisor, so every path judges an encoding the same way.
 */
#ifndef PMUGUARD_CLASSIFY_H
#define PMUGUARD_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "classify_rule.h"
#include "probe.h"

_Static_assert(PROBE_MAX_PMUS + 1 <= GUARD_RULE_MAX_CORE,
	       "the rule judges every core type the probe can find");
_Static_assert(PROBE_TYPE_RAW == GUARD_RULE_TYPE_RAW, "PERF_TYPE_RAW");

/* Ordered by strictness: a lock lets a request through only when it is
 * not below the policy file's mode. */
enum guard_mode { GUARD_OFF = 0, GUARD_AUDIT, GUARD_AUTO, GUARD_ALWAYS };

struct guard_policy {
	enum guard_mode mode;
	bool watch;   /* classify perf_event_open at all */
	bool enforce; /* deny what the classifier hits (false in audit mode) */
	bool substitute; /* slots = substitute: count TOPDOWN.SLOTS as TOPDOWN.SLOTS_P
			    instead of denying it (the preload alone can) */
	uint32_t core_types[PROBE_MAX_PMUS + 1];
	unsigned n_core;
	const char *reason; /* the verdict's reason, static storage */
};

/* Is type one of this machine's core PMU types (PERF_TYPE_RAW always is)? */
bool guard_core_type(const struct guard_policy *p, uint32_t type);
enum guard_hit guard_classify(const struct guard_policy *p, uint32_t type, uint64_t config);
const char *guard_hit_name(enum guard_hit hit, uint64_t config);

/* TOPDOWN.SLOTS as TOPDOWN.SLOTS_P (event 0xa4, umask 0x01): the same count
 * on a general-purpose counter (the SDM's event list; what AWS's aperf and
 * toplev use where slots is not available), every other bit of config kept. */
#define GUARD_SLOTS_P 0x01a4u
uint64_t guard_slots_p(uint64_t config);

/* Returns the mode, or -1 for a value that names none. */
int guard_mode_parse(const char *s);
/* The same for the len bytes at s (no NUL needed). */
int guard_mode_parse_n(const char *s, size_t len);
const char *guard_mode_name(enum guard_mode m);

/* The policy for a mode from the probe's facts and verdict. */
void guard_policy_init(struct guard_policy *p, enum guard_mode mode,
		       const struct probe_facts *f, const struct probe_verdict *v);

/* The guard could not read what it needs to decide (its policy file, for
 * a reason that passes): deny the counter-3 class on every core type the
 * policy knows, for now.  Costs nothing where the cause is the fd limit:
 * the kernel could not have opened the event either. */
void guard_policy_fail_closed(struct guard_policy *p, const char *reason);

#endif

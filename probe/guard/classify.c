// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which encodings land on fixed counter 3.  The rule itself is in
 * classify_rule.h (shared with the kernel program,
 * probe/enforce/enforce.bpf.c); this file is its userspace face: the rule
 * applied to (type, config) on the policy's core PMU types, the names of
 * what it hits, and the substitute for TOPDOWN.SLOTS.  What to do about a
 * hit, per mode, is the policy's (policy.c).
 *
 * The kernel's Ice Lake-and-later constraint tables
 * (arch/x86/events/intel/core.c, intel_icl_event_constraints and later) hold
 *   FIXED_EVENT_CONSTRAINT(0x0400, 3)          -- SLOTS
 *   METRIC_EVENT_CONSTRAINT(INTEL_TD_METRIC_RETIRING, 0) .. (.._MEM_BOUND, 7)
 * with INTEL_TD_SLOTS = 0x0400 and INTEL_TD_METRIC_* = 0x8000..0x8700
 * (arch/x86/include/asm/perf_event.h).  Event code 0x00 is a pseudo code
 * that never names a general-counter event ("the pseudo event-code for a
 * fixed-mode PMC must be 0x00", same header).
 *
 * Metric constraints match on event|umask only (INTEL_ARCH_EVENT_MASK), so
 * no modifier bit saves a metric encoding.  The fixed constraint matches with
 * FIXED_EVENT_FLAGS, so slots with edge/inv/cmask set may miss it and go to a
 * general counter as "event 0": meaningless, never useful.  We deny the whole
 * class whatever the modifier bits (cmask, inv, edge, in_tx, ...): denying a
 * meaningless encoding costs nothing; letting one through may cost the host.
 *
 * PERF_TYPE_HARDWARE and PERF_TYPE_HW_CACHE never map to 0x0400
 * (intel_perfmon_event_map: ref-cycles is 0x0300), with or without the
 * hybrid PMU type in config bits 32-63 (PERF_PMU_TYPE_SHIFT), so they pass.
 */
#include "classify.h"

#define UMASK(c) ((unsigned)(((c) >> 8) & 0xff))

bool guard_core_type(const struct guard_policy *p, uint32_t type)
{
	return guard_rule_core_type(type, p->core_types, p->n_core) != 0;
}

enum guard_hit guard_classify(const struct guard_policy *p, uint32_t type, uint64_t config)
{
	/* The rule is in classify_rule.h, shared with the kernel program. */
	return guard_rule_classify(type, config, p->core_types, p->n_core);
}

const char *guard_hit_name(enum guard_hit hit, uint64_t config)
{
	if (hit == GUARD_HIT_SLOTS)
		return "TOPDOWN.SLOTS (fixed counter 3)";
	if (hit == GUARD_HIT_UNREADABLE)
		return "the attr could not be read, so it may land on fixed counter 3 (failing "
		       "closed)";
	if (hit != GUARD_HIT_METRIC)
		return "none";
#define HIT_NAME(m) "topdown-" m " metric (read through fixed counter 3)",
	static const char *const metric[8] = {PROBE_TOPDOWN_METRICS(HIT_NAME)};
#undef HIT_NAME
	return metric[(UMASK(config) - GUARD_RULE_UMASK_METRIC_FIRST) & 7];
}

uint64_t guard_slots_p(uint64_t config)
{
	return (config & ~0xffffull) | GUARD_SLOTS_P;
}

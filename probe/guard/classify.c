// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which encodings land on fixed counter 3.  The rule itself is in
 * classify_rule.h (shared with the kernel program, enforce/pmuguard.bpf.c);
 * this file is its userspace face: the policy, names, modes.
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
#include <string.h>

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

static const char *const mode_names[] = {
	[GUARD_AUTO] = "auto", [GUARD_ALWAYS] = "always", [GUARD_AUDIT] = "audit",
	[GUARD_OFF] = "off",
};

int guard_mode_parse_n(const char *s, size_t len)
{
	for (unsigned i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (strlen(mode_names[i]) == len && memcmp(s, mode_names[i], len) == 0)
			return (int)i;
	return -1;
}

int guard_mode_parse(const char *s)
{
	return guard_mode_parse_n(s, strlen(s));
}

const char *guard_mode_name(enum guard_mode m)
{
	return (unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[m] : "?";
}

void guard_policy_init(struct guard_policy *p, enum guard_mode mode,
		       const struct probe_facts *f, const struct probe_verdict *v)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->reason = v->reason;
	p->core_types[p->n_core++] = PROBE_TYPE_RAW;
	for (unsigned i = 0; i < f->n_pmus && i < PROBE_MAX_PMUS; i++)
		if (f->pmus[i].type != PROBE_TYPE_RAW)
			p->core_types[p->n_core++] = f->pmus[i].type;

	/* The guard acts on guard_state: the state where CPUID decided it,
	 * unknown where the kernel log alone did (probe/facts/verdict.c says why).
	 * Facts left unknown for a reason that passes (the fd limit, no
	 * memory) are not "nothing to guard": fail closed for now; the shim
	 * does not keep this policy and probes again at the next call. */
	bool hazard = v->guard_state == PROBE_HAZARD;
	if (v->guard_state == PROBE_UNKNOWN && probe_facts_transient(f)) {
		hazard = true;
		p->reason = "the facts could not be read just now (out of descriptors or memory): "
			    "failing closed until they can be";
	}
	switch (mode) {
	case GUARD_AUTO:
		p->watch = p->enforce = hazard;
		break;
	case GUARD_ALWAYS:
		/* Every Intel core PMU, whatever the probe says; only a CPU
		 * known not to be Intel is spared (on AMD event 0x00 umask
		 * 0x04 is an ordinary event). */
		p->watch = p->enforce = v->guard_state != PROBE_NOT_INTEL;
		if (p->watch)
			p->reason = "mode always (the policy file, the environment or --mode) "
				    "blocks the fixed-counter-3 class on every Intel core PMU";
		break;
	case GUARD_AUDIT:
		p->watch = hazard;
		p->enforce = false;
		break;
	case GUARD_OFF:
		break;
	}
}

void guard_policy_fail_closed(struct guard_policy *p, const char *reason)
{
	p->watch = p->enforce = true;
	p->reason = reason;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which encodings land on a hazardous fixed counter (3-6).  The rule itself
 * is in classify_rule.h (shared with the kernel program,
 * probe/enforce/enforce.bpf.c); this file is its userspace face: the rule
 * applied to (type, config) on the policy's core PMU types, the table kind
 * of each core PMU, the names of what it hits, and the substitute for
 * TOPDOWN.SLOTS.  What to do about a
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
#include <string.h>

#include "classify.h"

#define UMASK(c) ((unsigned)(((c) >> 8) & 0xff))

bool guard_core_type(const struct guard_policy *p, uint32_t type)
{
	return type == GUARD_RULE_TYPE_RAW ||
	       guard_rule_core_index(type, p->core_types, p->n_core) >= 0;
}

enum guard_hit guard_classify(const struct guard_policy *p, uint32_t type, uint64_t config)
{
	/* The rule is in classify_rule.h, shared with the kernel program. */
	return guard_rule_classify(type, config, p->core_types, p->core_hazard, p->core_table,
				   p->n_core);
}

enum guard_hit guard_classify_any(const struct guard_policy *p, uint32_t type, uint64_t config)
{
	static const uint32_t all[GUARD_RULE_MAX_CORE] = {
		GUARD_RULE_HAZARD_ALL, GUARD_RULE_HAZARD_ALL, GUARD_RULE_HAZARD_ALL,
		GUARD_RULE_HAZARD_ALL, GUARD_RULE_HAZARD_ALL};
	return guard_rule_classify(type, config, p->core_types, all, p->core_table, p->n_core);
}

/*
 * Which core PMUs have the E-core topdown events on fixed counters 4-6
 * (arch/x86/events/intel/core.c):
 *  - intel_skt_event_constraints (Skymont, Darkmont): intel_pmu_init_skt()
 *    is the cpu_atom PMU of Lunar Lake (family 6 model 0xBD) and Arrow
 *    Lake (0xC5, 0xC6), of Panther Lake (0xCC) and Wildcat Lake (0xD5),
 *    and the whole (non-hybrid) PMU of Clearwater Forest (0xDD);
 *  - intel_arw_event_constraints (Arctic Wolf): the cpu_atom PMU of Nova
 *    Lake (family 18).
 * Their P-cores (cpu_core: Lion Cove, Cougar Cove, Coyote Cove) have fixed
 * counters 0-3 only, as have the earlier E-cores (Gracemont, Crestmont:
 * Sierra Forest 0xAF, Grand Ridge 0xB6, Meteor Lake's cpu_atom and
 * cpu_lowpower, Arrow Lake U 0xB5).  Family 6 is closed: every model of it
 * is known, so any other family-6 model has no counters 4-6.  A family
 * after 6 that this table does not name may be a part the running kernel
 * knows better: its atom-like PMUs take the E-core table (the rule then
 * denies those three encodings only where counters 4-6 are a hazard, that
 * is, advertised in a guest).
 */
unsigned guard_table_for(const struct probe_cpu *c, const char *pmu_name)
{
	static const struct {
		uint32_t family, model;
	} etd[] = {
		{6, 0xbd}, {6, 0xc5}, {6, 0xc6},  {6, 0xcc},
		{6, 0xd5}, {6, 0xdd}, {18, 0x01}, {18, 0x03},
	};
	if (strcmp(pmu_name, "cpu_core") == 0)
		return GUARD_TABLE_PSEUDO; /* the P-cores' tables */
	if (!c->known || !c->fms_known)
		return c->known && c->fixed_bitmap & 0x70 ? GUARD_TABLE_ETD : GUARD_TABLE_PSEUDO;
	for (unsigned i = 0; i < sizeof(etd) / sizeof(etd[0]); i++)
		if (c->family == etd[i].family && c->model == etd[i].model)
			return GUARD_TABLE_ETD;
	return c->family > 6 ? GUARD_TABLE_ETD : GUARD_TABLE_PSEUDO;
}

int guard_hit_counter(enum guard_hit hit, uint64_t config)
{
	if (hit == GUARD_HIT_SLOTS || hit == GUARD_HIT_METRIC)
		return 3;
	if (hit == GUARD_HIT_FIXED)
		return guard_rule_counter(config, GUARD_TABLE_ETD);
	return GUARD_RULE_NO_COUNTER;
}

const char *guard_hit_name(enum guard_hit hit, uint64_t config)
{
	if (hit == GUARD_HIT_SLOTS)
		return "TOPDOWN.SLOTS (fixed counter 3)";
	if (hit == GUARD_HIT_UNREADABLE)
		return "the attr could not be read, so it may land on an unimplemented fixed counter "
		       "(failing closed)";
	if (hit == GUARD_HIT_FIXED) {
		switch ((unsigned)(config & 0xffff)) {
		case 0x0073: return "TOPDOWN_BAD_SPECULATION.ALL (fixed counter 4)";
		case 0x019c: return "TOPDOWN_FE_BOUND.ALL (fixed counter 5)";
		case 0x02c2: return "TOPDOWN_RETIRING.ALL (fixed counter 6)";
		case 0x0500: return "fixed counter 4 (pseudo-encoding 0x0500)";
		case 0x0600: return "fixed counter 5 (pseudo-encoding 0x0600)";
		case 0x0700: return "fixed counter 6 (pseudo-encoding 0x0700)";
		}
		return "an encoding on fixed counter 4, 5 or 6";
	}
	if (hit != GUARD_HIT_METRIC)
		return "none";
#define HIT_NAME(m) "topdown-" m " metric (read through fixed counter 3)",
	/* Arrays, not pointers: no relocation at load. */
	static const char metric[8][64] = {PROBE_TOPDOWN_METRICS(HIT_NAME)};
#undef HIT_NAME
	return metric[(UMASK(config) - GUARD_RULE_UMASK_METRIC_FIRST) & 7];
}

uint64_t guard_slots_p(uint64_t config)
{
	return (config & ~0xffffull) | GUARD_SLOTS_P;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The classifier: does a perf_event_attr land on fixed counter 3?  A pure
 * function of (type, config, the core PMU types); the policy (policy.h)
 * decides what to do about it.  Shared by the preload shim, the command
 * and the seccomp supervisor, so every path judges an encoding the same
 * way.
 */
#ifndef PMUGUARD_CLASSIFY_H
#define PMUGUARD_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "classify_rule.h"
#include "policy.h" /* the core PMU types it judges against are the policy's */
#include "probe.h"

_Static_assert(PROBE_MAX_PMUS + 1 <= GUARD_RULE_MAX_CORE,
	       "the rule judges every core type the probe can find");
_Static_assert(PROBE_TYPE_RAW == GUARD_RULE_TYPE_RAW, "PERF_TYPE_RAW");

_Static_assert(PROBE_FIXED_GUARDED == GUARD_RULE_HAZARD_ALL, "the probe's counters are the rule's");
_Static_assert(PROBE_FIXED_FIRST == GUARD_RULE_COUNTER_FIRST &&
		       PROBE_FIXED_LAST == GUARD_RULE_COUNTER_LAST,
	       "counters 3-6");

/* Is type one of this machine's core PMU types (PERF_TYPE_RAW always is)? */
bool guard_core_type(const struct guard_policy *p, uint32_t type);
/* How the kernel's constraint table of a core PMU (sysfs name: cpu,
 * cpu_core, cpu_atom, cpu_lowpower) on this CPU places encodings: enum
 * guard_table. */
unsigned guard_table_for(const struct probe_cpu *c, const char *pmu_name);
/* The fixed counter (config, table) lands on, or -1 (the rule's). */
int guard_hit_counter(enum guard_hit hit, uint64_t config);
enum guard_hit guard_classify(const struct guard_policy *p, uint32_t type, uint64_t config);
/* The class on a machine where every guarded counter (3-6) is a hazard,
 * with the policy's types and tables: what `run --audit` says would be
 * denied on an affected machine. */
enum guard_hit guard_classify_any(const struct guard_policy *p, uint32_t type, uint64_t config);
const char *guard_hit_name(enum guard_hit hit, uint64_t config);

/* TOPDOWN.SLOTS as TOPDOWN.SLOTS_P (event 0xa4, umask 0x01): the same count
 * on a general-purpose counter (the SDM's event list; what AWS's aperf and
 * toplev use where slots is not available), every other bit of config kept. */
#define GUARD_SLOTS_P 0x01a4u
uint64_t guard_slots_p(uint64_t config);

#endif

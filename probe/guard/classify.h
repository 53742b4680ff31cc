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

/* Is type one of this machine's core PMU types (PERF_TYPE_RAW always is)? */
bool guard_core_type(const struct guard_policy *p, uint32_t type);
enum guard_hit guard_classify(const struct guard_policy *p, uint32_t type, uint64_t config);
const char *guard_hit_name(enum guard_hit hit, uint64_t config);

/* TOPDOWN.SLOTS as TOPDOWN.SLOTS_P (event 0xa4, umask 0x01): the same count
 * on a general-purpose counter (the SDM's event list; what AWS's aperf and
 * toplev use where slots is not available), every other bit of config kept. */
#define GUARD_SLOTS_P 0x01a4u
uint64_t guard_slots_p(uint64_t config);

#endif

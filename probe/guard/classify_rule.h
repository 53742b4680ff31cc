/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fixed-counter-3 rule itself, as static inline functions of plain
 * integers: no libc, no kernel headers.  Both the userspace classifier
 * (probe/guard/classify.c: the preload shim, the supervisor, the command)
 * and the kernel program (probe/enforce/enforce.bpf.c, built with clang
 * -target bpf) include this file, so the kernel and the shim cannot
 * disagree about what lands on counter 3.
 *
 * Where the encodings come from is told in probe/guard/classify.c: TOPDOWN.SLOTS is
 * FIXED_EVENT_CONSTRAINT(0x0400, 3) and the metrics are
 * METRIC_EVENT_CONSTRAINT(INTEL_TD_METRIC_*, n), 0x8000..0x8700
 * (arch/x86/events/intel/core.c, arch/x86/include/asm/perf_event.h).  Only
 * config bits 0-15 (event code, umask) take part: modifier bits never
 * save the class (see classify.c).
 */
#ifndef PMUGUARD_CLASSIFY_RULE_H
#define PMUGUARD_CLASSIFY_RULE_H

enum guard_hit {
	GUARD_HIT_NONE = 0,
	GUARD_HIT_SLOTS,  /* event 0x00 umask 0x04: TOPDOWN.SLOTS, fixed counter 3 */
	GUARD_HIT_METRIC, /* event 0x00 umask 0x80..0x87: metric read through counter 3 */
	GUARD_HIT_UNREADABLE, /* the attr could not be read: fail closed */
};

/* perf_event_attr.type of the (non-hybrid) core PMU and of raw events
 * (include/uapi/linux/perf_event.h: PERF_TYPE_RAW). */
#define GUARD_RULE_TYPE_RAW 4u

/* At most this many core PMU types are judged (PERF_TYPE_RAW and up to
 * four from sysfs: cpu, cpu_core, cpu_atom, cpu_lowpower). */
#define GUARD_RULE_MAX_CORE 5u

#define GUARD_RULE_UMASK_SLOTS 0x04u
#define GUARD_RULE_UMASK_METRIC_FIRST 0x80u
#define GUARD_RULE_UMASK_METRIC_LAST 0x87u

/* The class of an encoding: config bits 0-7 are the event code, 8-15 the
 * umask (sysfs format/event = config:0-7, format/umask = config:8-15). */
static inline enum guard_hit guard_rule_config(unsigned long long config)
{
	unsigned event = (unsigned)(config & 0xffu);
	unsigned umask = (unsigned)((config >> 8) & 0xffu);

	if (event != 0x00u)
		return GUARD_HIT_NONE;
	if (umask == GUARD_RULE_UMASK_SLOTS)
		return GUARD_HIT_SLOTS;
	if (umask >= GUARD_RULE_UMASK_METRIC_FIRST && umask <= GUARD_RULE_UMASK_METRIC_LAST)
		return GUARD_HIT_METRIC;
	return GUARD_HIT_NONE;
}

/* Is type one of the core PMU types in types[0..n)?  PERF_TYPE_RAW always
 * is.  The loop has a constant bound so that the BPF verifier accepts it. */
static inline int guard_rule_core_type(unsigned type, const volatile unsigned *types,
				       unsigned n)
{
	if (type == GUARD_RULE_TYPE_RAW)
		return 1;
	for (unsigned i = 0; i < GUARD_RULE_MAX_CORE; i++) {
		if (i >= n)
			break;
		if (types[i] == type)
			return 1;
	}
	return 0;
}

/* Both together: the class of (type, config), GUARD_HIT_NONE off the core
 * PMUs. */
static inline enum guard_hit guard_rule_classify(unsigned type, unsigned long long config,
						 const volatile unsigned *types, unsigned n)
{
	if (!guard_rule_core_type(type, types, n))
		return GUARD_HIT_NONE;
	return guard_rule_config(config);
}

#endif

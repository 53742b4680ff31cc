/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rule itself, as GUARD_RULE_INLINE functions of plain integers: no libc,
 * no kernel headers.  Both the userspace classifier (probe/guard/classify.c:
 * the preload shim, the supervisor, the command) and the kernel program
 * (probe/enforce/enforce.bpf.c, built with clang -target bpf) include this
 * file, so the kernel and the shim cannot disagree about where an encoding
 * lands.
 *
 * The rule: an encoding is denied exactly when the fixed counter it would
 * land on is in the hazard set of its core PMU (a bitmap of counters 3-6,
 * from the probe: probe/facts/fixed.c).  Where it lands is the kernel's
 * constraint tables (arch/x86/events/intel/core.c), as a table kind per
 * core PMU (classify.c picks it from the CPU model and the PMU):
 *
 *   every Intel core PMU, event code 0x00 (the pseudo code of a fixed
 *   counter: "the pseudo event-code for a fixed-mode PMC must be 0x00",
 *   arch/x86/include/asm/perf_event.h):
 *     umask n+1      fixed counter n   (0x0100 .. 0x0300: counters 0-2,
 *                                       FIXED_EVENT_CONSTRAINT(0x0400, 3)
 *                                       TOPDOWN.SLOTS, 0x0500.. beyond: the
 *                                       counters 4-15 of
 *                                       intel_v5_gen_event_constraints, the
 *                                       table of the v5+ models a kernel
 *                                       does not know, "generic_arch_v5+",
 *                                       so an older kernel on a Clearwater
 *                                       Forest; on the models it knows they
 *                                       are no constraint and run nowhere
 *                                       fixed, and denying them costs
 *                                       nothing: see below)
 *     umask 0x80-87  fixed counter 3   (METRIC_EVENT_CONSTRAINT(INTEL_TD_METRIC_*):
 *                                       read through TOPDOWN.SLOTS)
 *   GUARD_TABLE_ETD, the E-core topdown tables (intel_skt_event_constraints,
 *   intel_arw_event_constraints):
 *     0x0073         fixed counter 4   FIXED_EVENT_CONSTRAINT(0x0073, 4)
 *                                      TOPDOWN_BAD_SPECULATION.ALL
 *     0x019c         fixed counter 5   (0x019c, 5) TOPDOWN_FE_BOUND.ALL
 *     0x02c2         fixed counter 6   (0x02c2, 6) TOPDOWN_RETIRING.ALL
 *
 * Event code 0x00 never names a general-counter event, so its whole class
 * is judged whatever the modifier bits: denying a meaningless encoding
 * costs nothing.  The E-core codes are real events that the kernel also
 * lets run on general counters: a fixed constraint matches only with
 * FIXED_EVENT_FLAGS (event, umask, edge, inv, cmask, in_tx, in_tx_cp; see
 * constraint_match() and x86_get_event_constraints()), so with edge, inv,
 * cmask or a TSX bit set they never reach the fixed counter and pass.
 */
#ifndef PMUGUARD_CLASSIFY_RULE_H
#define PMUGUARD_CLASSIFY_RULE_H

/* Every function of the rule is inlined, in the kernel program too: a
 * BPF-to-BPF call takes at most five arguments in registers, and a kernel
 * that checks stack arguments (7.x: "callee expects 6 args, stack arg1 is
 * not initialized") refuses the six-argument call clang 14 emits for
 * guard_rule_classify() when it is left out of line (the matrix's 7.2
 * row: EFAULT at load, no guard). */
#define GUARD_RULE_INLINE static inline __attribute__((always_inline))

enum guard_hit {
	GUARD_HIT_NONE = 0,
	GUARD_HIT_SLOTS,      /* event 0x00 umask 0x04: TOPDOWN.SLOTS, fixed counter 3 */
	GUARD_HIT_METRIC,     /* event 0x00 umask 0x80..0x87: metric read through counter 3 */
	GUARD_HIT_UNREADABLE, /* the attr could not be read: fail closed */
	GUARD_HIT_FIXED,      /* an encoding the PMU places on fixed counter 4, 5 or 6 */
};

/* How a core PMU's constraint table places encodings (above). */
enum guard_table {
	GUARD_TABLE_PSEUDO = 0, /* the pseudo code 0x00 only */
	GUARD_TABLE_ETD = 1,    /* and the E-core topdown events on counters 4-6 */
};

/* perf_event_attr.type of the (non-hybrid) core PMU and of raw events
 * (include/uapi/linux/perf_event.h: PERF_TYPE_RAW). */
#define GUARD_RULE_TYPE_RAW 4u

/* At most this many core PMU types are judged (PERF_TYPE_RAW and up to
 * four from sysfs: cpu, cpu_core, cpu_atom, cpu_lowpower). */
#define GUARD_RULE_MAX_CORE 5u

/* The counters the rule guards: bit n is fixed counter n. */
#define GUARD_RULE_COUNTER_FIRST 3
#define GUARD_RULE_COUNTER_LAST 6
#define GUARD_RULE_HAZARD_ALL 0x78u
#define GUARD_RULE_NO_COUNTER (-1)

#define GUARD_RULE_UMASK_SLOTS 0x04u
#define GUARD_RULE_UMASK_METRIC_FIRST 0x80u
#define GUARD_RULE_UMASK_METRIC_LAST 0x87u

/* FIXED_EVENT_FLAGS (arch/x86/events/perf_event.h): INTEL_ARCH_EVENT_MASK
 * (event, umask), EDGE (bit 18), INV (23), CMASK (24-31), HSW_IN_TX (32),
 * HSW_IN_TX_CHECKPOINTED (33). */
#define GUARD_RULE_FIXED_FLAGS                                                                     \
	(0xffffull | (1ull << 18) | (1ull << 23) | (0xffull << 24) | (1ull << 32) | (1ull << 33))

/* The E-core topdown events' codes (event and umask), whatever else is set. */
GUARD_RULE_INLINE int guard_rule_topdown_code(unsigned long long config)
{
	unsigned code = (unsigned)(config & 0xffffu);
	return code == 0x0073u || code == 0x019cu || code == 0x02c2u;
}

/* No table places the encoding on a guarded counter: an event code other
 * than the pseudo code 0x00, and none of the topdown events.  The judges'
 * fast path: most events are this, and it costs a few instructions. */
GUARD_RULE_INLINE int guard_rule_nowhere(unsigned long long config)
{
	return (config & 0xffu) != 0 && !guard_rule_topdown_code(config);
}

/* The fixed counter an encoding lands on under a table kind, or
 * GUARD_RULE_NO_COUNTER: config bits 0-7 are the event code, 8-15 the umask
 * (sysfs format/event = config:0-7, format/umask = config:8-15). */
GUARD_RULE_INLINE int guard_rule_counter(unsigned long long config, unsigned table)
{
	unsigned event = (unsigned)(config & 0xffu);
	unsigned umask = (unsigned)((config >> 8) & 0xffu);

	if (event == 0x00u) {
		if (umask >= GUARD_RULE_UMASK_METRIC_FIRST && umask <= GUARD_RULE_UMASK_METRIC_LAST)
			return 3;
		if (umask >= 1u && umask <= 16u)
			return (int)umask - 1;
		return GUARD_RULE_NO_COUNTER;
	}
	if (table != GUARD_TABLE_ETD || (config & GUARD_RULE_FIXED_FLAGS) != (config & 0xffffull))
		return GUARD_RULE_NO_COUNTER;
	switch ((unsigned)(config & 0xffffu)) {
	case 0x0073u: return 4;
	case 0x019cu: return 5;
	case 0x02c2u: return 6;
	}
	return GUARD_RULE_NO_COUNTER;
}

/* The class of an encoding on a PMU of that table and hazard set. */
GUARD_RULE_INLINE enum guard_hit guard_rule_config(unsigned long long config, unsigned table,
						   unsigned hazard)
{
	/* The common case first, in a few instructions: an event code that
	 * is no topdown event on this table lands on no fixed counter
	 * (guard_rule_counter() would say so after more work). */
	if ((config & 0xffu) != 0 && (table != GUARD_TABLE_ETD || !guard_rule_topdown_code(config)))
		return GUARD_HIT_NONE;
	int n = guard_rule_counter(config, table);
	if (n < GUARD_RULE_COUNTER_FIRST || n > GUARD_RULE_COUNTER_LAST || !((hazard >> n) & 1u))
		return GUARD_HIT_NONE;
	if (n > 3)
		return GUARD_HIT_FIXED;
	return (config & 0xffu) == 0 && ((config >> 8) & 0xffu) >= GUARD_RULE_UMASK_METRIC_FIRST
		       ? GUARD_HIT_METRIC
		       : GUARD_HIT_SLOTS;
}

/* The types below this are the kernel's generic ones (PERF_TYPE_HARDWARE
 * 0 .. PERF_TYPE_BREAKPOINT 5, include/uapi/linux/perf_event.h): no PMU
 * but the core one takes PERF_TYPE_RAW among them, and the others a PMU
 * registers get a type from perf_pmu_register()'s idr, from
 * PERF_TYPE_MAX up. */
#define GUARD_RULE_TYPE_MAX 6u

/* A generic type that is never a core PMU's: software, tracepoint,
 * breakpoint, or a generic id (hardware, hw-cache) not yet resolved. */
GUARD_RULE_INLINE int guard_rule_generic_type(unsigned type)
{
	return type < GUARD_RULE_TYPE_MAX && type != GUARD_RULE_TYPE_RAW;
}

/* The index of type among the core PMU types types[0..n), or -1.  The
 * generic types other than PERF_TYPE_RAW (software, tracepoint, a generic
 * id the kernel has not resolved yet) are answered at once; the loop has a
 * constant bound so that the BPF verifier accepts it. */
GUARD_RULE_INLINE int guard_rule_core_index(unsigned type, const volatile unsigned *types,
					    unsigned n)
{
	if (guard_rule_generic_type(type))
		return -1;
	for (unsigned i = 0; i < GUARD_RULE_MAX_CORE; i++) {
		if (i >= n)
			break;
		if (types[i] == type)
			return (int)i;
	}
	return -1;
}

/* Both together: the class of (type, config), GUARD_HIT_NONE off the core
 * PMUs.  hazards[i] and tables[i] are those of types[i]. */
GUARD_RULE_INLINE enum guard_hit guard_rule_classify(unsigned type, unsigned long long config,
						     const volatile unsigned *types,
						     const volatile unsigned *hazards,
						     const volatile unsigned *tables, unsigned n)
{
	int i = guard_rule_core_index(type, types, n);
	if (i < 0 || i >= (int)GUARD_RULE_MAX_CORE)
		return GUARD_HIT_NONE;
	return guard_rule_config(config, tables[i], hazards[i]);
}

#endif

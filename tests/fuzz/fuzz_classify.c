// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict, the findings, the policy and the classifier over arbitrary
 * fact sets and attr bytes.  Facts are built field by field from the input
 * (never memcpy'd: a bool holding 2 would be undefined before we begin).
 * Invariants checked: nothing but the fixed-counter-3 class is ever hit;
 * an unknown or non-Intel machine never blocks in auto mode.
 */
#include <stdlib.h>

#include "classify.h"
#include "findings.h"
#include "fuzz.h"
#include "probe.h"

struct in {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct in *in, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = {data, size};
	struct probe_facts f;
	memset(&f, 0, sizeof(f));
	f.known = (unsigned)take(&in, 1) & 0xf;
	f.klog_err = -(int)(take(&in, 1) % 40);
	f.n_leaves = (unsigned)take(&in, 1) % (PROBE_MAX_LEAVES + 1);
	static const uint32_t leaves[] = {0, 1, 7, 0xa, 0x40000000, 0xb, 0x23, 0x80000000};
	for (unsigned i = 0; i < f.n_leaves; i++) {
		f.leaves[i].leaf = leaves[take(&in, 1) % 8];
		f.leaves[i].eax = (uint32_t)take(&in, 4);
		f.leaves[i].ebx = (uint32_t)take(&in, 4);
		f.leaves[i].ecx = (uint32_t)take(&in, 4);
		f.leaves[i].edx = (uint32_t)take(&in, 4);
	}
	if (take(&in, 1) & 1) { /* a real Intel vendor string half the time */
		f.leaves[0] = (struct probe_cpuid_leaf){0, 0, (uint32_t)take(&in, 1), 0x756e6547,
							0x6c65746e, 0x49656e69};
		if (f.n_leaves == 0)
			f.n_leaves = 1;
	}
	f.n_pmus = (unsigned)take(&in, 1) % (PROBE_MAX_PMUS + 1);
	for (unsigned i = 0; i < f.n_pmus; i++) {
		f.pmus[i].type = (uint32_t)take(&in, 1);
		f.pmus[i].slots_listed = take(&in, 1) & 1;
		f.pmus[i].topdown_listed = (uint16_t)take(&in, 1);
		memcpy(f.pmus[i].name, "cpu", 4);
	}
	uint8_t kb = (uint8_t)take(&in, 1);
	f.klog.pmu_driver_seen = kb & 1;
	f.klog.mask_seen = kb & 2;
	f.klog.perf_metrics_bit = kb & 4;
	f.klog.no_pmu_driver = kb & 8;
	f.klog.unsupported_model = kb & 16;
	f.klog.bios_corrupted = kb & 32;
	f.klog.virt_unavailable = kb & 64;
	f.klog.mask = take(&in, 8);
	f.klog.n_corrupted_msr = (unsigned)take(&in, 1) % 5;
	for (unsigned i = 0; i < f.klog.n_corrupted_msr; i++)
		f.klog.corrupted_msr[i] = (unsigned)take(&in, 4);
	f.perf_capabilities = take(&in, 8);

	struct probe_verdict v;
	probe_evaluate(&f, &v);
	struct finding fs[FINDINGS_MAX];
	unsigned nf = findings_build(&f, &v, fs);
	if (nf > FINDINGS_MAX || !v.reason)
		abort();
	for (int mode = GUARD_OFF; mode <= GUARD_ALWAYS; mode++) {
		struct guard_policy p;
		guard_policy_init(&p, (enum guard_mode)mode, &f, &v);
		/* Fail open on unknown facts (but where they are unknown for a
		 * reason that passes: then closed until they can be read), and
		 * never on a CPU known to be another vendor's.  The guard acts
		 * on guard_state: a verdict from the kernel log alone is
		 * unknown to it. */
		if (mode == GUARD_AUTO && p.enforce &&
		    (v.guard_state == PROBE_NOT_INTEL ||
		     (v.guard_state == PROBE_UNKNOWN && !probe_facts_transient(&f)) ||
		     (v.guard_state != PROBE_UNKNOWN && !v.intel)))
			abort();
		if (mode == GUARD_AUTO && p.enforce && v.basis == PROBE_BASIS_KLOG &&
		    !probe_facts_transient(&f))
			abort(); /* never on the kernel log alone */
		uint32_t type = (uint32_t)take(&in, 4);
		uint64_t config = take(&in, 8);
		enum guard_hit hit = guard_classify(&p, type, config);
		/* A hit lands on a counter of the type's hazard set, by the
		 * type's table; only the E-cores' topdown events
		 * have an event code. */
		if (hit != GUARD_HIT_NONE && hit != GUARD_HIT_UNREADABLE) {
			int at = guard_rule_core_index(type, p.core_types, p.n_core);
			int c = at < 0 ? GUARD_RULE_NO_COUNTER
				       : guard_rule_counter(config, p.core_table[at]);
			if (c == GUARD_RULE_NO_COUNTER || !((p.core_hazard[at] >> c) & 1))
				abort();
		}
		if (hit != GUARD_HIT_NONE && hit != GUARD_HIT_FIXED && (config & 0xff) != 0)
			abort();
		if (hit == GUARD_HIT_SLOTS && ((config >> 8) & 0xff) != 0x04)
			abort();
		guard_hit_name(hit, config);
	}
	return 0;
}

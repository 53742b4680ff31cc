// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict: a pure function of the facts.
 *
 * Fixed counter 3 (TOPDOWN.SLOTS) is advertised when CPUID.0AH EDX[4:0] > 3,
 * or, on architectural perfmon version >= 5, when ECX bit 3 is set (the SDM:
 * fixed counter i exists if ECX[i] or EDX[4:0] > i).  The kernel trusts that
 * advertisement: intel_pmu_check_event_constraints()
 * (arch/x86/events/intel/core.c) keeps the slots and metric constraints
 * whenever bit 35 is in intel_ctrl, with or without perf metrics, and
 * x86_perf_event_update() then reads the counter with a bare rdpmc.
 *
 * Perf metrics is proven only by bit 48 of the mask the driver logged, or
 * by IA32_PERF_CAPABILITIES bit 15.  In a guest, sysfs slots/topdown-*
 * prove nothing: before commit 556a7c039a52 ("perf/x86/intel: Hide Topdown
 * metrics events if the feature is not enumerated", 6.11, backported to
 * 6.1.y/6.6.y) they are listed on every Ice Lake-or-later PMU.
 */
#include <errno.h>
#include <string.h>

#include "probe.h"

#define PERF_CAP_PERF_METRICS_BIT 15

static uint32_t bits(uint32_t v, unsigned lo, unsigned hi)
{
	return (v >> lo) & ((hi - lo == 31) ? ~0u : ((1u << (hi - lo + 1)) - 1));
}

static void regs_string(char out[13], uint32_t a, uint32_t b, uint32_t c)
{
	memcpy(out, &a, 4);
	memcpy(out + 4, &b, 4);
	memcpy(out + 8, &c, 4);
	out[12] = '\0';
	for (int i = 0; i < 12; i++)
		if (out[i] != '\0' && (out[i] < 0x20 || out[i] > 0x7e))
			out[i] = '?';
}

void probe_decode_cpu(const struct probe_facts *f, struct probe_cpu *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
	const struct probe_cpuid_leaf *l0 = probe_leaf(f, 0, 0);
	if (!(f->known & PROBE_KNOWN_CPUID) || !l0)
		return;
	cpu->known = true;
	cpu->max_leaf = l0->eax;
	regs_string(cpu->vendor, l0->ebx, l0->edx, l0->ecx);

	const struct probe_cpuid_leaf *l1 = probe_leaf(f, 1, 0);
	if (l1 && cpu->max_leaf >= 1) {
		uint32_t fam = bits(l1->eax, 8, 11), model = bits(l1->eax, 4, 7);
		if (fam == 0xf)
			fam += bits(l1->eax, 20, 27);
		if (fam == 0x6 || fam >= 0xf)
			model |= bits(l1->eax, 16, 19) << 4;
		cpu->family = fam;
		cpu->model = model;
		cpu->stepping = bits(l1->eax, 0, 3);
		cpu->hypervisor = (l1->ecx >> 31) & 1;
		cpu->pdcm = (l1->ecx >> 15) & 1;
	}
	const struct probe_cpuid_leaf *l7 = probe_leaf(f, 7, 0);
	if (l7 && cpu->max_leaf >= 7)
		cpu->hybrid = (l7->edx >> 15) & 1;

	const struct probe_cpuid_leaf *hv = probe_leaf(f, 0x40000000, 0);
	if (hv && cpu->hypervisor)
		regs_string(cpu->hv_vendor, hv->ebx, hv->ecx, hv->edx);

	const struct probe_cpuid_leaf *la = probe_leaf(f, 0xa, 0);
	if (la && cpu->max_leaf >= 0xa) {
		cpu->leaf_a_known = true;
		cpu->pmu_version = bits(la->eax, 0, 7);
		cpu->gp_counters = bits(la->eax, 8, 15);
		cpu->fixed_counters = bits(la->edx, 0, 4);
		cpu->fixed_bitmap = cpu->pmu_version >= 5 ? la->ecx : 0;
	}
}

bool probe_fixed3_advertised(const struct probe_cpu *c)
{
	return c->known && !strcmp(c->vendor, "GenuineIntel") && c->leaf_a_known &&
	       c->pmu_version > 0 && (c->fixed_counters > 3 || (c->fixed_bitmap >> 3) & 1);
}

const char *probe_state_name(enum probe_state s)
{
	static const char *const names[] = {
		[PROBE_SAFE] = "safe",	       [PROBE_HAZARD] = "hazard",
		[PROBE_NOT_INTEL] = "not-intel", [PROBE_NO_PMU] = "no-pmu",
		[PROBE_UNKNOWN] = "unknown",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

bool probe_errno_transient(int neg_errno)
{
	switch (-neg_errno) {
	case EMFILE:
	case ENFILE:
	case ENOMEM:
	case EINTR:
	case EAGAIN:
	case ENOBUFS:
		return true;
	}
	return false;
}

bool probe_facts_transient(const struct probe_facts *f)
{
	return probe_errno_transient(f->cpuid_err) || probe_errno_transient(f->sysfs_err) ||
	       probe_errno_transient(f->klog_err) || probe_errno_transient(f->msr_err);
}

void probe_evaluate(const struct probe_facts *f, struct probe_verdict *v)
{
	memset(v, 0, sizeof(*v));
	probe_decode_cpu(f, &v->cpu);
	const struct probe_cpu *c = &v->cpu;

	for (unsigned i = 0; i < f->n_pmus && i < PROBE_MAX_PMUS; i++)
		if (f->pmus[i].slots_listed || f->pmus[i].topdown_listed)
			v->topdown_listed = true;

	if (f->known & PROBE_KNOWN_KLOG && f->klog.perf_metrics_bit) {
		v->perf_metrics_proven = true;
		v->metrics_source = "bit 48 (GLOBAL_CTRL_EN_PERF_METRICS) of the PMU mask in the kernel log";
	} else if (f->known & PROBE_KNOWN_MSR &&
		   (f->perf_capabilities >> PERF_CAP_PERF_METRICS_BIT) & 1) {
		v->perf_metrics_proven = true;
		v->metrics_source = "IA32_PERF_CAPABILITIES (MSR 0x345) bit 15";
	}

	if (!c->known) {
		v->state = PROBE_UNKNOWN;
		v->reason = "CPUID could not be read: failing open, nothing is blocked";
		return;
	}
	v->intel = strcmp(c->vendor, "GenuineIntel") == 0;
	if (!v->intel) {
		v->state = PROBE_NOT_INTEL;
		v->reason = "not an Intel CPU: the fixed-counter-3 hazard does not exist here";
		return;
	}
	if (!c->leaf_a_known) {
		v->state = PROBE_UNKNOWN;
		v->reason = "CPUID leaf 0xA (architectural perfmon) is not available: the fixed "
			    "counter count is unknown, failing open, nothing is blocked";
		return;
	}
	if (c->pmu_version == 0) {
		v->state = PROBE_NO_PMU;
		v->reason = "CPUID.0AH reports no architectural perfmon: no hardware counters, "
			    "nothing to guard";
		return;
	}
	v->fixed3_advertised = probe_fixed3_advertised(c);

	if (!v->fixed3_advertised) {
		v->state = PROBE_SAFE;
		v->reason = "fixed counter 3 is not advertised by CPUID.0AH: the kernel never "
			    "schedules onto it";
	} else if (v->perf_metrics_proven) {
		v->state = PROBE_SAFE;
		v->reason = "fixed counter 3 is advertised and perf metrics is proven: it is "
			    "implemented";
	} else if (c->hypervisor) {
		v->state = PROBE_HAZARD;
		v->reason = "this guest advertises fixed counter 3 in CPUID.0AH but perf metrics is "
			    "not proven: the hypervisor does not implement it, and opening it faults "
			    "the guest kernel";
	} else if (!(f->known & PROBE_KNOWN_SYSFS)) {
		v->state = PROBE_SAFE;
		v->reason = "bare metal with fixed counter 3 advertised; sysfs unreadable, so the "
			    "backstop cannot apply: failing open";
	} else if (v->topdown_listed) {
		v->state = PROBE_SAFE;
		v->reason = "bare metal: fixed counter 3 advertised and the core PMU lists "
			    "slots/topdown events";
	} else {
		v->state = PROBE_HAZARD;
		v->reason = "bare metal advertising fixed counter 3 with no perf metrics in the "
			    "kernel log and no slots/topdown events in sysfs";
	}
	v->hazard = v->state == PROBE_HAZARD;
}

enum probe_known probe_next_fact(const struct probe_facts *f)
{
	struct probe_verdict v;
	probe_evaluate(f, &v);
	/* Only "advertised and not proven" is open to more facts: the MSR and
	 * the log can prove perf metrics; sysfs events decide bare metal only
	 * (in a guest they prove nothing, see above).  Cheapest first: one
	 * pread, then the log, then a dozen sysfs files. */
	if (!v.fixed3_advertised || v.perf_metrics_proven)
		return 0;
	static const enum probe_known order[] = {PROBE_KNOWN_MSR, PROBE_KNOWN_KLOG,
						 PROBE_KNOWN_SYSFS_EVENTS};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (f->tried & order[i])
			continue;
		if (order[i] == PROBE_KNOWN_SYSFS_EVENTS &&
		    (v.cpu.hypervisor || !(f->known & PROBE_KNOWN_SYSFS)))
			continue;
		return order[i];
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict: a pure function of the facts.  The CPU is CPUID's
 * (cpuid_decode.c), else the kernel log's (klog_cpu.c); fixed counter 3 is
 * advertised as cpuid_decode.c says, or where the PMU driver's block uses it.
 *
 * Perf metrics is proven only by bit 48 of the mask the driver logged, or
 * by IA32_PERF_CAPABILITIES bit 15.  In a guest, sysfs slots/topdown-*
 * prove nothing: before commit 556a7c039a52 ("perf/x86/intel: Hide Topdown
 * metrics events if the feature is not enumerated", 6.11, backported to
 * 6.1.y/6.6.y) they are listed on every Ice Lake-or-later PMU.
 *
 * Where CPUID is missing, the facts the log states stand in for it (see
 * klog_cpu.c).  Such a verdict is the report's, not the guard's:
 * guard_state is PROBE_UNKNOWN for it, so auto mode fails open exactly as
 * it did before the log was read.  Why:
 *  - the guard runs on the machine itself, where CPUID is always there
 *    (live, or a snapshot's cpuid.txt): only a replay lacks it;
 *  - a log file is text anyone may hand over: an excerpt (a line that is
 *    not there is unknown, not absent), another boot, another machine;
 *  - wrongly narrowing a healthy machine is the worse error, and the
 *    fail-open rule says so for every fact the guard cannot read itself.
 * probe --check still exits 3 on a log-only hazard: that is a report.
 */
#include <string.h>

#include "probe.h"

#define PERF_CAP_PERF_METRICS_BIT 15

const char *probe_state_name(enum probe_state s)
{
	static const char *const names[] = {
		[PROBE_SAFE] = "safe",	       [PROBE_HAZARD] = "hazard",
		[PROBE_NOT_INTEL] = "not-intel", [PROBE_NO_PMU] = "no-pmu",
		[PROBE_UNKNOWN] = "unknown",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* The CPU: CPUID's, else the kernel log's; its perfmon: CPUID.0AH, else
 * the PMU driver's block. */
static void cpu_of(const struct probe_facts *f, struct probe_cpu *c)
{
	probe_decode_cpu(f, c);
	if (!c->known)
		probe_cpu_from_klog(f, c);
	if (c->known && !c->leaf_a_known)
		probe_perfmon_from_klog(f, c);
	probe_hv_from_signature(c);
}

const char *probe_metrics_proof(const struct probe_facts *f)
{
	/* The log proves perf metrics only through the driver's own block
	 * beyond doubt (kmsg.c: anchored), never a line a user could write. */
	if (f->known & PROBE_KNOWN_KLOG && f->klog.perf_metrics_bit && f->klog.pmu_block_anchored)
		return "bit 48 (GLOBAL_CTRL_EN_PERF_METRICS) of the PMU mask in the kernel log";
	if (f->known & PROBE_KNOWN_MSR && (f->perf_capabilities >> PERF_CAP_PERF_METRICS_BIT) & 1)
		return "IA32_PERF_CAPABILITIES (MSR 0x345) bit 15";
	return NULL;
}

void probe_evaluate(const struct probe_facts *f, struct probe_verdict *v)
{
	memset(v, 0, sizeof(*v));
	struct probe_cpu *c = &v->cpu;
	cpu_of(f, c);
	bool intel = c->known && strcmp(c->vendor, "GenuineIntel") == 0;
	bool from_log = c->basis == PROBE_BASIS_KLOG;

	for (unsigned i = 0; i < f->n_pmus && i < PROBE_MAX_PMUS; i++)
		if (f->pmus[i].slots_listed || f->pmus[i].topdown_listed)
			v->topdown_listed = true;

	v->metrics_source = probe_metrics_proof(f);
	v->perf_metrics_proven = v->metrics_source != NULL;

	v->basis = c->known ? c->basis : PROBE_BASIS_NONE;
	if (!c->known) {
		/* The log says there is no PMU driver, whatever the CPU. */
		if (f->known & PROBE_KNOWN_KLOG &&
		    (f->klog.no_pmu_driver || f->klog.virt_unavailable || f->klog.broken_pmu)) {
			v->state = PROBE_NO_PMU;
			v->basis = PROBE_BASIS_KLOG;
			v->reason = "the kernel log says the PMU driver did not load (software events "
				    "only): no hardware counters, nothing to guard";
		} else {
			v->state = PROBE_UNKNOWN;
			v->reason = "CPUID could not be read and the kernel log does not name the CPU: "
				    "failing open, nothing is blocked";
		}
		goto out;
	}
	v->intel = intel;
	if (!v->intel && c->pmu_off) {
		/* The report says what the user lives with: no PMU at all (the
		 * no-vpmu finding); the guard's state stays not-intel below, so
		 * that even mode always spares another vendor's event 0x00. */
		v->state = PROBE_NO_PMU;
		v->reason = "not an Intel CPU, and the kernel log says its PMU driver did not load "
			    "(software events only): no hardware counters, nothing to guard";
		goto out;
	}
	if (!v->intel) {
		v->state = PROBE_NOT_INTEL;
		v->reason = from_log ? "not an Intel CPU (the kernel log says so): the fixed-counter-3 "
				       "hazard does not exist here"
				     : "not an Intel CPU: the fixed-counter-3 hazard does not exist here";
		goto out;
	}
	if (!c->leaf_a_known) {
		v->state = PROBE_UNKNOWN;
		v->reason = from_log ? "the kernel log names an Intel CPU but holds no PMU block: the "
				       "fixed counter count is unknown, failing open, nothing is blocked"
				     : "CPUID leaf 0xA (architectural perfmon) is not available: the fixed "
				       "counter count is unknown, failing open, nothing is blocked";
		goto out;
	}
	if (c->perfmon_basis == PROBE_BASIS_KLOG)
		v->basis = PROBE_BASIS_KLOG;
	if (c->perfmon_basis == PROBE_BASIS_KLOG ? c->pmu_off : c->pmu_version == 0) {
		v->state = PROBE_NO_PMU;
		v->reason = c->perfmon_basis == PROBE_BASIS_KLOG
				    ? "the kernel log says the PMU driver did not load (software "
				      "events only): no hardware counters, nothing to guard"
				    : "CPUID.0AH reports no architectural perfmon: no hardware counters, "
				      "nothing to guard";
		goto out;
	}
	probe_fixed_sets(f, v);
	v->fixed3_advertised = (v->fixed_advertised >> 3) & 1;

	/* Counter 3: evidence against first, then perf metrics, then (bare
	 * metal) the sysfs backstop.  Counters 4-6 are fixed.c's. */
	bool log_basis = c->perfmon_basis == PROBE_BASIS_KLOG;
	bool hazard3 = false;
	const char *why3;
	if (!v->fixed3_advertised) {
		why3 = log_basis ? "fixed counter 3 is not in the PMU driver's block in the kernel log: "
				   "the kernel never schedules onto it"
				 : "fixed counter 3 is not advertised by CPUID.0AH: the kernel never "
				   "schedules onto it";
	} else if ((v->fixed_refuted >> 3) & 1) {
		hazard3 = true;
		why3 = "the kernel uses fixed counter 3 but the facts refute it (the PMU mask it "
		       "logged claims more fixed counters than advertised, or the hypervisor rejected "
		       "enabling it), whatever bit 48 says: opening it faults the guest kernel";
	} else if (v->perf_metrics_proven) {
		why3 = "fixed counter 3 is advertised and perf metrics is proven: it is implemented";
	} else if (c->hypervisor) {
		hazard3 = true;
		why3 = log_basis ? "the kernel log shows a guest whose PMU driver uses fixed counter 3 "
				   "without perf metrics: the hypervisor does not implement it, and "
				   "opening it faults the guest kernel"
				 : "this guest advertises fixed counter 3 in CPUID.0AH but perf metrics "
				   "is not proven: the hypervisor does not implement it, and opening it "
				   "faults the guest kernel";
	} else if (!(f->known & PROBE_KNOWN_SYSFS)) {
		why3 = "bare metal with fixed counter 3 advertised; sysfs unreadable, so the "
		       "backstop cannot apply: failing open";
	} else if (v->topdown_listed) {
		why3 = "bare metal: fixed counter 3 advertised and the core PMU lists "
		       "slots/topdown events";
	} else {
		hazard3 = true;
		why3 = "bare metal advertising fixed counter 3 with no perf metrics in the "
		       "kernel log and no slots/topdown events in sysfs";
	}
	if (hazard3)
		v->fixed_hazard |= 1u << 3;
	v->state = v->fixed_hazard ? PROBE_HAZARD : PROBE_SAFE;
	v->reason = why3;
	if (!hazard3 && v->fixed_hazard)
		v->reason = "this guest advertises fixed counters beyond 3 (the E-cores' "
			    "TOPDOWN_*.ALL, counters 4-6) that no hypervisor is known to implement: "
			    "an event the kernel schedules there faults the guest kernel";
	else if (!hazard3 && (v->fixed_advertised & PROBE_FIXED_GUARDED & ~(1u << 3)) &&
		 !v->fixed3_advertised)
		v->reason = "bare metal: the fixed counters beyond 3 that CPUID advertises exist";
out:
	if (v->state != PROBE_HAZARD)
		v->fixed_hazard = 0;
	probe_fixed_per_pmu(f, v);
	v->hazard = v->state == PROBE_HAZARD;
	/* The guard acts on CPUID only (see the top of this file). */
	v->guard_state = v->basis == PROBE_BASIS_KLOG ? PROBE_UNKNOWN : v->state;
	if (c->known && !intel && v->basis != PROBE_BASIS_KLOG)
		v->guard_state = PROBE_NOT_INTEL;
}

unsigned probe_open_facts(const struct probe_facts *f, const struct probe_verdict *v)
{
	unsigned open = 0;
	/* In an Intel guest the log may hold evidence against a counter, or
	 * a counter the driver uses that CPUID does not advertise (fixed.c). */
	if (v->intel && v->cpu.hypervisor && v->cpu.leaf_a_known && v->cpu.pmu_version)
		open |= PROBE_KNOWN_KLOG;
	/* Counter 3 advertised and neither proven nor refuted: the MSR and the
	 * log can prove perf metrics; sysfs events decide bare metal only (in
	 * a guest they prove nothing, see the top). */
	if (v->fixed3_advertised && !v->perf_metrics_proven && !((v->fixed_refuted >> 3) & 1)) {
		open |= PROBE_KNOWN_MSR | PROBE_KNOWN_KLOG;
		if (!v->cpu.hypervisor && (f->known & PROBE_KNOWN_SYSFS))
			open |= PROBE_KNOWN_SYSFS_EVENTS;
	}
	return open & ~f->tried;
}

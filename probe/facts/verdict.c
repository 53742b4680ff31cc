// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict: a pure function of the facts.  The CPU is CPUID's
 * (cpuid_decode.c), else the kernel log's (klog_cpu.c); fixed counter 3 is
 * advertised as cpuid_decode.c says, or where the PMU driver's block uses it.
 *
 * Perf metrics is proven only by bit 48 of the mask the driver logged, or
 * by IA32_PERF_CAPABILITIES bit 15.  Sysfs slots/topdown-* decide
 * nothing: in a guest, before commit 556a7c039a52 ("perf/x86/intel: Hide
 * Topdown metrics events if the feature is not enumerated", 6.11,
 * backported to 6.1.y/6.6.y) they are listed on every Ice Lake-or-later
 * PMU; on bare metal, their absence says how old the kernel is (guest_of()).
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
	/* Arrays, not pointers: no relocation at load. */
	static const char names[][12] = {
		[PROBE_SAFE] = "safe",	       [PROBE_HAZARD] = "hazard",
		[PROBE_NOT_INTEL] = "not-intel", [PROBE_NO_PMU] = "no-pmu",
		[PROBE_UNKNOWN] = "unknown",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* "unsupported p6 CPU model N": p6_pmu_init() (arch/x86/events/intel/p6.c)
 * runs only where CPUID has no architectural perfmon, and knows models up
 * to 14 (Core Duo).  Every later Intel model has arch perfmon in hardware,
 * so there a hypervisor hid it. [inferred] */
static bool perfmon_hidden(const struct probe_klog *k)
{
	if (!k->unsupported_model)
		return false;
	if (k->unsupported_family > 6)
		return true;
	return k->unsupported_nr > 14;
}

/* /sys/class/dmi/id as one "sys_vendor product_name" string, the form
 * probe_dmi_guest() reads (the log's "DMI:" line has it too). */
static const char *dmi_system(const struct probe_dmi *d, char *out, size_t size)
{
	size_t a = strlen(d->sys_vendor); /* probe_dmi() ends each with a NUL */
	size_t b = strlen(d->product_name);
	if (a + 1 + b + 1 > size)
		return "";
	memcpy(out, d->sys_vendor, a);
	out[a] = ' ';
	memcpy(out + a + 1, d->product_name, b);
	out[a + 1 + b] = '\0';
	return out;
}

/* Guest or not: the one rule, for CPUID and for the log alike.
 *
 * CPUID.1:ECX[31] set: a guest.  Where it is clear, CPUID describes the
 * silicon, and an advertised counter exists, unless the machine shows what
 * only a hypervisor leaves behind (a hypervisor may hide the bit):
 *  - the firmware's DMI strings naming a virtual machine (/sys/class/dmi/id,
 *    or the kernel's "DMI:" line);
 *  - the kernel's own words: "Hypervisor detected:", a paravirtualized boot
 *    on a named hypervisor, the lines only a guest prints;
 *  - architectural perfmon hidden from a model that has it;
 *  - perfmon version 1-4 with fixed counter 3: counter 3 came with Ice
 *    Lake, which reports version 5, and KVM gives a guest version 2
 *    (kvm_init_pmu_capability(), arch/x86/kvm/pmu.h), with or without bit
 *    48 (GCE's "enhanced" vPMU sets it). [inferred]
 * Never the absence of a sysfs event: slots and topdown-* were first
 * listed by 5.10 (icl_events_attrs held only mem-loads and mem-stores
 * before), while every kernel since Ice Lake support (5.2) schedules
 * TOPDOWN.SLOTS on fixed counter 3 (intel_icl_event_constraints), and
 * before 5.9 no kernel logs bit 48: that is an old kernel on healthy
 * silicon, not a guest.
 *
 * Where CPUID decided, the log's words count only where only the kernel
 * wrote them (kmsg.c: virt_anchored, dmi_anchored).  A log alone is the
 * report's (the guard does not act on it) and is read as it stands. */
static void guest_of(const struct probe_facts *f, struct probe_cpu *c)
{
	if (c->hypervisor)
		return; /* CPUID's bit; the signature names it (probe_hv_from_signature()) */
	const struct probe_klog *k = &f->klog;
	const struct probe_boot *b = &k->boot;
	bool log = (f->known & PROBE_KNOWN_KLOG) != 0;
	bool cpuid = c->basis == PROBE_BASIS_CPUID;
	bool virt = log && (!cpuid || b->virt_anchored);
	bool dmi_line = log && b->dmi[0] && (!cpuid || b->dmi_anchored);
	char sys[2 * PROBE_DMI_LEN + 2];
	const char *dmi_hv = f->known & PROBE_KNOWN_DMI
				     ? probe_dmi_guest(dmi_system(&f->dmi, sys, sizeof(sys)))
				     : NULL;
	const char *line_hv = dmi_line ? probe_dmi_guest(b->dmi) : NULL;
	bool fixed3 = c->perfmon_basis == PROBE_BASIS_CPUID ? probe_fixed3_advertised(c)
			    : c->perfmon_basis == PROBE_BASIS_KLOG ? k->fixed3_logged
								     : false;
	const char *name = NULL;
	if (dmi_hv) {
		c->guest_because = "the firmware's DMI strings (/sys/class/dmi/id) name a virtual "
				   "machine";
		name = dmi_hv;
	} else if (virt && b->hypervisor[0]) {
		c->guest_because = "the kernel log names the hypervisor";
		name = b->hypervisor;
	} else if (line_hv) {
		c->guest_because = "the DMI line names a virtual machine";
		name = line_hv;
	} else if (virt && b->virtualized) {
		c->guest_because = "the kernel log has lines only a guest prints";
	} else if (log && perfmon_hidden(k)) {
		c->guest_because = "architectural perfmon is hidden from a CPU model that has it "
				   "(\"unsupported p6 CPU model\"): only a hypervisor does that";
	} else if (fixed3 && c->pmu_version > 0 && c->pmu_version < 5) {
		c->guest_because = "perfmon version below 5 with fixed counter 3: no Intel part "
				   "pairs them, a hypervisor built this PMU";
	}
	c->hypervisor = c->guest_because != NULL;
	/* Where the log alone speaks for the CPU, a hypervisor line that is
	 * not there is unknown, not absent: an excerpt says bare metal only
	 * where it holds the place where the kernel names its hypervisor
	 * (probe_boot_from_start()). */
	c->guest_unknown = !c->hypervisor && !cpuid && !(log && probe_boot_from_start(b));
	if (name)
		probe_hv_from_name(c, name);
}

/* One name for the hypervisor everywhere (the facts, the findings): a
 * VirtualBox guest's kernel says "Hypervisor detected: KVM" (and its CPUID
 * signature is KVM's) because VirtualBox offers KVM's paravirtual
 * interface; its DMI strings say what it is.  The signature stays. */
static void one_name(const struct probe_facts *f, struct probe_cpu *c)
{
	char sys[2 * PROBE_DMI_LEN + 2];
	const struct probe_boot *b = &f->klog.boot;
	const char *dmi = f->known & PROBE_KNOWN_DMI ? dmi_system(&f->dmi, sys, sizeof(sys)) : "";
	const char *line = f->known & PROBE_KNOWN_KLOG ? b->dmi : "";
	const char *hv = probe_dmi_guest(dmi[0] ? dmi : line);
	if (!c->hypervisor || !hv || strcmp(hv, "VirtualBox") || strcmp(c->hv_name, "KVM"))
		return;
	memcpy(c->hv_name, "VirtualBox", sizeof("VirtualBox"));
	c->guest_because = "the DMI strings name VirtualBox, whose paravirtual interface tells "
			   "the kernel \"KVM\"";
}

/* The CPU: CPUID's, else the kernel log's; its perfmon: CPUID.0AH, else
 * the PMU driver's block; then guest or not. */
static void cpu_of(const struct probe_facts *f, struct probe_cpu *c)
{
	probe_decode_cpu(f, c);
	if (!c->known)
		probe_cpu_from_klog(f, c);
	if (c->known && !c->leaf_a_known)
		probe_perfmon_from_klog(f, c);
	guest_of(f, c);
	probe_hv_from_signature(c);
	one_name(f, c);
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

/* The verdicts reached before the fixed counters are read: an unknown
 * CPU, another vendor, no leaf 0xA, no PMU.  True where one was. */
static bool decided_before_counters(const struct probe_facts *f, struct probe_verdict *v,
				    bool intel)
{
	const struct probe_cpu *c = &v->cpu;
	bool from_log = c->basis == PROBE_BASIS_KLOG;
	if (!c->known) {
		/* The log says there is no PMU driver, whatever the CPU. */
		if (probe_klog_pmu_off(f, false)) {
			v->state = PROBE_NO_PMU;
			v->basis = PROBE_BASIS_KLOG;
			v->reason = "the kernel log says the PMU driver did not load (software events "
				    "only): no hardware counters, nothing to guard";
		} else {
			v->state = PROBE_UNKNOWN;
			v->reason = "CPUID could not be read and the kernel log does not name the CPU: "
				    "failing open, nothing is blocked";
		}
		return true;
	}
	v->intel = intel;
	if (!v->intel && (c->pmu_off || probe_klog_pmu_off(f, c->basis == PROBE_BASIS_CPUID))) {
		/* The report says what the user lives with: no PMU at all (the
		 * no-vpmu finding); the guard's state stays not-intel below, so
		 * that even mode always spares another vendor's event 0x00.
		 * Off Intel there is no leaf 0xA to read all zero, so the
		 * driver's own words decide, live as from a log alone. */
		v->state = PROBE_NO_PMU;
		v->reason = "not an Intel CPU, and the kernel log says its PMU driver did not load "
			    "(software events only): no hardware counters, nothing to guard";
		return true;
	}
	/* Any user reads sysfs: where it lists no core PMU the driver did not
	 * load, so the verdict does not hang on who may read the kernel log. */
	if (!v->intel && (f->known & PROBE_KNOWN_SYSFS) && f->n_pmus == 0) {
		v->state = PROBE_NO_PMU;
		v->reason = "not an Intel CPU, and sysfs lists no core PMU (its driver did not "
			    "load): no hardware counters, nothing to guard";
		return true;
	}
	if (!v->intel) {
		v->state = PROBE_NOT_INTEL;
		v->reason = from_log ? "not an Intel CPU (the kernel log says so): the fixed-counter-3 "
				       "hazard does not exist here"
				     : "not an Intel CPU: the fixed-counter-3 hazard does not exist here";
		return true;
	}
	if (!c->leaf_a_known) {
		v->state = PROBE_UNKNOWN;
		v->reason = from_log ? "the kernel log names an Intel CPU but holds no PMU block: the "
				       "fixed counter count is unknown, failing open, nothing is blocked"
				     : "CPUID leaf 0xA (architectural perfmon) is not available: the fixed "
				       "counter count is unknown, failing open, nothing is blocked";
		return true;
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
		return true;
	}
	return false;
}

/* A guest whose CPUID says hybrid (CPUID.7.0:EDX[15]) and gives a vPMU:
 * the 6.1 hybrid init (intel_pmu_init(), arch/x86/events/intel/core.c,
 * Alder/Raptor Lake) built cpu_core's intel_ctrl from the model's layout,
 * counter 3 and bit 48 included, over a CPUID.0AH of 3 fixed counters
 * (tests/captures/kvm-guest-on-rpl-p-6.1.0-rc8-kernel-mask), so CPUID
 * alone cannot say the kernel never schedules onto counter 3: only the
 * mask the driver logged for this machine can (fixed.c). */
static bool hybrid_guest_mask_unknown(const struct probe_facts *f, const struct probe_cpu *c)
{
	if (c->perfmon_basis != PROBE_BASIS_CPUID || !c->hypervisor || !c->hybrid ||
	    c->pmu_version == 0)
		return false;
	return !(probe_fixed_log_counts(f, c) && f->klog.mask_seen);
}

/* Counter 3: evidence against first, then perf metrics, then guest or bare
 * metal (guest_of()).  Why, with *hazard3; NULL where the verdict is
 * unknown already (v->state and v->reason set). */
static const char *counter3(const struct probe_facts *f, struct probe_verdict *v, bool *hazard3)
{
	const struct probe_cpu *c = &v->cpu;
	bool log_basis = c->perfmon_basis == PROBE_BASIS_KLOG;
	*hazard3 = false;
	if (!v->fixed3_advertised && log_basis && c->fixed_unknown) {
		v->state = PROBE_UNKNOWN;
		v->reason = "the PMU driver's block in the kernel log lacks its mask (an excerpt): "
			    "which fixed counters the kernel schedules onto is unknown, failing open, "
			    "nothing is blocked";
		return NULL;
	}
	if (!v->fixed3_advertised && hybrid_guest_mask_unknown(f, c)) {
		v->state = PROBE_UNKNOWN;
		v->reason = "this hybrid guest's CPUID.0AH advertises no fixed counter 3, but its "
			    "kernel may add it to cpu_core by the CPU model (the 6.1 hybrid init), "
			    "and no mask the PMU driver logged for this boot says whether it did: "
			    "failing open, nothing is blocked";
		return NULL;
	}
	if (!v->fixed3_advertised)
		return log_basis ? "fixed counter 3 is not in the PMU driver's block in the kernel log: "
				   "the kernel never schedules onto it"
				 : "fixed counter 3 is not advertised by CPUID.0AH: the kernel never "
				   "schedules onto it";
	if ((v->fixed_refuted >> 3) & 1) {
		*hazard3 = true;
		return "the kernel uses fixed counter 3 but the facts refute it (the PMU mask it "
		       "logged claims more fixed counters than advertised, or the hypervisor rejected "
		       "enabling it), whatever bit 48 says: opening it faults the guest kernel";
	}
	if (v->perf_metrics_proven)
		return "fixed counter 3 is advertised and perf metrics is proven: it is implemented";
	if (c->hypervisor && log_basis && f->klog.perf_metrics_bit && !f->klog.pmu_block_anchored) {
		/* A log alone whose block has bit 48 but not its boot's start:
		 * the bit cannot be told from a user's lines, and nothing else
		 * speaks for or against the counter. */
		v->state = PROBE_UNKNOWN;
		v->reason = "the kernel log shows a guest whose PMU driver uses fixed counter 3 with "
			    "bit 48 (perf metrics) set, but the log does not hold the start of its "
			    "boot, so the bit proves nothing: failing open, nothing is blocked";
		return NULL;
	}
	if (c->guest_unknown) {
		v->state = PROBE_UNKNOWN;
		v->reason = "the kernel log shows a PMU driver that uses fixed counter 3 without "
			    "perf metrics, but neither names a hypervisor nor holds its boot from the "
			    "start, where the kernel would name one: guest or bare metal is unknown, "
			    "failing open, nothing is blocked";
		return NULL;
	}
	if (c->hypervisor) {
		*hazard3 = true;
		return log_basis ? "the kernel log shows a guest whose PMU driver uses fixed counter 3 "
				   "without perf metrics: the hypervisor does not implement it, and "
				   "opening it faults the guest kernel"
				 : "this guest advertises fixed counter 3 in CPUID.0AH but perf metrics "
				   "is not proven: the hypervisor does not implement it, and opening it "
				   "faults the guest kernel";
	}
	/* Bare metal: CPUID describes the silicon.  Bit 48 missing from the
	 * mask is a fact about the kernel (before 5.9 none logs it; 6.12
	 * clears it on Arrow Lake-U), not about the counter. */
	return log_basis ? "bare metal (nothing in the kernel log shows a hypervisor) whose PMU "
			   "driver uses fixed counter 3: the counter exists in the silicon"
			 : "bare metal: CPUID describes the silicon, and fixed counter 3 exists "
			   "wherever it advertises it";
}

/* The fixed counters: counter 3 here, 4-6 fixed.c's. */
static void judge_counters(const struct probe_facts *f, struct probe_verdict *v)
{
	probe_fixed_sets(f, v);
	v->fixed3_advertised = (v->fixed_advertised >> 3) & 1;
	/* Evidence against beats evidence for: perf metrics is read through
	 * fixed counter 3, so where the counter is refuted, bit 48 of the same
	 * mask (the 6.1 hybrid init sets both on cpu_core from the CPU model,
	 * intel_pmu_init(), arch/x86/events/intel/core.c) proves nothing. */
	if ((v->fixed_refuted >> 3) & 1) {
		v->perf_metrics_proven = false;
		v->metrics_source = NULL;
	}
	bool hazard3;
	const char *why3 = counter3(f, v, &hazard3);
	if (!why3)
		return;
	if (hazard3)
		v->fixed_hazard |= 1u << 3;
	if (!v->fixed_hazard && v->cpu.guest_unknown &&
	    (v->fixed_advertised & PROBE_FIXED_GUARDED & ~(1u << 3))) {
		/* Counters 4-6 exist on bare metal, and nothing proves them in
		 * a guest (fixed.c): which of the two is unknown here. */
		v->state = PROBE_UNKNOWN;
		v->reason = "the kernel log shows fixed counters beyond 3, but neither names a "
			    "hypervisor nor holds its boot from the start, where the kernel would "
			    "name one: guest or bare metal is unknown, failing open, nothing is "
			    "blocked";
		return;
	}
	v->state = v->fixed_hazard ? PROBE_HAZARD : PROBE_SAFE;
	v->reason = why3;
	if (!hazard3 && v->fixed_hazard)
		v->reason = "this guest advertises fixed counters beyond 3 (the E-cores' "
			    "TOPDOWN_*.ALL, counters 4-6) that no hypervisor is known to implement: "
			    "an event the kernel schedules there faults the guest kernel";
	else if (!hazard3 && (v->fixed_advertised & PROBE_FIXED_GUARDED & ~(1u << 3)) &&
		 !v->fixed3_advertised)
		v->reason = "bare metal: the fixed counters beyond 3 that CPUID advertises exist";
}

void probe_evaluate(const struct probe_facts *f, struct probe_verdict *v)
{
	memset(v, 0, sizeof(*v));
	struct probe_cpu *c = &v->cpu;
	cpu_of(f, c);
	bool intel = c->known && strcmp(c->vendor, "GenuineIntel") == 0;

	/* The P-core PMU's own events (type 4: cpu, or a hybrid part's
	 * cpu_core): cpu_atom's topdown-* are general-purpose events there
	 * and say nothing of counter 3.  The report's only: no verdict rests
	 * on sysfs events (guest_of()). */
	for (unsigned i = 0; i < f->n_pmus && i < PROBE_MAX_PMUS; i++)
		if (f->pmus[i].type == PROBE_TYPE_RAW &&
		    (f->pmus[i].slots_listed || f->pmus[i].topdown_listed))
			v->topdown_listed = true;

	v->metrics_source = probe_metrics_proof(f);
	v->perf_metrics_proven = v->metrics_source != NULL;

	v->basis = c->known ? c->basis : PROBE_BASIS_NONE;
	if (!decided_before_counters(f, v, intel))
		judge_counters(f, v);
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
	 * log can prove perf metrics.  On what looks like bare metal, DMI and
	 * the log can still show a hypervisor that hid CPUID's bit, which
	 * makes an unproven counter 3 (and counters 4-6) a hazard (guest_of());
	 * sysfs events decide nothing. */
	if (v->fixed3_advertised && !v->perf_metrics_proven && !((v->fixed_refuted >> 3) & 1))
		open |= PROBE_KNOWN_MSR | PROBE_KNOWN_KLOG;
	uint32_t unproven = v->fixed_advertised & PROBE_FIXED_GUARDED & ~v->fixed_refuted;
	if (v->perf_metrics_proven)
		unproven &= ~(1u << 3);
	if (v->intel && !v->cpu.hypervisor && unproven)
		open |= PROBE_KNOWN_DMI | PROBE_KNOWN_KLOG;
	/* Off Intel with no core PMU in sysfs, only the driver's words say
	 * whether there is a PMU at all (no-pmu or not-intel).  The guard
	 * spares another vendor's events either way; the shim's log line and
	 * the report must still name the same verdict. */
	if (v->cpu.known && !v->intel && v->state == PROBE_NOT_INTEL &&
	    f->known & PROBE_KNOWN_SYSFS && f->n_pmus == 0)
		open |= PROBE_KNOWN_KLOG;
	return open & ~f->tried;
}

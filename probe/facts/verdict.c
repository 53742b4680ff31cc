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
 *
 * Where CPUID is missing (a snapshot holding only a kernel log, or probe
 * --dmesg FILE: what support engineers receive), the facts the log states
 * stand in for it: the CPU0 line's vendor and model, the hypervisor lines,
 * and the PMU driver's block (version, fixed counters or bitmap, the mask
 * with bit 35 for counter 3 and bit 48 for perf metrics).  The log is the
 * kernel's own view: intel_ctrl is what it schedules onto.  Such a verdict
 * is the report's, not the guard's: guard_state is PROBE_UNKNOWN for it,
 * so auto mode fails open exactly as it did before the log was read.  Why:
 *  - the guard runs on the machine itself, where CPUID is always there
 *    (live, or a snapshot's cpuid.txt): only a replay lacks it;
 *  - a log file is text anyone may hand over: an excerpt (a line that is
 *    not there is unknown, not absent), another boot, another machine;
 *  - wrongly narrowing a healthy machine is the worse error, and the
 *    fail-open rule says so for every fact the guard cannot read itself.
 * probe --check still exits 3 on a log-only hazard: that is a report.
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
	/* "KVMKVMKVM\0\0\0", "bhyve bhyve ": the name without its padding. */
	for (int i = 11; i >= 0 && (out[i] == ' ' || out[i] == '\0'); i--)
		out[i] = '\0';
}

void probe_decode_cpu(const struct probe_facts *f, struct probe_cpu *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
	const struct probe_cpuid_leaf *l0 = probe_leaf(f, 0, 0);
	if (!(f->known & PROBE_KNOWN_CPUID) || !l0)
		return;
	cpu->known = true;
	cpu->basis = PROBE_BASIS_CPUID;
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
		cpu->fms_known = true;
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
		cpu->perfmon_basis = PROBE_BASIS_CPUID;
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

/* No stdio here: the shim links this file. */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* CPUID hypervisor signatures and what to call them. */
static const struct {
	const char *signature, *name;
} hv_names[] = {
	{"KVMKVMKVM", "KVM"},	       {"Microsoft Hv", "Microsoft Hyper-V"},
	{"VMwareVMware", "VMware"},    {"XenVMMXenVMM", "Xen"},
	{"TCGTCGTCGTCG", "QEMU TCG"},  {"bhyve bhyve ", "bhyve"},
	{"ACRNACRNACRN", "ACRN"},      {" lrpepyh  vr", "Parallels"},
	{"VBoxVBoxVBox", "VirtualBox"},
};

/* What the log's name is as a CPUID signature (the remedies compare those):
 * "Hypervisor detected: KVM", "Microsoft Hyper-V", "VMware", "Xen HVM". */
static const char *signature_of(const char *name)
{
	for (size_t i = 0; i < sizeof(hv_names) / sizeof(hv_names[0]); i++)
		if (!strncmp(name, hv_names[i].name, strlen(hv_names[i].name)))
			return hv_names[i].signature;
	return "";
}

/* DMI system strings ("sys_vendor product_name") only a virtual machine
 * carries, and its hypervisor.  Amazon EC2 names bare metal ".metal". */
static const struct {
	const char *needle, *hypervisor;
} dmi_guests[] = {
	{"QEMU", "KVM or QEMU"},
	{"VirtualBox", "VirtualBox"},
	{"VMware", "VMware"},
	{"Microsoft Corporation Virtual Machine", "Microsoft Hyper-V"},
	{"BHYVE", "bhyve"},
	{"bhyve", "bhyve"},
	{"HVM domU", "Xen"},
	{"Google Compute Engine", "KVM"},
	{"vServer", "KVM"},
};

const char *probe_dmi_guest(const char *system)
{
	if (!strncmp(system, "Amazon EC2 ", 11))
		return strstr(system, ".metal") ? NULL : "KVM";
	for (size_t i = 0; i < sizeof(dmi_guests) / sizeof(dmi_guests[0]); i++)
		if (strstr(system, dmi_guests[i].needle))
			return dmi_guests[i].hypervisor;
	return NULL;
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

static void cpu_from_log(const struct probe_facts *f, struct probe_cpu *cpu)
{
	const struct probe_klog *k = &f->klog;
	const struct probe_boot *b = &k->boot;
	if (!(f->known & PROBE_KNOWN_KLOG))
		return;
	const char *vendor = b->cpu_vendor[0] ? b->cpu_vendor
			     : k->driver_vendor[0] ? k->driver_vendor
			     : k->unsupported_model ? "GenuineIntel" /* intel/p6.c, intel/core.c */
						 : NULL;
	if (vendor) {
		cpu->known = true;
		cpu->basis = PROBE_BASIS_KLOG;
		memcpy(cpu->vendor, vendor, 13);
	}
	if (b->fms_seen) {
		cpu->fms_known = true;
		cpu->family = b->family;
		cpu->model = b->model;
		cpu->stepping = b->stepping;
	} else if (k->unsupported_model && k->unsupported_nr >= 0) {
		cpu->fms_known = true;
		cpu->family = k->unsupported_family >= 0 ? (uint32_t)k->unsupported_family : 6;
		cpu->model = (uint32_t)k->unsupported_nr;
	}
	/* Guest or not: the lines only a guest prints, the hypervisor they
	 * name, a virtual machine's DMI, then what only a hypervisor does. */
	const char *dmi_hv = b->dmi[0] ? probe_dmi_guest(b->dmi) : NULL;
	if (b->hypervisor[0]) {
		cpu->guest_because = "the kernel log names the hypervisor";
		copy_str(cpu->hv_name, sizeof(cpu->hv_name), b->hypervisor);
	} else if (dmi_hv) {
		cpu->guest_because = "the DMI line names a virtual machine";
		copy_str(cpu->hv_name, sizeof(cpu->hv_name), dmi_hv);
	} else if (b->virtualized) {
		cpu->guest_because = "the kernel log has lines only a guest prints";
	} else if (perfmon_hidden(k)) {
		cpu->guest_because = "architectural perfmon is hidden from a CPU model that has it "
				     "(\"unsupported p6 CPU model\"): only a hypervisor does that";
	} else if (k->fixed3_logged && !k->perf_metrics_bit && k->version_logged > 0 &&
		   k->version_logged < 5) {
		/* Counter 3 came with Ice Lake, which reports perfmon version 5;
		 * KVM caps guests at version 2 (kvm_init_pmu_capability(),
		 * arch/x86/kvm/pmu.h). [inferred] */
		cpu->guest_because = "perfmon version below 5 with fixed counter 3: no Intel part "
				     "pairs them, a hypervisor built this PMU";
	}
	cpu->hypervisor = cpu->guest_because != NULL;
	copy_str(cpu->hv_vendor, sizeof(cpu->hv_vendor), signature_of(cpu->hv_name));
}

static void perfmon_from_log(const struct probe_klog *k, struct probe_cpu *cpu)
{
	cpu->pmu_off = k->no_pmu_driver || k->virt_unavailable || k->broken_pmu;
	if (!cpu->pmu_off && k->version_logged < 0 && k->fixed_logged < 0 && !k->mask_seen)
		return; /* no PMU block in the text */
	cpu->leaf_a_known = true;
	cpu->perfmon_basis = PROBE_BASIS_KLOG;
	if (cpu->pmu_off)
		return; /* version 0: no counters the kernel will use */
	cpu->pmu_version = k->version_logged > 0 ? (uint32_t)k->version_logged : 0;
	cpu->gp_counters = k->gp_logged > 0 ? (uint32_t)k->gp_logged : 0;
	cpu->fixed_counters = k->fixed_logged > 0 ? (uint32_t)k->fixed_logged : 0;
	cpu->fixed_bitmap = k->fixed_bitmap_seen ? k->fixed_bitmap : 0;
}

static void name_hypervisor(struct probe_cpu *c)
{
	if (c->hv_name[0] || !c->hypervisor)
		return;
	for (size_t i = 0; i < sizeof(hv_names) / sizeof(hv_names[0]); i++)
		if (!strcmp(c->hv_vendor, hv_names[i].signature))
			copy_str(c->hv_name, sizeof(c->hv_name), hv_names[i].name);
}

void probe_evaluate(const struct probe_facts *f, struct probe_verdict *v)
{
	memset(v, 0, sizeof(*v));
	probe_decode_cpu(f, &v->cpu);
	struct probe_cpu *c = &v->cpu;
	if (!c->known)
		cpu_from_log(f, c);
	if (c->known && !c->leaf_a_known && (f->known & PROBE_KNOWN_KLOG))
		perfmon_from_log(&f->klog, c);
	name_hypervisor(c);
	bool intel = c->known && strcmp(c->vendor, "GenuineIntel") == 0;
	bool from_log = c->basis == PROBE_BASIS_KLOG;

	for (unsigned i = 0; i < f->n_pmus && i < PROBE_MAX_PMUS; i++)
		if (f->pmus[i].slots_listed || f->pmus[i].topdown_listed)
			v->topdown_listed = true;

	/* The log proves perf metrics only through the driver's own block
	 * beyond doubt (kmsg.c: anchored), never a line a user could write. */
	if (f->known & PROBE_KNOWN_KLOG && f->klog.perf_metrics_bit && f->klog.pmu_block_anchored) {
		v->perf_metrics_proven = true;
		v->metrics_source = "bit 48 (GLOBAL_CTRL_EN_PERF_METRICS) of the PMU mask in the kernel log";
	} else if (f->known & PROBE_KNOWN_MSR &&
		   (f->perf_capabilities >> PERF_CAP_PERF_METRICS_BIT) & 1) {
		v->perf_metrics_proven = true;
		v->metrics_source = "IA32_PERF_CAPABILITIES (MSR 0x345) bit 15";
	}

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
	v->fixed3_advertised = c->perfmon_basis == PROBE_BASIS_KLOG ? f->klog.fixed3_logged
								    : probe_fixed3_advertised(c);

	if (!v->fixed3_advertised) {
		v->state = PROBE_SAFE;
		v->reason = c->perfmon_basis == PROBE_BASIS_KLOG
				    ? "fixed counter 3 is not in the PMU driver's block in the kernel log: "
				      "the kernel never schedules onto it"
				    : "fixed counter 3 is not advertised by CPUID.0AH: the kernel never "
				      "schedules onto it";
	} else if (v->perf_metrics_proven) {
		v->state = PROBE_SAFE;
		v->reason = "fixed counter 3 is advertised and perf metrics is proven: it is "
			    "implemented";
	} else if (c->hypervisor) {
		v->state = PROBE_HAZARD;
		v->reason = c->perfmon_basis == PROBE_BASIS_KLOG
				    ? "the kernel log shows a guest whose PMU driver uses fixed counter 3 "
				      "without perf metrics: the hypervisor does not implement it, and "
				      "opening it faults the guest kernel"
				    : "this guest advertises fixed counter 3 in CPUID.0AH but perf metrics "
				      "is not proven: the hypervisor does not implement it, and opening it "
				      "faults the guest kernel";
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
out:
	v->hazard = v->state == PROBE_HAZARD;
	/* The guard acts on CPUID only (see the top of this file). */
	v->guard_state = v->basis == PROBE_BASIS_KLOG ? PROBE_UNKNOWN : v->state;
	if (c->known && !intel && v->basis != PROBE_BASIS_KLOG)
		v->guard_state = PROBE_NOT_INTEL;
}

enum probe_known probe_next_fact(const struct probe_facts *f)
{
	struct probe_verdict v;
	probe_evaluate(f, &v);
	/* Without CPUID (or its leaf 0xA) the log may state the facts: the
	 * report's verdict then rests on it, the guard's stays unknown. */
	if (!(f->tried & PROBE_KNOWN_KLOG) && (!v.cpu.known || !v.cpu.leaf_a_known))
		return PROBE_KNOWN_KLOG;
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

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The findings behind `pmuguard probe`.  Three stories stand behind them,
 * each of which cost someone a day because nothing said what was wrong:
 * an incoherent vPMU (m6i), no vPMU at all (KVM on a hybrid host), and
 * counters held by the hypervisor (VMware).  The kernel sources each rests
 * on are cited where it is built.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "findings.h"
#include "machine.h"
#include "report.h"

/* The whole host, containers included: what the fleet tooling does. */
#define GUARD_HOST                                                                  \
	"To guard the whole host, containers and any user included: `pmuguard-fleet " \
	"install` (the kernel guard where the kernel takes it, else the system-wide "  \
	"preload), or `pmuguard enforce start`."

/* arch/x86/include/asm/intel-family.h: the "Hybrid" (P-core/E-core) group. */
static const struct {
	uint8_t family, model;
} hybrid_models[] = {
	{6, 0x8A}, /* Lakefield */
	{6, 0x97}, {6, 0x9A}, /* Alder Lake */
	{6, 0xAA}, {6, 0xAC}, /* Meteor Lake */
	{6, 0xB5}, {6, 0xC5}, {6, 0xC6}, /* Arrow Lake */
	{6, 0xB7}, {6, 0xBA}, {6, 0xBF}, /* Raptor Lake */
	{6, 0xBD}, /* Lunar Lake */
	{6, 0xCC}, /* Panther Lake */
	{6, 0xD5}, /* Wildcat Lake */
	{18, 0x01}, {18, 0x03}, /* Nova Lake */
};

bool findings_hybrid_model(uint32_t family, uint32_t model)
{
	for (size_t i = 0; i < sizeof(hybrid_models) / sizeof(hybrid_models[0]); i++)
		if (hybrid_models[i].family == family && hybrid_models[i].model == model)
			return true;
	return false;
}

const char *findings_msr_name(unsigned msr, char *buf, size_t size)
{
	const char *pmu = probe_pmu_msr_name(msr);
	if (msr >= 0x186 && msr < 0x186 + 8)
		snprintf(buf, size, "IA32_PERFEVTSEL%u (event select of general counter %u)",
			 msr - 0x186, msr - 0x186);
	else if (msr == 0x38d)
		snprintf(buf, size, "IA32_FIXED_CTR_CTRL (fixed counter control)");
	else if (msr >= 0xc0010000 && msr < 0xc0010004)
		snprintf(buf, size, "AMD PERF_CTL%u (event select)", msr - 0xc0010000);
	else
		snprintf(buf, size, "%s", pmu ? pmu : "a PMU control register");
	return buf;
}

/* Bounded appending to a finding's text. */
__attribute__((format(printf, 3, 4))) static void add(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	if (len + 1 >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

#define ADD(field, ...) add((field), sizeof(field), __VA_ARGS__)

const char *finding_severity_name(enum finding_severity s)
{
	static const char *const names[] = {
		[SEVERITY_CRITICAL] = "critical", [SEVERITY_ERROR] = "error",
		[SEVERITY_WARNING] = "warning",	  [SEVERITY_INFO] = "info",
		[SEVERITY_OK] = "ok",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static struct finding *next(struct finding *out, unsigned *n, const char *id,
			    enum finding_severity severity, const char *summary)
{
	struct finding *x = &out[*n];
	memset(x, 0, sizeof(*x));
	x->id = id;
	x->severity = severity;
	x->summary = summary;
	(*n)++;
	return x;
}

static void klog_evidence(char *buf, size_t size, const struct probe_facts *f)
{
	if (!(f->known & PROBE_KNOWN_KLOG))
		add(buf, size, " The kernel log could not be read (%s).", strerror(-f->klog_err));
	else if (f->klog.mask_seen && !f->klog.pmu_block_anchored)
		add(buf, size, " The kernel log's PMU block has the mask 0x%016" PRIx64 " (bit 48 "
			       "%s), but the log does not hold the start of its boot, so the block "
			       "cannot be told from lines a user wrote: it proves nothing.",
		    f->klog.mask, f->klog.perf_metrics_bit ? "set" : "clear");
	else if (f->klog.mask_seen)
		add(buf, size, " The PMU driver logged the mask 0x%016" PRIx64 ": bit 48 "
			       "(GLOBAL_CTRL_EN_PERF_METRICS) is %s.",
		    f->klog.mask, f->klog.perf_metrics_bit ? "set" : "clear");
	else
		add(buf, size, " The kernel log holds no PMU mask line.");
	const struct probe_klog_ignored *ig = &f->klog.ignored;
	unsigned ignored = probe_klog_ignored_total(ig);
	if (f->known & PROBE_KNOWN_KLOG && ignored)
		add(buf, size, " %u record%s of the log with the PMU driver's marks %s not read as "
			       "its block: not at a record's start, not the kernel's, or outside the "
			       "driver's block (kernel_log.ignored in --json).",
		    ignored, ignored == 1 ? "" : "s", ignored == 1 ? "was" : "were");
}

/* "the guest AWS m6i.16xlarge (hypervisor KVM)", "this guest (hypervisor
 * KVM)", "this bare-metal machine". */
static void machine_phrase(char *buf, size_t size, const struct probe_machine *m,
			   const struct probe_verdict *v)
{
	const struct probe_cpu *c = &v->cpu;
	char hv[96];
	probe_hv_words(c->hv_name, c->hv_vendor, hv, sizeof(hv));
	if (c->hypervisor)
		add(buf, size, "%s%s (hypervisor %s)", m->words[0] ? "the guest " : "this guest",
		    m->words, hv);
	else
		add(buf, size, "%s%s", m->words[0] ? "the bare-metal machine " : "this bare-metal machine",
		    m->words);
}

enum plain_perf_stat findings_plain_perf_stat(const struct probe_facts *f,
					      const struct probe_verdict *v)
{
	if (!v->hazard)
		return PLAIN_PERF_STAT_WORKS;
	for (unsigned i = 0; i < f->n_pmus && i < PROBE_MAX_PMUS; i++)
		if (f->pmus[i].slots_listed)
			return PLAIN_PERF_STAT_STOPS;
	if (f->known & PROBE_KNOWN_SYSFS_EVENTS)
		return PLAIN_PERF_STAT_WORKS; /* 6.11+ (or the backport): slots hidden */
	unsigned major = 0, minor = 0;
	if (sscanf(f->klog.boot.kernel_release, "%u.%u", &major, &minor) == 2 &&
	    (major < 6 || (major == 6 && minor < 11)))
		return PLAIN_PERF_STAT_MAY_STOP;
	return PLAIN_PERF_STAT_WORKS;
}

const char *findings_plain_perf_stat_name(enum plain_perf_stat s)
{
	static const char *const names[] = {[PLAIN_PERF_STAT_WORKS] = "works",
					    [PLAIN_PERF_STAT_STOPS] = "stops",
					    [PLAIN_PERF_STAT_MAY_STOP] = "may-stop"};
	return (unsigned)s < 3 ? names[s] : "?";
}

const char *findings_plain_perf_stat_text(enum plain_perf_stat s)
{
	switch (s) {
	case PLAIN_PERF_STAT_STOPS:
		return "This kernel lists slots in sysfs (kernels before 6.11 do), so a plain "
		       "`perf stat` leads a topdown group with slots: under pmuguard's default "
		       "`slots = deny` perf stops with \"The slots event is not supported\" and "
		       "prints no counts. Set `slots = substitute` in /etc/pmuguard.conf (the "
		       "preload then counts TOPDOWN.SLOTS as TOPDOWN.SLOTS_P, 0x01a4, on a "
		       "general-purpose counter; the metrics stay not supported), or name the "
		       "events (`perf stat -e cycles,instructions ...`).";
	case PLAIN_PERF_STAT_MAY_STOP:
		return "The log's kernel is older than 6.11: if it lists slots in sysfs (it does "
		       "without the td_is_visible backport), a plain `perf stat` under pmuguard's "
		       "default `slots = deny` stops with \"The slots event is not supported\". "
		       "Set `slots = substitute` in /etc/pmuguard.conf (TOPDOWN.SLOTS is then "
		       "counted as TOPDOWN.SLOTS_P, 0x01a4), or name the events.";
	case PLAIN_PERF_STAT_WORKS:
		break;
	}
	return "";
}

static unsigned popcount32(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The evidence against the counters of set, quoted: the driver's mask
 * against its own count, and the writes the hypervisor rejected. */
static void refuted_evidence(char *buf, size_t size, const struct probe_facts *f,
			     const struct probe_verdict *v, uint32_t set)
{
	const struct probe_klog *k = &f->klog;
	char words[64];
	uint32_t against = set & v->fixed_refuted;
	probe_fixed_words(against, words, sizeof(words));
	add(buf, size, " Evidence against fixed counter%s %s, which beats any evidence for it:",
	    (against & (against - 1)) ? "s" : "", words);
	if (k->mask_seen) {
		uint32_t bits = (uint32_t)((k->mask >> 32) & 0xffff);
		add(buf, size, " the PMU driver logged the mask 0x%016" PRIx64 " (%u fixed counters",
		    k->mask, popcount32(bits));
		if (k->fixed_bitmap_seen)
			add(buf, size, ") with the fixed bitmap 0x%x", k->fixed_bitmap);
		else if (k->fixed_logged >= 0)
			add(buf, size, ") but counted %d fixed-purpose events", k->fixed_logged);
		else
			add(buf, size, ")");
		if (v->cpu.perfmon_basis == PROBE_BASIS_CPUID)
			add(buf, size, ", and CPUID.0AH advertises %u", v->cpu.fixed_counters);
		if ((k->mask >> 48) & 1)
			add(buf, size, "; its bit 48 (perf metrics) proves nothing against that");
		add(buf, size, ".");
	}
	for (unsigned i = 0; i < k->boot.n_msr_errors && i < PROBE_MAX_MSR_ERRORS; i++) {
		const struct probe_msr_error *e = &k->boot.msr_errors[i];
		if (!(probe_msr_error_fixed(e) & set))
			continue;
		add(buf, size, " The kernel log has \"unchecked MSR access error: WRMSR to 0x%x "
			       "(tried to write 0x%016" PRIx64 ")\": the hypervisor refused to "
			       "enable it.",
		    e->msr, e->value);
	}
}

/* Fixed counters 4-6: the E-cores' topdown counters, advertised by a
 * guest that no hypervisor is known to implement them for. */
static void fixed_beyond3(const struct probe_facts *f, const struct probe_verdict *v,
			  const struct probe_machine *m, struct finding *out, unsigned *n)
{
	const struct probe_cpu *c = &v->cpu;
	uint32_t set = v->fixed_hazard & PROBE_FIXED_GUARDED & ~(1u << 3);
	char words[64];
	probe_fixed_words(set, words, sizeof(words));
	bool many = (set & (set - 1)) != 0;
	struct finding *x = next(out, n, "fixed-e-topdown-unimplemented", SEVERITY_CRITICAL,
				 "Fixed counters beyond 3 (the E-cores' topdown counters) are "
				 "advertised but not implemented");
	ADD(x->evidence, "Fixed counter%s %s %s advertised by this guest's %s", many ? "s" : "",
	    words, many ? "are" : "is",
	    c->perfmon_basis == PROBE_BASIS_KLOG ? "kernel log (the PMU driver's block)" : "CPUID");
	if (c->perfmon_basis == PROBE_BASIS_CPUID) {
		ADD(x->evidence, " (CPUID.0AH perfmon version %u, %u fixed counters", c->pmu_version,
		    c->fixed_counters);
		if (c->pmu_version >= 5)
			ADD(x->evidence, ", fixed bitmap 0x%x", c->fixed_bitmap);
		if (c->fixed_ext_known)
			ADD(x->evidence, ", leaf 0x23 fixed bitmap 0x%x", c->fixed_ext);
		ADD(x->evidence, ")");
	}
	ADD(x->evidence, "; this is ");
	machine_phrase(x->evidence, sizeof(x->evidence), m, v);
	if (c->guest_because)
		ADD(x->evidence, ": %s", c->guest_because);
	ADD(x->evidence, ". No hypervisor is known to implement them: upstream KVM, its mediated "
			 "vPMU included, gives a guest at most 3 fixed counters, so a vPMU "
			 "that advertises these copied the host's CPUID.");
	if (v->fixed_refuted & set)
		refuted_evidence(x->evidence, sizeof(x->evidence), f, v, set);
	x->consequence = "The kernel trusts CPUID and schedules TOPDOWN_BAD_SPECULATION.ALL "
			 "(0x0073), TOPDOWN_FE_BOUND.ALL (0x019c) and TOPDOWN_RETIRING.ALL "
			 "(0x02c2) on fixed counters 4, 5 and 6 before any general-purpose one: "
			 "`perf stat -e cpu/event=0x73/`, toplev, or a tool that knows these events "
			 "faults the guest kernel the way TOPDOWN.SLOTS does on the m6i.";
	ADD(x->remedy, "Run perf tools under the guard: `pmuguard run -- perf stat ...` (the "
		       "events show as <not supported>; the same events with a cmask or inv "
		       "modifier still count on general-purpose counters). %s ", GUARD_HOST);
	ADD(x->remedy, "This is the hypervisor's bug: report it to the %s%s (its vPMU advertises "
		       "fixed counter%s %s without implementing %s).",
	    m->words[0] ? "provider of " : "hypervisor's owner", m->words, many ? "s" : "", words,
	    many ? "them" : "it");
	if (v->basis == PROBE_BASIS_KLOG)
		ADD(x->remedy, " This verdict rests on a kernel log alone: pmuguard's guard acts on "
			       "CPUID, which it reads on the machine itself.");
}

/* Counters the kernel's own mask holds beyond what CPUID gave it: this
 * guest's kernel, not the hypervisor, advertised them, and the hypervisor
 * was right to refuse them.  On Alder Lake and Raptor Lake models the
 * hybrid init sets perf metrics, and fixed counter 3 with it, on cpu_core
 * from the CPU model without asking PERF_CAPABILITIES (intel_pmu_init(),
 * arch/x86/events/intel/core.c, 6.1: "Perf assumes that the p-core
 * hardware always has the feature enabled", Kan Liang on linux-kernel,
 * 2023-01-20); upstream answered on the host: KVM turns the vPMU off on
 * hybrid hosts (4d7404e5ee00). */
static bool kernel_mask_blamed(const struct probe_verdict *v, uint32_t set)
{
	return set && (set & v->fixed_mask_beyond) == set;
}

static void kernel_mask_remedy(char *buf, size_t size, const struct probe_verdict *v,
			       const struct probe_machine *m)
{
	const struct probe_cpu *c = &v->cpu;
	bool hybrid = c->hybrid || (c->fms_known && findings_hybrid_model(c->family, c->model));
	add(buf, size, "It is not the hypervisor that advertises fixed counter 3: CPUID gives "
		       "this guest's kernel fewer fixed counters, and the kernel itself put counter 3 "
		       "and perf metrics (bit 48) in its mask.");
	if (hybrid)
		add(buf, size, " This %s model 0x%x is a hybrid part, and the guest kernel's hybrid "
			       "PMU setup assumes both on the P-cores from the CPU model, not from "
			       "CPUID or PERF_CAPABILITIES (intel_pmu_init(), "
			       "arch/x86/events/intel/core.c).",
		    c->vendor, c->model);
	add(buf, size, " The fix is on the host%s%s: give the guest a CPU model that is not "
		       "hybrid, or run it on a host whose KVM turns the vPMU off on hybrid hosts "
		       "(Linux commit 4d7404e5ee00, 6.2 and stable: no counters then, and nothing "
		       "to fault).",
	    m->words[0] ? " of " : "", m->words);
}

static void fixed3(const struct probe_facts *f, const struct probe_verdict *v,
		   const struct probe_machine *m, struct finding *out, unsigned *n)
{
	const struct probe_cpu *c = &v->cpu;
	struct finding *x = next(out, n, "fixed3-unimplemented", SEVERITY_CRITICAL,
				 "Fixed counter 3 (TOPDOWN.SLOTS) is advertised but not implemented");
	if (c->perfmon_basis == PROBE_BASIS_KLOG) {
		ADD(x->evidence, "The kernel log's PMU block ");
		if (c->pmu_version_known)
			ADD(x->evidence, "(perfmon version %u) ", c->pmu_version);
		ADD(x->evidence, "shows ");
		if (f->klog.fixed_bitmap_seen)
			ADD(x->evidence, "the fixed-counter bitmap 0x%x", f->klog.fixed_bitmap);
		else if (f->klog.fixed_logged >= 0)
			ADD(x->evidence, "%d fixed counters", f->klog.fixed_logged);
		else
			ADD(x->evidence, "fixed counter 3 in the mask");
		ADD(x->evidence, " (there is no CPUID: these facts come from the log); this is ");
	} else {
		ADD(x->evidence, "CPUID.0AH (perfmon version %u) advertises %u fixed counters",
		    c->pmu_version, c->fixed_counters);
		if (c->pmu_version >= 5)
			ADD(x->evidence, ", fixed bitmap 0x%x", c->fixed_bitmap);
		ADD(x->evidence, "; this is ");
	}
	machine_phrase(x->evidence, sizeof(x->evidence), m, v);
	if (c->guest_because)
		ADD(x->evidence, ": %s", c->guest_because);
	ADD(x->evidence, ".");
	if ((v->fixed_refuted >> 3) & 1)
		refuted_evidence(x->evidence, sizeof(x->evidence), f, v, 1u << 3);
	else
		klog_evidence(x->evidence, sizeof(x->evidence), f);
	if (f->known & PROBE_KNOWN_MSR && !((f->perf_capabilities >> 15) & 1))
		ADD(x->evidence, " IA32_PERF_CAPABILITIES bit 15 (PERF_METRICS) is clear.");
	if (v->topdown_listed && c->hypervisor)
		ADD(x->evidence, " sysfs lists slots/topdown-* anyway: kernels before 6.11 list "
				 "them whether or not perf metrics exists.");
	x->consequence = "Opening TOPDOWN.SLOTS (raw 0x0400), a topdown metric, or a plain "
			 "`perf stat` on kernels before 6.11 faults the kernel in "
			 "x86_perf_event_update(): the task dies holding perf's lock, every "
			 "later perf_event_open hangs in D state and the instance drops off "
			 "the network. perf list, toplev and vendor tools reach it too.";
	ADD(x->remedy, "Run perf tools under the guard: `pmuguard run -- perf stat ...` (blocked "
		       "events show as <not supported>; static and Go tools such as PerfSpect "
		       "too). %s ", GUARD_HOST);
	const char *pps = findings_plain_perf_stat_text(findings_plain_perf_stat(f, v));
	if (*pps)
		ADD(x->remedy, "%s ", pps);
	if (kernel_mask_blamed(v, 1u << 3))
		kernel_mask_remedy(x->remedy, sizeof(x->remedy), v, m);
	else if (c->hypervisor && m->words[0])
		ADD(x->remedy, "This is the hypervisor's bug: report it to the provider of %s (its "
			       "vPMU advertises fixed counter 3 without implementing it).",
		    m->words);
	else
		ADD(x->remedy, "This is the hypervisor's bug: report it to the cloud provider.");
	if (v->basis == PROBE_BASIS_KLOG)
		ADD(x->remedy, " This verdict rests on a kernel log alone: pmuguard's guard acts on "
			       "CPUID, which it reads on the machine itself.");
}

/* A Firecracker microVM: no SMBIOS ("DMI not present or invalid") and its
 * virtio devices on the command line (virtio_mmio.device=, no PCI), and no
 * DMI that names another machine. */
bool findings_firecracker(const struct probe_facts *f, const struct probe_machine *m)
{
	const struct probe_boot *b = &f->klog.boot;
	return f->known & PROBE_KNOWN_KLOG && b->no_dmi && b->virtio_mmio && !m->system[0];
}

/* Firecracker's own words: its x86 CPUID normalization hides architectural
 * perfmon (no vPMU), and its CPU templates only mask CPUID further
 * [inferred from its docs/cpu_templates/]. */
static void firecracker_remedy(char *buf, size_t size)
{
	add(buf, size, "This is a Firecracker microVM (no DMI, its virtio devices on the command "
		       "line). Firecracker gives its x86 guests no vPMU: it hides architectural "
		       "perfmon from them, and its CPU templates (T2, T2S, C3, ...) only mask "
		       "CPUID features further, never add counters. No QEMU, libvirt or kvm module "
		       "option applies. Only the host owner can change it (by running the "
		       "workload outside Firecracker: a VM that exposes a vPMU, or bare metal). "
		       "Nothing inside the guest can fix it.");
}

static void no_vpmu(const struct probe_facts *f, const struct probe_verdict *v,
		    const struct probe_machine *m, struct finding *out, unsigned *n)
{
	const struct probe_cpu *c = &v->cpu;
	bool kvm = strcmp(c->hv_vendor, "KVMKVMKVM") == 0;
	bool xen = strcmp(c->hv_vendor, "XenVMMXenVMM") == 0;
	bool virtualbox = strstr(m->system, "VirtualBox") || !strcmp(c->hv_vendor, "VBoxVBoxVBox");
	bool hybrid = c->hybrid || (c->fms_known && findings_hybrid_model(c->family, c->model));
	bool firecracker = findings_firecracker(f, m);
	/* A warning: nothing can fault and there is nothing to guard, so it
	 * never leads as an error on a host with nothing to do (issue 40,
	 * item 12); what it costs is measurement. */
	struct finding *x = next(out, n, "no-vpmu", SEVERITY_WARNING,
				 c->hypervisor ? "This guest has no virtual PMU: no hardware "
						 "counters at all"
					       : "No hardware PMU is available");
	if (v->intel && c->leaf_a_known && c->perfmon_basis == PROBE_BASIS_CPUID &&
	    c->pmu_version == 0)
		ADD(x->evidence, "CPUID.0AH reads all zero (no architectural perfmon). ");
	if (f->klog.unsupported_model)
		ADD(x->evidence, "The kernel log blames the CPU model (\"unsupported ... CPU model "
				 "%u ... no PMU driver, software events only\"). ",
		    c->model);
	else if (f->klog.virt_unavailable)
		ADD(x->evidence, "The kernel log says \"PMU not available due to virtualization, "
				 "using software events only\". ");
	else if (f->klog.no_pmu_driver)
		ADD(x->evidence, "The kernel log says \"no PMU driver, software events only\". ");
	else if (f->klog.broken_pmu)
		ADD(x->evidence, "The kernel log says \"Broken PMU hardware detected, using software "
				 "events only\": the driver's probe of a counter register failed "
				 "(check_hw_exists(), arch/x86/events/core.c). ");
	if (f->known & PROBE_KNOWN_SYSFS && f->n_pmus == 0)
		ADD(x->evidence, "sysfs has no core PMU (cpu, cpu_core, cpu_atom). ");
	char hv[96];
	probe_hv_words(c->hv_name, c->hv_vendor, hv, sizeof(hv));
	if (c->hypervisor)
		ADD(x->evidence, "Hypervisor: %s%s%s%s.", hv,
		    c->guest_because ? " (" : "",
		    c->guest_because ? c->guest_because : "",
		    c->guest_because ? ")" : "");
	if (m->words[0])
		ADD(x->evidence, " Machine: %s.", m->words);
	x->consequence = "perf shows <not supported> for cycles, instructions and every "
			 "hardware event; only software events (task-clock, page-faults, ...) "
			 "work. Nothing can fault, and nothing can be measured either.";
	/* Each hypervisor's own switch, checked before the KVM rules: VirtualBox
	 * names itself "KVM" in its paravirtual interface ("Hypervisor detected:
	 * KVM"), and only its DMI strings tell it from KVM. */
	if (virtualbox) {
		ADD(x->remedy, "VirtualBox exposes no virtual PMU to its guests, whatever the host CPU "
			       "(its KVM paravirtual interface, which the guest kernel reports as "
			       "\"Hypervisor detected: KVM\", adds none): perf counts nothing there, and "
			       "no VirtualBox setting, nor any QEMU, libvirt or kvm module option, changes "
			       "that. To measure with hardware counters, run the workload on the host "
			       "itself or in a hypervisor that exposes a vPMU (KVM/QEMU with `-cpu host`, "
			       "VMware with \"Virtualize CPU performance counters\"). Nothing inside the "
			       "guest can fix it.");
	} else if (firecracker) {
		firecracker_remedy(x->remedy, sizeof(x->remedy));
	} else if (kvm && hybrid) {
		ADD(x->remedy,
		    "It is not your CPU model. This %s model 0x%x is a hybrid (P-core/E-core) "
		    "part, and KVM turns the vPMU off on hybrid hosts (Linux commit "
		    "4d7404e5ee00, kernel 6.3 and stable, without a log line), so the guest "
		    "sees CPUID.0AH all zero. Nothing inside the guest can fix it: the host owner "
		    "must run the VM on a non-hybrid host, or on a host kernel with hybrid vPMU "
		    "support.",
		    c->vendor, c->model);
	} else if (c->hypervisor && !c->hv_name[0] && hybrid) {
		/* KVM's rule is KVM's: Hyper-V (WSL2 included) can give a guest
		 * on a hybrid host a vPMU, so an unnamed hypervisor is not KVM. */
		ADD(x->remedy,
		    "This %s model 0x%x is a hybrid (P-core/E-core) part and the log does not "
		    "name the hypervisor. If it is KVM, KVM turns the vPMU off on hybrid hosts "
		    "(Linux commit 4d7404e5ee00, kernel 6.3 and stable, without a log line) and "
		    "only another host can change that; other hypervisors (Hyper-V and WSL2 "
		    "among them) can expose one on hybrid hosts: ask the hypervisor's owner. "
		    "Nothing inside the guest can fix it.",
		    c->vendor, c->model);
	} else if (!strncmp(m->system, "Amazon EC2", 10)) {
		/* EC2 gives a guest a vPMU only where it holds whole sockets;
		 * no QEMU or libvirt setting is the user's to change there. */
		ADD(x->remedy, "On EC2 the PMU is exposed only to instance sizes that take a whole "
			       "socket (the largest sizes of a family, such as m5.12xlarge, "
			       "m5.24xlarge or c5.9xlarge) and to .metal instances; %s is not one. "
			       "Move the workload to such a size, or to a family and size that "
			       "exposes a vPMU. Nothing inside the guest can fix it.",
		    m->words[0] ? m->words : "this instance");
	} else if (!strncmp(m->sys_vendor, "Google", 6) ||
		   strstr(m->system, "Google Compute Engine")) {
		ADD(x->remedy, "On Google Compute Engine a vPMU is opt-in: create the VM with "
			       "`--performance-monitoring-unit=standard` (or `enhanced`, which adds "
			       "perf metrics) on a machine series that supports it (C4, C3, ...). "
			       "Nothing inside the guest can fix it.");
	} else if (xen) {
		/* Xen gives HVM guests a vPMU only where its own boot option asks
		 * for it (xen.git docs/misc/xen-command-line.pandoc, "vpmu", off by
		 * default): the switch is on the Xen host, not in QEMU. */
		ADD(x->remedy, "Xen gives its guests a vPMU only when the Xen hypervisor itself boots "
			       "with `vpmu=on` (or `vpmu=arch`/`vpmu=ipc` for fewer events) on its own "
			       "command line (the host's boot entry for xen.gz, not the guest's kernel "
			       "command line); it is off by default. The host owner must set it and "
			       "restart the guest; on a hosted Xen (a cloud or VPS provider), ask the "
			       "provider. QEMU and libvirt flags do not change it. Nothing inside the "
			       "guest can fix it.");
	} else if (kvm) {
		ADD(x->remedy, "The host does not give this guest a vPMU. The host owner can enable "
			       "it: QEMU `-cpu host` (or `pmu=on`), libvirt `<pmu state='on'/>`, and "
			       "the kvm module's `enable_pmu=1`. Nothing inside the guest can fix "
			       "it.");
	} else if (c->hypervisor) {
		ADD(x->remedy, "Ask the hypervisor's owner to expose virtual performance counters "
			       "(on VMware: \"Virtualize CPU performance counters\"; on Hyper-V: "
			       "`Set-VMProcessor -Perfmon`). Nothing inside the guest can fix it.");
	} else {
		ADD(x->remedy, "Check that the kernel was built with the PMU driver and that the "
			       "firmware does not hide the PMU.");
	}
}

/* A kdump capture kernel boots on a CPU whose PMU the crashed kernel left
 * running: the crash path does not stop perf's counters, so check_hw_exists()
 * (arch/x86/events/core.c) finds the crashed kernel's own event enabled and
 * blames the BIOS.  "MSR 38d is b0" is fixed counter 1 (cycles) counting in
 * both rings with its overflow interrupt: the NMI watchdog's hard-lockup
 * event (kernel/watchdog_perf.c) [inferred].  The kernel log says which
 * kernel it is: "Crash kernel detected" (arch/x86/kernel/cpu/topology.c,
 * 6.9+) or elfcorehdr= on the command line (kexec-tools passes it). */
static void counters_in_use(const struct probe_facts *f, const struct probe_verdict *v,
			    struct finding *out, unsigned *n)
{
	bool kdump = f->klog.boot.crash_kernel;
	bool restart = !kdump && f->klog.boot.after_restart;
	struct finding *x = next(
		out, n, "counters-in-use", kdump || restart ? SEVERITY_WARNING : SEVERITY_ERROR,
		kdump	  ? "A PMU counter was left enabled by the crashed kernel, "
			    "not by firmware: this is a kdump capture kernel's log"
		: restart ? "A PMU counter was left enabled by the kernel before a reset or kexec, "
			    "not by firmware or the hypervisor"
			  : "PMU counters were already in use at boot: counts may read as zero");
	ADD(x->evidence, "The kernel log says \"Broken BIOS detected\" / \"the BIOS has corrupted "
			 "hw-PMU resources\" for ");
	for (unsigned i = 0; i < f->klog.n_corrupted_msr && i < 4; i++) {
		char name[96];
		ADD(x->evidence, "%sMSR 0x%x, %s", i ? "; " : "", f->klog.corrupted_msr[i],
		    findings_msr_name(f->klog.corrupted_msr[i], name, sizeof(name)));
	}
	if (f->klog.n_corrupted_msr == 0)
		ADD(x->evidence, "a PMU control register");
	ADD(x->evidence, ". check_hw_exists() (arch/x86/events/core.c) found it enabled "
			 "before Linux touched it.");
	char hv[96];
	probe_hv_words(v->cpu.hv_name, v->cpu.hv_vendor, hv, sizeof(hv));
	if (v->cpu.hypervisor)
		ADD(x->evidence, " Hypervisor: %s.", hv);
	if (kdump) {
		ADD(x->evidence, " The same log shows a kdump capture kernel (%s): it booted "
				 "after a crash, on a CPU whose counters the crashed kernel had "
				 "programmed.",
		    f->klog.boot.crash_kernel_why);
		x->consequence = "None for the machine: the counter is the crashed kernel's own "
				 "event (the NMI watchdog's hard-lockup event leaves fixed counter 1, "
				 "cycles, enabled with its overflow interrupt: IA32_FIXED_CTR_CTRL "
				 "0xb0), which the crash path does not stop. No firmware or hypervisor holds it, "
				 "and a normal boot programs the PMU afresh.";
		ADD(x->remedy, "None needed for the PMU. Judge the machine by the log of a normal "
			       "boot (`journalctl -k -b`): only if this line shows there too does "
			       "firmware or a hypervisor hold the counter.");
		return;
	}
	if (restart) {
		ADD(x->evidence, " The same log shows the boot before this one ending in a kexec or a "
				 "reset (\"kexec_core: Starting new kernel\" or \"reboot: Restarting "
				 "system\"): the counter is that kernel's, left enabled.");
		x->consequence = "None for the machine: the registers are left over from the kernel "
				 "before the reset or kexec (neither a kexec nor a KVM guest's reset "
				 "clears the PMU's registers), and this kernel programs the PMU afresh. "
				 "No firmware or hypervisor holds them.";
		ADD(x->remedy, "None needed for the PMU. Judge the machine by the log of a cold "
			       "boot: only if this line shows there too does firmware or a hypervisor "
			       "hold the counter.");
		return;
	}
	x->consequence = "The driver still loads, but the hypervisor (or firmware) keeps those "
			 "counters: writes to them are dropped, and perf reports 0 counts or "
			 "nonsense without any error.";
	if (strcmp(v->cpu.hv_vendor, "VMwareVMware") == 0)
		ADD(x->remedy, "On VMware, power the VM off and enable \"Virtualize CPU performance "
			       "counters\" (vPMC) in its CPU settings, and make sure no host-side "
			       "tool holds the counters. Do not trust PMU counts until this "
			       "finding is gone.");
	else
		ADD(x->remedy, "Ask the hypervisor's or firmware's owner to stop using the counters "
			       "(disable firmware/host monitoring of the guest's PMU). Do not trust "
			       "PMU counts until this finding is gone.");
}

/* The log's bit 48 would prove perf metrics, were its block anchored (kmsg.c). */
static bool metrics_refused(const struct probe_facts *f, const struct probe_verdict *v)
{
	return f->known & PROBE_KNOWN_KLOG && f->klog.pmu_driver_seen &&
	       !f->klog.pmu_block_anchored && f->klog.perf_metrics_bit && v->fixed3_advertised &&
	       !v->perf_metrics_proven;
}

static void facts_unknown(const struct probe_facts *f, const struct probe_verdict *v,
			  struct finding *out, unsigned *n)
{
	struct finding *x = next(out, n, "facts-unknown", SEVERITY_WARNING,
				 "Some facts could not be read: the verdict rests on fewer of them");
	if (f->log_only)
		ADD(x->evidence, "Only a kernel log was given (probe --dmesg): CPUID, sysfs and the "
				 "MSRs are not read. ");
	else if (!(f->known & PROBE_KNOWN_CPUID))
		ADD(x->evidence, "CPUID: %s. ", strerror(-f->cpuid_err));
	else if (!v->cpu.leaf_a_known && v->intel)
		ADD(x->evidence, "CPUID leaf 0xA is not available (max basic leaf 0x%x). ",
		    v->cpu.max_leaf);
	if (!(f->known & PROBE_KNOWN_KLOG)) {
		ADD(x->evidence, "Kernel log: %s", strerror(-f->klog_err));
		ADD(x->evidence, f->klog_err == -EPERM ? " (kernel.dmesg_restrict=1: needs root or "
							 "CAP_SYSLOG). "
							 : ". ");
		if (f->klog_err == -EPERM || f->klog_err == -EACCES)
			ADD(x->evidence, "This user sees fewer facts than root: root reads the log, "
					 "and on this same host may reach another verdict. ");
	} else if (!f->klog.pmu_driver_seen && v->intel) {
		ADD(x->evidence, "The kernel log holds no \"Performance Events:\" line: it rotated "
				 "out of the ring buffer, or the log is empty. ");
	} else if (metrics_refused(f, v)) {
		ADD(x->evidence, "The kernel log's PMU block has bit 48 (perf metrics), but the log "
				 "does not hold the start of its boot (it rotated, or is an excerpt): "
				 "where a record can be printed as several lines, such a block cannot "
				 "be told from lines a user wrote, so it proves nothing. ");
	}
	if (!(f->known & PROBE_KNOWN_SYSFS) && !f->log_only)
		ADD(x->evidence, "sysfs event_source devices: %s. ", strerror(-f->sysfs_err));
	if (v->basis == PROBE_BASIS_KLOG && v->state != PROBE_UNKNOWN)
		ADD(x->evidence, "The verdict rests on the facts the kernel log states (marked "
				 "\"from the kernel log\" above). ");
	x->consequence = v->state == PROBE_UNKNOWN
				 ? "Without them pmuguard fails open: it blocks nothing, because "
				   "wrongly narrowing a healthy machine is the worse error."
				 : v->basis == PROBE_BASIS_KLOG
				 ? "The verdict is the report's: the guard (preload, supervisor) acts "
				   "only on CPUID, read on the machine itself, and fails open without it."
				 : "Unknown facts never become a block on their own; the verdict "
				   "above uses what could be read.";
	if (f->log_only || !(f->known & PROBE_KNOWN_CPUID))
		ADD(x->remedy, "For a verdict the guard can act on, run `pmuguard probe` (or "
			       "`pmuguard snapshot DIR`) on the machine itself. ");
	ADD(x->remedy, "Run `pmuguard probe` as root for the full picture. If the boot log has "
		       "rotated, `journalctl -k -b` may still hold it. With `--msr` (root), "
		       "IA32_PERF_CAPABILITIES is read as further evidence.");
}

/* Bits of a rejected IA32_PERF_GLOBAL_CTRL / FIXED_CTR_CTRL write that name
 * what the kernel tried to enable. */
static void rejected_bits(char *buf, size_t size, const struct probe_msr_error *e)
{
	if (!e->value_seen)
		return;
	if (e->msr == 0x38f) {
		if ((e->value >> 35) & 1)
			add(buf, size, " (bit 35: fixed counter 3, TOPDOWN.SLOTS)");
		for (unsigned c = 4; c <= 6; c++)
			if ((e->value >> (32 + c)) & 1)
				add(buf, size, " (bit %u: fixed counter %u)", 32 + c, c);
		if ((e->value >> 48) & 1)
			add(buf, size, " (bit 48: perf metrics)");
	} else if (e->msr == 0x38d && (e->value >> 12) & 0xf) {
		add(buf, size, " (bits 12-15: fixed counter 3's control)");
	}
}

/* The guest kernel programs a PMU register its vPMU advertises and the
 * hypervisor refuses it with #GP; the kernel's exception fixup catches the
 * WRMSR/RDMSR and warns once (ex_handler_msr(), arch/x86/mm/extable.c). */
static void msr_rejected(const struct probe_facts *f, const struct probe_verdict *v,
			 const struct probe_machine *m, struct finding *out, unsigned *n)
{
	const struct probe_boot *b = &f->klog.boot;
	struct finding *x = next(out, n, "pmu-msr-rejected", SEVERITY_ERROR,
				 "The hypervisor rejects PMU registers the guest kernel programs");
	ADD(x->evidence, "The kernel log has \"unchecked MSR access error\" for ");
	for (unsigned i = 0; i < b->n_msr_errors && i < PROBE_MAX_MSR_ERRORS; i++) {
		const struct probe_msr_error *e = &b->msr_errors[i];
		char name[96];
		ADD(x->evidence, "%s%s MSR 0x%x, %s", i ? "; " : "", e->write ? "WRMSR to" : "RDMSR from",
		    e->msr, findings_msr_name(e->msr, name, sizeof(name)));
		if (e->value_seen)
			ADD(x->evidence, " (tried to write 0x%016" PRIx64 ")", e->value);
		rejected_bits(x->evidence, sizeof(x->evidence), e);
	}
	ADD(x->evidence, ". The access raised #GP and the kernel's exception fixup caught it "
			 "(ex_handler_msr(), arch/x86/mm/extable.c).");
	if (v->cpu.hypervisor || b->virtualized) {
		ADD(x->evidence, " This is ");
		machine_phrase(x->evidence, sizeof(x->evidence), m, v);
		ADD(x->evidence, ".");
	}
	uint32_t tried = 0;
	for (unsigned i = 0; i < b->n_msr_errors && i < PROBE_MAX_MSR_ERRORS; i++)
		tried |= probe_msr_error_fixed(&b->msr_errors[i]);
	if (kernel_mask_blamed(v, tried)) {
		x->consequence = "The guest kernel enabled counters its CPUID never advertised (its "
				 "own mask: see fixed3-unimplemented), and the hypervisor refused "
				 "them: the write is dropped (counters read 0 or stale, events that "
				 "need it fail or count nothing); a read through rdpmc has no such "
				 "fixup and faults the kernel.";
		kernel_mask_remedy(x->remedy, sizeof(x->remedy), v, m);
		ADD(x->remedy, " Meanwhile run perf tools under pmuguard (`pmuguard run -- ...`).");
		return;
	}
	x->consequence = "The vPMU advertises registers the hypervisor does not implement: the "
			 "same class of bug as the m6i's fixed counter 3. The write is dropped "
			 "(counters read 0 or stale, events that need it fail or count nothing); "
			 "a read through rdpmc has no such fixup and faults the kernel.";
	ADD(x->remedy, "Report it to the %s%s: its CPUID.0AH must not advertise what it does not "
		       "implement. Meanwhile run perf tools under pmuguard (`pmuguard run -- ...`) "
		       "and do not trust counts on the affected counters; `pmuguard probe` on the "
		       "machine itself reads CPUID and says what the guard blocks.",
		    m->words[0] ? "provider of " : "hypervisor's owner", m->words);
}

static bool facts_missing(const struct probe_facts *f, const struct probe_verdict *v)
{
	if (!(f->known & PROBE_KNOWN_CPUID) || (v->intel && !v->cpu.leaf_a_known))
		return true;
	if (!v->intel)
		return false; /* nothing else matters off Intel */
	return !(f->known & PROBE_KNOWN_KLOG) || !f->klog.pmu_driver_seen ||
	       !(f->known & PROBE_KNOWN_SYSFS) || metrics_refused(f, v);
}

unsigned findings_build(const struct probe_facts *f, const struct probe_verdict *v,
			struct finding *out)
{
	struct probe_machine m;
	probe_machine_build(f, &m);
	return findings_build_for(f, v, &m, out);
}

unsigned findings_build_for(const struct probe_facts *f, const struct probe_verdict *v,
			    const struct probe_machine *m, struct finding *out)
{
	unsigned n = 0;
	const struct probe_cpu *c = &v->cpu;

	if (v->hazard && (v->fixed_hazard >> 3) & 1)
		fixed3(f, v, m, out, &n);
	if (v->hazard && v->fixed_hazard & PROBE_FIXED_GUARDED & ~(1u << 3))
		fixed_beyond3(f, v, m, out, &n);
	/* Any vendor: a guest without a vPMU is the same story on AMD. */
	if ((v->intel && c->leaf_a_known && c->perfmon_basis == PROBE_BASIS_CPUID &&
	     c->pmu_version == 0) ||
	    probe_klog_pmu_off(f, false) || v->state == PROBE_NO_PMU)
		no_vpmu(f, v, m, out, &n);
	if (f->klog.bios_corrupted)
		counters_in_use(f, v, out, &n);
	if (f->known & PROBE_KNOWN_KLOG && f->klog.boot.n_msr_errors)
		msr_rejected(f, v, m, out, &n);
	if (c->known && !v->intel) {
		struct finding *x = next(out, &n, "not-intel", SEVERITY_INFO,
					 "Not an Intel CPU: there is nothing to guard");
		ADD(x->evidence, "%s vendor: %s.",
		    c->basis == PROBE_BASIS_KLOG ? "The kernel log's CPU" : "CPUID", c->vendor);
		x->consequence = "The fixed-counter-3 hazard is Intel's; on other vendors event "
				 "0x00 umask 0x04 is an ordinary event and pmuguard blocks nothing.";
		ADD(x->remedy, "None needed.");
	}
	if (facts_missing(f, v))
		facts_unknown(f, v, out, &n);
	bool problem = false;
	for (unsigned i = 0; i < n; i++)
		if (out[i].severity <= SEVERITY_ERROR)
			problem = true;
	if (!problem && v->intel && v->state == PROBE_SAFE) {
		struct finding *x = next(out, &n, "healthy", SEVERITY_OK,
					 "The PMU is coherent: nothing here reaches an "
					 "unimplemented counter");
		ADD(x->evidence, "%s.", v->reason);
		x->consequence = "perf and other tools work as designed; pmuguard, if loaded, "
				 "changes nothing.";
		ADD(x->remedy, "None needed.");
	}
	return n;
}

unsigned findings_containers(const struct report_containers *c, const struct probe_verdict *v,
			     struct finding *out, unsigned room)
{
	(void)v;
	if (!room || !c->n)
		return 0;
	unsigned n = 0;
	struct finding *x = next(out, &n, "containers-need-kernel-guard", SEVERITY_WARNING,
				 "A container runtime runs here: only the kernel guard reaches its "
				 "containers");
	for (unsigned i = 0; i < c->n; i++)
		ADD(x->evidence, "%s%s is running (%s)", i ? "; " : "", c->runtime[i], c->evidence[i]);
	ADD(x->evidence, ".");
	x->consequence = "A container's processes see the image's own /etc/ld.so.preload, not "
			 "the host's, and are no children of a `pmuguard run`: the preload and the "
			 "supervisor do not guard perf, toplev or PerfSpect in a container, and "
			 "those still reach the unimplemented counter.";
	ADD(x->remedy, "Start the kernel guard, which judges every perf_event_open on the host, "
		       "containers included: `pmuguard enforce start`, or on Kubernetes the "
		       "DaemonSet of deploy/kubernetes (`pmuguard enforce agent`). `pmuguard-fleet "
		       "status` says which layers were seen to work.");
	return n;
}

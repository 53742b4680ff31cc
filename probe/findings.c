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
	if (msr >= 0x186 && msr < 0x186 + 8)
		snprintf(buf, size, "IA32_PERFEVTSEL%u (event select of general counter %u)",
			 msr - 0x186, msr - 0x186);
	else if (msr == 0x38d)
		snprintf(buf, size, "IA32_FIXED_CTR_CTRL (fixed counter control)");
	else if (msr >= 0xc0010000 && msr < 0xc0010004)
		snprintf(buf, size, "AMD PERF_CTL%u (event select)", msr - 0xc0010000);
	else
		snprintf(buf, size, "a PMU control register");
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
	else if (f->klog.mask_seen)
		add(buf, size, " The PMU driver logged the mask 0x%016" PRIx64 ": bit 48 "
			       "(GLOBAL_CTRL_EN_PERF_METRICS) is %s.",
		    f->klog.mask, f->klog.perf_metrics_bit ? "set" : "clear");
	else
		add(buf, size, " The kernel log holds no PMU mask line.");
}

static void fixed3(const struct probe_facts *f, const struct probe_verdict *v,
		   struct finding *out, unsigned *n)
{
	const struct probe_cpu *c = &v->cpu;
	struct finding *x = next(out, n, "fixed3-unimplemented", SEVERITY_CRITICAL,
				 "Fixed counter 3 (TOPDOWN.SLOTS) is advertised but not implemented");
	ADD(x->evidence, "CPUID.0AH (perfmon version %u) advertises %u fixed counters", c->pmu_version,
	    c->fixed_counters);
	if (c->pmu_version >= 5)
		ADD(x->evidence, ", fixed bitmap 0x%x", c->fixed_bitmap);
	ADD(x->evidence, "; this is a %s.", c->hypervisor ? "guest" : "bare-metal machine");
	klog_evidence(x->evidence, sizeof(x->evidence), f);
	if (f->known & PROBE_KNOWN_MSR)
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
		       "events show as <not supported>). On a fleet, preload libpmuguard.so "
		       "system-wide. Static and Go tools (PerfSpect) need the seccomp mode. "
		       "This is the hypervisor's bug: report it to the cloud provider.");
}

static void no_vpmu(const struct probe_facts *f, const struct probe_verdict *v,
		    struct finding *out, unsigned *n)
{
	const struct probe_cpu *c = &v->cpu;
	bool kvm = strcmp(c->hv_vendor, "KVMKVMKVM") == 0;
	bool hybrid = c->hybrid || findings_hybrid_model(c->family, c->model);
	struct finding *x = next(out, n, "no-vpmu", SEVERITY_ERROR,
				 c->hypervisor ? "This guest has no virtual PMU: no hardware "
						 "counters at all"
					       : "No hardware PMU is available");
	if (v->intel && c->leaf_a_known && c->pmu_version == 0)
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
	if (f->known & PROBE_KNOWN_SYSFS && f->n_pmus == 0)
		ADD(x->evidence, "sysfs has no core PMU (cpu, cpu_core, cpu_atom). ");
	if (c->hypervisor)
		ADD(x->evidence, "Hypervisor: %s.", c->hv_vendor[0] ? c->hv_vendor : "unnamed");
	x->consequence = "perf shows <not supported> for cycles, instructions and every "
			 "hardware event; only software events (task-clock, page-faults, ...) "
			 "work. Nothing can fault, and nothing can be measured either.";
	if (kvm && hybrid) {
		ADD(x->remedy,
		    "It is not your CPU model. This %s model 0x%x is a hybrid (P-core/E-core) "
		    "part, and KVM turns the vPMU off on hybrid hosts (Linux commit "
		    "4d7404e5ee00, kernel 6.3 and stable, without a log line), so the guest "
		    "sees CPUID.0AH all zero. Nothing inside the guest can fix it: the host owner "
		    "must run the VM on a non-hybrid host, or on a host kernel with hybrid vPMU "
		    "support.",
		    c->vendor, c->model);
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

static void counters_in_use(const struct probe_facts *f, const struct probe_verdict *v,
			    struct finding *out, unsigned *n)
{
	struct finding *x = next(out, n, "counters-in-use", SEVERITY_ERROR,
				 "PMU counters were already in use at boot: counts may read as zero");
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
	if (v->cpu.hypervisor)
		ADD(x->evidence, " Hypervisor: %s.",
		    v->cpu.hv_vendor[0] ? v->cpu.hv_vendor : "unnamed");
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

static void facts_unknown(const struct probe_facts *f, const struct probe_verdict *v,
			  struct finding *out, unsigned *n)
{
	struct finding *x = next(out, n, "facts-unknown", SEVERITY_WARNING,
				 "Some facts could not be read: the verdict rests on fewer of them");
	if (!(f->known & PROBE_KNOWN_CPUID))
		ADD(x->evidence, "CPUID: %s. ", strerror(-f->cpuid_err));
	else if (!v->cpu.leaf_a_known && v->intel)
		ADD(x->evidence, "CPUID leaf 0xA is not available (max basic leaf 0x%x). ",
		    v->cpu.max_leaf);
	if (!(f->known & PROBE_KNOWN_KLOG)) {
		ADD(x->evidence, "Kernel log: %s", strerror(-f->klog_err));
		ADD(x->evidence, f->klog_err == -EPERM ? " (kernel.dmesg_restrict=1: needs root or "
							 "CAP_SYSLOG). "
							 : ". ");
	} else if (!f->klog.pmu_driver_seen && v->intel) {
		ADD(x->evidence, "The kernel log holds no \"Performance Events:\" line: it rotated "
				 "out of the ring buffer, or the log is empty. ");
	}
	if (!(f->known & PROBE_KNOWN_SYSFS))
		ADD(x->evidence, "sysfs event_source devices: %s. ", strerror(-f->sysfs_err));
	x->consequence = v->state == PROBE_UNKNOWN
				 ? "Without them pmuguard fails open: it blocks nothing, because "
				   "wrongly narrowing a healthy machine is the worse error."
				 : "Unknown facts never become a block on their own; the verdict "
				   "above uses what could be read.";
	ADD(x->remedy, "Run `pmuguard probe` as root for the full picture. If the boot log has "
		       "rotated, `journalctl -k -b` may still hold it. With `--msr` (root), "
		       "IA32_PERF_CAPABILITIES is read as further evidence.");
}

static bool facts_missing(const struct probe_facts *f, const struct probe_verdict *v)
{
	if (!(f->known & PROBE_KNOWN_CPUID) || (v->intel && !v->cpu.leaf_a_known))
		return true;
	if (!v->intel)
		return false; /* nothing else matters off Intel */
	return !(f->known & PROBE_KNOWN_KLOG) || !f->klog.pmu_driver_seen ||
	       !(f->known & PROBE_KNOWN_SYSFS);
}

unsigned findings_build(const struct probe_facts *f, const struct probe_verdict *v,
			struct finding *out)
{
	unsigned n = 0;
	const struct probe_cpu *c = &v->cpu;

	if (v->hazard)
		fixed3(f, v, out, &n);
	/* Any vendor: a guest without a vPMU is the same story on AMD. */
	if ((v->intel && c->leaf_a_known && c->pmu_version == 0) || f->klog.no_pmu_driver ||
	    f->klog.virt_unavailable)
		no_vpmu(f, v, out, &n);
	if (f->klog.bios_corrupted)
		counters_in_use(f, v, out, &n);
	if (c->known && !v->intel) {
		struct finding *x = next(out, &n, "not-intel", SEVERITY_INFO,
					 "Not an Intel CPU: there is nothing to guard");
		ADD(x->evidence, "CPUID vendor: %s.", c->vendor);
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

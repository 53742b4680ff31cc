// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CPU and its PMU as the kernel log states them, for where CPUID is
 * missing (a snapshot holding only a kernel log, or probe --dmesg FILE:
 * what support engineers receive): the CPU0 line's vendor and model, the
 * hypervisor lines, and the PMU driver's block (version, fixed counters or
 * bitmap, the mask with bit 35 for counter 3 and bit 48 for perf metrics).
 * The log is the kernel's own view: intel_ctrl is what it schedules onto.
 *
 * kmsg.c reads the log and keeps only the driver's own block; this file
 * states what it kept.  Whether the machine is a guest (for the log as for
 * CPUID), which of the two the verdict rests on, and that the guard never
 * acts on the log alone, are verdict.c's.
 */
#include <string.h>

#include "probe.h"

void probe_cpu_from_klog(const struct probe_facts *f, struct probe_cpu *cpu)
{
	const struct probe_klog *k = &f->klog;
	const struct probe_boot *b = &k->boot;
	if (!(f->known & PROBE_KNOWN_KLOG))
		return;
	uint32_t ctrl;
	const char *vendor = b->cpu_vendor[0]		     ? b->cpu_vendor
			     : k->driver_vendor[0]	     ? k->driver_vendor
			     : k->unsupported_model	     ? "GenuineIntel" /* intel/p6.c, intel/core.c */
			     : b->arm_pmu		     ? "ARM"
			     : probe_klog_rejected_ctrl(k, &ctrl) ? "GenuineIntel" /* intel/core.c */
							     : NULL;
	if (vendor) {
		cpu->known = true;
		cpu->basis = PROBE_BASIS_KLOG;
		/* The names above are shorter than the field: copy up to the NUL. */
		strncpy(cpu->vendor, vendor, sizeof cpu->vendor - 1);
		cpu->vendor[sizeof cpu->vendor - 1] = '\0';
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
}

/* The driver's own words that it did not load: "no PMU driver, software
 * events only" (init_hw_perf_events()), "PMU not available due to
 * virtualization" and "Broken PMU hardware detected" (check_hw_exists(),
 * arch/x86/events/core.c).  Any vendor: AMD's driver says the same.  Where
 * CPUID is read too, only a block that is the driver's beyond doubt (kmsg.c:
 * anchored) speaks; a log alone is read as it stands (verdict.c). */
bool probe_klog_pmu_off(const struct probe_facts *f, bool cpuid_read)
{
	const struct probe_klog *k = &f->klog;
	if (!(f->known & PROBE_KNOWN_KLOG) || (cpuid_read && !k->pmu_block_anchored))
		return false;
	return k->no_pmu_driver || k->virt_unavailable || k->broken_pmu;
}

void probe_perfmon_from_klog(const struct probe_facts *f, struct probe_cpu *cpu)
{
	const struct probe_klog *k = &f->klog;
	if (!(f->known & PROBE_KNOWN_KLOG))
		return;
	uint32_t ctrl;
	cpu->pmu_off = probe_klog_pmu_off(f, false);
	bool block = k->version_logged >= 0 || k->fixed_logged >= 0 || k->mask_seen;
	if (!cpu->pmu_off && !block && probe_klog_rejected_ctrl(k, &ctrl)) {
		/* No block, but the driver's own write of its intel_ctrl to
		 * IA32_PERF_GLOBAL_CTRL, rejected: that value is the mask, so
		 * the fixed counters it uses are known (fixed.c). */
		cpu->leaf_a_known = true;
		cpu->perfmon_basis = PROBE_BASIS_KLOG;
		return;
	}
	if (!cpu->pmu_off && !block)
		return; /* no PMU block in the text */
	cpu->leaf_a_known = true;
	cpu->perfmon_basis = PROBE_BASIS_KLOG;
	if (cpu->pmu_off)
		return; /* version 0: no counters the kernel will use */
	/* A line that is not there is unknown, not absent: 0 here only stands
	 * for "not logged", and fixed_unknown says so where it matters.  The
	 * mask is intel_ctrl, the set the kernel really schedules onto (the
	 * 6.1 hybrid init put counter 3 there over a count of 3: fixed.c), so
	 * without it the fixed counters the kernel uses are unknown, whatever
	 * the count says; a count or bitmap that names counter 3 still
	 * advertises it (fixed3_logged). */
	cpu->pmu_version = k->version_logged > 0 ? (uint32_t)k->version_logged : 0;
	cpu->gp_counters = k->gp_logged > 0 ? (uint32_t)k->gp_logged : 0;
	cpu->fixed_counters = k->fixed_logged > 0 ? (uint32_t)k->fixed_logged : 0;
	cpu->fixed_bitmap = k->fixed_bitmap_seen ? k->fixed_bitmap : 0;
	cpu->fixed_unknown = !k->mask_seen;
	cpu->pmu_version_known = k->version_logged >= 0;
	cpu->gp_counters_known = k->gp_logged >= 0;
	cpu->fixed_counters_known = k->fixed_logged >= 0;
}

/* "unchecked MSR access error: WRMSR to 0x38f (tried to write 0x...)":
 * __intel_pmu_enable_all() (arch/x86/events/intel/core.c) writes
 * x86_pmu.intel_ctrl (less the guest mask, 0 in a guest) to
 * IA32_PERF_GLOBAL_CTRL, so the value is the driver's own mask, bits 32+
 * its fixed counters; and an architectural MSR write of bits CPUID
 * advertised faults only where a hypervisor does not implement them. */
bool probe_klog_rejected_ctrl(const struct probe_klog *k, uint32_t *fixed)
{
	bool seen = false;
	*fixed = 0;
	for (unsigned i = 0; i < k->boot.n_msr_errors && i < PROBE_MAX_MSR_ERRORS; i++) {
		const struct probe_msr_error *e = &k->boot.msr_errors[i];
		if (e->msr == 0x38f && e->write && e->value_seen) {
			seen = true;
			*fixed |= (uint32_t)((e->value >> 32) & 0x7f);
		}
	}
	return seen;
}

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
 * infers from what it kept.  Which of the two the verdict rests on, and
 * that the guard never acts on the log alone, is verdict.c's.
 */
#include <string.h>

#include "probe.h"

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

void probe_cpu_from_klog(const struct probe_facts *f, struct probe_cpu *cpu)
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
		probe_hv_from_name(cpu, b->hypervisor);
	} else if (dmi_hv) {
		cpu->guest_because = "the DMI line names a virtual machine";
		probe_hv_from_name(cpu, dmi_hv);
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
}

void probe_perfmon_from_klog(const struct probe_facts *f, struct probe_cpu *cpu)
{
	const struct probe_klog *k = &f->klog;
	if (!(f->known & PROBE_KNOWN_KLOG))
		return;
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

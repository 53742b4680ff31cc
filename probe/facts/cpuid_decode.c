// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the CPUID leaves say (cpuid.c reads them): the vendor, family, model
 * and stepping, the hypervisor bit and signature, PDCM, HYBRID, and the
 * architectural perfmon of leaf 0xA.  Pure: no reading, no judging.
 *
 * Fixed counter 3 (TOPDOWN.SLOTS) is advertised when CPUID.0AH EDX[4:0] > 3,
 * or, on architectural perfmon version >= 5, when ECX bit 3 is set (the SDM:
 * fixed counter i exists if ECX[i] or EDX[4:0] > i).  The kernel trusts that
 * advertisement: intel_pmu_check_event_constraints()
 * (arch/x86/events/intel/core.c) keeps the slots and metric constraints
 * whenever bit 35 is in intel_ctrl, with or without perf metrics, and
 * x86_perf_event_update() then reads the counter with a bare rdpmc.
 */
#include <string.h>

#include "probe.h"

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
		cpu->pmu_version_known = cpu->gp_counters_known = cpu->fixed_counters_known = true;
	}
	/* ARCH_PERFMON_EXT: CPUID.(7,1):EAX[8] says leaf 0x23 exists, 23H.0
	 * EAX[1] that sub-leaf 1 holds the counter bitmaps; the kernel takes
	 * the fixed one from 23H.1 EBX (update_pmu_cap(),
	 * arch/x86/events/intel/core.c). */
	const struct probe_cpuid_leaf *l71 = probe_leaf(f, 7, 1);
	const struct probe_cpuid_leaf *x0 = probe_leaf(f, 0x23, 0);
	const struct probe_cpuid_leaf *x1 = probe_leaf(f, 0x23, 1);
	if (cpu->leaf_a_known && l71 && x0 && x1 && cpu->max_leaf >= 0x23 && (l71->eax >> 8) & 1 &&
	    (x0->eax >> 1) & 1) {
		cpu->fixed_ext_known = true;
		cpu->fixed_ext = x1->ebx;
	}
}

uint32_t probe_cpuid_fixed_mask(const struct probe_cpu *c)
{
	if (!c->known || strcmp(c->vendor, "GenuineIntel") || !c->leaf_a_known || !c->pmu_version)
		return 0;
	/* The SDM: fixed counter i exists if ECX[i] or EDX[4:0] > i.  The
	 * union with leaf 0x23's: what any kernel version may take. */
	uint32_t n = c->fixed_counters;
	uint32_t m = n >= 32 ? ~0u : (1u << n) - 1;
	return m | c->fixed_bitmap | (c->fixed_ext_known ? c->fixed_ext : 0);
}

bool probe_fixed3_advertised(const struct probe_cpu *c)
{
	return (probe_cpuid_fixed_mask(c) >> 3) & 1;
}

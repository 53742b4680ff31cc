// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel log's "unchecked MSR access error" lines (ex_handler_msr(),
 * arch/x86/mm/extable.c) on the PMU's own MSRs, and those MSRs' names:
 * the evidence against a counter that fixed.c and klog_cpu.c read.
 */
#include "kmsg_parse.h"
#include "probe.h"
#include "text.h"

/* The PMU's MSRs (Intel SDM vol. 4; arch/x86/include/asm/msr-index.h). */
static const struct {
	uint32_t lo, hi;
	char name[48]; /* an array: no relocation at load */
} pmu_msrs[] = {
	{0xc1, 0xc8, "IA32_PMCx (general counter)"},
	{0x186, 0x18d, "IA32_PERFEVTSELx (event select)"},
	{0x309, 0x309, "IA32_FIXED_CTR0 (instructions)"},
	{0x30a, 0x30a, "IA32_FIXED_CTR1 (cycles)"},
	{0x30b, 0x30b, "IA32_FIXED_CTR2 (ref-cycles)"},
	{0x30c, 0x30c, "IA32_FIXED_CTR3 (TOPDOWN.SLOTS)"},
	{0x30d, 0x30f, "IA32_FIXED_CTRx (fixed counters 4-6)"},
	{0x329, 0x329, "MSR_PERF_METRICS"},
	{0x345, 0x345, "IA32_PERF_CAPABILITIES"},
	{0x38d, 0x38d, "IA32_FIXED_CTR_CTRL"},
	{0x38e, 0x38e, "IA32_PERF_GLOBAL_STATUS"},
	{0x38f, 0x38f, "IA32_PERF_GLOBAL_CTRL"},
	{0x390, 0x390, "IA32_PERF_GLOBAL_STATUS_RESET"},
	{0x3f1, 0x3f1, "IA32_PEBS_ENABLE"},
	{0x4c1, 0x4c8, "IA32_A_PMCx (full-width general counter)"},
	{0xc0000300, 0xc0000303, "AMD PerfMonV2 global control/status"},
	{0xc0010000, 0xc0010007, "AMD PERF_CTL/PERF_CTR (legacy)"},
	{0xc0010200, 0xc001020b, "AMD PERF_CTL/PERF_CTR (core extension)"},
};

const char *probe_pmu_msr_name(uint32_t msr)
{
	for (size_t i = 0; i < sizeof(pmu_msrs) / sizeof(pmu_msrs[0]); i++)
		if (msr >= pmu_msrs[i].lo && msr <= pmu_msrs[i].hi)
			return pmu_msrs[i].name;
	return NULL;
}

void kmsg_msr_error(struct probe_boot *k, struct text t)
{
	struct probe_msr_error e = {0};
	uint64_t v;
	if (text_lit(&t, "WRMSR to "))
		e.write = true;
	else if (!text_lit(&t, "RDMSR from "))
		return;
	if (!text_hex(&t, &v, 8))
		return;
	e.msr = (uint32_t)v;
	if (!probe_pmu_msr_name(e.msr))
		return; /* not the PMU's */
	text_skip_space(&t);
	if (e.write && text_lit(&t, "(tried to write ") && text_hex(&t, &v, 16)) {
		e.value_seen = true;
		e.value = v;
	}
	for (unsigned i = 0; i < k->n_msr_errors; i++)
		if (k->msr_errors[i].msr == e.msr && k->msr_errors[i].write == e.write)
			return; /* pr_warn_once: said once per site, not per MSR */
	if (k->n_msr_errors < PROBE_MAX_MSR_ERRORS)
		k->msr_errors[k->n_msr_errors++] = e;
}

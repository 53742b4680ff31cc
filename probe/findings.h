/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Findings: what `pmuguard probe` tells a person.  Each has a stable id, a
 * one-line summary, the evidence it rests on, the consequence for their
 * tools and the remedy.  A pure function of facts and verdict.
 */
#ifndef PMUGUARD_FINDINGS_H
#define PMUGUARD_FINDINGS_H

#include "probe.h"

#define FINDINGS_MAX 8

/* Worst first: a finding at or above SEVERITY_ERROR is a problem. */
enum finding_severity { SEVERITY_CRITICAL, SEVERITY_ERROR, SEVERITY_WARNING, SEVERITY_INFO, SEVERITY_OK };

/* "critical", "error", "warning", "info", "ok" */
const char *finding_severity_name(enum finding_severity s);

struct finding {
	const char *id;       /* fixed3-unimplemented, no-vpmu, counters-in-use, ... */
	enum finding_severity severity;
	const char *summary;
	char evidence[768];
	const char *consequence;
	char remedy[768];
};

/* Fills out[] (at most FINDINGS_MAX) and returns how many. */
unsigned findings_build(const struct probe_facts *f, const struct probe_verdict *v,
			struct finding *out);

/* Is this Intel family/model a hybrid (P-core + E-core) part?
 * (arch/x86/include/asm/intel-family.h, "Hybrid" processors) */
bool findings_hybrid_model(uint32_t family, uint32_t model);

/* What an MSR that check_hw_exists() names is, e.g. "IA32_PERFEVTSEL0". */
const char *findings_msr_name(unsigned msr, char *buf, size_t size);

#endif

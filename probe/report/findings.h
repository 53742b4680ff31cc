/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Findings: what `pmuguard probe` tells a person.  Each has a stable id, a
 * one-line summary, the evidence it rests on, the consequence for their
 * tools and the remedy.  A pure function of facts and verdict.
 */
#ifndef PMUGUARD_FINDINGS_H
#define PMUGUARD_FINDINGS_H

#include "machine.h"
#include "probe.h"

#define FINDINGS_MAX 8
/* Ids: fixed3-unimplemented, fixed-e-topdown-unimplemented, no-vpmu, counters-in-use, pmu-msr-rejected,
 * not-intel, facts-unknown, healthy. */

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
	char remedy[1536];
};

/* What a plain `perf stat` does on a hazardous guest under the default
 * `slots = deny`: kernels before 6.11 (without the td_is_visible backport)
 * list slots in sysfs, perf leads a topdown group with it, and ENOENT on a
 * group leader is fatal to perf. */
enum plain_perf_stat {
	PLAIN_PERF_STAT_WORKS = 0, /* no hazard, or sysfs does not list slots */
	PLAIN_PERF_STAT_STOPS,     /* sysfs lists slots */
	PLAIN_PERF_STAT_MAY_STOP,  /* sysfs unknown; the log's kernel is older than 6.11 */
};
enum plain_perf_stat findings_plain_perf_stat(const struct probe_facts *f,
					      const struct probe_verdict *v);
/* "works", "stops", "may-stop" */
const char *findings_plain_perf_stat_name(enum plain_perf_stat s);
/* The two sentences the report and the finding say about it ("" when it works). */
const char *findings_plain_perf_stat_text(enum plain_perf_stat s);

/* Fills out[] (at most FINDINGS_MAX) and returns how many, naming the
 * machine m (probe_machine_build(), built once by the report). */
unsigned findings_build_for(const struct probe_facts *f, const struct probe_verdict *v,
			    const struct probe_machine *m, struct finding *out);
/* The same, building the machine from f. */
unsigned findings_build(const struct probe_facts *f, const struct probe_verdict *v,
			struct finding *out);

/* On a hazardous machine where a container runtime runs: the preload does
 * not reach its containers.  Appends at most room findings; returns how
 * many.  (report.h's struct report_containers.) */
struct report_containers;
unsigned findings_containers(const struct report_containers *c, const struct probe_verdict *v,
			     struct finding *out, unsigned room);

/* Is this Intel family/model a hybrid (P-core + E-core) part?
 * (arch/x86/include/asm/intel-family.h, "Hybrid" processors) */
bool findings_hybrid_model(uint32_t family, uint32_t model);
/* A Firecracker microVM, by its kernel log (no DMI, virtio_mmio devices). */
bool findings_firecracker(const struct probe_facts *f, const struct probe_machine *m);

/* What an MSR that check_hw_exists() names is, e.g. "IA32_PERFEVTSEL0". */
const char *findings_msr_name(unsigned msr, char *buf, size_t size);

#endif

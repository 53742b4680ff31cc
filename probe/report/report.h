/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report `pmuguard probe` prints, built once.  report_build() fills one
 * model from the facts, the evidence, the verdict, the machine and the
 * findings; every decision of what is known, what is null and what a value
 * is called is taken there.  The renderers only print the model:
 *
 *   render_text.c   the words a person reads
 *   document.c      the document: every key of --json and --keys, in order,
 *                   given by report_walk() to the command's writers
 *                   (../doc/) as one JSON object (README: the keys;
 *                   ../doc/schema/probe.schema.json) or as KEY=VALUE lines
 *
 * Like lscpu's one context: the facts are read before anything prints,
 * and no renderer reads anything again.
 */
#ifndef PMUGUARD_REPORT_H
#define PMUGUARD_REPORT_H

#include <stdio.h>

#include "doc.h"
#include "evidence.h"
#include "findings.h"
#include "machine.h"
#include "probe.h"

/* The JSON's and the keys' schema: raised when a key changes meaning or
 * goes away (README); new keys do not raise it. */
#define REPORT_SCHEMA 4

/* A fact that may be unknown: false, true, or null. */
enum report_tri { REPORT_FALSE = 0, REPORT_TRUE = 1, REPORT_NULL = -1 };

/* What the probe read: the facts, the evidence quoted and the verdict, and
 * what was asked.  report_gather() fills it; the model points into it, so
 * it lives as long as the model. */
/* The container runtimes seen on this machine (containers.c). */
#define REPORT_MAX_RUNTIMES 6
struct report_containers {
	bool looked; /* a probe of this machine that could read /proc */
	unsigned n;
	const char *runtime[REPORT_MAX_RUNTIMES]; /* "containerd", "dockerd", "crio", "podman" */
	char evidence[REPORT_MAX_RUNTIMES][96];   /* "process containerd, pid 812" */
};
void report_containers_scan(struct report_containers *c);

struct report_input {
	const char *snapshot; /* --snapshot DIR (or the settings' snapshot), NULL: live */
	const char *dmesg;    /* --dmesg FILE, NULL: none */
	bool msr_asked;       /* --msr */
	bool this_machine;    /* the facts are this machine's (no --snapshot, no --dmesg) */
	struct report_containers containers; /* looked only on this_machine */
	struct probe_facts f;
	struct probe_evidence e;
	struct probe_verdict v;
};

struct report_msr_error {
	uint32_t msr;
	const char *access; /* "write", "read" */
	bool write;
	char name[96];      /* findings_msr_name() */
	bool value_known;   /* writes: the value the kernel tried */
	uint64_t value;
};

/* One core PMU, from its own facts: CPUID.0AH where it is the machine's
 * only core PMU, its section of the driver's block in the kernel log on a
 * hybrid part (struct probe_klog_pmu), else unknown. */
struct report_pmu {
	const char *name;
	uint32_t type;
	const char *source;  /* where its counters came from: "cpuid", "kernel-log"; NULL unknown */
	bool fixed_known;
	uint32_t fixed_counters;
	bool fixed_bitmap_known;
	uint32_t fixed_bitmap;
	enum report_tri perf_metrics; /* proven on this PMU */
	enum report_tri hazard;       /* the machine's hazard reaches this PMU */
	uint32_t hazard_counters;     /* its fixed counters in the hazard set (hazard TRUE) */
	bool own_section;             /* its facts are its section of the kernel log's block */
	bool slots_listed;
	const char *topdown[8];       /* "topdown-retiring", ...: the events/ it lists */
	unsigned n_topdown;
	const char *slots_encoding;   /* "event=0x00,umask=0x4 -> config 0x400", NULL */
};

struct report_ignored {
	unsigned count, not_at_start, malformed, other_facility, outside_block, banner;
};

struct report {
	int schema;
	const char *version;   /* pmuguard's, set by the command (NULL: unknown) */
	char generated_at[24]; /* UTC, ISO 8601; "" unknown */
	/* The verdict. */
	bool hazard;
	const char *state, *reason, *basis, *guard_state; /* basis NULL: none */
	const char *state_words; /* the state in a few words, beside its name (the text's verdict line) */
	bool basis_klog;                                  /* the log alone decided */
	/* Where the facts came from. */
	const char *source;   /* "live", "snapshot", "kernel-log" */
	const char *snapshot; /* NULL */
	const char *dmesg;    /* NULL */

	struct probe_machine machine; /* machine.source NULL: unknown */

	struct {
		bool known;
		const char *source;   /* "cpuid", "kernel-log", NULL */
		bool from_log;
		const char *vendor;   /* NULL unknown */
		bool fms_known;
		uint32_t family, model, stepping;
		bool hypervisor;
		const char *hypervisor_vendor, *hypervisor_name; /* NULL: none, or unnamed */
		const char *guest_because;
		bool hybrid;
		const char *cpuid_error; /* strerror of CPUID's read, "ok" */
		bool log_read;           /* the kernel log was readable (the text says where it looked) */
		bool bare_hardware;      /* the log: "Booting paravirtualized kernel on bare hardware" */
	} cpu;

	struct {
		bool known;
		const char *source; /* "cpuid", "kernel-log", NULL */
		bool from_log;
		bool pmu_off;       /* the log: no PMU driver */
		uint32_t version, gp_counters, fixed_counters;
		/* each seen (CPUID.0AH, or its line in the driver's block):
		 * else null, never 0 (issue 49) */
		bool version_known, gp_counters_known, fixed_counters_known;
		bool fixed_bitmap_known; /* CPUID.0AH ECX (version 5+), or the log's bitmap line */
		uint32_t fixed_bitmap;
	} perfmon;

	bool fixed3_advertised;
	struct {
		/* The verdict's per-counter sets (bit n: fixed counter n):
		 * advertised (CPUID, the driver's mask), refuted (evidence
		 * against), hazard (what the guard blocks lands there). */
		uint32_t advertised, refuted, hazard;
	} fixed;
	struct {
		bool proven;
		const char *source; /* NULL */
	} perf_metrics;

	struct {
		bool readable;
		const char *error;  /* NULL when readable */
		const char *error_text; /* strerror, "ok" */
		bool mask_seen;
		uint64_t mask;
		bool perf_metrics_bit;
		bool pmu_driver_seen;
		bool pmu_block_anchored;
		struct report_ignored ignored;
		const char *kernel, *hypervisor, *dmi; /* NULL unknown */
		struct report_msr_error msr_errors[PROBE_MAX_MSR_ERRORS];
		unsigned n_msr_errors;
		const char *pmu_lines[PROBE_QUOTE_LINES];
		unsigned n_pmu_lines;
		const char *boot_lines[PROBE_QUOTE_LINES];
		unsigned n_boot_lines;
	} kernel_log;

	struct {
		bool asked;
		bool perf_capabilities_known;
		uint64_t perf_capabilities;
		const char *perf_capabilities_error; /* NULL when read */
		bool perf_metrics_bit;               /* bit 15 */
		bool fixed_ctr3_readable;
		const char *fixed_ctr3_error;        /* NULL when readable */
		bool missing;                        /* /dev/cpu/0/msr does not exist */
	} msr;

	struct {
		bool log_only;     /* only a kernel log was given */
		bool known;        /* sysfs was read */
		const char *error; /* strerror of its read */
		struct report_pmu pmu[PROBE_MAX_PMUS];
		unsigned n;
	} pmus;

	struct {
		enum plain_perf_stat value;
		const char *under_deny; /* "works", "stops", "may-stop" */
		const char *text;       /* NULL when it works */
	} plain_perf_stat;

	/* Container runtimes seen here (NULL-free: looked false for a
	 * snapshot or a log): the preload does not reach their containers. */
	const struct report_containers *containers;

	struct finding findings[FINDINGS_MAX];
	unsigned n_findings;
};

/* Every fact and every piece of evidence (probe_gather_report()), and the
 * verdict.  in->snapshot, in->dmesg and in->msr_asked are set by the
 * caller. */
void report_gather(struct report_input *in);

/* The model, from in (which must outlive it). */
void report_build(struct report *r, const struct report_input *in);

/* The words a person reads: the model, and nothing else.  The JSON and
 * the keys are report_walk() through ../doc/'s doc_write(). */
void report_render_text(FILE *out, const struct report *r);

/* The report's walker (../doc/doc.h's doc_walker): report is the struct
 * report. */
void report_walk(const struct doc_sink *sink, const void *report);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report `pmuguard probe` prints, built once.  report_build() fills one
 * model from the facts, the evidence, the verdict, the machine and the
 * findings; every decision of what is known, what is null and what a value
 * is called is taken there.  The renderers only print the model:
 *
 *   render_text.c   the words a person reads
 *   document.c      the document: every key of --json and --keys, in order
 *   render_json.c   that document as one JSON object (README: the keys)
 *   render_keys.c   that document as KEY=VALUE lines, for shells
 *
 * Like lscpu's one context: the facts are read before anything prints,
 * and no renderer reads anything again.
 */
#ifndef PMUGUARD_REPORT_H
#define PMUGUARD_REPORT_H

#include <stdio.h>

#include "evidence.h"
#include "findings.h"
#include "machine.h"
#include "probe.h"

/* The JSON's and the keys' schema: raised when a key changes meaning or
 * goes away (README); new keys do not raise it. */
#define REPORT_SCHEMA 3

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

/* The renderers: each prints the model, and nothing else. */
void report_render_text(FILE *out, const struct report *r);
void report_render_json(FILE *out, const struct report *r);
void report_render_keys(FILE *out, const struct report *r);

/* The document behind --json and --keys: each node in order.  key is the
 * node's name in its object, NULL in an array; REPORT_NODE_OBJECT and
 * REPORT_NODE_ARRAY open a container that REPORT_NODE_END closes. */
enum report_node {
	REPORT_NODE_NULL,
	REPORT_NODE_BOOL,
	REPORT_NODE_UINT,
	REPORT_NODE_STR,
	REPORT_NODE_OBJECT,
	REPORT_NODE_ARRAY,
	REPORT_NODE_END,
};
struct report_sink {
	void (*node)(void *ctx, const char *key, enum report_node kind, const char *s,
		     uint64_t n);
	void *ctx;
};

/* The command's documents (`enforce start|status --json|--keys`,
 * follow's lines) through the same two writers: walk gives sink every node
 * of the document in order, the top object included, as report_walk does
 * for the report.  One JSON object and a newline, or KEY=VALUE lines. */
typedef void report_walker(const struct report_sink *sink, const void *arg);
/* The report's walker: arg is the struct report. */
void report_walk(const struct report_sink *sink, const void *report);
void report_write_json(FILE *out, report_walker *walk, const void *arg);
/* The same, with ", " and ": " between members, as the status document
 * has always been printed. */
void report_write_json_spaced(FILE *out, report_walker *walk, const void *arg);
void report_write_keys(FILE *out, report_walker *walk, const void *arg);

/* The nodes a walker gives, as document.c gives the report's: key NULL
 * inside an array; a NULL string is null; report_doc_open() starts an
 * object (array false) or an array that report_doc_end() closes.
 * report_doc_hex() is a value as a string, "0x400" (padded false) or as
 * the kernel prints a mask, "0x0000000f000000ff". */
void report_doc_str(const struct report_sink *s, const char *key, const char *v);
void report_doc_uint(const struct report_sink *s, const char *key, uint64_t n);
void report_doc_bool(const struct report_sink *s, const char *key, bool b);
void report_doc_null(const struct report_sink *s, const char *key);
void report_doc_hex(const struct report_sink *s, const char *key, bool padded, uint64_t v);
void report_doc_open(const struct report_sink *s, const char *key, bool array);
void report_doc_end(const struct report_sink *s);

/* A JSON string (NULL: null), by the one rule (log_plain_len()): what
 * passes is written as it is, '"' and '\\' as \" and \\, control
 * characters (C0, DEL, C1) as \u00XX (RFC 8259), and a byte that is not
 * UTF-8 as U+FFFD.  The command's one JSON string writer (cli.h declares
 * it too, for the other subcommands' --json). */
void json_str(FILE *out, const char *s);

/* s with every byte that log_plain_len() does not pass (control
 * characters, DEL, backslashes, bytes that are not UTF-8) written as
 * \xHH: --keys values, every line of the text report, and every line of
 * the command that carries a value from outside. */
void report_put_safe(FILE *out, const char *s);

#endif

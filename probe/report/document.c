// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The document behind `pmuguard probe --json` and `--keys`: every key, in
 * order, written once, by the node calls of ../doc/ (doc_*()), whose
 * writers print it as JSON or as KEY=VALUE lines, so the two cannot differ
 * in a key or a value (but for the bytes that are not UTF-8: U+FFFD in
 * JSON, \xHH in keys).  The keys are stable (README, "--json";
 * ../doc/schema/probe.schema.json): a key that changes meaning or goes
 * away raises REPORT_SCHEMA; a new key does not.
 */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"

static void tri(const struct doc_sink *d, const char *key, enum report_tri t)
{
	if (t == REPORT_NULL)
		doc_null(d, key);
	else
		doc_bool(d, key, t == REPORT_TRUE);
}

static void uint_or_null(const struct doc_sink *d, const char *key, bool known, uint64_t n)
{
	if (known)
		doc_uint(d, key, n);
	else
		doc_null(d, key);
}

static void lines(const struct doc_sink *d, const char *key, const char *const l[], unsigned n)
{
	doc_open(d, key, true);
	for (unsigned i = 0; i < n; i++)
		doc_str(d, NULL, l[i]);
	doc_end(d);
}

/* A set of fixed counters as the list of their numbers: [4, 5, 6]. */
static void counters(const struct doc_sink *d, const char *key, uint32_t set)
{
	doc_open(d, key, true);
	for (unsigned n = 0; n < 32; n++)
		if ((set >> n) & 1)
			doc_uint(d, NULL, n);
	doc_end(d);
}

static void machine(const struct doc_sink *d, const struct probe_machine *m)
{
	if (!m->source) {
		doc_null(d, "machine");
		return;
	}
	doc_open(d, "machine", false);
	doc_str(d, "source", m->source);
	doc_str_or_null(d, "sys_vendor", m->sys_vendor);
	doc_str_or_null(d, "product_name", m->product_name);
	doc_str_or_null(d, "product_version", m->product_version);
	doc_str(d, "system", m->system);
	doc_str(d, "words", m->words);
	doc_end(d);
}

static void cpu(const struct doc_sink *d, const struct report *r)
{
	doc_open(d, "cpu", false);
	doc_bool(d, "known", r->cpu.known);
	doc_str(d, "source", r->cpu.source);
	doc_str(d, "vendor", r->cpu.vendor);
	doc_uint(d, "family", r->cpu.family);
	doc_uint(d, "model", r->cpu.model);
	doc_uint(d, "stepping", r->cpu.stepping);
	doc_bool(d, "hypervisor", r->cpu.hypervisor);
	doc_str(d, "hypervisor_vendor", r->cpu.hypervisor_vendor);
	doc_str(d, "hypervisor_name", r->cpu.hypervisor_name);
	doc_str(d, "guest_because", r->cpu.guest_because);
	doc_bool(d, "hybrid", r->cpu.hybrid);
	doc_end(d);

	doc_open(d, "perfmon", false);
	doc_bool(d, "known", r->perfmon.known);
	doc_str(d, "source", r->perfmon.source);
	uint_or_null(d, "version", r->perfmon.version_known, r->perfmon.version);
	uint_or_null(d, "gp_counters", r->perfmon.gp_counters_known, r->perfmon.gp_counters);
	uint_or_null(d, "fixed_counters", r->perfmon.fixed_counters_known,
		     r->perfmon.fixed_counters);
	uint_or_null(d, "fixed_bitmap", r->perfmon.fixed_bitmap_known, r->perfmon.fixed_bitmap);
	doc_end(d);
}

static void kernel_log(const struct doc_sink *d, const struct report *r)
{
	doc_open(d, "kernel_log", false);
	doc_bool(d, "readable", r->kernel_log.readable);
	doc_str(d, "error", r->kernel_log.error);
	if (r->kernel_log.mask_seen)
		doc_hex(d, "mask", true, r->kernel_log.mask);
	else
		doc_null(d, "mask");
	doc_bool(d, "perf_metrics_bit", r->kernel_log.perf_metrics_bit);
	if (r->kernel_log.pmu_driver_seen)
		doc_bool(d, "pmu_block_anchored", r->kernel_log.pmu_block_anchored);
	else
		doc_null(d, "pmu_block_anchored");
	const struct report_ignored *ig = &r->kernel_log.ignored;
	doc_open(d, "ignored", false);
	doc_uint(d, "count", ig->count);
	doc_uint(d, "not_at_record_start", ig->not_at_start);
	doc_uint(d, "malformed", ig->malformed);
	doc_uint(d, "other_facility", ig->other_facility);
	doc_uint(d, "outside_block", ig->outside_block);
	doc_uint(d, "banner", ig->banner);
	doc_end(d);
	doc_str(d, "kernel", r->kernel_log.kernel);
	doc_str(d, "hypervisor", r->kernel_log.hypervisor);
	doc_str(d, "dmi", r->kernel_log.dmi);
	doc_open(d, "msr_errors", true);
	for (unsigned i = 0; i < r->kernel_log.n_msr_errors; i++) {
		const struct report_msr_error *e = &r->kernel_log.msr_errors[i];
		doc_open(d, NULL, false);
		doc_hex(d, "msr", false, e->msr);
		doc_str(d, "access", e->access);
		doc_str(d, "name", e->name);
		if (e->value_known)
			doc_hex(d, "value", true, e->value);
		else
			doc_null(d, "value");
		doc_end(d);
	}
	doc_end(d);
	lines(d, "pmu_lines", r->kernel_log.pmu_lines, r->kernel_log.n_pmu_lines);
	lines(d, "boot_lines", r->kernel_log.boot_lines, r->kernel_log.n_boot_lines);
	doc_end(d);
}

static void msr(const struct doc_sink *d, const struct report *r)
{
	if (!r->msr.asked)
		return; /* the key is there only with --msr */
	doc_open(d, "msr", false);
	if (r->msr.perf_capabilities_error)
		doc_str(d, "perf_capabilities_error", r->msr.perf_capabilities_error);
	else
		doc_hex(d, "perf_capabilities", false, r->msr.perf_capabilities);
	doc_bool(d, "fixed_ctr3_readable", r->msr.fixed_ctr3_readable);
	doc_str(d, "fixed_ctr3_error", r->msr.fixed_ctr3_error);
	doc_end(d);
}

static void pmus(const struct doc_sink *d, const struct report *r)
{
	doc_open(d, "pmus", true);
	for (unsigned i = 0; i < r->pmus.n; i++) {
		const struct report_pmu *p = &r->pmus.pmu[i];
		doc_open(d, NULL, false);
		doc_str(d, "name", p->name);
		doc_uint(d, "type", p->type);
		uint_or_null(d, "fixed_counters", p->fixed_known, p->fixed_counters);
		tri(d, "perf_metrics", p->perf_metrics);
		tri(d, "hazard", p->hazard);
		doc_bool(d, "slots_listed", p->slots_listed);
		lines(d, "topdown_listed", p->topdown, p->n_topdown);
		/* Since the per-PMU facts became the PMU's own (new keys). */
		doc_str(d, "source", p->source);
		uint_or_null(d, "fixed_bitmap", p->fixed_bitmap_known, p->fixed_bitmap);
		/* The fixed counters the guard blocks on this PMU. */
		if (p->hazard == REPORT_NULL)
			doc_null(d, "hazard_counters");
		else
			counters(d, "hazard_counters", p->hazard_counters);
		doc_end(d);
	}
	doc_end(d);
}

static void findings(const struct doc_sink *d, const struct report *r)
{
	doc_open(d, "findings", true);
	for (unsigned i = 0; i < r->n_findings; i++) {
		const struct finding *x = &r->findings[i];
		doc_open(d, NULL, false);
		doc_str(d, "id", x->id);
		doc_str(d, "severity", finding_severity_name(x->severity));
		doc_str(d, "summary", x->summary);
		doc_str(d, "evidence", x->evidence);
		doc_str(d, "consequence", x->consequence);
		doc_str(d, "remedy", x->remedy);
		doc_end(d);
	}
	doc_end(d);
}

void report_walk(const struct doc_sink *d, const void *report)
{
	const struct report *r = report;
	doc_open_schema(d, (uint64_t)r->schema);
	doc_str(d, "version", r->version);
	doc_str(d, "generated_at", r->generated_at[0] ? r->generated_at : NULL);
	doc_bool(d, "hazard", r->hazard);
	doc_str(d, "state", r->state);
	doc_str(d, "reason", r->reason);
	doc_str(d, "basis", r->basis);
	doc_str(d, "guard_state", r->guard_state);
	doc_str(d, "source", r->source);
	doc_str(d, "snapshot", r->snapshot);
	doc_str(d, "dmesg", r->dmesg);
	machine(d, &r->machine);
	cpu(d, r);
	doc_bool(d, "fixed3_advertised", r->fixed3_advertised);
	doc_open(d, "fixed_counters", false);
	counters(d, "advertised", r->fixed.advertised);
	counters(d, "refuted", r->fixed.refuted);
	counters(d, "hazard", r->fixed.hazard);
	doc_end(d);
	doc_open(d, "perf_metrics", false);
	doc_bool(d, "proven", r->perf_metrics.proven);
	doc_str(d, "source", r->perf_metrics.source);
	doc_end(d);
	kernel_log(d, r);
	msr(d, r);
	pmus(d, r);
	/* The container runtimes seen on this machine; null for a
	 * snapshot or a log (another machine's facts). */
	const struct report_containers *c = r->containers;
	if (!c || !c->looked) {
		doc_null(d, "containers");
	} else {
		doc_open(d, "containers", false);
		doc_open(d, "runtimes", true);
		for (unsigned i = 0; i < c->n; i++)
			doc_str(d, NULL, c->runtime[i]);
		doc_end(d);
		doc_open(d, "evidence", true);
		for (unsigned i = 0; i < c->n; i++)
			doc_str(d, NULL, c->evidence[i]);
		doc_end(d);
		doc_end(d);
	}
	doc_open(d, "plain_perf_stat", false);
	doc_str(d, "under_deny", r->plain_perf_stat.under_deny);
	doc_str(d, "text", r->plain_perf_stat.text);
	doc_end(d);
	findings(d, r);
	doc_end(d);
}

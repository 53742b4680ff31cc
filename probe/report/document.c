// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The document behind `pmuguard probe --json` and `--keys`: every key, in
 * order, written once.  The command's writers (../doc/) print it as JSON
 * or as KEY=VALUE lines, so the two cannot differ in a key or a value (but for
 * the bytes that are not UTF-8: U+FFFD in JSON, \xHH in keys).  The keys
 * are stable (README, "--json"): a key that changes meaning or goes away
 * raises REPORT_SCHEMA; a new key does not.
 */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"

struct doc {
	const struct doc_sink *s;
};

static void str(const struct doc *d, const char *key, const char *s)
{
	doc_str(d->s, key, s);
}

static void uint(const struct doc *d, const char *key, uint64_t n)
{
	doc_uint(d->s, key, n);
}

static void boolean(const struct doc *d, const char *key, bool b)
{
	doc_bool(d->s, key, b);
}

static void null(const struct doc *d, const char *key)
{
	doc_null(d->s, key);
}

static void tri(const struct doc *d, const char *key, enum report_tri t)
{
	if (t == REPORT_NULL)
		null(d, key);
	else
		boolean(d, key, t == REPORT_TRUE);
}

static void uint_or_null(const struct doc *d, const char *key, bool known, uint64_t n)
{
	if (known)
		uint(d, key, n);
	else
		null(d, key);
}

static void hex(const struct doc *d, const char *key, bool padded, uint64_t v)
{
	doc_hex(d->s, key, padded, v);
}

static void begin(const struct doc *d, const char *key, enum doc_node kind)
{
	doc_open(d->s, key, kind == DOC_NODE_ARRAY);
}

static void end(const struct doc *d)
{
	doc_end(d->s);
}

static void lines(const struct doc *d, const char *key, const char *const l[], unsigned n)
{
	begin(d, key, DOC_NODE_ARRAY);
	for (unsigned i = 0; i < n; i++)
		str(d, NULL, l[i]);
	end(d);
}

/* A set of fixed counters as the list of their numbers: [4, 5, 6]. */
static void counters(const struct doc *d, const char *key, uint32_t set)
{
	begin(d, key, DOC_NODE_ARRAY);
	for (unsigned n = 0; n < 32; n++)
		if ((set >> n) & 1)
			uint(d, NULL, n);
	end(d);
}

static void machine(const struct doc *d, const struct probe_machine *m)
{
	if (!m->source) {
		null(d, "machine");
		return;
	}
	begin(d, "machine", DOC_NODE_OBJECT);
	str(d, "source", m->source);
	str(d, "sys_vendor", m->sys_vendor[0] ? m->sys_vendor : NULL);
	str(d, "product_name", m->product_name[0] ? m->product_name : NULL);
	str(d, "product_version", m->product_version[0] ? m->product_version : NULL);
	str(d, "system", m->system);
	str(d, "words", m->words);
	end(d);
}

static void cpu(const struct doc *d, const struct report *r)
{
	begin(d, "cpu", DOC_NODE_OBJECT);
	boolean(d, "known", r->cpu.known);
	str(d, "source", r->cpu.source);
	str(d, "vendor", r->cpu.vendor);
	uint(d, "family", r->cpu.family);
	uint(d, "model", r->cpu.model);
	uint(d, "stepping", r->cpu.stepping);
	boolean(d, "hypervisor", r->cpu.hypervisor);
	str(d, "hypervisor_vendor", r->cpu.hypervisor_vendor);
	str(d, "hypervisor_name", r->cpu.hypervisor_name);
	str(d, "guest_because", r->cpu.guest_because);
	boolean(d, "hybrid", r->cpu.hybrid);
	end(d);

	begin(d, "perfmon", DOC_NODE_OBJECT);
	boolean(d, "known", r->perfmon.known);
	str(d, "source", r->perfmon.source);
	uint(d, "version", r->perfmon.version);
	uint(d, "gp_counters", r->perfmon.gp_counters);
	uint(d, "fixed_counters", r->perfmon.fixed_counters);
	uint_or_null(d, "fixed_bitmap", r->perfmon.fixed_bitmap_known, r->perfmon.fixed_bitmap);
	end(d);
}

static void kernel_log(const struct doc *d, const struct report *r)
{
	begin(d, "kernel_log", DOC_NODE_OBJECT);
	boolean(d, "readable", r->kernel_log.readable);
	str(d, "error", r->kernel_log.error);
	if (r->kernel_log.mask_seen)
		hex(d, "mask", true, r->kernel_log.mask);
	else
		null(d, "mask");
	boolean(d, "perf_metrics_bit", r->kernel_log.perf_metrics_bit);
	if (r->kernel_log.pmu_driver_seen)
		boolean(d, "pmu_block_anchored", r->kernel_log.pmu_block_anchored);
	else
		null(d, "pmu_block_anchored");
	const struct report_ignored *ig = &r->kernel_log.ignored;
	begin(d, "ignored", DOC_NODE_OBJECT);
	uint(d, "count", ig->count);
	uint(d, "not_at_record_start", ig->not_at_start);
	uint(d, "malformed", ig->malformed);
	uint(d, "other_facility", ig->other_facility);
	uint(d, "outside_block", ig->outside_block);
	uint(d, "banner", ig->banner);
	end(d);
	str(d, "kernel", r->kernel_log.kernel);
	str(d, "hypervisor", r->kernel_log.hypervisor);
	str(d, "dmi", r->kernel_log.dmi);
	begin(d, "msr_errors", DOC_NODE_ARRAY);
	for (unsigned i = 0; i < r->kernel_log.n_msr_errors; i++) {
		const struct report_msr_error *e = &r->kernel_log.msr_errors[i];
		begin(d, NULL, DOC_NODE_OBJECT);
		hex(d, "msr", false, e->msr);
		str(d, "access", e->access);
		str(d, "name", e->name);
		if (e->value_known)
			hex(d, "value", true, e->value);
		else
			null(d, "value");
		end(d);
	}
	end(d);
	lines(d, "pmu_lines", r->kernel_log.pmu_lines, r->kernel_log.n_pmu_lines);
	lines(d, "boot_lines", r->kernel_log.boot_lines, r->kernel_log.n_boot_lines);
	end(d);
}

static void msr(const struct doc *d, const struct report *r)
{
	if (!r->msr.asked)
		return; /* the key is there only with --msr */
	begin(d, "msr", DOC_NODE_OBJECT);
	if (r->msr.perf_capabilities_error)
		str(d, "perf_capabilities_error", r->msr.perf_capabilities_error);
	else
		hex(d, "perf_capabilities", false, r->msr.perf_capabilities);
	boolean(d, "fixed_ctr3_readable", r->msr.fixed_ctr3_readable);
	str(d, "fixed_ctr3_error", r->msr.fixed_ctr3_error);
	end(d);
}

static void pmus(const struct doc *d, const struct report *r)
{
	begin(d, "pmus", DOC_NODE_ARRAY);
	for (unsigned i = 0; i < r->pmus.n; i++) {
		const struct report_pmu *p = &r->pmus.pmu[i];
		begin(d, NULL, DOC_NODE_OBJECT);
		str(d, "name", p->name);
		uint(d, "type", p->type);
		uint_or_null(d, "fixed_counters", p->fixed_known, p->fixed_counters);
		tri(d, "perf_metrics", p->perf_metrics);
		tri(d, "hazard", p->hazard);
		boolean(d, "slots_listed", p->slots_listed);
		lines(d, "topdown_listed", p->topdown, p->n_topdown);
		/* Since the per-PMU facts became the PMU's own (new keys). */
		str(d, "source", p->source);
		uint_or_null(d, "fixed_bitmap", p->fixed_bitmap_known, p->fixed_bitmap);
		/* The fixed counters the guard blocks on this PMU. */
		if (p->hazard == REPORT_NULL)
			null(d, "hazard_counters");
		else
			counters(d, "hazard_counters", p->hazard_counters);
		end(d);
	}
	end(d);
}

static void findings(const struct doc *d, const struct report *r)
{
	begin(d, "findings", DOC_NODE_ARRAY);
	for (unsigned i = 0; i < r->n_findings; i++) {
		const struct finding *x = &r->findings[i];
		begin(d, NULL, DOC_NODE_OBJECT);
		str(d, "id", x->id);
		str(d, "severity", finding_severity_name(x->severity));
		str(d, "summary", x->summary);
		str(d, "evidence", x->evidence);
		str(d, "consequence", x->consequence);
		str(d, "remedy", x->remedy);
		end(d);
	}
	end(d);
}

void report_walk(const struct doc_sink *sink, const void *report)
{
	const struct report *r = report;
	const struct doc d = {sink};
	begin(&d, NULL, DOC_NODE_OBJECT);
	uint(&d, "schema", (uint64_t)r->schema);
	str(&d, "version", r->version);
	str(&d, "generated_at", r->generated_at[0] ? r->generated_at : NULL);
	boolean(&d, "hazard", r->hazard);
	str(&d, "state", r->state);
	str(&d, "reason", r->reason);
	str(&d, "basis", r->basis);
	str(&d, "guard_state", r->guard_state);
	str(&d, "source", r->source);
	str(&d, "snapshot", r->snapshot);
	str(&d, "dmesg", r->dmesg);
	machine(&d, &r->machine);
	cpu(&d, r);
	boolean(&d, "fixed3_advertised", r->fixed3_advertised);
	begin(&d, "fixed_counters", DOC_NODE_OBJECT);
	counters(&d, "advertised", r->fixed.advertised);
	counters(&d, "refuted", r->fixed.refuted);
	counters(&d, "hazard", r->fixed.hazard);
	end(&d);
	begin(&d, "perf_metrics", DOC_NODE_OBJECT);
	boolean(&d, "proven", r->perf_metrics.proven);
	str(&d, "source", r->perf_metrics.source);
	end(&d);
	kernel_log(&d, r);
	msr(&d, r);
	pmus(&d, r);
	/* The container runtimes seen on this machine; null for a
	 * snapshot or a log (another machine's facts). */
	const struct report_containers *c = r->containers;
	if (!c || !c->looked) {
		null(&d, "containers");
	} else {
		begin(&d, "containers", DOC_NODE_OBJECT);
		begin(&d, "runtimes", DOC_NODE_ARRAY);
		for (unsigned i = 0; i < c->n; i++)
			str(&d, NULL, c->runtime[i]);
		end(&d);
		begin(&d, "evidence", DOC_NODE_ARRAY);
		for (unsigned i = 0; i < c->n; i++)
			str(&d, NULL, c->evidence[i]);
		end(&d);
		end(&d);
	}
	begin(&d, "plain_perf_stat", DOC_NODE_OBJECT);
	str(&d, "under_deny", r->plain_perf_stat.under_deny);
	str(&d, "text", r->plain_perf_stat.text);
	end(&d);
	findings(&d, r);
	end(&d);
}

void report_render_json(FILE *out, const struct report *r)
{
	doc_write_json(out, report_walk, r);
}

void report_render_keys(FILE *out, const struct report *r)
{
	doc_write_keys(out, report_walk, r);
}

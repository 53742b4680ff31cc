// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report's model, filled once from the facts, the evidence, the
 * verdict, the machine and the findings (report.h).  Every choice between
 * a value and null, and every name a value goes by, is made here, so that
 * the text and the JSON cannot disagree.
 */
#include <errno.h>
#include <string.h>

#include "report.h"

static const char *err_text(int err)
{
	return err ? strerror(-err) : "ok";
}

static const char *basis_name(enum probe_basis b)
{
	return b == PROBE_BASIS_CPUID ? "cpuid" : b == PROBE_BASIS_KLOG ? "kernel-log" : NULL;
}

static const char *nonempty(const char *s)
{
	return s && s[0] ? s : NULL;
}

void report_gather(struct report_input *in)
{
	probe_gather_report(&in->f, &in->e, in->snapshot, in->dmesg);
	probe_evaluate(&in->f, &in->v);
	if (in->this_machine)
		report_containers_scan(&in->containers);
}

static void cpu(struct report *r, const struct report_input *in)
{
	const struct probe_cpu *c = &in->v.cpu;
	const struct probe_facts *f = &in->f;
	r->cpu.known = c->known;
	r->cpu.source = basis_name(c->basis);
	r->cpu.from_log = c->basis == PROBE_BASIS_KLOG;
	r->cpu.vendor = c->known ? c->vendor : NULL;
	r->cpu.fms_known = c->fms_known;
	r->cpu.family = c->family;
	r->cpu.model = c->model;
	r->cpu.stepping = c->stepping;
	r->cpu.hypervisor = c->hypervisor;
	r->cpu.hypervisor_vendor = c->hypervisor ? nonempty(c->hv_vendor) : NULL;
	r->cpu.hypervisor_name = c->hypervisor ? nonempty(c->hv_name) : NULL;
	r->cpu.guest_because = c->guest_because;
	r->cpu.hybrid = c->hybrid;
	r->cpu.cpuid_error = err_text(f->cpuid_err);
	r->cpu.log_read = f->known & PROBE_KNOWN_KLOG;
	r->cpu.bare_hardware = f->klog.boot.bare_hardware;

	r->perfmon.known = c->leaf_a_known;
	r->perfmon.source = basis_name(c->perfmon_basis);
	r->perfmon.from_log = c->perfmon_basis == PROBE_BASIS_KLOG;
	r->perfmon.pmu_off = c->pmu_off;
	r->perfmon.version = c->pmu_version;
	r->perfmon.gp_counters = c->gp_counters;
	r->perfmon.fixed_counters = c->fixed_counters;
	r->perfmon.version_known = c->leaf_a_known && c->pmu_version_known;
	r->perfmon.gp_counters_known = c->leaf_a_known && c->gp_counters_known;
	r->perfmon.fixed_counters_known = c->leaf_a_known && c->fixed_counters_known;
	/* A bitmap exists only where it was read: CPUID.0AH ECX from version
	 * 5 on (below, ECX is reserved), or the log's "fixed-purpose bitmap"
	 * line (6.17+).  Elsewhere it is null, not 0. */
	r->perfmon.fixed_bitmap_known =
		(c->perfmon_basis == PROBE_BASIS_CPUID && c->pmu_version >= 5) ||
		(c->perfmon_basis == PROBE_BASIS_KLOG && f->klog.fixed_bitmap_seen);
	r->perfmon.fixed_bitmap = r->perfmon.fixed_bitmap_known ? c->fixed_bitmap : 0;
}

static void kernel_log(struct report *r, const struct report_input *in)
{
	const struct probe_facts *f = &in->f;
	const struct probe_klog *k = &f->klog;
	const struct probe_boot *b = &k->boot;
	r->kernel_log.readable = f->known & PROBE_KNOWN_KLOG;
	r->kernel_log.error = f->klog_err ? err_text(f->klog_err) : NULL;
	r->kernel_log.error_text = err_text(f->klog_err);
	r->kernel_log.mask_seen = k->mask_seen;
	r->kernel_log.mask = k->mask;
	r->kernel_log.perf_metrics_bit = k->perf_metrics_bit;
	r->kernel_log.pmu_driver_seen = k->pmu_driver_seen;
	r->kernel_log.pmu_block_anchored = k->pmu_block_anchored;
	const struct probe_klog_ignored *ig = &k->ignored;
	r->kernel_log.ignored = (struct report_ignored){
		.count = probe_klog_ignored_total(ig),
		.not_at_start = ig->not_at_start,
		.malformed = ig->malformed,
		.other_facility = ig->other_facility,
		.outside_block = ig->outside_block,
		.banner = ig->banner,
	};
	r->kernel_log.kernel = nonempty(b->kernel_release);
	r->kernel_log.hypervisor = nonempty(b->hypervisor);
	r->kernel_log.dmi = nonempty(b->dmi);
	for (unsigned i = 0; i < b->n_msr_errors && i < PROBE_MAX_MSR_ERRORS; i++) {
		const struct probe_msr_error *e = &b->msr_errors[i];
		struct report_msr_error *x = &r->kernel_log.msr_errors[r->kernel_log.n_msr_errors++];
		x->msr = e->msr;
		x->write = e->write;
		x->access = e->write ? "write" : "read";
		findings_msr_name(e->msr, x->name, sizeof(x->name));
		x->value_known = e->value_seen;
		x->value = e->value;
	}
	const struct probe_evidence *ev = &in->e;
	for (unsigned i = 0; i < ev->n_klog_lines && i < PROBE_QUOTE_LINES; i++)
		r->kernel_log.pmu_lines[r->kernel_log.n_pmu_lines++] = ev->klog_lines[i];
	for (unsigned i = 0; i < ev->n_boot_lines && i < PROBE_QUOTE_LINES; i++)
		r->kernel_log.boot_lines[r->kernel_log.n_boot_lines++] = ev->boot_lines[i];
}

static void msr(struct report *r, const struct report_input *in)
{
	const struct probe_facts *f = &in->f;
	r->msr.asked = in->msr_asked;
	r->msr.perf_capabilities_known = f->msr_err == 0;
	r->msr.perf_capabilities = f->perf_capabilities;
	r->msr.perf_capabilities_error = f->msr_err ? err_text(f->msr_err) : NULL;
	r->msr.perf_metrics_bit = (f->perf_capabilities >> 15) & 1;
	r->msr.fixed_ctr3_readable = in->e.ctr3_err == 0;
	r->msr.fixed_ctr3_error = in->e.ctr3_err ? err_text(in->e.ctr3_err) : NULL;
	r->msr.missing = in->msr_asked && (f->msr_err == -ENOENT || in->e.ctr3_err == -ENOENT);
}

static const struct probe_klog_pmu *section_of(const struct probe_facts *f, const char *name)
{
	if (!(f->known & PROBE_KNOWN_KLOG))
		return NULL;
	for (unsigned i = 0; i < f->klog.n_pmus && i < PROBE_MAX_PMUS; i++)
		if (!strcmp(f->klog.pmus[i].name, name))
			return &f->klog.pmus[i];
	return NULL;
}

/* A core PMU's own counters.  The machine's facts (CPUID.0AH, or the log's
 * block) are its own only where it is the only core PMU; on a hybrid part
 * each PMU has its section of the driver's block, or its facts are
 * unknown (null), never another PMU's. */
static void pmu_facts(struct report_pmu *x, unsigned i, bool only, const struct report *r,
		      const struct report_input *in)
{
	const struct probe_pmu *p = &in->f.pmus[i];
	const struct probe_verdict *v = &in->v;
	const struct probe_klog_pmu *s = section_of(&in->f, p->name);
	bool fixed3_known = false;
	if (s) {
		x->own_section = true;
		x->source = "kernel-log";
		x->fixed_known = s->fixed_logged >= 0;
		x->fixed_counters = s->fixed_logged >= 0 ? (uint32_t)s->fixed_logged : 0;
		x->fixed_bitmap_known = s->fixed_bitmap_seen;
		x->fixed_bitmap = s->fixed_bitmap;
		/* Bit 48 proves perf metrics only in a block known to be the
		 * driver's (kmsg.c, rule 4). */
		x->perf_metrics = !s->mask_seen ? REPORT_NULL
				  : s->perf_metrics_bit && in->f.klog.pmu_block_anchored &&
						    !((v->fixed_refuted >> 3) & 1)
					  ? REPORT_TRUE
					  : REPORT_FALSE;
		fixed3_known = s->fixed_logged >= 0 || s->fixed_bitmap_seen || s->mask_seen;
	} else if (only) {
		x->source = r->perfmon.known ? r->perfmon.source : NULL;
		x->fixed_known = r->perfmon.fixed_counters_known;
		x->fixed_counters = x->fixed_known ? r->perfmon.fixed_counters : 0;
		x->fixed_bitmap_known = r->perfmon.fixed_bitmap_known;
		x->fixed_bitmap = r->perfmon.fixed_bitmap;
		x->perf_metrics = v->perf_metrics_proven ? REPORT_TRUE : REPORT_FALSE;
		x->hazard = v->hazard && v->pmu_hazard[i] ? REPORT_TRUE : REPORT_FALSE;
		x->hazard_counters = v->hazard ? v->pmu_hazard[i] : 0;
		return;
	} else {
		x->perf_metrics = REPORT_NULL;
	}
	/* The machine's hazard reaches this PMU where its own set (the
	 * verdict's, narrowed by its section of the log: fixed.c) holds a
	 * counter; a machine without the hazard has it on no PMU.  A PMU the
	 * log says nothing of is unknown here (the guard gives it the
	 * machine's set, policy.c). */
	if (!v->hazard)
		x->hazard = REPORT_FALSE;
	else if (!fixed3_known)
		x->hazard = REPORT_NULL;
	else {
		x->hazard = v->pmu_hazard[i] ? REPORT_TRUE : REPORT_FALSE;
		x->hazard_counters = v->pmu_hazard[i];
	}
}

static void pmus(struct report *r, const struct report_input *in)
{
	const struct probe_facts *f = &in->f;
	r->pmus.log_only = f->log_only;
	r->pmus.known = f->known & PROBE_KNOWN_SYSFS;
	r->pmus.error = err_text(f->sysfs_err);
	unsigned n = f->n_pmus < PROBE_MAX_PMUS ? f->n_pmus : PROBE_MAX_PMUS;
	for (unsigned i = 0; i < n; i++) {
		const struct probe_pmu *p = &f->pmus[i];
		struct report_pmu *x = &r->pmus.pmu[r->pmus.n++];
		x->name = p->name;
		x->type = p->type;
		x->slots_listed = p->slots_listed;
		for (unsigned m = 0; m < 8; m++)
			if (p->topdown_listed & (1u << m))
				x->topdown[x->n_topdown++] = probe_topdown_names[m];
		x->slots_encoding = nonempty(in->e.slots[i]);
		pmu_facts(x, i, n == 1, r, in);
	}
}

/* The state in a few words (the finding says why), by the verdict's own
 * enum, so that a state added there is a state without words here only
 * until this table names it. */
static const char *state_words(enum probe_state s)
{
	static const char *const words[] = {
		[PROBE_SAFE] = "no advertised counter is missing: nothing to block",
		[PROBE_HAZARD] = "an advertised counter is missing: perf must not reach it",
		[PROBE_NOT_INTEL] = "not an Intel CPU: nothing to guard",
		[PROBE_NO_PMU] = "no hardware counters: perf counts software events only",
		[PROBE_UNKNOWN] = "facts missing: the guard fails open, blocking nothing",
	};
	return (unsigned)s < sizeof(words) / sizeof(words[0]) && words[s] ? words[s]
									   : "see the findings";
}

void report_build(struct report *r, const struct report_input *in)
{
	const struct probe_verdict *v = &in->v;
	memset(r, 0, sizeof(*r));
	r->schema = REPORT_SCHEMA;
	r->hazard = v->hazard;
	r->state = probe_state_name(v->state);
	r->state_words = state_words(v->state);
	r->reason = v->reason;
	r->basis = basis_name(v->basis);
	r->basis_klog = v->basis == PROBE_BASIS_KLOG;
	r->guard_state = probe_state_name(v->guard_state);
	r->source = in->snapshot ? "snapshot" : in->dmesg ? "kernel-log" : "live";
	r->snapshot = in->snapshot;
	r->dmesg = in->dmesg;

	/* Which machine: built once, for the report and for its findings. */
	probe_machine_build(&in->f, &r->machine);
	cpu(r, in);
	r->fixed3_advertised = v->fixed3_advertised;
	r->fixed.advertised = v->fixed_advertised;
	r->fixed.refuted = v->fixed_refuted;
	r->fixed.hazard = v->hazard ? v->fixed_hazard : 0;
	r->perf_metrics.proven = v->perf_metrics_proven;
	r->perf_metrics.source = v->metrics_source;
	kernel_log(r, in);
	msr(r, in);
	pmus(r, in);
	r->plain_perf_stat.value = findings_plain_perf_stat(&in->f, v);
	r->plain_perf_stat.under_deny = findings_plain_perf_stat_name(r->plain_perf_stat.value);
	r->plain_perf_stat.text = r->plain_perf_stat.value
					  ? findings_plain_perf_stat_text(r->plain_perf_stat.value)
					  : NULL;
	r->n_findings = findings_build_for(&in->f, v, &r->machine, r->findings);
	r->containers = &in->containers;
	if (in->containers.n && v->hazard)
		r->n_findings += findings_containers(&in->containers, v, r->findings + r->n_findings,
						     FINDINGS_MAX - r->n_findings);
}

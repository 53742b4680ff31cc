// SPDX-License-Identifier: GPL-2.0-or-later
/* The report built once: per-PMU facts are the PMU's own, the machine is
 * named once for the findings, and the renderers print only the model. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "report.h"

static struct report_input in;
static struct report r;

static void build(const char *name)
{
	memset(&in, 0, sizeof(in));
	char dir[1024];
	cr_assert(probe_join(dir, sizeof(dir), PMUGUARD_FIXTURES, name), "%s: path too long", name);
	in.snapshot = name; /* as the command names it */
	probe_gather_report(&in.f, &in.e, dir, NULL);
	probe_evaluate(&in.f, &in.v);
	report_build(&r, &in);
}

static const struct report_pmu *pmu(const char *name)
{
	for (unsigned i = 0; i < r.pmus.n; i++)
		if (!strcmp(r.pmus.pmu[i].name, name))
			return &r.pmus.pmu[i];
	cr_assert_fail("no core PMU %s", name);
	return NULL;
}

/* The kernel log's block of a hybrid part: a section per PMU. */
Test(sections, each_hybrid_pmu_has_its_own_numbers)
{
	struct world w;
	world_load(&w, "adl-hybrid-metal");
	const struct probe_klog *k = &w.f.klog;
	cr_assert_eq(k->n_pmus, 2u);
	cr_assert_str_eq(k->pmus[0].name, "cpu_core");
	cr_assert_eq(k->pmus[0].fixed_logged, 4);
	cr_assert(k->pmus[0].perf_metrics_bit);
	cr_assert(k->pmus[0].fixed3_logged);
	cr_assert_str_eq(k->pmus[1].name, "cpu_atom");
	cr_assert_eq(k->pmus[1].fixed_logged, 3);
	cr_assert_not(k->pmus[1].perf_metrics_bit);
	cr_assert_not(k->pmus[1].fixed3_logged);
	cr_assert_eq(k->pmus[1].mask, 0x000000070000003full);
	/* The merged facts are as before: the first block's, bit 48 in any. */
	cr_assert_eq(k->fixed_logged, 4);
	cr_assert(k->perf_metrics_bit);
}

Test(sections, a_later_pmus_block_is_not_a_section)
{
	/* The ADL capture: cpu_atom's block comes when its first CPU is up,
	 * after other records: outside the driver's block, as before. */
	struct world w;
	world_load(&w, "cap-bare-adl-i7-1260P-acer-swift-sfx16-7.0.3");
	cr_assert_eq(w.f.klog.n_pmus, 1u);
	cr_assert_str_eq(w.f.klog.pmus[0].name, "cpu_core");
	cr_assert_eq(w.f.klog.pmus[0].fixed_logged, 4);
	cr_assert(w.f.klog.pmus[0].fixed_bitmap_seen);
	cr_assert_eq(w.f.klog.pmus[0].fixed_bitmap, 0xfu);
	/* A block without hybrid headers has no sections. */
	world_load(&w, "m6i-16xlarge");
	cr_assert_eq(w.f.klog.n_pmus, 0u);
}

Test(per_pmu, hybrid_metal_pmus_have_their_own_counters)
{
	build("adl-hybrid-metal");
	cr_assert_eq(r.pmus.n, 2u);
	const struct report_pmu *core = pmu("cpu_core"), *atom = pmu("cpu_atom");
	cr_assert_str_eq(core->source, "kernel-log");
	cr_assert(core->fixed_known);
	cr_assert_eq(core->fixed_counters, 4u);
	cr_assert_eq(core->perf_metrics, REPORT_TRUE);
	cr_assert_eq(core->hazard, REPORT_FALSE);
	/* Before: 4 fixed counters and perf metrics, the machine's. */
	cr_assert_eq(atom->fixed_counters, 3u);
	cr_assert_eq(atom->perf_metrics, REPORT_FALSE);
	cr_assert_eq(atom->hazard, REPORT_FALSE);
	cr_assert_not(atom->fixed_bitmap_known, "no bitmap line: null");
	/* The machine's facts stay the machine's. */
	cr_assert_eq(r.perfmon.fixed_counters, 4u);
	cr_assert(r.perfmon.fixed_bitmap_known);
	cr_assert_eq(r.perfmon.fixed_bitmap, 0xfu);
}

Test(per_pmu, unknown_per_pmu_facts_are_null_not_the_machines)
{
	/* A hybrid guest whose log has one block without sections: which PMU
	 * it describes is unknown. */
	build("hybrid-guest-hazard");
	cr_assert(r.hazard);
	for (unsigned i = 0; i < r.pmus.n; i++) {
		const struct report_pmu *p = &r.pmus.pmu[i];
		cr_assert_null(p->source, "%s", p->name);
		cr_assert_not(p->fixed_known, "%s: was the machine's 4", p->name);
		cr_assert_eq(p->perf_metrics, REPORT_NULL, "%s", p->name);
		cr_assert_eq(p->hazard, REPORT_NULL, "%s", p->name);
	}
}

Test(per_pmu, the_only_core_pmu_has_the_machines_counters)
{
	build("m6i-16xlarge");
	cr_assert_eq(r.pmus.n, 1u);
	const struct report_pmu *p = pmu("cpu");
	cr_assert_str_eq(p->source, "cpuid");
	cr_assert_eq(p->fixed_counters, 4u);
	cr_assert_eq(p->perf_metrics, REPORT_FALSE);
	cr_assert_eq(p->hazard, REPORT_TRUE);
	cr_assert_not(p->fixed_bitmap_known, "perfmon version 2 has no bitmap");
	cr_assert_not(r.perfmon.fixed_bitmap_known);
	build("v5-guest-ecx-bitmap");
	cr_assert(r.perfmon.fixed_bitmap_known);
	cr_assert_eq(pmu("cpu")->fixed_bitmap & 8, 8u);
	build("guest-no-leaf-a");
	cr_assert_not(pmu("cpu")->fixed_known, "no leaf 0xA: null, not 0");
	cr_assert_null(pmu("cpu")->source);
}

/* A hybrid guest whose cpu_core advertises counter 3 without perf metrics:
 * the hazard is cpu_core's, and cpu_atom (three fixed counters) has none. */
Test(per_pmu, the_hazard_is_on_the_pmu_that_has_counter_3)
{
	static const char *const lines[] = {
		"[    0.000000] Linux version 6.8.0-1021-aws (buildd@lcy02) (gcc) #23-Ubuntu SMP",
		"[    0.000000] Hypervisor detected: KVM",
		"[    0.352031] smpboot: CPU0: Intel(R) Core(TM) i9-13900K (family: 0x6, model: 0xb7, stepping: 0x1)",
		"[    0.352933] Performance Events: XSAVE Architectural LBR, Raptorlake Hybrid events, Intel PMU driver.",
		"[    0.352933] core: cpu_core PMU driver:",
		"[    0.352933] ... version:                2",
		"[    0.352933] ... fixed-purpose events:   4",
		"[    0.352933] ... event mask:             0000000f000000ff",
		"[    0.352933] core: cpu_atom PMU driver:",
		"[    0.352933] ... version:                2",
		"[    0.352933] ... fixed-purpose events:   3",
		"[    0.352933] ... event mask:             00000007000000ff",
	};
	memset(&in, 0, sizeof(in));
	probe_klog_reset(&in.f.klog);
	in.f.known = in.f.tried = PROBE_KNOWN_KLOG | PROBE_KNOWN_SYSFS;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		probe_klog_line(&in.f.klog, lines[i], strlen(lines[i]));
	in.f.pmus[0] = (struct probe_pmu){.name = "cpu_core", .type = 4};
	in.f.pmus[1] = (struct probe_pmu){.name = "cpu_atom", .type = 10};
	in.f.n_pmus = 2;
	probe_evaluate(&in.f, &in.v);
	report_build(&r, &in);
	cr_assert(r.hazard, "%s", r.reason);
	cr_assert_eq(pmu("cpu_core")->hazard, REPORT_TRUE);
	cr_assert_eq(pmu("cpu_core")->perf_metrics, REPORT_FALSE);
	cr_assert_eq(pmu("cpu_atom")->hazard, REPORT_FALSE);
	cr_assert_eq(pmu("cpu_atom")->fixed_counters, 3u);
}

/* The findings name the machine the report built, once. */
Test(machine, findings_use_the_machine_they_are_given)
{
	struct world w;
	world_load(&w, "m6i-16xlarge");
	struct probe_machine m;
	probe_machine_build(&w.f, &m);
	snprintf(m.words, sizeof(m.words), "%s", "the test's machine");
	struct finding fs[FINDINGS_MAX];
	unsigned n = findings_build_for(&w.f, &w.v, &m, fs);
	cr_assert_gt(n, 0u);
	cr_assert_str_eq(fs[0].id, "fixed3-unimplemented");
	cr_assert(strstr(fs[0].evidence, "the guest the test's machine"), "%s", fs[0].evidence);
	cr_assert(strstr(fs[0].remedy, "provider of the test's machine"), "%s", fs[0].remedy);
	/* findings_build() builds the same machine findings_build_for() is given. */
	struct finding again[FINDINGS_MAX];
	probe_machine_build(&w.f, &m);
	cr_assert_eq(findings_build(&w.f, &w.v, again), findings_build_for(&w.f, &w.v, &m, fs));
	cr_assert_str_eq(again[0].evidence, fs[0].evidence);
}

/* The report in form: its words (report_render_text()), or its walk
 * through the command's writers, as `pmuguard probe` prints it. */
static char *render(enum doc_form form)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	cr_assert_not_null(o);
	if (form == DOC_FORM_TEXT)
		report_render_text(o, &r);
	else
		doc_write(o, form, report_walk, &r);
	fclose(o);
	return buf;
}

Test(keys, a_value_never_starts_a_line)
{
	build("m6i-16xlarge");
	r.snapshot = "a\nb=1\\c\x7f" "d";
	char *k = render(DOC_FORM_KEYS);
	cr_assert(!strncmp(k, "schema=4\n", 9), "%.40s", k);
	cr_assert(strstr(k, "\nsnapshot=a\\x0ab=1\\x5cc\\x7fd\n"), "%s", k);
	cr_assert(strstr(k, "\nstate=hazard\nreason="));
	cr_assert(strstr(k, "\nguard_state=hazard\n"));
	cr_assert(strstr(k, "\nhazard=true\n"));
	cr_assert(strstr(k, "\nmachine.words=AWS m6i.16xlarge\n"));
	cr_assert(strstr(k, "\npmus.0.name=cpu\n"));
	cr_assert(strstr(k, "\nfindings.0.id=fixed3-unimplemented\n"));
	cr_assert(strstr(k, "\ndmesg=\n"), "null is empty");
	cr_assert(strstr(k, "\nperfmon.fixed_bitmap=\n"));
	cr_assert_null(strstr(k, "\nb=1"));
	free(k);
	char *j = render(DOC_FORM_JSON);
	cr_assert(strstr(j, "\"snapshot\":\"a\\u000ab=1\\\\c\\u007fd\""), "%s", j);
	cr_assert(!strncmp(j, "{\"schema\":4,", 12));
	free(j);
}

/* An excerpt of the m6i's block without its counter lines (issue 49): the
 * version it shows is known, the general-purpose and fixed counts it does
 * not show are unknown (null, "unknown"), never 0. */
Test(perfmon, a_count_the_log_does_not_show_is_null_not_0)
{
	static const char *const lines[] = {
		"[    0.352933] Performance Events: Icelake events, full-width counters, Intel PMU "
		"driver.",
		"[    0.352933] ... version:                2",
		"[    0.352933] ... bit width:              48",
	};
	memset(&in, 0, sizeof(in));
	probe_klog_reset(&in.f.klog);
	in.f.known = in.f.tried = PROBE_KNOWN_KLOG;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		probe_klog_line(&in.f.klog, lines[i], strlen(lines[i]));
	probe_evaluate(&in.f, &in.v);
	report_build(&r, &in);
	cr_assert(r.perfmon.known);
	cr_assert(r.perfmon.version_known);
	cr_assert_eq(r.perfmon.version, 2u);
	cr_assert_not(r.perfmon.gp_counters_known);
	cr_assert_not(r.perfmon.fixed_counters_known);
	char *j = render(DOC_FORM_JSON);
	cr_assert(strstr(j, "\"version\":2,\"gp_counters\":null,\"fixed_counters\":null,"), "%s",
		  j);
	free(j);
	char *k = render(DOC_FORM_KEYS);
	cr_assert(strstr(k, "\nperfmon.version=2\nperfmon.gp_counters=\nperfmon.fixed_counters=\n"),
		  "%s", k);
	free(k);
	char *t = render(DOC_FORM_TEXT);
	cr_assert(strstr(t, "Perfmon         version 2, general-purpose unknown, fixed counters "
			    "unknown (from the kernel log)"),
		  "%s", t);
	free(t);
}

Test(text, hybrid_pmus_say_their_own_counters)
{
	build("adl-hybrid-metal");
	char *t = render(DOC_FORM_TEXT);
	cr_assert(strstr(t, "its counters: 3 fixed, perf metrics not proven (its block in the "
			    "kernel log)"),
		  "%s", t);
	free(t);
	build("m6i-16xlarge");
	t = render(DOC_FORM_TEXT);
	cr_assert_null(strstr(t, "its counters"), "one core PMU: the machine's lines are its own");
	free(t);
}

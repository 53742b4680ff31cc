// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pmuguard probe`: the report in words, one screen: the facts, the
 * verdict, the findings.  It prints the model (report.h) and decides only
 * how to say it.
 */
#include <inttypes.h>
#include <string.h>

#include "report.h"

/* "" or " (from the kernel log)": every fact the log stood in for says so. */
static const char *from(bool from_log)
{
	return from_log ? " (from the kernel log)" : "";
}

/* Print text wrapped at 78 columns, every line after the first indented. */
static void wrap(FILE *o, const char *label, const char *text)
{
	const int width = 78, indent = 15;
	fprintf(o, "  %-12s ", label);
	int col = indent;
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		int len = (int)(p - w);
		if (len == 0)
			break;
		if (col > indent && col + 1 + len > width) {
			fprintf(o, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', o);
			col++;
		}
		fwrite(w, 1, (size_t)len, o);
		col += len;
	}
	fputc('\n', o);
}

static void cpu(FILE *o, const struct report *r)
{
	if (r->machine.source)
		fprintf(o, "  Machine         %s (%s)\n", r->machine.words,
			!strcmp(r->machine.source, "dmi") ? "DMI" : "the kernel log's DMI line");
	if (r->cpu.known && r->cpu.fms_known)
		fprintf(o, "  CPU             %s family %u model 0x%x stepping %u%s%s\n", r->cpu.vendor,
			r->cpu.family, r->cpu.model, r->cpu.stepping, r->cpu.hybrid ? " (hybrid)" : "",
			from(r->cpu.from_log));
	else if (r->cpu.known)
		fprintf(o, "  CPU             %s, model unknown%s\n", r->cpu.vendor,
			from(r->cpu.from_log));
	else
		fprintf(o, "  CPU             unknown (CPUID: %s%s)\n", r->cpu.cpuid_error,
			r->cpu.log_read ? "; the kernel log does not name it" : "");
	if (r->cpu.hypervisor && r->cpu.guest_because)
		fprintf(o, "  Hypervisor      %s (this is a guest: %s)\n",
			r->cpu.hypervisor_name ? r->cpu.hypervisor_name : "unnamed",
			r->cpu.guest_because);
	else if (r->cpu.known && r->cpu.hypervisor)
		fprintf(o, "  Hypervisor      %s (this is a guest)\n",
			r->cpu.hypervisor_name     ? r->cpu.hypervisor_name
			: r->cpu.hypervisor_vendor ? r->cpu.hypervisor_vendor
						   : "unnamed");
	else if (r->cpu.known && r->cpu.from_log)
		fprintf(o, "  Hypervisor      none named in the kernel log%s\n",
			r->cpu.bare_hardware ? " (\"bare hardware\")" : "");
	else if (r->cpu.known)
		fprintf(o, "  Hypervisor      none (bare metal)\n");
}

static void perfmon(FILE *o, const struct report *r)
{
	if (r->perfmon.known && r->perfmon.pmu_off)
		fprintf(o, "  Perfmon         no PMU driver (from the kernel log)\n");
	else if (r->perfmon.known)
		fprintf(o, "  Perfmon         version %u, %u general-purpose, %u fixed counters%s\n",
			r->perfmon.version, r->perfmon.gp_counters, r->perfmon.fixed_counters,
			from(r->perfmon.from_log));
	else if (r->cpu.known)
		fprintf(o, "  Perfmon         unknown (CPUID leaf 0xA not available)\n");
	if (r->perfmon.fixed_bitmap_known)
		fprintf(o, "  Fixed bitmap    0x%x (%s)\n", r->perfmon.fixed_bitmap,
			r->perfmon.from_log ? "from the kernel log" : "CPUID.0AH ECX");
	if (r->perfmon.known && !r->perfmon.pmu_off && r->perfmon.from_log)
		fprintf(o, "  Fixed counter 3 %s\n",
			r->fixed3_advertised ? "in the PMU driver's block (from the kernel log)"
					     : "not in the PMU driver's block (from the kernel log)");
	else if (r->perfmon.known && r->perfmon.version > 0)
		fprintf(o, "  Fixed counter 3 %s\n",
			r->fixed3_advertised ? "advertised by CPUID.0AH" : "not advertised");
	/* Issue 22: counters 4-6, and counter 3 refuted, said on lines of
	 * their own (the m6i's counter 3 alone is said above). */
	char words[64];
	if (r->fixed.advertised & 0x70) {
		probe_fixed_words(r->fixed.advertised & 0x70, words, sizeof(words));
		fprintf(o, "  Fixed 4-6       %s advertised\n", words);
	}
	if (r->fixed.refuted) {
		probe_fixed_words(r->fixed.refuted, words, sizeof(words));
		fprintf(o, "  Refuted         fixed %s (evidence against: see the findings)\n", words);
	}
	if (r->fixed.hazard & ~(1u << 3)) {
		probe_fixed_words(r->fixed.hazard, words, sizeof(words));
		fprintf(o, "  Hazardous       fixed %s\n", words);
	}
	if (r->perf_metrics.proven)
		fprintf(o, "  Perf metrics    proven by %s\n", r->perf_metrics.source);
	else
		fprintf(o, "  Perf metrics    not proven\n");
}

static void kernel_log(FILE *o, const struct report *r)
{
	if (!r->kernel_log.readable)
		fprintf(o, "  Kernel log      unreadable (%s)\n", r->kernel_log.error_text);
	else if (r->kernel_log.mask_seen)
		fprintf(o, "  Kernel log      PMU mask 0x%016" PRIx64 " (bit 48 %s)%s\n",
			r->kernel_log.mask, r->kernel_log.perf_metrics_bit ? "set" : "clear",
			r->kernel_log.pmu_block_anchored
				? ""
				: ", not proof: the log does not hold the start of the block's boot");
	else
		fprintf(o, "  Kernel log      no PMU mask line\n");
	const struct report_ignored *ig = &r->kernel_log.ignored;
	if (r->kernel_log.readable && ig->count) {
		fprintf(o, "  Kernel log      %u record%s with the PMU driver's marks not read as its "
			   "block:",
			ig->count, ig->count == 1 ? "" : "s");
		const struct {
			unsigned n;
			const char *why;
		} whys[] = {
			{ig->not_at_start, "the mark inside a record, not at its start"},
			{ig->malformed, "not in the driver's format"},
			{ig->other_facility, "not the kernel's (another facility)"},
			{ig->outside_block, "outside the driver's block (a later block, or lines of none)"},
			{ig->banner, "a \"Linux version\" line that starts no boot"},
		};
		const char *sep = " ";
		for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
			if (whys[i].n) {
				fprintf(o, "%s%u %s", sep, whys[i].n, whys[i].why);
				sep = "; ";
			}
		fputs("\n", o);
	}
}

static void msr(FILE *o, const struct report *r)
{
	if (r->msr.asked) {
		if (r->msr.perf_capabilities_error)
			fprintf(o, "  MSR 0x345       unreadable (%s)\n", r->msr.perf_capabilities_error);
		else
			fprintf(o, "  MSR 0x345       0x%" PRIx64 " (PERF_METRICS bit 15 %s)\n",
				r->msr.perf_capabilities, r->msr.perf_metrics_bit ? "set" : "clear");
		fprintf(o, "  MSR 0x30c       IA32_FIXED_CTR3 %s\n",
			r->msr.fixed_ctr3_error ? r->msr.fixed_ctr3_error
						: "reads (not proof that it counts)");
	}
	for (unsigned i = 0; i < r->kernel_log.n_msr_errors; i++) {
		const struct report_msr_error *e = &r->kernel_log.msr_errors[i];
		fprintf(o, "  MSR rejected    %s 0x%x, %s (from the kernel log)\n",
			e->write ? "WRMSR to" : "RDMSR from", e->msr, e->name);
	}
}

/* A hybrid part's PMU: its own counters, from its section of the driver's
 * block, or said to be unknown (never the machine's). */
static void pmu_own(FILE *o, const struct report_pmu *p)
{
	if (!p->own_section) {
		fprintf(o, "                  its counters: unknown (the kernel log has no block "
			   "for %s)\n",
			p->name);
		return;
	}
	fprintf(o, "                  its counters: ");
	if (p->fixed_known)
		fprintf(o, "%u fixed", p->fixed_counters);
	else
		fprintf(o, "fixed unknown");
	if (p->fixed_bitmap_known)
		fprintf(o, ", bitmap 0x%x", p->fixed_bitmap);
	fprintf(o, ", perf metrics %s (its block in the kernel log)\n",
		p->perf_metrics == REPORT_TRUE	 ? "proven"
		: p->perf_metrics == REPORT_NULL ? "unknown"
						 : "not proven");
}

static void pmus(FILE *o, const struct report *r)
{
	if (r->pmus.log_only)
		fprintf(o, "  Core PMUs       not read (only a kernel log was given)\n");
	else if (!r->pmus.known)
		fprintf(o, "  Core PMUs       unknown (sysfs: %s)\n", r->pmus.error);
	else if (r->pmus.n == 0)
		fprintf(o, "  Core PMUs       none in sysfs\n");
	for (unsigned i = 0; i < r->pmus.n; i++) {
		const struct report_pmu *p = &r->pmus.pmu[i];
		fprintf(o, "  Core PMU        %s (perf type %u): slots %s, %u topdown-* listed\n",
			p->name, p->type, p->slots_listed ? "listed" : "not listed", p->n_topdown);
		/* One core PMU: the machine's lines above are its own. */
		if (r->pmus.n > 1)
			pmu_own(o, p);
		if (p->slots_encoding)
			fprintf(o, "                  events/slots: %s\n", p->slots_encoding);
	}
}

static void quotes(FILE *o, const struct report *r)
{
	unsigned n = r->kernel_log.n_pmu_lines;
	if (n && !r->kernel_log.pmu_block_anchored)
		fprintf(o, "\n  The kernel log's PMU block (the log does not hold the start of its "
			   "boot: it cannot be told from lines a user wrote):\n");
	else if (n)
		fprintf(o, "\n  The PMU driver said at boot:\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(o, "    %s\n", r->kernel_log.pmu_lines[i]);
	if (r->kernel_log.n_boot_lines) {
		fprintf(o, "\n  The kernel log also said:\n");
		for (unsigned i = 0; i < r->kernel_log.n_boot_lines; i++)
			fprintf(o, "    %s\n", r->kernel_log.boot_lines[i]);
	}
}

void report_render_text(FILE *o, const struct report *r)
{
	if (r->dmesg)
		fprintf(o, "pmuguard probe (kernel log %s%s%s)\n\n", r->dmesg,
			r->snapshot ? ", snapshot " : "", r->snapshot ? r->snapshot : "");
	else
		fprintf(o, "pmuguard probe (%s%s)\n\n", r->snapshot ? "snapshot " : "live",
			r->snapshot ? r->snapshot : "");
	cpu(o, r);
	perfmon(o, r);
	kernel_log(o, r);
	msr(o, r);
	pmus(o, r);
	if (r->containers)
		for (unsigned i = 0; i < r->containers->n; i++)
			fprintf(o, "  Containers      %s (%s): the preload does not reach into its containers\n",
				r->containers->runtime[i], r->containers->evidence[i]);
	quotes(o, r);
	char words[64];
	probe_fixed_words(r->fixed.hazard, words, sizeof(words));
	if (r->hazard && r->fixed.hazard)
		fprintf(o, "\nVerdict: %s (fixed counter%s %s would fault this machine)\n", r->state,
			r->fixed.hazard & (r->fixed.hazard - 1) ? "s" : "", words);
	else
		fprintf(o, "\nVerdict: %s\n", r->state);
	if (r->basis_klog)
		fprintf(o, "  from the kernel log alone: the guard acts only on CPUID and treats "
			   "this machine as %s\n",
			r->guard_state);
	if (r->plain_perf_stat.value)
		fprintf(o, "  plain `perf stat` under slots = deny: %s\n", r->plain_perf_stat.under_deny);
	fprintf(o, "\nFindings:\n");
	for (unsigned i = 0; i < r->n_findings; i++) {
		const struct finding *x = &r->findings[i];
		fprintf(o, "\n[%s] %s: %s\n", finding_severity_name(x->severity), x->id, x->summary);
		wrap(o, "Evidence", x->evidence);
		wrap(o, "Consequence", x->consequence);
		wrap(o, "Remedy", x->remedy);
	}
}

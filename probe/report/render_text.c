// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pmuguard probe`: the report in words, one screen: the facts, the
 * verdict, the findings.  It prints the model (report.h) and decides only
 * how to say it.
 *
 * Every line goes out through line() or wrap(), and so through the one
 * escaper (doc_put_safe): a snapshot is anyone's files, and what it
 * holds (events/slots, a path, a quoted log line) must not clear the
 * screen, move the cursor or print a verdict of its own.  The only raw
 * newlines are the renderer's.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* One line of the report and its newline: the words formatted, then every
 * byte of them through the escaper.  The formats' own words are plain
 * text, which it leaves as it is. */
__attribute__((format(printf, 2, 3))) static void line(FILE *o, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("(out of memory formatting a line)\n", o);
		return;
	}
	doc_put_safe(o, text);
	fputc('\n', o);
	free(text);
}

static void blank(FILE *o)
{
	fputc('\n', o);
}

/* s escaped, in memory the caller frees; NULL when out of memory. */
static char *escaped(const char *s)
{
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);
	if (!m)
		return NULL;
	doc_put_safe(m, s);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* "" or " (from the kernel log)": every fact the log stood in for says so. */
static const char *from(bool from_log)
{
	return from_log ? " (from the kernel log)" : "";
}

/* Print text wrapped at 78 columns, every line after the first indented;
 * escaped first, so that the breaks are the only newlines and the columns
 * count what the screen shows. */
static void wrap(FILE *o, const char *label, const char *raw)
{
	const int width = 78, indent = 15;
	char *text = escaped(raw);
	if (!text) {
		line(o, "  %-12s (out of memory)", label);
		return;
	}
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
	free(text);
}

static void cpu(FILE *o, const struct report *r)
{
	if (r->machine.source)
		line(o, "  Machine         %s (%s)", r->machine.words,
			!strcmp(r->machine.source, "dmi") ? "DMI" : "the kernel log's DMI line");
	else
		line(o, "  Machine         unknown (%s)",
			!strcmp(r->source, "kernel-log") ? "the log has no DMI line"
			: r->cpu.log_read ? "no DMI strings in sysfs, no DMI line in the kernel log"
					  : "no DMI strings in sysfs");
	if (r->cpu.known && r->cpu.fms_known)
		line(o, "  CPU             %s family %u model 0x%x stepping %u%s%s", r->cpu.vendor,
			r->cpu.family, r->cpu.model, r->cpu.stepping, r->cpu.hybrid ? " (hybrid)" : "",
			from(r->cpu.from_log));
	else if (r->cpu.known)
		line(o, "  CPU             %s, model unknown%s", r->cpu.vendor,
			from(r->cpu.from_log));
	else
		line(o, "  CPU             unknown (CPUID: %s%s)", r->cpu.cpuid_error,
			r->cpu.log_read ? "; the kernel log does not name it" : "");
	char hv[96];
	probe_hv_words(r->cpu.hypervisor_name, r->cpu.hypervisor_vendor, hv, sizeof(hv));
	if (r->cpu.hypervisor && r->cpu.guest_because)
		line(o, "  Hypervisor      %s (this is a guest: %s)", hv, r->cpu.guest_because);
	else if (r->cpu.known && r->cpu.hypervisor)
		line(o, "  Hypervisor      %s (this is a guest)", hv);
	else if (r->cpu.known && r->cpu.from_log)
		line(o, "  Hypervisor      none named in the kernel log%s",
			r->cpu.bare_hardware ? " (\"bare hardware\")" : "");
	else if (r->cpu.known)
		line(o, "  Hypervisor      none (bare metal)");
}

/* "8 general-purpose", or "general-purpose unknown" where the fact was
 * not seen (a line the log's excerpt lacks: issue 49), never 0. */
static const char *count_words(char *buf, size_t size, bool known, uint32_t n, const char *what)
{
	if (known)
		snprintf(buf, size, "%u %s", n, what);
	else
		snprintf(buf, size, "%s unknown", what);
	return buf;
}

static void perfmon(FILE *o, const struct report *r)
{
	char version[24] = "version unknown", gp[40], fixed[40];
	if (r->perfmon.version_known)
		snprintf(version, sizeof(version), "version %u", r->perfmon.version);
	if (r->perfmon.known && r->perfmon.pmu_off)
		line(o, "  Perfmon         no PMU driver (from the kernel log)");
	else if (r->perfmon.known)
		line(o, "  Perfmon         %s, %s, %s%s", version,
			count_words(gp, sizeof(gp), r->perfmon.gp_counters_known,
				    r->perfmon.gp_counters, "general-purpose"),
			count_words(fixed, sizeof(fixed), r->perfmon.fixed_counters_known,
				    r->perfmon.fixed_counters, "fixed counters"),
			from(r->perfmon.from_log));
	else if (r->cpu.known)
		line(o, "  Perfmon         unknown (CPUID leaf 0xA not available)");
	if (r->perfmon.fixed_bitmap_known)
		line(o, "  Fixed bitmap    0x%x (%s)", r->perfmon.fixed_bitmap,
			r->perfmon.from_log ? "from the kernel log" : "CPUID.0AH ECX");
	if (r->perfmon.known && !r->perfmon.pmu_off && r->perfmon.from_log)
		line(o, "  Fixed counter 3 %s",
			r->fixed3_advertised ? "in the PMU driver's block (from the kernel log)"
					     : "not in the PMU driver's block (from the kernel log)");
	else if (r->perfmon.known && r->perfmon.version > 0)
		line(o, "  Fixed counter 3 %s",
			r->fixed3_advertised ? "advertised by CPUID.0AH" : "not advertised");
	/* Counters 4-6, and counter 3 refuted, said on lines of
	 * their own (the m6i's counter 3 alone is said above). */
	char words[64];
	if (r->fixed.advertised & 0x70) {
		probe_fixed_words(r->fixed.advertised & 0x70, words, sizeof(words));
		line(o, "  Fixed 4-6       %s advertised", words);
	}
	if (r->fixed.refuted) {
		probe_fixed_words(r->fixed.refuted, words, sizeof(words));
		line(o, "  Refuted         fixed %s (evidence against: see the findings)", words);
	}
	if (r->fixed.hazard & ~(1u << 3)) {
		probe_fixed_words(r->fixed.hazard, words, sizeof(words));
		line(o, "  Hazardous       fixed %s", words);
	}
	if (r->perf_metrics.proven)
		line(o, "  Perf metrics    proven by %s", r->perf_metrics.source);
	else
		line(o, "  Perf metrics    not proven");
}

static void kernel_log(FILE *o, const struct report *r)
{
	if (!r->kernel_log.readable)
		line(o, "  Kernel log      unreadable (%s)", r->kernel_log.error_text);
	else if (r->kernel_log.mask_seen)
		line(o, "  Kernel log      PMU mask 0x%016" PRIx64 " (bit 48 %s)%s",
			r->kernel_log.mask, r->kernel_log.perf_metrics_bit ? "set" : "clear",
			r->kernel_log.pmu_block_anchored
				? ""
				: ", not proof: the log does not hold the start of the block's boot");
	else
		line(o, "  Kernel log      no PMU mask line");
	const struct report_ignored *ig = &r->kernel_log.ignored;
	if (r->kernel_log.readable && ig->count) {
		char why[512];
		size_t at = 0;
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
		why[0] = '\0';
		for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
			if (whys[i].n && at < sizeof(why)) {
				int n = snprintf(why + at, sizeof(why) - at, "%s%u %s", sep, whys[i].n,
						 whys[i].why);
				at += n > 0 ? (size_t)n : 0;
				sep = "; ";
			}
		line(o, "  Kernel log      %u record%s with the PMU driver's marks not read as its "
			"block:%s",
		     ig->count, ig->count == 1 ? "" : "s", why);
	}
}

static void msr(FILE *o, const struct report *r)
{
	if (r->msr.asked) {
		if (r->msr.perf_capabilities_error)
			line(o, "  MSR 0x345       unreadable (%s)", r->msr.perf_capabilities_error);
		else
			line(o, "  MSR 0x345       0x%" PRIx64 " (PERF_METRICS bit 15 %s)",
				r->msr.perf_capabilities, r->msr.perf_metrics_bit ? "set" : "clear");
		line(o, "  MSR 0x30c       IA32_FIXED_CTR3 %s",
			r->msr.fixed_ctr3_error ? r->msr.fixed_ctr3_error
						: "reads (not proof that it counts)");
	}
	for (unsigned i = 0; i < r->kernel_log.n_msr_errors; i++) {
		const struct report_msr_error *e = &r->kernel_log.msr_errors[i];
		line(o, "  MSR rejected    %s 0x%x, %s (from the kernel log)",
			e->write ? "WRMSR to" : "RDMSR from", e->msr, e->name);
	}
}

/* A hybrid part's PMU: its own counters, from its section of the driver's
 * block, or said to be unknown (never the machine's). */
static void pmu_own(FILE *o, const struct report_pmu *p)
{
	if (!p->own_section) {
		line(o, "                  its counters: unknown (the kernel log has no block "
			   "for %s)",
			p->name);
		return;
	}
	char fixed[24] = "fixed unknown", bitmap[24] = "";
	if (p->fixed_known)
		snprintf(fixed, sizeof(fixed), "%u fixed", p->fixed_counters);
	if (p->fixed_bitmap_known)
		snprintf(bitmap, sizeof(bitmap), ", bitmap 0x%x", p->fixed_bitmap);
	line(o, "                  its counters: %s%s, perf metrics %s (its block in the kernel log)",
	     fixed, bitmap,
		p->perf_metrics == REPORT_TRUE	 ? "proven"
		: p->perf_metrics == REPORT_NULL ? "unknown"
						 : "not proven");
}

static void pmus(FILE *o, const struct report *r)
{
	if (r->pmus.log_only)
		line(o, "  Core PMUs       not read (only a kernel log was given)");
	else if (!r->pmus.known)
		line(o, "  Core PMUs       unknown (sysfs: %s)", r->pmus.error);
	else if (r->pmus.n == 0)
		line(o, "  Core PMUs       none in sysfs");
	for (unsigned i = 0; i < r->pmus.n; i++) {
		const struct report_pmu *p = &r->pmus.pmu[i];
		line(o, "  Core PMU        %s (perf type %u): slots %s, %u topdown-* listed",
			p->name, p->type, p->slots_listed ? "listed" : "not listed", p->n_topdown);
		/* One core PMU: the machine's lines above are its own. */
		if (r->pmus.n > 1)
			pmu_own(o, p);
		if (p->slots_encoding)
			line(o, "                  events/slots: %s", p->slots_encoding);
	}
}

static void quotes(FILE *o, const struct report *r)
{
	unsigned n = r->kernel_log.n_pmu_lines;
	if (n)
		blank(o);
	if (n && !r->kernel_log.pmu_block_anchored)
		line(o, "  The kernel log's PMU block (the log does not hold the start of its "
			"boot: it cannot be told from lines a user wrote):");
	else if (n)
		line(o, "  The PMU driver said at boot:");
	for (unsigned i = 0; i < n; i++)
		line(o, "    %s", r->kernel_log.pmu_lines[i]);
	if (r->kernel_log.n_boot_lines) {
		blank(o);
		line(o, "  The kernel log also said:");
		for (unsigned i = 0; i < r->kernel_log.n_boot_lines; i++)
			line(o, "    %s", r->kernel_log.boot_lines[i]);
	}
}

void report_render_text(FILE *o, const struct report *r)
{
	if (r->dmesg)
		line(o, "pmuguard probe (kernel log %s%s%s)", r->dmesg,
			r->snapshot ? ", snapshot " : "", r->snapshot ? r->snapshot : "");
	else
		line(o, "pmuguard probe (%s%s)", r->snapshot ? "snapshot " : "live",
			r->snapshot ? r->snapshot : "");
	blank(o);
	cpu(o, r);
	perfmon(o, r);
	kernel_log(o, r);
	msr(o, r);
	pmus(o, r);
	if (r->containers)
		for (unsigned i = 0; i < r->containers->n; i++)
			line(o, "  Containers      %s (%s): the preload does not reach into its containers",
				r->containers->runtime[i], r->containers->evidence[i]);
	quotes(o, r);
	char words[64];
	probe_fixed_words(r->fixed.hazard, words, sizeof(words));
	blank(o);
	if (r->hazard && r->fixed.hazard)
		line(o, "Verdict: %s (fixed counter%s %s would fault this machine)", r->state,
			r->fixed.hazard & (r->fixed.hazard - 1) ? "s" : "", words);
	else
		line(o, "Verdict: %s (%s)", r->state, r->state_words);
	if (r->basis_klog)
		line(o, "  from the kernel log alone: the guard acts only on CPUID and treats "
			   "this machine as %s",
			r->guard_state);
	if (r->plain_perf_stat.value)
		line(o, "  plain `perf stat` under slots = deny: %s", r->plain_perf_stat.under_deny);
	blank(o);
	line(o, "Findings:");
	for (unsigned i = 0; i < r->n_findings; i++) {
		const struct finding *x = &r->findings[i];
		blank(o);
		line(o, "[%s] %s: %s", finding_severity_name(x->severity), x->id, x->summary);
		wrap(o, "Evidence", x->evidence);
		wrap(o, "Consequence", x->consequence);
		wrap(o, "Remedy", x->remedy);
	}
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard probe: the machine's PMU in plain words, or as one JSON object.
 * One result model (facts + verdict), two renderings.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h"
#include "cli.h"
#include "settings.h"
#include "findings.h"
#define PMUGUARD_JSON_SCHEMA 2

#include "evidence.h"
#include "machine.h"
#include "probe.h"

struct report {
	const char *snapshot;
	const char *dmesg; /* --dmesg FILE: the kernel log, and (without a snapshot) nothing else */
	struct probe_machine m;
	struct probe_facts f;
	struct probe_evidence e;
	struct probe_verdict v;
	struct finding findings[FINDINGS_MAX];
	unsigned n_findings;
	bool msr_asked;
};

/* The length of a well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

/* A JSON string: UTF-8 passes through as it is, control characters are
 * \u escapes, and a byte that is not UTF-8 becomes U+FFFD. */
void json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n;
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else if (*p < 0x80)
			fputc(*p, out);
		else if ((n = utf8_len(p)) != 0) {
			fwrite(p, 1, n, out);
			p += n;
			continue;
		} else
			fputs("\\ufffd", out);
		p++;
	}
	fputc('"', out);
}

static const char *err_text(int err)
{
	return err ? strerror(-err) : "ok";
}

static const char *yes(bool b)
{
	return b ? "true" : "false";
}

static void json_key(FILE *o, const char *key, const char *val, bool comma)
{
	fprintf(o, "%s\"%s\":", comma ? "," : "", key);
	json_str(o, val);
}

static const char *basis_name(enum probe_basis b)
{
	return b == PROBE_BASIS_CPUID ? "cpuid" : b == PROBE_BASIS_KLOG ? "kernel-log" : NULL;
}

/* "" or " (from the kernel log)": every fact the log stood in for says so. */
static const char *from(enum probe_basis b)
{
	return b == PROBE_BASIS_KLOG ? " (from the kernel log)" : "";
}

static const char *source_name(const struct report *r)
{
	return r->snapshot ? "snapshot" : r->dmesg ? "kernel-log" : "live";
}

static void json_machine(FILE *o, const struct report *r)
{
	const struct probe_machine *m = &r->m;
	if (!m->source) {
		fputs(",\"machine\":null", o);
		return;
	}
	fputs(",\"machine\":{", o);
	json_key(o, "source", m->source, false);
	json_key(o, "sys_vendor", m->sys_vendor[0] ? m->sys_vendor : NULL, true);
	json_key(o, "product_name", m->product_name[0] ? m->product_name : NULL, true);
	json_key(o, "product_version", m->product_version[0] ? m->product_version : NULL, true);
	json_key(o, "system", m->system, true);
	json_key(o, "words", m->words, true);
	fputs("}", o);
}

static void json_lines(FILE *o, const char *key, char lines[][PROBE_QUOTE_LEN], unsigned n)
{
	fprintf(o, ",\"%s\":[", key);
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? "," : "", o);
		json_str(o, lines[i]);
	}
	fputs("]", o);
}

static void json_report(FILE *o, const struct report *r)
{
	const struct probe_cpu *c = &r->v.cpu;
	const struct probe_facts *f = &r->f;
	const struct probe_boot *b = &f->klog.boot;
	/* schema: bumped when a key changes meaning or goes away (README). */
	fprintf(o, "{\"schema\":%d,\"hazard\":%s", PMUGUARD_JSON_SCHEMA, yes(r->v.hazard));
	json_key(o, "state", probe_state_name(r->v.state), true);
	json_key(o, "reason", r->v.reason, true);
	json_key(o, "basis", basis_name(r->v.basis), true);
	json_key(o, "guard_state", probe_state_name(r->v.guard_state), true);
	json_key(o, "source", source_name(r), true);
	json_key(o, "snapshot", r->snapshot, true);
	json_key(o, "dmesg", r->dmesg, true);
	json_machine(o, r);
	fprintf(o, ",\"cpu\":{\"known\":%s", yes(c->known));
	json_key(o, "source", basis_name(c->basis), true);
	json_key(o, "vendor", c->known ? c->vendor : NULL, true);
	fprintf(o, ",\"family\":%u,\"model\":%u,\"stepping\":%u,\"hypervisor\":%s", c->family,
		c->model, c->stepping, yes(c->hypervisor));
	json_key(o, "hypervisor_vendor", c->hypervisor && c->hv_vendor[0] ? c->hv_vendor : NULL,
		 true);
	json_key(o, "hypervisor_name", c->hypervisor && c->hv_name[0] ? c->hv_name : NULL, true);
	json_key(o, "guest_because", c->guest_because, true);
	fprintf(o, ",\"hybrid\":%s}", yes(c->hybrid));
	fprintf(o, ",\"perfmon\":{\"known\":%s", yes(c->leaf_a_known));
	json_key(o, "source", basis_name(c->perfmon_basis), true);
	fprintf(o, ",\"version\":%u,\"gp_counters\":%u,\"fixed_counters\":%u,\"fixed_bitmap\":%u}",
		c->pmu_version, c->gp_counters, c->fixed_counters, c->fixed_bitmap);
	fprintf(o, ",\"fixed3_advertised\":%s,\"perf_metrics\":{\"proven\":%s",
		yes(r->v.fixed3_advertised), yes(r->v.perf_metrics_proven));
	json_key(o, "source", r->v.metrics_source, true);
	fprintf(o, "},\"kernel_log\":{\"readable\":%s", yes(f->known & PROBE_KNOWN_KLOG));
	json_key(o, "error", f->klog_err ? err_text(f->klog_err) : NULL, true);
	if (f->klog.mask_seen)
		fprintf(o, ",\"mask\":\"0x%016" PRIx64 "\"", f->klog.mask);
	else
		fputs(",\"mask\":null", o);
	fprintf(o, ",\"perf_metrics_bit\":%s", yes(f->klog.perf_metrics_bit));
	if (f->klog.pmu_driver_seen)
		fprintf(o, ",\"pmu_block_anchored\":%s", yes(f->klog.pmu_block_anchored));
	else
		fputs(",\"pmu_block_anchored\":null", o);
	const struct probe_klog_ignored *ig = &f->klog.ignored;
	fprintf(o,
		",\"ignored\":{\"count\":%u,\"not_at_record_start\":%u,\"malformed\":%u,"
		"\"other_facility\":%u,\"outside_block\":%u,\"banner\":%u}",
		ig->not_at_start + ig->malformed + ig->other_facility + ig->outside_block + ig->banner,
		ig->not_at_start, ig->malformed, ig->other_facility, ig->outside_block, ig->banner);
	json_key(o, "kernel", b->kernel_release[0] ? b->kernel_release : NULL, true);
	json_key(o, "hypervisor", b->hypervisor[0] ? b->hypervisor : NULL, true);
	json_key(o, "dmi", b->dmi[0] ? b->dmi : NULL, true);
	fputs(",\"msr_errors\":[", o);
	for (unsigned i = 0; i < b->n_msr_errors; i++) {
		const struct probe_msr_error *e = &b->msr_errors[i];
		char name[96];
		fprintf(o, "%s{\"msr\":\"0x%x\",\"access\":\"%s\"", i ? "," : "", e->msr,
			e->write ? "write" : "read");
		json_key(o, "name", findings_msr_name(e->msr, name, sizeof(name)), true);
		if (e->value_seen)
			fprintf(o, ",\"value\":\"0x%016" PRIx64 "\"}", e->value);
		else
			fputs(",\"value\":null}", o);
	}
	fputs("]", o);
	json_lines(o, "pmu_lines", (char(*)[PROBE_QUOTE_LEN])r->e.klog_lines, r->e.n_klog_lines);
	json_lines(o, "boot_lines", (char(*)[PROBE_QUOTE_LEN])r->e.boot_lines, r->e.n_boot_lines);
	fputs("}", o);
	if (r->msr_asked) {
		fputs(",\"msr\":{", o);
		if (f->msr_err)
			json_key(o, "perf_capabilities_error", err_text(f->msr_err), false);
		else
			fprintf(o, "\"perf_capabilities\":\"0x%" PRIx64 "\"", f->perf_capabilities);
		fprintf(o, ",\"fixed_ctr3_readable\":%s", yes(r->e.ctr3_err == 0));
		json_key(o, "fixed_ctr3_error", r->e.ctr3_err ? err_text(r->e.ctr3_err) : NULL,
			 true);
		fputs("}", o);
	}
	fputs(",\"pmus\":[", o);
	for (unsigned i = 0; i < f->n_pmus; i++) {
		const struct probe_pmu *p = &f->pmus[i];
		fprintf(o, "%s{", i ? "," : "");
		json_key(o, "name", p->name, false);
		fprintf(o, ",\"type\":%u,\"fixed_counters\":%u,\"perf_metrics\":%s,\"hazard\":%s,"
			   "\"slots_listed\":%s,\"topdown_listed\":[",
			p->type, c->fixed_counters, yes(r->v.perf_metrics_proven),
			yes(r->v.hazard), yes(p->slots_listed));
		for (unsigned m = 0, n = 0; m < 8; m++)
			if (p->topdown_listed & (1u << m)) {
				fputs(n++ ? "," : "", o);
				json_str(o, probe_topdown_names[m]);
			}
		fputs("]}", o);
	}
	enum plain_perf_stat pps = findings_plain_perf_stat(f, &r->v);
	fputs("],\"plain_perf_stat\":{", o);
	json_key(o, "under_deny", findings_plain_perf_stat_name(pps), false);
	json_key(o, "text", pps ? findings_plain_perf_stat_text(pps) : NULL, true);
	fputs("},\"findings\":[", o);
	for (unsigned i = 0; i < r->n_findings; i++) {
		const struct finding *x = &r->findings[i];
		fputs(i ? ",{" : "{", o);
		json_key(o, "id", x->id, false);
		json_key(o, "severity", finding_severity_name(x->severity), true);
		json_key(o, "summary", x->summary, true);
		json_key(o, "evidence", x->evidence, true);
		json_key(o, "consequence", x->consequence, true);
		json_key(o, "remedy", x->remedy, true);
		fputs("}", o);
	}
	fputs("]}\n", o);
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

static void human_facts(FILE *o, const struct report *r)
{
	const struct probe_cpu *c = &r->v.cpu;
	const struct probe_facts *f = &r->f;

	if (r->m.source)
		fprintf(o, "  Machine         %s (%s)\n", r->m.words,
			!strcmp(r->m.source, "dmi") ? "DMI" : "the kernel log's DMI line");
	if (c->known && c->fms_known) {
		fprintf(o, "  CPU             %s family %u model 0x%x stepping %u%s%s\n", c->vendor,
			c->family, c->model, c->stepping, c->hybrid ? " (hybrid)" : "", from(c->basis));
	} else if (c->known) {
		fprintf(o, "  CPU             %s, model unknown%s\n", c->vendor, from(c->basis));
	} else {
		fprintf(o, "  CPU             unknown (CPUID: %s%s)\n", err_text(f->cpuid_err),
			f->known & PROBE_KNOWN_KLOG ? "; the kernel log does not name it" : "");
	}
	if (c->hypervisor && c->guest_because)
		fprintf(o, "  Hypervisor      %s (this is a guest: %s)\n",
			c->hv_name[0] ? c->hv_name : "unnamed", c->guest_because);
	else if (c->known && c->hypervisor)
		fprintf(o, "  Hypervisor      %s (this is a guest)\n",
			c->hv_name[0] ? c->hv_name : c->hv_vendor[0] ? c->hv_vendor : "unnamed");
	else if (c->known && c->basis == PROBE_BASIS_KLOG)
		fprintf(o, "  Hypervisor      none named in the kernel log%s\n",
			f->klog.boot.bare_hardware ? " (\"bare hardware\")" : "");
	else if (c->known)
		fprintf(o, "  Hypervisor      none (bare metal)\n");
	if (c->leaf_a_known && c->pmu_off)
		fprintf(o, "  Perfmon         no PMU driver (from the kernel log)\n");
	else if (c->leaf_a_known)
		fprintf(o, "  Perfmon         version %u, %u general-purpose, %u fixed counters%s\n",
			c->pmu_version, c->gp_counters, c->fixed_counters, from(c->perfmon_basis));
	else if (c->known)
		fprintf(o, "  Perfmon         unknown (CPUID leaf 0xA not available)\n");
	if (c->pmu_version >= 5 && c->perfmon_basis == PROBE_BASIS_CPUID)
		fprintf(o, "  Fixed bitmap    0x%x (CPUID.0AH ECX)\n", c->fixed_bitmap);
	else if (c->perfmon_basis == PROBE_BASIS_KLOG && f->klog.fixed_bitmap_seen)
		fprintf(o, "  Fixed bitmap    0x%x (from the kernel log)\n", c->fixed_bitmap);
	if (c->leaf_a_known && !c->pmu_off && c->perfmon_basis == PROBE_BASIS_KLOG)
		fprintf(o, "  Fixed counter 3 %s\n",
			r->v.fixed3_advertised ? "in the PMU driver's block (from the kernel log)"
					       : "not in the PMU driver's block (from the kernel log)");
	else if (c->leaf_a_known && c->pmu_version > 0)
		fprintf(o, "  Fixed counter 3 %s\n",
			r->v.fixed3_advertised ? "advertised by CPUID.0AH" : "not advertised");
	if (r->v.perf_metrics_proven)
		fprintf(o, "  Perf metrics    proven by %s\n", r->v.metrics_source);
	else
		fprintf(o, "  Perf metrics    not proven\n");
	if (!(f->known & PROBE_KNOWN_KLOG))
		fprintf(o, "  Kernel log      unreadable (%s)\n", err_text(f->klog_err));
	else if (f->klog.mask_seen)
		fprintf(o, "  Kernel log      PMU mask 0x%016" PRIx64 " (bit 48 %s)%s\n", f->klog.mask,
			f->klog.perf_metrics_bit ? "set" : "clear",
			f->klog.pmu_block_anchored ? ""
						   : ", not proof: the log does not hold the start of "
						     "the block's boot");
	else
		fprintf(o, "  Kernel log      no PMU mask line\n");
	const struct probe_klog_ignored *ig = &f->klog.ignored;
	unsigned ignored =
		ig->not_at_start + ig->malformed + ig->other_facility + ig->outside_block + ig->banner;
	if (f->known & PROBE_KNOWN_KLOG && ignored) {
		fprintf(o, "  Kernel log      %u record%s with the PMU driver's marks not read as its "
			   "block:",
			ignored, ignored == 1 ? "" : "s");
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
	if (r->msr_asked) {
		if (f->msr_err)
			fprintf(o, "  MSR 0x345       unreadable (%s)\n", err_text(f->msr_err));
		else
			fprintf(o, "  MSR 0x345       0x%" PRIx64 " (PERF_METRICS bit 15 %s)\n",
				f->perf_capabilities,
				(f->perf_capabilities >> 15) & 1 ? "set" : "clear");
		fprintf(o, "  MSR 0x30c       IA32_FIXED_CTR3 %s\n",
			r->e.ctr3_err ? err_text(r->e.ctr3_err) : "reads (not proof that it counts)");
	}
	for (unsigned i = 0; i < f->klog.boot.n_msr_errors; i++) {
		const struct probe_msr_error *e = &f->klog.boot.msr_errors[i];
		char name[96];
		fprintf(o, "  MSR rejected    %s 0x%x, %s (from the kernel log)\n",
			e->write ? "WRMSR to" : "RDMSR from", e->msr,
			findings_msr_name(e->msr, name, sizeof(name)));
	}
	if (f->log_only)
		fprintf(o, "  Core PMUs       not read (only a kernel log was given)\n");
	else if (!(f->known & PROBE_KNOWN_SYSFS))
		fprintf(o, "  Core PMUs       unknown (sysfs: %s)\n", err_text(f->sysfs_err));
	else if (f->n_pmus == 0)
		fprintf(o, "  Core PMUs       none in sysfs\n");
	for (unsigned i = 0; i < f->n_pmus; i++) {
		const struct probe_pmu *p = &f->pmus[i];
		fprintf(o, "  Core PMU        %s (perf type %u): slots %s, %d topdown-* listed\n",
			p->name, p->type, p->slots_listed ? "listed" : "not listed",
			__builtin_popcount(p->topdown_listed));
		if (r->e.slots[i][0])
			fprintf(o, "                  events/slots: %s\n", r->e.slots[i]);
	}
	if (r->e.n_klog_lines && !f->klog.pmu_block_anchored) {
		fprintf(o, "\n  The kernel log's PMU block (the log does not hold the start of its "
			   "boot: it cannot be told from lines a user wrote):\n");
		for (unsigned i = 0; i < r->e.n_klog_lines; i++)
			fprintf(o, "    %s\n", r->e.klog_lines[i]);
	} else if (r->e.n_klog_lines) {
		fprintf(o, "\n  The PMU driver said at boot:\n");
		for (unsigned i = 0; i < r->e.n_klog_lines; i++)
			fprintf(o, "    %s\n", r->e.klog_lines[i]);
	}
	if (r->e.n_boot_lines) {
		fprintf(o, "\n  The kernel log also said:\n");
		for (unsigned i = 0; i < r->e.n_boot_lines; i++)
			fprintf(o, "    %s\n", r->e.boot_lines[i]);
	}
}

static void human_report(FILE *o, const struct report *r)
{
	if (r->dmesg)
		fprintf(o, "pmuguard probe (kernel log %s%s%s)\n\n", r->dmesg,
			r->snapshot ? ", snapshot " : "", r->snapshot ? r->snapshot : "");
	else
		fprintf(o, "pmuguard probe (%s%s)\n\n", r->snapshot ? "snapshot " : "live",
			r->snapshot ? r->snapshot : "");
	human_facts(o, r);
	fprintf(o, "\nVerdict: %s%s\n", probe_state_name(r->v.state),
		r->v.hazard ? " (fixed counter 3 would fault this machine)" : "");
	if (r->v.basis == PROBE_BASIS_KLOG)
		fprintf(o, "  from the kernel log alone: the guard acts only on CPUID and treats "
			   "this machine as %s\n",
			probe_state_name(r->v.guard_state));
	enum plain_perf_stat pps = findings_plain_perf_stat(&r->f, &r->v);
	if (pps)
		fprintf(o, "  plain `perf stat` under slots = deny: %s\n",
			findings_plain_perf_stat_name(pps));
	fprintf(o, "\nFindings:\n");
	for (unsigned i = 0; i < r->n_findings; i++) {
		const struct finding *x = &r->findings[i];
		fprintf(o, "\n[%s] %s: %s\n", finding_severity_name(x->severity), x->id, x->summary);
		wrap(o, "Evidence", x->evidence);
		wrap(o, "Consequence", x->consequence);
		wrap(o, "Remedy", x->remedy);
	}
}

/* --dmesg FILE must be a file we can read: a typo is an error (exit 1,
 * naming it), not a report of unknown facts. */
static void require_log_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		die_errno("kernel log %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0)
		die_errno("kernel log %s", path);
	close(fd);
	if (!S_ISREG(st.st_mode))
		die("kernel log %s: not a regular file", path);
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"check", no_argument, NULL, 'c'},
		{"msr", no_argument, NULL, 'm'},
		{"snapshot", required_argument, NULL, 's'},
		{"dmesg", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false, check = false;
	struct report *r = calloc(1, sizeof(*r));
	if (!r)
		die_errno("out of memory");
	const char *cli_snapshot = NULL;
	int ch;
	while ((ch = getopt_long(argc, argv, "+jcms:d:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = true;
			break;
		case 'c':
			check = true;
			break;
		case 'm':
			r->msr_asked = true;
			break;
		case 's':
			cli_snapshot = optarg;
			break;
		case 'd':
			r->dmesg = optarg;
			break;
		case 'h':
			fputs("Usage: pmuguard probe [--json] [--check] [--msr] [--snapshot DIR] "
			      "[--dmesg FILE]\n"
			      "\n"
			      "What this machine's PMU really implements, in plain words: the facts,\n"
			      "the verdict, and findings with cause, consequence and remedy.\n"
			      "  --json           one JSON object (README: the keys, schema 2)\n"
			      "  --check          exit 3 where the fixed-counter-3 hazard is present\n"
			      "  --msr            show IA32_PERF_CAPABILITIES and IA32_FIXED_CTR3 (root,\n"
			      "                   the msr module; reads only)\n"
			      "  --snapshot DIR   read the facts from a snapshot (pmuguard snapshot)\n"
			      "  --dmesg FILE     diagnose from a kernel log alone (or with --snapshot)\n"
			      "\n"
			      "Exit: 0 report printed; 3 hazard (--check); 1 internal error; 2 usage.\n",
			      stdout);
			free(r);
			return EXIT_OK;
		default:
			die_bad_option("probe", argv, "jcms:d:h");
		}
	}
	if (optind < argc)
		die_usage("probe: unexpected argument '%s'", argv[optind]);
	/* The facts the guard would read: --snapshot, PMUGUARD_SNAPSHOT, the
	 * policy file's snapshot, else this machine, under its lock. */
	struct guard_cli cli = {.mode = -1, .snapshot = cli_snapshot};
	struct guard_settings set;
	cli_settings(&set, &cli, false, NULL);
	r->snapshot = set.snapshot;
	if (r->snapshot && r->msr_asked)
		die_usage("probe: --msr reads this machine; it cannot go with a snapshot");
	if (r->dmesg && r->msr_asked)
		die_usage("probe: --msr reads this machine; it cannot go with --dmesg");
	if (r->dmesg && !*r->dmesg)
		die_usage("probe: --dmesg needs a file");

	if (r->snapshot)
		require_snapshot_dir(r->snapshot);
	if (r->dmesg)
		require_log_file(r->dmesg);
	probe_gather_report(&r->f, &r->e, r->snapshot, r->dmesg);
	probe_evaluate(&r->f, &r->v);
	probe_machine_build(&r->f, &r->m);
	r->n_findings = findings_build(&r->f, &r->v, r->findings);
	/* The gather read the MSRs (live); --msr shows them. */
	if (r->msr_asked && (r->f.msr_err == -ENOENT || r->e.ctr3_err == -ENOENT))
		fprintf(stderr, "pmuguard: /dev/cpu/0/msr is missing: `modprobe msr` first\n");

	if (json)
		json_report(stdout, r);
	else
		human_report(stdout, r);
	int rc = check && r->v.hazard ? EXIT_HAZARD : EXIT_OK;
	free(r);
	if (fflush(stdout) != 0)
		die_errno("writing the report");
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard probe: the machine's PMU in plain words, or as one JSON object.
 * One result model (facts + verdict), two renderings.
 */
#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "cli.h"
#include "probe.h"

struct report {
	const char *snapshot;
	struct probe_facts f;
	struct probe_verdict v;
};

void json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
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

static void json_report(FILE *o, const struct report *r)
{
	const struct probe_cpu *c = &r->v.cpu;
	const struct probe_facts *f = &r->f;
	fprintf(o, "{\"hazard\":%s,\"state\":", yes(r->v.hazard));
	json_str(o, probe_state_name(r->v.state));
	fputs(",\"reason\":", o);
	json_str(o, r->v.reason);
	fputs(",\"source\":", o);
	json_str(o, r->snapshot ? "snapshot" : "live");
	fputs(",\"snapshot\":", o);
	json_str(o, r->snapshot);
	fprintf(o, ",\"cpu\":{\"known\":%s,\"vendor\":", yes(c->known));
	json_str(o, c->known ? c->vendor : NULL);
	fprintf(o, ",\"family\":%u,\"model\":%u,\"stepping\":%u,\"hypervisor\":%s,"
		   "\"hypervisor_vendor\":",
		c->family, c->model, c->stepping, yes(c->hypervisor));
	json_str(o, c->hypervisor ? c->hv_vendor : NULL);
	fprintf(o, ",\"hybrid\":%s}", yes(c->hybrid));
	fprintf(o, ",\"perfmon\":{\"known\":%s,\"version\":%u,\"gp_counters\":%u,"
		   "\"fixed_counters\":%u,\"fixed_bitmap\":%u}",
		yes(c->leaf_a_known), c->pmu_version, c->gp_counters, c->fixed_counters,
		c->fixed_bitmap);
	fprintf(o, ",\"fixed3_advertised\":%s,\"perf_metrics\":{\"proven\":%s,\"source\":",
		yes(r->v.fixed3_advertised), yes(r->v.perf_metrics_proven));
	json_str(o, r->v.metrics_source);
	fprintf(o, "},\"kernel_log\":{\"readable\":%s,\"error\":",
		yes(f->known & PROBE_KNOWN_KLOG));
	json_str(o, f->klog_err ? err_text(f->klog_err) : NULL);
	if (f->klog.mask_seen)
		fprintf(o, ",\"mask\":\"0x%016" PRIx64 "\"", f->klog.mask);
	else
		fputs(",\"mask\":null", o);
	fprintf(o, ",\"perf_metrics_bit\":%s}", yes(f->klog.perf_metrics_bit));
	fputs(",\"pmus\":[", o);
	for (unsigned i = 0; i < f->n_pmus; i++) {
		const struct probe_pmu *p = &f->pmus[i];
		fprintf(o, "%s{\"name\":", i ? "," : "");
		json_str(o, p->name);
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
	fputs("]}\n", o);
}

static void human_report(FILE *o, const struct report *r)
{
	const struct probe_cpu *c = &r->v.cpu;
	const struct probe_facts *f = &r->f;

	fprintf(o, "pmuguard probe (%s%s)\n\n", r->snapshot ? "snapshot " : "live",
		r->snapshot ? r->snapshot : "");
	if (c->known) {
		fprintf(o, "  CPU             %s family %u model 0x%x stepping %u%s\n", c->vendor,
			c->family, c->model, c->stepping, c->hybrid ? " (hybrid)" : "");
		if (c->hypervisor)
			fprintf(o, "  Hypervisor      %s (this is a guest)\n",
				c->hv_vendor[0] ? c->hv_vendor : "unnamed");
		else
			fprintf(o, "  Hypervisor      none (bare metal)\n");
	} else {
		fprintf(o, "  CPU             unknown (CPUID: %s)\n", err_text(f->cpuid_err));
	}
	if (c->leaf_a_known)
		fprintf(o, "  Perfmon         version %u, %u general-purpose counters, %u fixed "
			   "counters%s\n",
			c->pmu_version, c->gp_counters, c->fixed_counters,
			c->pmu_version >= 5 ? "" : " (no fixed-counter bitmap before version 5)");
	else
		fprintf(o, "  Perfmon         unknown (CPUID leaf 0xA not available)\n");
	if (c->pmu_version >= 5)
		fprintf(o, "  Fixed bitmap    0x%x (CPUID.0AH ECX)\n", c->fixed_bitmap);
	fprintf(o, "  Fixed counter 3 %s\n",
		r->v.fixed3_advertised ? "advertised by CPUID.0AH" : "not advertised");
	fprintf(o, "  Perf metrics    %s%s%s\n", r->v.perf_metrics_proven ? "proven by " : "not proven",
		r->v.perf_metrics_proven ? r->v.metrics_source : "",
		r->v.perf_metrics_proven ? "" : " (neither the kernel log nor MSR 0x345 shows it)");
	if (f->known & PROBE_KNOWN_KLOG) {
		if (f->klog.mask_seen)
			fprintf(o, "  Kernel log      PMU mask 0x%016" PRIx64 " (bit 48 %s)\n",
				f->klog.mask, f->klog.perf_metrics_bit ? "set" : "clear");
		else
			fprintf(o, "  Kernel log      readable, but holds no PMU mask line "
				   "(rotated out, or no PMU driver)\n");
	} else {
		fprintf(o, "  Kernel log      unreadable (%s)\n", err_text(f->klog_err));
	}
	if (!(f->known & PROBE_KNOWN_SYSFS))
		fprintf(o, "  Core PMUs       unknown (sysfs: %s)\n", err_text(f->sysfs_err));
	else if (f->n_pmus == 0)
		fprintf(o, "  Core PMUs       none in sysfs (no hardware PMU driver)\n");
	for (unsigned i = 0; i < f->n_pmus; i++) {
		const struct probe_pmu *p = &f->pmus[i];
		fprintf(o, "  Core PMU        %s (type %u): slots %s, %d topdown-* events listed\n",
			p->name, p->type, p->slots_listed ? "listed" : "not listed",
			__builtin_popcount(p->topdown_listed));
	}
	fprintf(o, "\nVerdict: %s\n  %s.\n", probe_state_name(r->v.state), r->v.reason);
	if (r->v.hazard)
		fprintf(o, "\n  Opening TOPDOWN.SLOTS (raw 0x0400) or a topdown metric here would\n"
			   "  fault the kernel and hang every later perf user. Run perf tools\n"
			   "  under the guard:  pmuguard run -- perf stat ...\n"
			   "  (blocked events then show as <not supported>).\n");
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"check", no_argument, NULL, 'c'},
		{"snapshot", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false, check = false;
	struct report *r = calloc(1, sizeof(*r));
	if (!r)
		die_errno("out of memory");
	r->snapshot = getenv("PMUGUARD_SNAPSHOT");
	if (r->snapshot && !*r->snapshot)
		r->snapshot = NULL;
	int ch;
	while ((ch = getopt_long(argc, argv, "+jcs:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = true;
			break;
		case 'c':
			check = true;
			break;
		case 's':
			r->snapshot = optarg;
			break;
		case 'h':
			puts("Usage: pmuguard probe [--json] [--check] [--snapshot DIR]");
			free(r);
			return EXIT_OK;
		default:
			die_usage("probe: bad option");
		}
	}
	if (optind < argc)
		die_usage("probe: unexpected argument '%s'", argv[optind]);

	struct stat st;
	errno = 0;
	if (r->snapshot && (stat(r->snapshot, &st) < 0 || !S_ISDIR(st.st_mode)))
		die("snapshot %s: %s", r->snapshot,
		    errno ? strerror(errno) : "not a directory");
	probe_gather(&r->f, r->snapshot);
	probe_evaluate(&r->f, &r->v);
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

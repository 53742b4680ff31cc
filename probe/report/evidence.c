// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "evidence.h"

static void quote(void *ctx, const char *line, size_t len, enum probe_klog_kind kind,
		  bool new_block)
{
	struct probe_evidence *e = ctx;
	bool pmu = kind == PROBE_KLOG_PMU;
	unsigned *count = pmu ? &e->n_klog_lines : &e->n_boot_lines;
	if (new_block) {
		*count = 0; /* a later boot starts over */
		if (!pmu)
			e->n_klog_lines = 0;
	}
	if (*count >= PROBE_QUOTE_LINES)
		return;
	char *dst = pmu ? e->klog_lines[(*count)++] : e->boot_lines[(*count)++];
	/* As the log has it: every renderer escapes what it prints (the one
	 * rule, log_plain_len()), so a quote keeps its UTF-8 and shows its
	 * control bytes as \xHH.  Only a NUL, which would end the string and
	 * hide the rest of the line, is kept as '?'. */
	size_t n = len < PROBE_QUOTE_LEN - 1 ? len : PROBE_QUOTE_LEN - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = line[i] ? line[i] : '?';
	dst[n] = '\0';
}

/* What a PMU's events/<name> file encodes, through its format/ files:
 * "event=0x00,umask=0x4 -> config 0x400". */
static bool describe_event(const char *devices, const char *pmu, const char *name, char *out,
			   size_t size)
{
	char dir[PROBE_PATH_MAX], path[PROBE_PATH_MAX], text[256];
	long tlen;
	if (snprintf(dir, sizeof(dir), "%s/%s", devices, pmu) >= (int)sizeof(dir) ||
	    snprintf(path, sizeof(path), "%s/events/%s", dir, name) >= (int)sizeof(path) ||
	    (tlen = probe_read_small(path, text, sizeof(text))) <= 0)
		return false;
	struct probe_event ev;
	if (probe_event_parse(text, (size_t)tlen, &ev) < 0) {
		snprintf(out, size, "%s (not understood)", text);
		return true;
	}
	struct probe_named_format fmts[PROBE_EVENT_TERMS];
	for (unsigned i = 0; i < ev.n_terms; i++) {
		char ftext[128];
		long flen = -1;
		fmts[i].name = ev.terms[i].name;
		if (snprintf(path, sizeof(path), "%s/format/%s", dir, ev.terms[i].name) >=
			    (int)sizeof(path) ||
		    (flen = probe_read_small(path, ftext, sizeof(ftext))) <= 0 ||
		    probe_format_parse(ftext, (size_t)flen, &fmts[i].format) < 0) {
			snprintf(out, size, "%s (no format for %s)", text, ev.terms[i].name);
			return true;
		}
	}
	uint64_t cfg[4];
	if (probe_event_config(&ev, fmts, ev.n_terms, cfg) < 0)
		snprintf(out, size, "%s (does not fit its formats)", text);
	else
		snprintf(out, size, "%s -> config 0x%" PRIx64, text, cfg[0]);
	return true;
}

void probe_gather_report(struct probe_facts *f, struct probe_evidence *e, const char *snapshot,
			 const char *dmesg)
{
	memset(e, 0, sizeof(*e));
	const struct probe_klog_sink sink = {quote, e};
	if (dmesg)
		probe_gather_with_log(f, snapshot, dmesg, &sink);
	else
		probe_gather(f, snapshot, &sink);

	char devices[PROBE_PATH_MAX];
	if (snapshot && !probe_join(devices, sizeof(devices), snapshot,
				    "sys/bus/event_source/devices"))
		devices[0] = '\0';
	else if (!snapshot && !f->log_only)
		snprintf(devices, sizeof(devices), "%s", PROBE_SYSFS_DEVICES);
	else if (!snapshot)
		devices[0] = '\0';
	for (unsigned i = 0; i < f->n_pmus && devices[0]; i++)
		if (f->pmus[i].slots_listed &&
		    !describe_event(devices, f->pmus[i].name, "slots", e->slots[i], sizeof(e->slots[i])))
			e->slots[i][0] = '\0';

	/* Reads only, through the msr driver's rdmsr_safe_on_cpu(): an MSR
	 * that does not exist comes back as EIO, it cannot fault. */
	e->live = !snapshot && !f->log_only;
	e->ctr3_err = e->live ? probe_msr_read(0, PROBE_MSR_FIXED_CTR3, &e->ctr3) : -ENODATA;
}

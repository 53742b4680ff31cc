// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pmuguard run --audit`: what every perf_event_open of the tree would
 * meet, from the supervisor's table (supervise.h).  One walk of the rows
 * (audit_row_judge) gives both forms: the table people read, on stderr,
 * and the document (--json, --keys) through the command's one writer
 * (../doc/), on stderr too, after the whole tree ended: stdout is CMD's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "classify.h"
#include "policy.h"
#include "supervise.h"

/* The document's schema: raised when a key changes meaning or goes away. */
#define RUN_AUDIT_SCHEMA 1

/* What one row of the table met, as data and in words. */
struct audit_row_view {
	const char *pmu; /* "hardware", "cpu", "type 12" */
	char event[8], umask[8];
	const char *decision; /* data: allowed, denied, would-be-denied, ... */
	const char *words;    /* the same, for people */
	const char *hit;      /* what it would reach, or NULL */
	char pmu_buf[32];
};

static const char *pmu_name(const struct probe_facts *f, uint32_t type, char *buf, size_t size)
{
	static const char *const fixed[] = {"hardware", "software", "tracepoint",
					    "hw_cache", "raw",      "breakpoint"};
	if (type < sizeof(fixed) / sizeof(fixed[0]))
		return fixed[type];
	for (unsigned i = 0; f && i < f->n_pmus; i++)
		if (f->pmus[i].type == type)
			return f->pmus[i].name;
	snprintf(buf, size, "type %u", type);
	return buf;
}

static void audit_row_judge(const struct sup_audit_row *r, const struct sup_options *o,
			    struct audit_row_view *v)
{
	const struct guard_policy *p = &o->view;
	v->pmu = pmu_name(o->facts, r->type, v->pmu_buf, sizeof(v->pmu_buf));
	snprintf(v->event, sizeof(v->event), "-");
	snprintf(v->umask, sizeof(v->umask), "-");
	if (guard_core_type(p, r->type)) {
		snprintf(v->event, sizeof(v->event), "0x%02x", (unsigned)(r->config & 0xff));
		snprintf(v->umask, sizeof(v->umask), "0x%02x", (unsigned)((r->config >> 8) & 0xff));
	}
	if (r->in_process && r->hit != GUARD_HIT_NONE) {
		v->decision = "preload-answered";
		v->words = "answered in the process by the preload";
	} else if (r->in_process) {
		v->decision = "preload-allowed";
		v->words = "answered in the process by the preload (allowed here)";
	} else if (r->hit == GUARD_HIT_NONE) {
		v->decision = v->words = "allowed";
	} else if (r->denied) {
		v->decision = v->words = "denied";
	} else if (p->watch) {
		v->decision = "would-be-denied";
		v->words = "would be denied";
	} else {
		v->decision = "allowed-here";
		v->words = "allowed here; would be denied on an affected machine";
	}
	v->hit = r->hit ? guard_hit_name(r->hit, r->config) : NULL;
}

/* The answer to the audit's question: yes, no, unknown; and why "no" may
 * mean nothing was opened at all. */
static const char *audit_answer(const struct sup_audit *a, bool *opened)
{
	bool reached = false;
	for (unsigned i = 0; i < a->n_rows; i++)
		reached |= a->rows[i].hit != GUARD_HIT_NONE;
	*opened = a->n_rows || a->unreadable || a->refused;
	return reached ? "yes" : a->refused ? "unknown" : "no";
}

static void audit_text(const struct sup_audit *a, const struct sup_options *o)
{
	fprintf(stderr, "\npmuguard audit: %u distinct perf_event_open encodings (facts: %s)\n",
		a->n_rows, o->facts_src);
	fprintf(stderr, "  %-11s %5s  %-18s %5s %5s %6s  %s\n", "PMU", "type", "config", "event",
		"umask", "calls", "decision");
	for (unsigned i = 0; i < a->n_rows; i++) {
		const struct sup_audit_row *r = &a->rows[i];
		struct audit_row_view v;
		audit_row_judge(r, o, &v);
		fprintf(stderr, "  %-11s %5u  0x%-16" PRIx64 " %5s %5s %6lu  %s%s%s\n", v.pmu,
			r->type, r->config, v.event, v.umask, r->calls, v.words, v.hit ? ": " : "",
			v.hit ? v.hit : "");
	}
	if (a->unreadable)
		fprintf(stderr,
			"  (%lu calls with an unreadable attr went to the kernel, which "
			"answers EFAULT)\n",
			a->unreadable);
	if (a->refused) {
		fprintf(stderr,
			"  (%lu calls whose attr the supervisor was refused to read (%s): "
			"%lu denied, failing closed)\n",
			a->refused, strerror(a->refused_err), a->refused_denied);
	}
	if (a->rows_full)
		fprintf(stderr, "  (more than %d distinct encodings: the rest are not listed)\n",
			SUP_AUDIT_MAX);
	/* "no" for a run that opened nothing (a command not found, say) is
	 * true, and must not read as a verdict on the tool. */
	bool opened;
	const char *answer = audit_answer(a, &opened);
	if (!strcmp(answer, "unknown"))
		answer = "unknown (some attrs could not be read)";
	else if (!opened)
		answer = "no (it made no perf_event_open call: if the command did not run, "
			 "it says why above)";
	fprintf(stderr,
		"This run would have reached an unimplemented fixed counter (3-6) on an affected "
		"machine: %s\n",
		answer);
}

struct audit_doc {
	const struct sup_audit *a;
	const struct sup_options *o;
};

static void audit_walk(const struct doc_sink *s, const void *arg)
{
	const struct audit_doc *d = arg;
	const struct sup_audit *a = d->a;
	doc_open_head(s, RUN_AUDIT_SCHEMA, PMUGUARD_VERSION);
	doc_str(s, "facts", d->o->facts_src);
	bool opened;
	doc_str(s, "reached", audit_answer(a, &opened));
	doc_bool(s, "opened", opened);
	doc_open(s, "encodings", true);
	for (unsigned i = 0; i < a->n_rows; i++) {
		const struct sup_audit_row *r = &a->rows[i];
		struct audit_row_view v;
		audit_row_judge(r, d->o, &v);
		doc_open(s, NULL, false);
		doc_str(s, "pmu", v.pmu);
		doc_uint(s, "type", r->type);
		doc_hex(s, "config", false, r->config);
		doc_str(s, "event", strcmp(v.event, "-") ? v.event : NULL);
		doc_str(s, "umask", strcmp(v.umask, "-") ? v.umask : NULL);
		doc_uint(s, "calls", r->calls);
		doc_str(s, "decision", v.decision);
		doc_str(s, "hit", v.hit);
		doc_end(s);
	}
	doc_end(s);
	doc_bool(s, "encodings_complete", !a->rows_full);
	doc_uint(s, "unreadable", a->unreadable);
	doc_uint(s, "refused", a->refused);
	doc_uint(s, "refused_denied", a->refused_denied);
	doc_str(s, "refused_error", a->refused ? strerror(a->refused_err) : NULL);
	doc_end(s);
}

void run_audit_print(enum doc_form form, const struct sup_audit *a, const struct sup_options *o)
{
	const struct audit_doc d = {a, o};
	fflush(stderr);
	if (form == DOC_FORM_TEXT)
		audit_text(a, o);
	else
		doc_write(stderr, form, audit_walk, &d);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one decision of `pmuguard status`, a pure function of the model: the
 * verdict, which layer was seen to guard the host, whether events escape
 * it, and the exit code (LSB's status actions).  No I/O.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

static bool is(const char *v, const char *want)
{
	return v && strcmp(v, want) == 0;
}

bool status_digits(const char *s)
{
	return s && *s && strspn(s, "0123456789") == strlen(s);
}

/* An encoding as enforce status writes it: 0x and at most 16 hex digits. */
static bool hex_config(const char *s)
{
	return s && strncmp(s, "0x", 2) == 0 && s[2] && strlen(s) <= 18 &&
	       strspn(s + 2, "0123456789abcdef") == strlen(s + 2);
}

static int by_kenc(const void *a, const void *b)
{
	const struct status_kenc *x = a, *y = b;
	/* As sort(1) orders "DECISION TYPE CONFIG N" lines. */
	char l[64], r[64];
	snprintf(l, sizeof(l), "%s %" PRIu32 " %s %" PRIu64, x->decision, x->pmu_type, x->config,
		 x->calls);
	snprintf(r, sizeof(r), "%s %" PRIu32 " %s %" PRIu64, y->decision, y->pmu_type, y->config,
		 y->calls);
	return strcmp(l, r);
}

/* Per (decision, PMU type, encoding), summed over uids; the encoding as
 * 0x%x, as the preload's reports name it (one spelling of a label value,
 * whichever layer counted it). */
static void kernel_encodings(struct status_decision *d, const struct status_kv *kv)
{
	unsigned n = status_kv_count(kv, "by_encoding");
	d->kenc = calloc(n ? n : 1, sizeof(*d->kenc));
	if (!d->kenc)
		return;
	for (unsigned i = 0; i < n; i++) {
		const char *dec = status_kv_row(kv, "by_encoding", i, "decision");
		const char *ty = status_kv_row(kv, "by_encoding", i, "pmu_type");
		const char *cfg = status_kv_row(kv, "by_encoding", i, "config");
		const char *calls = status_kv_row(kv, "by_encoding", i, "calls");
		if (!(is(dec, "denied") || is(dec, "audited")) || !status_digits(ty) ||
		    !status_digits(calls) || !hex_config(cfg))
			continue;
		struct status_kenc k = {0};
		snprintf(k.decision, sizeof(k.decision), "%s", dec);
		k.pmu_type = (uint32_t)strtoul(ty, NULL, 10);
		snprintf(k.config, sizeof(k.config), "0x%llx", strtoull(cfg, NULL, 16));
		uint64_t c = strtoull(calls, NULL, 10);
		unsigned j = 0;
		for (; j < d->n_kenc; j++)
			if (!strcmp(d->kenc[j].decision, k.decision) &&
			    d->kenc[j].pmu_type == k.pmu_type &&
			    !strcmp(d->kenc[j].config, k.config))
				break;
		if (j == d->n_kenc)
			d->kenc[d->n_kenc++] = k;
		d->kenc[j].calls += c;
	}
	qsort(d->kenc, d->n_kenc, sizeof(*d->kenc), by_kenc);
}

static int by_calls(const void *a, const void *b)
{
	const struct status_kprog *x = a, *y = b;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	int c = strcmp(x->program, y->program);
	return c ? c : strcmp(x->config, y->config);
}

/* Who the kernel guard denied, by program, from its own map: exact and
 * written by the kernel (bpf_get_current_comm), unlike a journal entry,
 * so it names the kernel layer's blocks where the follower does not run.
 * The map keeps the last program of each (uid, encoding) only. */
static void kernel_programs(struct status_decision *d, const struct status_kv *kv)
{
	unsigned n = status_kv_count(kv, "by_encoding");
	d->kprogs = calloc(n ? n : 1, sizeof(*d->kprogs));
	if (!d->kprogs)
		return;
	for (unsigned i = 0; i < n; i++) {
		const char *dec = status_kv_row(kv, "by_encoding", i, "decision");
		const char *uid = status_kv_row(kv, "by_encoding", i, "uid");
		const char *cfg = status_kv_row(kv, "by_encoding", i, "config");
		const char *calls = status_kv_row(kv, "by_encoding", i, "calls");
		const char *comm = status_kv_row(kv, "by_encoding", i, "last_comm");
		if (!is(dec, "denied") || !status_digits(uid) || !status_digits(calls) || !comm ||
		    !*comm || !hex_config(cfg))
			continue;
		struct status_kprog *k = &d->kprogs[d->n_kprogs++];
		snprintf(k->program, sizeof(k->program), "%s", comm);
		k->uid = strtoull(uid, NULL, 10);
		snprintf(k->config, sizeof(k->config), "0x%llx", strtoull(cfg, NULL, 16));
		k->calls = strtoull(calls, NULL, 10);
	}
	qsort(d->kprogs, d->n_kprogs, sizeof(*d->kprogs), by_calls);
	if (d->n_kprogs > STATUS_LABELS_MAX)
		d->n_kprogs = STATUS_LABELS_MAX;
}

void status_decide(struct status_decision *d, const struct status_model *m)
{
	memset(d, 0, sizeof(*d));
	const struct status_kv *kv = &m->enf;
	/* Exit 0 of the probe also covers facts that could not be read: the
	 * guard's state "unknown" is no proof of health. */
	d->verdict = m->probe_exit == 3                              ? STATUS_HAZARD
		     : m->probe_exit == 0 && !m->probe_guard_unknown ? STATUS_SAFE
								     : STATUS_UNKNOWN;
	/* Guarded is what the self-test saw, never the pin alone: attached
	 * counts only verified and denying (audit mode counts and allows). */
	d->kernel = m->kernel;
	d->kernel_err = *m->kernel_err ? m->kernel_err : NULL;
	if (d->kernel == STATUS_K_ATTACHED && !is(status_kv_get(kv, "protects"), "true"))
		d->kernel = is(status_kv_get(kv, "verified"), "true") ? STATUS_K_AUDIT
								      : STATUS_K_UNVERIFIED;
	if (d->kernel == STATUS_K_DETACHED) {
		const char *why = status_kv_get(kv, "why");
		const char *w = status_kv_get(kv, "policy.reason");
		if (is(status_kv_get(kv, "policy.would_attach"), "true"))
			snprintf(d->kernel_why, sizeof(d->kernel_why), "%s", why ? why : "");
		else
			snprintf(d->kernel_why, sizeof(d->kernel_why),
				 "%s; the policy attaches nothing: %s", why ? why : "", w ? w : "");
		d->kernel_err = *d->kernel_why ? d->kernel_why : NULL;
	}
	const char *vwhy = status_kv_get(kv, "verification.why");
	d->verify_why = vwhy && *vwhy ? vwhy : NULL;

	/* A layer counts only where it was seen to work: the kernel guard's
	 * self-test passed; the library listed, loadable, and a canary started
	 * now as nobody was refused.  Under --root there is no process to ask:
	 * the tree's files decide by the same rules (listed as the loader
	 * parses the file, loadable as nobody, and the tree's policy file read
	 * by the guard's settings guards); what cannot be known there is
	 * unknown, never yes. */
	bool under_root = m->o->root && *m->o->root;
	enum status_policy_state tp = m->tree_policy.state;
	d->pre_guards = m->listed && m->loads &&
			(under_root ? tp == STATUS_POLICY_GUARDS : m->canary == STATUS_C_REFUSED);
	d->pre_unknown = under_root && m->listed && m->loads && tp == STATUS_POLICY_UNKNOWN;
	bool k = d->kernel == STATUS_K_ATTACHED;
	d->layer = k && d->pre_guards ? "kernel+preload"
		   : k                ? "kernel"
		   : d->pre_guards    ? "preload"
				      : "none";
	if (d->kernel == STATUS_K_ATTACHED || d->kernel == STATUS_K_AUDIT ||
	    d->kernel == STATUS_K_UNVERIFIED) {
		kernel_encodings(d, kv);
		kernel_programs(d, kv);
	}

	/* A denying, verified guard cannot stop the events of the class that
	 * were allocated before it (the kernel judges an event once, at its
	 * allocation): enabled, one still panics the host, so it guards only
	 * PARTLY until their processes restart.  On a host without the hazard
	 * they are harmless, and none escapes. */
	if (d->verdict == STATUS_HAZARD && k &&
	    is(status_kv_get(kv, "existing.unguarded"), "true") &&
	    is(status_kv_get(kv, "existing.known"), "true")) {
		const char *hits = is(status_kv_get(kv, "existing.known"), "true")
					   ? status_kv_get(kv, "existing.hits")
					   : NULL;
		d->partly = hits && *hits;
		d->escaped_known = status_digits(hits);
		d->escaped = d->escaped_known ? strtoull(hits, NULL, 10) : 0;
		unsigned n = status_kv_count(kv, "existing.events");
		/* The events in order while they fit, room kept for the count of
		 * the rest: an entry that does not fit ends the list (none is
		 * skipped for a later, shorter one), and "N more" counts from
		 * the last one named. */
		const size_t size = sizeof(d->escaped_who), tail = 32;
		size_t at = 0;
		unsigned named = 0;
		for (; named < n; named++) {
			const char *pid = status_kv_row(kv, "existing.events", named, "pid");
			const char *comm = status_kv_row(kv, "existing.events", named, "comm");
			int w = snprintf(d->escaped_who + at, size - tail - at, "%spid %s %s",
					 named ? ", " : "", pid ? pid : "", comm ? comm : "");
			if (w < 0 || (size_t)w >= size - tail - at) {
				d->escaped_who[at] = '\0';
				break;
			}
			at += (size_t)w;
		}
		uint64_t rest = d->escaped_known && d->escaped > named ? d->escaped - named
				: d->escaped_known                     ? 0
								       : n - named;
		if (rest)
			snprintf(d->escaped_who + at, size - at, "%s%" PRIu64 " more",
				 named ? ", " : "", rest);
	}
	d->containers_covered = k;
	d->guarded = strcmp(d->layer, "none") != 0;
	d->protected_ = d->guarded && !d->partly;
	/* 3: the hazard and nothing guards, or events escape the guard; 4
	 * (LSB's "status unknown"): no verdict, so nothing can say the host is
	 * fine. */
	d->exit = 0;
	if (d->verdict == STATUS_HAZARD && !d->protected_)
		d->exit = 3;
	if (d->verdict == STATUS_UNKNOWN ||
	    (d->verdict == STATUS_HAZARD && !d->protected_ && d->pre_unknown))
		d->exit = 4;
}

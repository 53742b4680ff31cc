// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The document behind `pmuguard status --json` and `--keys` (schema 2,
 * probe/report/schema/status.schema.json): every key, in order, written
 * once, through the report's sink, so the JSON and the keys are printed by
 * the report's own renderers (render_json.c, render_keys.c).
 */
#include <stdlib.h>
#include <string.h>

#include "status.h"

struct doc {
	const struct doc_sink *s;
};

/* The report's node calls (report_doc_*, document.c's own), by the short
 * names this file reads best with. */
static void str(const struct doc *d, const char *key, const char *s)
{
	doc_str(d->s, key, s);
}

/* A string where there is one: null for NULL and "". */
static void str_or_null(const struct doc *d, const char *key, const char *s)
{
	str(d, key, s && *s ? s : NULL);
}

static void num(const struct doc *d, const char *key, uint64_t n)
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

/* A count read from another document: a number where it is one, else
 * null. */
static void num_text(const struct doc *d, const char *key, const char *v)
{
	if (status_digits(v) && strlen(v) < 20)
		num(d, key, strtoull(v, NULL, 10));
	else
		null(d, key);
}

static void begin(const struct doc *d, const char *key, enum doc_node kind)
{
	doc_open(d->s, key, kind == DOC_NODE_ARRAY);
}

static void end(const struct doc *d)
{
	doc_end(d->s);
}

static const char *kernel_word(enum status_kernel k)
{
	static const char *const w[] = {
		[STATUS_K_UNAVAILABLE] = "unavailable",
		[STATUS_K_ATTACHED] = "attached",
		[STATUS_K_AUDIT] = "audit",
		[STATUS_K_UNVERIFIED] = "unverified",
		[STATUS_K_DETACHED] = "detached",
		[STATUS_K_UNKNOWN] = "unknown",
	};
	return w[k];
}

static const char *canary_word(enum status_canary c)
{
	return c == STATUS_C_REFUSED   ? "refused"
	       : c == STATUS_C_REACHED ? "reached"
	       : c == STATUS_C_UNKNOWN ? "unknown"
				       : NULL;
}

static void preload(const struct doc *d, const struct status_model *m,
		    const struct status_decision *dd)
{
	begin(d, "preload", DOC_NODE_OBJECT);
	boolean(d, "installed", m->listed);
	boolean(d, "loads", m->loads);
	str_or_null(d, "load_error", m->load_why);
	boolean(d, "guards", dd->pre_guards);
	str_or_null(d, "since", m->listed ? m->since : NULL);
	str(d, "file", m->preload);
	str_or_null(d, "library", m->lib);
	str(d, "canary", canary_word(m->canary));
	str_or_null(d, "canary_as", m->canary_as);
	str_or_null(d, "canary_why", m->canary_why);
	str_or_null(d, "policy_not_understood", m->policy_bad);
	/* Locked: no user can switch the preload off; null where unknown. */
	if (m->policy_locked < 0)
		null(d, "policy_locked");
	else
		boolean(d, "policy_locked", m->policy_locked == 1);
	str_or_null(d, "policy_lock_why", m->policy_locked == 1 ? m->policy_lock_why : NULL);
	/* Under --root: the tree's policy file, by the guard's settings. */
	bool tree = m->o->root && *m->o->root;
	static const char *const tp[] = {[STATUS_POLICY_GUARDS] = "guards",
					 [STATUS_POLICY_LETS_THROUGH] = "lets-through",
					 [STATUS_POLICY_UNKNOWN] = "unknown"};
	str_or_null(d, "tree_policy", tree ? tp[m->tree_policy.state] : NULL);
	str_or_null(d, "tree_policy_why", tree ? m->tree_policy.why : NULL);
	str_or_null(d, "not_read_why", m->listed_why);
	/* Counts that missed other users' processes would be wrong: unknown. */
	bool counts = m->procs_scanned && !(m->unreadable > 0 && m->o->me != 0);
	if (counts) {
		num(d, "processes_mapping", m->mapped);
		num(d, "processes_not_mapping", m->unmapped);
	} else {
		null(d, "processes_mapping");
		null(d, "processes_not_mapping");
	}
	if (m->procs_scanned)
		num(d, "processes_unreadable", m->unreadable);
	else
		null(d, "processes_unreadable");
	/* Not read whole (the scan's bounds): in neither count, unknown. */
	if (m->procs_scanned)
		num(d, "processes_not_read", m->not_read);
	else
		null(d, "processes_not_read");
	begin(d, "at_risk", DOC_NODE_ARRAY);
	for (unsigned i = 0; i < m->n_risk; i++) {
		begin(d, NULL, DOC_NODE_OBJECT);
		num(d, "pid", (uint64_t)m->risk[i].pid);
		str(d, "comm", m->risk[i].comm);
		num(d, "perf_event_fds", m->risk[i].fds);
		end(d);
	}
	end(d);
	end(d);
}

static void kernel(const struct doc *d, const struct status_model *m,
		   const struct status_decision *dd)
{
	/* The document's fields are there only where it was read past its
	 * exit and schema (struct status_kernel_layer). */
	const struct status_kernel_layer *k = &m->kernel;
	bool has = dd->kernel == STATUS_K_ATTACHED || dd->kernel == STATUS_K_AUDIT ||
		   dd->kernel == STATUS_K_UNVERIFIED;
	bool attached = dd->kernel == STATUS_K_ATTACHED;
	begin(d, "kernel", DOC_NODE_OBJECT);
	str(d, "state", kernel_word(dd->kernel));
	if (k->verified_said)
		boolean(d, "verified", k->verified);
	else
		null(d, "verified");
	str_or_null(d, "verified_at", k->verified_utc);
	str_or_null(d, "not_verified_because", k->verified ? NULL : dd->verify_why);
	str_or_null(d, "since", k->since);
	str_or_null(d, "not_attached_because", attached ? NULL : dd->kernel_err);
	str_or_null(d, "attach", has ? k->attach : NULL);
	str_or_null(d, "mode", has ? k->mode : NULL);
	num_text(d, "denied", has ? k->denied : NULL);
	num_text(d, "audited", has ? k->audited : NULL);
	num_text(d, "reports_lost", has ? k->reports_lost : NULL);
	const char *existing = has && k->existing_known ? k->existing_hits : NULL;
	num_text(d, "existing_events", existing);
	if (attached && existing && *existing) {
		if (dd->partly)
			num_text(d, "existing_unguarded", existing);
		else
			num(d, "existing_unguarded", 0);
	} else {
		null(d, "existing_unguarded");
	}
	begin(d, "by_encoding", DOC_NODE_ARRAY);
	for (unsigned i = 0; i < k->n_kenc; i++) {
		begin(d, NULL, DOC_NODE_OBJECT);
		str(d, "decision", k->kenc[i].decision);
		num(d, "pmu_type", k->kenc[i].pmu_type);
		str(d, "config", k->kenc[i].config);
		num(d, "calls", k->kenc[i].calls);
		end(d);
	}
	end(d);
	begin(d, "blocked_by_program", DOC_NODE_ARRAY);
	for (unsigned i = 0; i < k->n_kprogs; i++) {
		begin(d, NULL, DOC_NODE_OBJECT);
		str(d, "program", k->kprogs[i].program);
		num(d, "uid", k->kprogs[i].uid);
		str(d, "config", k->kprogs[i].config);
		num(d, "calls", k->kprogs[i].calls);
		end(d);
	}
	end(d);
	end(d);
}

static void reports(const struct doc *d, const struct status_model *m)
{
	begin(d, "reports", DOC_NODE_OBJECT);
	str(d, "destination", m->reports_to);
	str(d, "counted_from", m->log_src);
	str_or_null(d, "not_counted_because", m->log_why);
	if (m->log_counted) {
		num(d, "blocks_reported", m->blocks);
		num(d, "undelivered", m->undelivered);
	} else {
		null(d, "blocks_reported");
		null(d, "undelivered");
	}
	/* Reports counted whose time could not be placed in this boot. */
	num(d, "of_unknown_boot", m->log_timeless);
	begin(d, "by_encoding", DOC_NODE_ARRAY);
	for (unsigned i = 0; i < m->n_lenc; i++) {
		begin(d, NULL, DOC_NODE_OBJECT);
		num_text(d, "pmu_type", m->lenc[i].pmu_type);
		str(d, "config", m->lenc[i].config);
		num(d, "reports", m->lenc[i].reports);
		end(d);
	}
	end(d);
	end(d);
	if (m->progs_known) {
		begin(d, "blocked_by_program", DOC_NODE_ARRAY);
		for (unsigned i = 0; i < m->n_progs; i++) {
			begin(d, NULL, DOC_NODE_OBJECT);
			str(d, "layer", m->progs[i].layer);
			str(d, "program", m->progs[i].program);
			num(d, "reports", m->progs[i].reports);
			end(d);
		}
		end(d);
	} else {
		null(d, "blocked_by_program");
	}
}

void status_walk(const struct status_model *m, const struct status_decision *dd,
		 const char *generated_at, const char *host, const struct doc_sink *sink)
{
	const struct doc dc = {sink}, *d = &dc;
	static const char *const verdicts[] = {"hazard", "safe", "unknown"};
	begin(d, NULL, DOC_NODE_OBJECT);
	num(d, "schema", STATUS_SCHEMA);
	str(d, "version", m->o->version);
	str(d, "generated_at", generated_at);
	str(d, "host", host);
	str_or_null(d, "pmuguard_version", m->o->version);
	str(d, "verdict", verdicts[dd->verdict]);
	if (m->probe_exit >= 0)
		num(d, "probe_exit", (uint64_t)m->probe_exit);
	else
		null(d, "probe_exit");
	if (dd->verdict == STATUS_UNKNOWN)
		null(d, "hazard");
	else
		boolean(d, "hazard", dd->verdict == STATUS_HAZARD);
	str(d, "layer", dd->layer);
	boolean(d, "guarded", dd->guarded);
	num(d, "exit", (uint64_t)dd->exit);
	preload(d, m, dd);
	kernel(d, m, dd);
	begin(d, "containers", DOC_NODE_OBJECT);
	begin(d, "runtimes", DOC_NODE_ARRAY);
	for (unsigned i = 0; i < m->n_containers; i++)
		str(d, NULL, m->container_list[i]);
	end(d);
	boolean(d, "covered_by_kernel_layer", dd->containers_covered);
	end(d);
	reports(d, m);
	end(d);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The document behind `pmuguard status --json` and `--keys` (schema 2,
 * ../doc/schema/status.schema.json): every key, in order, written once,
 * by the node calls of ../doc/ (doc_*()), whose writers print it as JSON
 * or as KEY=VALUE lines: the command's one JSON writer and one escaper.
 */
#include <stdlib.h>
#include <string.h>

#include "status.h"

/* A count read from another document: a number where it is one, else
 * null. */
static void num_text(const struct doc_sink *d, const char *key, const char *v)
{
	if (status_digits(v) && strlen(v) < 20)
		doc_uint(d, key, strtoull(v, NULL, 10));
	else
		doc_null(d, key);
}

/* The words are the kernel guard's table's (../enforce/enforce_state.c). */
static const char *kernel_word(enum status_kernel k)
{
	return enf_guard_word((enum enf_guard)k);
}

static const char *canary_word(enum status_canary c)
{
	return c == STATUS_C_REFUSED   ? "refused"
	       : c == STATUS_C_REACHED ? "reached"
	       : c == STATUS_C_UNKNOWN ? "unknown"
				       : NULL;
}

static void preload(const struct doc_sink *d, const struct status_model *m,
		    const struct status_decision *dd)
{
	doc_open(d, "preload", false);
	doc_bool(d, "installed", m->listed);
	doc_bool(d, "loads", m->loads);
	doc_str_or_null(d, "load_error", m->load_why);
	doc_bool(d, "guards", dd->pre_guards);
	doc_str_or_null(d, "since", m->listed ? m->since : NULL);
	doc_str(d, "file", m->preload);
	doc_str_or_null(d, "library", m->lib);
	doc_str(d, "canary", canary_word(m->canary));
	doc_str_or_null(d, "canary_as", m->canary_as);
	doc_str_or_null(d, "canary_why", m->canary_why);
	doc_str_or_null(d, "policy_not_understood", m->policy_bad);
	/* Locked: no user can switch the preload off; null where unknown. */
	if (m->policy_locked < 0)
		doc_null(d, "policy_locked");
	else
		doc_bool(d, "policy_locked", m->policy_locked == 1);
	doc_str_or_null(d, "policy_lock_why", m->policy_locked == 1 ? m->policy_lock_why : NULL);
	/* Under --root: the tree's policy file, by the guard's settings. */
	bool tree = m->o->root && *m->o->root;
	static const char *const tp[] = {[STATUS_POLICY_GUARDS] = "guards",
					 [STATUS_POLICY_LETS_THROUGH] = "lets-through",
					 [STATUS_POLICY_UNKNOWN] = "unknown"};
	doc_str_or_null(d, "tree_policy", tree ? tp[m->tree_policy.state] : NULL);
	doc_str_or_null(d, "tree_policy_why", tree ? m->tree_policy.why : NULL);
	doc_str_or_null(d, "not_read_why", m->listed_why);
	/* Counts that missed other users' processes would be wrong: unknown. */
	bool counts = m->procs_scanned && !(m->unreadable > 0 && m->o->me != 0);
	if (counts) {
		doc_uint(d, "processes_mapping", m->mapped);
		doc_uint(d, "processes_not_mapping", m->unmapped);
	} else {
		doc_null(d, "processes_mapping");
		doc_null(d, "processes_not_mapping");
	}
	if (m->procs_scanned)
		doc_uint(d, "processes_unreadable", m->unreadable);
	else
		doc_null(d, "processes_unreadable");
	/* Not read whole (the scan's bounds): in neither count, unknown. */
	if (m->procs_scanned)
		doc_uint(d, "processes_not_read", m->not_read);
	else
		doc_null(d, "processes_not_read");
	doc_open(d, "at_risk", true);
	for (unsigned i = 0; i < m->n_risk; i++) {
		doc_open(d, NULL, false);
		doc_uint(d, "pid", (uint64_t)m->risk[i].pid);
		doc_str(d, "comm", m->risk[i].comm);
		doc_uint(d, "perf_event_fds", m->risk[i].fds);
		doc_end(d);
	}
	doc_end(d);
	doc_end(d);
}

static void kernel(const struct doc_sink *d, const struct status_model *m,
		   const struct status_decision *dd)
{
	/* The document's fields are there only where it was read past its
	 * exit and schema (struct status_kernel_layer). */
	const struct status_kernel_layer *k = &m->kernel;
	bool has = dd->kernel == STATUS_K_ATTACHED || dd->kernel == STATUS_K_AUDIT ||
		   dd->kernel == STATUS_K_UNVERIFIED;
	bool attached = dd->kernel == STATUS_K_ATTACHED;
	doc_open(d, "kernel", false);
	doc_str(d, "state", kernel_word(dd->kernel));
	if (k->verified_said)
		doc_bool(d, "verified", k->verified);
	else
		doc_null(d, "verified");
	doc_str_or_null(d, "verified_at", k->verified_utc);
	doc_str_or_null(d, "not_verified_because", k->verified ? NULL : dd->verify_why);
	doc_str_or_null(d, "since", k->since);
	doc_str_or_null(d, "not_attached_because", attached ? NULL : dd->kernel_err);
	doc_str_or_null(d, "attach", has ? k->attach : NULL);
	doc_str_or_null(d, "mode", has ? k->mode : NULL);
	num_text(d, "denied", has ? k->denied : NULL);
	num_text(d, "audited", has ? k->audited : NULL);
	num_text(d, "reports_lost", has ? k->reports_lost : NULL);
	const char *existing = has && k->existing_known ? k->existing_hits : NULL;
	num_text(d, "existing_events", existing);
	if (attached && existing && *existing) {
		if (dd->partly)
			num_text(d, "existing_unguarded", existing);
		else
			doc_uint(d, "existing_unguarded", 0);
	} else {
		doc_null(d, "existing_unguarded");
	}
	doc_open(d, "by_encoding", true);
	for (unsigned i = 0; i < k->n_kenc; i++) {
		doc_open(d, NULL, false);
		doc_str(d, "decision", k->kenc[i].decision);
		doc_uint(d, "pmu_type", k->kenc[i].pmu_type);
		doc_str(d, "config", k->kenc[i].config);
		doc_uint(d, "calls", k->kenc[i].calls);
		doc_end(d);
	}
	doc_end(d);
	doc_open(d, "blocked_by_program", true);
	for (unsigned i = 0; i < k->n_kprogs; i++) {
		doc_open(d, NULL, false);
		doc_str(d, "program", k->kprogs[i].program);
		doc_uint(d, "uid", k->kprogs[i].uid);
		doc_str(d, "config", k->kprogs[i].config);
		doc_uint(d, "calls", k->kprogs[i].calls);
		doc_end(d);
	}
	doc_end(d);
	doc_end(d);
}

static void reports(const struct doc_sink *d, const struct status_model *m)
{
	doc_open(d, "reports", false);
	doc_str(d, "destination", m->reports_to);
	doc_str(d, "counted_from", m->log_src);
	doc_str_or_null(d, "not_counted_because", m->log_why);
	if (m->log_counted) {
		doc_uint(d, "blocks_reported", m->blocks);
		doc_uint(d, "undelivered", m->undelivered);
	} else {
		doc_null(d, "blocks_reported");
		doc_null(d, "undelivered");
	}
	/* Reports counted whose time could not be placed in this boot. */
	doc_uint(d, "of_unknown_boot", m->log_timeless);
	doc_open(d, "by_encoding", true);
	for (unsigned i = 0; i < m->n_lenc; i++) {
		doc_open(d, NULL, false);
		num_text(d, "pmu_type", m->lenc[i].pmu_type);
		doc_str(d, "config", m->lenc[i].config);
		doc_uint(d, "reports", m->lenc[i].reports);
		doc_end(d);
	}
	doc_end(d);
	doc_end(d);
	if (m->progs_known) {
		doc_open(d, "blocked_by_program", true);
		for (unsigned i = 0; i < m->n_progs; i++) {
			doc_open(d, NULL, false);
			doc_str(d, "layer", m->progs[i].layer);
			doc_str(d, "program", m->progs[i].program);
			doc_uint(d, "reports", m->progs[i].reports);
			doc_end(d);
		}
		doc_end(d);
	} else {
		doc_null(d, "blocked_by_program");
	}
}

void status_walk(const struct status_model *m, const struct status_decision *dd,
		 const char *generated_at, const char *host, const struct doc_sink *d)
{
	static const char *const verdicts[] = {"hazard", "safe", "unknown"};
	doc_open(d, NULL, false);
	doc_uint(d, "schema", STATUS_SCHEMA);
	doc_str(d, "version", m->o->version);
	doc_str(d, "generated_at", generated_at);
	doc_str(d, "host", host);
	doc_str_or_null(d, "pmuguard_version", m->o->version);
	doc_str(d, "verdict", verdicts[dd->verdict]);
	if (m->probe_exit >= 0)
		doc_uint(d, "probe_exit", (uint64_t)m->probe_exit);
	else
		doc_null(d, "probe_exit");
	if (dd->verdict == STATUS_UNKNOWN)
		doc_null(d, "hazard");
	else
		doc_bool(d, "hazard", dd->verdict == STATUS_HAZARD);
	doc_str(d, "layer", dd->layer);
	doc_bool(d, "guarded", dd->guarded);
	doc_uint(d, "exit", (uint64_t)dd->exit);
	preload(d, m, dd);
	kernel(d, m, dd);
	doc_open(d, "containers", false);
	doc_open(d, "runtimes", true);
	for (unsigned i = 0; i < m->n_containers; i++)
		doc_str(d, NULL, m->container_list[i]);
	doc_end(d);
	doc_bool(d, "covered_by_kernel_layer", dd->containers_covered);
	doc_end(d);
	reports(d, m);
	doc_end(d);
}

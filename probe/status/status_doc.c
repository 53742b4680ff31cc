// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pmuguard status` in every form, from one walk: each fact written once,
 * its key (the document behind --json and --keys, schema 2,
 * ../doc/schema/status.schema.json) and its words (the lines a person
 * reads, "PREFIX: ...") side by side, as iproute2's print_*() do.  The
 * node calls of ../doc/ give both; its writers print them: the JSON and
 * KEYS writers skip the words, the text writer the keys.  The walk keeps
 * the document's order of keys; a line whose place in the text differs
 * (the policy, the probe's verdict, who was blocked) is said where the
 * text has always said it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "status.h"

/* A count read from another document (NULL: not said here): a number
 * where it is one, else null. */
static void count(const struct doc_sink *s, const char *key, const struct status_count *c)
{
	if (c && c->known)
		doc_uint(s, key, c->n);
	else
		doc_null(s, key);
}

/* A count in words: its number, or "?" where it is none. */
static const char *count_words(const struct status_count *c, char *buf, size_t size)
{
	if (!c->known)
		return "?";
	snprintf(buf, size, "%" PRIu64, c->n);
	return buf;
}

/* A pmu_type as the preload's reports give it: a number, or "other". */
static void num_text(const struct doc_sink *d, const char *key, const char *v)
{
	if (status_digits(v) && strlen(v) < 20)
		doc_uint(d, key, strtoull(v, NULL, 10));
	else
		doc_null(d, key);
}

/* A value of the kernel layer's document where it says one. */
static const char *opt(const char *v)
{
	return v && *v ? v : NULL;
}

static const char *canary_word(enum status_canary c)
{
	return c == STATUS_C_REFUSED   ? "refused"
	       : c == STATUS_C_REACHED ? "reached"
	       : c == STATUS_C_UNKNOWN ? "unknown"
				       : NULL;
}

static const char *const verdict_words[] = {"hazard", "safe", "unknown"};

static void protected_words(const struct doc_sink *s, const struct status_model *m,
			    const struct status_decision *d)
{
	bool hazard = d->verdict == STATUS_HAZARD;
	const char *layer = status_layer_word(d->layers);
	if (d->partly && hazard && d->escaped == 1)
		doc_words(s,
			  "protected: PARTLY, by %s: 1 perf event of the hazardous class opened "
			  "before the guard (%s) is not guarded; restart that process",
			  layer, d->escaped_who);
	else if (d->partly && hazard)
		doc_words(s,
			  "protected: PARTLY, by %s: %" PRIu64
			  " perf events of the hazardous class "
			  "opened before the guard (%s) are not guarded; restart those processes",
			  layer, d->escaped, d->escaped_who);
	else if (d->guarded && hazard && *m->containers && !d->containers_covered)
		doc_words(s,
			  "protected: PARTLY, by %s: the containers of %s are not covered (they "
			  "need the kernel layer)",
			  layer, m->containers);
	else if (d->guarded)
		doc_words(s, "protected: yes, by %s", layer);
	else if (hazard && d->pre_unknown)
		doc_words(s, "protected: unknown: %s", m->tree_policy.why);
	else if (hazard)
		doc_words(s, "protected: NO: the host has the hazard and no layer was seen to "
			     "guard it");
	else if (d->verdict == STATUS_SAFE)
		doc_words(s, "protected: no layer, and none is needed (no hazard)");
	else
		doc_words(s,
			  "protected: no layer was seen to guard it, and the verdict is unknown");
}

/* The preload file's line: listed, and whether it guards. */
static void preload_words(const struct doc_sink *s, const struct status_model *m)
{
	const char *since = *m->since ? m->since : "?";
	bool under_root = m->o->root && *m->o->root;
	if (!m->listed)
		doc_words(s, "preload: not installed (%s%s%s)%s%s", m->preload, *m->lib ? ", " : "",
			  m->lib, *m->listed_why ? ": " : "", m->listed_why);
	else if (m->loads && under_root && m->tree_policy.state != STATUS_POLICY_GUARDS)
		doc_words(s, "preload: LISTED, BUT %s: %s (%s, %s)",
			  m->tree_policy.state == STATUS_POLICY_UNKNOWN
				  ? "WHETHER IT GUARDS IS UNKNOWN"
				  : "IT GUARDS NOTHING",
			  m->tree_policy.why, m->preload, m->lib);
	else if (m->loads && m->canary == STATUS_C_REFUSED)
		doc_words(s,
			  "preload: installed since %s (%s, %s); a canary started now as %s was "
			  "refused",
			  since, m->preload, m->lib, m->canary_as);
	else if (m->loads && under_root)
		doc_words(s,
			  "preload: installed since %s (%s, %s); the loader takes the library; %s; "
			  "%s",
			  since, m->preload, m->lib, m->tree_policy.why, m->canary_why);
	else if (m->loads)
		doc_words(s,
			  "preload: LISTED BUT A CANARY WAS NOT REFUSED: %s (%s, %s): it guards "
			  "nothing for such a process",
			  m->canary_why, m->preload, m->lib);
	else
		doc_words(s, "preload: LISTED BUT NOT LOADED: %s (%s, %s): it guards nothing",
			  m->load_why, m->preload, m->lib);
}

/* The running processes, where the preload is listed: which map it. */
static void processes_words(const struct doc_sink *s, const struct status_model *m)
{
	if (m->unreadable > 0 && m->o->me != 0) {
		doc_words(s,
			  "preload: %u running processes could not be read as uid %u (other "
			  "users'): which processes map the library is unknown; run status as root "
			  "to count them all",
			  m->unreadable, (unsigned)m->o->me);
		return;
	}
	char tail[320] = "";
	if (m->unreadable)
		snprintf(tail, sizeof(tail), "; %u could not be read even as root", m->unreadable);
	/* Not read whole is neither: counted apart, as unknown. */
	if (m->not_read)
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail),
			 "; %u not read whole (past %u MiB of maps, or the scan's %d s): whether "
			 "they map it is unknown",
			 m->not_read, STATUS_MAPS_MAX >> 20, STATUS_PROCS_DEADLINE_MS / 1000);
	doc_words(s,
		  "preload: %u running processes map it; %u do not (started before the install, "
		  "static, or another loader): those stay unguarded by the preload until they "
		  "restart%s",
		  m->mapped, m->unmapped, tail);
}

static void processes(const struct doc_sink *s, const struct status_model *m)
{
	/* Counts that missed other users' processes would be wrong: unknown. */
	bool counts = m->procs_scanned && !(m->unreadable > 0 && m->o->me != 0);
	if (counts) {
		doc_uint(s, "processes_mapping", m->mapped);
		doc_uint(s, "processes_not_mapping", m->unmapped);
	} else {
		doc_null(s, "processes_mapping");
		doc_null(s, "processes_not_mapping");
	}
	if (m->procs_scanned)
		doc_uint(s, "processes_unreadable", m->unreadable);
	else
		doc_null(s, "processes_unreadable");
	/* Not read whole (the scan's bounds): in neither count, unknown. */
	if (m->procs_scanned)
		doc_uint(s, "processes_not_read", m->not_read);
	else
		doc_null(s, "processes_not_read");
	bool said = m->listed && (m->procs_scanned || (m->unreadable > 0 && m->o->me != 0));
	if (said)
		processes_words(s, m);
	doc_open(s, "at_risk", true);
	for (unsigned i = 0; i < m->n_risk; i++) {
		const struct status_risk *r = &m->risk[i];
		if (said)
			doc_words(
				s,
				"preload:   at risk now: pid %ld (%s) holds %u perf event file(s) "
				"and does not map the library",
				r->pid, r->comm, r->fds);
		doc_open(s, NULL, false);
		doc_uint(s, "pid", (uint64_t)r->pid);
		doc_str(s, "comm", r->comm);
		doc_uint(s, "perf_event_fds", r->fds);
		doc_end(s);
	}
	doc_end(s);
}

static void preload(const struct doc_sink *s, const struct status_model *m,
		    const struct status_decision *d)
{
	preload_words(s, m);
	doc_open(s, "preload", false);
	doc_bool(s, "installed", m->listed);
	doc_bool(s, "loads", m->loads);
	doc_str_or_null(s, "load_error", m->load_why);
	doc_bool(s, "guards", d->pre_guards);
	doc_str_or_null(s, "since", m->listed ? m->since : NULL);
	doc_str(s, "file", m->preload);
	doc_str_or_null(s, "library", m->lib);
	doc_str(s, "canary", canary_word(m->canary));
	doc_str_or_null(s, "canary_as", m->canary_as);
	doc_str_or_null(s, "canary_why", m->canary_why);
	doc_str_or_null(s, "policy_not_understood", m->policy_bad);
	/* Locked: no user can switch the preload off; null where unknown. */
	if (m->policy_locked < 0)
		doc_null(s, "policy_locked");
	else
		doc_bool(s, "policy_locked", m->policy_locked == 1);
	doc_str_or_null(s, "policy_lock_why", m->policy_locked == 1 ? m->policy_lock_why : NULL);
	/* Under --root: the tree's policy file, by the guard's settings. */
	bool tree = m->o->root && *m->o->root;
	static const char *const tp[] = {[STATUS_POLICY_GUARDS] = "guards",
					 [STATUS_POLICY_LETS_THROUGH] = "lets-through",
					 [STATUS_POLICY_UNKNOWN] = "unknown"};
	doc_str_or_null(s, "tree_policy", tree ? tp[m->tree_policy.state] : NULL);
	doc_str_or_null(s, "tree_policy_why", tree ? m->tree_policy.why : NULL);
	doc_str_or_null(s, "not_read_why", m->listed_why);
	processes(s, m);
	doc_end(s);
}

/* The kernel guard's line, by its state. */
static void kernel_words(const struct doc_sink *s, const struct status_model *m,
			 const struct status_decision *d)
{
	const struct status_kernel_layer *k = &m->kernel;
	const char *at = opt(k->verified_utc), *since = opt(k->since);
	char den[24], aud[24], hits[24];
	switch (d->kernel) {
	case ENF_GUARD_ATTACHED:
		doc_words(s,
			  "kernel: attached and verified %s%s%s(self-test), since %s; denied %s, "
			  "audited %s (pmuguard enforce status)",
			  at ? "at " : "", at ? at : "", at ? " " : "", since ? since : "?",
			  count_words(&k->denied, den, sizeof(den)),
			  count_words(&k->audited, aud, sizeof(aud)));
		if (d->partly)
			doc_words(
				s,
				"kernel: NOT GUARDED: %s perf event(s) of the hazardous class "
				"allocated before the guard (%s): the kernel judged them then, so "
				"enabled they still reach the counter; restart their processes "
				"(pmuguard enforce status lists them)",
				count_words(&k->existing_hits, hits, sizeof(hits)), d->escaped_who);
		break;
	case ENF_GUARD_AUDIT:
		doc_words(s, "kernel: attached in audit mode (verified): it counts and allows, so "
			     "it guards nothing");
		break;
	case ENF_GUARD_UNVERIFIED:
		doc_words(s, "kernel: ATTACHED BUT NOT VERIFIED: %s: it guards nothing",
			  d->verify_why ? d->verify_why : "the self-test failed");
		break;
	case ENF_GUARD_DETACHED:
		if (d->kernel_err)
			doc_words(s, "kernel: not attached (%s)", d->kernel_err);
		else
			doc_words(s, "kernel: not attached");
		break;
	case ENF_GUARD_UNAVAILABLE:
		doc_words(s, "kernel: not available (built without enforce, or not asked for "
			     "under --root)");
		break;
	case ENF_GUARD_UNKNOWN:
	case ENF_GUARD_N: /* not a state: enf_guard_word() says unknown */
		doc_words(s, "kernel: unknown: %s", d->kernel_err ? d->kernel_err : "");
		break;
	}
}

/* The guard's own map: calls by encoding, and who it denied. */
static void kernel_map(const struct doc_sink *s, const struct status_kernel_layer *k)
{
	doc_open(s, "by_encoding", true);
	for (unsigned i = 0; i < k->n_kenc; i++) {
		doc_open(s, NULL, false);
		doc_str(s, "decision", k->kenc[i].decision);
		doc_uint(s, "pmu_type", k->kenc[i].pmu_type);
		doc_str(s, "config", k->kenc[i].config);
		doc_uint(s, "calls", k->kenc[i].calls);
		doc_end(s);
	}
	doc_end(s);
	doc_open(s, "blocked_by_program", true);
	for (unsigned i = 0; i < k->n_kprogs; i++) {
		doc_open(s, NULL, false);
		doc_str(s, "program", k->kprogs[i].program);
		doc_uint(s, "uid", k->kprogs[i].uid);
		doc_str(s, "config", k->kprogs[i].config);
		doc_uint(s, "calls", k->kprogs[i].calls);
		doc_end(s);
	}
	doc_end(s);
}

static void kernel(const struct doc_sink *s, const struct status_model *m,
		   const struct status_decision *d)
{
	/* The document's fields are there only where it was read past its
	 * exit and schema (struct status_kernel_layer). */
	const struct status_kernel_layer *k = &m->kernel;
	bool has = d->kernel == ENF_GUARD_ATTACHED || d->kernel == ENF_GUARD_AUDIT ||
		   d->kernel == ENF_GUARD_UNVERIFIED;
	bool attached = d->kernel == ENF_GUARD_ATTACHED;
	kernel_words(s, m, d);
	doc_open(s, "kernel", false);
	doc_str(s, "state", enf_guard_word(d->kernel));
	if (k->verified_said)
		doc_bool(s, "verified", k->verified);
	else
		doc_null(s, "verified");
	doc_str_or_null(s, "verified_at", k->verified_utc);
	doc_str_or_null(s, "not_verified_because", k->verified ? NULL : d->verify_why);
	doc_str_or_null(s, "since", k->since);
	doc_str_or_null(s, "not_attached_because", attached ? NULL : d->kernel_err);
	doc_str_or_null(s, "attach", has ? k->attach : NULL);
	doc_str_or_null(s, "mode", has ? k->mode : NULL);
	count(s, "denied", has ? &k->denied : NULL);
	count(s, "audited", has ? &k->audited : NULL);
	count(s, "reports_lost", has ? &k->reports_lost : NULL);
	const struct status_count *existing = has && k->existing_known ? &k->existing_hits : NULL;
	count(s, "existing_events", existing);
	if (attached && existing && existing->said) {
		if (d->partly)
			count(s, "existing_unguarded", existing);
		else
			doc_uint(s, "existing_unguarded", 0);
	} else {
		doc_null(s, "existing_unguarded");
	}
	kernel_map(s, k);
	doc_end(s);
}

static void containers(const struct doc_sink *s, const struct status_model *m,
		       const struct status_decision *d)
{
	if (*m->containers && d->containers_covered)
		doc_words(s,
			  "containers: %s running (%s): covered by the kernel layer only (the "
			  "preload does not reach into containers)",
			  m->containers, m->containers_seen);
	else if (*m->containers)
		doc_words(s,
			  "containers: %s running (%s): NOT covered: the preload does not reach "
			  "into containers; only the kernel layer does (pmuguard enforce start, or "
			  "the DaemonSet)",
			  m->containers, m->containers_seen);
	doc_open(s, "containers", false);
	doc_open(s, "runtimes", true);
	for (unsigned i = 0; i < m->n_containers; i++)
		doc_str(s, NULL, m->container_list[i]);
	doc_end(s);
	doc_bool(s, "covered_by_kernel_layer", d->containers_covered);
	doc_end(s);
}

/* The lines the text says after the containers: the policy (preload.*'s
 * keys) and the probe's verdict (the top's). */
static void policy_words(const struct doc_sink *s, const struct status_model *m,
			 const struct status_decision *d)
{
	if (d->unlocked)
		doc_words(s,
			  "policy: NOT LOCKED: any user can switch the preload off in their own "
			  "processes (PMUGUARD_MODE=off, or PMUGUARD_SNAPSHOT naming a healthy "
			  "machine); lock = yes in %s stops that (pmuguard-fleet install sets it, "
			  "unless --no-lock)",
			  GUARD_CONF_PATH);
	else if (m->listed && m->policy_locked == 1)
		doc_words(s, "policy: locked (%s): users cannot switch the guard off",
			  m->policy_lock_why);
	if (*m->policy_bad)
		doc_words(s, "policy: ignored: %s (pmuguard.conf(5))", m->policy_bad);
	if (d->verdict == STATUS_UNKNOWN)
		doc_words(s, "probe verdict: unknown (pmuguard probe exited %d)", m->probe_exit);
	else
		doc_words(s, "probe verdict: %s", verdict_words[d->verdict]);
}

/* Who was blocked, in words: the journal's programs (the document's
 * blocked_by_program), and where the follower's entries named none (it
 * does not run, or no journal), the guard's own map (kernel.*'s): the
 * last program of each user and encoding it denied. */
static void blocked_words(const struct doc_sink *s, const struct status_model *m)
{
	bool journal_kernel = false;
	for (unsigned i = 0; i < m->n_progs; i++) {
		const struct status_prog *p = &m->progs[i];
		journal_kernel |= !strcmp(p->layer, "kernel");
		if (!strcmp(p->layer, "kernel"))
			doc_words(s,
				  "blocked this boot: %s, %" PRIu64
				  " time(s) (kernel layer: the follower's entries, from root)",
				  p->program, p->reports);
		else
			doc_words(s,
				  "blocked this boot: %s, %" PRIu64
				  " report(s) (%s layer: the process's own reports, which any user "
				  "can write)",
				  p->program, p->reports, p->layer);
	}
	for (unsigned i = 0; !journal_kernel && i < m->kernel.n_kprogs; i++) {
		const struct status_kprog *k = &m->kernel.kprogs[i];
		doc_words(s,
			  "blocked by the kernel guard: %s (uid %" PRIu64 "), config %s, %" PRIu64
			  " time(s) (the guard's own map: the last program of that user and "
			  "encoding)",
			  k->program, k->uid, k->config, k->calls);
	}
}

static void reports_words(const struct doc_sink *s, const struct status_model *m,
			  const struct status_decision *d)
{
	/* A healthy host with no preload listed has no reports to place or
	 * count: those lines would only be noise (the document keeps them). */
	if (d->verdict == STATUS_SAFE && !m->listed && (!m->log_counted || !m->blocks))
		return;
	doc_words(s, "preload reports go to: %s", m->reports_to);
	if (!m->log_counted) {
		doc_words(s, "preload blocks reported since boot: unknown (%s)", m->log_why);
		return;
	}
	doc_words(s,
		  "preload blocks reported since boot: %" PRIu64
		  " (one per encoding per process; from %s%s)",
		  m->blocks, m->log_src,
		  m->log_timeless ? "; the count may span boots: some lines' times could not be "
				    "placed after this boot's start"
				  : "");
	if (m->undelivered)
		doc_words(s,
			  "preload reports not delivered (the log was full or away), as later "
			  "reports say: %" PRIu64,
			  m->undelivered);
}

static void reports(const struct doc_sink *s, const struct status_model *m,
		    const struct status_decision *d)
{
	blocked_words(s, m);
	reports_words(s, m, d);
	doc_open(s, "reports", false);
	doc_str(s, "destination", m->reports_to);
	doc_str(s, "counted_from", m->log_src);
	doc_str_or_null(s, "not_counted_because", m->log_why);
	if (m->log_counted) {
		doc_uint(s, "blocks_reported", m->blocks);
		doc_uint(s, "undelivered", m->undelivered);
	} else {
		doc_null(s, "blocks_reported");
		doc_null(s, "undelivered");
	}
	/* Reports counted whose time could not be placed in this boot. */
	doc_uint(s, "of_unknown_boot", m->log_timeless);
	doc_open(s, "by_encoding", true);
	for (unsigned i = 0; i < m->n_lenc; i++) {
		doc_open(s, NULL, false);
		num_text(s, "pmu_type", m->lenc[i].pmu_type);
		doc_str(s, "config", m->lenc[i].config);
		doc_uint(s, "reports", m->lenc[i].reports);
		doc_end(s);
	}
	doc_end(s);
	doc_end(s);
	if (!m->progs_known) {
		doc_null(s, "blocked_by_program");
		return;
	}
	doc_open(s, "blocked_by_program", true);
	for (unsigned i = 0; i < m->n_progs; i++) {
		doc_open(s, NULL, false);
		doc_str(s, "layer", m->progs[i].layer);
		doc_str(s, "program", m->progs[i].program);
		doc_uint(s, "reports", m->progs[i].reports);
		doc_end(s);
	}
	doc_end(s);
}

void status_walk(const struct status_model *m, const struct status_decision *d,
		 const char *generated_at, const char *host, const struct doc_sink *s)
{
	doc_open(s, NULL, false);
	doc_uint(s, "schema", STATUS_SCHEMA);
	doc_str(s, "version", m->o->version);
	doc_str(s, "generated_at", generated_at);
	doc_str(s, "host", host);
	doc_str_or_null(s, "pmuguard_version", m->o->version);
	doc_str(s, "verdict", verdict_words[d->verdict]);
	if (m->probe_exit >= 0)
		doc_uint(s, "probe_exit", (uint64_t)m->probe_exit);
	else
		doc_null(s, "probe_exit");
	if (d->verdict == STATUS_UNKNOWN)
		doc_null(s, "hazard");
	else
		doc_bool(s, "hazard", d->verdict == STATUS_HAZARD);
	protected_words(s, m, d);
	doc_words(s, "layer: %s", status_layer_word(d->layers));
	doc_str(s, "layer", status_layer_word(d->layers));
	doc_words(s, "version: pmuguard %s", m->o->version ? m->o->version : "unknown");
	doc_bool(s, "guarded", d->guarded);
	doc_uint(s, "exit", (uint64_t)d->exit);
	preload(s, m, d);
	kernel(s, m, d);
	containers(s, m, d);
	policy_words(s, m, d);
	reports(s, m, d);
	doc_end(s);
}

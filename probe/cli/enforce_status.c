// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard enforce status [--json|--keys]
 * pmuguard enforce ready
 *
 * Both ask the pinned guard the same question: is it attached, does its
 * self-test pass now, does it deny (its state, decided and given its exit
 * by ../enforce/enforce_state.c's table), and did events of the class
 * escape it.  status says all of it, as text, JSON or keys, the state's
 * word as `state`; ready, a readiness probe, says one line.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cli.h"
#include "enforce_common.h"

/* The kernel's side, for "why nothing is attached": 1 yes, 0 no, -1 unknown. */
struct kernel_view {
	int btf, bpf_lsm, bpffs;
	long lsm_rc; /* probe_read_small of the LSM list: its length, or -errno */
	char lsm[512];
};

static void kernel_read(struct kernel_view *k)
{
	k->lsm_rc = probe_read_small(ENF_LSM_LIST, k->lsm, sizeof(k->lsm));
	k->bpf_lsm = k->lsm_rc < 0 ? -1 : enf_lsm_listed(k->lsm, (size_t)k->lsm_rc);
	struct statfs sfs;
	k->bpffs = statfs(ENF_BPFFS, &sfs) < 0 ? -1 : (unsigned long)sfs.f_type == BPF_FS_MAGIC;
	k->btf = access(ENF_BTF, R_OK) == 0;
}

static const char *yesno(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "unknown";
}

struct enforce_status_view {
	int rc;
	enum enf_guard state;   /* what rc says, as a word in the document */
	int err;                /* enf_status_read: -errno when what is pinned is unreadable */
	struct enf_status *st;
	/* not attached: */
	struct enforce_plan pl;
	struct kernel_view k;
	/* attached: */
	struct enf_existing *ex;
};

static const char *hook_words(unsigned attach)
{
	return attach == PMUG_ENF_ATTACH_LSM ? "BPF LSM hook perf_event_alloc"
					     : "fmod_ret on security_perf_event_alloc";
}

/* Per uid, the sum over encodings: calls(uid i, denied or audited). */
static void uid_sums(const struct enf_status *st, unsigned i, unsigned long long *den,
		     unsigned long long *aud)
{
	*den = *aud = 0;
	for (unsigned j = i; j < st->n_counts; j++)
		if (st->counts[j].key.uid == st->counts[i].key.uid)
			*(st->counts[j].key.denied ? den : aud) += st->counts[j].val.calls;
}

/* Is counts[i] the first entry of its uid? */
static bool uid_first(const struct enf_status *st, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (st->counts[j].key.uid == st->counts[i].key.uid)
			return false;
	return true;
}

static void view_text(const struct enforce_status_view *m)
{
	const struct enf_status *st = m->st;
	if (m->err) {
		cli_line(stderr, "pmuguard: enforce: status: %s", st->why);
		return;
	}
	if (!st->attached) {
		const struct kernel_view *k = &m->k;
		cli_line(stdout, "pmuguard enforce: not attached: %s", st->why);
		cli_line(stdout, "  policy: %s (mode %s): %s",
			 m->pl.policy.watch ? "would attach" : "nothing to attach",
			 guard_mode_name(m->pl.policy.mode), m->pl.policy.reason);
		cli_put(stdout, "  kernel: BTF %s; BPF LSM active: %s", k->btf ? "yes" : "no",
			yesno(k->bpf_lsm));
		if (k->lsm_rc >= 0)
			cli_put(stdout, " (lsm=%s)", k->lsm);
		else
			cli_put(stdout, " (%s: %s)", ENF_LSM_LIST, strerror((int)-k->lsm_rc));
		cli_line(stdout, "; bpffs at %s: %s", ENF_BPFFS,
			 k->bpffs > 0 ? "mounted" : "not mounted");
		return;
	}
	const struct pmug_enf_config *c = &st->cfg;
	char when[64];
	doc_time_utc(when, sizeof(when), (time_t)c->started, DOC_TIME_TEXT);
	cli_line(stdout, "pmuguard enforce: attached (%s: %s), since %s",
		 enf_attach_name(st->attach), hook_words(st->attach), when);
	enforce_verify_text("  ", &st->verify);
	if (!c->enforce)
		cli_line(
			stdout,
			"  NOT PROTECTED: " ENFORCE_AUDIT_WORDS ": it counts what it would deny and allows "
			"it, on a host whose facts called for a guard, so a tool still reaches the "
			"counter (`pmuguard enforce start --mode auto` replaces it with one that "
			"denies)");
	cli_line(stdout, "  mode: %s (%s); facts: %s, from %s",
		 guard_mode_name((enum guard_mode)c->mode),
		 c->enforce ? "deny with ENOENT" : "audit: count, allow",
		 probe_state_name((enum probe_state)c->state), enforce_facts_from_words(c));
	cli_line(stdout, "  reason at the start: %s", c->reason);
	cli_put(stdout, "  core PMU types: ");
	enforce_print_types(stdout, c->core_types, c->n_core);
	putchar('\n');
	cli_put(stdout, "  denied there: ");
	enforce_print_hazards(stdout, c);
	putchar('\n');
	cli_line(stdout,
		 "  program: id %" PRIu32 ", link id %" PRIu32 ", %" PRIu32
		 " instructions (xlated), %" PRIu32 " bytes jited",
		 st->prog_id, st->link_id, st->xlated_insns, st->jited_bytes);
	if (st->run_cnt)
		cli_line(stdout,
			 "  runs: %" PRIu64 ", %" PRIu64
			 " ns on average (kernel.bpf_stats_enabled)",
			 st->run_cnt, st->run_time_ns / st->run_cnt);
	enforce_existing_text("  ", "    ", m->ex, c);
	const struct pmug_enf_totals *tt = &st->totals;
	cli_line(stdout,
		 "  denied: %llu, audited: %llu, reports lost: %llu, keys not counted: %llu",
		 tt->denied, tt->audited, tt->lost_events, tt->lost_keys);
	if (!st->n_counts)
		return;
	cli_line(stdout, "  by encoding:");
	for (unsigned i = 0; i < st->n_counts; i++) {
		const struct enf_count *e = &st->counts[i];
		char comm[17];
		enforce_comm_str(comm, e->val.last_comm);
		cli_line(stdout,
			 "    %-7s uid %-6u type %-3u config 0x%04x  calls %-6llu last %s[%u]: %s",
			 e->key.denied ? "denied" : "audited", e->key.uid, e->key.pmu_type,
			 e->key.code, e->val.calls, comm, e->val.last_pid,
			 guard_hit_name(enforce_key_hit(e->key.code), e->key.code));
	}
	if (st->n_counts_total > st->n_counts)
		cli_line(stdout, "    (%u more)", st->n_counts_total - st->n_counts);
	cli_line(stdout, "  by uid:");
	for (unsigned i = 0; i < st->n_counts; i++) {
		if (!uid_first(st, i))
			continue;
		unsigned long long den, aud;
		uid_sums(st, i, &den, &aud);
		cli_line(stdout, "    uid %u: %llu denied, %llu audited", st->counts[i].key.uid,
			 den, aud);
	}
}

static void view_walk(const struct doc_sink *doc, const void *arg)
{
	const struct enforce_status_view *m = arg;
	const struct enf_status *st = m->st;
	doc_uint(doc, "exit", (unsigned long long)m->rc);
	doc_str(doc, "state", enf_guard_word(m->state));
	if (m->err) {
		/* What is pinned could not be read: attached or not is unknown. */
		doc_null(doc, "attached");
		doc_str(doc, "error", st->why);
		doc_null(doc, "protects");
		doc_null(doc, "verified");
		return;
	}
	doc_bool(doc, "attached", st->attached);
	doc_null(doc, "error");
	doc_bool(doc, "protects", st->attached && st->verify.verified && st->cfg.enforce);
	enforce_verify_data(doc, &st->verify);
	if (!st->attached) {
		const struct kernel_view *k = &m->k;
		doc_str(doc, "why", st->why);
		doc_open(doc, "policy", false);
		doc_bool(doc, "would_attach", m->pl.policy.watch);
		doc_str(doc, "mode", guard_mode_name(m->pl.policy.mode));
		doc_str(doc, "reason", m->pl.policy.reason);
		doc_end(doc);
		doc_open(doc, "kernel", false);
		doc_bool(doc, "btf", k->btf > 0);
		if (k->bpf_lsm < 0)
			doc_null(doc, "bpf_lsm");
		else
			doc_bool(doc, "bpf_lsm", k->bpf_lsm > 0);
		doc_str(doc, "lsm", k->lsm_rc >= 0 ? k->lsm : NULL);
		doc_str(doc, "lsm_error", k->lsm_rc >= 0 ? NULL : strerror((int)-k->lsm_rc));
		if (k->bpffs < 0)
			doc_null(doc, "bpffs");
		else
			doc_bool(doc, "bpffs", k->bpffs > 0);
		doc_end(doc);
		return;
	}
	const struct pmug_enf_config *c = &st->cfg;
	doc_null(doc, "why");
	doc_str(doc, "attach", enf_attach_name(st->attach));
	enforce_config_data(doc, c);
	doc_open(doc, "program", false);
	doc_uint(doc, "id", st->prog_id);
	doc_uint(doc, "link_id", st->link_id);
	doc_uint(doc, "xlated_insns", st->xlated_insns);
	doc_uint(doc, "jited_bytes", st->jited_bytes);
	doc_hex(doc, "object", false, c->object);
	doc_end(doc);
	/* kernel.bpf_stats_enabled=1 counts runs; 0 runs: not counted (null). */
	doc_open(doc, "runs", false);
	if (st->run_cnt) {
		doc_uint(doc, "count", st->run_cnt);
		doc_uint(doc, "time_ns", st->run_time_ns);
		doc_uint(doc, "mean_ns", st->run_time_ns / st->run_cnt);
	} else {
		doc_null(doc, "count");
		doc_null(doc, "time_ns");
		doc_null(doc, "mean_ns");
	}
	doc_end(doc);
	const struct pmug_enf_totals *tt = &st->totals;
	doc_open(doc, "totals", false);
	doc_uint(doc, "denied", tt->denied);
	doc_uint(doc, "audited", tt->audited);
	doc_uint(doc, "reports_lost", tt->lost_events);
	doc_uint(doc, "keys_not_counted", tt->lost_keys);
	doc_end(doc);
	doc_uint(doc, "encodings", st->n_counts_total);
	doc_open(doc, "by_encoding", true);
	for (unsigned i = 0; i < st->n_counts; i++) {
		const struct enf_count *e = &st->counts[i];
		char comm[17];
		enforce_comm_str(comm, e->val.last_comm);
		enum guard_hit hit = enforce_key_hit(e->key.code);
		doc_open(doc, NULL, false);
		doc_str(doc, "decision", e->key.denied ? "denied" : "audited");
		doc_uint(doc, "uid", e->key.uid);
		doc_uint(doc, "pmu_type", e->key.pmu_type);
		doc_hex(doc, "config", false, e->key.code);
		doc_uint(doc, "calls", e->val.calls);
		doc_uint(doc, "last_pid", e->val.last_pid);
		doc_str(doc, "last_comm", comm);
		doc_str(doc, "hit", enforce_hit_word(hit));
		doc_str(doc, "name", guard_hit_name(hit, e->key.code));
		doc_end(doc);
	}
	doc_end(doc);
	doc_open(doc, "by_uid", true);
	for (unsigned i = 0; i < st->n_counts; i++) {
		if (!uid_first(st, i))
			continue;
		unsigned long long den, aud;
		uid_sums(st, i, &den, &aud);
		doc_open(doc, NULL, false);
		doc_uint(doc, "uid", st->counts[i].key.uid);
		doc_uint(doc, "denied", den);
		doc_uint(doc, "audited", aud);
		doc_end(doc);
	}
	doc_end(doc);
	enforce_existing_data(doc, m->ex, c);
}

int cmd_enforce_status(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_FORM_OPTIONS,
		{"snapshot", required_argument, NULL, 's'},
		CLI_HELP_OPTION_END,
	};
	enum doc_form form = DOC_FORM_TEXT;
	const char *snapshot = NULL;
	int ch;
	while ((ch = getopt_long(argc, argv, "+s:h", opts, NULL)) != -1) {
		if (ch == 's') {
			snapshot = optarg;
		} else if (ch == CLI_OPT_JSON || ch == CLI_OPT_KEYS) {
			cli_form_option(&form, ch, "enforce status");
		} else if (ch == 'h') {
			fputs(enforce_usage, stdout);
			return EXIT_OK;
		} else {
			die_bad_option("enforce status", argv, "s:h");
		}
	}
	if (optind < argc)
		die_usage("enforce status: unexpected argument '%s'", argv[optind]);
	struct enforce_status_view m = {.rc = EXIT_OK};
	m.st = calloc(1, sizeof(*m.st));
	if (!m.st)
		die_errno("out of memory");
	m.err = enf_status_read(ENF_PIN_DIR, m.st, ENF_STATUS_VERIFY);
	m.state = enf_guard_decide(m.err == 0, m.st->attached, m.st->verify.verified,
				   m.st->cfg.enforce != 0);
	if (m.state == ENF_GUARD_DETACHED) {
		/* What a start would do: on the facts named (lock = yes
		 * applies: the settings say what they ignored), else live. */
		enforce_plan_make(&m.pl, -1, snapshot, !snapshot);
		kernel_read(&m.k);
	} else if (m.state != ENF_GUARD_UNKNOWN) {
		m.ex = enforce_existing_list(&m.st->cfg);
	}
	m.rc = enforce_state_exit(m.state, m.ex, &m.st->cfg);
	if (form == DOC_FORM_TEXT) {
		view_text(&m);
	} else {
		enforce_doc_print(form, view_walk, &m);
		if (m.err)
			cli_line(stderr, "pmuguard: enforce: status: %s", m.st->why);
	}
	free(m.ex);
	free(m.pl.f);
	free(m.st);
	return m.rc;
}


/* ---- ready ------------------------------------------------------------------ */

static void ready_text(int rc, const struct enf_status *st, const struct enf_existing *ex)
{
	cli_put(stdout, "%s: %s, verified %s", rc ? "not ready" : "ready",
		enf_attach_name(st->attach), st->verify.verified ? "true" : "false");
	if (rc == EXIT_AUDIT) {
		cli_line(stdout, ": " ENFORCE_AUDIT_WORDS
				 " (mode audit: it counts and allows) on a node whose facts "
				 "called for a guard");
		return;
	}
	if (rc == EXIT_EXISTING_EVENTS) {
		bool one = ex->n_hits == 1;
		cli_put(stdout,
			": %u perf event%s of the counter-3 class opened before the guard %s not "
			"guarded (",
			ex->n_hits, one ? "" : "s", one ? "is" : "are");
		for (unsigned i = 0; i < ex->n_listed; i++) {
			char comm[17];
			enforce_comm_str(comm, ex->ev[i].f.comm);
			cli_put(stdout, "%spid %u %s", i ? ", " : "", ex->ev[i].f.tgid, comm);
		}
		if (ex->n_hits > ex->n_listed)
			cli_put(stdout, ", %u more", ex->n_hits - ex->n_listed);
		cli_line(stdout, "); enabled, %s can still panic the node: restart %s",
			 one ? "it" : "each", one ? "that process" : "those processes");
		return;
	}
	if (rc == EXIT_OK && ex && !ex->known)
		cli_put(stdout, "; events opened before the guard: unknown (%s)", ex->why);
	putchar('\n');
}

/* `enforce ready`: the readiness probe.  Exit 0 only on what is seen now:
 * the pinned guard passes its self-test again, denies, and no event of the
 * class opened before it is left, or this node's policy needs no guard;
 * else 6 (none attached where one is needed), 7 (events opened before the
 * guard escape it), 8 (attached, the self-test fails), 9 (audit mode) or
 * 1.  A node that can still panic is not ready: a DaemonSet's rollout
 * stops there. */
int cmd_enforce_ready(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		die_usage("enforce ready takes no arguments");
	struct enf_status *st = calloc(1, sizeof(*st));
	if (!st)
		die_errno("out of memory");
	int rc;
	int err = enf_status_read(ENF_PIN_DIR, st, ENF_STATUS_VERIFY);
	if (err) {
		cli_line(stdout, "not ready: %s", st->why);
		rc = EXIT_INTERNAL;
	} else if (st->attached) {
		enum enf_guard g = enf_guard_decide(true, true, st->verify.verified,
						    st->cfg.enforce != 0);
		struct enf_existing *ex = NULL;
		if (g == ENF_GUARD_ATTACHED)
			ex = enforce_existing_list(&st->cfg);
		rc = enforce_state_exit(g, ex, &st->cfg);
		ready_text(rc, st, ex);
		free(ex);
	} else {
		struct enforce_plan pl;
		enforce_plan_make(&pl, -1, NULL, true);
		rc = pl.policy.watch ? EXIT_NOT_ATTACHED : EXIT_OK;
		cli_line(stdout, "%s: %s (%s)", rc ? "not ready" : "ready",
			 rc ? "no guard attached where the policy wants one" : "no guard needed",
			 pl.policy.reason);
		free(pl.f);
	}
	free(st);
	return rc;
}

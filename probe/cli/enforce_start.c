// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard enforce start [--mode M] [--snapshot DIR] [--attach A]
 *                       [--keep-unverified] [--json|--keys]
 * pmuguard enforce stop
 *
 * start: the policy for this machine, then where it wants a guard the
 * attach, the self-test and the pin (probe/enforce/enforce.c); one model,
 * rendered as text, JSON or keys.  The agent runs the same start.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "enforce_common.h"

static const char *const outcome_token[] = {
	[ENFORCE_OUT_ATTACHED] = "attached",	      [ENFORCE_OUT_ALREADY] = "already",
	[ENFORCE_OUT_REPLACED] = "replaced",	      [ENFORCE_OUT_NOTHING] = "nothing-to-attach",
	[ENFORCE_OUT_REFUSED] = "refused",
};

static void start_text(const struct enforce_start_model *m)
{
	const struct enforce_plan *pl = &m->pl;
	if (m->outcome == ENFORCE_OUT_NOTHING) {
		cli_line(stdout,
			 "pmuguard: enforce: nothing to attach (mode %s, facts from %s): %s",
			 guard_mode_name(pl->policy.mode),
			 pl->set.snapshot ? pl->set.snapshot : "this machine", pl->policy.reason);
		if (m->earlier)
			cli_line(
				stdout,
				"pmuguard: enforce: an earlier start is still attached (%s, mode %s); "
				"`pmuguard enforce stop` removes it",
				enf_attach_name(m->earlier->attach),
				guard_mode_name(m->earlier->cfg.mode));
		return;
	}
	if (m->r->mounted_bpffs)
		cli_line(stdout,
			 "pmuguard: enforce: nothing was mounted at %s: mounted bpffs there",
			 ENF_BPFFS);
	if (m->outcome == ENFORCE_OUT_REFUSED) {
		bool pinned = m->r->keep_unverified && m->err == -ENOEXEC;
		(void)enforce_needs_root_say(m->err); /* a user: the cause and remedy first */
		cli_line(stderr,
			 "pmuguard: enforce: could not attach the kernel guard: %s. %s; the "
			 "preload and `pmuguard run` still guard what they reach.",
			 m->r->why,
			 pinned ? "It stays pinned, unverified, as --keep-unverified asked: "
				  "`pmuguard enforce stop` removes it"
				: "Nothing of this start was left attached or pinned (a guard an "
				  "earlier start attached is unchanged)");
		return;
	}
	/* What is attached now, with the facts and reason it was started on
	 * (an "already attached" guard keeps those of its own start). */
	const struct pmug_enf_config *c = &m->r->cfg;
	cli_put(stdout, "pmuguard: enforce: %s (%s, %s, mode %s, core PMU types ",
		m->outcome == ENFORCE_OUT_ALREADY    ? "already attached"
		: m->outcome == ENFORCE_OUT_REPLACED ? "replaced and attached"
					     : "attached",
		enf_attach_name(m->r->attach), c->enforce ? "denying with ENOENT" : "audit only",
		guard_mode_name((enum guard_mode)c->mode));
	enforce_print_types(stdout, c->core_types, c->n_core);
	cli_line(stdout, ", facts from %s): %s", enforce_facts_from_words(c), c->reason);
	enforce_verify_text("pmuguard: enforce: ", &m->r->verify);
	if (!c->enforce)
		cli_line(
			stdout,
			"pmuguard: enforce: " ENFORCE_AUDIT_WORDS
			": it counts what it would deny and allows "
			"it; this host is not protected (`enforce status` and `enforce ready` exit "
			"9)");
	if (m->r->refused[0])
		cli_line(stdout, "pmuguard: enforce: not kept before it: %s", m->r->refused);
	enforce_existing_text("pmuguard: enforce: ", "  ", m->ex, c);
}

struct start_doc {
	const struct enforce_start_model *m;
	const char *event;
};

static void start_walk(const struct doc_sink *doc, const void *arg)
{
	const struct enforce_start_model *m = ((const struct start_doc *)arg)->m;
	const char *event = ((const struct start_doc *)arg)->event;
	if (event)
		doc_str(doc, "event", event); /* agent: its log lines say what each is */
	doc_str(doc, "outcome", outcome_token[m->outcome]);
	doc_uint(doc, "exit", (unsigned long long)m->rc);
	if (m->outcome == ENFORCE_OUT_NOTHING || m->outcome == ENFORCE_OUT_REFUSED) {
		/* This start's policy; refused: what the kernel said. */
		const struct enforce_plan *pl = &m->pl;
		doc_str(doc, "error", m->outcome == ENFORCE_OUT_REFUSED ? m->r->why : NULL);
		doc_null(doc, "attach");
		doc_bool(doc, "protects", false);
		if (m->outcome == ENFORCE_OUT_REFUSED) {
			enforce_verify_data(doc, &m->r->verify);
			doc_str(doc, "refused", m->r->refused[0] ? m->r->refused : NULL);
			doc_bool(doc, "pinned_unverified",
					m->r->keep_unverified && m->err == -ENOEXEC);
			doc_bool(doc, "mounted_bpffs", m->r->mounted_bpffs);
		}
		doc_str(doc, "mode", guard_mode_name(pl->policy.mode));
		doc_bool(doc, "enforce", pl->policy.watch && pl->policy.enforce);
		doc_open(doc, "facts", false);
		doc_str(doc, "state", probe_state_name(pl->v.state));
		doc_str(doc, "source", pl->set.snapshot ? "snapshot" : "live");
		doc_str(doc, "snapshot", pl->set.snapshot);
		doc_end(doc);
		doc_str(doc, "reason", pl->policy.reason);
		if (m->outcome == ENFORCE_OUT_NOTHING) {
			doc_open(doc, "earlier", false);
			doc_bool(doc, "attached", m->earlier != NULL);
			if (m->earlier) {
				doc_str(doc, "attach", enf_attach_name(m->earlier->attach));
				doc_str(
					doc, "mode",
					guard_mode_name((enum guard_mode)m->earlier->cfg.mode));
			}
			doc_end(doc);
		}
	} else {
		doc_null(doc, "error");
		doc_str(doc, "attach", enf_attach_name(m->r->attach));
		doc_bool(doc, "protects", m->r->verify.verified && m->r->cfg.enforce);
		enforce_verify_data(doc, &m->r->verify);
		doc_str(doc, "refused", m->r->refused[0] ? m->r->refused : NULL);
		doc_bool(doc, "mounted_bpffs", m->r->mounted_bpffs);
		enforce_config_data(doc, &m->r->cfg);
		enforce_existing_data(doc, m->ex, &m->r->cfg);
	}
}

void enforce_start_data(const struct enforce_start_model *m, enum doc_form form, const char *event)
{
	const struct start_doc a = {m, event};
	enforce_doc_print(form, start_walk, &a);
}

void enforce_start_option(int ch, const char *arg, struct enforce_start_opts *o)
{
	if (ch == 'm') {
		o->mode = guard_mode_parse(arg);
		if (o->mode < 0)
			die_usage("enforce: --mode is auto, always, audit or off, not '%s'", arg);
	} else if (ch == 's') {
		o->snapshot = arg;
	} else if (!strcmp(arg, "lsm")) {
		o->attach = PMUG_ENF_ATTACH_LSM;
	} else if (!strcmp(arg, "fmod_ret")) {
		o->attach = PMUG_ENF_ATTACH_FMOD_RET;
	} else if (strcmp(arg, "auto")) {
		die_usage("enforce: --attach is auto, lsm or fmod_ret, not '%s'", arg);
	}
}

/* What start does, for start and for the agent: the policy, then the
 * attach, the self-test and the pin where it wants a guard. */
void enforce_start_run(struct enforce_start_model *m, int mode, const char *snapshot, unsigned attach,
	       bool keep_unverified)
{
	*m = (struct enforce_start_model){.rc = EXIT_OK};
	enforce_plan_make(&m->pl, mode, snapshot, false);
	if (!m->pl.policy.watch) {
		m->outcome = ENFORCE_OUT_NOTHING;
		struct enf_status *st = calloc(1, sizeof(*st));
		if (st && enf_status_read(ENF_PIN_DIR, st, 0) == 0 && st->attached)
			m->earlier = st;
		else
			free(st);
		return;
	}
	struct pmug_enf_config cfg;
	enf_config_fill(&cfg, &m->pl.policy, m->pl.v.state, m->pl.set.snapshot, attach, time(NULL));
	m->r = calloc(1, sizeof(*m->r));
	if (!m->r)
		die_errno("out of memory");
	m->err = enf_start(&cfg, ENF_PIN_DIR, keep_unverified, m->r);
	if (m->err) {
		m->outcome = ENFORCE_OUT_REFUSED;
		m->rc = EXIT_ENFORCE_FAILED;
		return;
	}
	m->outcome = m->r->already ? ENFORCE_OUT_ALREADY : m->r->replaced ? ENFORCE_OUT_REPLACED : ENFORCE_OUT_ATTACHED;
	/* After the attach: from here on no event of the class can be
	 * allocated, so what the iterator finds is all there will be. */
	m->ex = enforce_existing_list(&m->r->cfg);
	m->rc = enforce_existing_rc(m->ex, &m->r->cfg);
}

void enforce_start_refused_say(const struct enforce_start_model *m, enum doc_form form, bool repeat)
{
	if (m->outcome != ENFORCE_OUT_REFUSED)
		return;
	/* The text said the refusal, its cause and remedy first; the data
	 * said the refusal on stdout, and people still read stderr. */
	if (form != DOC_FORM_TEXT)
		(void)enforce_needs_root_say(m->err);
	if (form != DOC_FORM_TEXT && repeat)
		cli_line(stderr, "pmuguard: enforce: could not attach the kernel guard: %s",
			 m->r->why);
	enforce_hint(m->err);
	if (m->pl.set.log == GUARD_LOG_DEBUG && m->r->log[0]) {
		/* Its lines each through the escaper: what they quote cannot
		 * drive a terminal, and each stays a line of its own. */
		fputs("pmuguard: enforce: libbpf said:\n", stderr);
		for (const char *at = m->r->log; *at;) {
			size_t n = strcspn(at, "\n");
			cli_line(stderr, "%.*s", (int)n, at);
			at += n + (at[n] == '\n');
		}
	}
}

void enforce_start_free(struct enforce_start_model *m)
{
	free(m->ex);
	free(m->earlier);
	free(m->r);
	free(m->pl.f);
}

int cmd_enforce_start(int argc, char **argv)
{
	static const struct option opts[] = {
		ENFORCE_START_OPTIONS,
		{"keep-unverified", no_argument, NULL, 'U'},
		CLI_FORM_OPTIONS,
		CLI_HELP_OPTION_END,
	};
	int ch;
	bool keep_unverified = false;
	struct enforce_start_opts so = ENFORCE_START_OPTS_INIT;
	enum doc_form form = DOC_FORM_TEXT;
	while ((ch = getopt_long(argc, argv, "+m:s:a:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
		case 's':
		case 'a':
			enforce_start_option(ch, optarg, &so);
			break;
		case 'U':
			keep_unverified = true;
			break;
		case CLI_OPT_JSON:
		case CLI_OPT_KEYS:
			cli_form_option(&form, ch, "enforce start");
			break;
		case 'h':
			fputs(enforce_usage, stdout);
			return EXIT_OK;
		default:
			die_bad_option("enforce start", argv, "m:s:a:h");
		}
	}
	if (optind < argc)
		die_usage("enforce start: unexpected argument '%s'", argv[optind]);

	struct enforce_start_model m;
	enforce_start_run(&m, so.mode, so.snapshot, so.attach, keep_unverified);
	if (form == DOC_FORM_TEXT)
		start_text(&m);
	else
		enforce_start_data(&m, form, NULL);
	enforce_start_refused_say(&m, form, true);
	enforce_start_free(&m);
	return m.rc;
}

int cmd_enforce_stop(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		die_usage("enforce stop takes no arguments");
	char why[512] = "";
	int err = enf_stop(ENF_PIN_DIR, why, sizeof(why));
	if (err == -ENOENT) {
		cli_line(stdout, "pmuguard: enforce: nothing was attached (%s)", why);
		return EXIT_OK;
	}
	if (err) {
		cli_line(stderr, "pmuguard: enforce: stop: %s", why);
		return EXIT_INTERNAL;
	}
	cli_line(stdout, "pmuguard: enforce: stopped; %s is unpinned and the guard detached",
		 ENF_PIN_DIR);
	return EXIT_OK;
}


// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the verbs of `pmuguard enforce` share: their documents, through the
 * command's one writer (../doc/), the policy for this machine, and the
 * guard's configuration, self-test and the events that existed
 * before it, as text and as data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "enforce_common.h"

/* ---- The documents ---------------------------------------------------------- */

struct doc_head {
	doc_walker *walk;
	const void *arg;
};

/* Every document: its object, and schema, version and generated_at first. */
static void doc_walk(const struct doc_sink *doc, const void *arg)
{
	const struct doc_head *h = arg;
	doc_open_head(doc, ENFORCE_OUTPUT_SCHEMA, PMUGUARD_VERSION);
	h->walk(doc, h->arg);
	doc_end(doc);
}

void enforce_doc_print(enum doc_form form, doc_walker *walk, const void *arg)
{
	const struct doc_head h = {walk, arg};
	if (form == DOC_FORM_KEYS)
		doc_write_keys(stdout, doc_walk, &h);
	else
		doc_write_json(stdout, doc_walk, &h);
	fflush(stdout); /* follow's and the agent's lines are read as they come */
}

/* A lifecycle line of follow --json and the agent (enforce_common.h). */
struct life_doc {
	const char *event, *when, *key, *value;
};

static void life_walk(const struct doc_sink *doc, const void *arg)
{
	const struct life_doc *a = arg;
	doc_str(doc, "event", a->event);
	doc_str(doc, "time", a->when);
	if (a->key)
		doc_str(doc, a->key, a->value);
}

void enforce_life_json(const char *event, const char *key, const char *value)
{
	char when[32];
	doc_time_utc(when, sizeof(when), time(NULL), DOC_TIME_ISO);
	const struct life_doc a = {event, when, key, value};
	enforce_doc_print(DOC_FORM_JSON, life_walk, &a);
}

/* ---- What the policy says ---------------------------------------------------- */

void enforce_plan_make(struct enforce_plan *pl, int mode, const char *snapshot, bool quiet)
{
	struct guard_cli cli = {.mode = mode, .snapshot = snapshot};
	cli_settings(&pl->set, &cli, quiet, NULL);
	if (pl->set.snapshot) {
		pl->set.snapshot = cli_snapshot_path(pl->set.snapshot, pl->set.snapshot_dir);
		if (realpath(pl->set.snapshot, pl->snapshot))
			pl->set.snapshot = pl->snapshot;
	}
	pl->f = calloc(1, sizeof(*pl->f));
	if (!pl->f)
		die_errno("out of memory");
	guard_policy_for(&pl->set, pl->f, &pl->v, &pl->policy);
}

void enforce_print_types(FILE *out, const unsigned *types, unsigned n)
{
	for (unsigned i = 0; i < n && i < GUARD_RULE_MAX_CORE; i++)
		cli_put(out, "%s%u", i ? ", " : "", types[i]);
}

/* "type 4: fixed counter 3; type 9: fixed counters 4, 5 and 6" */
void enforce_print_hazards(FILE *out, const struct pmug_enf_config *c)
{
	for (unsigned i = 0; i < c->n_core && i < GUARD_RULE_MAX_CORE; i++) {
		uint32_t set = c->core_hazard[i] & GUARD_RULE_HAZARD_ALL;
		char words[64];
		probe_fixed_words(set, words, sizeof(words));
		cli_put(out, "%stype %u: %s%s", i ? "; " : "", c->core_types[i],
			!set                ? "none"
			: (set & (set - 1)) ? "fixed counters "
					    : "fixed counter ",
			words);
	}
}

/* A user's start: the cause and its remedy lead (issue 50, item 14), the
 * kernel's refusal follows as its detail. */
bool enforce_needs_root_say(int err)
{
	if ((err != -EPERM && err != -EACCES) || geteuid() == 0)
		return false;
	cli_line(stderr,
		 "pmuguard: enforce: run it as root (it needs CAP_BPF and CAP_PERFMON, or "
		 "CAP_SYS_ADMIN): the kernel refused uid %u",
		 (unsigned)geteuid());
	return true;
}

/* Why the kernel may have said no, in words an operator can act on. */
void enforce_hint(int err)
{
	if (err != -EPERM && err != -EACCES)
		return;
	char buf[128];
	if (probe_read_small("/sys/kernel/security/lockdown", buf, sizeof(buf)) > 0 &&
	    !strstr(buf, "[none]"))
		cli_line(stderr, "pmuguard: enforce: kernel lockdown is on (%s)", buf);
	else if (geteuid() == 0)
		fputs("pmuguard: enforce: refused although run as root: this kernel (its lockdown, "
		      "a security module or its build) does not let BPF trampoline or LSM programs "
		      "load\n",
		      stderr);
}

const char *enforce_hit_word(enum guard_hit hit)
{
	return hit == GUARD_HIT_SLOTS    ? "slots"
	       : hit == GUARD_HIT_METRIC ? "metric"
	       : hit == GUARD_HIT_FIXED  ? "fixed"
					 : "none";
}

/* A counted key's class: the program counts hits only, so any table and
 * every guarded counter name it. */
enum guard_hit enforce_key_hit(unsigned code)
{
	return guard_rule_config(code, GUARD_TABLE_ETD, GUARD_RULE_HAZARD_ALL);
}

/* A comm as the kernel keeps it (16 bytes, NUL-terminated when shorter),
 * as a string, its bytes kept: any process names itself, so the text
 * prints it through the one escaper (cli_line, cli_put) and data through
 * the writer's, and its name cannot drive a terminal or add a line. */
void enforce_comm_str(char out[17], const char in[16])
{
	memcpy(out, in, 16);
	out[16] = '\0';
}

/* ---- The guard's rodata: what it was started on ----------------------------- */

const char *enforce_facts_from_words(const struct pmug_enf_config *c)
{
	return c->facts_from[0] ? c->facts_from : "this machine";
}

/* The configuration of a guard: how it judges, and what it was decided on. */
void enforce_config_data(const struct doc_sink *doc, const struct pmug_enf_config *c)
{
	doc_str(doc, "mode", guard_mode_name((enum guard_mode)c->mode));
	doc_bool(doc, "enforce", c->enforce != 0);
	doc_open(doc, "core_types", true);
	for (unsigned i = 0; i < c->n_core && i < GUARD_RULE_MAX_CORE; i++)
		doc_uint(doc, NULL, c->core_types[i]);
	doc_end(doc);
	/* Each type's hazard set: the fixed counters whose encodings it denies. */
	doc_open(doc, "core_pmus", true);
	for (unsigned i = 0; i < c->n_core && i < GUARD_RULE_MAX_CORE; i++) {
		doc_open(doc, NULL, false);
		doc_uint(doc, "type", c->core_types[i]);
		doc_open(doc, "hazard_counters", true);
		for (unsigned n = GUARD_RULE_COUNTER_FIRST; n <= GUARD_RULE_COUNTER_LAST; n++)
			if ((c->core_hazard[i] >> n) & 1)
				doc_uint(doc, NULL, n);
		doc_end(doc);
		doc_str(doc, "table",
			       c->core_table[i] == GUARD_TABLE_ETD ? "e-core-topdown" : "pseudo");
		doc_end(doc);
	}
	doc_end(doc);
	doc_open(doc, "facts", false);
	doc_str(doc, "state", probe_state_name((enum probe_state)c->state));
	doc_str(doc, "source", c->facts_from[0] ? "snapshot" : "live");
	doc_str(doc, "snapshot", c->facts_from[0] ? c->facts_from : NULL);
	doc_end(doc);
	doc_str(doc, "reason", c->reason);
	char when[32];
	doc_uint(doc, "started", c->started);
	if (doc_time_utc(when, sizeof(when), (time_t)c->started, DOC_TIME_ISO))
		doc_str(doc, "started_utc", when);
	else
		doc_null(doc, "started_utc");
}

/* ---- The self-test ---------------------------------------------------------- */

/* "verified": true only where the canary came back refused by this very
 * program; "verification" says when, and why not. */
void enforce_verify_data(const struct doc_sink *doc, const struct enf_verify *v)
{
	doc_bool(doc, "verified", v->ran && v->verified);
	doc_open(doc, "verification", false);
	doc_bool(doc, "ran", v->ran);
	if (v->ran) {
		char when[32];
		doc_time_utc(when, sizeof(when), v->at, DOC_TIME_ISO);
		doc_uint(doc, "checked_at", (unsigned long long)v->at);
		doc_str(doc, "checked_utc", when);
		doc_str(doc, "canary_errno",
			       v->open_errno ? strerrorname_np(v->open_errno) : NULL);
		doc_uint(doc, "canaries_refused", v->answered);
	} else {
		doc_null(doc, "checked_at");
		doc_null(doc, "checked_utc");
		doc_null(doc, "canary_errno");
		doc_null(doc, "canaries_refused");
	}
	doc_str(doc, "why", v->verified ? NULL : v->why[0] ? v->why : "not checked");
	doc_end(doc);
}

void enforce_verify_text(const char *lead, const struct enf_verify *v)
{
	if (v->ran && v->verified)
		cli_line(
			stdout,
			"%sverified: the self-test's canary event was refused by the program just "
			"now: it runs and judges every perf_event_open (%llu canar%s refused since "
			"it was loaded)",
			lead, v->answered, v->answered == 1 ? "y" : "ies");
	else
		cli_line(stdout, "%sNOT VERIFIED: %s. This guard does not protect the host.", lead,
			 v->why[0] ? v->why : "the self-test did not run");
}

/* ---- The events that existed before the guard ------------------------------ */

/* The perf events that exist now, judged with cfg's rule (the attached
 * program's). */
struct enf_existing *enforce_existing_list(const struct pmug_enf_config *cfg)
{
	struct enf_existing *ex = calloc(1, sizeof(*ex));
	if (!ex)
		die_errno("out of memory");
	enf_existing_read(ex, cfg);
	return ex;
}

/* EXIT_EXISTING_EVENTS where cfg denies and one of the class exists, else
 * EXIT_OK (audit mode lists them and is content; unknown is no warning). */
int enforce_existing_rc(const struct enf_existing *ex, const struct pmug_enf_config *cfg)
{
	return ex->known && ex->n_hits && cfg->enforce ? EXIT_EXISTING_EVENTS : EXIT_OK;
}

/* Does an attached guard protect the host?  status and ready answer the
 * same, from the state's table (../enforce/enforce_state.c): 8 it does
 * not run; 9 it runs in audit mode, which the policy attaches only where
 * the facts found the hazard, and which allows every call; 7 it denies,
 * but events of the class opened before it escape it (enabled, each still
 * reaches the counter); 0 it protects. */
int enforce_state_exit(enum enf_guard g, const struct enf_existing *ex,
		       const struct pmug_enf_config *cfg)
{
	bool escaped = g == ENF_GUARD_ATTACHED && ex &&
		       enforce_existing_rc(ex, cfg) == EXIT_EXISTING_EVENTS;
	return enf_guard_exit(g, escaped);
}

/* lead starts the summary line, indent each event's line.  Where the
 * iterator cannot run, "unknown (why)", never "none". */
void enforce_existing_text(const char *lead, const char *indent, const struct enf_existing *ex,
		   const struct pmug_enf_config *cfg)
{
	if (!ex->known) {
		cli_line(stdout, "%sexisting events: unknown (%s)", lead, ex->why);
	} else if (!ex->n_hits) {
		cli_line(
			stdout,
			"%sexisting events: none of the counter-3 class (%u perf event file%s open, "
			"judged with the guard's rule)",
			lead, ex->n_files, ex->n_files == 1 ? "" : "s");
	} else if (cfg->enforce) {
		bool one = ex->n_hits == 1;
		cli_line(stdout,
			 "%swarning: existing events: %u of the counter-3 class, allocated before "
			 "the guard was attached. The kernel judges an event once, when it is "
			 "allocated, so the guard cannot stop %s: %s unguarded until its owner "
			 "closes it (restart %s):",
			 lead, ex->n_hits, one ? "it" : "them", one ? "it is" : "each is",
			 one ? "that process" : "those processes");
	} else {
		cli_line(
			stdout,
			"%sexisting events: %u of the counter-3 class (audit mode: allowed, whenever "
			"they were opened):",
			lead, ex->n_hits);
	}
	for (unsigned i = 0; ex->known && i < ex->n_listed; i++) {
		const struct enf_existing_event *e = &ex->ev[i];
		char comm[17];
		enforce_comm_str(comm, e->f.comm);
		cli_line(stdout,
			 "%spid %u comm %s fd %u: type %u config 0x%llx hw.config 0x%llx hit %s, "
			 "state %s, event id %llu%s: %s",
			 indent, e->f.tgid, comm, e->f.fd, e->f.attr_type, e->f.attr_config,
			 e->f.hw_config, enforce_hit_word(e->hit), enf_state_name(e->f.state), e->f.id,
			 e->f.inherit ? ", inherit (copies its children got before the start are "
					"unguarded too; a fork after it fails with ENOENT)"
				      : "",
			 guard_hit_name(e->hit, e->judged));
	}
	if (ex->known && ex->n_hits > ex->n_listed)
		cli_line(stdout, "%s(%u more)", indent, ex->n_hits - ex->n_listed);
}

void enforce_existing_data(const struct doc_sink *doc, const struct enf_existing *ex,
		   const struct pmug_enf_config *cfg)
{
	doc_open(doc, "existing", false);
	doc_bool(doc, "known", ex->known);
	if (!ex->known) {
		doc_str(doc, "why", ex->why);
		doc_end(doc);
		return;
	}
	doc_uint(doc, "files", ex->n_files);
	doc_uint(doc, "hits", ex->n_hits);
	/* Exit 7: a denying guard, and events of the class it cannot stop. */
	doc_bool(doc, "unguarded", enforce_existing_rc(ex, cfg) == EXIT_EXISTING_EVENTS);
	doc_open(doc, "events", true);
	for (unsigned i = 0; i < ex->n_listed; i++) {
		const struct enf_existing_event *e = &ex->ev[i];
		char comm[17];
		enforce_comm_str(comm, e->f.comm);
		doc_open(doc, NULL, false);
		doc_uint(doc, "pid", e->f.tgid);
		doc_str(doc, "comm", comm);
		doc_uint(doc, "fd", e->f.fd);
		doc_uint(doc, "type", e->f.attr_type);
		doc_hex(doc, "config", false, e->f.attr_config);
		doc_hex(doc, "hw_config", false, e->f.hw_config);
		doc_str(doc, "hit", enforce_hit_word(e->hit));
		doc_str(doc, "name", guard_hit_name(e->hit, e->judged));
		doc_str(doc, "state", enf_state_token(e->f.state));
		doc_uint(doc, "event_id", e->f.id);
		doc_bool(doc, "inherit", e->f.inherit != 0);
		doc_end(doc);
	}
	doc_end(doc);
	doc_end(doc);
}

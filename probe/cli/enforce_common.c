// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the verbs of `pmuguard enforce` share: the policy for this machine,
 * and the guard's configuration, self-test and the events that existed
 * before it, as text and as data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "enforce_common.h"

void plan_make(struct plan *pl, int mode, const char *snapshot, bool quiet)
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

void print_types(FILE *out, const unsigned *types, unsigned n)
{
	for (unsigned i = 0; i < n && i < GUARD_RULE_MAX_CORE; i++)
		fprintf(out, "%s%u", i ? ", " : "", types[i]);
}

/* "type 4: fixed counter 3; type 9: fixed counters 4, 5 and 6" */
void print_hazards(FILE *out, const struct pmug_enf_config *c)
{
	for (unsigned i = 0; i < c->n_core && i < GUARD_RULE_MAX_CORE; i++) {
		uint32_t set = c->core_hazard[i] & GUARD_RULE_HAZARD_ALL;
		char words[64];
		probe_fixed_words(set, words, sizeof(words));
		fprintf(out, "%stype %u: %s%s", i ? "; " : "", c->core_types[i],
			!set ? "none" : (set & (set - 1)) ? "fixed counters " : "fixed counter ", words);
	}
}

/* Why the kernel may have said no, in words an operator can act on. */
void hint(int err)
{
	if (err != -EPERM && err != -EACCES)
		return;
	if (geteuid() != 0)
		fputs("pmuguard: enforce: run it as root (it needs CAP_BPF and CAP_PERFMON, or "
		      "CAP_SYS_ADMIN)\n",
		      stderr);
	char buf[128];
	if (probe_read_small("/sys/kernel/security/lockdown", buf, sizeof(buf)) > 0 &&
	    !strstr(buf, "[none]"))
		fprintf(stderr, "pmuguard: enforce: kernel lockdown is on (%s)\n", buf);
	else if (geteuid() == 0)
		fputs("pmuguard: enforce: refused to root: this kernel (its lockdown, a security "
		      "module or its build) does not let BPF trampoline or LSM programs load\n",
		      stderr);
}

const char *hit_word(enum guard_hit hit)
{
	return hit == GUARD_HIT_SLOTS	 ? "slots"
	       : hit == GUARD_HIT_METRIC ? "metric"
	       : hit == GUARD_HIT_FIXED	 ? "fixed"
				       : "none";
}

/* A counted key's class: the program counts hits only, so any table and
 * every guarded counter name it. */
enum guard_hit key_hit(unsigned code)
{
	return guard_rule_config(code, GUARD_TABLE_ETD, GUARD_RULE_HAZARD_ALL);
}

/* A comm as the kernel keeps it (16 bytes, NUL-terminated when shorter),
 * as a string, its bytes kept: any process names itself, so the text
 * prints it through the one escaper (fput_safe) and data through the
 * writer's, and its name cannot drive a terminal or add a line. */
void comm_str(char out[17], const char in[16])
{
	memcpy(out, in, 16);
	out[16] = '\0';
}

/* ---- The guard's rodata: what it was started on ----------------------------- */

const char *facts_from_words(const struct pmug_enf_config *c)
{
	return c->facts_from[0] ? c->facts_from : "this machine";
}

/* The configuration of a guard: how it judges, and what it was decided on. */
void out_config(struct out *o, const struct pmug_enf_config *c)
{
	out_str(o, "mode", guard_mode_name((enum guard_mode)c->mode));
	out_bool(o, "enforce", c->enforce != 0);
	out_open(o, "core_types", true);
	for (unsigned i = 0; i < c->n_core && i < GUARD_RULE_MAX_CORE; i++)
		out_u64(o, NULL, c->core_types[i]);
	out_close(o);
	/* Each type's hazard set: the fixed counters whose encodings it denies. */
	out_open(o, "core_pmus", true);
	for (unsigned i = 0; i < c->n_core && i < GUARD_RULE_MAX_CORE; i++) {
		out_open(o, NULL, false);
		out_u64(o, "type", c->core_types[i]);
		out_open(o, "hazard_counters", true);
		for (unsigned n = GUARD_RULE_COUNTER_FIRST; n <= GUARD_RULE_COUNTER_LAST; n++)
			if ((c->core_hazard[i] >> n) & 1)
				out_u64(o, NULL, n);
		out_close(o);
		out_str(o, "table", c->core_table[i] == GUARD_TABLE_ETD ? "e-core-topdown" : "pseudo");
		out_close(o);
	}
	out_close(o);
	out_open(o, "facts", false);
	out_str(o, "state", probe_state_name((enum probe_state)c->state));
	out_str(o, "source", c->facts_from[0] ? "snapshot" : "live");
	out_str(o, "snapshot", c->facts_from[0] ? c->facts_from : NULL);
	out_close(o);
	out_str(o, "reason", c->reason);
	char when[32];
	out_u64(o, "started", c->started);
	if (cli_time_utc(when, sizeof(when), (time_t)c->started, CLI_TIME_ISO))
		out_str(o, "started_utc", when);
	else
		out_null(o, "started_utc");
}

/* ---- The self-test ---------------------------------------------------------- */

/* "verified": true only where the canary came back refused by this very
 * program; "verification" says when, and why not. */
void out_verify(struct out *o, const struct enf_verify *v)
{
	out_bool(o, "verified", v->ran && v->verified);
	out_open(o, "verification", false);
	out_bool(o, "ran", v->ran);
	if (v->ran) {
		char when[32];
		cli_time_utc(when, sizeof(when), v->at, CLI_TIME_ISO);
		out_u64(o, "checked_at", (unsigned long long)v->at);
		out_str(o, "checked_utc", when);
		out_str(o, "canary_errno", v->open_errno ? strerrorname_np(v->open_errno) : NULL);
		out_u64(o, "canaries_refused", v->answered);
	} else {
		out_null(o, "checked_at");
		out_null(o, "checked_utc");
		out_null(o, "canary_errno");
		out_null(o, "canaries_refused");
	}
	out_str(o, "why", v->verified ? NULL : v->why[0] ? v->why : "not checked");
	out_close(o);
}

void verify_text(const char *lead, const struct enf_verify *v)
{
	if (v->ran && v->verified)
		printf("%sverified: the self-test's canary event was refused by the program just "
		       "now: it runs and judges every perf_event_open (%llu canar%s refused since "
		       "it was loaded)\n",
		       lead, v->answered, v->answered == 1 ? "y" : "ies");
	else
		printf("%sNOT VERIFIED: %s. This guard does not protect the host.\n", lead,
		       v->why[0] ? v->why : "the self-test did not run");
}

/* ---- The events that existed before the guard ------------------------------ */

/* The perf events that exist now, judged with cfg's rule (the attached
 * program's). */
struct enf_existing *existing_read(const struct pmug_enf_config *cfg)
{
	struct enf_existing *ex = calloc(1, sizeof(*ex));
	if (!ex)
		die_errno("out of memory");
	enf_existing_read(ex, cfg);
	return ex;
}

/* EXIT_EXISTING_EVENTS where cfg denies and one of the class exists, else
 * EXIT_OK (audit mode lists them and is content; unknown is no warning). */
int existing_rc(const struct enf_existing *ex, const struct pmug_enf_config *cfg)
{
	return ex->known && ex->n_hits && cfg->enforce ? EXIT_EXISTING_EVENTS : EXIT_OK;
}

/* Does an attached guard protect the host?  status and ready answer the
 * same: 8 it does not run; 9 it runs in audit mode, which the policy
 * attaches only where the facts found the hazard, and which allows every
 * call; 7 it denies, but events of the class opened before it escape it
 * (enabled, each still reaches the counter); 0 it protects.  ex is read
 * only for a verified, denying guard (NULL otherwise). */
int attached_rc(const struct enf_status *st, const struct enf_existing *ex)
{
	if (!st->verify.verified)
		return EXIT_UNVERIFIED;
	if (!st->cfg.enforce)
		return EXIT_AUDIT;
	return existing_rc(ex, &st->cfg);
}

/* lead starts the summary line, indent each event's line.  Where the
 * iterator cannot run, "unknown (why)", never "none". */
void existing_text(const char *lead, const char *indent, const struct enf_existing *ex,
		   const struct pmug_enf_config *cfg)
{
	if (!ex->known) {
		printf("%sexisting events: unknown (%s)\n", lead, ex->why);
	} else if (!ex->n_hits) {
		printf("%sexisting events: none of the counter-3 class (%u perf event file%s open, "
		       "judged with the guard's rule)\n",
		       lead, ex->n_files, ex->n_files == 1 ? "" : "s");
	} else if (cfg->enforce) {
		bool one = ex->n_hits == 1;
		printf("%swarning: existing events: %u of the counter-3 class, allocated before "
		       "the guard was attached. The kernel judges an event once, when it is "
		       "allocated, so the guard cannot stop %s: %s unguarded until its owner "
		       "closes it (restart %s):\n",
		       lead, ex->n_hits, one ? "it" : "them", one ? "it is" : "each is",
		       one ? "that process" : "those processes");
	} else {
		printf("%sexisting events: %u of the counter-3 class (audit mode: allowed, whenever "
		       "they were opened):\n",
		       lead, ex->n_hits);
	}
	for (unsigned i = 0; ex->known && i < ex->n_listed; i++) {
		const struct enf_existing_event *e = &ex->ev[i];
		char comm[17];
		comm_str(comm, e->f.comm);
		printf("%spid %u comm ", indent, e->f.tgid);
		fput_safe(comm, stdout);
		printf(" fd %u: type %u config 0x%llx hw.config 0x%llx hit %s, "
		       "state %s, event id %llu%s: %s\n",
		       e->f.fd, e->f.attr_type, e->f.attr_config,
		       e->f.hw_config, hit_word(e->hit), enf_state_name(e->f.state), e->f.id,
		       e->f.inherit ? ", inherit (copies its children got before the start are "
				      "unguarded too; a fork after it fails with ENOENT)"
				    : "",
		       guard_hit_name(e->hit, e->judged));
	}
	if (ex->known && ex->n_hits > ex->n_listed)
		printf("%s(%u more)\n", indent, ex->n_hits - ex->n_listed);
}

void existing_data(struct out *o, const struct enf_existing *ex,
		   const struct pmug_enf_config *cfg)
{
	out_open(o, "existing", false);
	out_bool(o, "known", ex->known);
	if (!ex->known) {
		out_str(o, "why", ex->why);
		out_close(o);
		return;
	}
	out_u64(o, "files", ex->n_files);
	out_u64(o, "hits", ex->n_hits);
	/* Exit 7: a denying guard, and events of the class it cannot stop. */
	out_bool(o, "unguarded", existing_rc(ex, cfg) == EXIT_EXISTING_EVENTS);
	out_open(o, "events", true);
	for (unsigned i = 0; i < ex->n_listed; i++) {
		const struct enf_existing_event *e = &ex->ev[i];
		char comm[17];
		comm_str(comm, e->f.comm);
		out_open(o, NULL, false);
		out_u64(o, "pid", e->f.tgid);
		out_str(o, "comm", comm);
		out_u64(o, "fd", e->f.fd);
		out_u64(o, "type", e->f.attr_type);
		out_hex(o, "config", e->f.attr_config);
		out_hex(o, "hw_config", e->f.hw_config);
		out_str(o, "hit", hit_word(e->hit));
		out_str(o, "name", guard_hit_name(e->hit, e->judged));
		out_str(o, "state", enf_state_token(e->f.state));
		out_u64(o, "event_id", e->f.id);
		out_bool(o, "inherit", e->f.inherit != 0);
		out_close(o);
	}
	out_close(o);
	out_close(o);
}


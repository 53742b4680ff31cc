// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard enforce start [--mode auto|always|audit|off] [--snapshot DIR] [--json|--keys]
 * pmuguard enforce stop
 * pmuguard enforce status [--json|--keys]
 * pmuguard enforce follow        (also: pmuguard enforce --follow)
 *
 * The same facts, settings resolver and policy as the shim and `run`
 * decide whether anything is attached; probe/enforce/enforce.c attaches it.
 * start and status fill one model each and render it as text, JSON or
 * KEY=VALUE lines; follow reports the kernel program's decisions with the
 * reason kept in its rodata.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "denial.h"
#include "enforce.h"
#include "once.h"
#include "policy.h"
#include "settings.h"

#ifndef PMUGUARD_ENFORCE
int cmd_enforce(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("pmuguard: enforce: this pmuguard was built without kernel enforcement "
	      "(meson -Denforce=disabled, or libbpf, bpftool or clang missing at build time); "
	      "the preload and `pmuguard run` still guard what they reach\n",
	      stderr);
	return EXIT_NO_ENFORCE;
}
#else
#include <linux/magic.h>

static const char usage_text[] =
	"Usage: pmuguard enforce start [--mode auto|always|audit|off] [--snapshot DIR]\n"
	"                              [--attach auto|lsm|fmod_ret] [--keep-unverified]\n"
	"                              [--json|--keys]\n"
	"       pmuguard enforce stop\n"
	"       pmuguard enforce status [--json|--keys]\n"
	"       pmuguard enforce follow [--json]\n"
	"       pmuguard enforce agent [--mode M] [--snapshot DIR] [--attach A] [--remove-on-exit]\n"
	"       pmuguard enforce ready\n"
	"\n"
	"Guard every process on the host in the kernel: a BPF program on the LSM\n"
	"hook perf_event_alloc denies with ENOENT what lands on an unimplemented\n"
	"fixed counter (3-6).\n"
	"  start    attach it where the policy wants it (nothing on a healthy host),\n"
	"           prove that it runs (a self-test: a harmless canary event that\n"
	"           carries this load's nonce and that the program refuses), then pin\n"
	"           it in /sys/fs/bpf/pmuguard (mounting bpffs there if nothing is), so it\n"
	"           outlives the command; one that attaches but does not run is\n"
	"           detached again (exit 4)\n"
	"    --mode auto|always|audit|off   as PMUGUARD_MODE (lock = yes applies)\n"
	"    --snapshot DIR                 take the facts from a snapshot (or NAME: a\n"
	"                                   reference snapshot, snapshot --list)\n"
	"    --attach auto|lsm|fmod_ret     how to attach (auto: lsm where bpf is an\n"
	"                                   active LSM, else fmod_ret; the other one\n"
	"                                   when the first fails the self-test)\n"
	"    --keep-unverified              pin it even when the self-test fails, for\n"
	"                                   diagnosis (still exit 4; status exits 8)\n"
	"  stop     detach and unpin it\n"
	"  status   attached or not (and why), the self-test run again, counts per\n"
	"           encoding and per uid, and the events of the class that existed\n"
	"           before the start\n"
	"  follow   print each denial, once per process and encoding, until stop\n"
	"           (--json: one JSON object per line)\n"
	"  agent    a node agent (a Kubernetes DaemonSet's entrypoint): start, then\n"
	"           follow --json until SIGTERM, which leaves the guard pinned\n"
	"           (--remove-on-exit: stops it); mounts securityfs to read the LSM\n"
	"           list where the pod has none; idles where no guard is needed\n"
	"  ready    a readiness probe: exit 0 only when the pinned guard passes its\n"
	"           self-test now, denies (not audit mode), and no perf event of the\n"
	"           class opened before it is left; or this node needs none\n"
	"  --json   start, status: one JSON object (\"schema\" first), for programs\n"
	"  --keys   start, status: the same as KEY=VALUE lines (\"schema=N\" first),\n"
	"           for shell scripts: keys are the JSON paths joined by '.', array\n"
	"           elements by index, strings raw with control characters and '\\'\n"
	"           written as \\xHH, null as an empty value\n"
	"\n"
	"start and status also name the perf events of the class that already\n"
	"exist (pid, comm, fd, encoding): the kernel judged them when they were\n"
	"allocated, before the guard, so each is unguarded until its owner closes it.\n"
	"\n"
	"Exit status:\n"
	"  0  done (start: attached, already attached, or nothing to attach; stop:\n"
	"     detached; status: attached, verified and denying; ready: ready;\n"
	"     follow, agent: a signal, or the guard was stopped)\n"
	"  1  internal error (status: whether a guard is attached is unknown, e.g.\n"
	"     bpf() refused; stop: it could not be removed)\n"
	"  2  usage\n"
	"  4  start, agent: the kernel could not take the guard: it did not attach,\n"
	"     or it attached but failed the self-test\n"
	"  5  built without enforce\n"
	"  6  status, follow: nothing attached; ready: nothing attached where the\n"
	"     policy wants a guard\n"
	"  7  start, status, ready: attached and denying, but events of the class\n"
	"     opened before it still exist (listed): enabled, each still reaches\n"
	"     the counter; every new one is denied\n"
	"  8  status, ready: attached, but the self-test failed: it does not protect\n"
	"     the host\n"
	"  9  status, ready: attached in audit mode: it blocks nothing (start\n"
	"     --mode audit itself exits 0)\n"
	"pmuguard-fleet status gives the host's state in LSB's codes.\n";

/* ---- One model, three renderings ------------------------------------------
 *
 * start and status each fill one model and render it as text for people,
 * or as data for programs: JSON, or the same tree flattened into KEY=VALUE
 * lines for shell scripts (as systemctl show prints).  Scripts read the
 * data, never the sentences: rewording a line of text changes no key.
 *
 * Flattening: a key is the JSON path, its members joined by '.', array
 * elements by their index (by_encoding.0.config=0x400); a string is raw,
 * with control characters, DEL and '\' written as \xHH (fput_safe); true,
 * false; null is an empty value.  The first key is schema.  Empty arrays
 * and objects give no line.
 */

/* Raised when a key changes meaning or goes away (new keys do not raise it). */
#define ENF_OUTPUT_SCHEMA 1

enum form { FORM_TEXT, FORM_JSON, FORM_KEYS };

#define OUT_DEPTH 6

struct out {
	enum form form;
	FILE *f;
	unsigned depth;
	size_t plen[OUT_DEPTH];  /* the path's length at each depth */
	unsigned n[OUT_DEPTH];   /* members written so far at each depth */
	bool array[OUT_DEPTH];   /* that depth is an array */
	char path[256];
};

/* The next member: a comma and its name in JSON; its path in keys. */
static void out_member(struct out *o, const char *key)
{
	unsigned d = o->depth;
	unsigned i = o->n[d]++;
	if (o->form == FORM_JSON) {
		if (i)
			fputc(',', o->f);
		if (!o->array[d])
			fprintf(o->f, "\"%s\":", key);
		return;
	}
	size_t at = o->plen[d];
	char index[16];
	if (o->array[d]) {
		snprintf(index, sizeof(index), "%u", i);
		key = index;
	}
	snprintf(o->path + at, sizeof(o->path) - at, "%s%s", at ? "." : "", key);
}

static void out_open(struct out *o, const char *key, bool array)
{
	out_member(o, key);
	if (o->form == FORM_JSON)
		fputc(array ? '[' : '{', o->f);
	if (o->depth + 1 >= OUT_DEPTH)
		die("enforce: output nested too deep"); /* a bug, not a condition */
	o->depth++;
	o->plen[o->depth] = strlen(o->path);
	o->n[o->depth] = 0;
	o->array[o->depth] = array;
}

static void out_close(struct out *o)
{
	if (o->form == FORM_JSON)
		fputc(o->array[o->depth] ? ']' : '}', o->f);
	o->depth--;
	o->path[o->plen[o->depth + 1]] = '\0';
}

/* A scalar: JSON writes text as it is; keys puts it after KEY=. */
static void out_raw(struct out *o, const char *key, const char *text)
{
	out_member(o, key);
	if (o->form == FORM_JSON)
		fputs(text, o->f);
	else
		fprintf(o->f, "%s=%s\n", o->path, text);
}

static void out_str(struct out *o, const char *key, const char *s)
{
	if (!s) {
		out_raw(o, key, o->form == FORM_JSON ? "null" : "");
		return;
	}
	out_member(o, key);
	if (o->form == FORM_JSON) {
		json_str(o->f, s);
	} else {
		fprintf(o->f, "%s=", o->path);
		fput_safe(s, o->f);
		fputc('\n', o->f);
	}
}

static void out_null(struct out *o, const char *key)
{
	out_str(o, key, NULL);
}

static void out_u64(struct out *o, const char *key, unsigned long long v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%llu", v);
	out_raw(o, key, buf);
}

/* An encoding, as the journal's PMUGUARD_CONFIG says it: "0x400". */
static void out_hex(struct out *o, const char *key, unsigned long long v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%llx", v);
	out_str(o, key, buf);
}

static void out_bool(struct out *o, const char *key, bool v)
{
	out_raw(o, key, v ? "true" : "false");
}

static void out_begin(struct out *o, enum form form)
{
	*o = (struct out){.form = form, .f = stdout};
	if (form == FORM_JSON)
		fputc('{', o->f);
	out_u64(o, "schema", ENF_OUTPUT_SCHEMA);
	char now[24];
	cli_utc_now(now, sizeof(now));
	out_str(o, "version", PMUGUARD_VERSION);
	out_str(o, "generated_at", now);
}

static void out_end(struct out *o)
{
	if (o->form == FORM_JSON)
		fputs("}\n", o->f);
	fflush(o->f);
}

/* --json / --keys, once. */
static void form_set(enum form *form, enum form want, const char *sub)
{
	if (*form != FORM_TEXT && *form != want)
		die_usage("enforce %s: --json and --keys exclude each other", sub);
	*form = want;
}

/* ---- What the policy says ------------------------------------------------- */

/* What the policy says for this machine: the same path as the shim. */
struct plan {
	struct guard_settings set;
	struct guard_policy policy;
	struct probe_verdict v;
	struct probe_facts *f;
	char snapshot[PATH_MAX]; /* set.snapshot made absolute: the rodata keeps it */
};

static void plan_make(struct plan *pl, int mode, const char *snapshot, bool quiet)
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

static void print_types(FILE *out, const unsigned *types, unsigned n)
{
	for (unsigned i = 0; i < n && i < GUARD_RULE_MAX_CORE; i++)
		fprintf(out, "%s%u", i ? ", " : "", types[i]);
}

/* "type 4: fixed counter 3; type 9: fixed counters 4, 5 and 6" */
static void print_hazards(FILE *out, const struct pmug_enf_config *c)
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
static void hint(int err)
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

static const char *hit_word(enum guard_hit hit)
{
	return hit == GUARD_HIT_SLOTS	 ? "slots"
	       : hit == GUARD_HIT_METRIC ? "metric"
	       : hit == GUARD_HIT_FIXED	 ? "fixed"
				       : "none";
}

/* A counted key's class: the program counts hits only, so any table and
 * every guarded counter name it. */
static enum guard_hit key_hit(unsigned code)
{
	return guard_rule_config(code, GUARD_TABLE_ETD, GUARD_RULE_HAZARD_ALL);
}

/* A comm for the text people read, through the one escaper (fput_safe):
 * any process names itself, and its name must not drive the terminal. */
#define COMM_SHOWN (16 * 4 + 1) /* every byte as \xHH, and the NUL */
static void sanitize_comm(char out[COMM_SHOWN], const char in[16])
{
	char raw[17];
	memcpy(raw, in, 16);
	raw[16] = '\0';
	out[0] = '\0';
	FILE *m = fmemopen(out, COMM_SHOWN, "w");
	if (!m)
		return;
	fput_safe(raw, m);
	fclose(m);
}

/* A comm as the kernel keeps it (16 bytes, NUL-terminated when shorter),
 * as a string; data keeps its bytes (escaped when rendered). */
static void comm_str(char out[17], const char in[16])
{
	memcpy(out, in, 16);
	out[16] = '\0';
}

/* ---- The guard's rodata: what it was started on ----------------------------- */

static const char *facts_from_words(const struct pmug_enf_config *c)
{
	return c->facts_from[0] ? c->facts_from : "this machine";
}

/* The configuration of a guard: how it judges, and what it was decided on. */
static void out_config(struct out *o, const struct pmug_enf_config *c)
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
	char when[32] = "";
	time_t t = (time_t)c->started;
	struct tm tm;
	out_u64(o, "started", c->started);
	if (gmtime_r(&t, &tm) && strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		out_str(o, "started_utc", when);
	else
		out_null(o, "started_utc");
}

/* ---- The self-test ---------------------------------------------------------- */

static void when_utc(char *buf, size_t size, time_t t)
{
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "?");
}

/* "verified": true only where the canary came back refused by this very
 * program; "verification" says when, and why not. */
static void out_verify(struct out *o, const struct enf_verify *v)
{
	out_bool(o, "verified", v->ran && v->verified);
	out_open(o, "verification", false);
	out_bool(o, "ran", v->ran);
	if (v->ran) {
		char when[32];
		when_utc(when, sizeof(when), v->at);
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

static void verify_text(const char *lead, const struct enf_verify *v)
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
static struct enf_existing *existing_read(const struct pmug_enf_config *cfg)
{
	struct enf_existing *ex = calloc(1, sizeof(*ex));
	if (!ex)
		die_errno("out of memory");
	enf_existing_read(ex, cfg);
	return ex;
}

/* EXIT_EXISTING_EVENTS where cfg denies and one of the class exists, else
 * EXIT_OK (audit mode lists them and is content; unknown is no warning). */
static int existing_rc(const struct enf_existing *ex, const struct pmug_enf_config *cfg)
{
	return ex->known && ex->n_hits && cfg->enforce ? EXIT_EXISTING_EVENTS : EXIT_OK;
}

/* Does an attached guard protect the host?  status and ready answer the
 * same: 8 it does not run; 9 it runs in audit mode, which the policy
 * attaches only where the facts found the hazard, and which allows every
 * call; 7 it denies, but events of the class opened before it escape it
 * (enabled, each still reaches the counter); 0 it protects.  ex is read
 * only for a verified, denying guard (NULL otherwise). */
static int attached_rc(const struct enf_status *st, const struct enf_existing *ex)
{
	if (!st->verify.verified)
		return EXIT_UNVERIFIED;
	if (!st->cfg.enforce)
		return EXIT_AUDIT;
	return existing_rc(ex, &st->cfg);
}

/* The words for a guard in audit mode, wherever "protected?" is answered. */
#define AUDIT_WORDS "audit: blocks nothing"

/* lead starts the summary line, indent each event's line.  Where the
 * iterator cannot run, "unknown (why)", never "none". */
static void existing_text(const char *lead, const char *indent, const struct enf_existing *ex,
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
		char comm[COMM_SHOWN];
		sanitize_comm(comm, e->f.comm);
		printf("%spid %u comm %s fd %u: type %u config 0x%llx hw.config 0x%llx hit %s, "
		       "state %s, event id %llu%s: %s\n",
		       indent, e->f.tgid, comm, e->f.fd, e->f.attr_type, e->f.attr_config,
		       e->f.hw_config, hit_word(e->hit), enf_state_name(e->f.state), e->f.id,
		       e->f.inherit ? ", inherit (copies its children got before the start are "
				      "unguarded too; a fork after it fails with ENOENT)"
				    : "",
		       guard_hit_name(e->hit, e->judged));
	}
	if (ex->known && ex->n_hits > ex->n_listed)
		printf("%s(%u more)\n", indent, ex->n_hits - ex->n_listed);
}

static void existing_data(struct out *o, const struct enf_existing *ex,
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

/* ---- start ------------------------------------------------------------------ */

enum outcome { OUT_ATTACHED, OUT_ALREADY, OUT_REPLACED, OUT_NOTHING, OUT_REFUSED };

static const char *const outcome_token[] = {
	[OUT_ATTACHED] = "attached",	      [OUT_ALREADY] = "already",
	[OUT_REPLACED] = "replaced",	      [OUT_NOTHING] = "nothing-to-attach",
	[OUT_REFUSED] = "refused",
};

struct start_model {
	enum outcome outcome;
	int rc;
	struct plan pl;
	struct enf_result *r;     /* OUT_ATTACHED, _ALREADY, _REPLACED, _REFUSED */
	int err;                  /* OUT_REFUSED: -errno */
	struct enf_status *earlier; /* OUT_NOTHING: an earlier start still attached, or NULL */
	struct enf_existing *ex;  /* attached: the events that exist now */
};

static void start_text(const struct start_model *m)
{
	const struct plan *pl = &m->pl;
	if (m->outcome == OUT_NOTHING) {
		printf("pmuguard: enforce: nothing to attach (mode %s, facts from %s): %s\n",
		       guard_mode_name(pl->policy.mode),
		       pl->set.snapshot ? pl->set.snapshot : "this machine", pl->policy.reason);
		if (m->earlier)
			printf("pmuguard: enforce: an earlier start is still attached (%s, mode %s); "
			       "`pmuguard enforce stop` removes it\n",
			       enf_attach_name(m->earlier->attach),
			       guard_mode_name(m->earlier->cfg.mode));
		return;
	}
	if (m->r->mounted_bpffs)
		printf("pmuguard: enforce: nothing was mounted at %s: mounted bpffs there\n",
		       ENF_BPFFS);
	if (m->outcome == OUT_REFUSED) {
		bool pinned = m->r->keep_unverified && m->err == -ENOEXEC;
		fprintf(stderr,
			"pmuguard: enforce: could not attach the kernel guard: %s. %s; the "
			"preload and `pmuguard run` still guard what they reach.\n",
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
	printf("pmuguard: enforce: %s (%s, %s, mode %s, core PMU types ",
	       m->outcome == OUT_ALREADY    ? "already attached"
	       : m->outcome == OUT_REPLACED ? "replaced and attached"
					    : "attached",
	       enf_attach_name(m->r->attach), c->enforce ? "denying with ENOENT" : "audit only",
	       guard_mode_name((enum guard_mode)c->mode));
	print_types(stdout, c->core_types, c->n_core);
	printf(", facts from %s): %s\n", facts_from_words(c), c->reason);
	verify_text("pmuguard: enforce: ", &m->r->verify);
	if (!c->enforce)
		printf("pmuguard: enforce: " AUDIT_WORDS ": it counts what it would deny and allows "
		       "it; this host is not protected (`enforce status` and `enforce ready` exit "
		       "9)\n");
	if (m->r->refused[0])
		printf("pmuguard: enforce: not kept before it: %s\n", m->r->refused);
	existing_text("pmuguard: enforce: ", "  ", m->ex, c);
}

static void start_data(const struct start_model *m, enum form form, const char *event)
{
	struct out o;
	out_begin(&o, form);
	if (event)
		out_str(&o, "event", event); /* agent: its log lines say what each is */
	out_str(&o, "outcome", outcome_token[m->outcome]);
	out_u64(&o, "exit", (unsigned long long)m->rc);
	if (m->outcome == OUT_NOTHING || m->outcome == OUT_REFUSED) {
		/* This start's policy; refused: what the kernel said. */
		const struct plan *pl = &m->pl;
		out_str(&o, "error", m->outcome == OUT_REFUSED ? m->r->why : NULL);
		out_null(&o, "attach");
		out_bool(&o, "protects", false);
		if (m->outcome == OUT_REFUSED) {
			out_verify(&o, &m->r->verify);
			out_str(&o, "refused", m->r->refused[0] ? m->r->refused : NULL);
			out_bool(&o, "pinned_unverified",
				 m->r->keep_unverified && m->err == -ENOEXEC);
			out_bool(&o, "mounted_bpffs", m->r->mounted_bpffs);
		}
		out_str(&o, "mode", guard_mode_name(pl->policy.mode));
		out_bool(&o, "enforce", pl->policy.watch && pl->policy.enforce);
		out_open(&o, "facts", false);
		out_str(&o, "state", probe_state_name(pl->v.state));
		out_str(&o, "source", pl->set.snapshot ? "snapshot" : "live");
		out_str(&o, "snapshot", pl->set.snapshot);
		out_close(&o);
		out_str(&o, "reason", pl->policy.reason);
		if (m->outcome == OUT_NOTHING) {
			out_open(&o, "earlier", false);
			out_bool(&o, "attached", m->earlier != NULL);
			if (m->earlier) {
				out_str(&o, "attach", enf_attach_name(m->earlier->attach));
				out_str(&o, "mode",
					guard_mode_name((enum guard_mode)m->earlier->cfg.mode));
			}
			out_close(&o);
		}
	} else {
		out_null(&o, "error");
		out_str(&o, "attach", enf_attach_name(m->r->attach));
		out_bool(&o, "protects", m->r->verify.verified && m->r->cfg.enforce);
		out_verify(&o, &m->r->verify);
		out_str(&o, "refused", m->r->refused[0] ? m->r->refused : NULL);
		out_bool(&o, "mounted_bpffs", m->r->mounted_bpffs);
		out_config(&o, &m->r->cfg);
		existing_data(&o, m->ex, &m->r->cfg);
	}
	out_end(&o);
}

/* The options start and agent share: --mode, --snapshot, --attach. */
struct start_opts {
	int mode;
	const char *snapshot;
	unsigned attach;
};
#define START_OPTS_INIT {.mode = -1, .attach = PMUG_ENF_ATTACH_NONE}

static void start_option(int ch, const char *arg, struct start_opts *o)
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
static void start_run(struct start_model *m, int mode, const char *snapshot, unsigned attach,
		      bool keep_unverified)
{
	*m = (struct start_model){.rc = EXIT_OK};
	plan_make(&m->pl, mode, snapshot, false);
	if (!m->pl.policy.watch) {
		m->outcome = OUT_NOTHING;
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
		m->outcome = OUT_REFUSED;
		m->rc = EXIT_ENFORCE_FAILED;
		return;
	}
	m->outcome = m->r->already ? OUT_ALREADY : m->r->replaced ? OUT_REPLACED : OUT_ATTACHED;
	/* After the attach: from here on no event of the class can be
	 * allocated, so what the iterator finds is all there will be. */
	m->ex = existing_read(&m->r->cfg);
	m->rc = existing_rc(m->ex, &m->r->cfg);
}

static void start_refused_say(const struct start_model *m, enum form form)
{
	if (m->outcome != OUT_REFUSED)
		return;
	if (form != FORM_TEXT) /* the data said it; people still read stderr */
		fprintf(stderr, "pmuguard: enforce: could not attach the kernel guard: %s\n",
			m->r->why);
	hint(m->err);
	if (m->pl.set.log == GUARD_LOG_DEBUG && m->r->log[0])
		fprintf(stderr, "pmuguard: enforce: libbpf said:\n%s", m->r->log);
}

static void start_free(struct start_model *m)
{
	free(m->ex);
	free(m->earlier);
	free(m->r);
	free(m->pl.f);
}

static int do_start(int argc, char **argv)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'm'},
		{"snapshot", required_argument, NULL, 's'},
		{"attach", required_argument, NULL, 'a'},
		{"keep-unverified", no_argument, NULL, 'U'},
		{"json", no_argument, NULL, 'J'},
		{"keys", no_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	bool keep_unverified = false;
	struct start_opts so = START_OPTS_INIT;
	enum form form = FORM_TEXT;
	while ((ch = getopt_long(argc, argv, "+m:s:a:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
		case 's':
		case 'a':
			start_option(ch, optarg, &so);
			break;
		case 'U':
			keep_unverified = true;
			break;
		case 'J':
			form_set(&form, FORM_JSON, "start");
			break;
		case 'K':
			form_set(&form, FORM_KEYS, "start");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			die_bad_option("enforce start", argv, "m:s:a:h");
		}
	}
	if (optind < argc)
		die_usage("enforce start: unexpected argument '%s'", argv[optind]);

	struct start_model m;
	start_run(&m, so.mode, so.snapshot, so.attach, keep_unverified);
	if (form == FORM_TEXT)
		start_text(&m);
	else
		start_data(&m, form, NULL);
	start_refused_say(&m, form);
	start_free(&m);
	return m.rc;
}

static int do_stop(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		die_usage("enforce stop takes no arguments");
	char why[512] = "";
	int err = enf_stop(ENF_PIN_DIR, why, sizeof(why));
	if (err == -ENOENT) {
		printf("pmuguard: enforce: nothing was attached (%s)\n", why);
		return EXIT_OK;
	}
	if (err) {
		fprintf(stderr, "pmuguard: enforce: stop: %s\n", why);
		return EXIT_INTERNAL;
	}
	printf("pmuguard: enforce: stopped; %s is unpinned and the guard detached\n",
	       ENF_PIN_DIR);
	return EXIT_OK;
}

/* ---- status ----------------------------------------------------------------- */

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

struct status_model {
	int rc;
	int err;                /* enf_status_read: -errno when what is pinned is unreadable */
	struct enf_status *st;
	/* not attached: */
	struct plan pl;
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

static void status_text(const struct status_model *m)
{
	const struct enf_status *st = m->st;
	if (m->err) {
		fprintf(stderr, "pmuguard: enforce: status: %s\n", st->why);
		return;
	}
	if (!st->attached) {
		const struct kernel_view *k = &m->k;
		printf("pmuguard enforce: not attached: %s\n", st->why);
		printf("  policy: %s (mode %s): %s\n",
		       m->pl.policy.watch ? "would attach" : "nothing to attach",
		       guard_mode_name(m->pl.policy.mode), m->pl.policy.reason);
		printf("  kernel: BTF %s; BPF LSM active: %s", k->btf ? "yes" : "no",
		       yesno(k->bpf_lsm));
		if (k->lsm_rc >= 0)
			printf(" (lsm=%s)", k->lsm);
		else
			printf(" (%s: %s)", ENF_LSM_LIST, strerror((int)-k->lsm_rc));
		printf("; bpffs at %s: %s\n", ENF_BPFFS, k->bpffs > 0 ? "mounted" : "not mounted");
		return;
	}
	const struct pmug_enf_config *c = &st->cfg;
	char when[64] = "?";
	time_t t = (time_t)c->started;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("pmuguard enforce: attached (%s: %s), since %s\n", enf_attach_name(st->attach),
	       hook_words(st->attach), when);
	verify_text("  ", &st->verify);
	if (!c->enforce)
		printf("  NOT PROTECTED: " AUDIT_WORDS ": it counts what it would deny and allows "
		       "it, on a host whose facts called for a guard, so a tool still reaches the "
		       "counter (`pmuguard enforce start --mode auto` replaces it with one that "
		       "denies)\n");
	printf("  mode: %s (%s); facts: %s, from %s\n", guard_mode_name((enum guard_mode)c->mode),
	       c->enforce ? "deny with ENOENT" : "audit: count, allow",
	       probe_state_name((enum probe_state)c->state), facts_from_words(c));
	printf("  reason at the start: %s\n", c->reason);
	printf("  core PMU types: ");
	print_types(stdout, c->core_types, c->n_core);
	printf("\n  denied there: ");
	print_hazards(stdout, c);
	printf("\n  program: id %" PRIu32 ", link id %" PRIu32 ", %" PRIu32
	       " instructions (xlated), %" PRIu32 " bytes jited\n",
	       st->prog_id, st->link_id, st->xlated_insns, st->jited_bytes);
	if (st->run_cnt)
		printf("  runs: %" PRIu64 ", %" PRIu64 " ns on average (kernel.bpf_stats_enabled)\n",
		       st->run_cnt, st->run_time_ns / st->run_cnt);
	existing_text("  ", "    ", m->ex, c);
	const struct pmug_enf_totals *tt = &st->totals;
	printf("  denied: %llu, audited: %llu, reports lost: %llu, keys not counted: %llu\n",
	       tt->denied, tt->audited, tt->lost_events, tt->lost_keys);
	if (!st->n_counts)
		return;
	printf("  by encoding:\n");
	for (unsigned i = 0; i < st->n_counts; i++) {
		const struct enf_count *e = &st->counts[i];
		char comm[COMM_SHOWN];
		sanitize_comm(comm, e->val.last_comm);
		printf("    %-7s uid %-6u type %-3u config 0x%04x  calls %-6llu last %s[%u]: "
		       "%s\n",
		       e->key.denied ? "denied" : "audited", e->key.uid, e->key.pmu_type,
		       e->key.code, e->val.calls, comm, e->val.last_pid,
		       guard_hit_name(key_hit(e->key.code), e->key.code));
	}
	if (st->n_counts_total > st->n_counts)
		printf("    (%u more)\n", st->n_counts_total - st->n_counts);
	printf("  by uid:\n");
	for (unsigned i = 0; i < st->n_counts; i++) {
		if (!uid_first(st, i))
			continue;
		unsigned long long den, aud;
		uid_sums(st, i, &den, &aud);
		printf("    uid %u: %llu denied, %llu audited\n", st->counts[i].key.uid, den, aud);
	}
}

static void status_data(const struct status_model *m, enum form form)
{
	const struct enf_status *st = m->st;
	struct out o;
	out_begin(&o, form);
	out_u64(&o, "exit", (unsigned long long)m->rc);
	if (m->err) {
		/* What is pinned could not be read: attached or not is unknown. */
		out_null(&o, "attached");
		out_str(&o, "error", st->why);
		out_null(&o, "protects");
		out_null(&o, "verified");
		out_end(&o);
		return;
	}
	out_bool(&o, "attached", st->attached);
	out_null(&o, "error");
	out_bool(&o, "protects", st->attached && st->verify.verified && st->cfg.enforce);
	out_verify(&o, &st->verify);
	if (!st->attached) {
		const struct kernel_view *k = &m->k;
		out_str(&o, "why", st->why);
		out_open(&o, "policy", false);
		out_bool(&o, "would_attach", m->pl.policy.watch);
		out_str(&o, "mode", guard_mode_name(m->pl.policy.mode));
		out_str(&o, "reason", m->pl.policy.reason);
		out_close(&o);
		out_open(&o, "kernel", false);
		out_bool(&o, "btf", k->btf > 0);
		if (k->bpf_lsm < 0)
			out_null(&o, "bpf_lsm");
		else
			out_bool(&o, "bpf_lsm", k->bpf_lsm > 0);
		out_str(&o, "lsm", k->lsm_rc >= 0 ? k->lsm : NULL);
		out_str(&o, "lsm_error", k->lsm_rc >= 0 ? NULL : strerror((int)-k->lsm_rc));
		if (k->bpffs < 0)
			out_null(&o, "bpffs");
		else
			out_bool(&o, "bpffs", k->bpffs > 0);
		out_close(&o);
		out_end(&o);
		return;
	}
	const struct pmug_enf_config *c = &st->cfg;
	out_null(&o, "why");
	out_str(&o, "attach", enf_attach_name(st->attach));
	out_config(&o, c);
	out_open(&o, "program", false);
	out_u64(&o, "id", st->prog_id);
	out_u64(&o, "link_id", st->link_id);
	out_u64(&o, "xlated_insns", st->xlated_insns);
	out_u64(&o, "jited_bytes", st->jited_bytes);
	out_hex(&o, "object", c->object);
	out_close(&o);
	/* kernel.bpf_stats_enabled=1 counts runs; 0 runs: not counted (null). */
	out_open(&o, "runs", false);
	if (st->run_cnt) {
		out_u64(&o, "count", st->run_cnt);
		out_u64(&o, "time_ns", st->run_time_ns);
		out_u64(&o, "mean_ns", st->run_time_ns / st->run_cnt);
	} else {
		out_null(&o, "count");
		out_null(&o, "time_ns");
		out_null(&o, "mean_ns");
	}
	out_close(&o);
	const struct pmug_enf_totals *tt = &st->totals;
	out_open(&o, "totals", false);
	out_u64(&o, "denied", tt->denied);
	out_u64(&o, "audited", tt->audited);
	out_u64(&o, "reports_lost", tt->lost_events);
	out_u64(&o, "keys_not_counted", tt->lost_keys);
	out_close(&o);
	out_u64(&o, "encodings", st->n_counts_total);
	out_open(&o, "by_encoding", true);
	for (unsigned i = 0; i < st->n_counts; i++) {
		const struct enf_count *e = &st->counts[i];
		char comm[17];
		comm_str(comm, e->val.last_comm);
		enum guard_hit hit = key_hit(e->key.code);
		out_open(&o, NULL, false);
		out_str(&o, "decision", e->key.denied ? "denied" : "audited");
		out_u64(&o, "uid", e->key.uid);
		out_u64(&o, "pmu_type", e->key.pmu_type);
		out_hex(&o, "config", e->key.code);
		out_u64(&o, "calls", e->val.calls);
		out_u64(&o, "last_pid", e->val.last_pid);
		out_str(&o, "last_comm", comm);
		out_str(&o, "hit", hit_word(hit));
		out_str(&o, "name", guard_hit_name(hit, e->key.code));
		out_close(&o);
	}
	out_close(&o);
	out_open(&o, "by_uid", true);
	for (unsigned i = 0; i < st->n_counts; i++) {
		if (!uid_first(st, i))
			continue;
		unsigned long long den, aud;
		uid_sums(st, i, &den, &aud);
		out_open(&o, NULL, false);
		out_u64(&o, "uid", st->counts[i].key.uid);
		out_u64(&o, "denied", den);
		out_u64(&o, "audited", aud);
		out_close(&o);
	}
	out_close(&o);
	existing_data(&o, m->ex, c);
	out_end(&o);
}

static int do_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'J'},
		{"keys", no_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum form form = FORM_TEXT;
	int ch;
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (ch == 'J') {
			form_set(&form, FORM_JSON, "status");
		} else if (ch == 'K') {
			form_set(&form, FORM_KEYS, "status");
		} else if (ch == 'h') {
			fputs(usage_text, stdout);
			return EXIT_OK;
		} else {
			die_bad_option("enforce status", argv, "h");
		}
	}
	if (optind < argc)
		die_usage("enforce status: unexpected argument '%s'", argv[optind]);
	struct status_model m = {.rc = EXIT_OK};
	m.st = calloc(1, sizeof(*m.st));
	if (!m.st)
		die_errno("out of memory");
	m.err = enf_status_read(ENF_PIN_DIR, m.st, ENF_STATUS_VERIFY);
	if (m.err) {
		m.rc = EXIT_INTERNAL;
	} else if (!m.st->attached) {
		plan_make(&m.pl, -1, NULL, true);
		kernel_read(&m.k);
		m.rc = EXIT_NOT_ATTACHED;
	} else {
		m.ex = existing_read(&m.st->cfg);
		m.rc = attached_rc(m.st, m.ex);
	}
	if (form == FORM_TEXT) {
		status_text(&m);
	} else {
		status_data(&m, form);
		if (m.err)
			fprintf(stderr, "pmuguard: enforce: status: %s\n", m.st->why);
	}
	free(m.ex);
	free(m.pl.f);
	free(m.st);
	return m.rc;
}

/* ---- follow ----------------------------------------------------------------- */

static volatile sig_atomic_t stopping;
static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}
static bool should_stop(void *ctx)
{
	(void)ctx;
	return stopping != 0;
}

/* Once per (process, encoding), as the shim and the supervisor decide it
 * (probe/guard/once.c); forgotten when full (follow runs for days, and the
 * processes it saw are long gone) and when another start replaces the
 * program (its reports are a new program's). */
static _Atomic uint64_t follow_seen[4096];

struct follow {
	const struct enf_status *st; /* the program followed: its attach and rodata */
	struct guard_policy policy;  /* the reason it was started with, for the line */
	struct guard_once once;
	bool journal; /* stdout is the journal: send entries with fields instead */
	bool json;    /* one JSON object per line (the agent's pod log) */
};

/* A denial as one JSON line: the data, and the text line as "message". */
static void event_json(const struct follow *fo, const struct pmug_enf_event *e,
		       const struct guard_decision *d, const char *comm, const struct logline *l)
{
	struct out o;
	char when[32], msg[sizeof(l->buf) + 1];
	when_utc(when, sizeof(when), time(NULL));
	size_t n = l->len < sizeof(l->buf) ? l->len : sizeof(l->buf);
	memcpy(msg, l->buf, n);
	msg[n] = '\0';
	out_begin(&o, FORM_JSON);
	out_str(&o, "event", e->denied ? "denied" : "audited");
	out_str(&o, "time", when);
	out_u64(&o, "pid", e->tgid);
	out_u64(&o, "tid", e->pid);
	out_str(&o, "comm", comm);
	out_u64(&o, "uid", e->uid);
	out_u64(&o, "cgroup_id", e->cgroup_id);
	out_u64(&o, "pmu_type", e->pmu_type);
	out_u64(&o, "attr_type", e->attr_type);
	out_hex(&o, "config", e->attr_config);
	out_hex(&o, "hw_config", e->hw_config);
	out_str(&o, "hit", hit_word(d->hit));
	int counter = guard_hit_counter(d->hit, d->config);
	if (counter >= 0)
		out_u64(&o, "counter", (unsigned long long)counter);
	else
		out_null(&o, "counter");
	out_str(&o, "what", guard_hit_name(d->hit, d->config));
	out_bool(&o, "inherited", e->inherited != 0);
	out_str(&o, "attach", enf_attach_name(fo->st->attach));
	out_str(&o, "message", msg);
	out_end(&o);
}

/* systemd's JOURNAL_STREAM ("DEV:INODE" of the stream it connected to
 * stdout): true when fd 1 is still that stream. */
static bool stdout_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(STDOUT_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* One line per (process, encoding): the kernel program's decision in the
 * shim's words, with the reason the guard was started with, then what only
 * the kernel knows. */
static void on_event(void *ctx, const struct pmug_enf_event *e)
{
	struct follow *fo = ctx;
	struct guard_decision d;
	enf_event_decision(e, &d);
	enum guard_once_result seen = guard_once_mark(&fo->once, guard_once_key(e->tgid, &d));
	if (seen == GUARD_ONCE_FULL) {
		guard_once_forget(&fo->once);
		seen = guard_once_mark(&fo->once, guard_once_key(e->tgid, &d));
	}
	if (seen != GUARD_ONCE_FIRST)
		return;
	char comm[17];
	comm_str(comm, e->comm);
	struct logline l;
	guard_format_denial(&l, &fo->policy, &d, comm, (pid_t)e->tgid);
	log_str(&l, " [kernel ");
	log_str(&l, enf_attach_name(fo->st->attach));
	log_str(&l, ": uid ");
	log_dec(&l, e->uid);
	log_str(&l, ", cgroup ");
	log_dec(&l, e->cgroup_id);
	log_str(&l, ", pmu type ");
	log_dec(&l, e->pmu_type);
	log_str(&l, ", hw.config ");
	log_hex(&l, e->hw_config);
	if (e->inherited)
		log_str(&l, ", inherited at fork");
	log_str(&l, "]");
	/* Under systemd, a native entry (MESSAGE_ID, PMUGUARD_LAYER=kernel, ...):
	 * as a plain stdout line it would read as one more preload report. */
	if (fo->json) {
		event_json(fo, e, &d, comm, &l);
		return;
	}
	struct log_report r;
	guard_report_fields(&r, &d, GUARD_LAYER_KERNEL, comm, (pid_t)e->tgid, (uid_t)e->uid);
	if (!fo->journal || !log_system(&l, sizeof("pmuguard: ") - 1, &r))
		log_emit(&l, STDOUT_FILENO);
}

/* Read what is attached, with its ring buffer: EXIT_OK, or the exit code
 * and a line on stderr. */
static int follow_open(struct enf_status *st)
{
	int err = enf_status_read(ENF_PIN_DIR, st, ENF_STATUS_EVENTS);
	if (err || !st->attached) {
		fprintf(stderr, "pmuguard: enforce: follow: %s\n",
			st->why[0] ? st->why : "nothing is attached");
		return err ? EXIT_INTERNAL : EXIT_NOT_ATTACHED;
	}
	if (st->events_fd < 0) {
		fprintf(stderr, "pmuguard: enforce: follow: the attached program has no ring "
				"buffer this pmuguard can read\n");
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

static void on_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* A lifecycle line of follow --json and the agent: {"schema":1,"event":...}. */
static void life_json(const char *event, const char *key, const char *value)
{
	struct out o;
	char when[32];
	when_utc(when, sizeof(when), time(NULL));
	out_begin(&o, FORM_JSON);
	out_str(&o, "event", event);
	out_str(&o, "time", when);
	if (key)
		out_str(&o, key, value);
	out_end(&o);
}

/* Follow the attached program (st, open) until stop or a signal. */
static int follow_loop(struct enf_status *st, bool json)
{
	int rc = EXIT_OK;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct follow fo = {.st = st,
			    .once = GUARD_ONCE_INIT(follow_seen),
			    .journal = !json && stdout_is_journal(),
			    .json = json};
	const char *verb = "following denials";
	for (;;) {
		/* The reason sentence: the one the program was started with,
		 * from its rodata; nothing is probed again. */
		fo.policy = (struct guard_policy){.reason = st->cfg.reason};
		guard_once_forget(&fo.once);
		if (json)
			life_json("following", "attach", enf_attach_name(st->attach));
		else
			printf("pmuguard: enforce: %s (%s, mode %s)\n", verb,
			       enf_attach_name(st->attach),
			       guard_mode_name((enum guard_mode)st->cfg.mode));
		fflush(stdout);
		int err = enf_follow(st->events_fd, st->link_id, ENF_PIN_DIR, on_event, &fo,
				     should_stop);
		close(st->events_fd);
		if (err == -ESTALE) {
			/* A start with another policy replaced the program: its
			 * reports go to a ring buffer of its own. */
			verb = "replaced by another start; following its denials";
			rc = follow_open(st);
			if (rc == EXIT_OK)
				continue;
			if (rc == EXIT_NOT_ATTACHED)
				rc = EXIT_OK; /* stopped just after the replace */
		} else if (err == -ENOENT) {
			if (json)
				life_json("stopped", "why", "unpinned: no more denials to follow");
			else
				printf("pmuguard: enforce: stopped (unpinned); no more denials to "
				       "follow\n");
		} else if (err) {
			fprintf(stderr, "pmuguard: enforce: follow: %s\n", strerror(-err));
			rc = EXIT_INTERNAL;
		}
		break;
	}
	return rc;
}

static int do_follow(bool json)
{
	struct enf_status *st = calloc(1, sizeof(*st));
	if (!st)
		die_errno("out of memory");
	int rc = follow_open(st);
	if (rc == EXIT_OK) {
		on_signals();
		rc = follow_loop(st, json);
	}
	free(st);
	return rc;
}

/* ---- agent, ready: the node agent of a DaemonSet --------------------------- */

/* `enforce agent`: what a node agent does, in the foreground, its log one
 * JSON object per line.  The LSM list read even where the pod has no
 * securityfs (mounted here); start (bpffs mounted where nothing is, the
 * attach, the self-test, the pin: the guard outlives the pod where
 * /sys/fs/bpf is the host's); then the denials followed until SIGTERM;
 * then the guard left in place, or removed with --remove-on-exit.  A node
 * that needs no guard idles.  Exit 0 at a signal, 4 where the kernel could
 * not take the guard (the pod restarts; `ready` never says yes). */
static int do_agent(int argc, char **argv)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'm'},
		{"snapshot", required_argument, NULL, 's'},
		{"attach", required_argument, NULL, 'a'},
		{"remove-on-exit", no_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	struct start_opts so = START_OPTS_INIT;
	bool remove = false;
	while ((ch = getopt_long(argc, argv, "+m:s:a:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
		case 's':
		case 'a':
			start_option(ch, optarg, &so);
			break;
		case 'R':
			remove = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			die_bad_option("enforce agent", argv, "m:s:a:h");
		}
	}
	if (optind < argc)
		die_usage("enforce agent: unexpected argument '%s'", argv[optind]);
	on_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	int sec = enf_securityfs_mount();
	if (sec > 0)
		life_json("mounted", "securityfs", ENF_SECURITYFS ": the pod had no LSM list");
	else if (sec < 0)
		life_json("no-lsm-list", "why", strerror(-sec)); /* the self-test decides */

	struct start_model m;
	start_run(&m, so.mode, so.snapshot, so.attach, false);
	start_data(&m, FORM_JSON, "start");
	start_refused_say(&m, FORM_JSON);
	int rc = m.rc;
	enum outcome outcome = m.outcome;
	bool guarding = outcome != OUT_NOTHING && outcome != OUT_REFUSED;
	start_free(&m);
	if (outcome == OUT_REFUSED)
		return rc;
	if (guarding) {
		struct enf_status *st = calloc(1, sizeof(*st));
		if (!st)
			die_errno("out of memory");
		rc = follow_open(st);
		if (rc == EXIT_OK)
			rc = follow_loop(st, true);
		free(st);
	} else {
		while (!stopping)
			sleep(60); /* a signal ends the sleep */
	}
	if (!stopping)
		return rc; /* unpinned by someone else, or an error: said above */
	if (remove && guarding) {
		char why[512] = "";
		int err = enf_stop(ENF_PIN_DIR, why, sizeof(why));
		life_json("exit", "guard", err ? why : "removed (--remove-on-exit)");
		return err ? EXIT_INTERNAL : EXIT_OK;
	}
	life_json("exit", "guard",
		  guarding ? "left in place, pinned in " ENF_PIN_DIR ": `pmuguard enforce stop` "
			     "removes it"
			   : "none was needed on this node");
	return EXIT_OK;
}

/* ready's line for an attached guard: what attached_rc decided, and why. */
static void ready_text(int rc, const struct enf_status *st, const struct enf_existing *ex)
{
	printf("%s: %s, verified %s", rc ? "not ready" : "ready", enf_attach_name(st->attach),
	       st->verify.verified ? "true" : "false");
	if (rc == EXIT_AUDIT) {
		printf(": " AUDIT_WORDS " (mode audit: it counts and allows) on a node whose facts "
		       "called for a guard\n");
		return;
	}
	if (rc == EXIT_EXISTING_EVENTS) {
		bool one = ex->n_hits == 1;
		printf(": %u perf event%s of the counter-3 class opened before the guard %s not "
		       "guarded (",
		       ex->n_hits, one ? "" : "s", one ? "is" : "are");
		for (unsigned i = 0; i < ex->n_listed; i++) {
			char comm[COMM_SHOWN];
			sanitize_comm(comm, ex->ev[i].f.comm);
			printf("%spid %u %s", i ? ", " : "", ex->ev[i].f.tgid, comm);
		}
		if (ex->n_hits > ex->n_listed)
			printf(", %u more", ex->n_hits - ex->n_listed);
		printf("); enabled, %s can still panic the node: restart %s\n", one ? "it" : "each",
		       one ? "that process" : "those processes");
		return;
	}
	if (rc == EXIT_OK && ex && !ex->known)
		printf("; events opened before the guard: unknown (%s)", ex->why);
	putchar('\n');
}

/* `enforce ready`: the readiness probe.  Exit 0 only on what is seen now:
 * the pinned guard passes its self-test again, denies, and no event of the
 * class opened before it is left, or this node's policy needs no guard;
 * else 6 (none attached where one is needed), 7 (events opened before the
 * guard escape it), 8 (attached, the self-test fails), 9 (audit mode) or
 * 1.  A node that can still panic is not ready: a DaemonSet's rollout
 * stops there. */
static int do_ready(int argc, char **argv)
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
		printf("not ready: %s\n", st->why);
		rc = EXIT_INTERNAL;
	} else if (st->attached) {
		struct enf_existing *ex = NULL;
		if (st->verify.verified && st->cfg.enforce)
			ex = existing_read(&st->cfg);
		rc = attached_rc(st, ex);
		ready_text(rc, st, ex);
		free(ex);
	} else {
		struct plan pl;
		plan_make(&pl, -1, NULL, true);
		rc = pl.policy.watch ? EXIT_NOT_ATTACHED : EXIT_OK;
		printf("%s: %s (%s)\n", rc ? "not ready" : "ready",
		       rc ? "no guard attached where the policy wants one" : "no guard needed",
		       pl.policy.reason);
		free(pl.f);
	}
	free(st);
	return rc;
}

int cmd_enforce(int argc, char **argv)
{
	if (argc < 2)
		die_usage("enforce: start, stop, status or follow is required");
	const char *sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (!strcmp(sub, "start"))
		return do_start(argc - 1, argv + 1);
	if (!strcmp(sub, "stop"))
		return do_stop(argc - 1, argv + 1);
	if (!strcmp(sub, "status"))
		return do_status(argc - 1, argv + 1);
	if (!strcmp(sub, "follow") || !strcmp(sub, "--follow")) {
		bool json = argc == 3 && !strcmp(argv[2], "--json");
		if (argc > 2 && !json)
			die_usage("enforce follow takes no arguments but --json");
		return do_follow(json);
	}
	if (!strcmp(sub, "agent"))
		return do_agent(argc - 1, argv + 1);
	if (!strcmp(sub, "ready"))
		return do_ready(argc - 1, argv + 1);
	die_usage("enforce: unknown subcommand '%s' (start, stop, status, follow, agent or ready)",
		  sub);
}
#endif

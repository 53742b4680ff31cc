/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the verbs of `pmuguard enforce` share: their documents (--json,
 * --keys) through ../doc/'s writers, the policy for this machine, and
 * the pieces of the guard's state that start, status, ready and the agent
 * all say (enforce_common.c).  One file per verb group beside it: enforce_start.c
 * (start, stop), enforce_status.c (status, ready), enforce_follow.c
 * (follow, agent), enforce_textfile.c (the agent's metrics); cmd_enforce.c
 * dispatches from its verb table.
 */
#ifndef PMUGUARD_ENFORCE_COMMON_H
#define PMUGUARD_ENFORCE_COMMON_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "enforce.h"
#include "enforce_state.h"
#include "doc.h"
#include "policy.h"
#include "settings.h"

/* The verbs (cmd_enforce.c's table): `pmuguard enforce VERB`, named as
 * the command's subcommands are (cmd_*), apart from the loader's enf_*. */
int cmd_enforce_start(int argc, char **argv);
int cmd_enforce_stop(int argc, char **argv);
int cmd_enforce_status(int argc, char **argv);
int cmd_enforce_ready(int argc, char **argv);
int cmd_enforce_follow(int argc, char **argv);
int cmd_enforce_agent(int argc, char **argv);

/* `pmuguard enforce --help`, which every verb's --help prints. */
extern const char enforce_usage[];

/* ---- The documents: ../doc/'s writers (enforce_common.c) ------------------ */

/* Raised when a key changes meaning or goes away (new keys do not raise it). */
#define ENFORCE_OUTPUT_SCHEMA 1

/* A document on stdout as JSON or keys, through ../doc/'s writers (one
 * writer, one escaper for every document of the command), then flushed:
 * the object, schema, version and generated_at, then what walk gives. */
void enforce_doc_print(enum doc_form form, doc_walker *walk, const void *arg);

/* ---- What the policy says (enforce_common.c) ------------------------------ */

/* What the policy says for this machine: the same path as the shim. */
struct enforce_plan {
	struct guard_settings set;
	struct guard_policy policy;
	struct probe_verdict v;
	struct probe_facts *f;
	char snapshot[PATH_MAX]; /* set.snapshot made absolute: the rodata keeps it */
};
void enforce_plan_make(struct enforce_plan *pl, int mode, const char *snapshot, bool quiet);

/* ---- The guard's state, as every verb says it (enforce_common.c) ---------- */

/* The words for a guard in audit mode, wherever "protected?" is answered. */
#define ENFORCE_AUDIT_WORDS "audit: blocks nothing"

void enforce_print_types(FILE *out, const unsigned *types, unsigned n);
void enforce_print_hazards(FILE *out, const struct pmug_enf_config *c);
/* Where the kernel refused a user (EPERM, EACCES, not root): the cause and
 * its remedy on stderr, said before the kernel's words; false: not that. */
bool enforce_needs_root_say(int err);
/* Why the kernel may have said no, after its words: lockdown, or a kernel
 * that refuses root too. */
void enforce_hint(int err);
const char *enforce_hit_word(enum guard_hit hit);
enum guard_hit enforce_key_hit(unsigned code);
/* A comm (the kernel's 16 bytes) as a string: text prints it through
 * fput_safe, data through the writer. */
void enforce_comm_str(char out[17], const char in[16]);
const char *enforce_facts_from_words(const struct pmug_enf_config *c);
void enforce_config_data(const struct doc_sink *doc, const struct pmug_enf_config *c);
void enforce_verify_data(const struct doc_sink *doc, const struct enf_verify *v);
void enforce_verify_text(const char *lead, const struct enf_verify *v);
struct enf_existing *enforce_existing_list(const struct pmug_enf_config *cfg);
int enforce_existing_rc(const struct enf_existing *ex, const struct pmug_enf_config *cfg);
/* The exit status and ready give for the guard's state (enforce_state.h's
 * table): ex, the events that exist now, where it was read (NULL: not). */
int enforce_state_exit(enum enf_guard g, const struct enf_existing *ex,
		       const struct pmug_enf_config *cfg);
void enforce_existing_text(const char *lead, const char *indent, const struct enf_existing *ex,
		   const struct pmug_enf_config *cfg);
void enforce_existing_data(const struct doc_sink *doc, const struct enf_existing *ex,
		   const struct pmug_enf_config *cfg);

/* ---- start, for the agent too (enforce_start.c) --------------------------- */

enum enforce_outcome { ENFORCE_OUT_ATTACHED, ENFORCE_OUT_ALREADY, ENFORCE_OUT_REPLACED, ENFORCE_OUT_NOTHING, ENFORCE_OUT_REFUSED };

struct enforce_start_model {
	enum enforce_outcome outcome;
	int rc;
	struct enforce_plan pl;
	struct enf_result *r;       /* ENFORCE_OUT_ATTACHED, _ALREADY, _REPLACED, _REFUSED */
	int err;                    /* ENFORCE_OUT_REFUSED: -errno */
	struct enf_status *earlier; /* ENFORCE_OUT_NOTHING: an earlier start still attached, or NULL */
	struct enf_existing *ex;    /* attached: the events that exist now */
};

/* The options start and agent share: --mode, --snapshot, --attach. */
struct enforce_start_opts {
	int mode;
	const char *snapshot;
	unsigned attach;
};
#define ENFORCE_START_OPTS_INIT {.mode = -1, .attach = PMUG_ENF_ATTACH_NONE}

/* --mode, --snapshot and --attach: the rows of start's and agent's getopt_long
 * tables that enforce_start_option() reads (short codes m, s, a). */
#define ENFORCE_START_OPTIONS \
	{"mode", required_argument, NULL, 'm'}, {"snapshot", required_argument, NULL, 's'}, \
	{"attach", required_argument, NULL, 'a'}
void enforce_start_option(int ch, const char *arg, struct enforce_start_opts *o);
void enforce_start_run(struct enforce_start_model *m, int mode, const char *snapshot, unsigned attach,
	       bool keep_unverified);
void enforce_start_data(const struct enforce_start_model *m, enum doc_form form, const char *event);
/* Why a start was refused, on stderr, for people: the refusal itself where
 * the document went to stdout (repeat; not the agent's, whose pod log
 * holds stdout and stderr alike: said once there), then the hint. */
void enforce_start_refused_say(const struct enforce_start_model *m, enum doc_form form, bool repeat);
void enforce_start_free(struct enforce_start_model *m);

/* ---- the agent (enforce_follow.c, enforce_textfile.c) ---------------------- */

/* A lifecycle line of follow --json and the agent's log:
 * {"schema":1,"event":EVENT,"time":...,KEY:VALUE}. */
void enforce_life_json(const char *event, const char *key, const char *value);
/* --textfile: the node's series written by a child from now on, every
 * interval seconds and soon after enforce_textfile_refresh(); 0 or -errno. */
int enforce_textfile_start(const char *path, unsigned interval, const char *snapshot);
/* Where the kernel refused the guard: the node's metrics written once, the
 * refusal (why) among them, so that the node that needs an alert has its
 * series; 0 or -errno (said on the agent's log). */
int enforce_textfile_refused(const char *path, const char *snapshot, const char *why);
/* A denial was reported: have the file say so soon. */
void enforce_textfile_refresh(void);
/* The writer stopped and reaped (nothing where none was started). */
void enforce_textfile_stop(void);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the verbs of `pmuguard enforce` share: their documents (--json,
 * --keys) through the report's writers, the policy for this machine, and
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
#include "policy.h"
#include "report.h"
#include "settings.h"

/* The verbs (cmd_enforce.c's table). */
int enforce_start(int argc, char **argv);
int enforce_stop(int argc, char **argv);
int enforce_status(int argc, char **argv);
int enforce_ready(int argc, char **argv);
int enforce_follow(int argc, char **argv);
int enforce_agent(int argc, char **argv);

/* `pmuguard enforce --help`, which every verb's --help prints. */
extern const char enforce_usage[];

/* ---- The documents: the report's writers (enforce_common.c) -------------- */

/* Raised when a key changes meaning or goes away (new keys do not raise it). */
#define ENF_OUTPUT_SCHEMA 1

enum form { FORM_TEXT, FORM_JSON, FORM_KEYS };

/* A document on stdout as JSON or keys, through ../report/'s writers (one
 * writer, one escaper for every document of the command), then flushed:
 * the object, schema, version and generated_at, then what walk gives. */
void enf_doc_print(enum form form, report_walker *walk, const void *arg);
/* --json / --keys, once: sub names the verb in the usage error. */
void form_set(enum form *form, enum form want, const char *sub);

/* ---- What the policy says (enforce_common.c) ------------------------------ */

/* What the policy says for this machine: the same path as the shim. */
struct plan {
	struct guard_settings set;
	struct guard_policy policy;
	struct probe_verdict v;
	struct probe_facts *f;
	char snapshot[PATH_MAX]; /* set.snapshot made absolute: the rodata keeps it */
};
void plan_make(struct plan *pl, int mode, const char *snapshot, bool quiet);

/* ---- The guard's state, as every verb says it (enforce_common.c) ---------- */

/* The words for a guard in audit mode, wherever "protected?" is answered. */
#define AUDIT_WORDS "audit: blocks nothing"

void print_types(FILE *out, const unsigned *types, unsigned n);
void print_hazards(FILE *out, const struct pmug_enf_config *c);
/* Why the kernel may have said no, in words an operator can act on. */
void hint(int err);
const char *hit_word(enum guard_hit hit);
enum guard_hit key_hit(unsigned code);
/* A comm (the kernel's 16 bytes) as a string: text prints it through
 * fput_safe, data through the writer. */
void comm_str(char out[17], const char in[16]);
const char *facts_from_words(const struct pmug_enf_config *c);
void config_data(const struct report_sink *doc, const struct pmug_enf_config *c);
void verify_data(const struct report_sink *doc, const struct enf_verify *v);
void verify_text(const char *lead, const struct enf_verify *v);
struct enf_existing *existing_read(const struct pmug_enf_config *cfg);
int existing_rc(const struct enf_existing *ex, const struct pmug_enf_config *cfg);
int attached_rc(const struct enf_status *st, const struct enf_existing *ex);
void existing_text(const char *lead, const char *indent, const struct enf_existing *ex,
		   const struct pmug_enf_config *cfg);
void existing_data(const struct report_sink *doc, const struct enf_existing *ex,
		   const struct pmug_enf_config *cfg);

/* ---- start, for the agent too (enforce_start.c) --------------------------- */

enum outcome { OUT_ATTACHED, OUT_ALREADY, OUT_REPLACED, OUT_NOTHING, OUT_REFUSED };

struct start_model {
	enum outcome outcome;
	int rc;
	struct plan pl;
	struct enf_result *r;       /* OUT_ATTACHED, _ALREADY, _REPLACED, _REFUSED */
	int err;                    /* OUT_REFUSED: -errno */
	struct enf_status *earlier; /* OUT_NOTHING: an earlier start still attached, or NULL */
	struct enf_existing *ex;    /* attached: the events that exist now */
};

/* The options start and agent share: --mode, --snapshot, --attach. */
struct start_opts {
	int mode;
	const char *snapshot;
	unsigned attach;
};
#define START_OPTS_INIT {.mode = -1, .attach = PMUG_ENF_ATTACH_NONE}

void start_option(int ch, const char *arg, struct start_opts *o);
void start_run(struct start_model *m, int mode, const char *snapshot, unsigned attach,
	       bool keep_unverified);
void start_data(const struct start_model *m, enum form form, const char *event);
/* Why a start was refused, on stderr, for people: the refusal itself where
 * the document went to stdout (repeat; not the agent's, whose pod log
 * holds stdout and stderr alike: said once there), then the hint. */
void start_refused_say(const struct start_model *m, enum form form, bool repeat);
void start_free(struct start_model *m);

/* ---- the agent (enforce_follow.c, enforce_textfile.c) ---------------------- */

/* A lifecycle line of follow --json and the agent's log:
 * {"schema":1,"event":EVENT,"time":...,KEY:VALUE}. */
void enf_life_json(const char *event, const char *key, const char *value);
/* --textfile: the node's series written by a child from now on, every
 * interval seconds and soon after agent_textfile_refresh(); 0 or -errno. */
int agent_textfile_start(const char *path, unsigned interval, const char *snapshot);
/* Where the kernel refused the guard: the node's metrics written once, the
 * refusal (why) among them, so that the node that needs an alert has its
 * series; 0 or -errno (said on the agent's log). */
int agent_textfile_refused(const char *path, const char *snapshot, const char *why);
/* A denial was reported: have the file say so soon. */
void agent_textfile_refresh(void);
/* The writer stopped and reaped (nothing where none was started). */
void agent_textfile_stop(void);

#endif

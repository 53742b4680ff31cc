/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_CLI_H
#define PMUGUARD_CLI_H

#include <stdbool.h>

#include <stdio.h>
#include <time.h>

/* Exit codes (exit_codes.h) and the time formatter: ../doc/, the one definition. */
#include "doc.h"

/* This build's version (scripts/version, at every build: version.c.in). */
extern const char pmuguard_version[];
#define PMUGUARD_VERSION pmuguard_version

/* The messages (cli_die.c). */
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void die_errno(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void die_usage(const char *fmt, ...);

/* A verb table's row: `pmuguard NAME` (main.c), `pmuguard enforce NAME`
 * (cmd_enforce.c). */
struct cli_verb {
	const char *name;
	int (*fn)(int argc, char **argv);
};
/* The table's names as a usage error says them, "a, b or c" (cli_die.c):
 * built from the table, so it names every verb there is. */
void cli_verb_names(char *buf, size_t size, const struct cli_verb *v, size_t n);

/* After getopt_long() returned '?': "pmuguard: CMD: unrecognized option ..." (exit 2). */
__attribute__((noreturn)) void die_bad_option(const char *cmd, char **argv, const char *optstring);

/* "pmuguard: MESSAGE" on stderr, control characters and backslashes in the
 * formatted text written as \xNN (values from outside cannot add lines). */
__attribute__((format(printf, 1, 2))) void warn_msg(const char *fmt, ...);
/* s with the same escaping. */
void fput_safe(const char *s, FILE *out);
/* fmt's text on out with the same escaping, then a newline (cli_line:
 * one line, whatever its values hold) or not (cli_put: a piece of one).
 * fmt itself holds no newline. */
__attribute__((format(printf, 2, 3))) void cli_line(FILE *out, const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void cli_put(FILE *out, const char *fmt, ...);

/* The folder to read for a snapshot named on the command line, in
 * PMUGUARD_SNAPSHOT or the policy file (settings_cli.c): a path (it holds a
 * '/' or is a directory here) as given, else the reference snapshot NAME in
 * dir (the settings' snapshot_dir; NULL: the installed ones), as
 * probe_snapshot_find says.  Dies (exit 1) naming it unless it is a
 * directory; where NAME is found nowhere, the message says where it looked
 * and lists the reference snapshots.  The result lives until the next call. */
const char *cli_snapshot_path(const char *name, const char *dir);
/* Where a NAME is looked up: PMUGUARD_SNAPSHOT_DIR where the settings take
 * it, else the installed reference snapshots. */
const char *cli_snapshot_dir(void);
/* The snapshot folders in dir, sorted, one a line after indent; how many,
 * or -errno where dir cannot be read. */
int cli_list_snapshots(FILE *out, const char *dir, const char *indent);

struct report_input;
struct report;
/* The exit where a fact's read failed for another reason than its absence
 * and the hazard was not found (cmd_probe.c): EXIT_INTERNAL, said on
 * stderr, for a snapshot or --dmesg FILE always, live for check where the
 * verdict is unknown; -1 where the verdict's exit stands.  Never 0: a read
 * that failed is no proof of "no hazard". */
int cli_probe_unread_exit(const struct report_input *in, const struct report *r, bool check);

int cmd_probe(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_enforce(int argc, char **argv);
int cmd_canary(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_tree(int argc, char **argv);

struct status_model;
struct status_decision;
struct status_opts;
/* This host's status model, observed and decided (status_observe.c): the
 * probe's verdict in a child (the settings' facts: PMUGUARD_SNAPSHOT, the
 * policy's snapshot, else this machine), then ../status/'s gatherers and
 * its one decision.  For status, and the agent's textfile. */
void cli_status_observe(struct status_model *m, struct status_decision *d,
			const struct status_opts *o);

struct guard_settings;
struct guard_cli;
struct guard_env;
/* A subcommand's settings: the policy file, this process's environment
 * (guard_env_read) and cli, through the one resolver (probe/guard/settings.h);
 * unless quiet, what was ignored is said on stderr once.  env, when not
 * NULL, gets what the environment said (settings_cli.c). */
void cli_settings(struct guard_settings *set, const struct guard_cli *cli, bool quiet,
		  struct guard_env *env);
/* run --audit's two: guard, what answers the tree's calls (the host's
 * policy where it is locked), and view, what the audit judges them with
 * (mode audit, the facts snapshot names). */
void cli_settings_audit(struct guard_settings *guard, struct guard_settings *view,
			const char *snapshot, struct guard_env *env);

/* --json and --keys, the same two rows in every subcommand's getopt_long
 * table, with fixed codes: -j and -k too where a subcommand's short
 * options name them (probe, status); long only elsewhere.  Then --help and
 * the end row, last in every table (clang-format would split each row's
 * braces over lines). */
#define CLI_OPT_JSON 'j'
#define CLI_OPT_KEYS 'k'
/* clang-format off */
#define CLI_FORM_OPTIONS \
	{"json", no_argument, NULL, CLI_OPT_JSON}, {"keys", no_argument, NULL, CLI_OPT_KEYS}
#define CLI_HELP_OPTION_END {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}
/* clang-format on */

/* --json or --keys (opt: CLI_OPT_JSON or CLI_OPT_KEYS) given to cmd: into
 * *form (DOC_FORM_TEXT until one is given), the one reading of both
 * options for every subcommand (settings_cli.c); the other one given too
 * is a usage error (exit 2): "CMD: --json and --keys print the same
 * document: choose one". */
void cli_form_option(enum doc_form *form, int opt, const char *cmd);

/* run --audit's report (run_audit.c): the table for people, or the
 * document as JSON or KEY=VALUE lines, on stderr (stdout is the command's). */
struct sup_audit;
struct sup_options;
void run_audit_print(enum doc_form form, const struct sup_audit *a, const struct sup_options *o);
#endif

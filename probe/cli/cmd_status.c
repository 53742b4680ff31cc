// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard status: is this host protected, by which layer (seen to work),
 * verified when, what was blocked.  This file parses the arguments, has
 * the one model (../status/status.h) observed (status_observe.c), and
 * hands it to a renderer: words, the document (--json, --keys), the
 * textfile.
 * `pmuguard-fleet status` is this command.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "settings.h"
#include "status.h"

struct walk_arg {
	const struct status_model *m;
	const struct status_decision *d;
	const char *generated_at, *host;
};

static void walk(const struct doc_sink *sink, const void *arg)
{
	const struct walk_arg *a = arg;
	status_walk(a->m, a->d, a->generated_at, a->host, sink);
}

static void usage(void)
{
	fputs("Usage: pmuguard status [--json|--keys] [--textfile FILE] [--syslog-file FILE]\n"
	      "                       [--root DIR] [--lib PATH] [--layer L] [--pmuguard PATH]\n"
	      "                       [--prefix NAME]\n"
	      "\n"
	      "Whether this host is protected, by which layer (seen to work), verified\n"
	      "when, which version, what was blocked and by which programs, and why a\n"
	      "layer does not guard (pmuguard(1), STATUS).\n"
	      "  --json             one JSON object (schema 2, status.schema.json)\n"
	      "  --keys             the same, one KEY=VALUE a line; first schema=2\n"
	      "  --textfile FILE    also write node_exporter metrics to FILE (atomically)\n"
	      "  --syslog-file FILE count the preload's reports in FILE, not the journal\n"
	      "  --root DIR         the files under DIR, not / (no canary, no processes)\n"
	      "  --layer L          with --root: ask the running kernel's guard too\n"
	      "  --lib PATH         the library as the loader reads it\n"
	      "  --pmuguard PATH    the command that answers `enforce status --keys` and\n"
	      "                     `canary` (default: this one)\n"
	      "  --prefix NAME      the text's lines start \"NAME: \" (default pmuguard)\n"
	      "  -q, --quiet        print nothing (with --textfile: the metrics alone)\n"
	      "pmuguard-fleet's own: --preload FILE, --preload-target FILE and\n"
	      "--preload-insane WHY (the file as it resolved it under --root), --lib-at\n"
	      "PATH, --reprobe-exit N and --reprobe-error WHY (its reprobe's end, for\n"
	      "the textfile).\n"
	      "\n"
	      "Exit (LSB's status actions): 0 guarded, or no hazard; 3 the hazard, and no\n"
	      "layer was seen to guard it, or events opened before the kernel guard\n"
	      "escape it (PARTLY); 4 the probe gave no verdict; 1 failed (a --textfile\n"
	      "that could not be written); 2 usage.\n",
	      stdout);
}

enum { O_LIB_AT = 256, O_PRELOAD, O_TARGET, O_INSANE, O_REPROBE_EXIT, O_REPROBE_ERROR };

/* What the command line asked of the output. */
struct status_args {
	const char *textfile, *prefix;
	enum doc_form form;
	bool quiet;
	struct status_reprobe rp;
};

/* --reprobe-exit N: an exit status; "foo" is no success. */
static int reprobe_exit(const char *arg)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 255)
		die_usage("status: --reprobe-exit is an exit status (0 to 255), not '%s'", arg);
	return (int)v;
}

/* The options into o and a, checked; false after --help. */
static bool status_parse(int argc, char **argv, struct status_opts *o, struct status_args *a)
{
	static const struct option opts[] = {
		CLI_FORM_OPTIONS,
		{"quiet", no_argument, NULL, 'q'},
		{"textfile", required_argument, NULL, 't'},
		{"syslog-file", required_argument, NULL, 's'},
		{"root", required_argument, NULL, 'r'},
		{"lib", required_argument, NULL, 'l'},
		{"layer", required_argument, NULL, 'L'},
		{"pmuguard", required_argument, NULL, 'p'},
		{"prefix", required_argument, NULL, 'P'},
		/* pmuguard-fleet's: the paths it resolved under --root by its
		 * own rules (the ones install follows), and its reprobe's end. */
		{"lib-at", required_argument, NULL, O_LIB_AT},
		{"preload", required_argument, NULL, O_PRELOAD},
		{"preload-target", required_argument, NULL, O_TARGET},
		{"preload-insane", required_argument, NULL, O_INSANE},
		{"reprobe-exit", required_argument, NULL, O_REPROBE_EXIT},
		{"reprobe-error", required_argument, NULL, O_REPROBE_ERROR},
		CLI_HELP_OPTION_END,
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "+jkqh", opts, NULL)) != -1) {
		switch (ch) {
		case CLI_OPT_JSON:
		case CLI_OPT_KEYS: cli_form_option(&a->form, ch, "status"); break;
		case 'q': a->quiet = true; break;
		case 't': a->textfile = optarg; break;
		case 's': o->syslog_file = optarg; break;
		case 'r': o->root = optarg; break;
		case 'l': o->lib = optarg; break;
		case 'L':
			if (strcmp(optarg, "auto") && strcmp(optarg, "kernel") &&
			    strcmp(optarg, "preload"))
				die_usage("status: --layer is auto, kernel or preload, not '%s'",
					  optarg);
			o->layer_given = true;
			break;
		case 'p': o->pmuguard = optarg; break;
		case 'P': a->prefix = optarg; break;
		case O_LIB_AT: o->lib_at = optarg; break;
		case O_PRELOAD: o->preload = optarg; break;
		case O_TARGET: o->preload_target = optarg; break;
		case O_INSANE: o->preload_insane = optarg; break;
		case O_REPROBE_EXIT: a->rp.exit = reprobe_exit(optarg); break;
		case O_REPROBE_ERROR: a->rp.error = optarg; break;
		case 'h': usage(); return false;
		default: die_bad_option("status", argv, "jkqh");
		}
	}
	if (optind < argc)
		die_usage("status: unexpected argument '%s'", argv[optind]);
	if (a->textfile && a->textfile[0] != '/')
		die_usage("status: --textfile must be an absolute path");
	/* node_exporter's textfile collector reads only *.prom: a file of
	 * another name is written and never collected, every alert on it
	 * silently green.  Written all the same (another reader may want
	 * it), and said. */
	size_t tl = a->textfile ? strlen(a->textfile) : 0;
	if (a->textfile && (tl < 5 || strcmp(a->textfile + tl - 5, ".prom") != 0))
		warn_msg("--textfile %s: node_exporter's textfile collector reads only files named "
			 "*.prom: it will not collect this one",
			 a->textfile);
	if (o->lib && *o->lib && o->lib[0] != '/')
		die_usage("status: --lib must be an absolute path: the loader reads it verbatim");
	if (o->root && !*o->root)
		o->root = NULL;
	return true;
}

/* The places status_opts points to, where the caller named none. */
struct status_places {
	char preload[PATH_MAX], target[PATH_MAX], lib[PATH_MAX], lib_at[PATH_MAX], self[PATH_MAX];
};

/* What the caller did not resolve: the plain places under the root,
 * resolved in the tree (a link there never leads to this host's files);
 * what is not found there is found nowhere.  And this command, for the
 * children that answer for it. */
static void status_resolve(struct status_opts *o, struct status_places *pl)
{
	const char *root = o->root;
	if (!o->preload) {
		snprintf(pl->preload, sizeof(pl->preload), "%s/etc/ld.so.preload",
			 root ? root : "");
		o->preload = pl->preload;
		if (root && !o->preload_target) {
			int e = status_in_root(root, "/etc/ld.so.preload", pl->target,
					       sizeof(pl->target));
			if (e == -EXDEV)
				o->preload_insane = "its real path leaves the tree under --root";
			o->preload_target = e ? "" : pl->target;
		}
	}
	if (!o->lib || !*o->lib) {
		o->lib = NULL;
		if (status_tree_find_lib(root, pl->lib, sizeof(pl->lib), pl->lib_at,
					 sizeof(pl->lib_at))) {
			o->lib = pl->lib;
			o->lib_at = o->lib_at ? o->lib_at : pl->lib_at;
		}
	}
	if (o->lib && !o->lib_at) {
		if (!root)
			o->lib_at = o->lib;
		else if (status_in_root(root, o->lib, pl->lib_at, sizeof(pl->lib_at)) == 0)
			o->lib_at = pl->lib_at;
		else
			o->lib_at = ""; /* not in the tree: "does not exist" */
	}
	if (!o->pmuguard) {
		ssize_t n = readlink("/proc/self/exe", pl->self, sizeof(pl->self) - 1);
		if (n <= 0)
			die_errno("status: cannot find this command (/proc/self/exe)");
		pl->self[n] = '\0';
		o->pmuguard = pl->self;
	}
}

/* The textfile, and what the write saw of a second writer. */
static void status_textfile(const char *textfile, const struct status_model *m,
			    const struct status_decision *d, const struct status_reprobe *rp)
{
	struct status_textfile_note note;
	int e = status_write_textfile(textfile, m, d, rp, &note);
	if (e < 0)
		die("--textfile: cannot write %s: %s", textfile, strerror(-e));
	if (note.shared)
		warn_msg("--textfile: %s was also written by %s %llds ago: each write "
			 "replaces the other's series (pmuguard_textfile_shared says so); give "
			 "each its own file in the collector's directory",
			 textfile,
			 strcmp(note.previous_writer, "agent") == 0
				 ? "a node agent (pmuguard enforce agent --textfile)"
				 : "this host's pmuguard status --textfile",
			 note.previous_age);
}

/* Words, or the document (--json, --keys): one walk. */
static void status_print(const struct status_args *a, const struct status_model *m,
			 const struct status_decision *d)
{
	char now[32];
	struct utsname u;
	doc_utc_now(now, sizeof(now));
	if (uname(&u) != 0)
		u.nodename[0] = '\0';
	struct walk_arg w = {m, d, now, u.nodename};
	/* The status document has always been printed spaced. */
	if (a->form == DOC_FORM_TEXT)
		doc_write_text(stdout, a->prefix, walk, &w);
	else if (a->form == DOC_FORM_JSON)
		doc_write_json_spaced(stdout, walk, &w);
	else
		doc_write_keys(stdout, walk, &w);
}

int cmd_status(int argc, char **argv)
{
	struct status_opts o = {.version = PMUGUARD_VERSION, .me = geteuid()};
	struct status_args a = {.prefix = "pmuguard", .rp = {.exit = -1}};
	if (!status_parse(argc, argv, &o, &a))
		return EXIT_OK;
	struct status_places *places = calloc(1, sizeof(*places));
	struct status_model *m = calloc(1, sizeof(*m));
	struct status_decision *d = calloc(1, sizeof(*d));
	if (!places || !m || !d)
		die_errno("out of memory");
	status_resolve(&o, places);
	if (a.textfile) {
		char why[PATH_MAX + 160];
		if (status_textfile_dir_check(a.textfile, why, sizeof(why)) != 0)
			die("--textfile: %s", why);
	}
	cli_status_observe(m, d, &o);
	if (a.textfile)
		status_textfile(a.textfile, m, d, &a.rp);
	if (!a.quiet)
		status_print(&a, m, d);
	int rc = d->exit;
	status_free(m);
	free(m);
	free(d);
	free(places);
	if (fflush(stdout) != 0)
		die_errno("writing the status");
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard tree [--root DIR] [--lib PATH] [--check-load] [--json|--keys]:
 * what pmuguard reads in a tree (or on this host), as data (KEY=VALUE
 * lines, or one JSON object: ../doc/schema/tree.schema.json): where the preload
 * file and the library are, resolved in the tree; whether the file lists
 * the library as the loader parses it; the policy file as the guard reads
 * it (and whether anyone but root may change it); with --check-load,
 * whether the loader takes the library, run as uid 65534 with a fixed PATH
 * alone.  pmuguard-fleet asks this instead of resolving a tree itself:
 * the rules live once, in ../status/status_tree.c.
 *
 * With an edit (--preload-add, --preload-remove, --policy-lock,
 * --policy-drop-created) it is the fleet's one writer in a tree and on
 * this host: through descriptors alone (../status/status_tree_write.c),
 * its outcome as data, in the same forms.  Each is one document, its
 * facts gathered first, then walked once (tree_walk(), edit_walk()) for
 * ../doc/'s writers.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "status.h"

/* The schema of these documents: raised when a key changes meaning. */
#define TREE_SCHEMA 1

static void usage(void)
{
	fputs("Usage: pmuguard tree [--root DIR] [--lib PATH] [--check-load] [--json|--keys]\n"
	      "       pmuguard tree [--root DIR] EDIT [--dry-run] [--json|--keys]\n"
	      "\n"
	      "What pmuguard reads in the tree under DIR (default: this host), one\n"
	      "KEY=VALUE a line (pmuguard(1), TREE): the preload file and the library,\n"
	      "resolved in the tree (a link never leads out of it); whether the file\n"
	      "lists the library as the loader parses it; the policy file as the guard\n"
	      "reads it.  Nothing of the tree runs but with --check-load: the library in\n"
	      "/bin/true, as uid 65534 (when run as root), with a fixed PATH alone.\n"
	      "  --json   the same document as one JSON object (tree.schema.json)\n"
	      "  --keys   KEY=VALUE lines, first schema=1 (the default)\n"
	      "\n"
	      "EDIT changes one file of the tree, as pmuguard-fleet does, through\n"
	      "descriptors of directories opened without following a link, a temporary\n"
	      "made O_EXCL beside the file and renamed over it (a link at a name is\n"
	      "replaced, never followed); it prints what it did (edit, outcome, action):\n"
	      "  --preload-add LIB --file F [--backup B]   list LIB first in F, the old F kept as B\n"
	      "  --preload-remove LIB --file F [--keep-empty]  drop LIB's lines from F\n"
	      "  --policy-lock [--file F]          lock = yes in F (/etc/pmuguard.conf), every other byte kept\n"
	      "  --policy-drop-created [--file F]  remove the policy install created, if unchanged\n"
	      "F and B are absolute paths in the tree with no link on their way.\n"
	      "\n"
	      "Exit: 0 answered (or done); 1 DIR cannot be read, or the edit was refused\n"
	      "(nothing changed: why=); 2 usage.\n",
	      stdout);
}

/* Why a path was refused or a file not read: what the tree's rules say,
 * else the error's words. */
static const char *words(int err, char *buf, size_t size)
{
	if (err == -EXDEV)
		return "its real path leaves the tree under --root";
	if (err == -EINVAL)
		return "not a regular file";
	if (err == -EFBIG)
		return "larger than 1 MiB: not read";
	snprintf(buf, size, "%s", strerror(-err));
	return buf;
}

/* A refusal worth saying: none where there is no error, or the file is
 * only absent. */
static const char *refusal(int err, char *buf, size_t size)
{
	return err && err != -ENOENT ? words(err, buf, size) : NULL;
}

/* An edit's outcome, made before anything prints. */
struct tree_edit_doc {
	const char *edit, *root, *file, *outcome;
	const struct status_edit *e;
	bool refused;
};

static void edit_walk(const struct doc_sink *d, const void *arg)
{
	const struct tree_edit_doc *t = arg;
	doc_open_schema(d, TREE_SCHEMA);
	doc_str(d, "edit", t->edit);
	doc_str(d, "root", t->root);
	doc_str(d, "file", t->file);
	doc_str(d, "outcome", t->outcome);
	doc_str_or_null(d, "action", t->e->action);
	doc_str_or_null(d, "backup", t->e->backup);
	doc_str_or_null(d, "untrusted", t->e->untrusted);
	doc_bool(d, "locked", t->e->locked);
	doc_str_or_null(d, "why", t->refused ? t->e->why : NULL);
	doc_end(d);
}

/* An edit: checked, made, and its outcome as data. */
static int tree_edit(int edit, struct status_edit_args *a, const char *root, bool reading,
		     enum doc_form form)
{
	if (reading)
		die_usage("tree: an edit takes no --lib or --check-load");
	bool preload = edit == 'A' || edit == 'R';
	if (preload && (!a->file || a->file[0] != '/'))
		die_usage(
			"tree: --preload-add and --preload-remove need --file, an absolute path in the tree");
	if (preload && a->lib[0] != '/')
		die_usage("tree: the entry must be an absolute path: the loader reads it verbatim");
	if (!preload && (a->backup || a->keep_empty))
		die_usage("tree: --backup and --keep-empty are for the preload edits");
	if (a->file && a->file[0] != '/')
		die_usage("tree: --file must be an absolute path in the tree");
	if ((a->backup && edit != 'A') || (a->keep_empty && edit != 'R'))
		die_usage(
			"tree: --backup goes with --preload-add, --keep-empty with --preload-remove");
	if (a->backup && a->backup[0] != '/')
		die_usage("tree: --backup must be an absolute path in the tree");
	a->root = root;
	struct status_edit e;
	int rc = preload ? status_preload_edit(a, &e) : status_policy_edit(a, &e);
	const struct tree_edit_doc t = {
		.edit = edit == 'A'   ? "preload-add"
			: edit == 'R' ? "preload-remove"
			: edit == 'L' ? "policy-lock"
				      : "policy-drop-created",
		.root = root ? root : "/",
		.file = a->file ? a->file : GUARD_CONF_PATH,
		.outcome = rc != 0      ? "refused"
			   : a->dry_run ? "would"
					: "done",
		.e = &e,
		.refused = rc != 0,
	};
	doc_write(stdout, form, edit_walk, &t);
	if (fflush(stdout) != 0)
		die_errno("writing the edit's outcome");
	return rc != 0 ? EXIT_INTERNAL : EXIT_OK;
}

/* What pmuguard reads in the tree, gathered before anything prints. */
struct tree_facts {
	const char *root; /* resolved; "/" for this host */
	char lib[PATH_MAX], lib_at[PATH_MAX];
	const char *lib_refused;
	const char *preload; /* the file, as the loader names it */
	char preload_at[PATH_MAX];
	const char *preload_refused, *preload_not_read;
	bool preload_lists;
	char conf_at[PATH_MAX];
	const char *policy_refused;
	struct status_tree_policy p;
	bool checked; /* --check-load */
	bool loads;
	char load_why[STATUS_WHY], checked_as[32];
	char lib_words[128], preload_words[128], read_words[128], policy_words[128];
};

/* The tree's document: the keys pmuguard-fleet has always read (lib.at,
 * preload.lists), each written once here.  `lib` is the entry, a string:
 * what is known of it follows as members named lib.at, lib.refused and,
 * with --check-load, last, lib.loads, lib.load_why, lib.checked_as. */
static void tree_walk(const struct doc_sink *d, const void *arg)
{
	const struct tree_facts *t = arg;
	doc_open_schema(d, TREE_SCHEMA);
	doc_str(d, "root", t->root);
	doc_str_or_null(d, "lib", t->lib);
	doc_str_or_null(d, "lib.at", t->lib_at);
	doc_str_or_null(d, "lib.refused", t->lib_refused);
	doc_open(d, "preload", false);
	doc_str(d, "file", t->preload);
	doc_str_or_null(d, "at", t->preload_at);
	doc_str_or_null(d, "refused", t->preload_refused);
	doc_str_or_null(d, "not_read", t->preload_not_read);
	doc_bool(d, "lists", t->preload_lists);
	doc_end(d);
	doc_open(d, "policy", false);
	doc_str(d, "file", GUARD_CONF_PATH);
	doc_str_or_null(d, "at", t->conf_at);
	doc_str_or_null(d, "refused", t->policy_refused);
	doc_bool(d, "untrusted", t->p.untrusted);
	/* untrusted_why starts ": " (the guard's reason, said after a path). */
	doc_str_or_null(d, "untrusted_why", t->p.untrusted ? t->p.untrusted_why + 2 : NULL);
	doc_bool(d, "locked", t->p.locked);
	doc_str(d, "state",
		t->p.state == STATUS_POLICY_GUARDS         ? "guards"
		: t->p.state == STATUS_POLICY_LETS_THROUGH ? "lets-through"
							   : "unknown");
	doc_str_or_null(d, "why", t->p.why);
	doc_end(d);
	if (t->checked) {
		doc_bool(d, "lib.loads", t->loads);
		doc_str_or_null(d, "lib.load_why", t->loads ? NULL : t->load_why);
		doc_str(d, "lib.checked_as", t->checked_as);
	}
	doc_end(d);
}

/* Why the library was not checked: it is not there.  The path is cut at
 * size, where the message is cut anyway. */
static void missing(char *buf, size_t size, const char *lib, const char *root)
{
	if (!*lib)
		lib = "libpmuguard.so";
	snprintf(buf, size, "%.*s does not exist%s%s", (int)strnlen(lib, size), lib,
		 root ? " in the tree under --root " : "", root ? root : "");
}

/* The tree's facts, by ../status/status_tree.c's rules. */
static void tree_gather(struct tree_facts *t, const char *root, const char *lib_given, bool check)
{
	int lerr = 0;
	if (lib_given) {
		snprintf(t->lib, sizeof(t->lib), "%s", lib_given);
		lerr = root ? status_in_root(root, t->lib, t->lib_at, sizeof(t->lib_at)) : 0;
		if (!root)
			snprintf(t->lib_at, sizeof(t->lib_at), "%s", t->lib);
	} else {
		status_tree_find_lib(root, t->lib, sizeof(t->lib), t->lib_at, sizeof(t->lib_at));
	}
	if (lerr)
		t->lib_at[0] = '\0';
	t->lib_refused = refusal(lerr, t->lib_words, sizeof(t->lib_words));

	/* The preload file, as the loader reads it. */
	t->preload = "/etc/ld.so.preload";
	int perr = root ? status_in_root(root, t->preload, t->preload_at, sizeof(t->preload_at))
			: (snprintf(t->preload_at, sizeof(t->preload_at), "%s", t->preload), 0);
	if (perr)
		t->preload_at[0] = '\0';
	t->preload_refused = refusal(perr, t->preload_words, sizeof(t->preload_words));
	char *text = NULL;
	size_t len = 0;
	int rerr = perr ? perr : status_tree_read(NULL, t->preload_at, 1u << 20, &text, &len, NULL);
	t->preload_not_read = refusal(rerr, t->read_words, sizeof(t->read_words));
	t->preload_lists = !rerr && *t->lib && status_preload_lists(text, len, t->lib);
	free(text);

	/* The policy file, by the guard's own reader and settings. */
	status_tree_policy(&t->p, root);
	int cerr = root ? status_in_root(root, GUARD_CONF_PATH, t->conf_at, sizeof(t->conf_at))
			: (snprintf(t->conf_at, sizeof(t->conf_at), "%s", GUARD_CONF_PATH), 0);
	if (cerr)
		t->conf_at[0] = '\0';
	t->policy_refused = refusal(cerr, t->policy_words, sizeof(t->policy_words));

	/* The tree's code runs only here, and only as nobody (as root). */
	t->checked = check;
	if (check) {
		bool nobody = geteuid() == 0;
		bool found = !lerr && *t->lib_at;
		t->loads = found && status_tree_lib_loads(t->lib_at, nobody, t->load_why,
							  sizeof(t->load_why));
		if (!found)
			missing(t->load_why, sizeof(t->load_why), t->lib, root);
		snprintf(t->checked_as, sizeof(t->checked_as), "uid %u",
			 nobody ? 65534U : (unsigned)geteuid());
	}
}

int cmd_tree(int argc, char **argv)
{
	static const struct option opts[] = {
		{"root", required_argument, NULL, 'r'},
		{"lib", required_argument, NULL, 'l'},
		{"check-load", no_argument, NULL, 'c'},
		{"preload-add", required_argument, NULL, 'A'},
		{"preload-remove", required_argument, NULL, 'R'},
		{"policy-lock", no_argument, NULL, 'L'},
		{"policy-drop-created", no_argument, NULL, 'D'},
		{"file", required_argument, NULL, 'f'},
		{"backup", required_argument, NULL, 'b'},
		{"keep-empty", no_argument, NULL, 'e'},
		{"dry-run", no_argument, NULL, 'n'},
		CLI_FORM_OPTIONS,
		CLI_HELP_OPTION_END,
	};
	const char *root = NULL, *lib_given = NULL;
	bool check = false;
	struct status_edit_args ed = {0};
	enum doc_form form = DOC_FORM_TEXT;
	int edit = 0, ch;
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (ch) {
		case 'r': root = *optarg ? optarg : NULL; break;
		case 'l': lib_given = optarg; break;
		case 'c': check = true; break;
		case 'A': edit = ch, ed.lib = optarg, ed.add = true; break;
		case 'R': edit = ch, ed.lib = optarg; break;
		case 'L': edit = ch; break;
		case 'D': edit = ch, ed.drop_created = true; break;
		case 'f': ed.file = optarg; break;
		case 'b': ed.backup = optarg; break;
		case 'e': ed.keep_empty = true; break;
		case 'n': ed.dry_run = true; break;
		case CLI_OPT_JSON:
		case CLI_OPT_KEYS: cli_form_option(&form, ch, "tree"); break;
		case 'h': usage(); return EXIT_OK;
		default: die_bad_option("tree", argv, "h");
		}
	}
	if (form == DOC_FORM_TEXT) /* data alone: the keys, unless --json */
		form = DOC_FORM_KEYS;
	if (optind < argc)
		die_usage("tree: unexpected argument '%s'", argv[optind]);
	if (lib_given && lib_given[0] != '/')
		die_usage("tree: --lib must be an absolute path: the loader reads it verbatim");
	char rreal[PATH_MAX] = "/";
	if (root && !realpath(root, rreal))
		die_errno("tree: cannot resolve --root %s", root);
	if (edit)
		return tree_edit(edit, &ed, root ? rreal : NULL, lib_given || check, form);
	if (ed.file || ed.backup || ed.keep_empty || ed.dry_run)
		die_usage("tree: --file, --backup, --keep-empty and --dry-run go with an edit");

	struct tree_facts *t = calloc(1, sizeof(*t));
	if (!t)
		die_errno("out of memory");
	t->root = rreal;
	tree_gather(t, root, lib_given, check);
	doc_write(stdout, form, tree_walk, t);
	free(t);
	if (fflush(stdout) != 0)
		die_errno("writing the tree's facts");
	return EXIT_OK;
}

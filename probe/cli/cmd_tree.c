// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard tree [--root DIR] [--lib PATH] [--check-load]: what pmuguard
 * reads in a tree (or on this host), as KEY=VALUE data: where the preload
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
 * its outcome as KEY=VALUE data.
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

/* The schema of this document: raised when a key changes meaning. */
#define TREE_SCHEMA 1

static void usage(void)
{
	fputs("Usage: pmuguard tree [--root DIR] [--lib PATH] [--check-load]\n"
	      "       pmuguard tree [--root DIR] EDIT [--dry-run]\n"
	      "\n"
	      "What pmuguard reads in the tree under DIR (default: this host), one\n"
	      "KEY=VALUE a line (pmuguard(1), TREE): the preload file and the library,\n"
	      "resolved in the tree (a link never leads out of it); whether the file\n"
	      "lists the library as the loader parses it; the policy file as the guard\n"
	      "reads it.  Nothing of the tree runs but with --check-load: the library in\n"
	      "/bin/true, as uid 65534 (when run as root), with a fixed PATH alone.\n"
	      "\n"
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

static void key(const char *k, const char *v)
{
	fputs(k, stdout);
	putchar('=');
	fput_safe(v ? v : "", stdout);
	putchar('\n');
}

static void flag(const char *k, bool v)
{
	key(k, v ? "true" : "false");
}

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

/* An edit: checked, made, and its outcome as data. */
static int tree_edit(int edit, struct status_edit_args *a, const char *root, bool reading)
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
	printf("schema=%d\n", TREE_SCHEMA);
	key("edit", edit == 'A'   ? "preload-add"
		    : edit == 'R' ? "preload-remove"
		    : edit == 'L' ? "policy-lock"
				  : "policy-drop-created");
	key("root", root ? root : "/");
	key("file", a->file ? a->file : GUARD_CONF_PATH);
	key("outcome", rc != 0 ? "refused" : a->dry_run ? "would" : "done");
	key("action", e.action);
	key("backup", e.backup);
	key("untrusted", e.untrusted);
	flag("locked", e.locked);
	key("why", rc != 0 ? e.why : "");
	if (fflush(stdout) != 0)
		die_errno("writing the edit's outcome");
	return rc != 0 ? EXIT_INTERNAL : EXIT_OK;
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
		{"keep-empty", no_argument, NULL, 'k'},
		{"dry-run", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *root = NULL, *lib_given = NULL;
	bool check = false;
	struct status_edit_args ed = {0};
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
		case 'k': ed.keep_empty = true; break;
		case 'n': ed.dry_run = true; break;
		case 'h': usage(); return EXIT_OK;
		default: die_bad_option("tree", argv, "h");
		}
	}
	if (optind < argc)
		die_usage("tree: unexpected argument '%s'", argv[optind]);
	if (lib_given && lib_given[0] != '/')
		die_usage("tree: --lib must be an absolute path: the loader reads it verbatim");
	char rreal[PATH_MAX] = "/";
	if (root && !realpath(root, rreal))
		die_errno("tree: cannot resolve --root %s", root);
	if (edit)
		return tree_edit(edit, &ed, root ? rreal : NULL, lib_given || check);
	if (ed.file || ed.backup || ed.keep_empty || ed.dry_run)
		die_usage("tree: --file, --backup, --keep-empty and --dry-run go with an edit");

	printf("schema=%d\n", TREE_SCHEMA);
	key("root", rreal);

	char lib[PATH_MAX] = "", lib_at[PATH_MAX] = "", buf[128];
	int lerr = 0;
	if (lib_given) {
		snprintf(lib, sizeof(lib), "%s", lib_given);
		lerr = root ? status_in_root(root, lib, lib_at, sizeof(lib_at)) : 0;
		if (!root)
			snprintf(lib_at, sizeof(lib_at), "%s", lib);
	} else {
		status_tree_find_lib(root, lib, sizeof(lib), lib_at, sizeof(lib_at));
	}
	key("lib", lib);
	key("lib.at", lerr ? "" : lib_at);
	key("lib.refused", lerr && lerr != -ENOENT ? words(lerr, buf, sizeof(buf)) : "");

	/* The preload file, as the loader reads it. */
	char at[PATH_MAX] = "";
	const char *preload = "/etc/ld.so.preload";
	int perr = root ? status_in_root(root, preload, at, sizeof(at))
			: (snprintf(at, sizeof(at), "%s", preload), 0);
	key("preload.file", preload);
	key("preload.at", perr ? "" : at);
	key("preload.refused", perr && perr != -ENOENT ? words(perr, buf, sizeof(buf)) : "");
	char *text = NULL;
	size_t len = 0;
	int rerr = perr ? perr : status_tree_read(NULL, at, 1u << 20, &text, &len, NULL);
	key("preload.not_read", rerr && rerr != -ENOENT ? words(rerr, buf, sizeof(buf)) : "");
	flag("preload.lists", !rerr && *lib && status_preload_lists(text, len, lib));
	free(text);

	/* The policy file, by the guard's own reader and settings. */
	struct status_tree_policy p;
	status_tree_policy(&p, root);
	char conf_at[PATH_MAX] = "";
	int cerr = root ? status_in_root(root, GUARD_CONF_PATH, conf_at, sizeof(conf_at))
			: (snprintf(conf_at, sizeof(conf_at), "%s", GUARD_CONF_PATH), 0);
	key("policy.file", GUARD_CONF_PATH);
	key("policy.at", cerr ? "" : conf_at);
	key("policy.refused", cerr && cerr != -ENOENT ? words(cerr, buf, sizeof(buf)) : "");
	flag("policy.untrusted", p.untrusted);
	key("policy.untrusted_why", p.untrusted ? p.untrusted_why + 2 : "");
	flag("policy.locked", p.locked);
	key("policy.state", p.state == STATUS_POLICY_GUARDS         ? "guards"
			    : p.state == STATUS_POLICY_LETS_THROUGH ? "lets-through"
								    : "unknown");
	key("policy.why", p.why);

	/* The tree's code runs only here, and only as nobody (as root). */
	if (check) {
		char why[STATUS_WHY];
		bool nobody = geteuid() == 0;
		bool loads =
			!lerr && *lib_at && status_tree_lib_loads(lib_at, nobody, why, sizeof(why));
		if (lerr || !*lib_at)
			snprintf(why, sizeof(why), "%s does not exist%s%s",
				 *lib ? lib : "libpmuguard.so",
				 root ? " in the tree under --root " : "", root ? root : "");
		flag("lib.loads", loads);
		key("lib.load_why", loads ? "" : why);
		char as[32];
		snprintf(as, sizeof(as), "uid %u", nobody ? 65534U : (unsigned)geteuid());
		key("lib.checked_as", as);
	}
	if (fflush(stdout) != 0)
		die_errno("writing the tree's facts");
	return EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The settings of a subcommand (run, enforce, probe): the policy file, this
 * process's environment and the command line, through the one reader of
 * the environment (guard_env_read) and the one resolver (settings.h), as
 * the shim takes them in its own process; and the form of its document
 * (--json, --keys), read the same way by every subcommand.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "log.h"
#include "probe.h"
#include "settings.h"

extern char **environ;

/* The policy file and this process's environment, read once a command. */
static int read_inputs(struct guard_conf *conf, struct guard_env *env)
{
	int conf_err = guard_conf_read(conf, GUARD_CONF_PATH);
	*env = (struct guard_env){.visible = true};
	/* A secure process (setuid, file capabilities) reads nothing of its
	 * environment, as secure_getenv() would answer. */
	guard_env_read(env, getauxval(AT_SECURE) ? NULL : environ);
	return conf_err;
}

static void say_ignored(const struct guard_settings *set)
{
	if (set->log == GUARD_LOG_QUIET)
		return;
	for (unsigned i = 0; i < set->n_ignored; i++) {
		struct logline l = {.len = 0};
		log_str(&l, "pmuguard: ignoring ");
		log_str(&l, set->ignored[i].what);
		log_str_safe(&l, set->ignored[i].value);
		log_str(&l, set->ignored[i].why);
		log_emit(&l, STDERR_FILENO);
	}
}

void cli_settings(struct guard_settings *set, const struct guard_cli *cli, bool quiet,
		  struct guard_env *env)
{
	/* The settings point into it (the file's snapshot): it lives as long
	 * as the command. */
	static struct guard_conf conf;
	struct guard_env local;
	if (!env)
		env = &local;
	int conf_err = read_inputs(&conf, env);
	guard_settings_resolve(&conf, conf_err, env, cli, false, set);
	if (!quiet)
		say_ignored(set);
}

/* run --audit: under lock = yes the host's policy still answers the tree's
 * calls (an audit may not loosen it, and is not asked to: it only looks),
 * and the table judges them with the facts the command line names.  Not
 * locked, the audit is a mode like any other (it blocks nothing). */
void cli_settings_audit(struct guard_settings *guard, struct guard_settings *view,
			const char *snapshot, struct guard_env *env)
{
	static struct guard_conf conf;
	int conf_err = read_inputs(&conf, env);
	const struct guard_cli want = {.mode = GUARD_AUDIT, .snapshot = snapshot};
	const struct guard_cli none = {.mode = -1};
	guard_settings_resolve(&conf, conf_err, env, &want, false, guard);
	if (guard->locked)
		guard_settings_resolve(&conf, conf_err, env, &none, false, guard);
	say_ignored(guard);
	*view = *guard;
	view->mode = GUARD_AUDIT;
	if (snapshot && *snapshot)
		view->snapshot = snapshot;
}

/* ---- Snapshots named: a path, or a reference snapshot's NAME ------------- */

/* Where a NAME is looked up: PMUGUARD_SNAPSHOT_DIR where the settings take
 * it (not under lock, not in a secure process), else the installed ones. */
const char *cli_snapshot_dir(void)
{
	struct guard_cli cli = {.mode = -1};
	struct guard_settings set;
	cli_settings(&set, &cli, true, NULL);
	return set.snapshot_dir ? set.snapshot_dir : probe_snapshot_dir;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cli_list_snapshots(FILE *out, const char *dir, const char *indent)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		/* Directories (or links to them) only; no hidden entries. */
		if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, 0) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **grown = realloc(names, cap * sizeof(*names));
			if (!grown)
				die_errno("out of memory");
			names = grown;
		}
		if (!(names[n++] = strdup(e->d_name)))
			die_errno("out of memory");
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		fputs(indent, out);
		fput_safe(names[i], out);
		fputc('\n', out);
		free(names[i]);
	}
	free(names);
	return (int)n;
}

const char *cli_snapshot_path(const char *name, const char *dir)
{
	static char path[PATH_MAX];
	if (!dir)
		dir = probe_snapshot_dir;
	int rc = probe_snapshot_find(path, sizeof(path), name, dir);
	if (rc == -ENAMETOOLONG)
		die("snapshot %s: path too long", name);
	if (rc == -ENOENT) {
		char cwd[PATH_MAX];
		warn_msg("snapshot %s: not a directory in %s, nor a reference snapshot in %s", name,
			 getcwd(cwd, sizeof(cwd)) ? cwd : "the working directory", dir);
		char *list = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&list, &len);
		int n = m ? cli_list_snapshots(m, dir, "  ") : -ENOMEM;
		if (m)
			fclose(m);
		if (n > 0)
			fprintf(stderr,
				"pmuguard: the reference snapshots (pmuguard snapshot --list):\n%s",
				list);
		else if (n == 0)
			warn_msg("%s holds no reference snapshots", dir);
		else
			warn_msg("no reference snapshots: %s: %s", dir, strerror(-n));
		free(list);
		exit(EXIT_INTERNAL);
	}
	struct stat st;
	if (stat(path, &st) < 0)
		die_errno("snapshot %s", path);
	if (!S_ISDIR(st.st_mode))
		die("snapshot %s: not a directory", path);
	return path;
}

/* One reading of --json and --keys for every subcommand: the same
 * document in two forms, so asking for both is a mistake with one
 * message, wherever it is made. */
void cli_form_option(enum doc_form *form, int opt, const char *cmd)
{
	enum doc_form want = opt == CLI_OPT_JSON ? DOC_FORM_JSON : DOC_FORM_KEYS;
	if (*form != DOC_FORM_TEXT && *form != want)
		die_usage("%s: --json and --keys print the same document: choose one", cmd);
	*form = want;
}

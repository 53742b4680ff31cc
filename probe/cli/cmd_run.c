// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard run [--mode auto|preload|seccomp] [--audit] [--snapshot DIR] -- CMD
 *
 * preload: exec CMD with libpmuguard.so first in LD_PRELOAD (CMD's status
 *          and signals are its own; nothing of ours stays behind).
 * seccomp: stay as CMD's parent and supervise its perf_event_open calls.
 * auto:    read CMD's ELF and pick (see elfcheck.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "log.h"
#include "settings.h"
#include "elfcheck.h"
#include "supervise.h"

enum run_mode { RUN_AUTO, RUN_PRELOAD, RUN_SECCOMP };

static bool readable(const char *p)
{
	return access(p, R_OK) == 0;
}

/* $PMUGUARD_LIB, else the installed library beside this binary, else the
 * build tree (build/probe/cli/pmuguard -> build/shim/libpmuguard.so). */
static char *find_shim(void)
{
	const char *env = secure_getenv("PMUGUARD_LIB");
	if (env && *env) {
		if (env[0] != '/' || !readable(env))
			die("PMUGUARD_LIB=%s: not an absolute path to a readable file", env);
		return strdup(env);
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		die_errno("cannot find my own path (/proc/self/exe)");
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	static const char *const rel[] = {PMUGUARD_REL_LIBDIR "/libpmuguard.so",
					  "../../shim/libpmuguard.so"};
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char cand[PATH_MAX], real[PATH_MAX];
		if (snprintf(cand, sizeof(cand), "%s/%s", exe, rel[i]) >= (int)sizeof(cand))
			continue;
		if (readable(cand) && realpath(cand, real))
			return strdup(real);
	}
	die("cannot find libpmuguard.so next to %s; set PMUGUARD_LIB", exe);
}

static int run_preload(char **argv, const char *snapshot)
{
	char *shim = find_shim();
	const char *old = getenv("LD_PRELOAD");
	bool keep = old && *old;
	size_t len = strlen(shim) + (keep ? strlen(old) + 1 : 0) + 1;
	char *preload = malloc(len);
	if (!preload)
		die_errno("out of memory");
	snprintf(preload, len, "%s%s%s", shim, keep ? ":" : "", keep ? old : "");
	if (setenv("LD_PRELOAD", preload, 1) < 0 ||
	    (snapshot && setenv("PMUGUARD_SNAPSHOT", snapshot, 1) < 0))
		die_errno("setenv");
	free(preload);
	free(shim);
	execvp(argv[0], argv);
	int err = errno;
	fprintf(stderr, "pmuguard: run: cannot execute %s: %s\n", argv[0], strerror(err));
	return err == ENOENT ? 127 : 126;
}

/* The one settings resolver, as the shim uses it; what it ignored is said
 * here once, escaped.  Also `pmuguard enforce`'s. */
void cli_resolve_settings(struct guard_settings *set, const struct guard_conf *conf,
			  int conf_err, const struct guard_cli *cli)
{
	struct guard_env env = {.visible = true,
				.mode = secure_getenv("PMUGUARD_MODE"),
				.log = secure_getenv("PMUGUARD_LOG"),
				.snapshot = secure_getenv("PMUGUARD_SNAPSHOT")};
	guard_settings_resolve(conf, conf_err, &env, cli, false, set);
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

static int run_seccomp(char **argv, const struct guard_settings *set, bool audit)
{
	const char *snapshot = set->snapshot;
	struct probe_facts *f = calloc(1, sizeof(*f));
	struct probe_verdict v;
	if (!f)
		die_errno("out of memory");
	probe_gather_verdict(f, snapshot);
	probe_evaluate(f, &v);
	struct sup_options o = {.audit = audit,
				.quiet = set->log == GUARD_LOG_QUIET,
				.facts_src = snapshot ? snapshot : "this machine",
				.facts = f};
	guard_policy_init(&o.policy, set->mode, f, &v);
	if (audit && !snapshot && v.hazard)
		fprintf(stderr, "pmuguard: warning: this machine has the fixed-counter-3 hazard and "
				"--audit blocks nothing: counter-3 encodings will reach the kernel\n");
	if (set->log == GUARD_LOG_DEBUG)
		fprintf(stderr, "pmuguard: probe: %s (mode %s, facts from %s): %s\n",
			probe_state_name(v.state), guard_mode_name(o.policy.mode), o.facts_src,
			o.policy.reason);
	int rc = sup_run(argv, &o);
	free(f);
	return rc < 0 ? EXIT_INTERNAL : rc;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'm'},
		{"audit", no_argument, NULL, 'a'},
		{"snapshot", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum run_mode mode = RUN_AUTO;
	bool audit = false;
	const char *snapshot = NULL;
	int ch;
	while ((ch = getopt_long(argc, argv, "+m:as:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			if (!strcmp(optarg, "auto"))
				mode = RUN_AUTO;
			else if (!strcmp(optarg, "preload"))
				mode = RUN_PRELOAD;
			else if (!strcmp(optarg, "seccomp"))
				mode = RUN_SECCOMP;
			else
				die_usage("run: --mode is auto, preload or seccomp, not '%s'", optarg);
			break;
		case 'a':
			audit = true;
			break;
		case 's':
			snapshot = optarg;
			break;
		case 'h':
			puts("Usage: pmuguard run [--mode auto|preload|seccomp] [--audit] "
			     "[--snapshot DIR] -- CMD [ARGS]");
			return EXIT_OK;
		default:
			die_usage("run: bad option (usage: pmuguard run [OPTIONS] -- CMD [ARGS])");
		}
	}
	/* The system policy, the environment and the command line, as the
	 * shim resolves them (settings.h): with lock = yes neither may loosen
	 * the mode or point the facts at a snapshot. */
	struct guard_conf conf;
	int conf_err = guard_conf_read(&conf, GUARD_CONF_PATH);
	struct guard_cli cli = {.mode = audit ? GUARD_AUDIT : -1, .snapshot = snapshot};
	struct guard_settings set;
	cli_resolve_settings(&set, &conf, conf_err, &cli);
	snapshot = set.snapshot;
	if (optind >= argc)
		die_usage("run: a command is required (usage: pmuguard run [OPTIONS] -- CMD [ARGS])");
	if (snapshot)
		require_snapshot_dir(snapshot);
	char **cmd = argv + optind;

	if (audit && mode == RUN_PRELOAD)
		die_usage("run: --audit needs to see every call: it runs in seccomp mode");
	if (audit)
		mode = RUN_SECCOMP;
	if (mode == RUN_AUTO) {
		struct elf_report *r = malloc(sizeof(*r));
		if (!r)
			die_errno("out of memory");
		elf_analyse(cmd[0], r);
		mode = r->guard == ELF_GUARD_PRELOAD ? RUN_PRELOAD : RUN_SECCOMP;
		if (set.log == GUARD_LOG_DEBUG)
			fprintf(stderr, "pmuguard: run: %s mode for %s: %s\n",
				mode == RUN_PRELOAD ? "preload" : "seccomp", r->path, r->why);
		free(r);
	}
	if (mode == RUN_PRELOAD)
		return run_preload(cmd, snapshot);
	return run_seccomp(cmd, &set, audit);
}

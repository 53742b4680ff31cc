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
#include <stdio.h>
#include <inttypes.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "log.h"
#include "policy.h"
#include "settings.h"
#include "elfcheck.h"
#include "supervise.h"

enum run_mode { RUN_AUTO, RUN_PRELOAD, RUN_SECCOMP };

static bool readable(const char *p)
{
	return access(p, R_OK) == 0;
}

/* ld.so splits LD_PRELOAD at spaces and colons: such a path would not be
 * preloaded at all, and CMD would run unguarded. */
static void require_preloadable_path(const char *path)
{
	if (strpbrk(path, " :\t\n"))
		die("%s: a path with a space or a colon cannot be preloaded (ld.so splits "
		    "LD_PRELOAD there); install or link the library elsewhere",
		    path);
}

/* $PMUGUARD_LIB, else the installed library beside this binary, else the
 * build tree (build/probe/cli/pmuguard -> build/shim/libpmuguard.so). */
static char *find_shim(const char *env)
{
	if (env && *env) {
		/* The loader would only warn about a file it cannot preload and
		 * run CMD unguarded: refuse here instead. */
		char why[192];
		if (env[0] != '/')
			die("%s=%s: not an absolute path", guard_env_lib_name, env);
		if (elf_check_preload_lib(env, why, sizeof(why)) < 0)
			die("%s=%s: not a library pmuguard can preload: %s", guard_env_lib_name, env,
			    why);
		require_preloadable_path(env);
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
		if (!readable(cand) || !realpath(cand, real))
			continue;
		char why[192];
		if (elf_check_preload_lib(real, why, sizeof(why)) < 0)
			die("%s: not a library pmuguard can preload: %s", real, why);
		require_preloadable_path(real);
		return strdup(real);
	}
	die("cannot find libpmuguard.so next to %s; set %s", exe, guard_env_lib_name);
}

/* Put the library first in LD_PRELOAD (any existing entries stay after it)
 * and pin the facts for it, in our own environment: exec or the
 * supervisor's child passes it on. */
static void export_preload(const struct guard_settings *set, const struct guard_env *env)
{
	char *shim = find_shim(env->lib);
	const char *old = env->preload;
	bool keep = old && *old;
	size_t len = strlen(shim) + (keep ? strlen(old) + 1 : 0) + 1;
	char *preload = malloc(len);
	if (!preload)
		die_errno("out of memory");
	snprintf(preload, len, "%s%s%s", shim, keep ? ":" : "", keep ? old : "");
	/* Under lock = yes the shim reads the facts from the policy file and
	 * would only report the variable as ignored. */
	if (setenv("LD_PRELOAD", preload, 1) < 0 ||
	    (set->snapshot && !set->locked &&
	     setenv(guard_env_snapshot_name, set->snapshot, 1) < 0))
		die_errno("setenv");
	free(preload);
	free(shim);
}

static int run_preload(char **argv, const struct guard_settings *set,
		       const struct guard_env *env)
{
	export_preload(set, env);
	/* No supervisor behind us: a cookie from an outer run means nothing. */
	unsetenv(guard_env_cookie_name);
	execvp(argv[0], argv);
	int err = errno;
	warn_msg("run: cannot execute %s: %s", argv[0], strerror(err));
	return err == ENOENT ? 127 : 126;
}

/* with_preload: auto mode for a dynamic CMD; the preload judges the calls
 * of dynamic programs in-process and the supervisor the rest of the tree. */
static int run_seccomp(char **argv, const struct guard_settings *set,
		       const struct guard_settings *view, const struct guard_env *env,
		       bool audit, enum doc_form form, bool with_preload)
{
	const char *snapshot = view->snapshot;
	struct probe_facts *f = calloc(1, sizeof(*f));
	struct logline src = {.len = 0};
	struct probe_verdict v;
	if (!f)
		die_errno("out of memory");
	if (with_preload)
		export_preload(set, env);
	/* Escaped once here, for the audit summary. */
	log_str_safe(&src, snapshot ? snapshot : "this machine");
	src.buf[src.len] = '\0';
	struct sup_options o = {.audit = audit,
				.log = set->log,
				.dest = set->dest,
				.preload_cookie = with_preload,
				.facts_src = src.buf,
				.facts = f};
	guard_policy_for(view, f, &v, &o.view);
	o.policy = o.view;
	if (set->locked) {
		/* Locked: the host's own policy answers, from its own facts.
		 * (Not view != set: under --audit they are always two structs,
		 * and a host without the lock was said to have it.) */
		struct probe_facts *hf = calloc(1, sizeof(*hf));
		struct probe_verdict hv;
		if (!hf)
			die_errno("out of memory");
		guard_policy_for(set, hf, &hv, &o.policy);
		free(hf);
		if (set->log != GUARD_LOG_QUIET)
			warn_msg("run --audit: %s is locked (lock = yes, or unreadable): the host's "
				 "policy (mode %s) still "
				 "answers every call; the table judges them with the facts of %s",
				 GUARD_CONF_PATH, guard_mode_name(o.policy.mode), src.buf);
	}
	/* The supervisor cannot open an event on the caller's behalf with the
	 * caller's pid, cpu, group and credentials faithfully: TOPDOWN.SLOTS is
	 * denied here; the preload (auto mode, dynamic programs) substitutes. */
	if (set->slots == GUARD_SLOTS_SUBSTITUTE && o.policy.enforce && set->log != GUARD_LOG_QUIET)
		warn_msg("slots = substitute: %s; under the seccomp supervisor TOPDOWN.SLOTS is "
			 "denied (ENOENT)",
			 with_preload ? "dynamically linked programs count it as TOPDOWN.SLOTS_P"
				      : "only the preload can substitute");
	if (audit && !snapshot && v.hazard && !o.policy.enforce)
		warn_msg("warning: this machine has the fixed-counter-3 hazard and --audit blocks "
			 "nothing: counter-3 encodings will reach the kernel");
	if (set->log == GUARD_LOG_DEBUG)
		warn_msg("probe: %s (mode %s, facts from %s): %s", probe_state_name(v.state),
			 guard_mode_name(o.policy.mode), snapshot ? snapshot : "this machine",
			 o.policy.reason);
	struct sup_audit *a = audit ? calloc(1, sizeof(*a)) : NULL;
	if (audit && !a)
		die_errno("out of memory");
	int rc = sup_run(argv, &o, a);
	if (a && a->complete)
		run_audit_print(form, a, &o);
	free(a);
	free(f);
	if (rc < 0 && with_preload)
		/* Fail closed: without the filter, static and Go programs the
		 * command starts would run unguarded. */
		warn_msg("run: auto mode needs the seccomp filter to guard what %s starts; "
			 "nothing was run. `pmuguard run --mode preload` guards the command and "
			 "its dynamically linked children without it",
			 argv[0]);
	return rc < 0 ? EXIT_INTERNAL : rc;
}

static const char run_usage[] =
	"Usage: pmuguard run [--mode auto|preload|seccomp] [--audit [--json|--keys]]\n"
	"                    [--snapshot DIR] -- CMD [ARGS]\n"
	"\n"
	"Run CMD guarded: no process of its tree reaches a fixed counter (3-6) the\n"
	"probe finds advertised but not implemented.\n"
	"  --mode auto      (default) a seccomp supervisor over the whole tree, plus\n"
	"                   the preload for dynamic programs\n"
	"  --mode preload   LD_PRELOAD only: CMD and its dynamic children\n"
	"  --mode seccomp   the supervisor only: static and Go programs too\n"
	"  --audit          block nothing; report at exit every call that would be\n"
	"                   blocked (seccomp mode)\n"
	"  --json, --keys   with --audit: the report as one JSON object (schema 1) or\n"
	"                   as KEY=VALUE lines, on stderr after the whole tree ended\n"
	"                   (stdout is CMD's), in place of the table\n"
	"  --snapshot DIR   take the facts from a snapshot, not this machine; a NAME\n"
	"                   without '/' that is no directory here: a reference\n"
	"                   snapshot (pmuguard snapshot --list)\n"
	"/etc/pmuguard.conf and PMUGUARD_* apply as to the preload (lock = yes).\n"
	"\n"
	"Exit: CMD's own status; 1 internal error (nothing run); 2 usage.\n";

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'm'},
		{"audit", no_argument, NULL, 'a'},
		CLI_FORM_OPTIONS,
		{"snapshot", required_argument, NULL, 's'},
		CLI_HELP_OPTION_END,
	};
	enum run_mode mode = RUN_AUTO;
	bool audit = false;
	enum doc_form form = DOC_FORM_TEXT;
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
		case CLI_OPT_JSON:
		case CLI_OPT_KEYS:
			cli_form_option(&form, ch, "run");
			break;
		case 's':
			snapshot = optarg;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return EXIT_OK;
		default:
			die_bad_option("run", argv, "m:as:h");
		}
	}
	if (form != DOC_FORM_TEXT && !audit)
		die_usage("run: --json and --keys are the audit's report: they go with --audit");
	/* The system policy, the environment and the command line, as the
	 * shim resolves them (settings.h): with lock = yes neither may loosen
	 * the mode or point the facts at a snapshot. */
	struct guard_cli cli = {.mode = -1, .snapshot = snapshot};
	struct guard_settings set, view;
	struct guard_env env;
	if (audit)
		cli_settings_audit(&set, &view, snapshot, &env);
	else
		cli_settings(&set, &cli, false, &env);
	snapshot = audit ? view.snapshot : set.snapshot;
	if (optind >= argc)
		die_usage("run: a command is required (usage: pmuguard run [OPTIONS] -- CMD [ARGS])");
	/* Absolute before it is exported: a child that changes directory must
	 * read the same facts as the supervisor. */
	char snap_abs[PATH_MAX];
	if (snapshot) {
		snapshot = cli_snapshot_path(snapshot, set.snapshot_dir);
		if (!realpath(snapshot, snap_abs))
			die_errno("%s", snapshot);
		snapshot = snap_abs;
		if (audit)
			view.snapshot = snap_abs;
		if (!audit || !set.locked)
			set.snapshot = snap_abs;
	}
	char **cmd = argv + optind;

	if (audit && mode == RUN_PRELOAD)
		die_usage("run: --audit needs to see every call: it runs in seccomp mode");
	if (audit)
		mode = RUN_SECCOMP;
	/* Auto: the supervisor covers the whole tree whatever CMD is (a
	 * launcher such as taskset, env or a shell may start a static or Go
	 * tool); where CMD is dynamic and imports syscall(), the preload comes
	 * too (only it can open TOPDOWN.SLOTS as TOPDOWN.SLOTS_P under
	 * slots = substitute); the supervisor still judges every call, the
	 * preload's included. */
	bool with_preload = false;
	if (mode == RUN_AUTO) {
		struct elf_report *r = malloc(sizeof(*r));
		if (!r)
			die_errno("out of memory");
		elf_analyse(cmd[0], r);
		with_preload = r->guard == ELF_GUARD_PRELOAD;
		if (set.log == GUARD_LOG_DEBUG)
			warn_msg("run: %s mode for %s: %s%s", with_preload ? "seccomp+preload" : "seccomp",
				 r->path, r->why,
				 with_preload ? "; the supervisor covers whatever it starts" : "");
		free(r);
		mode = RUN_SECCOMP;
	}
	if (mode == RUN_PRELOAD)
		return run_preload(cmd, &set, &env);
	return run_seccomp(cmd, &set, audit ? &view : &set, &env, audit, form, with_preload);
}

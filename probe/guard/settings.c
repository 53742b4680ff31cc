// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "settings.h"

/* Every PMUGUARD_* variable pmuguard reads, written here only. */
#define ENV_MODE "PMUGUARD_MODE"
#define ENV_LOG "PMUGUARD_LOG"
#define ENV_SNAPSHOT "PMUGUARD_SNAPSHOT"
#define ENV_SNAPSHOT_DIR "PMUGUARD_SNAPSHOT_DIR"
#define ENV_SLOTS "PMUGUARD_SLOTS"
#define ENV_COOKIE "PMUGUARD_SECCOMP_COOKIE"
#define ENV_LIB "PMUGUARD_LIB"

const char guard_env_snapshot_name[] = ENV_SNAPSHOT;
const char guard_env_cookie_name[] = ENV_COOKIE;
const char guard_env_lib_name[] = ENV_LIB;

/* NAME's value in envp, or NULL (no libc: the shim runs this): the first,
 * as getenv() answers, or the last. */
static const char *env_value_at(char *const *envp, const char *name, bool last)
{
	const char *v = NULL;
	for (; envp && *envp; envp++) {
		const char *e = *envp, *k = name;
		while (*k && *e == *k)
			e++, k++;
		if (!*k && *e == '=') {
			v = e + 1;
			if (!last)
				break;
		}
	}
	return v;
}

static const char *env_value(char *const *envp, const char *name)
{
	return env_value_at(envp, name, false);
}

void guard_env_read(struct guard_env *env, char *const *envp)
{
	env->mode = env_value(envp, ENV_MODE);
	env->log = env_value(envp, ENV_LOG);
	env->snapshot = env_value(envp, ENV_SNAPSHOT);
	env->snapshot_dir = env_value(envp, ENV_SNAPSHOT_DIR);
	env->slots = env_value(envp, ENV_SLOTS);
	env->cookie = env_value(envp, ENV_COOKIE);
	env->lib = env_value(envp, ENV_LIB);
	/* The loader takes the last LD_PRELOAD (glibc's rtld.c,
	 * process_envvars(): each one replaces the list), getenv() the first. */
	env->preload = env_value_at(envp, "LD_PRELOAD", true);
}

static void ignore(struct guard_settings *s, const char *what, const char *value, const char *why)
{
	if (s->n_ignored < GUARD_MAX_IGNORED)
		s->ignored[s->n_ignored++] = (struct guard_ignored){what, value ? value : "", why};
}

static const char *const lock_why = ": " GUARD_CONF_PATH " has lock = yes";
static const char *const unreadable_why =
	": " GUARD_CONF_PATH " could not be read, so it is treated as locked";
static const char *const unclear_why =
	": " GUARD_CONF_PATH " has a lock line that says neither lock = yes nor lock = no, "
	"read as lock = yes";
static const char *const locking_why =
	": the policy is being locked (lock = yes in " GUARD_CONF_PATH
	"), under which the environment cannot loosen the guard or move its facts; "
	"put it in the file instead";

/* A mode asked for from outside the file: taken, or reported; file_mode is
 * what the file (or the default) said, so that the environment cannot
 * lower the floor the command line is then held to. */
static void request_mode(struct guard_settings *s, int file_mode, int mode, const char *what,
			 const char *value, const char *why)
{
	if (s->locked && mode < file_mode) /* the enum is ordered by strictness */
		ignore(s, what, value, why);
	else
		s->mode = (enum guard_mode)mode;
}

void guard_settings_resolve(const struct guard_conf *conf, int conf_err,
			    const struct guard_env *env, const struct guard_cli *cli, bool fleet,
			    struct guard_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->conf_transient = probe_errno_transient(conf_err);
	s->cacheable = env->visible && !s->conf_transient;
	/* A file that is there but unreadable may say lock = yes: as locked.
	 * A file others can write is no policy of root's: nothing in it may
	 * loosen the guard, so it is read as absent but for what tightens it
	 * (lock = yes, a mode stricter than the default): its other lines
	 * could be anyone's, for every user's processes. */
	bool untrusted = conf_err == 0 && conf->untrusted;
	/* A lock line not understood is read as locked: a line that does not
	 * parse never loosens the guard (lock = ye is a typo of yes, never
	 * of no), from anyone's file, since it only tightens. */
	int locked = conf_err < 0         ? 2
		     : conf->lock         ? 1
		     : conf->lock_unclear ? 4
		     : cli->locking       ? 3
					  : 0;
	s->locked = locked != 0;
	bool use = conf_err == 0 && !untrusted; /* the file's settings count */

	/* Where lines go: the file, else stderr under LD_PRELOAD and syslog
	 * under /etc/ld.so.preload, where fd 2 is never written. */
	s->dest = use && conf->dest != GUARD_DEST_DEFAULT ? conf->dest
		  : fleet                                 ? GUARD_DEST_SYSLOG
							  : GUARD_DEST_STDERR;
	if (fleet && s->dest == GUARD_DEST_STDERR)
		s->dest = GUARD_DEST_SYSLOG;
	s->log = s->dest == GUARD_DEST_QUIET ? GUARD_LOG_QUIET : GUARD_LOG_WARN;
	if (env->log && *env->log && s->dest != GUARD_DEST_QUIET) {
		if (!strcmp(env->log, "quiet"))
			s->log = GUARD_LOG_QUIET;
		else if (!strcmp(env->log, "debug"))
			s->log = GUARD_LOG_DEBUG;
		else if (strcmp(env->log, "warn"))
			ignore(s, ENV_LOG "=", env->log, " (not quiet, warn or debug)");
	}
	if (conf_err < 0)
		ignore(s, GUARD_CONF_PATH, NULL,
		       probe_errno_transient(conf_err)
			       ? ": could not be read just now; treated as locked, read again "
				 "at the next call"
			       : ": unreadable; using the defaults, treated as locked");
	else if (untrusted)
		ignore(s, GUARD_CONF_PATH, NULL, conf->trust_why);
	else if (conf->bad_lines)
		ignore(s, conf->bad_where, conf->bad_word, conf->bad_tail);

	const char *why = locked == 1   ? lock_why
			  : locked == 3 ? locking_why
			  : locked == 4 ? unclear_why
					: unreadable_why;
	s->lock_why = s->locked ? why : NULL;
	int file_mode = use && conf->mode >= 0 ? conf->mode : GUARD_AUTO;
	if (untrusted && conf->mode > GUARD_AUTO)
		file_mode = conf->mode; /* stricter: taken from anyone */
	s->mode = (enum guard_mode)file_mode;
	if (env->mode && *env->mode) {
		int m = guard_mode_parse(env->mode);
		if (m < 0)
			ignore(s, ENV_MODE "=", env->mode, " (not auto, always, audit or off)");
		else
			request_mode(s, file_mode, m, ENV_MODE "=", env->mode, why);
	}
	if (cli->mode >= 0)
		request_mode(s, file_mode, cli->mode, "--mode ",
			     guard_mode_name((enum guard_mode)cli->mode), why);

	/* slots: the file, then the environment; under a lock the environment
	 * may only say deny (substitute is as safe for the host, but it is the
	 * operator's call what a tool sees). */
	s->slots = use && conf->slots >= 0 ? (enum guard_slots)conf->slots : GUARD_SLOTS_DENY;
	if (env->slots && *env->slots) {
		int v = guard_slots_parse_n(env->slots, strlen(env->slots));
		if (v < 0)
			ignore(s, ENV_SLOTS "=", env->slots, " (not deny or substitute)");
		else if (s->locked && v != GUARD_SLOTS_DENY && s->slots == GUARD_SLOTS_DENY)
			ignore(s, ENV_SLOTS "=", env->slots, why);
		else
			s->slots = (enum guard_slots)v;
	}

	/* Facts: the command line, the environment, the file, else live. */
	const char *snap = use && conf->snapshot[0] ? conf->snapshot : NULL;
	if (env->snapshot && *env->snapshot) {
		if (s->locked)
			ignore(s, ENV_SNAPSHOT "=", env->snapshot, why);
		else
			snap = env->snapshot;
	}
	if (cli->snapshot && *cli->snapshot) {
		if (s->locked)
			ignore(s, "--snapshot ", cli->snapshot, why);
		else
			snap = cli->snapshot;
	}
	s->snapshot = snap;
	/* Where a NAME is looked up: the environment's folder only where the
	 * environment may point the facts anywhere anyway.  Under lock the
	 * facts are the file's (conf.c joins a NAME to the installed
	 * reference snapshots), so it would change nothing, and it is not
	 * taken. */
	s->snapshot_dir =
		!s->locked && env->snapshot_dir && *env->snapshot_dir ? env->snapshot_dir : NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one settings resolver: (policy file, environment, command line,
 * fleet or not) -> mode, log level and destination, snapshot, and what was
 * ignored and why.  Pure: the callers read the file and the environment and
 * print the list; every enforcer (the preload shim, `pmuguard run`) asks
 * this, so the precedence is written once.
 *
 * Precedence, lowest first (README "System policy"): built-in defaults, the
 * policy file, the environment, the command line.  With lock = yes the
 * environment and the command line may only make the mode stricter
 * (off < audit < auto < always) and cannot point the facts at a snapshot.
 * A policy file that anyone but root can write (conf.h) is read as absent
 * but for what tightens the guard (lock = yes, a mode above auto).
 * A policy file that exists but cannot be read is treated as locked (fail
 * closed: it may have said lock = yes), as is one whose lock line does not
 * parse (lock = ye: the stricter reading), and a result built on a transient
 * failure (EMFILE, ENFILE, ENOMEM, EINTR, EAGAIN, or an environment not yet
 * set up) is marked not cacheable: the shim builds it again at the next call.
 */
#ifndef PMUGUARD_SETTINGS_H
#define PMUGUARD_SETTINGS_H

#include <stdbool.h>

#include "classify.h"
#include "conf.h"

enum guard_log { GUARD_LOG_QUIET, GUARD_LOG_WARN, GUARD_LOG_DEBUG };

/* What the environment says, read by guard_env_read() only. */
struct guard_env {
	bool visible;             /* the environment is set up (not in preinit) */
	const char *mode;         /* PMUGUARD_MODE, or NULL */
	const char *log;          /* PMUGUARD_LOG */
	const char *snapshot;     /* PMUGUARD_SNAPSHOT */
	const char *snapshot_dir; /* PMUGUARD_SNAPSHOT_DIR: where a snapshot NAME is looked up */
	const char *slots;        /* PMUGUARD_SLOTS */
	const char *cookie;       /* PMUGUARD_SECCOMP_COOKIE (pmuguard run's) */
	const char *lib;          /* PMUGUARD_LIB (pmuguard run's library) */
	const char *preload;      /* LD_PRELOAD (the last, as the loader reads it): which
				     way the shim was loaded */
};

/*
 * The one reader of the environment: the variables above, from an array of
 * "NAME=value" strings as the kernel and libc keep it.  Pure and libc-free:
 * the shim passes libc's array (NULL in a secure process: then nothing is
 * read, as secure_getenv() would answer), the command its own environ.
 * Leaves visible as the caller set it.
 */
void guard_env_read(struct guard_env *env, char *const *envp);

/* The names the command exports to what it runs (a snapshot for the
 * preload, the run's cookie) or names in its messages, so that they are
 * written in one place. */
extern const char guard_env_snapshot_name[];
extern const char guard_env_cookie_name[];
extern const char guard_env_lib_name[];

struct guard_cli {
	int mode;             /* enum guard_mode, -1 when not given */
	const char *snapshot; /* --snapshot, or NULL */
	bool locking;         /* judged as under lock = yes, which the caller is
				 about to set (pmuguard-fleet install: its probe
				 and the status after it then agree) */
};

#define GUARD_MAX_IGNORED 6
struct guard_ignored {
	const char *what;  /* a variable with "=", "--mode " or a path */
	const char *value; /* the value as given (escape it when printing) */
	const char *why;   /* " (not auto, always, audit or off)" ... */
};

struct guard_settings {
	enum guard_mode mode;
	enum guard_log log;
	enum guard_dest dest;     /* GUARD_DEST_SYSLOG, _STDERR or _QUIET */
	const char *snapshot;     /* NULL: the live machine; a path or a NAME
				     (probe_snapshot_find: the callers resolve it) */
	const char *snapshot_dir; /* where a NAME is looked up; NULL: the installed
				     reference snapshots (probe_snapshot_dir) */
	enum guard_slots slots;
	bool locked;          /* lock = yes, a lock line not understood
				 (conf.h), or an unreadable policy file */
	const char *lock_why; /* why locked, ": PATH has lock = yes" ...;
				 NULL where not locked */
	bool cacheable;
	bool conf_transient; /* the policy file could not be read just now:
				fail closed (guard_policy_fail_closed) */
	struct guard_ignored ignored[GUARD_MAX_IGNORED];
	unsigned n_ignored;
};

/* conf_err is guard_conf_read()'s result for conf (0, or -errno). */
void guard_settings_resolve(const struct guard_conf *conf, int conf_err,
			    const struct guard_env *env, const struct guard_cli *cli, bool fleet,
			    struct guard_settings *s);

#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The settings of a subcommand (run, enforce, probe): the policy file, this
 * process's environment and the command line, through the one reader of
 * the environment (guard_env_read) and the one resolver (settings.h), as
 * the shim takes them in its own process.
 */
#include <stdbool.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "log.h"
#include "settings.h"

extern char **environ;

void cli_settings(struct guard_settings *set, const struct guard_cli *cli, bool quiet,
		  struct guard_env *env)
{
	/* The settings point into it (the file's snapshot): it lives as long
	 * as the command. */
	static struct guard_conf conf;
	int conf_err = guard_conf_read(&conf, GUARD_CONF_PATH);
	struct guard_env local;
	if (!env)
		env = &local;
	*env = (struct guard_env){.visible = true};
	/* A secure process (setuid, file capabilities) reads nothing of its
	 * environment, as secure_getenv() would answer. */
	guard_env_read(env, getauxval(AT_SECURE) ? NULL : environ);
	guard_settings_resolve(&conf, conf_err, env, cli, false, set);
	if (quiet || set->log == GUARD_LOG_QUIET)
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

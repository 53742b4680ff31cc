// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard run -- CMD [ARGS]: exec CMD with libpmuguard.so first in
 * LD_PRELOAD.  exec, not fork: CMD's exit status and signals are its own.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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

int cmd_run(int argc, char **argv)
{
	int i = 1;
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	else if (i < argc && argv[i][0] == '-')
		die_usage("run: unknown option '%s' (usage: pmuguard run -- CMD [ARGS])", argv[i]);
	if (i >= argc)
		die_usage("run: a command is required (usage: pmuguard run -- CMD [ARGS])");

	char *shim = find_shim();
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(shim) + (old && *old ? strlen(old) + 1 : 0) + 1;
	char *preload = malloc(len);
	if (!preload)
		die_errno("out of memory");
	snprintf(preload, len, "%s%s%s", shim, old && *old ? ":" : "", old && *old ? old : "");
	if (setenv("LD_PRELOAD", preload, 1) < 0)
		die_errno("setenv LD_PRELOAD");
	free(preload);
	free(shim);
	execvp(argv[i], argv + i);
	int err = errno;
	fprintf(stderr, "pmuguard: run: cannot execute %s: %s\n", argv[i], strerror(err));
	return err == ENOENT ? 127 : 126;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * faultsim - simulate a guest kernel that crashes on fixed-counter-3 events
 *
 * Usage: faultsim [--via notify|ptrace] --log FILE [--core-types LIST]
 *                 [--healthy] -- CMD [ARGS...]
 *
 * Runs CMD under a seccomp filter that turns every perf_event_open(2) of
 * the whole process tree into a user notification.  The supervisor (this
 * process) reads the struct perf_event_attr from the target before the
 * kernel sees it, logs it, and either lets the call continue to the real
 * kernel or -- in a "faulty world" -- treats it as a guest kernel crash:
 * the process tree is killed and faultsim exits with status 86.
 *
 * A call "faults" when attr.type is one of the core PMU types (LIST, plus
 * PERF_TYPE_RAW) and the event|umask part of attr.config encodes
 * TOPDOWN.SLOTS (event 0x00, umask 0x04) or a topdown metric pseudo event
 * (event 0x00, umask 0x80..0x87).  Those are the encodings the Intel PMU
 * driver puts on fixed counter 3 / PERF_METRICS, which is what takes down
 * AWS m6i guests.
 *
 * --via ptrace (x86_64 only) observes the tree with ptrace instead, for
 * targets that install their own seccomp listener (only one listener is
 * allowed per filter chain).  It tells calls that reach the kernel from
 * calls a seccomp supervisor denied by marking the flags argument; see
 * the "--via ptrace" section below and README.md.
 *
 * Exit status: the child's exit code (128+signal if killed), 86 on a
 * simulated fault, 2 on usage errors, 77 when seccomp user notification
 * (or, with --via ptrace, ptrace) is unavailable (test "skip"), 1 on
 * other setup errors.
 *
 * Build: gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 *.c -lseccomp
 *
 * Files: main.c the arguments; world.c which calls fault; log.c the log;
 * target.c the target's attr and exit; notify.c, notify_child.c,
 * notify_supervise.c the seccomp notify mode; ptrace.c, ptrace_call.c
 * --via ptrace (README.md).
 */

#include "faultsim.h"

#include <stdio.h>
#include <string.h>

static void usage(void)
{
	fprintf(stderr, "usage: faultsim [--via notify|ptrace] --log FILE "
			"[--core-types LIST] [--healthy] -- CMD [ARGS...]\n"
			"  LIST: comma-separated perf PMU type numbers treated as "
			"Intel core PMUs (default 4)\n"
			"  --via: seccomp user notification (default) or ptrace "
			"(x86_64; works under another seccomp supervisor)\n");
}

int main(int argc, char **argv)
{
	struct world w = {.n_core_types = 1, .core_types = {4}};
	const char *log_path = NULL;
	bool via_ptrace = false;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--log") == 0 && i + 1 < argc) {
			log_path = argv[++i];
		} else if (strncmp(a, "--log=", 6) == 0) {
			log_path = a + 6;
		} else if (strcmp(a, "--core-types") == 0 && i + 1 < argc) {
			if (parse_core_types(argv[++i], &w) < 0) {
				fprintf(stderr, "faultsim: bad --core-types '%s'\n", argv[i]);
				usage();
				return EXIT_USAGE;
			}
		} else if (strncmp(a, "--core-types=", 13) == 0) {
			if (parse_core_types(a + 13, &w) < 0) {
				fprintf(stderr, "faultsim: bad --core-types '%s'\n", a + 13);
				usage();
				return EXIT_USAGE;
			}
		} else if ((strcmp(a, "--via") == 0 && i + 1 < argc) ||
			   strncmp(a, "--via=", 6) == 0) {
			const char *v = a[5] == '=' ? a + 6 : argv[++i];

			if (strcmp(v, "ptrace") == 0) {
				via_ptrace = true;
			} else if (strcmp(v, "notify") == 0) {
				via_ptrace = false;
			} else {
				fprintf(stderr, "faultsim: bad --via '%s'\n", v);
				usage();
				return EXIT_USAGE;
			}
		} else if (strcmp(a, "--healthy") == 0) {
			w.healthy = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage();
			return 0;
		} else if (a[0] == '-') {
			fprintf(stderr, "faultsim: unknown or incomplete option '%s'\n", a);
			usage();
			return EXIT_USAGE;
		} else {
			break; /* CMD without "--" */
		}
	}
	if (log_path == NULL || log_path[0] == '\0' || i >= argc) {
		usage();
		return EXIT_USAGE;
	}

	if (via_ptrace)
		return run_ptrace(&w, log_path, argv + i);
	return run_notify(&w, log_path, argv + i);
}

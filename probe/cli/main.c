// SPDX-License-Identifier: GPL-2.0-or-later
/* pmuguard: the command.  One file per subcommand; this one dispatches. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
	"Usage: pmuguard COMMAND [ARGS]\n"
	"\n"
	"Keeps perf tools away from PMU counters a cloud guest advertises but does\n"
	"not implement (fixed counter 3, TOPDOWN.SLOTS, on AWS m6i and kin; the\n"
	"E-cores' fixed counters 4-6 where a guest's CPUID claims them).\n"
	"\n"
	"Commands:\n"
	"  probe [--json|--keys] [--check [-q]] [--msr] [--snapshot DIR|NAME]\n"
	"        [--dmesg FILE]\n"
	"                      explain this machine's PMU: facts, verdict, findings\n"
	"  snapshot DIR        capture this machine's PMU facts for --snapshot\n"
	"  snapshot --list     the reference snapshots --snapshot NAME finds\n"
	"  run [--mode auto|preload|seccomp] [--audit] [--snapshot DIR|NAME]\n"
	"      -- CMD [ARGS]\n"
	"                      run CMD guarded: by default a seccomp supervisor over\n"
	"                      the whole tree, plus the preload for dynamic programs;\n"
	"                      --audit blocks nothing and reports every call at exit\n"
	"  check PROGRAM...    say which guard fits each program, and why\n"
	"  enforce start [--mode auto|always|audit|off] [--snapshot DIR|NAME]\n"
	"  enforce stop | status | follow | agent | ready\n"
	"                      guard the whole host in the kernel (BPF on the\n"
	"                      perf_event_alloc LSM hook); follow prints each denial;\n"
	"                      agent and ready: a Kubernetes node agent and its probe\n"
	"  canary              does a guard in this process refuse the hazard class?\n"
	"                      (harmless calls; pmuguard-fleet status runs it)\n"
	"  status [--json|--keys] [--textfile FILE]\n"
	"                      is this host protected, and by which layer (what\n"
	"                      pmuguard-fleet status prints); exits as LSB's status\n"
	"  tree [--root DIR] [--check-load]\n"
	"                      what pmuguard reads in a tree (or here), as KEY=VALUE\n"
	"                      data: paths resolved in it, the policy as the guard\n"
	"                      reads it (pmuguard-fleet asks it under --root)\n"
	"  -V, --version       print the version\n"
	"\n"
	"Exit codes (COMMAND --help: that command's):\n"
	"  0    ok; probe --check: no hazard\n"
	"  1    internal error, unreadable input, a program check could not read\n"
	"  2    usage\n"
	"  3    probe --check: the hazard is present; canary: nothing refused it;\n"
	"       status: the hazard, and no layer seen to guard it (or PARTLY)\n"
	"  4    enforce start, agent: the kernel could not take the guard;\n"
	"       status: the verdict is unknown\n"
	"  5    enforce: built without kernel enforcement\n"
	"  6    enforce status, follow, ready: nothing attached\n"
	"  7    enforce start, status, ready: attached, but perf events of the class\n"
	"       opened before it still exist: enabled, each still reaches the counter\n"
	"  8    enforce status, ready: attached, but the self-test failed\n"
	"  9    enforce status, ready: attached in audit mode: it blocks nothing\n"
	"  run: CMD's own status (128+N when killed by signal N); 126 CMD not\n"
	"  executable, 127 CMD not found; 1 nothing was run; 2 usage.\n";

/* In the order the usage names them. */
static const struct cli_verb commands[] = {
	{"probe", cmd_probe},   {"snapshot", cmd_snapshot}, {"run", cmd_run},
	{"check", cmd_check},   {"enforce", cmd_enforce},   {"canary", cmd_canary},
	{"status", cmd_status}, {"tree", cmd_tree},
};

int main(int argc, char **argv)
{
	if (argc < 2)
		die_usage("a command is required");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("pmuguard %s\n", PMUGUARD_VERSION);
		return EXIT_OK;
	}
	opterr = 0; /* die_bad_option() says it, with our prefix */
	size_t n = sizeof(commands) / sizeof(commands[0]);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	char names[128];
	cli_verb_names(names, sizeof(names), commands, n);
	die_usage("unknown command '%s' (%s)", cmd, names);
}

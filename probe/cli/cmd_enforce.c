// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard enforce VERB: the verb table and its dispatch.  One file per
 * verb group: enforce_start.c (start, stop), enforce_status.c (status,
 * ready), enforce_follow.c (follow, agent); what they share (their
 * documents through ../doc/'s writers too) in enforce_common.c.
 *
 * The same facts, settings resolver and policy as the shim and `run`
 * decide whether anything is attached; probe/enforce/enforce.c attaches it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef PMUGUARD_ENFORCE
int cmd_enforce(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("pmuguard: enforce: this pmuguard was built without kernel enforcement "
	      "(meson -Denforce=disabled, or libbpf, bpftool or clang missing at build time); "
	      "the preload and `pmuguard run` still guard what they reach\n",
	      stderr);
	return EXIT_NO_ENFORCE;
}
#else
#include "enforce_common.h"

const char enforce_usage[] =
	"Usage: pmuguard enforce start [--mode auto|always|audit|off] [--snapshot DIR]\n"
	"                              [--attach auto|lsm|fmod_ret] [--keep-unverified]\n"
	"                              [--json|--keys]\n"
	"       pmuguard enforce stop\n"
	"       pmuguard enforce status [--snapshot DIR] [--json|--keys]\n"
	"       pmuguard enforce follow [--json]\n"
	"       pmuguard enforce agent [--mode M] [--snapshot DIR] [--attach A] [--remove-on-exit]\n"
	"                              [--textfile FILE [--textfile-interval SECONDS]]\n"
	"       pmuguard enforce ready\n"
	"\n"
	"Guard every process on the host in the kernel: a BPF program on the LSM\n"
	"hook perf_event_alloc denies with ENOENT what lands on an unimplemented\n"
	"fixed counter (3-6).\n"
	"  start    attach it where the policy wants it (nothing on a healthy host),\n"
	"           prove that it runs (a self-test: a harmless canary event that\n"
	"           carries this load's nonce and that the program refuses), then pin\n"
	"           it in /sys/fs/bpf/pmuguard (mounting bpffs there if nothing is), so it\n"
	"           outlives the command; one that attaches but does not run is\n"
	"           detached again (exit 4)\n"
	"    --mode auto|always|audit|off   as PMUGUARD_MODE (lock = yes applies)\n"
	"    --snapshot DIR                 take the facts from a snapshot (or NAME: a\n"
	"                                   reference snapshot, snapshot --list)\n"
	"    --attach auto|lsm|fmod_ret     how to attach (auto: lsm where bpf is an\n"
	"                                   active LSM, else fmod_ret; the other one\n"
	"                                   when the first fails the self-test)\n"
	"    --keep-unverified              pin it even when the self-test fails, for\n"
	"                                   diagnosis (still exit 4; status exits 8)\n"
	"  stop     detach and unpin it\n"
	"  status   attached or not (and why), the self-test run again, counts per\n"
	"           encoding and per uid, and the events of the class that existed\n"
	"           before the start\n"
	"    --snapshot DIR   where nothing is attached, judge the policy on these\n"
	"                     facts (what start --snapshot DIR would do); an attached\n"
	"                     guard is judged by the facts it was started with\n"
	"  follow   print each denial, once per process and encoding, until stop\n"
	"           (--json: one JSON object per line)\n"
	"  agent    a node agent (a Kubernetes DaemonSet's entrypoint): start, then\n"
	"           follow --json until SIGTERM, which leaves the guard pinned\n"
	"           (--remove-on-exit: stops it); mounts securityfs to read the LSM\n"
	"           list where the pod has none; idles where no guard is needed\n"
	"    --textfile FILE             also write the node's metrics (node_exporter's\n"
	"                                textfile, the kernel layer alone) to FILE,\n"
	"                                atomically: after the start, every interval\n"
	"                                and soon after a denial\n"
	"    --textfile-interval SECONDS how often (default 300)\n"
	"  ready    a readiness probe: exit 0 only when the pinned guard passes its\n"
	"           self-test now, denies (not audit mode), and no perf event of the\n"
	"           class opened before it is left; or this node needs none\n"
	"  --json   start, status: one JSON object (\"schema\" first), for programs\n"
	"  --keys   start, status: the same as KEY=VALUE lines (\"schema=N\" first),\n"
	"           for shell scripts: keys are the JSON paths joined by '.', array\n"
	"           elements by index, strings raw with control characters and '\\'\n"
	"           written as \\xHH, null as an empty value\n"
	"\n"
	"start and status also name the perf events of the class that already\n"
	"exist (pid, comm, fd, encoding): the kernel judged them when they were\n"
	"allocated, before the guard, so each is unguarded until its owner closes it.\n"
	"\n"
	"Exit status:\n"
	"  0  done (start: attached, already attached, or nothing to attach; stop:\n"
	"     detached; status: attached, verified and denying; ready: ready;\n"
	"     follow, agent: a signal, or the guard was stopped)\n"
	"  1  internal error (status: whether a guard is attached is unknown, e.g.\n"
	"     bpf() refused; stop: it could not be removed)\n"
	"  2  usage\n"
	"  4  start, agent: the kernel could not take the guard: it did not attach,\n"
	"     or it attached but failed the self-test\n"
	"  5  built without enforce\n"
	"  6  status, follow: nothing attached; ready: nothing attached where the\n"
	"     policy wants a guard\n"
	"  7  start, status, ready: attached and denying, but events of the class\n"
	"     opened before it still exist (listed): enabled, each still reaches\n"
	"     the counter; every new one is denied\n"
	"  8  status, ready: attached, but the self-test failed: it does not protect\n"
	"     the host\n"
	"  9  status, ready: attached in audit mode: it blocks nothing (start\n"
	"     --mode audit itself exits 0)\n"
	"pmuguard-fleet status gives the host's state in LSB's codes.\n";

/* In the order the usage errors name them. */
static const struct cli_verb verbs[] = {
	{"start", cmd_enforce_start},   {"stop", cmd_enforce_stop},
	{"status", cmd_enforce_status}, {"follow", cmd_enforce_follow},
	{"agent", cmd_enforce_agent},   {"ready", cmd_enforce_ready},
};
#define N_VERBS (sizeof(verbs) / sizeof(verbs[0]))

int cmd_enforce(int argc, char **argv)
{
	char names[128];
	cli_verb_names(names, sizeof(names), verbs, N_VERBS);
	if (argc < 2)
		die_usage("enforce: %s is required", names);
	const char *sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(enforce_usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(sub, "--follow")) /* the spelling before follow was a verb */
		return cmd_enforce_follow(argc - 1, argv + 1);
	for (size_t i = 0; i < N_VERBS; i++)
		if (!strcmp(sub, verbs[i].name))
			return verbs[i].fn(argc - 1, argv + 1);
	die_usage("enforce: unknown subcommand '%s' (%s)", sub, names);
}
#endif

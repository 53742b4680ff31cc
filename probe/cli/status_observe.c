// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The status model of this host, observed and decided, for `pmuguard
 * status` and the node agent's textfile (`enforce agent --textfile`): the
 * probe's gather and verdict in a child of the command, then ../status/'s
 * gatherers and its one decision.  Shared, so that the agent's metrics
 * come from the same model and the same writer as the host's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "settings.h"
#include "status.h"

/* The probe's gather and verdict, as `pmuguard probe --check --keys` runs
 * them: the facts the guard reads (PMUGUARD_SNAPSHOT, the policy file's
 * snapshot, else this machine), the report's keys on stdout, exit 3 on the
 * hazard.  In a child, whose die() on a snapshot it cannot read (exit 1)
 * is an unknown verdict here, not the end of status. */
static int probe_child(void)
{
	struct report_input *in = calloc(1, sizeof(*in));
	struct report *r = calloc(1, sizeof(*r));
	if (!in || !r)
		die_errno("out of memory");
	struct guard_settings set = {0};
	struct guard_cli cli = {.mode = -1};
	cli_settings(&set, &cli, true, NULL);
	in->this_machine = true; /* a pinned snapshot is still this machine's */
	if (set.snapshot)
		in->snapshot = cli_snapshot_path(set.snapshot, set.snapshot_dir);
	report_gather(in);
	report_build(r, in);
	r->version = PMUGUARD_VERSION;
	doc_utc_now(r->generated_at, sizeof(r->generated_at));
	doc_write(stdout, DOC_FORM_KEYS, report_walk, r);
	/* A read that failed is no verdict (exit 1: unknown to status), as
	 * for `probe --check`. */
	int failed = cli_probe_unread_exit(in, r, true);
	return failed >= 0 ? failed : r->hazard ? EXIT_HAZARD : EXIT_OK;
}

static void probe_verdict(struct status_model *m)
{
	int p[2];
	m->probe_exit = -1;
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		/* A process group of its own, that the deadline can kill whole;
		 * gone with status. */
		setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
			_exit(126);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0 || dup2(p[1], 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		int rc = probe_child();
		fflush(stdout);
		_exit(rc);
	}
	close(p[1]);
	/* The same bounds as every child of status (status_run.c): one that
	 * hangs or floods is killed, and its verdict is unknown. */
	char *buf = NULL;
	int rc = status_child_collect(pid, p[0], &buf, NULL);
	status_gather_probe(m, rc < 0 ? -1 : rc, buf);
	free(buf);
}

void cli_status_observe(struct status_model *m, struct status_decision *d,
			const struct status_opts *o)
{
	/* SIGCHLD ignored is inherited across exec, and then the kernel reaps
	 * our children and no wait sees their exit: an answer lost. */
	signal(SIGCHLD, SIG_DFL);
	probe_verdict(m);
	status_gather(m, o);
	status_decide(d, m);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * enforce agent --textfile FILE: the node's pmuguard_* series for
 * node_exporter's textfile collector, written from a pod.  The same model
 * (cli_status_observe()) and the same writer (status_write_textfile(),
 * atomic: a temporary in FILE's directory renamed over it) as `pmuguard
 * status --textfile` on a host, with the kernel layer alone: a pod's
 * /etc/ld.so.preload, processes and journal are its own and say nothing of
 * the node, while the pinned guard, its self-test and its counts are the
 * node's.
 *
 * A child of the agent writes the file once the agent's start is done,
 * again every interval, and soon after a denial the agent reports (its
 * count rises in the file within seconds, as in the pod's log), at most
 * once per AGENT_TEXTFILE_GAP seconds.  A child, so that a slow status
 * (it runs the guard's self-test again) never holds up the denials'
 * log; its failures are lines of the agent's log, never the agent's end:
 * the guard matters more than its metrics.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "enforce_common.h"
#include "status.h"

/* The least time between two writes a denial asks for: a storm of
 * denials (each a self-test and a probe here) is one write. */
#define AGENT_TEXTFILE_GAP 5

static volatile sig_atomic_t stopping, refresh;
static pid_t writer = -1;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_refresh(int sig)
{
	(void)sig;
	refresh = 1;
}

static time_t now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* One write; 0 or -errno. */
static int write_once(const char *path, const struct status_opts *o)
{
	struct status_model *m = calloc(1, sizeof(*m));
	struct status_decision *d = calloc(1, sizeof(*d));
	int e = -ENOMEM;
	if (m && d) {
		cli_status_observe(m, d, o);
		e = status_write_textfile(path, m, d, NULL);
		status_free(m, d);
	}
	free(m);
	free(d);
	return e;
}

static _Noreturn void writer_loop(const char *path, unsigned interval, const char *snapshot)
{
	/* The agent's end is the writer's: SIGTERM where it dies first. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	struct sigaction sa = {.sa_handler = on_stop};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_refresh;
	sigaction(SIGUSR1, &sa, NULL);
	/* The facts the agent's start used, for the probe's verdict here and
	 * for `enforce status --keys`, which status asks. */
	if (snapshot && *snapshot)
		setenv("PMUGUARD_SNAPSHOT", snapshot, 1);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		enf_life_json("textfile-failed", "why",
			      "cannot find this command (/proc/self/exe)");
		_exit(EXIT_INTERNAL);
	}
	self[n] = '\0';
	const struct status_opts o = {.version = PMUGUARD_VERSION,
				      .me = geteuid(),
				      .kernel_only = true,
				      .pmuguard = self,
				      .preload = "/etc/ld.so.preload"};
	bool failing = false, said = false;
	while (!stopping) {
		refresh = 0;
		int e = write_once(path, &o);
		if (e < 0 && !failing) {
			char why[PATH_MAX + 64];
			snprintf(why, sizeof(why), "cannot write %s: %s", path, strerror(-e));
			enf_life_json("textfile-failed", "why", why);
		} else if (e == 0 && (failing || !said)) {
			enf_life_json("textfile", "path", path);
			said = true;
		}
		failing = e < 0;
		time_t at = now_s(), next = at + (time_t)interval,
		       soonest = at + (interval < AGENT_TEXTFILE_GAP ? (time_t)interval
								     : AGENT_TEXTFILE_GAP);
		for (time_t t = at; !stopping && t < next && !(refresh && t >= soonest);
		     t = now_s())
			sleep((unsigned)((refresh ? soonest : next) - t)); /* a signal ends it */
	}
	_exit(EXIT_OK);
}

int agent_textfile_start(const char *path, unsigned interval, const char *snapshot)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		writer_loop(path, interval, snapshot);
	writer = pid;
	return 0;
}

void agent_textfile_refresh(void)
{
	if (writer > 0)
		kill(writer, SIGUSR1);
}

void agent_textfile_stop(void)
{
	if (writer <= 0)
		return;
	kill(writer, SIGTERM);
	while (waitpid(writer, NULL, 0) < 0 && errno == EINTR)
		;
	writer = -1;
}

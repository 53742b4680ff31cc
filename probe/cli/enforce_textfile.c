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
 *
 * The agent's stop waits for a write under way at most
 * AGENT_TEXTFILE_STOP_MS, then kills the writer's process group (the
 * writer and the commands it runs): --remove-on-exit must run before the
 * orchestrator's SIGKILL.  A temporary a killed write left is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "enforce_common.h"
#include "status.h"

/* The least time between two writes a denial asks for: a storm of
 * denials (each a self-test and a probe here) is one write. */
#define AGENT_TEXTFILE_GAP 5
/* How long the agent's stop waits for a write under way (a self-test, a
 * probe) before it kills the writer: well inside Kubernetes' 30 s grace,
 * so that --remove-on-exit still runs after it. */
#define AGENT_TEXTFILE_STOP_MS 5000

static volatile sig_atomic_t stopping, refresh;
static pid_t writer = -1;
static const char *writer_path;

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
		struct status_textfile_note note;
		e = status_write_textfile(path, m, d, NULL, &note);
		if (e == 0 && note.shared) {
			char why[PATH_MAX + 256];
			snprintf(
				why, sizeof(why),
				"%s was also written by the %s's pmuguard status --textfile %llds "
				"ago: each write replaces the other's series; give each its own file",
				path, note.previous_writer, note.previous_age);
			enforce_life_json("textfile-shared", "why", why);
		}
		status_free(m);
	}
	free(m);
	free(d);
	return e;
}

/* The signals the writer acts on: blocked from before its fork (a
 * refresh sent before its handlers were set would kill it) and outside
 * its waits, so that none comes between a check of the flags and the
 * wait (ppoll unblocks them atomically). */
static void writer_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR1);
}

/* The temporaries of writes killed midway (status_write_textfile()'s
 * "FILE.XXXXXX", regular files): removed at the writer's start and after
 * a stop that had to kill it. */
static void remove_temporaries(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	const char *base = path + (slash - dir) + 1;
	*slash = '\0';
	DIR *d = opendir(*dir ? dir : "/");
	if (!d)
		return;
	size_t n = strlen(base);
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *x = e->d_name;
		struct stat st;
		if (strncmp(x, base, n) != 0 || x[n] != '.' || strlen(x + n + 1) != 6 ||
		    strspn(x + n + 1,
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != 6 ||
		    fstatat(dirfd(d), x, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		unlinkat(dirfd(d), x, 0);
	}
	closedir(d);
}

/* The rule status --textfile follows: no file written, and no temporary
 * removed, in a directory others may write.  0, or -errno (said on the
 * agent's log). */
static int dir_ok(const char *path)
{
	char why[PATH_MAX + 160];
	int bad = status_textfile_dir_check(path, why, sizeof(why));
	if (bad)
		enforce_life_json("textfile-failed", "why", why);
	return bad;
}

/* The node's model as every write gathers it: the facts the agent's start
 * used (PMUGUARD_SNAPSHOT, for the probe's verdict and for `enforce status
 * --keys`, which status asks), this command (its path into self) as the
 * one that answers, the kernel layer alone, and the kernel's refusal where
 * there was one.  0, or -errno (said on the agent's log). */
static int node_opts(struct status_opts *o, char *self, size_t size, const char *snapshot,
		     const char *refusal)
{
	if (snapshot && *snapshot)
		setenv("PMUGUARD_SNAPSHOT", snapshot, 1);
	ssize_t n = readlink("/proc/self/exe", self, size - 1);
	if (n <= 0) {
		int e = errno ? -errno : -ENOENT;
		enforce_life_json("textfile-failed", "why",
				  "cannot find this command (/proc/self/exe)");
		return e;
	}
	self[n] = '\0';
	*o = (struct status_opts){.version = PMUGUARD_VERSION,
				  .me = geteuid(),
				  .kernel_only = true,
				  .pmuguard = self,
				  .preload = "/etc/ld.so.preload",
				  .kernel_refusal = refusal};
	return 0;
}

/* One write said on the agent's log: its failure, or the file's path. */
static void say_write(const char *path, int e)
{
	if (e < 0) {
		char why[PATH_MAX + 64];
		snprintf(why, sizeof(why), "cannot write %s: %s", path, strerror(-e));
		enforce_life_json("textfile-failed", "why", why);
	} else {
		enforce_life_json("textfile", "path", path);
	}
}

static _Noreturn void writer_loop(const char *path, unsigned interval, const char *snapshot,
				  pid_t agent)
{
	/* The writer and what it runs are one process group: the agent's
	 * stop can end them all. */
	setpgid(0, 0);
	/* The agent's end is the writer's: SIGTERM where it dies first (and
	 * where it died before the request was made). */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != agent)
		_exit(EXIT_OK);
	struct sigaction sa = {.sa_handler = on_stop};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_refresh;
	sigaction(SIGUSR1, &sa, NULL);
	sigset_t blocked, unblocked;
	writer_signals(&blocked);
	sigprocmask(SIG_BLOCK, NULL, &unblocked);
	sigdelset(&unblocked, SIGTERM);
	sigdelset(&unblocked, SIGINT);
	sigdelset(&unblocked, SIGHUP);
	sigdelset(&unblocked, SIGUSR1);
	remove_temporaries(path);
	char self[PATH_MAX];
	struct status_opts o;
	if (node_opts(&o, self, sizeof(self), snapshot, NULL) != 0)
		_exit(EXIT_INTERNAL);
	bool failing = false, said = false;
	while (!stopping) {
		refresh = 0;
		/* Open during the write: its children start with no signal
		 * blocked, and a stop sets the flag (the write ends, then the
		 * loop). */
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
		if (stopping)
			break; /* a stop pending since the last wait */
		int e = write_once(path, &o);
		sigprocmask(SIG_BLOCK, &blocked, NULL);
		/* Said when it changes: the first failure, the first success
		 * and the first after failures. */
		if ((e < 0 && !failing) || (e == 0 && (failing || !said))) {
			say_write(path, e);
			said = said || e == 0;
		}
		failing = e < 0;
		time_t at = now_s(), next = at + (time_t)interval,
		       soonest = at + (interval < AGENT_TEXTFILE_GAP ? (time_t)interval
								     : AGENT_TEXTFILE_GAP);
		for (time_t t = at; !stopping && t < next && !(refresh && t >= soonest);
		     t = now_s()) {
			/* The signals blocked since the flags were read: ppoll
			 * opens them and waits in one step, so one sent
			 * meanwhile ends this wait, never the next. */
			struct timespec ts = {.tv_sec = (refresh ? soonest : next) - t};
			ppoll(NULL, 0, &ts, &unblocked);
		}
	}
	_exit(EXIT_OK);
}

int enforce_textfile_refused(const char *path, const char *snapshot, const char *why)
{
	char self[PATH_MAX];
	struct status_opts o;
	int e = dir_ok(path);
	if (e == 0)
		e = node_opts(&o, self, sizeof(self), snapshot, why);
	if (e == 0) {
		e = write_once(path, &o);
		say_write(path, e);
	}
	return e;
}

int enforce_textfile_start(const char *path, unsigned interval, const char *snapshot)
{
	int bad = dir_ok(path);
	if (bad)
		return bad;
	fflush(NULL);
	sigset_t set, old;
	writer_signals(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid_t agent = getpid();
	pid_t pid = fork();
	if (pid == 0)
		writer_loop(path, interval, snapshot, agent);
	int e = pid < 0 ? -errno : 0;
	if (pid > 0) {
		/* Also here: the group exists before any stop signals it. */
		setpgid(pid, pid);
		writer = pid;
		writer_path = path;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (e)
		enforce_life_json("textfile-failed", "why", strerror(-e));
	return e;
}

void enforce_textfile_refresh(void)
{
	if (writer > 0)
		kill(writer, SIGUSR1);
}

void enforce_textfile_stop(void)
{
	if (writer <= 0)
		return;
	kill(writer, SIGTERM);
	/* A write under way ends first (a self-test, a probe); bounded, so
	 * that the agent's own end (--remove-on-exit) comes before the
	 * orchestrator's SIGKILL. */
	bool gone = false;
	for (int waited = 0; waited < AGENT_TEXTFILE_STOP_MS; waited += 20) {
		pid_t r = waitpid(writer, NULL, WNOHANG);
		if (r == writer || (r < 0 && errno != EINTR)) {
			gone = true;
			break;
		}
		struct timespec ts = {.tv_nsec = 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (!gone) {
		kill(-writer, SIGKILL);
		kill(writer, SIGKILL);
		while (waitpid(writer, NULL, 0) < 0 && errno == EINTR)
			;
		/* Killed midway: its temporary is left; not the file. */
		remove_temporaries(writer_path);
		enforce_life_json("textfile-failed", "why",
				  "the writer did not end within 5 s of the agent's stop: killed");
	}
	writer = -1;
}

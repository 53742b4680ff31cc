// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A child of status, run and read: the kernel layer's document, the
 * canary (as nobody), the loader's check, journalctl.  Its output is
 * captured; nothing it inherits but stdin, stdout and stderr.  A child
 * is bounded in time (STATUS_CHILD_DEADLINE_MS) and in output
 * (STATUS_CHILD_OUTPUT_MAX): one that hangs or floods is killed with its
 * process group and reported as a failure (unknown), never as an answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "status.h"

extern char **environ;

/* --- Children ---------------------------------------------------------- */

/* Drop to nobody as setpriv(1) --reuid=65534 --regid=65534 --clear-groups
 * --inh-caps=-all --no-new-privs would: a user with no file, group or
 * privilege of its own.  0 or -errno. */
static int become_nobody(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct c[2];
	if (syscall(SYS_capget, &h, c) == 0) {
		c[0].inheritable = c[1].inheritable = 0;
		if (syscall(SYS_capset, &h, c) != 0)
			return -errno;
	}
	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	return 0;
}

static void close_from(int lowest)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lowest, ~0U, 0) == 0)
		return;
#endif
	for (int fd = lowest; fd < 1024; fd++)
		close(fd);
}

int status_deadline_ms(const char *var, int bound)
{
	/* Only ever shorter than the built-in bound: a shorter one can only turn
	 * an answer into a failure (unknown), never a failure into an answer,
	 * so the variable cannot make status claim more.  The tests use it to
	 * see a bound reached without waiting for it in full. */
	const char *v = secure_getenv(var);
	if (v && *v) {
		char *end;
		errno = 0;
		long ms = strtol(v, &end, 10);
		if (!errno && !*end && ms > 0 && ms < bound)
			return (int)ms;
	}
	return bound;
}

int status_child_deadline_ms(void)
{
	return status_deadline_ms("PMUGUARD_STATUS_CHILD_DEADLINE_MS", STATUS_CHILD_DEADLINE_MS);
}

long long status_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Kill the child and whatever it started: each child leads its own process
 * group (setsid or setpgid before it runs anything), and until it does, the
 * group is its pid alone, so the second kill covers that window. */
static void kill_child(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

int status_child_collect(pid_t pid, int fd, char **out, size_t *len_out)
{
	*out = NULL;
	if (len_out)
		*len_out = 0;
	long long deadline = status_now_ms() + status_child_deadline_ms();
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int err = buf ? 0 : -ENOMEM;
	while (!err) {
		long long left = deadline - status_now_ms();
		if (left <= 0) {
			err = -ETIMEDOUT;
			break;
		}
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int r = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (r < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (r <= 0)
			continue;
		if (len + 1 >= cap) {
			/* Grown geometrically, up to the cap: a child that says more
			 * has no answer we read. */
			if (cap >= STATUS_CHILD_OUTPUT_MAX) {
				err = -EFBIG;
				break;
			}
			size_t ncap = cap * 2 > STATUS_CHILD_OUTPUT_MAX ? STATUS_CHILD_OUTPUT_MAX
									: cap * 2;
			char *b = realloc(buf, ncap);
			if (!b) {
				err = -ENOMEM;
				break;
			}
			buf = b;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	/* The pipe is closed or given up on: a child still running past it
	 * (the deadline, a flood) is killed, so the wait below is bounded;
	 * one that closed its output and hangs on is given the time left. */
	if (err)
		kill_child(pid);
	int st = 0;
	for (;;) {
		pid_t w = waitpid(pid, &st, err ? 0 : WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			/* ECHILD where SIGCHLD is ignored: the kernel reaped it, and
			 * its status is lost.  No exit status is an unknown. */
			if (!err)
				err = -errno;
			break;
		}
		if (status_now_ms() >= deadline) {
			err = -ETIMEDOUT;
			kill_child(pid);
			continue;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (err) {
		/* A document cut short is not a document. */
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int status_run(char *const argv[], char *const env[], bool with_err, bool drop_to_nobody,
	       char **out, size_t *len)
{
	*out = NULL;
	if (len)
		*len = 0;
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0) {
			/* Without it the child would keep our stdin and, for
			 * stderr, our terminal: it does not run. */
			dprintf(p[1], "cannot open /dev/null: %s\n", strerror(errno));
			_exit(126);
		}
		if (dup2(null, 0) < 0 || dup2(p[1], 1) < 0 || dup2(with_err ? p[1] : null, 2) < 0)
			_exit(126);
		close_from(3);
		/* A session of its own: the canary, as nobody, keeps no
		 * controlling terminal of ours (no TIOCSTI into it), and every
		 * child leads a process group that a deadline can kill whole. */
		if (setsid() < 0)
			_exit(126);
		if (drop_to_nobody) {
			int e = become_nobody();
			if (e < 0) {
				dprintf(2, "cannot become uid 65534: %s\n", strerror(-e));
				_exit(126);
			}
		}
		/* Set after the drop (a credential change clears it): a status
		 * killed outright does not leave its children running. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
			_exit(126);
		if (drop_to_nobody || env != environ) {
			if (chdir("/") != 0)
				_exit(126);
		}
		execve(argv[0], argv, env);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	return status_child_collect(pid, p[0], out, len);
}

const char *status_run_words(int rc, char *buf, size_t size)
{
	if (rc < 0)
		snprintf(buf, size, "gave no answer: %s", strerror(-rc));
	else
		snprintf(buf, size, "exited %d", rc);
	return buf;
}

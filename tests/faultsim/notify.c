// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The notify mode (the default): the log opened, signals taken over, the
 * child forked (notify_child.c), its listener received, the tree
 * supervised (notify_supervise.c).
 */
#include "faultsim.h"
#include "notify.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <seccomp.h>

static const char *const stage_name[] = {
	[ST_OK] = "ok",
	[ST_PRCTL] = "prctl(PR_SET_NO_NEW_PRIVS)",
	[ST_INIT] = "seccomp_init",
	[ST_RULE] = "seccomp_rule_add(SCMP_ACT_NOTIFY, perf_event_open)",
	[ST_LOAD] = "seccomp_load",
	[ST_NOTIFY_FD] = "seccomp_notify_fd",
};

/* returns the listener fd, or -1 after reporting; *exit_code set */
static int recv_listener(int sock, int *exit_code)
{
	struct setup_msg m;
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd = -1;

	*exit_code = EXIT_SETUP;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "faultsim: recvmsg: %s\n", strerror(errno));
		return -1;
	}
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (n != (ssize_t)sizeof(m)) {
		fprintf(stderr, "faultsim: child died during seccomp setup\n");
		goto fail;
	}
	if (m.err != 0 || m.stage != ST_OK) {
		int e = m.err < 0 ? -m.err : EIO;
		const char *what = (m.stage > ST_OK && m.stage <= ST_NOTIFY_FD)
					   ? stage_name[m.stage]
					   : "setup";

		fprintf(stderr, "faultsim: %s: %s\n", what, strerror(e));
		if (m.stage == ST_LOAD && (e == ENOSYS || e == EINVAL))
			*exit_code = EXIT_SKIP;
		goto fail;
	}
	if (fd < 0) {
		fprintf(stderr, "faultsim: no seccomp listener fd received\n");
		goto fail;
	}
	return fd;

fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * The default mode: the child installs a seccomp filter that makes every
 * perf_event_open of the tree a user notification and hands the listener
 * over (notify_child.c); this process supervises it (notify_supervise.c).
 */
int run_notify(const struct world *w, const char *log_path, char **cmd)
{
	struct sigaction dfl, oldact[2];
	sigset_t mask, oldmask;
	int sv[2] = {-1, -1};
	int logfd = -1, sfd = -1, nfd = -1;
	int code = EXIT_SETUP, status;
	unsigned int api;
	pid_t child;

	api = seccomp_api_get();
	if (api < 5) {
		fprintf(stderr,
			"faultsim: seccomp user notification "
			"unavailable (libseccomp API level %u < 5): %s\n",
			api, strerror(ENOSYS));
		return EXIT_SKIP;
	}

	logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (logfd < 0) {
		fprintf(stderr, "faultsim: %s: %s\n", log_path, strerror(errno));
		return EXIT_SETUP;
	}

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "faultsim: socketpair: %s\n", strerror(errno));
		goto out;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &oldmask) < 0) {
		fprintf(stderr, "faultsim: sigprocmask: %s\n", strerror(errno));
		goto out;
	}
	/*
	 * An inherited SIG_IGN (e.g. "faultsim ... &" from a non-interactive
	 * shell) would discard SIGINT before signalfd sees it; take default
	 * dispositions here (the signals stay blocked) and give the child
	 * back the original ones.
	 */
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	dfl.sa_flags = 0;
	sigaction(SIGINT, &dfl, &oldact[0]);
	sigaction(SIGTERM, &dfl, &oldact[1]);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		fprintf(stderr, "faultsim: signalfd: %s\n", strerror(errno));
		goto out;
	}

	fflush(NULL);
	child = fork();
	if (child < 0) {
		fprintf(stderr, "faultsim: fork: %s\n", strerror(errno));
		goto out;
	}
	if (child == 0) {
		close(sv[0]);
		close(sfd);
		close(logfd);
		child_main(sv[1], cmd, &oldmask, oldact);
	}
	/* also here, so kill(-child) can never miss due to a race */
	setpgid(child, child);
	close(sv[1]);
	sv[1] = -1;

	nfd = recv_listener(sv[0], &code);
	close(sv[0]);
	sv[0] = -1;
	if (nfd < 0) {
		kill(-child, SIGKILL);
		kill(child, SIGKILL);
		reap(child, &status);
		goto out;
	}

	code = supervise(w, logfd, nfd, child, sfd);

out:
	if (nfd >= 0)
		close(nfd);
	if (sfd >= 0)
		close(sfd);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	close(logfd);
	return code;
}

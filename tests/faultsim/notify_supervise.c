// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The notify mode's parent side: each notification's attr read, judged
 * (world.c) and logged; a fault kills the tree, anything else continues
 * to the real kernel.  Signals to faultsim go to the child.
 */
#include "faultsim.h"
#include "notify.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

/* libseccomp 2.5 maps ioctl failures to -ECANCELED and leaves errno set */
static int notify_errno(int rc)
{
	if (rc == -ECANCELED && errno != 0)
		return -errno;
	return rc;
}

struct supervisor {
	const struct world *w;
	int logfd;
	int nfd;
	pid_t child;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t req_size;
	size_t resp_size;
};

/*
 * Handle one notification.  Returns 0 to keep going, 1 on a simulated
 * fault (tree already killed), negative errno on a fatal error.
 */
static int handle_notification(struct supervisor *s)
{
	unsigned char attr[ATTR_READ_SIZE];
	uint32_t type = 0;
	uint64_t config = 0;
	bool readable, fault = false, nogroup = false;
	ssize_t n;
	pid_t pid;
	int rc;

	memset(s->req, 0, s->req_size);
	rc = notify_errno(seccomp_notify_receive(s->nfd, s->req));
	if (rc == -EINTR || rc == -ENOENT)
		return 0; /* benign: signal, or target died meanwhile */
	if (rc < 0)
		return rc;

	pid = (pid_t)s->req->pid;
	n = read_target(pid, s->req->data.args[0], attr);
	/* the target may have died and its pid been reused: re-validate */
	if (seccomp_notify_id_valid(s->nfd, s->req->id) < 0)
		return 0;

	readable = n >= ATTR_MIN_SIZE;
	if (readable) {
		type = get_u32(attr + 0);
		(void)get_u32(attr + 4); /* attr.size, not needed */
		config = get_u64(attr + 8);
		nogroup = group_fd_missing(pid, s->req->data.args[3]);
		fault = !s->w->healthy && is_core_type(s->w, type) && is_fixed3_encoding(config) &&
			!nogroup;
	}
	log_call(s->logfd, pid, readable, type, config, fault, nogroup);

	memset(s->resp, 0, s->resp_size);
	s->resp->id = s->req->id;
	if (fault) {
		print_fault(type, config, pid);
		/*
		 * The "guest" is dead: kill the tree first so that nobody in
		 * it observes a return from this call, then fail the call
		 * with EFAULT in case the target survived somehow (e.g. it
		 * left the process group).
		 */
		kill(-s->child, SIGKILL);
		if (getpgid(pid) != s->child)
			kill(pid, SIGKILL);
		s->resp->val = 0;
		s->resp->error = -EFAULT;
		s->resp->flags = 0;
	} else {
		s->resp->val = 0;
		s->resp->error = 0;
		s->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	}
	rc = notify_errno(seccomp_notify_respond(s->nfd, s->resp));
	if (rc < 0 && rc != -EINTR && rc != -ENOENT && !fault)
		return rc;
	return fault ? 1 : 0;
}

int supervise(const struct world *w, int logfd, int nfd, pid_t child, int sfd)
{
	struct supervisor s = {
		.w = w,
		.logfd = logfd,
		.nfd = nfd,
		.child = child,
	};
	struct seccomp_notif_sizes sizes;
	int pidfd, rc, status, code = EXIT_SETUP;

	pidfd = (int)syscall(SYS_pidfd_open, child, 0); /* -1: use SIGCHLD */

	rc = seccomp_notify_alloc(&s.req, &s.resp);
	if (rc < 0) {
		fprintf(stderr, "faultsim: seccomp_notify_alloc: %s\n", strerror(-rc));
		kill(-child, SIGKILL);
		reap(child, &status);
		goto out;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0) {
		s.req_size = sizes.seccomp_notif;
		s.resp_size = sizes.seccomp_notif_resp;
	} else {
		s.req_size = sizeof(*s.req);
		s.resp_size = sizeof(*s.resp);
	}

	for (;;) {
		struct pollfd pfd[3] = {
			{.fd = s.nfd, .events = POLLIN},
			{.fd = sfd, .events = POLLIN},
			{.fd = pidfd, .events = POLLIN},
		};
		bool check_child = false;

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			fprintf(stderr, "faultsim: poll: %s\n", strerror(-rc));
			kill(-child, SIGKILL);
			reap(child, &status);
			goto out;
		}

		if (pfd[0].revents & POLLIN) {
			rc = handle_notification(&s);
			if (rc == 1) {
				reap(child, &status);
				code = EXIT_FAULT;
				goto out;
			}
			if (rc < 0) {
				fprintf(stderr, "faultsim: seccomp notify: %s\n", strerror(-rc));
				kill(-child, SIGKILL);
				reap(child, &status);
				goto out;
			}
		} else if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* no task uses the filter any more */
			s.nfd = -1;
		}

		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					check_child = true;
				else
					kill(child, (int)si.ssi_signo);
			}
		}
		if (pfd[2].revents & POLLIN)
			check_child = true;

		if (check_child) {
			pid_t r = waitpid(child, &status, WNOHANG);

			if (r == child) {
				code = exit_code_of(status);
				goto out;
			}
		}
	}

out:
	seccomp_notify_free(s.req, s.resp);
	if (pidfd >= 0)
		close(pidfd);
	return code;
}

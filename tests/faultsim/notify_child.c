// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The notify mode's child side: in its own process group, it installs the
 * seccomp filter that makes every perf_event_open of the tree a user
 * notification, sends the listener to the parent (SCM_RIGHTS), and
 * execs CMD.
 */
#include "faultsim.h"
#include "notify.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <seccomp.h>

static int send_setup(int sock, enum stage st, int err, int fd)
{
	struct setup_msg m = {.stage = (int32_t)st, .err = err};
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(m) ? 0 : -errno;
}

/* install the filter and hand the listener to the parent; returns 0/-errno */
static int child_setup(int sock)
{
	scmp_filter_ctx ctx = NULL;
	enum stage st = ST_PRCTL;
	int rc, fd = -1;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		rc = -errno;
		goto out;
	}

	st = ST_INIT;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* raw kernel errno from seccomp_load instead of -ECANCELED */
	(void)seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
#if defined(__x86_64__)
	/* cover 32-bit and x32 binaries in the tree too (best effort) */
	(void)seccomp_arch_add(ctx, SCMP_ARCH_X86);
	(void)seccomp_arch_add(ctx, SCMP_ARCH_X32);
#endif

	st = ST_RULE;
	rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(perf_event_open), 0);
	if (rc < 0)
		goto out;

	st = ST_LOAD;
	errno = 0;
	rc = seccomp_load(ctx);
	/* libseccomp 2.5 folds unknown errnos (ENOSYS, EBUSY...) into EFAULT */
	if ((rc == -EFAULT || rc == -ECANCELED) && errno != 0)
		rc = -errno;
	if (rc < 0)
		goto out;

	st = ST_NOTIFY_FD;
	rc = seccomp_notify_fd(ctx);
	if (rc < 0)
		goto out;
	fd = rc;
	rc = 0;
	st = ST_OK;

out:
	if (send_setup(sock, st, rc, rc == 0 ? fd : -1) < 0 && rc == 0)
		rc = -EPIPE;
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return rc;
}

void child_main(int sock, char **argv, const sigset_t *oldmask, const struct sigaction oldact[2])
{
	int err;

	/* own process group so a simulated fault can kill the whole tree */
	setpgid(0, 0);
	sigaction(SIGINT, &oldact[0], NULL);
	sigaction(SIGTERM, &oldact[1], NULL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);

	if (child_setup(sock) < 0)
		_exit(EXIT_SETUP);
	close(sock);

	execvp(argv[0], argv);
	err = errno;
	fprintf(stderr, "faultsim: exec %s: %s\n", argv[0], strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The seccomp user-notification supervisor (see supervise.h).
 *
 * The child installs the filter and hands us the listener over an AF_UNIX
 * socket (SCM_RIGHTS), as libseccomp's tests/51-live-user_notification.c
 * does, then execs the command; the filter is inherited by every thread,
 * child and exec of it.  We stay the parent: the command's status is ours,
 * and SIGINT/SIGTERM/SIGHUP/SIGQUIT are forwarded to it.
 *
 * We are a child subreaper (PR_SET_CHILD_SUBREAPER): orphans of the tree
 * (background jobs, daemons) are reparented to us, we reap them, and we
 * keep serving until the last process of the tree is gone, not only the
 * command; as pid 1 of a pid namespace every orphan is ours anyway.  The
 * command's status is still what we return.  SIGPIPE is ignored here (a
 * closed stderr must not kill the supervisor: the tree's perf_event_open
 * would then fail with ENOSYS); the command gets the disposition we had.
 *
 * The filter sends us every perf_event_open of the tree, in all three x86
 * ABIs, and each is judged from the attr we read ourselves.  Nothing the
 * caller passes decides: every process of the tree can read the run's
 * cookie (auto mode, the preload in the tree too), so a call that carries
 * it in its sixth argument (r9; the call takes five) is judged like any
 * other.  The cookie only spares a second line for a call we let through
 * that the preload in the process has already reported (mode audit): a
 * call we deny is said here, cookie or not (issue 38, item 6: a static
 * program passing the cookie reached the fault).
 *
 * Races we treat as benign, as crun and LXC do: receive returning EINTR
 * (a Go target's SIGURG preemption interrupts its pending call, which the
 * kernel then restarts) and ENOENT (the caller died, or was interrupted,
 * before we answered).  After reading the attr we check the notification
 * is still valid (SECCOMP_IOCTL_NOTIF_ID_VALID), so the memory we read
 * belonged to the caller.  If we die, the kernel answers every pending and
 * later perf_event_open of the tree with ENOSYS: fail closed, never the fault.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attr.h"
#include "decide.h"
#include "denial.h"
#include "once.h"
#include "supervise.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

/* Kernel 6.6+: wake the supervisor on the caller's CPU and the caller on
 * ours, so each round trip is a switch, not two cross-CPU wakeups
 * (include/uapi/linux/seccomp.h; newer than the headers we may build with). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

struct sup {
	const struct sup_options *o;
	int nfd;
	pid_t child;
	unsigned long notified, denied; /* for the PMUGUARD_LOG=debug line */
	uint64_t cookie;                /* the run's, exported to the tree; 0: none */
	struct sup_audit a;             /* every call, for --audit */
	/* Each distinct (process, encoding) is logged once, as the shim does
	 * in each process (probe/guard/once.c): one table for the tree. */
	_Atomic uint64_t logged[4096];
	struct guard_once once;
};

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* What the command must find as we found it (exec keeps SIG_IGN). */
struct child_setup {
	sigset_t mask;
	struct sigaction pipe, chld;
	uint64_t cookie; /* exported for the preload; 0: none */
};

/* ---- the child: filter, hand over the listener, exec ---------------------- */

static int send_fd(int sock, int fd, int err)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	memset(cbuf, 0, sizeof(cbuf));
	struct iovec iov = {&err, sizeof(err)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static scmp_filter_ctx filter_ctx(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	/* libseccomp sets no_new_privs itself by default; root does not need
	 * it to load a filter, and with it setuid steps in the tree (su,
	 * sudo) would lose their privileges.  (On every part: seccomp_merge
	 * wants equal attributes.) */
	if (ctx && geteuid() == 0)
		seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
#ifdef PMUG_HAVE_SCMP_WAITKILL
	/* Go's SIGURG would otherwise interrupt a pending notification over
	 * and over; where kernel and libseccomp offer it, wait killably.
	 * (Set on every part: seccomp_merge wants equal attributes.) */
	if (ctx)
		seccomp_attr_set(ctx, SCMP_FLTATR_CTL_WAITKILL, 1);
#endif
	return ctx;
}

/* Every perf_event_open, native, 32-bit and x32, with no condition on
 * its arguments: what the caller passes must not decide whether we judge
 * it.  Returns the listener fd, or -errno. */
static int install_filter(void)
{
	/* Root keeps setuid programs working in the tree (they stay under the
	 * filter); everyone else needs no_new_privs to load a filter. */
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	scmp_filter_ctx ctx = filter_ctx();
	if (!ctx)
		return -ENOMEM;
	int rc = 0;
#if defined(__x86_64__)
	/* 32-bit and x32 callers reach perf_event_open through other numbers;
	 * a rule added after them is added for each. */
	rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
	if (rc == 0)
		rc = seccomp_arch_add(ctx, SCMP_ARCH_X32);
#endif
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(perf_event_open), 0);
	if (rc == 0) {
		rc = seccomp_load(ctx);
		/* libseccomp 2.5 maps unknown kernel errors to -EFAULT/-ECANCELED;
		 * errno still holds the kernel's (EBUSY: another listener). */
		if (rc < 0 && (rc == -ECANCELED || rc == -EFAULT) && errno)
			rc = -errno;
	}
	if (rc == 0)
		rc = seccomp_notify_fd(ctx);
	seccomp_release(ctx);
	return rc;
}

static void __attribute__((noreturn))
child_main(int sock, char *const argv[], const struct child_setup *cs)
{
	/* The forwarded signals were only blocked (signalfd), never handled:
	 * their dispositions are still the caller's (SIG_IGN under nohup
	 * stays SIG_IGN); the mask is put back below. */
	sigaction(SIGPIPE, &cs->pipe, NULL);
	sigaction(SIGCHLD, &cs->chld, NULL);
	sigprocmask(SIG_SETMASK, &cs->mask, NULL);
	/* Not a subreaper itself (the attribute is not inherited by fork,
	 * but say so): orphans go to the supervisor. */
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	int err = 0;
	if (cs->cookie) {
		char hex[17];
		snprintf(hex, sizeof(hex), "%016" PRIx64, cs->cookie);
		if (setenv(SUP_COOKIE_ENV, hex, 1) < 0)
			err = errno;
	} else if (unsetenv(SUP_COOKIE_ENV) < 0) {
		err = errno;
	}
	int fd = err ? -err : install_filter();
	if (send_fd(sock, fd, fd < 0 ? -fd : 0) < 0 || fd < 0)
		_exit(127);
	close(fd);
	close(sock);
	execvp(argv[0], argv);
	int e = errno;
	fprintf(stderr, "pmuguard: run: cannot execute %s: %s\n", argv[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

static int recv_fd(int sock, int *err)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {err, sizeof(*err)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	*err = 0;
	ssize_t n;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		*err = n < 0 ? errno : EPIPE;
		return -1;
	}
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	if (*err || !c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* ---- the supervisor ------------------------------------------------------- */

/* The audit's row of a call whose attr was read: counted, and judged with
 * the audit's view whatever the policy answers; NULL once the table is
 * full. */
static struct sup_audit_row *audit_count(struct sup *s, const struct guard_attr *attr)
{
	struct sup_audit_row *r = NULL;
	for (unsigned i = 0; i < s->a.n_rows && !r; i++)
		if (s->a.rows[i].type == attr->type && s->a.rows[i].config == attr->config)
			r = &s->a.rows[i];
	if (!r && s->a.n_rows == SUP_AUDIT_MAX) {
		s->a.rows_full = true;
		return NULL;
	}
	if (!r) {
		r = &s->a.rows[s->a.n_rows++];
		*r = (struct sup_audit_row){.type = attr->type, .config = attr->config};
	}
	r->calls++;
	r->hit = guard_attr_sized(attr->size)
			 ? guard_classify_any(&s->o->view, attr->type, attr->config)
			 : GUARD_HIT_NONE;
	return r;
}

/* The notification names the calling thread; a line is owed once per
 * process.  The thread's process and its real uid, from /proc/TID/status
 * (any thread id works; Name, Umask, State, Tgid, ... Uid: within the
 * first few hundred bytes).  The uid is (uid_t)-1 where it cannot be read. */
static pid_t tgid_of(pid_t tid, uid_t *uid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	const char *u = strstr(buf, "\nUid:");
	*uid = u ? (uid_t)strtoul(u + 5, NULL, 10) : (uid_t)-1;
	const char *t = strstr(buf, "\nTgid:");
	long v = t ? strtol(t + 6, NULL, 10) : 0;
	return v > 0 ? (pid_t)v : tid;
}

static void prog_name(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	long n = probe_read_small(path, buf, size);
	if (n <= 0)
		snprintf(buf, size, "pid");
}

/* A call the preload in the process answered itself, told to us
 * (decide.h): a row of the audit, no line (the preload said it), and the
 * kernel's own EBADF for an answer. */
static void handle_report(struct sup *s, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	struct guard_attr attr;
	int read_rc = guard_read_attr((pid_t)req->pid, req->data.args[0], &attr);
	if (seccomp_notify_id_valid(s->nfd, req->id) != 0)
		return;
	struct sup_audit_row *row = read_rc == 0 ? audit_count(s, &attr) : NULL;
	if (row) {
		row->in_process = true;
	} else if (read_rc != 0) {
		s->a.refused++;
		s->a.refused_err = -read_rc;
	}
	memset(resp, 0, sizeof(*resp));
	resp->id = req->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (seccomp_notify_respond(s->nfd, resp) < 0 && errno != ENOENT && errno != EINTR)
		fprintf(stderr, "pmuguard: supervisor: respond: %s\n", strerror(errno));
}

/* A line is owed for d, unless the call carries the run's cookie and is let
 * through: the preload in the process judged it so and said it already
 * (mode audit).  The cookie never spares a denial's line: that call was
 * not judged so in the process, whoever passed it. */
static bool worth_a_line(const struct sup *s, const struct seccomp_notif *req,
			 const struct guard_decision *d)
{
	if (!d->report || s->o->log == GUARD_LOG_QUIET || s->o->dest == GUARD_DEST_QUIET)
		return false;
	return d->deny || !s->cookie || req->data.args[5] != s->cookie;
}

static void handle(struct sup *s, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	if ((int)req->data.args[3] == (int)GUARD_REPORT_GROUP_FD &&
	    req->data.args[5] == GUARD_REPORT_MARK) {
		handle_report(s, req, resp);
		return;
	}
	struct guard_attr attr;
	int read_rc = guard_read_attr((pid_t)req->pid, req->data.args[0], &attr);
	/* The caller may have died and its pid been reused while we read. */
	if (seccomp_notify_id_valid(s->nfd, req->id) != 0)
		return;

	const struct guard_policy *p = &s->o->policy;
	struct guard_decision d;
	guard_decide(p, read_rc, &attr, &d);
	memset(resp, 0, sizeof(*resp));
	resp->id = req->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (read_rc == -EFAULT) {
		s->a.unreadable++; /* the kernel will answer EFAULT */
	} else if (read_rc < 0) {
		s->a.refused++;
		s->a.refused_denied += d.deny;
		s->a.refused_err = -read_rc;
	} else if (read_rc == 0) {
		struct sup_audit_row *row = audit_count(s, &attr);
		if (row)
			row->denied = d.deny;
	}
	s->notified++;
	s->denied += d.deny;
	if (worth_a_line(s, req, &d)) {
		uid_t uid;
		pid_t tgid = tgid_of((pid_t)req->pid, &uid);
		if (guard_once_first(&s->once, (uint64_t)tgid, &d)) {
			char comm[32];
			prog_name((pid_t)req->pid, comm, sizeof(comm));
			struct logline l;
			guard_format_denial(&l, p, &d, comm, tgid);
			struct log_report r;
			guard_report_fields(&r, &d, GUARD_LAYER_SECCOMP, comm, tgid, uid);
			if (s->o->dest == GUARD_DEST_SYSLOG)
				log_system(&l, sizeof("pmuguard: ") - 1, &r);
			else
				log_emit(&l, STDERR_FILENO);
		}
	}
	if (d.deny) {
		resp->flags = 0;
		resp->error = -ENOENT;
	}
	if (seccomp_notify_respond(s->nfd, resp) < 0 && errno != ENOENT && errno != EINTR)
		fprintf(stderr, "pmuguard: supervisor: respond: %s\n", strerror(errno));
}

static int exit_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

/* A random non-zero cookie, or 0 when there is no randomness to be had
 * (a line the preload said may then be said twice: never a weaker guard). */
static uint64_t make_cookie(void)
{
	uint64_t c = 0;
	if (getrandom(&c, sizeof(c), GRND_NONBLOCK) != (ssize_t)sizeof(c)) {
		c = 0;
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
			c = 0;
		if (fd >= 0)
			close(fd);
	}
	return c;
}

/* Forward a signal sent to us: to the command while it lives, then to the
 * processes of the tree that were reparented to us (our own children stay
 * ours until we reap them, so their pids cannot be reused meanwhile). */
static void forward(const struct sup *s, bool child_alive, int sig)
{
	if (child_alive) {
		kill(s->child, sig);
		return;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	long pid;
	while (fscanf(f, "%ld", &pid) == 1)
		if (pid > 0)
			kill((pid_t)pid, sig);
	fclose(f);
}

/* Reap every child that has exited; the command's status goes to *status.
 * Returns true when no child is left. */
static bool reap(const struct sup *s, bool *child_alive, int *status)
{
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG | __WALL);
		if (p == 0)
			return false;
		if (p < 0)
			return errno == ECHILD;
		if (p == s->child) {
			*status = st;
			*child_alive = false;
		}
	}
}

/* Restore what sup_run changed of this process's signal handling. */
static void signals_restore(const struct child_setup *cs)
{
	sigaction(SIGPIPE, &cs->pipe, NULL);
	sigaction(SIGCHLD, &cs->chld, NULL);
	sigprocmask(SIG_SETMASK, &cs->mask, NULL);
}

/* The command's child, forked with the forwarded signals and SIGCHLD
 * blocked (block: for the signalfd), SIGPIPE ignored and SIGCHLD at its
 * default; sv[1] goes to it, for its listener.  The child's pid, or
 * -errno with everything as it was. */
static pid_t start_child(char *const argv[], int sv[2], struct child_setup *cs, sigset_t *block)
{
	/* Orphans of the tree come to us, not to init (or a container's pid 1
	 * that never reaps): we serve them and reap them. */
	if (getpid() != 1 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return -errno;
	sigemptyset(block);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(block, forwarded[i]);
	sigaddset(block, SIGCHLD);
	sigprocmask(SIG_BLOCK, block, &cs->mask);
	/* A write to a closed stderr must not kill us (EPIPE instead); and
	 * SIGCHLD must not be ignored, or the kernel reaps our children for
	 * us and the command's status is lost. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, dfl = {.sa_handler = SIG_DFL};
	sigaction(SIGPIPE, &ign, &cs->pipe);
	sigaction(SIGCHLD, &dfl, &cs->chld);

	pid_t child = fork();
	if (child < 0) {
		int e = errno;
		signals_restore(cs);
		return -e;
	}
	if (child == 0) {
		close(sv[0]);
		child_main(sv[1], argv, cs);
	}
	return child;
}

/* The listener and the signalfd, served until the last process of the
 * tree is gone: every task that holds the filter is our descendant, and
 * every descendant that is orphaned becomes our child; no child left
 * means no task can call us.  The command's wait status into *status,
 * and whether it is still alive into *child_alive. */
static void serve(struct sup *s, int sfd, struct seccomp_notif *req,
		  struct seccomp_notif_resp *resp, bool *child_alive, int *status)
{
	bool listening = true;
	for (;;) {
		struct pollfd pf[2] = {{listening ? s->nfd : -1, POLLIN, 0}, {sfd, POLLIN, 0}};
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* We can no longer serve: close the listener, so that the
			 * tree's perf_event_open fails with ENOSYS instead of
			 * waiting on us, and wait for the tree as promised. */
			fprintf(stderr,
				"pmuguard: supervisor: poll: %s; perf_event_open now fails "
				"with ENOSYS in this tree\n",
				strerror(errno));
			close(s->nfd);
			s->nfd = -1;
			int st;
			pid_t p;
			while ((p = waitpid(-1, &st, __WALL)) > 0 || (p < 0 && errno == EINTR))
				if (p == s->child) {
					*status = st;
					*child_alive = false;
				}
			return;
		}
		if (pf[0].revents & POLLIN) {
			memset(req, 0, sizeof(*req));
			if (seccomp_notify_receive(s->nfd, req) == 0)
				handle(s, req, resp);
			else if (errno != EINTR && errno != ENOENT)
				fprintf(stderr, "pmuguard: supervisor: receive: %s\n",
					strerror(errno));
		} else if (pf[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			listening = false; /* no task holds the filter any more */
		}
		if (pf[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGCHLD) {
				if (reap(s, child_alive, status))
					return;
			} else if (si.ssi_code != SI_KERNEL ||
				   (si.ssi_signo == SIGHUP && getsid(0) == getpid())) {
				/* A terminal's signal reached the child's process
				 * group already (SI_KERNEL); forward only what was
				 * sent to us.  But a hangup goes to the session
				 * leader alone: where that is us (ssh -t host
				 * pmuguard run ...), the command must get it too. */
				forward(s, *child_alive, (int)si.ssi_signo);
			}
		}
	}
}

int sup_run(char *const argv[], const struct sup_options *o, struct sup_audit *audit)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	struct child_setup cs = {.cookie = o->preload_cookie ? make_cookie() : 0};
	sigset_t block;
	pid_t child = start_child(argv, sv, &cs, &block);
	if (child < 0) {
		close(sv[0]);
		close(sv[1]);
		return child;
	}
	close(sv[1]);

	struct sup *s = calloc(1, sizeof(*s));
	int err = 0, rc = 0, status = 0;
	int sfd = -1;
	bool child_alive = true;
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	if (!s) {
		err = ENOMEM;
		goto fail;
	}
	s->o = o;
	s->child = child;
	s->cookie = cs.cookie;
	s->once = (struct guard_once)GUARD_ONCE_INIT(s->logged);
	s->nfd = recv_fd(sv[0], &err);
	if (s->nfd < 0) {
		fprintf(stderr, "pmuguard: run: cannot install the seccomp filter: %s%s\n",
			strerror(err ? err : EPROTO),
			err == EBUSY ? " (another seccomp listener already watches this process "
				       "tree, e.g. a container runtime)"
				     : "");
		goto fail;
	}
	ioctl(s->nfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	sfd = signalfd(-1, &block, SFD_CLOEXEC);
	if (sfd < 0 || seccomp_notify_alloc(&req, &resp) != 0) {
		err = errno ? errno : ENOMEM;
		fprintf(stderr, "pmuguard: run: supervisor setup: %s\n", strerror(err));
		goto fail;
	}
	serve(s, sfd, req, resp, &child_alive, &status);
	if (audit) {
		*audit = s->a;
		audit->complete = true;
	}
	if (o->log == GUARD_LOG_DEBUG)
		fprintf(stderr,
			"pmuguard: supervisor: %lu perf_event_open calls notified, %lu denied\n",
			s->notified, s->denied);
	rc = child_alive ? -EPROTO : exit_status(status);
	goto out;
fail:
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	rc = -(err ? err : EPROTO);
out:
	seccomp_notify_free(req, resp);
	if (sfd >= 0)
		close(sfd);
	if (s && s->nfd >= 0)
		close(s->nfd);
	close(sv[0]);
	free(s);
	signals_restore(&cs);
	return rc;
}

/*
 * faultsim - simulate a guest kernel that crashes on fixed-counter-3 events
 *
 * Usage: faultsim [--via notify|ptrace] --log FILE [--core-types LIST]
 *                 [--healthy] -- CMD [ARGS...]
 *
 * Runs CMD under a seccomp filter that turns every perf_event_open(2) of
 * the whole process tree into a user notification.  The supervisor (this
 * process) reads the struct perf_event_attr from the target before the
 * kernel sees it, logs it, and either lets the call continue to the real
 * kernel or -- in a "faulty world" -- treats it as a guest kernel crash:
 * the process tree is killed and faultsim exits with status 86.
 *
 * A call "faults" when attr.type is one of the core PMU types (LIST, plus
 * PERF_TYPE_RAW) and the event|umask part of attr.config encodes
 * TOPDOWN.SLOTS (event 0x00, umask 0x04) or a topdown metric pseudo event
 * (event 0x00, umask 0x80..0x87).  Those are the encodings the Intel PMU
 * driver puts on fixed counter 3 / PERF_METRICS, which is what takes down
 * AWS m6i guests.
 *
 * --via ptrace (x86_64 only) observes the tree with ptrace instead, for
 * targets that install their own seccomp listener (only one listener is
 * allowed per filter chain).  It tells calls that reach the kernel from
 * calls a seccomp supervisor denied by marking the flags argument; see
 * the "--via ptrace" section below and README.md.
 *
 * Exit status: the child's exit code (128+signal if killed), 86 on a
 * simulated fault, 2 on usage errors, 77 when seccomp user notification
 * (or, with --via ptrace, ptrace) is unavailable (test "skip"), 1 on
 * other setup errors.
 *
 * Build: gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 faultsim.c -lseccomp
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#define EXIT_FAULT	86
#define EXIT_USAGE	2
#define EXIT_SKIP	77
#define EXIT_SETUP	1

#define PERF_TYPE_RAW_NR	4u	/* PERF_TYPE_RAW */
#define ATTR_READ_SIZE		64	/* PERF_ATTR_SIZE_VER0 */
#define ATTR_MIN_SIZE		16	/* type, size, config */
#define MAX_CORE_TYPES		64

/* setup stages reported by the child */
enum stage {
	ST_OK = 0,
	ST_PRCTL,
	ST_INIT,
	ST_RULE,
	ST_LOAD,
	ST_NOTIFY_FD,
};

static const char *const stage_name[] = {
	[ST_OK] = "ok",
	[ST_PRCTL] = "prctl(PR_SET_NO_NEW_PRIVS)",
	[ST_INIT] = "seccomp_init",
	[ST_RULE] = "seccomp_rule_add(SCMP_ACT_NOTIFY, perf_event_open)",
	[ST_LOAD] = "seccomp_load",
	[ST_NOTIFY_FD] = "seccomp_notify_fd",
};

struct setup_msg {
	int32_t stage;	/* enum stage */
	int32_t err;	/* negative errno, 0 on success (fd attached) */
};

struct world {
	uint32_t core_types[MAX_CORE_TYPES];
	unsigned int n_core_types;
	bool healthy;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: faultsim [--via notify|ptrace] --log FILE "
		"[--core-types LIST] [--healthy] -- CMD [ARGS...]\n"
		"  LIST: comma-separated perf PMU type numbers treated as "
		"Intel core PMUs (default 4)\n"
		"  --via: seccomp user notification (default) or ptrace "
		"(x86_64; works under another seccomp supervisor)\n");
}

/* ------------------------------------------------------------------ */
/* small helpers                                                      */

static int parse_u32(const char *s, const char *end, uint32_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_core_types(const char *list, struct world *w)
{
	const char *p = list;

	w->n_core_types = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		uint32_t v;
		int rc = parse_u32(p, end, &v);

		if (rc < 0)
			return rc;
		if (w->n_core_types >= MAX_CORE_TYPES)
			return -E2BIG;
		w->core_types[w->n_core_types++] = v;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

static bool is_core_type(const struct world *w, uint32_t type)
{
	if (type == PERF_TYPE_RAW_NR)
		return true;
	for (unsigned int i = 0; i < w->n_core_types; i++)
		if (w->core_types[i] == type)
			return true;
	return false;
}

/* TOPDOWN.SLOTS (0x0400) or topdown metric pseudo events (0x8000..0x8700) */
static bool is_fixed3_encoding(uint64_t config)
{
	unsigned int event = (unsigned int)(config & 0xff);
	unsigned int umask = (unsigned int)((config >> 8) & 0xff);

	if (event != 0x00)
		return false;
	return umask == 0x04 || (umask >= 0x80 && umask <= 0x87);
}

/*
 * The kernel looks a group descriptor up before it allocates the event: a
 * descriptor the target does not have is EBADF, and nothing reaches a
 * counter (the shim asks the kernel to read an attr that way).
 */
static bool group_fd_missing(pid_t pid, uint64_t group_fd)
{
	int fd = (int)group_fd;
	char path[64];

	if (fd == -1)
		return false;
	if (fd < 0)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	return faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
	       errno == ENOENT;
}

/* write a whole buffer; one write() in practice for regular files */
static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void log_call(int logfd, pid_t pid, bool readable, uint32_t type,
		     uint64_t config, bool fault, bool nogroup)
{
	char line[160];
	int n;

	if (readable)
		n = snprintf(line, sizeof(line),
			     "call pid=%d type=%" PRIu32 " config=0x%" PRIx64
			     " verdict=%s\n", (int)pid, type, config,
			     fault ? "FAULT" : nogroup ? "ebadf" : "continue");
	else
		n = snprintf(line, sizeof(line),
			     "call pid=%d unreadable verdict=continue\n",
			     (int)pid);
	if (n > 0 && (size_t)n < sizeof(line))
		write_all(logfd, line, (size_t)n);
}

static void print_fault(uint32_t type, uint64_t config, pid_t pid)
{
	char msg[200];
	int len = snprintf(msg, sizeof(msg),
		"faultsim: simulated guest kernel fault: perf_event_open "
		"type=%u config=0x%llx reached fixed counter 3 (pid %d)\n",
		(unsigned int)type, (unsigned long long)config, (int)pid);

	if (len > 0 && (size_t)len < sizeof(msg))
		write_all(STDERR_FILENO, msg, (size_t)len);
}

/*
 * Read up to ATTR_READ_SIZE bytes at addr in the target.  Returns the
 * number of bytes read (>= ATTR_MIN_SIZE) or a negative errno.
 */
static ssize_t read_target(pid_t pid, uint64_t addr, unsigned char *buf)
{
	struct iovec local = { .iov_base = buf, .iov_len = ATTR_READ_SIZE };
	struct iovec remote = {
		.iov_base = (void *)(uintptr_t)addr,
		.iov_len = ATTR_READ_SIZE,
	};
	char path[64];
	ssize_t n;
	int fd;

	if (addr == 0)
		return -EFAULT;

	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n >= ATTR_MIN_SIZE)
		return n;

	/* fall back to /proc/PID/mem (e.g. process_vm_readv unavailable) */
	if (addr > (uint64_t)INT64_MAX)
		return -EFAULT;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = pread(fd, buf, ATTR_READ_SIZE, (off_t)addr);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	else if (n < ATTR_MIN_SIZE)
		n = -EFAULT;
	close(fd);
	return n;
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* libseccomp 2.5 maps ioctl failures to -ECANCELED and leaves errno set */
static int notify_errno(int rc)
{
	if (rc == -ECANCELED && errno != 0)
		return -errno;
	return rc;
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_SETUP;
}

static pid_t reap(pid_t pid, int *status)
{
	pid_t r;

	do {
		r = waitpid(pid, status, 0);
	} while (r < 0 && errno == EINTR);
	return r;
}

/* ------------------------------------------------------------------ */
/* child side                                                         */

static int send_setup(int sock, enum stage st, int err, int fd)
{
	struct setup_msg m = { .stage = (int32_t)st, .err = err };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
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
	rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY,
			      SCMP_SYS(perf_event_open), 0);
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

static void child_main(int sock, char **argv, const sigset_t *oldmask,
		       const struct sigaction oldact[2])
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

/* ------------------------------------------------------------------ */
/* parent side                                                        */

/* returns the listener fd, or -1 after reporting; *exit_code set */
static int recv_listener(int sock, int *exit_code)
{
	struct setup_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
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
				   ? stage_name[m.stage] : "setup";

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
		return 0;	/* benign: signal, or target died meanwhile */
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
		(void)get_u32(attr + 4);	/* attr.size, not needed */
		config = get_u64(attr + 8);
		nogroup = group_fd_missing(pid, s->req->data.args[3]);
		fault = !s->w->healthy && is_core_type(s->w, type) &&
			is_fixed3_encoding(config) && !nogroup;
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

static int supervise(const struct world *w, int logfd, int nfd, pid_t child,
		     int sfd)
{
	struct supervisor s = {
		.w = w, .logfd = logfd, .nfd = nfd, .child = child,
	};
	struct seccomp_notif_sizes sizes;
	int pidfd, rc, status, code = EXIT_SETUP;

	pidfd = (int)syscall(SYS_pidfd_open, child, 0);	/* -1: use SIGCHLD */

	rc = seccomp_notify_alloc(&s.req, &s.resp);
	if (rc < 0) {
		fprintf(stderr, "faultsim: seccomp_notify_alloc: %s\n",
			strerror(-rc));
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
			{ .fd = s.nfd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
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
				fprintf(stderr, "faultsim: seccomp notify: "
					"%s\n", strerror(-rc));
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

/* ------------------------------------------------------------------ */
/* --via ptrace                                                       */

/*
 * A seccomp supervisor in the target (pmuguard run --mode seccomp) rules
 * out the notify mode: only one listener per filter chain.  Instead, the
 * whole tree is traced with PTRACE_SYSCALL.  Syscall-entry stops come
 * before seccomp, so at entry we cannot know whether a filter or a
 * supervisor will let the call through.  Hence the marker:
 *
 *   entry  perf_event_open with valid flags: set an unknown flag bit in
 *          the flags register.  The kernel rejects unknown flags with
 *          EINVAL before it even reads the attr.
 *   exit   EINVAL: the call got past seccomp into the kernel body.  A
 *          fault encoding is a simulated guest crash (exit 86); any other
 *          attr is restarted with the original registers (ip -= 2) so it
 *          runs for real, and the restarted call is let through unmarked.
 *          Anything else (ENOENT from a supervisor, ENOSYS from a dead
 *          listener, ...): the kernel body never ran -> verdict=denied.
 */

#if defined(__x86_64__)

#include <sys/ptrace.h>
#include <sys/user.h>

#define FS_PTRACE_GET_SYSCALL_INFO	0x420e
#define FS_SYSCALL_INFO_ENTRY		1
#define FS_SYSCALL_INFO_EXIT		2
#define FS_AUDIT_ARCH_X86_64		0xc000003eu
#define FS_AUDIT_ARCH_I386		0x40000003u
#define NR_PERF_EVENT_OPEN_64		298u
#define NR_PERF_EVENT_OPEN_32		336u
#define FS_PERF_FLAG_ALL		0xfull
#define MARK_FLAG			(1ull << 20)

#define TRACE_OPTIONS	(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | \
			 PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
			 PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

/* struct ptrace_syscall_info (linux/ptrace.h), without the header clash */
struct fs_syscall_info {
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t stack_pointer;
	union {
		struct {
			uint64_t nr;
			uint64_t args[6];
		} entry;
		struct {
			int64_t rval;
			uint8_t is_error;
		} exit;
		struct {
			uint64_t nr;
			uint64_t args[6];
			uint32_t ret_data;
		} seccomp;
	};
};

enum call_state {
	CALL_NONE,	/* no perf_event_open in flight */
	CALL_MARKED,	/* entered with the marker flag set */
	CALL_PASS,	/* the restarted call: let it through untouched */
};

/*
 * A restarted call that has not come back yet.  A signal handler can run
 * between the restart and the re-entry (and make perf_event_open calls of
 * its own, which may be restarted in turn), so there is a small stack of
 * them, recognised by ip, sp and arguments.
 */
#define MAX_RESTARTS	8

struct restart {
	uint64_t ip, sp;
	uint64_t args[6];
};

struct tracee {
	pid_t tid;
	enum call_state call;
	uint32_t type;
	uint64_t config;
	struct user_regs_struct entry;	/* registers at entry, unmarked */
	unsigned int n_restarts;
	struct restart restarts[MAX_RESTARTS];
};

struct tracer {
	const struct world *w;
	int logfd;
	pid_t child;
	struct tracee *t;
	size_t n, cap;
	bool warned_compat;
};

static volatile sig_atomic_t trace_child;

static void forward_signal(int sig)
{
	int saved = errno;

	if (trace_child > 0)
		kill((pid_t)trace_child, sig);
	errno = saved;
}

static long xptrace(int req, pid_t tid, uintptr_t addr, uintptr_t data)
{
	return ptrace((enum __ptrace_request)req, tid, (void *)addr,
		      (void *)data);
}

static struct tracee *tracee_find(struct tracer *p, pid_t tid)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->t[i].tid == tid)
			return &p->t[i];
	return NULL;
}

/* find or add; NULL only when out of memory */
static struct tracee *tracee_get(struct tracer *p, pid_t tid)
{
	struct tracee *t = tracee_find(p, tid);

	if (t != NULL)
		return t;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct tracee *nt = realloc(p->t, cap * sizeof(*nt));

		if (nt == NULL)
			return NULL;
		p->t = nt;
		p->cap = cap;
	}
	t = &p->t[p->n++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static void tracee_del(struct tracer *p, pid_t tid)
{
	struct tracee *t = tracee_find(p, tid);

	if (t != NULL)
		*t = p->t[--p->n];
}

static void log_verdict(int logfd, pid_t pid, uint32_t type, uint64_t config,
			const char *verdict)
{
	char line[160];
	int n = snprintf(line, sizeof(line),
			 "call pid=%d type=%" PRIu32 " config=0x%" PRIx64
			 " verdict=%s\n", (int)pid, type, config, verdict);

	if (n > 0 && (size_t)n < sizeof(line))
		write_all(logfd, line, (size_t)n);
}

/*
 * Wait until pid (already sent SIGKILL) has exited; returns its exit code.
 * Waits for every tracee: a traced thread that died stays a zombie until
 * its tracer reaps it, and a thread group leader is only reported once
 * all its threads are gone.
 */
static int reap_exit(pid_t pid)
{
	int status;

	for (;;) {
		pid_t r = waitpid(-1, &status, __WALL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return EXIT_SETUP;
		}
		if (r == pid && (WIFEXITED(status) || WIFSIGNALED(status)))
			return exit_code_of(status);
	}
}

/* SIGKILL everything traced, then reap the direct child */
static void kill_traced_tree(struct tracer *p)
{
	kill(-p->child, SIGKILL);
	for (size_t i = 0; i < p->n; i++)
		kill(p->t[i].tid, SIGKILL);	/* whole thread group */
	kill(p->child, SIGKILL);
	(void)reap_exit(p->child);
}

static int trace_fatal(struct tracer *p, const char *what, int err)
{
	fprintf(stderr, "faultsim: %s: %s\n", what, strerror(err));
	kill_traced_tree(p);
	return EXIT_SETUP;
}

/* is the tracee gone?  (killed from outside between stop and request) */
static bool gone(int err)
{
	return err == ESRCH;
}

static void push_restart(struct tracee *t)
{
	struct restart *r;

	if (t->n_restarts == MAX_RESTARTS) {	/* drop the oldest */
		memmove(&t->restarts[0], &t->restarts[1],
			(MAX_RESTARTS - 1) * sizeof(t->restarts[0]));
		t->n_restarts--;
	}
	r = &t->restarts[t->n_restarts++];
	r->ip = t->entry.rip;
	r->sp = t->entry.rsp;
	r->args[0] = t->entry.rdi;
	r->args[1] = t->entry.rsi;
	r->args[2] = t->entry.rdx;
	r->args[3] = t->entry.r10;
	r->args[4] = t->entry.r8;
	r->args[5] = t->entry.r9;
}

/* is this entry one of our restarted calls coming back?  (pops it) */
static bool pop_restart(struct tracee *t, const struct fs_syscall_info *si)
{
	for (unsigned int i = t->n_restarts; i-- > 0;) {
		const struct restart *r = &t->restarts[i];

		if (r->ip != si->instruction_pointer ||
		    r->sp != si->stack_pointer ||
		    memcmp(r->args, si->entry.args, sizeof(r->args)) != 0)
			continue;
		memmove(&t->restarts[i], &t->restarts[i + 1],
			(t->n_restarts - i - 1) * sizeof(t->restarts[0]));
		t->n_restarts--;
		return true;
	}
	return false;
}

/* returns 0 to resume the tracee, else faultsim's exit code */
static int on_entry(struct tracer *p, struct tracee *t,
		    const struct fs_syscall_info *si)
{
	unsigned char attr[ATTR_READ_SIZE];
	struct user_regs_struct regs;
	uint64_t flags;
	ssize_t n;

	if (si->arch == FS_AUDIT_ARCH_I386 &&
	    si->entry.nr == NR_PERF_EVENT_OPEN_32) {
		if (!p->warned_compat)
			fprintf(stderr, "faultsim: warning: 32-bit "
				"perf_event_open (pid %d) is not inspected in "
				"ptrace mode\n", (int)t->tid);
		p->warned_compat = true;
		return 0;
	}
	if (si->arch != FS_AUDIT_ARCH_X86_64 ||
	    si->entry.nr != NR_PERF_EVENT_OPEN_64)
		return 0;

	/* the call we restarted at its exit stop comes back: let it run */
	if (pop_restart(t, si)) {
		t->call = CALL_PASS;
		return 0;
	}
	t->call = CALL_NONE;

	n = read_target(t->tid, si->entry.args[0], attr);
	if (n < ATTR_MIN_SIZE) {
		log_call(p->logfd, t->tid, false, 0, 0, false, false);
		return 0;
	}
	t->type = get_u32(attr + 0);
	t->config = get_u64(attr + 8);

	flags = si->entry.args[4];
	if (flags & ~FS_PERF_FLAG_ALL) {
		/* the kernel rejects these flags before it looks at the attr */
		log_call(p->logfd, t->tid, true, t->type, t->config, false, false);
		return 0;
	}

	if (xptrace(PTRACE_GETREGS, t->tid, 0, (uintptr_t)&regs) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_GETREGS", errno);
	if (regs.r8 != flags || regs.orig_rax != NR_PERF_EVENT_OPEN_64) {
		fprintf(stderr, "faultsim: registers of pid %d do not match "
			"its perf_event_open entry (r8=0x%llx flags=0x%llx)\n",
			(int)t->tid, (unsigned long long)regs.r8,
			(unsigned long long)flags);
		kill_traced_tree(p);
		return EXIT_SETUP;
	}
	t->entry = regs;
	regs.r8 = flags | MARK_FLAG;
	if (xptrace(PTRACE_SETREGS, t->tid, 0, (uintptr_t)&regs) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_SETREGS", errno);
	t->call = CALL_MARKED;
	return 0;
}

static int on_exit_stop(struct tracer *p, struct tracee *t,
			const struct fs_syscall_info *si)
{
	enum call_state call = t->call;
	struct user_regs_struct regs;
	int64_t rval = si->exit.rval;

	t->call = CALL_NONE;
	if (call != CALL_MARKED)
		return 0;	/* nothing in flight, or the restarted call */

	if (xptrace(PTRACE_GETREGS, t->tid, 0, (uintptr_t)&regs) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_GETREGS", errno);
	regs.r8 = t->entry.r8;	/* the original flags */

	if (rval == -EINVAL) {
		/* past seccomp, in the kernel body: the guest sees the attr */
		const struct world *w = p->w;
		bool nogroup = group_fd_missing(t->tid, t->entry.r10);
		bool fault = !w->healthy && is_core_type(w, t->type) &&
			     is_fixed3_encoding(t->config) && !nogroup;
		long word;

		if (fault) {
			log_verdict(p->logfd, t->tid, t->type, t->config,
				    "FAULT");
			print_fault(t->type, t->config, t->tid);
			kill_traced_tree(p);
			return EXIT_FAULT;
		}
		log_verdict(p->logfd, t->tid, t->type, t->config,
			    nogroup ? "ebadf" : "continue");

		/* restart: back over the 2-byte `syscall`, original args */
		errno = 0;
		word = xptrace(PTRACE_PEEKTEXT, t->tid,
			       (uintptr_t)(regs.rip - 2), 0);
		if (errno != 0)
			return gone(errno) ? 0 :
			       trace_fatal(p, "PTRACE_PEEKTEXT", errno);
		if (regs.rip != t->entry.rip ||
		    ((unsigned long)word & 0xffff) != 0x050f) {
			fprintf(stderr, "faultsim: cannot restart "
				"perf_event_open of pid %d: no syscall "
				"instruction before rip 0x%llx (bytes %02lx %02lx)\n",
				(int)t->tid, (unsigned long long)regs.rip,
				(unsigned long)word & 0xff,
				((unsigned long)word >> 8) & 0xff);
			kill_traced_tree(p);
			return EXIT_SETUP;
		}
		regs.rip -= 2;
		regs.rax = t->entry.orig_rax;
		regs.rdi = t->entry.rdi;
		regs.rsi = t->entry.rsi;
		regs.rdx = t->entry.rdx;
		regs.r10 = t->entry.r10;
		regs.r8 = t->entry.r8;
		regs.r9 = t->entry.r9;
	} else {
		char verdict[48];

		snprintf(verdict, sizeof(verdict), "denied errno=%lld",
			 rval < 0 ? (long long)-rval : 0LL);
		log_verdict(p->logfd, t->tid, t->type, t->config, verdict);
	}
	if (xptrace(PTRACE_SETREGS, t->tid, 0, (uintptr_t)&regs) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_SETREGS", errno);
	if (rval == -EINVAL)
		push_restart(t);
	return 0;
}

static int on_syscall_stop(struct tracer *p, struct tracee *t)
{
	struct fs_syscall_info si;

	memset(&si, 0, sizeof(si));
	if (xptrace(FS_PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(si),
		    (uintptr_t)&si) < 0)
		return gone(errno) ? 0 :
		       trace_fatal(p, "PTRACE_GET_SYSCALL_INFO", errno);
	if (si.op == FS_SYSCALL_INFO_ENTRY)
		return on_entry(p, t, &si);
	if (si.op == FS_SYSCALL_INFO_EXIT)
		return on_exit_stop(p, t, &si);
	return 0;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

static int trace_loop(struct tracer *p)
{
	for (;;) {
		unsigned long msg;
		struct tracee *t;
		int status, sig, event, rc;
		uintptr_t inject = 0;
		pid_t tid = waitpid(-1, &status, __WALL);

		if (tid < 0) {
			if (errno == EINTR)
				continue;
			return trace_fatal(p, "waitpid", errno);
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			tracee_del(p, tid);
			if (tid == p->child)
				return exit_code_of(status);
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;

		t = tracee_get(p, tid);	/* new tasks may stop before their
					   creation event is seen */
		if (t == NULL)
			return trace_fatal(p, "tracee table", ENOMEM);
		sig = WSTOPSIG(status);
		event = (int)((unsigned int)status >> 16);

		if (sig == (SIGTRAP | 0x80)) {
			rc = on_syscall_stop(p, t);
			if (rc != 0)
				return rc;
		} else if (event == PTRACE_EVENT_STOP) {
			if (is_stop_signal(sig)) {
				/* group-stop: stay stopped until SIGCONT */
				xptrace(PTRACE_LISTEN, tid, 0, 0);
				continue;
			}
		} else if (event == PTRACE_EVENT_EXEC) {
			/* a non-leader exec takes over the leader's tid */
			if (xptrace(PTRACE_GETEVENTMSG, tid, 0,
				    (uintptr_t)&msg) == 0 && (pid_t)msg != tid)
				tracee_del(p, (pid_t)msg);
			t = tracee_find(p, tid);
			if (t != NULL) {
				t->call = CALL_NONE;
				t->n_restarts = 0;
			}
		} else if (event == PTRACE_EVENT_CLONE ||
			   event == PTRACE_EVENT_FORK ||
			   event == PTRACE_EVENT_VFORK) {
			if (xptrace(PTRACE_GETEVENTMSG, tid, 0,
				    (uintptr_t)&msg) == 0 &&
			    tracee_get(p, (pid_t)msg) == NULL)
				return trace_fatal(p, "tracee table", ENOMEM);
		} else if (event == 0) {
			inject = (uintptr_t)sig;	/* signal-delivery-stop */
		}
		xptrace(PTRACE_SYSCALL, tid, 0, inject);
	}
}

static int run_ptrace(const struct world *w, const char *log_path,
		      char **cmd)
{
	struct tracer p = { .w = w };
	struct sigaction sa, oldact[3];
	sigset_t mask, oldmask;
	struct fs_syscall_info si;
	int pfd[2] = { -1, -1 };
	int code = EXIT_SETUP, status, err;
	pid_t child;
	char go = 'g';

	p.logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		       0644);
	if (p.logfd < 0) {
		fprintf(stderr, "faultsim: %s: %s\n", log_path,
			strerror(errno));
		return EXIT_SETUP;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		fprintf(stderr, "faultsim: pipe: %s\n", strerror(errno));
		close(p.logfd);
		return EXIT_SETUP;
	}

	/* forward SIGINT/SIGTERM to the child; wait for tracees ourselves */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oldact[0]);
	sigaction(SIGTERM, &sa, &oldact[1]);
	sa.sa_handler = SIG_DFL;	/* SIG_IGN would auto-reap the child */
	sa.sa_flags = 0;
	sigaction(SIGCHLD, &sa, &oldact[2]);

	fflush(NULL);
	child = fork();
	if (child < 0) {
		fprintf(stderr, "faultsim: fork: %s\n", strerror(errno));
		goto out;
	}
	if (child == 0) {
		ssize_t r;

		close(pfd[1]);
		close(p.logfd);
		setpgid(0, 0);
		sigaction(SIGINT, &oldact[0], NULL);
		sigaction(SIGTERM, &oldact[1], NULL);
		sigaction(SIGCHLD, &oldact[2], NULL);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		/* wait until the parent has seized us */
		do {
			r = read(pfd[0], &go, 1);
		} while (r < 0 && errno == EINTR);
		if (r != 1)
			_exit(EXIT_SETUP);
		close(pfd[0]);
		execvp(cmd[0], cmd);
		err = errno;
		fprintf(stderr, "faultsim: exec %s: %s\n", cmd[0],
			strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	setpgid(child, child);
	close(pfd[0]);
	pfd[0] = -1;
	p.child = child;

	if (xptrace(PTRACE_SEIZE, child, 0, TRACE_OPTIONS) < 0) {
		err = errno;
		fprintf(stderr, "faultsim: ptrace(PTRACE_SEIZE): %s\n",
			strerror(err));
		if (err == EPERM || err == EACCES || err == ENOSYS)
			code = EXIT_SKIP;
		kill(child, SIGKILL);
		reap_exit(child);
		goto out;
	}
	if (xptrace(PTRACE_INTERRUPT, child, 0, 0) < 0) {
		code = trace_fatal(&p, "ptrace(PTRACE_INTERRUPT)", errno);
		goto out;
	}
	for (;;) {
		pid_t r = waitpid(child, &status, __WALL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			code = trace_fatal(&p, "waitpid", errno);
			goto out;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			code = exit_code_of(status);
			goto out;
		}
		if (WIFSTOPPED(status) &&
		    ((unsigned int)status >> 16) == PTRACE_EVENT_STOP)
			break;
		/* a signal got there first; the interrupt is still pending */
		if (WIFSTOPPED(status))
			xptrace(PTRACE_CONT, child, 0,
				((unsigned int)status >> 16) ? 0 :
				(uintptr_t)WSTOPSIG(status));
	}
	memset(&si, 0, sizeof(si));
	if (xptrace(FS_PTRACE_GET_SYSCALL_INFO, child, sizeof(si),
		    (uintptr_t)&si) < 0) {
		err = errno;
		code = trace_fatal(&p, "ptrace(PTRACE_GET_SYSCALL_INFO)", err);
		if (err == EIO || err == EINVAL)
			code = EXIT_SKIP;	/* kernel older than 5.3 */
		goto out;
	}
	if (xptrace(PTRACE_SYSCALL, child, 0, 0) < 0) {
		code = trace_fatal(&p, "ptrace(PTRACE_SYSCALL)", errno);
		goto out;
	}
	if (tracee_get(&p, child) == NULL) {
		code = trace_fatal(&p, "tracee table", ENOMEM);
		goto out;
	}

	trace_child = child;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (write(pfd[1], &go, 1) != 1) {
		code = trace_fatal(&p, "write", errno);
		goto out;
	}
	close(pfd[1]);
	pfd[1] = -1;

	code = trace_loop(&p);

out:
	trace_child = 0;
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	free(p.t);
	close(p.logfd);
	return code;
}

#else /* !__x86_64__ */

static int run_ptrace(const struct world *w, const char *log_path,
		      char **cmd)
{
	(void)w;
	(void)log_path;
	(void)cmd;
	fprintf(stderr, "faultsim: --via ptrace is only implemented on "
		"x86_64\n");
	return EXIT_SKIP;
}

#endif /* __x86_64__ */

int main(int argc, char **argv)
{
	struct world w = { .n_core_types = 1, .core_types = { 4 } };
	const char *log_path = NULL;
	bool via_ptrace = false;
	struct sigaction dfl, oldact[2];
	sigset_t mask, oldmask;
	int sv[2] = { -1, -1 };
	int logfd = -1, sfd = -1, nfd = -1;
	int i, code = EXIT_SETUP, status;
	unsigned int api;
	pid_t child;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--log") == 0 && i + 1 < argc) {
			log_path = argv[++i];
		} else if (strncmp(a, "--log=", 6) == 0) {
			log_path = a + 6;
		} else if (strcmp(a, "--core-types") == 0 && i + 1 < argc) {
			if (parse_core_types(argv[++i], &w) < 0) {
				fprintf(stderr, "faultsim: bad --core-types "
					"'%s'\n", argv[i]);
				usage();
				return EXIT_USAGE;
			}
		} else if (strncmp(a, "--core-types=", 13) == 0) {
			if (parse_core_types(a + 13, &w) < 0) {
				fprintf(stderr, "faultsim: bad --core-types "
					"'%s'\n", a + 13);
				usage();
				return EXIT_USAGE;
			}
		} else if ((strcmp(a, "--via") == 0 && i + 1 < argc) ||
			   strncmp(a, "--via=", 6) == 0) {
			const char *v = a[5] == '=' ? a + 6 : argv[++i];

			if (strcmp(v, "ptrace") == 0) {
				via_ptrace = true;
			} else if (strcmp(v, "notify") == 0) {
				via_ptrace = false;
			} else {
				fprintf(stderr, "faultsim: bad --via '%s'\n",
					v);
				usage();
				return EXIT_USAGE;
			}
		} else if (strcmp(a, "--healthy") == 0) {
			w.healthy = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage();
			return 0;
		} else if (a[0] == '-') {
			fprintf(stderr, "faultsim: unknown or incomplete "
				"option '%s'\n", a);
			usage();
			return EXIT_USAGE;
		} else {
			break;	/* CMD without "--" */
		}
	}
	if (log_path == NULL || log_path[0] == '\0' || i >= argc) {
		usage();
		return EXIT_USAGE;
	}

	if (via_ptrace)
		return run_ptrace(&w, log_path, argv + i);

	api = seccomp_api_get();
	if (api < 5) {
		fprintf(stderr, "faultsim: seccomp user notification "
			"unavailable (libseccomp API level %u < 5): %s\n",
			api, strerror(ENOSYS));
		return EXIT_SKIP;
	}

	logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		     0644);
	if (logfd < 0) {
		fprintf(stderr, "faultsim: %s: %s\n", log_path,
			strerror(errno));
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
		child_main(sv[1], argv + i, &oldmask, oldact);
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

	code = supervise(&w, logfd, nfd, child, sfd);

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

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --via ptrace: the tracer.  The child is seized before it execs CMD, every
 * task of the tree is traced (PTRACE_O_TRACECLONE, FORK, VFORK) and kept in
 * a table, and each syscall stop goes to ptrace_call.c (which describes the
 * marker).  x86_64 only; elsewhere the mode skips (exit 77).
 */
#include "faultsim.h"

#include <errno.h>
#include <stdio.h>

#if defined(__x86_64__)

#include "ptrace.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRACE_OPTIONS                                                                              \
	(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |  \
	 PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

static volatile sig_atomic_t trace_child;

static void forward_signal(int sig)
{
	int saved = errno;

	if (trace_child > 0)
		kill((pid_t)trace_child, sig);
	errno = saved;
}

long xptrace(int req, pid_t tid, uintptr_t addr, uintptr_t data)
{
	return ptrace((enum __ptrace_request)req, tid, (void *)addr, (void *)data);
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
void kill_traced_tree(struct tracer *p)
{
	kill(-p->child, SIGKILL);
	for (size_t i = 0; i < p->n; i++)
		kill(p->t[i].tid, SIGKILL); /* whole thread group */
	kill(p->child, SIGKILL);
	(void)reap_exit(p->child);
}

int trace_fatal(struct tracer *p, const char *what, int err)
{
	fprintf(stderr, "faultsim: %s: %s\n", what, strerror(err));
	kill_traced_tree(p);
	return EXIT_SETUP;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
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

		t = tracee_get(p, tid); /* new tasks may stop before their
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
			if (xptrace(PTRACE_GETEVENTMSG, tid, 0, (uintptr_t)&msg) == 0 &&
			    (pid_t)msg != tid)
				tracee_del(p, (pid_t)msg);
			t = tracee_find(p, tid);
			if (t != NULL) {
				t->call = CALL_NONE;
				t->n_restarts = 0;
			}
		} else if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
			   event == PTRACE_EVENT_VFORK) {
			if (xptrace(PTRACE_GETEVENTMSG, tid, 0, (uintptr_t)&msg) == 0 &&
			    tracee_get(p, (pid_t)msg) == NULL)
				return trace_fatal(p, "tracee table", ENOMEM);
		} else if (event == 0) {
			inject = (uintptr_t)sig; /* signal-delivery-stop */
		}
		xptrace(PTRACE_SYSCALL, tid, 0, inject);
	}
}

int run_ptrace(const struct world *w, const char *log_path, char **cmd)
{
	struct tracer p = {.w = w};
	struct sigaction sa, oldact[3];
	sigset_t mask, oldmask;
	struct fs_syscall_info si;
	int pfd[2] = {-1, -1};
	int code = EXIT_SETUP, status, err;
	pid_t child;
	char go = 'g';

	p.logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (p.logfd < 0) {
		fprintf(stderr, "faultsim: %s: %s\n", log_path, strerror(errno));
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
	sa.sa_handler = SIG_DFL; /* SIG_IGN would auto-reap the child */
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
		fprintf(stderr, "faultsim: exec %s: %s\n", cmd[0], strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	setpgid(child, child);
	close(pfd[0]);
	pfd[0] = -1;
	p.child = child;

	if (xptrace(PTRACE_SEIZE, child, 0, TRACE_OPTIONS) < 0) {
		err = errno;
		fprintf(stderr, "faultsim: ptrace(PTRACE_SEIZE): %s\n", strerror(err));
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
		if (WIFSTOPPED(status) && ((unsigned int)status >> 16) == PTRACE_EVENT_STOP)
			break;
		/* a signal got there first; the interrupt is still pending */
		if (WIFSTOPPED(status))
			xptrace(PTRACE_CONT, child, 0,
				((unsigned int)status >> 16) ? 0 : (uintptr_t)WSTOPSIG(status));
	}
	memset(&si, 0, sizeof(si));
	if (xptrace(FS_PTRACE_GET_SYSCALL_INFO, child, sizeof(si), (uintptr_t)&si) < 0) {
		err = errno;
		code = trace_fatal(&p, "ptrace(PTRACE_GET_SYSCALL_INFO)", err);
		if (err == EIO || err == EINVAL)
			code = EXIT_SKIP; /* kernel older than 5.3 */
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

int run_ptrace(const struct world *w, const char *log_path, char **cmd)
{
	(void)w;
	(void)log_path;
	(void)cmd;
	fprintf(stderr, "faultsim: --via ptrace is only implemented on x86_64\n");
	return EXIT_SKIP;
}

#endif /* __x86_64__ */

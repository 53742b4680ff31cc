// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A start as the kernel's tables will hold it, and what it costs.
 *
 *   startas [-u UID] [-0] [-c] [-e NAME=VALUE]... -- PROG [ARG...]
 *
 *   -e ENTRY  one environment entry; the environment is exactly these, in
 *             order, duplicates kept (env(1) and every shell keep one of
 *             each name, and glibc's GLIBC_TUNABLES handling differs with
 *             two); without -e, startas's own environment is passed on
 *   -0        an empty argv (argc 0: the kernel before 5.18 passes it on,
 *             later ones add one empty string)
 *   -u UID    setgroups(0), setresgid(UID), setresuid(UID) before the
 *             exec: a setuid, setgid or file-capability PROG then starts
 *             secure (AT_SECURE 1), as run by that user
 *   -c        count the user-space instructions PROG runs, from its execve
 *             to its exit, by single-stepping it (ptrace), with address
 *             space randomization off, so the count repeats; printed as
 *             "instructions N" on stderr.  Native, where perf's
 *             instructions:u has no counter (a VM without a PMU) and
 *             callgrind runs the shim down another path
 *   -r FILE:LO-HI  with -c (x86_64), also the instructions run at file
 *             offsets [LO, HI) (hex) of the mapped file whose path ends in
 *             FILE: a function's share ("range N")
 *
 * Exit: PROG's status, 128 + the signal that ended it, or 125 where the
 * start itself failed (the reason on stderr).
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct start {
	char *const *argv; /* PROG's argv, or an empty one */
	char *prog;
	char **envp;
	long uid; /* -1: as we are */
	int count;
};

/* -r: a range of a mapped file's offsets, found in the child's maps. */
struct range {
	const char *file;
	unsigned long lo, hi;     /* file offsets */
	unsigned long base;       /* where offset 0 is mapped; 0 until found */
	unsigned long long steps; /* steps inside */
};

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "startas: %s: %s\n", what, strerror(errno));
	_exit(125);
}

/* In the child: become UID, then PROG. */
static _Noreturn void become(const struct start *s)
{
	if (s->uid >= 0 &&
	    (setgroups(0, NULL) || setresgid((gid_t)s->uid, (gid_t)s->uid, (gid_t)s->uid) ||
	     setresuid((uid_t)s->uid, (uid_t)s->uid, (uid_t)s->uid)))
		die("dropping to the user");
	if (s->count) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			die("PTRACE_TRACEME");
		personality(ADDR_NO_RANDOMIZE);
	}
	execve(s->prog, s->argv, s->envp);
	die(s->prog);
}

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Where FILE's offset 0 is mapped in pid, or 0. */
static unsigned long mapped_base(pid_t pid, const char *file)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	unsigned long base = 0;
	size_t k = strlen(file);
	while (f && !base && fgets(line, sizeof(line), f)) {
		unsigned long start, off;
		size_t n = strcspn(line, "\n");
		line[n] = 0;
		if (n >= k && !strcmp(line + n - k, file) &&
		    sscanf(line, "%lx-%*x %*s %lx", &start, &off) == 2 && off == 0)
			base = start;
	}
	if (f)
		fclose(f);
	return base;
}

/* One step's program counter against the range (x86_64 only). */
static void in_range(pid_t pid, struct range *r, unsigned long long step)
{
#if defined(__x86_64__)
	/* The file is mapped by the loader, some thousands of steps in. */
	if (!r->base && step % 512 == 0)
		r->base = mapped_base(pid, r->file);
	struct user_regs_struct regs;
	if (r->base && !ptrace(PTRACE_GETREGS, pid, NULL, &regs) && regs.rip >= r->base + r->lo &&
	    regs.rip < r->base + r->hi)
		r->steps++;
#else
	(void)pid, (void)r, (void)step;
#endif
}

/* Single-step the child from its exec's SIGTRAP to its end. */
static int count_steps(pid_t pid, struct range *r)
{
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return fprintf(stderr, "startas: the start did not stop at its exec\n"), 125;
	unsigned long long n = 0;
	int sig = 0;
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig))
			die("PTRACE_SINGLESTEP");
		if (waitpid(pid, &st, 0) != pid)
			die("waitpid");
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		/* A trap is a step; any other stop is a signal to deliver. */
		sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);
		n += sig == 0;
		if (r->file && sig == 0)
			in_range(pid, r, n);
	}
	fprintf(stderr, "instructions %llu\n", n);
	if (r->file)
		fprintf(stderr, "range %llu\n", r->steps);
	return status_of(st);
}

int main(int argc, char **argv)
{
	static char *no_argv[] = {NULL};
	struct start s = {.uid = -1};
	struct range r = {0};
	char **envp = calloc((size_t)argc + 1, sizeof(*envp));
	int n_env = 0, empty_argv = 0, opt;
	if (!envp)
		die("calloc");
	while ((opt = getopt(argc, argv, "+u:0ce:r:")) != -1) {
		if (opt == 'u')
			s.uid = strtol(optarg, NULL, 10);
		else if (opt == '0')
			empty_argv = 1;
		else if (opt == 'c')
			s.count = 1;
		else if (opt == 'e')
			envp[n_env++] = optarg;
		else if (opt == 'r') {
			char *colon = strrchr(optarg, ':');
			if (!colon || sscanf(colon + 1, "%lx-%lx", &r.lo, &r.hi) != 2)
				return fprintf(stderr, "startas: -r FILE:LO-HI\n"), 125;
			*colon = 0;
			r.file = optarg;
		} else
			return 125;
	}
	if (optind >= argc)
		return fprintf(stderr,
			       "usage: startas [-u UID] [-0] [-c [-r FILE:LO-HI]] [-e ENTRY]... -- PROG [ARG...]\n"),
		       125;
	s.prog = argv[optind];
	s.argv = empty_argv ? no_argv : &argv[optind];
	s.envp = n_env ? envp : environ;
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		become(&s);
	if (s.count)
		return count_steps(pid, &r);
	int st;
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	return status_of(st);
}

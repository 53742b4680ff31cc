// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostile timing through the real shim.  This binary runs with
 * libpmuguard.so in LD_PRELOAD and PMUGUARD_SNAPSHOT pointing at the m6i
 * fixture (see meson.build), so the shim's verdict is "hazard" while the
 * kernel below is this machine's.  Calls pass flags the kernel rejects
 * first (EINVAL, checked before the attr is read), so ENOENT can only come
 * from the shim, and EINVAL means "reached the kernel".
 *
 * Criterion runs every test in a fresh process, so each test's first
 * perf_event_open is that process's first: the shim probes then.
 */
#include <criterion/criterion.h>

#include "attr.h"
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define SPAWNERS 16
#define PROBERS 16
#define ROUNDS 24 /* fork, vfork and posix_spawn each, per spawner */


/* 0 when 4:0x400 gets the shim's ENOENT and 4:0x1a4 the kernel's EINVAL;
 * else a bit per wrong answer (usable as an exit status). */
static int check_answers(void)
{
	int bad = 0;
	struct perf_event_attr slots = attr_of(PERF_TYPE_RAW, 0x400);
	struct perf_event_attr slots_p = attr_of(PERF_TYPE_RAW, 0x1a4);
	errno = 0;
	if (syscall(SYS_perf_event_open, &slots, 0, -1, -1, BAD_FLAGS) != -1 || errno != ENOENT)
		bad |= 1;
	errno = 0;
	if (syscall(SYS_perf_event_open, &slots_p, 0, -1, -1, BAD_FLAGS) != -1 || errno != EINVAL)
		bad |= 2;
	return bad;
}

static void require_shim(void)
{
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, "syscall");
	cr_assert(sym && dladdr(sym, &info) && strstr(info.dli_fname, "libpmuguard.so"),
		  "the shim is not preloaded: syscall comes from %s",
		  sym && dladdr(sym, &info) ? info.dli_fname : "nowhere");
}

static pthread_barrier_t start;
static atomic_int wrong_parent, wrong_child, child_died, fork_failed, spawn_failed,
	vfork_bad;

static void *prober(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	/* The first call of the process, in 16 threads at once: each probes. */
	for (int i = 0; i < 200; i++)
		if (check_answers())
			atomic_fetch_add(&wrong_parent, 1);
	return NULL;
}

static void reap(pid_t p, bool fork_child)
{
	int st;
	pid_t r;
	do
		r = waitpid(p, &st, 0);
	while (r < 0 && errno == EINTR);
	if (r != p || !WIFEXITED(st))
		atomic_fetch_add(&child_died, 1);
	else if (WEXITSTATUS(st) != 0)
		atomic_fetch_add(fork_child ? &wrong_child : &vfork_bad, 1);
}

static void *spawner(void *arg)
{
	(void)arg;
	char *const argv[] = {"true", NULL};
	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS; i++) {
		/* fork: the child answers for itself (it may have been forked
		 * mid-probe, with the parent's state half published). */
		pid_t p = fork();
		if (p == 0)
			_exit(check_answers());
		if (p < 0)
			atomic_fetch_add(&fork_failed, 1);
		else
			reap(p, true);

		p = vfork();
		if (p == 0)
			_exit(0);
		if (p < 0)
			atomic_fetch_add(&fork_failed, 1);
		else
			reap(p, false);

		int rc = posix_spawn(&p, "/bin/true", NULL, NULL, argv, environ);
		if (rc != 0)
			atomic_fetch_add(&spawn_failed, 1);
		else
			reap(p, false);
	}
	return NULL;
}

Test(hostile, fork_vfork_spawn_while_the_first_probe_runs, .timeout = 60)
{
	require_shim();
	pthread_t t[SPAWNERS + PROBERS];
	cr_assert_eq(pthread_barrier_init(&start, NULL, SPAWNERS + PROBERS), 0);
	for (int i = 0; i < SPAWNERS + PROBERS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, i < SPAWNERS ? spawner : prober, NULL), 0);
	for (int i = 0; i < SPAWNERS + PROBERS; i++)
		pthread_join(t[i], NULL);

	cr_expect_eq(atomic_load(&fork_failed), 0, "fork/vfork failed %d times",
		     atomic_load(&fork_failed));
	cr_expect_eq(atomic_load(&spawn_failed), 0, "posix_spawn failed %d times",
		     atomic_load(&spawn_failed));
	cr_expect_eq(atomic_load(&child_died), 0, "%d children died by a signal",
		     atomic_load(&child_died));
	cr_expect_eq(atomic_load(&vfork_bad), 0, "%d vfork/posix_spawn children exited non-zero",
		     atomic_load(&vfork_bad));
	cr_expect_eq(atomic_load(&wrong_child), 0, "%d fork children got wrong answers",
		     atomic_load(&wrong_child));
	cr_expect_eq(atomic_load(&wrong_parent), 0, "%d wrong answers in the parent",
		     atomic_load(&wrong_parent));

	/* Afterwards: the answers still hold, and errno survives calls that
	 * do not fail. */
	cr_expect_eq(check_answers(), 0);
	errno = 4242;
	cr_expect_eq(syscall(SYS_getpid), getpid());
	cr_expect_eq(errno, 4242, "getpid through the shim changed errno to %d", errno);
	errno = 4242;
	struct perf_event_attr sw = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	long fd = syscall(SYS_perf_event_open, &sw, 0, -1, -1, 0);
	if (fd >= 0) {
		cr_expect_eq(errno, 4242, "a perf_event_open that succeeded changed errno to %d",
			     errno);
		close((int)fd);
	} else {
		cr_log_warn("software event not permitted here (errno %d): errno check skipped",
			    errno);
	}
}

/* The README's claim: safe in a vfork child.  The child's first call probes
 * on the parent's stack, with the parent suspended. */
Test(hostile, first_call_in_a_vfork_child, .timeout = 60)
{
	require_shim();
	pid_t p = vfork();
	if (p == 0)
		_exit(check_answers());
	cr_assert_gt(p, 0);
	int st;
	cr_assert_eq(waitpid(p, &st, 0), p);
	cr_assert(WIFEXITED(st), "the vfork child died (status 0x%x)", st);
	cr_expect_eq(WEXITSTATUS(st), 0, "wrong answers in the vfork child (bits 0x%x)",
		     WEXITSTATUS(st));
	cr_expect_eq(check_answers(), 0, "wrong answers in the parent after the vfork child");
}

typedef long (*syscall7_fn)(long, long, long, long, long, long, long, long);

Test(hostile, seventh_argument_and_function_pointers, .timeout = 60)
{
	require_shim();
	struct perf_event_attr slots = attr_of(PERF_TYPE_RAW, 0x400);
	struct perf_event_attr slots_p = attr_of(PERF_TYPE_RAW, 0x1a4);

	/* A 7th argument (the syscall's 6th): on the stack on x86-64. */
	errno = 0;
	cr_expect_eq(syscall(SYS_perf_event_open, &slots, 0, -1, -1, BAD_FLAGS, 0xdeadbeefL), -1);
	cr_expect_eq(errno, ENOENT, "with a 7th argument: errno %d", errno);
	errno = 0;
	cr_expect_eq(syscall(SYS_perf_event_open, &slots_p, 0, -1, -1, BAD_FLAGS, 0xdeadbeefL),
		     -1);
	cr_expect_eq(errno, EINVAL, "with a 7th argument: errno %d", errno);

	/* Through a function pointer the compiler cannot see through. */
	long (*volatile fp)(long, ...) = syscall;
	errno = 0;
	cr_expect_eq(fp(SYS_perf_event_open, &slots, 0, -1, -1, BAD_FLAGS, 7L, 8L), -1);
	cr_expect_eq(errno, ENOENT, "through a pointer: errno %d", errno);
	errno = 0;
	cr_expect_eq(fp(SYS_perf_event_open, &slots_p, 0, -1, -1, BAD_FLAGS), -1);
	cr_expect_eq(errno, EINVAL, "through a pointer: errno %d", errno);

	/* Through dlsym, called with a non-variadic prototype (what a
	 * language runtime's FFI does), with stack arguments beyond the 6th. */
	syscall7_fn ffi = (syscall7_fn)dlsym(RTLD_DEFAULT, "syscall");
	cr_assert_not_null(ffi);
	errno = 0;
	cr_expect_eq(ffi(SYS_perf_event_open, (long)&slots, 0, -1, -1, (long)BAD_FLAGS, 1, 2), -1);
	cr_expect_eq(errno, ENOENT, "through dlsym: errno %d", errno);
	errno = 0;
	cr_expect_eq(ffi(SYS_perf_event_open, (long)&slots_p, 0, -1, -1, (long)BAD_FLAGS, 1, 2),
		     -1);
	cr_expect_eq(errno, EINVAL, "through dlsym: errno %d", errno);

	/* Other syscalls with stack arguments: untouched, errno kept. */
	errno = 4242;
	cr_expect_eq(fp(SYS_getpid, 1L, 2L, 3L, 4L, 5L, 6L, 7L), getpid());
	cr_expect_eq(errno, 4242);
	errno = 4242;
	cr_expect_eq(ffi(SYS_getppid, 1, 2, 3, 4, 5, 6, 7), getppid());
	cr_expect_eq(errno, 4242);
}

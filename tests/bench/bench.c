// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Micro-benchmarks for scripts/bench.  Each prints one number: nanoseconds
 * per operation (median of several timed batches inside this process).
 * Whether the shim is in front is decided by the caller (LD_PRELOAD, or
 * `pmuguard run`), so guarded and unguarded runs execute the same code.
 *
 *   bench getppid N | futex N | peo-denied N | peo-allowed N
 *   bench probe-live N | probe-snapshot DIR N | klog-live N
 *   bench spawn N CMD [ARGS]      (microseconds per fork+exec+wait of CMD)
 *   bench pair-getppid N | pair-futex N
 *       both sides in one process, batches alternating: the syscall() the
 *       program resolves (the shim's, when preloaded) against glibc's own,
 *       looked up by version in libc.so.6; prints "guarded unguarded".
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

#define BATCHES 9
#define BAD_FLAGS (1ul << 20) /* the kernel answers EINVAL at once */

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static struct perf_event_attr attr;
static int futex_word;
static const char *snap;

static void op(const char *what)
{
	if (!strcmp(what, "getppid"))
		syscall(SYS_getppid);
	else if (!strcmp(what, "futex"))
		syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	else if (!strncmp(what, "peo", 3))
		syscall(SYS_perf_event_open, &attr, 0, -1, -1, BAD_FLAGS);
	else if (!strcmp(what, "klog-live")) {
		struct probe_facts f;
		probe_klog_gather(&f, NULL, false, NULL);
	} else {
		struct probe_facts f;
		struct probe_verdict v;
		probe_gather_verdict(&f, snap);
		probe_evaluate(&f, &v);
	}
}

typedef long (*syscall_fn)(long, ...);

static double pair_batch(syscall_fn f, bool futex, long n)
{
	double t0 = now_ns();
	if (futex)
		for (long i = 0; i < n; i++)
			f(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	else
		for (long i = 0; i < n; i++)
			f(SYS_getppid);
	return (now_ns() - t0) / (double)n;
}

static int pair_bench(bool futex, long n)
{
	syscall_fn guarded = (syscall_fn)dlsym(RTLD_DEFAULT, "syscall");
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	syscall_fn plain = libc ? (syscall_fn)dlvsym(libc, "syscall", "GLIBC_2.2.5") : NULL;
	if (!guarded || !plain)
		return 1;
	double g[BATCHES * 3], u[BATCHES * 3];
	for (int b = 0; b < BATCHES * 3; b++) {
		u[b] = pair_batch(plain, futex, n);
		g[b] = pair_batch(guarded, futex, n);
	}
	qsort(g, BATCHES * 3, sizeof(g[0]), cmp);
	qsort(u, BATCHES * 3, sizeof(u[0]), cmp);
	printf("%.3f %.3f\n", g[BATCHES * 3 / 2], u[BATCHES * 3 / 2]);
	return 0;
}

extern char **environ;

/* Median microseconds per spawn+wait of argv, over BATCHES batches of n. */
static int spawn_bench(long n, char **argv)
{
	double t[BATCHES];
	for (int b = 0; b < BATCHES; b++) {
		double t0 = now_ns();
		for (long i = 0; i < n; i++) {
			pid_t pid;
			int st;
			posix_spawn_file_actions_t fa;
			posix_spawn_file_actions_init(&fa);
			posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
			posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
			if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0)
				return 1;
			posix_spawn_file_actions_destroy(&fa);
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
				return 1;
		}
		t[b] = (now_ns() - t0) / (double)n / 1e3;
	}
	qsort(t, BATCHES, sizeof(t[0]), cmp);
	printf("%.3f\n", t[BATCHES / 2]);
	return 0;
}

/* The loop for the syscall() cases is written out so that the only
 * difference between guarded and unguarded is what syscall() resolves to. */
static double batch(const char *what, long n)
{
	double t0 = now_ns();
	if (!strcmp(what, "getppid")) {
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else {
		for (long i = 0; i < n; i++)
			op(what);
	}
	return (now_ns() - t0) / (double)n;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *what = argv[1];
	if (!strcmp(what, "probe-snapshot")) {
		if (argc < 4)
			return 2;
		snap = argv[2];
		argv++;
	}
	long n = atol(argv[2]);
	if (n <= 0)
		return 2;
	if (!strcmp(what, "spawn"))
		return argc > 3 ? spawn_bench(n, argv + 3) : 2;
	if (!strncmp(what, "pair-", 5))
		return pair_bench(!strcmp(what, "pair-futex"), n);
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_RAW;
	attr.size = sizeof(attr);
	attr.config = !strcmp(what, "peo-denied") ? 0x0400 : 0x01a4;
	op(what); /* warm up: the shim's one probe happens here */
	double t[BATCHES];
	for (int b = 0; b < BATCHES; b++)
		t[b] = batch(what, n);
	qsort(t, BATCHES, sizeof(t[0]), cmp);
	printf("%.3f\n", t[BATCHES / 2]);
	return 0;
}

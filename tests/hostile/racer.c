// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A target that leaves while its threads hammer perf_event_open, for the
 * seccomp supervisor's races (hostile.sh supervisor-races).
 *
 *   racer exit|exec|kill [THREADS [CALLS]]
 *
 * THREADS (default 8) threads call syscall(SYS_perf_event_open, ...) in a
 * loop with 4:0x400 (denied in the m6i world), 4:0x1a4 and 1:0 (allowed),
 * all with a flag the kernel rejects (EINVAL) before it reads the attr, so
 * nothing is ever opened, whatever the machine and whatever the guard.
 * Once they have made CALLS (default 64) calls between them, or after a
 * second, the main thread leaves while they are still calling:
 *   exit  exit(5): every thread dies in exit_group, calls pending or not
 *   exec  execv("/bin/true"): de_thread kills the others, then true exits 0
 *   kill  kill(getpid(), SIGKILL): the status is 128 + 9
 * 2 on bad usage or setup failure.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define BAD_FLAGS (1ul << 20) /* not in PERF_FLAG_ALL: the kernel says EINVAL */

static atomic_long calls;

static void *hammer(void *arg)
{
	static const struct {
		uint32_t type;
		uint64_t config;
	} enc[] = {{PERF_TYPE_RAW, 0x400}, {PERF_TYPE_RAW, 0x1a4}, {PERF_TYPE_SOFTWARE, 0}};
	unsigned i = (unsigned)(uintptr_t)arg;
	for (;;) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.type = enc[i % 3].type;
		a.size = sizeof(a);
		a.config = enc[i % 3].config;
		a.disabled = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, BAD_FLAGS);
		if (fd >= 0)
			close((int)fd);
		atomic_fetch_add(&calls, 1);
		i++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 4)
		return 2;
	int n = argc >= 3 ? atoi(argv[2]) : 8;
	long want = argc >= 4 ? atol(argv[3]) : 64;
	if (n < 1 || n > MAX_THREADS || want < 0)
		return 2;
	pthread_t t;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, NULL, hammer, (void *)(uintptr_t)i) != 0)
			return 2;
	/* Leave while calls are in flight: after a few, or after a second. */
	struct timespec tick = {0, 1000000};
	for (int ms = 0; ms < 1000 && atomic_load(&calls) < want; ms++)
		nanosleep(&tick, NULL);
	if (!strcmp(argv[1], "exit"))
		exit(5);
	if (!strcmp(argv[1], "exec")) {
		char *const args[] = {"/bin/true", NULL};
		execv(args[0], args);
		return 2;
	}
	if (!strcmp(argv[1], "kill")) {
		kill(getpid(), SIGKILL);
		for (;;)
			pause();
	}
	return 2;
}

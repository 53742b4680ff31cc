// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A test target that reaches perf_event_open the way LD_PRELOAD cannot see:
 * an inline syscall instruction, no libc wrapper; built statically.
 *
 *   peo [--threads N] [--forks N] [--repeat N] [--wait-file F] [--ppid-file F]
 *       [--nodump] [--flags F] [--cookie-xor MASK] TYPE:CONFIG...
 *
 * --nodump: prctl(PR_SET_DUMPABLE, 0) first, so that a supervisor running
 *   as the same non-root user is refused its memory (process_vm_readv EPERM,
 *   /proc/PID/mem EACCES).
 * --flags F: the flags argument (default 0); 1<<20 is one the kernel
 *   rejects with EINVAL before reading the attr, so an answer other than
 *   EINVAL can only come from a guard.
 * --cookie-xor MASK: the sixth argument (r9, unused by perf_event_open) is
 *   $PMUGUARD_SECCOMP_COOKIE (0 when unset) xor MASK: 0 poses as a call the
 *   preload judged; anything else is a wrong cookie.  Says on stderr
 *   whether the environment held a cookie ("peo: cookie in the
 *   environment: yes").
 *
 * Each TYPE:CONFIG is opened (pid 0, cpu -1, exclude_kernel) from every
 * thread of every process, --repeat times, and reported once per process as
 * "type=T config=0xC ret=R errno=NAME".  Exit 0 when every repetition of an
 * encoding got the same answer, 3 when answers disagreed (lost or mixed up
 * replies), 2 on bad usage.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_EV 16

static long g_flags, g_arg6;

static long raw_perf_event_open(const struct perf_event_attr *a)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = -1;      /* group_fd */
	register long r8 __asm__("r8") = g_flags;   /* flags */
	register long r9 __asm__("r9") = g_arg6;    /* unused by the kernel */
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((long)__NR_perf_event_open), "D"(a), "S"(0L), "d"(-1L), "r"(r10),
			   "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#else
	long r = syscall(__NR_perf_event_open, a, 0, -1, -1, g_flags, g_arg6);
	return r < 0 ? -errno : r;
#endif
}

/* 16 hex digits, as pmuguard exports it; 0 otherwise. */
static unsigned long long env_cookie(void)
{
	const char *v = getenv("PMUGUARD_SECCOMP_COOKIE");
	char *end;
	unsigned long long c = v && strlen(v) == 16 ? strtoull(v, &end, 16) : 0;
	return c && *end == '\0' ? c : 0;
}

static struct {
	uint32_t type;
	uint64_t config;
	_Atomic long first;  /* first answer seen, as -errno or 1 for an fd */
	atomic_int disagree; /* a later answer differed */
	_Atomic long other;  /* the first answer that differed */
	atomic_int set;
} ev[MAX_EV];
static int n_ev, repeat = 1;

static void *worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < repeat; r++)
		for (int i = 0; i < n_ev; i++) {
			struct perf_event_attr a;
			memset(&a, 0, sizeof(a));
			a.type = ev[i].type;
			a.size = sizeof(a);
			a.config = ev[i].config;
			a.disabled = 1;
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
			long ret = raw_perf_event_open(&a);
			long ans = ret >= 0 ? 1 : ret;
			if (ret >= 0)
				close((int)ret);
			int expect = 0;
			if (atomic_compare_exchange_strong(&ev[i].set, &expect, 1))
				atomic_store(&ev[i].first, ans);
			else if (atomic_load(&ev[i].first) != ans &&
				 atomic_fetch_add(&ev[i].disagree, 1) == 0)
				atomic_store(&ev[i].other, ans);
		}
	return NULL;
}

static int run_process(int threads)
{
	pthread_t t[256];
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 2;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	int bad = 0;
	for (int i = 0; i < n_ev; i++) {
		long a = atomic_load(&ev[i].first);
		long o = atomic_load(&ev[i].other);
		printf("type=%u config=0x%llx ret=%s errno=%s%s%s\n", ev[i].type,
		       (unsigned long long)ev[i].config, a == 1 ? "fd" : "-1",
		       a == 1 ? "0" : strerrorname_np((int)-a),
		       atomic_load(&ev[i].disagree) ? " DISAGREE with " : "",
		       !atomic_load(&ev[i].disagree) ? ""
		       : o == 1			 ? "an fd"
						 : strerrorname_np((int)-o));
		bad |= atomic_load(&ev[i].disagree) != 0;
	}
	fflush(stdout);
	return bad ? 3 : 0;
}

int main(int argc, char **argv)
{
	int threads = 1, forks = 0;
	const char *wait_file = NULL;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--nodump")) {
			if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
				return 2;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			return 2;
		if (!strcmp(argv[i], "--threads"))
			threads = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--forks"))
			forks = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--repeat"))
			repeat = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--flags"))
			g_flags = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--cookie-xor")) {
			g_arg6 = (long)(env_cookie() ^ strtoull(argv[i + 1], NULL, 0));
			/* Said, so that a test knows the run's cookie was there
			 * to be passed, not a 0 that proves nothing. */
			fprintf(stderr, "peo: cookie in the environment: %s\n",
				env_cookie() ? "yes" : "no");
		}
		else if (!strcmp(argv[i], "--wait-file"))
			wait_file = argv[i + 1];
		else if (!strcmp(argv[i], "--ppid-file")) {
			FILE *f = fopen(argv[i + 1], "w");
			if (!f)
				return 2;
			fprintf(f, "%d\n", getppid());
			fclose(f);
		} else
			return 2;
	}
	if (threads < 1 || threads > 256 || forks < 0 || repeat < 1)
		return 2;
	for (; i < argc && n_ev < MAX_EV; i++) {
		char *colon = strchr(argv[i], ':');
		if (!colon)
			return 2;
		ev[n_ev].type = (uint32_t)strtoul(argv[i], NULL, 0);
		ev[n_ev].config = strtoull(colon + 1, NULL, 0);
		n_ev++;
	}
	while (wait_file && access(wait_file, F_OK) != 0)
		usleep(10000);
	int rc = 0;
	for (int f = 0; f < forks; f++) {
		pid_t p = fork();
		if (p == 0)
			_exit(run_process(threads));
		int st;
		waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = WIFEXITED(st) ? WEXITSTATUS(st) : 3;
	}
	int r = run_process(threads);
	return rc ? rc : r;
}

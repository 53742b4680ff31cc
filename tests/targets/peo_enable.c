// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A static test target that opens each TYPE:CONFIG enabled, for itself,
 * through an inline syscall instruction (no libc wrapper), then runs and
 * yields so that the kernel schedules the event onto the PMU, and reads it:
 * unguarded on a faulty world this is where the kernel dies (the test PMU's
 * pmu->add).  peo.c opens disabled events and never schedules them.
 *
 *   peo-enable TYPE:CONFIG...
 *   peo-enable --race N
 *
 * Prints "type=T config=0xC ret=fd count=N" or "type=T config=0xC ret=-1
 * errno=NAME" per encoding; exit 0, 2 on bad usage.
 *
 * --race: N opens of type 4 while another thread flips the attr's config
 * between 0x01a4 (TOPDOWN.SLOTS_P) and 0x0400 (slots), the check-to-use race
 * a guard that reads user memory loses.  Each opened event is scheduled and
 * read.  Prints "race: N opens, A opened, D ENOENT, E other".
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long raw_perf_event_open(const struct perf_event_attr *a)
{
	register long r10 __asm__("r10") = -1; /* group_fd */
	register long r8 __asm__("r8") = 0;    /* flags */
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((long)__NR_perf_event_open), "D"(a), "S"(0L), "d"(-1L), "r"(r10),
			   "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Off the CPU and back: the event is scheduled in (pmu->add). */
static void get_scheduled(void)
{
	volatile unsigned long spin = 0;
	for (int r = 0; r < 100; r++) {
		sched_yield();
		usleep(1000);
		for (int k = 0; k < 10000; k++)
			spin += (unsigned long)k;
	}
}

static struct perf_event_attr race_attr;
static atomic_int race_done;

static void *flipper(void *arg)
{
	(void)arg;
	volatile __u64 *config = &race_attr.config;
	while (!atomic_load(&race_done))
		*config = *config == 0x01a4 ? 0x0400 : 0x01a4;
	return NULL;
}

static int race(int n)
{
	race_attr.size = sizeof(race_attr);
	race_attr.type = PERF_TYPE_RAW;
	race_attr.config = 0x01a4;
	race_attr.exclude_kernel = 1;
	race_attr.exclude_hv = 1;
	pthread_t t;
	if (pthread_create(&t, NULL, flipper, NULL) != 0)
		return 2;
	int opened = 0, enoent = 0, other = 0;
	for (int i = 0; i < n; i++) {
		long fd = raw_perf_event_open(&race_attr);
		if (fd >= 0) {
			opened++;
			sched_yield();
			usleep(100);
			uint64_t count;
			if (read((int)fd, &count, sizeof(count)) < 0)
				other++;
			close((int)fd);
		} else if (fd == -ENOENT) {
			enoent++;
		} else {
			other++;
		}
	}
	atomic_store(&race_done, 1);
	pthread_join(t, NULL);
	printf("race: %d opens, %d opened, %d ENOENT, %d other\n", n, opened, enoent, other);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "--race"))
		return argc == 3 ? race(atoi(argv[2])) : 2;
	for (int i = 1; i < argc; i++) {
		char *colon = strchr(argv[i], ':');
		if (!colon)
			return 2;
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = (uint32_t)strtoul(argv[i], NULL, 0);
		a.config = strtoull(colon + 1, NULL, 0);
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		long fd = raw_perf_event_open(&a);
		if (fd < 0) {
			printf("type=%u config=0x%llx ret=-1 errno=%s\n", a.type,
			       (unsigned long long)a.config, strerrorname_np((int)-fd));
			continue;
		}
		get_scheduled();
		uint64_t count = 0;
		if (read((int)fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
			count = 0;
		printf("type=%u config=0x%llx ret=fd count=%llu\n", a.type,
		       (unsigned long long)a.config, (unsigned long long)count);
		close((int)fd);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A static test target that opens each TYPE:CONFIG enabled, for itself,
 * through an inline syscall instruction (no libc wrapper), then runs and
 * yields so that the kernel schedules the event onto the PMU, and reads it:
 * unguarded on a faulty world this is where the kernel dies (the test PMU's
 * pmu->add).  peo.c opens disabled events and never schedules them.
 *
 *   peo-enable TYPE:CONFIG...
 *
 * Prints "type=T config=0xC ret=fd count=N" or "type=T config=0xC ret=-1
 * errno=NAME" per encoding; exit 0, 2 on bad usage.
 */
#include <errno.h>
#include <linux/perf_event.h>
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

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
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
		/* Off the CPU and back: the event is scheduled in (pmu->add). */
		volatile unsigned long spin = 0;
		for (int r = 0; r < 100; r++) {
			sched_yield();
			usleep(1000);
			for (int k = 0; k < 10000; k++)
				spin += (unsigned long)k;
		}
		uint64_t count = 0;
		if (read((int)fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
			count = 0;
		printf("type=%u config=0x%llx ret=fd count=%llu\n", a.type,
		       (unsigned long long)a.config, (unsigned long long)count);
		close((int)fd);
	}
	return 0;
}

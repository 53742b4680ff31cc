// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A dynamically linked target that reaches perf_event_open through glibc's
 * syscall(), as perf does, for tests of the preload path that cannot use
 * perf itself (setuid copies).  It passes flags the kernel rejects first
 * (EINVAL), so ENOENT can only come from the shim.
 *
 *   peo-dyn TYPE:CONFIG...   prints "type=T config=0xC errno=NAME" each
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *colon = strchr(argv[i], ':');
		if (!colon)
			return 2;
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.type = (unsigned)strtoul(argv[i], NULL, 0);
		a.size = sizeof(a);
		a.config = strtoull(colon + 1, NULL, 0);
		errno = 0;
		long r = syscall(SYS_perf_event_open, &a, 0, -1, -1, 1ul << 20);
		printf("type=%u config=0x%llx errno=%s\n", a.type, (unsigned long long)a.config,
		       r >= 0 ? "0" : strerrorname_np(errno));
	}
	return 0;
}

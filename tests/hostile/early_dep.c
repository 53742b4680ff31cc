// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A library a program links (a NEEDED entry, not a plugin) whose
 * constructor keeps libc's own syscall(), looked up in libc's scope
 * (dlsym on dlopen("libc.so.6", RTLD_NOLOAD)).  The loader runs the
 * constructors of a program's dependencies before a preloaded library's:
 * this one looks before the shim's constructor could have claimed libc's
 * symbol.  For tests/hostile/holes.sh (early-dependency).
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attr.h"

void early_dep_slots(void);

static long (*g_kept)(long, ...);

__attribute__((constructor)) static void keep_libc_syscall(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
	g_kept = libc ? (long (*)(long, ...))dlsym(libc, "syscall") : NULL;
}

/* Slots through the function kept at start: "call early-dep errno=E". */
void early_dep_slots(void)
{
	if (!g_kept) {
		printf("call early-dep no-symbol\n");
		return;
	}
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, 0x0400);
	a.exclude_hv = 1;
	long fd = g_kept(SYS_perf_event_open, &a, 0, -1, -1, 0);
	printf("call early-dep errno=%d\n", fd < 0 ? errno : 0);
	fflush(stdout);
	if (fd >= 0)
		close((int)fd);
}

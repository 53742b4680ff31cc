// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A plugin for tests/hostile/holes.c: it calls plain syscall(), bound by
 * the loader in whatever scope the plugin was loaded into (RTLD_DEEPBIND:
 * its own first, so libc's; dlmopen(LM_ID_NEWLM): a new namespace's libc).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attr.h"

long holes_plugin_open(uint64_t config, int *err);

long holes_plugin_open(uint64_t config, int *err)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, config);
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	*err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close((int)fd);
	return fd;
}

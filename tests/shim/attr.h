/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Building perf_event_attrs for the tests that run with the shim preloaded. */
#ifndef PMUGUARD_TEST_ATTR_H
#define PMUGUARD_TEST_ATTR_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

/* Not in PERF_FLAG_ALL: the kernel answers EINVAL before it reads the attr
 * (sys_perf_event_open, kernel/events/core.c), so ENOENT can only come
 * from the shim. */
#define BAD_FLAGS (1ul << 20)

static inline struct perf_event_attr attr_of(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	return a;
}

#endif

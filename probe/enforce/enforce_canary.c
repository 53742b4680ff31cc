// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The self-test's canary (enforce_abi.h): one perf_event_open that the
 * attached program must refuse with its own errno, run after a load
 * (enforce.c) and at every status (enforce_pinned.c).  Its own file, so
 * that neither of those two calls into the other.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "enforce.h"
#include "enforce_loader.h"

_Static_assert(PMUG_ENF_CANARY_TYPE == PERF_TYPE_SOFTWARE, "the canary is a software event");
_Static_assert(PMUG_ENF_CANARY_CONFIG == PERF_COUNT_SW_DUMMY, "the canary counts nothing");
_Static_assert(PMUG_ENF_CANARY_ERRNO == EBADSLT, "the canary's errno is this system's EBADSLT");

/* The self-test's canary (enforce_abi.h) for the program whose nonce is
 * nonce: 1 when it opened (closed again at once: it is disabled and
 * counts nothing), or -errno.  A software event: it can never reach a PMU
 * counter, whatever the guard does. */
int enf_canary_open(unsigned long long nonce)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_DUMMY;
	a.config1 = nonce;
	a.config2 = (unsigned long long)getpid();
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 1;
}

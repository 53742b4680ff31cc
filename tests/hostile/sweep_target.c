// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program every start of startsweep.c runs: it says, by its exit
 * status, whether the preloaded shim read the start as secure (AT_SECURE).
 *
 * It asks for TOPDOWN.SLOTS through syscall() with flags no kernel takes:
 * the kernel answers EINVAL before it reads the attr
 * (kernel/events/core.c, perf_event_open: flags first), the shim's denial
 * is ENOENT.  The environment of every start says PMUGUARD_MODE=off, the
 * policy file says snapshot = the m6i world: a start read as secure
 * ignores its environment (secure_getenv's rule) and is denied; any other
 * honours mode off and reaches the kernel.  It takes no argument, so it
 * runs alike with an empty argv.
 *
 * First it checks that the shim is there at all (syscall() is the shim's:
 * dladdr), so that a start the loader ran without it is not taken for
 * one the shim read as not secure.
 *
 * Exit: 10 denied by the shim (read as secure), 11 the kernel's EINVAL
 * (not secure), 12 anything else, 13 syscall() is not the shim's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	Dl_info where;
	if (!dladdr((void *)syscall, &where) || !where.dli_fname ||
	    !strstr(where.dli_fname, "libpmuguard"))
		return 13;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x400; /* TOPDOWN.SLOTS */
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 1UL << 62);
	if (fd >= 0)
		return 12;
	return errno == ENOENT ? 10 : errno == EINVAL ? 11 : 12;
}

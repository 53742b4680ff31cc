/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a caller's perf_event_attr without ever faulting, for the shim
 * (its own process) and the supervisor (a traced one).  Async-signal-safe:
 * no stdio, no malloc.
 */
#ifndef PMUGUARD_ATTR_H
#define PMUGUARD_ATTR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The first 64 bytes (PERF_ATTR_SIZE_VER0) of struct perf_event_attr:
 * type at 0, size at 4, config at 8 (include/uapi/linux/perf_event.h). */
struct guard_attr {
	uint32_t type;
	uint32_t size;
	uint64_t config;
	uint64_t rest[6];
};

/* Read the head of the attr at addr in process pid (0: this process).
 * Another process: process_vm_readv, or its mem file where that is
 * refused.  This process: /proc/thread-self/mem (openat, pread64, close:
 * what a sandbox lets any program that reads files do; never a path built
 * from getpid(), which in a pid namespace with a foreign /proc names
 * another process); where that file cannot be opened, the kernel's own
 * copy, asked with a perf_event_open it refuses before any event exists
 * (attr.c).  Returns 0, -EFAULT when the address is not mapped readable
 * (the kernel will say EFAULT too: a bad pointer is the kernel's to
 * report), or the -errno of a read that was refused or could not be made
 * (EPERM, EACCES, ENOSYS, EMFILE, ENOMEM, ESRCH; EIO for a readable mapping
 * that neither read can reach, a device's or [vvar]).  errno is preserved. */
int guard_read_attr(pid_t pid, uint64_t addr, struct guard_attr *a);

/* The same for len bytes at addr into buf. */
int guard_read_bytes(pid_t pid, uint64_t addr, void *buf, size_t len);
/* This process's bytes at addr, by the kernel's own copy (a perf_event_open
 * it refuses on group -2 before any event exists): where no mem file can be
 * read.  0, -EFAULT where the kernel cannot read them, or another -errno
 * (fail closed).  The shim's kept reader (shim/self_mem.c) uses it too. */
int guard_read_self_via_kernel(uint64_t addr, void *buf, size_t len);

/* Does the kernel get as far as scheduling an attr of this size?
 * perf_copy_attr(): 0 means PERF_ATTR_SIZE_VER0; otherwise VER0..PAGE_SIZE,
 * anything else is E2BIG before the event exists. */
bool guard_attr_sized(uint32_t size);

#endif

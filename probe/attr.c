// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>

#include "attr.h"
#include "probe.h"
#include "sys.h"

#define ATTR_SIZE_VER0 64u
#define ATTR_SIZE_MAX 4096u

bool guard_attr_sized(uint32_t size)
{
	return size == 0 || (size >= ATTR_SIZE_VER0 && size <= ATTR_SIZE_MAX);
}

/* /proc/self/mem, or /proc/PID/mem for another process; -errno on failure.
 * The path is built in a few bytes of stack, without stdio. */
static int read_mem_file(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	/* thread-self: the calling thread's view, which stays valid after the
	 * main thread has exited (the leader has no mm then). */
	char path[48] = "/proc/thread-self/mem";
	if (pid != 0) {
		size_t at = 6 + probe_utoa(path + 6, (uint32_t)pid);
		__builtin_memcpy(path + at, "/mem", 5);
	}
	if (addr > (uint64_t)INT64_MAX)
		return -EFAULT;
	long fd = pmug_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return (int)fd;
	long r;
	do
		r = pmug_sys4(SYS_pread64, fd, buf, len, addr);
	while (r == -EINTR);
	/* A short or empty read is not the kernel's EFAULT (older kernels read
	 * 0 bytes through a task without an mm): a refusal, so it fails closed. */
	int rc = r == (long)len ? 0 : r < 0 ? (int)r : -ENODATA;
	pmug_sys1(SYS_close, fd);
	/* mem files answer EIO for an unmapped address. */
	return rc == -EIO ? -EFAULT : rc;
}

int guard_read_bytes(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	if (addr == 0)
		return -EFAULT;
	struct iovec local = {buf, len};
	struct iovec remote = {(void *)(uintptr_t)addr, len};
	/* This thread's id, not getpid(): the thread-group leader may have
	 * exited, and then has no mm to read. */
	long r = pmug_sys6(SYS_process_vm_readv, pid ? pid : pmug_sys0(SYS_gettid), (long)&local,
			   1, (long)&remote, 1, 0);
	if (r == (long)len)
		return 0;
	if (r >= 0 || r == -EFAULT)
		return -EFAULT; /* partly or wholly unmapped */
	/* Refused (EPERM: not dumpable, Yama; ENOSYS: a sandbox's filter) or
	 * wrong about the pid (ESRCH): the mem file, which asks differently. */
	return read_mem_file(pid, addr, buf, len);
}

int guard_read_attr(pid_t pid, uint64_t addr, struct guard_attr *a)
{
	return guard_read_bytes(pid, addr, a, sizeof(*a));
}

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

/*
 * Is [addr, addr + len) mapped readable in pid's maps (0: this thread's)?
 * 1 yes, 0 no, -errno when the maps cannot be read.  Streamed in small
 * reads with no line buffer: this may run on a caller's small stack.
 */
static int range_readable(pid_t pid, uint64_t addr, size_t len)
{
	char path[48] = "/proc/thread-self/maps";
	if (pid != 0) {
		size_t at = 6 + probe_utoa(path + 6, (uint32_t)pid);
		__builtin_memcpy(path + at, "/maps", 6);
	}
	long fd = pmug_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return (int)fd;
	uint64_t cur = addr, want = addr + len, start = 0, end = 0;
	/* Fields of a line: 0 start, 1 end, 2 the read permission, 3 the rest.
	 * answer: 0 not yet, 1 readable, 2 not, or -errno. */
	int field = 0, answer = 0;
	char chunk[128];
	long r;
	while (answer == 0 && (r = pmug_sys3(SYS_read, fd, chunk, sizeof(chunk))) != 0) {
		if (r == -EINTR)
			continue;
		if (r < 0) {
			answer = (int)r;
			break;
		}
		for (long i = 0; i < r && answer == 0; i++) {
			char c = chunk[i];
			unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
				     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
							    : 16u;
			if (c == '\n') {
				field = 0, start = end = 0;
			} else if (field == 0) {
				if (d < 16)
					start = start << 4 | d;
				else
					field = 1;
			} else if (field == 1) {
				if (d < 16)
					end = end << 4 | d;
				else
					field = 2;
			} else if (field == 2) {
				field = 3;
				/* Lines come in address order: a gap before
				 * cur, or a mapping we may not read, ends it. */
				if (end <= cur)
					continue;
				if (start > cur || c != 'r')
					answer = 2;
				else if ((cur = end) >= want)
					answer = 1;
			}
		}
	}
	pmug_sys1(SYS_close, fd);
	return answer < 0 ? answer : answer == 1;
}

/* Another process (the supervisor's target): process_vm_readv first. */
static int read_other(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len};
	struct iovec remote = {(void *)(uintptr_t)addr, len};
	long r = pmug_sys6(SYS_process_vm_readv, pid, (long)&local, 1, (long)&remote, 1, 0);
	if (r == (long)len)
		return 0;
	if (r >= 0 || r == -EFAULT) {
		/* Partly or wholly unmapped: the kernel's EFAULT to give.  But
		 * process_vm_readv also refuses a readable VM_IO or VM_PFNMAP
		 * mapping (a device's, [vvar]) that the kernel's own
		 * copy_from_user() reads: there the mem file may read it, and
		 * where it cannot, the attr is unreadable to us, not to the
		 * kernel, so the call fails closed (EIO). */
		int readable = range_readable(pid, addr, len);
		if (readable == 0)
			return -EFAULT;
		int rc = read_mem_file(pid, addr, buf, len);
		return rc == -EFAULT ? -EIO : rc;
	}
	/* Refused (EPERM: not dumpable, Yama; ENOSYS: a sandbox's filter) or
	 * wrong about the pid (ESRCH): the mem file, which asks differently. */
	return read_mem_file(pid, addr, buf, len);
}

/*
 * No mem file: ask the kernel itself, with a perf_event_open it refuses
 * before any event exists.  It copies the attr first (EFAULT where it
 * cannot, E2BIG or EINVAL for one it refuses), and looks up the group
 * descriptor before it allocates anything: -2 is no descriptor, so EBADF
 * says that every byte of the attr the kernel reads is mapped readable.
 * No other system call a sandbox may kill is made (process_vm_readv
 * killed services whose SystemCallFilter= lacked it), and the process's
 * own filter, which lets perf_event_open through, lets this through too.
 */
int guard_read_self_via_kernel(uint64_t addr, void *buf, size_t len)
{
	long r = pmug_sys6(SYS_perf_event_open, (long)addr, 0, -1, -2, 0, 0);
	if (r >= 0) {
		/* Never seen: a kernel that made an event anyway. */
		pmug_sys1(SYS_close, r);
		return -EIO;
	}
	if (r == -EBADF) {
		/* The kernel read at least PERF_ATTR_SIZE_VER0 bytes, or the
		 * attr's own size, which is what the shim asks for. */
		__builtin_memcpy(buf, (const void *)(uintptr_t)addr, len);
		return 0;
	}
	/* The kernel refuses the attr itself before any event exists: its
	 * own answer is the one to give (the call is forwarded). */
	if (r == -EFAULT || r == -E2BIG || r == -EINVAL)
		return -EFAULT;
	/* A refusal that says nothing of the attr (a filter's errno, a
	 * supervisor's answer, the descriptor limit): fail closed. */
	return (int)r;
}

/*
 * This process (the shim, inside a host program): the mem file first,
 * with openat, pread64 and close, which any program that reads a file
 * makes.  Where it cannot be opened (no /proc, a security module's
 * refusal, the descriptor limit), the kernel's own copy of the attr tells
 * whether it is readable (guard_read_self_via_kernel).
 */
static int read_self(uint64_t addr, void *buf, size_t len)
{
	int rc = read_mem_file(0, addr, buf, len);
	if (rc == -EFAULT || rc == -ENODATA) {
		/* EIO or a short read: unmapped, wholly or partly (the
		 * kernel's EFAULT to give), or a readable VM_IO/VM_PFNMAP
		 * mapping the mem file cannot reach (fail closed, EIO); the
		 * maps tell which, or refuse (fail closed). */
		int readable = range_readable(0, addr, len);
		return readable == 0 ? -EFAULT : readable < 0 ? readable : -EIO;
	}
	if (rc != -ENOENT && rc != -EACCES && rc != -EPERM && rc != -EMFILE && rc != -ENFILE)
		return rc;
	return guard_read_self_via_kernel(addr, buf, len);
}

int guard_read_bytes(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	if (addr == 0)
		return -EFAULT;
	return pid ? read_other(pid, addr, buf, len) : read_self(addr, buf, len);
}

int guard_read_attr(pid_t pid, uint64_t addr, struct guard_attr *a)
{
	return guard_read_bytes(pid, addr, a, sizeof(*a));
}

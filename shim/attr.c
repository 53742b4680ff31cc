// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "attr.h"
#include "log.h"

#define ATTR_SIZE_VER0 64u
#define ATTR_SIZE_MAX 4096u

bool guard_attr_sized(uint32_t size)
{
	return size == 0 || (size >= ATTR_SIZE_VER0 && size <= ATTR_SIZE_MAX);
}

bool guard_read_attr(pid_t pid, uint64_t addr, struct guard_attr *a)
{
	if (addr == 0)
		return false;
	struct iovec local = {a, sizeof(*a)};
	struct iovec remote = {(void *)(uintptr_t)addr, sizeof(*a)};
	ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (r >= 0)
		return r == (ssize_t)sizeof(*a);
	if (errno == EFAULT || errno == ESRCH)
		return false;
	/* process_vm_readv filtered (some container profiles): /proc/PID/mem,
	 * its path built without stdio. */
	struct logline path = {.len = 0};
	log_str(&path, "/proc/");
	log_dec(&path, (uint64_t)pid);
	log_str(&path, "/mem");
	path.buf[path.len] = '\0';
	int fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	r = addr > (uint64_t)INT64_MAX ? -1 : pread(fd, a, sizeof(*a), (off_t)addr);
	close(fd);
	return r == (ssize_t)sizeof(*a);
}

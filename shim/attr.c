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

/* /proc/self/mem, or /proc/PID/mem for another process; -errno on failure. */
static int read_mem_file(pid_t pid, uint64_t addr, struct guard_attr *a)
{
	struct logline path = {.len = 0};
	if (pid == 0) {
		log_str(&path, "/proc/self/mem");
	} else {
		log_str(&path, "/proc/");
		log_dec(&path, (uint64_t)pid);
		log_str(&path, "/mem");
	}
	path.buf[path.len] = '\0';
	if (addr > (uint64_t)INT64_MAX)
		return -EFAULT;
	int fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t r;
	do
		r = pread(fd, a, sizeof(*a), (off_t)addr);
	while (r < 0 && errno == EINTR);
	int rc = r == (ssize_t)sizeof(*a) ? 0 : r < 0 ? -errno : -EFAULT;
	close(fd);
	/* mem files answer EIO for an unmapped address. */
	return rc == -EIO ? -EFAULT : rc;
}

int guard_read_attr(pid_t pid, uint64_t addr, struct guard_attr *a)
{
	int saved = errno;
	int rc;
	if (addr == 0) {
		rc = -EFAULT;
		goto out;
	}
	struct iovec local = {a, sizeof(*a)};
	struct iovec remote = {(void *)(uintptr_t)addr, sizeof(*a)};
	ssize_t r = process_vm_readv(pid ? pid : getpid(), &local, 1, &remote, 1, 0);
	if (r == (ssize_t)sizeof(*a)) {
		rc = 0;
	} else if (r >= 0 || errno == EFAULT) {
		rc = -EFAULT; /* partly or wholly unmapped */
	} else {
		/* Refused (EPERM: not dumpable, Yama; ENOSYS: a sandbox's
		 * filter) or wrong about the pid (ESRCH: a pid namespace with
		 * a foreign view): the mem file, which asks differently. */
		rc = read_mem_file(pid, addr, a);
	}
out:
	errno = saved;
	return rc;
}

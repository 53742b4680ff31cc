// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The process whose call is judged: its attr read from its memory, and
 * the exit of faultsim's child as faultsim's own status.
 */
#include "faultsim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Read up to ATTR_READ_SIZE bytes at addr in the target.  Returns the
 * number of bytes read (>= ATTR_MIN_SIZE) or a negative errno.
 */
ssize_t read_target(pid_t pid, uint64_t addr, unsigned char *buf)
{
	struct iovec local = {.iov_base = buf, .iov_len = ATTR_READ_SIZE};
	struct iovec remote = {
		.iov_base = (void *)(uintptr_t)addr,
		.iov_len = ATTR_READ_SIZE,
	};
	char path[64];
	ssize_t n;
	int fd;

	if (addr == 0)
		return -EFAULT;

	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n >= ATTR_MIN_SIZE)
		return n;

	/* fall back to /proc/PID/mem (e.g. process_vm_readv unavailable) */
	if (addr > (uint64_t)INT64_MAX)
		return -EFAULT;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = pread(fd, buf, ATTR_READ_SIZE, (off_t)addr);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	else if (n < ATTR_MIN_SIZE)
		n = -EFAULT;
	close(fd);
	return n;
}

uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_SETUP;
}

pid_t reap(pid_t pid, int *status)
{
	pid_t r;

	do {
		r = waitpid(pid, status, 0);
	} while (r < 0 && errno == EINTR);
	return r;
}

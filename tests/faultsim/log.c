// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What faultsim writes: one log line per intercepted call, each with a
 * single write() so that a killed faultsim leaves a whole log, and the
 * simulated fault's message on stderr.
 */
#include "faultsim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

/* write a whole buffer; one write() in practice for regular files */
static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

void log_call(int logfd, pid_t pid, bool readable, uint32_t type, uint64_t config, bool fault,
	      bool nogroup)
{
	char line[160];
	int n;

	if (readable)
		n = snprintf(line, sizeof(line),
			     "call pid=%d type=%" PRIu32 " config=0x%" PRIx64 " verdict=%s\n",
			     (int)pid, type, config,
			     fault     ? "FAULT"
			     : nogroup ? "ebadf"
				       : "continue");
	else
		n = snprintf(line, sizeof(line), "call pid=%d unreadable verdict=continue\n",
			     (int)pid);
	if (n > 0 && (size_t)n < sizeof(line))
		write_all(logfd, line, (size_t)n);
}

void log_verdict(int logfd, pid_t pid, uint32_t type, uint64_t config, const char *verdict)
{
	char line[160];
	int n = snprintf(line, sizeof(line),
			 "call pid=%d type=%" PRIu32 " config=0x%" PRIx64 " verdict=%s\n", (int)pid,
			 type, config, verdict);

	if (n > 0 && (size_t)n < sizeof(line))
		write_all(logfd, line, (size_t)n);
}

void print_fault(uint32_t type, uint64_t config, pid_t pid)
{
	char msg[200];
	int len = snprintf(msg, sizeof(msg),
			   "faultsim: simulated guest kernel fault: perf_event_open "
			   "type=%u config=0x%llx reached fixed counter 3 (pid %d)\n",
			   (unsigned int)type, (unsigned long long)config, (int)pid);

	if (len > 0 && (size_t)len < sizeof(msg))
		write_all(STDERR_FILENO, msg, (size_t)len);
}

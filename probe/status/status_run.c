// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A child of status, run and read: the kernel layer's document, the
 * canary (as nobody), the loader's check, journalctl.  Its output is
 * captured; nothing it inherits but stdin, stdout and stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "status.h"

extern char **environ;

/* --- Children ---------------------------------------------------------- */

/* Drop to nobody as setpriv(1) --reuid=65534 --regid=65534 --clear-groups
 * --inh-caps=-all --no-new-privs would: a user with no file, group or
 * privilege of its own.  0 or -errno. */
static int become_nobody(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct c[2];
	if (syscall(SYS_capget, &h, c) == 0) {
		c[0].inheritable = c[1].inheritable = 0;
		if (syscall(SYS_capset, &h, c) != 0)
			return -errno;
	}
	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	return 0;
}

static void close_from(int lowest)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lowest, ~0U, 0) == 0)
		return;
#endif
	for (int fd = lowest; fd < 1024; fd++)
		close(fd);
}

int status_run(char *const argv[], char *const env[], bool with_err, bool drop_to_nobody,
	       char **out)
{
	*out = NULL;
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(with_err ? p[1] : null, 2);
		close_from(3);
		if (drop_to_nobody) {
			int e = become_nobody();
			if (e < 0) {
				dprintf(2, "cannot become uid 65534: %s\n", strerror(-e));
				_exit(126);
			}
		}
		if (drop_to_nobody || env != environ) {
			if (chdir("/") != 0)
				_exit(126);
		}
		execve(argv[0], argv, env);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	for (;;) {
		if (buf && len + 1 >= cap) {
			char *b = realloc(buf, cap * 2);
			if (!b) {
				free(buf);
				buf = NULL;
			} else {
				buf = b;
				cap *= 2;
			}
		}
		char sink[4096];
		char *to = buf ? buf + len : sink;
		size_t room = buf ? cap - len - 1 : sizeof(sink);
		ssize_t n = read(p[0], to, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (buf)
			len += (size_t)n;
	}
	close(p[0]);
	if (buf)
		buf[len] = '\0';
	*out = buf;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <unistd.h>

#include "log.h"
#include "probe.h"
#include "sys.h"

void log_str(struct logline *l, const char *s)
{
	while (s && *s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

void log_str_safe(struct logline *l, const char *s)
{
	for (; s && *s && l->len < sizeof(l->buf) - 1; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != 0x7f && c != '\\') {
			l->buf[l->len++] = (char)c;
			continue;
		}
		if (l->len + 4 >= sizeof(l->buf) - 1)
			break;
		l->buf[l->len++] = '\\';
		l->buf[l->len++] = 'x';
		l->buf[l->len++] = "0123456789abcdef"[c >> 4];
		l->buf[l->len++] = "0123456789abcdef"[c & 0xf];
	}
}

void log_hex(struct logline *l, uint64_t v)
{
	char tmp[19];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	log_str(l, "0x");
	while (n > 0 && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = tmp[--n];
}

void log_dec(struct logline *l, uint64_t v)
{
	char tmp[24];
	size_t n = probe_utoa(tmp, v);
	for (size_t i = 0; i < n && l->len < sizeof(l->buf) - 1; i++)
		l->buf[l->len++] = tmp[i];
}

void log_emit(struct logline *l, int fd)
{
	l->buf[l->len < sizeof(l->buf) ? l->len : sizeof(l->buf) - 1] = '\n';
	size_t n = l->len + 1 > sizeof(l->buf) ? sizeof(l->buf) : l->len + 1;
	size_t off = 0;
	while (off < n) {
		long w = pmug_sys3(SYS_write, fd, l->buf + off, n - off);
		if (w == -EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

/* To syslog/journald through /dev/log, without glibc's syslog() (it takes
 * locks and may allocate): one datagram, "<12>" = facility user, severity
 * warning (RFC 3164), the header and the line gathered from two buffers.
 * Where there is no /dev/log the line is dropped: in fleet mode nothing may
 * go to fd 2 instead. */
void log_syslog(const struct logline *l, size_t skip)
{
	char head[48];
	size_t hn;
	static const char open_[] = "<12>pmuguard[", close_[] = "]: ";
	__builtin_memcpy(head, open_, sizeof(open_) - 1);
	hn = sizeof(open_) - 1;
	hn += probe_utoa(head + hn, (uint32_t)pmug_sys0(SYS_getpid));
	__builtin_memcpy(head + hn, close_, sizeof(close_) - 1);
	hn += sizeof(close_) - 1;

	size_t len = l->len < sizeof(l->buf) ? l->len : sizeof(l->buf) - 1;
	struct iovec iov[2] = {{head, hn}, {(void *)(l->buf + (skip < len ? skip : len)),
					     skip < len ? len - skip : 0}};
	long fd = pmug_sys3(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	__builtin_memcpy(a.sun_path, "/dev/log", sizeof("/dev/log"));
	if (pmug_sys3(SYS_connect, fd, &a, sizeof(a)) == 0) {
		struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
		pmug_sys3(SYS_sendmsg, fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	pmug_sys1(SYS_close, fd);
}

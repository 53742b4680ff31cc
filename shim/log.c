// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

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
	char tmp[21];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n > 0 && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = tmp[--n];
}

void log_emit(struct logline *l, int fd)
{
	int saved = errno;
	l->buf[l->len < sizeof(l->buf) ? l->len : sizeof(l->buf) - 1] = '\n';
	size_t n = l->len + 1 > sizeof(l->buf) ? sizeof(l->buf) : l->len + 1;
	size_t off = 0;
	while (off < n) {
		ssize_t w = write(fd, l->buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	errno = saved;
}

/* To syslog/journald through /dev/log, without glibc's syslog() (it takes
 * locks and may allocate): one datagram, "<12>" = facility user, severity
 * warning (RFC 3164).  Where there is no /dev/log the line is dropped: in
 * fleet mode nothing may go to fd 2 instead. */
void log_syslog(const struct logline *l, size_t skip)
{
	int saved = errno;
	struct logline m = {.len = 0};
	log_str(&m, "<12>pmuguard[");
	log_dec(&m, (uint64_t)getpid());
	log_str(&m, "]: ");
	for (size_t i = skip; i < l->len && m.len < sizeof(m.buf) - 1; i++)
		m.buf[m.len++] = l->buf[i];
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		memcpy(a.sun_path, "/dev/log", sizeof("/dev/log"));
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			send(fd, m.buf, m.len, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
	}
	errno = saved;
}

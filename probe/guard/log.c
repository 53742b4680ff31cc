// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
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

size_t log_utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n = c >= 0xc2 && c <= 0xdf   ? 2
		   : c >= 0xe0 && c <= 0xef ? 3
		   : c >= 0xf0 && c <= 0xf4 ? 4
					    : 0;
	for (size_t i = 1; i < n; i++) /* stops at the NUL: it is no continuation byte */
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, the surrogates, and beyond U+10FFFF. */
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

size_t log_plain_len(const unsigned char *p)
{
	if (*p < 0x80)
		return *p >= 0x20 && *p != 0x7f && *p != '\\';
	if (p[0] == 0xc2 && p[1] < 0xa0) /* U+0080-U+009F (a lone 0x80-0x9f is no UTF-8) */
		return 0;
	return log_utf8_len(p);
}

void log_str_safe(struct logline *l, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		size_t n = log_plain_len(p);
		if (n) {
			if (l->len + n > sizeof(l->buf) - 1)
				break;
			for (size_t i = 0; i < n; i++)
				l->buf[l->len++] = (char)p[i];
			p += n;
			continue;
		}
		if (l->len + 4 >= sizeof(l->buf) - 1)
			break;
		l->buf[l->len++] = '\\';
		l->buf[l->len++] = 'x';
		l->buf[l->len++] = "0123456789abcdef"[*p >> 4];
		l->buf[l->len++] = "0123456789abcdef"[*p & 0xf];
		p++;
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

/* Send the iovecs as one datagram to the unix socket at path; 0 or -errno.
 * sendmsg with the address: no connect, one descriptor for one call. */
static long send_dgram(const char *path, size_t plen, struct iovec *iov, size_t n)
{
	long fd = pmug_sys3(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	__builtin_memcpy(a.sun_path, path, plen);
	struct msghdr m = {.msg_name = &a,
			   .msg_namelen =
				   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen),
			   .msg_iov = iov,
			   .msg_iovlen = n};
	long r = pmug_sys3(SYS_sendmsg, fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
	pmug_sys1(SYS_close, fd);
	return r < 0 ? r : 0;
}

/* Reports this process could not deliver, said by the next one delivered. */
static _Atomic uint32_t g_undelivered;

static void field(struct logline *f, const char *name, const char *value)
{
	log_str(f, name);
	log_str_safe(f, value);
	log_str(f, "\n");
}

static void field_dec(struct logline *f, const char *name, uint64_t value)
{
	log_str(f, name);
	log_dec(f, value);
	log_str(f, "\n");
}

/* journald's native protocol: "NAME=value\n" fields in one datagram.  The
 * values carry no newline (log_str_safe escapes control characters), so
 * the simple form serves.  MESSAGE first: msg[0..mlen) and the note. */
static long to_journal(const char *msg, size_t mlen, const char *note, size_t nlen,
		       const struct log_report *r, uint32_t undelivered)
{
	struct logline f = {.len = 0};
	log_str(&f, "\nPRIORITY=4\nSYSLOG_IDENTIFIER=pmuguard\n");
	if (r) {
		field(&f, "MESSAGE_ID=", r->msgid);
		field(&f, "PMUGUARD_LAYER=", r->layer);
		field(&f, "PMUGUARD_DECISION=", r->decision);
		field(&f, "PMUGUARD_HIT=", r->hit);
		field(&f, "PMUGUARD_PROGRAM=", r->program);
		field_dec(&f, "PMUGUARD_PID=", r->pid);
		field_dec(&f, "PMUGUARD_UID=", r->uid);
		if (r->has_encoding) {
			field_dec(&f, "PMUGUARD_TYPE=", r->type);
			log_str(&f, "PMUGUARD_CONFIG=");
			log_hex(&f, r->config);
			log_str(&f, "\n");
		}
		if (undelivered)
			field_dec(&f, "PMUGUARD_UNDELIVERED=", undelivered);
	}
	if (f.len >= sizeof(f.buf) - 1)
		return -EMSGSIZE; /* a field was cut: say nothing rather than half */
	struct iovec iov[4] = {
		{(void *)"MESSAGE=", 8}, {(void *)msg, mlen}, {(void *)note, nlen}, {f.buf, f.len}};
	static const char sock[] = "/run/systemd/journal/socket";
	return send_dgram(sock, sizeof(sock), iov, 4);
}

/* RFC 3164 through /dev/log: "<12>" = facility user, severity warning.  A
 * syslog line has no fields, so the report's fields follow the words as
 * data, " [data: layer=L decision=D type=T config=0xC undelivered=N]"
 * (type and config where the attr was read, undelivered where reports
 * went missing): pmuguard-fleet reads that, never the sentence. */
static long to_syslog(const char *msg, size_t mlen, const char *note, size_t nlen,
		      const struct log_report *r, uint32_t undelivered)
{
	char head[48];
	size_t hn;
	static const char open_[] = "<12>pmuguard[", close_[] = "]: ";
	__builtin_memcpy(head, open_, sizeof(open_) - 1);
	hn = sizeof(open_) - 1;
	hn += probe_utoa(head + hn, (uint32_t)pmug_sys0(SYS_getpid));
	__builtin_memcpy(head + hn, close_, sizeof(close_) - 1);
	hn += sizeof(close_) - 1;
	struct logline d = {.len = 0};
	if (r) {
		log_str(&d, " [data: layer=");
		log_str_safe(&d, r->layer);
		log_str(&d, " decision=");
		log_str_safe(&d, r->decision);
		if (r->has_encoding) {
			log_str(&d, " type=");
			log_dec(&d, r->type);
			log_str(&d, " config=");
			log_hex(&d, r->config);
		}
		if (undelivered) {
			log_str(&d, " undelivered=");
			log_dec(&d, undelivered);
		}
		log_str(&d, "]");
	}
	struct iovec iov[4] = {{head, hn},
			       {(void *)msg, mlen},
			       {(void *)note, nlen},
			       {d.buf, d.len >= sizeof(d.buf) - 1 ? 0 : d.len}};
	static const char sock[] = "/dev/log";
	return send_dgram(sock, sizeof(sock), iov, 4);
}

/* Without glibc's syslog() or sd_journal_send() (they take locks and may
 * allocate): one datagram, to journald natively where its socket is, else
 * to /dev/log.  Where neither takes it a report is counted, and the next
 * delivered report says how many went missing, so that a full socket
 * buffer or a restarting journald never loses a block in silence. */
bool log_system(const struct logline *l, size_t skip, const struct log_report *r)
{
	size_t len = l->len < sizeof(l->buf) ? l->len : sizeof(l->buf) - 1;
	const char *msg = l->buf + (skip < len ? skip : len);
	size_t mlen = skip < len ? len - skip : 0;
	uint32_t missed = r ? atomic_exchange(&g_undelivered, 0) : 0;
	char note[80];
	size_t nlen = 0;
	if (missed) {
		static const char a[] = " [",
				  b[] = " earlier reports of this process were not delivered]";
		__builtin_memcpy(note, a, sizeof(a) - 1);
		nlen = sizeof(a) - 1;
		nlen += probe_utoa(note + nlen, missed);
		__builtin_memcpy(note + nlen, b, sizeof(b) - 1);
		nlen += sizeof(b) - 1;
	}
	long rc = to_journal(msg, mlen, note, nlen, r, missed);
	/* No journald here (or, never seen, fields too long): /dev/log.  A
	 * journald that is there but full (EAGAIN) gets no second copy under
	 * another name: the report is counted as undelivered instead. */
	if (rc == -ENOENT || rc == -ECONNREFUSED || rc == -ENOTDIR || rc == -EACCES ||
	    rc == -EMSGSIZE)
		rc = to_syslog(msg, mlen, note, nlen, r, missed);
	if (rc == 0)
		return true;
	if (r)
		atomic_fetch_add(&g_undelivered, missed + 1);
	return false;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live kernel log, read strictly: /dev/kmsg one whole record a read
 * ("pri,seq,usec,flags;text", probe_kmsg_record(): the facility is the
 * record's own), else syslog(2)'s buffer in one call; or, given a path, a
 * saved log's text lines (probe_klog_each_line()).  No parsing here beyond
 * the record's header.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include "probe.h"
#include "sys.h"
#include "text.h"

bool probe_kmsg_record(const char *rec, size_t n, unsigned *pri, uint64_t *usec, const char **text,
		       size_t *text_len)
{
	struct text t = {rec, rec + n};
	uint64_t p, seq;
	if (!text_dec(&t, &p, 1u << 16) || !text_lit(&t, ",") || !text_dec(&t, &seq, UINT64_MAX) ||
	    !text_lit(&t, ",") || !text_dec(&t, usec, UINT64_MAX) || !text_lit(&t, ","))
		return false;
	const char *semi = memchr(t.p, ';', (size_t)(t.end - t.p));
	if (!semi)
		return false;
	const char *nl = memchr(semi + 1, '\n', (size_t)(t.end - semi - 1));
	*pri = (unsigned)p;
	*text = semi + 1;
	*text_len = (size_t)((nl ? nl : t.end) - *text);
	return true;
}

static int read_kmsg(probe_klog_fn fn, void *ctx)
{
	long fd = pmug_open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return (int)fd;
	char rec[8192]; /* a read must hold a whole record (CONSOLE_EXT_LOG_MAX) */
	int rc = 0;
	for (;;) {
		long n = pmug_sys3(SYS_read, fd, rec, sizeof(rec));
		if (n == -EPIPE || n == -EINTR)
			continue; /* records overwritten under us: go on */
		if (n < 0) {
			if (n != -EAGAIN)
				rc = (int)n;
			break;
		}
		/* "6,149,312844,-;text\n" plus " KEY=value" continuation lines. */
		if (n == 0 || (rc = fn(ctx, PROBE_KLOG_KMSG, rec, (size_t)n)) != 0)
			break;
	}
	pmug_close(fd);
	return rc;
}

/* The ring buffer in one syslog(2) call, where /dev/kmsg does not exist. */
static int read_syslog(probe_klog_fn fn, void *ctx)
{
	long size = pmug_sys3(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return size < 0 ? (int)size : -ENODATA;
	long m = pmug_sys6(SYS_mmap, 0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	if ((unsigned long)m > -4096UL)
		return (int)m;
	char *buf = (char *)m;
	int rc = 0;
	long n = pmug_sys3(SYS_syslog, 3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		rc = (int)n;
	} else {
		const char *p = buf, *end = buf + n;
		while (p < end && rc == 0) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			rc = fn(ctx, PROBE_KLOG_SYSLOG, p, (size_t)(nl - p));
			p = nl + 1;
		}
	}
	pmug_sys2(SYS_munmap, buf, size);
	return rc;
}

struct text_ctx {
	probe_klog_fn fn;
	void *ctx;
};

static int text_line(void *p, const char *line, size_t len)
{
	struct text_ctx *t = p;
	return t->fn(t->ctx, PROBE_KLOG_TEXT, line, len);
}

/* Both need CAP_SYSLOG where kernel.dmesg_restrict=1. */
int probe_klog_each_line(const char *path, probe_klog_fn fn, void *ctx)
{
	int rc;
	struct text_ctx t = {fn, ctx};
	if (path)
		rc = probe_read_lines(path, text_line, &t);
	else if ((rc = read_kmsg(fn, ctx)) == -ENOENT)
		rc = read_syslog(fn, ctx);
	return rc < 0 ? rc : 0;
}

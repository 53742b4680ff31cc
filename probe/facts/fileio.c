// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Small, allocation-free file reading for the probe.  The shim calls these
 * from inside arbitrary processes (maybe from a signal handler), so: no
 * stdio, no malloc, O_CLOEXEC always, every descriptor closed on every path,
 * and hostile files (FIFOs, devices, huge or endless files) refused or cut.
 * System calls are raw (sys.h): errno is never touched, no libc import is
 * bound at a preloaded process's start, and no cancellation point is
 * reached in a host's thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "probe.h"
#include "sys.h"

/* Snapshot files are small; a kernel log of a long-running host is the
 * largest thing we read.  Past this we stop: the facts are near the start. */
#define PROBE_READ_CAP (16u << 20)
#define PROBE_CHUNK 1024
#define PROBE_LINE 512

static int open_regular_st(const char *path, struct stat *stp)
{
	/* O_NONBLOCK: opening a FIFO put in place of a file must not hang. */
	long fd = pmug_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return (int)fd;
	struct stat st;
	long e = pmug_sys2(SYS_fstat, fd, stp ? stp : &st);
	if (!stp)
		stp = &st;
	if (e == 0 && !S_ISREG(stp->st_mode))
		e = -EINVAL;
	if (e < 0) {
		pmug_close(fd);
		return (int)e;
	}
	return (int)fd;
}

static int open_regular(const char *path)
{
	return open_regular_st(path, NULL);
}

/* read(2) retried on EINTR: bytes read, 0 at the end, or -errno. */
static long read_some(int fd, char *buf, size_t n)
{
	long r;
	do
		r = pmug_sys3(SYS_read, fd, buf, n);
	while (r == -EINTR);
	return r;
}

size_t probe_utoa(char *out, uint64_t v)
{
	char tmp[20];
	size_t n = 0, len;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (len = 0; n > 0; len++)
		out[len] = tmp[--n];
	return len;
}

bool probe_join(char *out, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la + 1 + lb + 1 > size)
		return false;
	memcpy(out, a, la);
	out[la] = '/';
	memcpy(out + la + 1, b, lb + 1);
	return true;
}

long probe_read_small(const char *path, char *buf, size_t size)
{
	if (size < 2)
		return -EINVAL;
	int fd = open_regular(path);
	if (fd < 0)
		return fd;
	/* One byte more than fits: a value cut short is no value at all. */
	size_t n = 0;
	int rc = 0;
	long r;
	while (n < size && (r = read_some(fd, buf + n, size - n)) != 0) {
		if (r < 0) {
			rc = (int)r;
			break;
		}
		n += (size_t)r;
	}
	pmug_close(fd);
	if (rc < 0)
		return rc;
	if (n == size)
		return -EFBIG;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (long)n; /* the length read: a NUL inside is the caller's to judge */
}

long probe_read_upto(const char *path, char *buf, size_t size)
{
	int fd = open_regular(path);
	if (fd < 0)
		return fd;
	size_t n = 0;
	long r = 0;
	while (n < size && n < PROBE_READ_CAP && (r = read_some(fd, buf + n, size - n)) > 0)
		n += (size_t)r;
	pmug_close(fd);
	return r < 0 ? r : (long)n;
}

int probe_read_lines(const char *path, probe_line_fn fn, void *ctx)
{
	return probe_read_lines_st(path, fn, ctx, NULL);
}

int probe_read_lines_st(const char *path, probe_line_fn fn, void *ctx, struct stat *st)
{
	int fd = open_regular_st(path, st);
	if (fd < 0)
		return fd;
	char chunk[PROBE_CHUNK];
	char line[PROBE_LINE];
	size_t len = 0, total = 0;
	int rc = 0;
	for (;;) {
		long r = read_some(fd, chunk, sizeof(chunk));
		if (r <= 0) {
			rc = (int)r;
			break;
		}
		total += (size_t)r;
		for (long i = 0; i < r && rc == 0; i++) {
			if (chunk[i] == '\n') {
				rc = fn(ctx, line, len);
				len = 0;
			} else if (len < sizeof(line)) {
				line[len++] = chunk[i];
			}
		}
		if (rc != 0 || total >= PROBE_READ_CAP)
			break;
	}
	if (rc == 0 && len > 0)
		rc = fn(ctx, line, len); /* last line without a newline */
	pmug_close(fd);
	return rc < 0 ? rc : 0;
}

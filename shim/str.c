// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The string functions the core calls, for the shim only (hidden: they
 * replace nothing in the host process).  With them libpmuguard.so imports
 * nothing from libc, so a preloaded process pays no NEEDED entry, no
 * version check and no symbol lookup for us at start (libc_sym.c says
 * why), and the shim never calls into a libc a host may have interposed.
 * Plain loops: they run on the first call's probe and on log lines, never
 * on the fast path; memchr and memmem are word-free but skip by the first
 * byte, which is what the kernel-log scan needs.
 */
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "sys.h"

#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	while (n--)
		*dp++ = *sp++;
	return d;
}

HIDDEN void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if (dp < sp)
		while (n--)
			*dp++ = *sp++;
	else
		while (n--)
			dp[n] = sp[n];
	return d;
}

HIDDEN void *memset(void *d, int c, size_t n)
{
	unsigned char *dp = d;
	while (n--)
		*dp++ = (unsigned char)c;
	return d;
}

HIDDEN int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

HIDDEN void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

HIDDEN void *memmem(const void *h, size_t hn, const void *n, size_t nn)
{
	const unsigned char *p = h, *end = p + hn, *k = n;
	if (nn == 0)
		return (void *)h;
	while (hn >= nn && (p = memchr(p, k[0], (size_t)(end - p) - nn + 1)) != NULL) {
		if (memcmp(p, k, nn) == 0)
			return (void *)p;
		p++;
		hn = (size_t)(end - p);
	}
	return NULL;
}

HIDDEN size_t strlen(const char *s)
{
	const char *p = s;
	while (*p)
		p++;
	return (size_t)(p - s);
}

HIDDEN int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

HIDDEN int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

HIDDEN char *strncpy(char *restrict d, const char *restrict s, size_t n)
{
	size_t i = 0;
	for (; i < n && s[i]; i++)
		d[i] = s[i];
	for (; i < n; i++)
		d[i] = '\0';
	return d;
}

HIDDEN char *strncat(char *restrict d, const char *restrict s, size_t n)
{
	char *p = d + strlen(d);
	while (n-- && *s)
		*p++ = *s++;
	*p = '\0';
	return d;
}

HIDDEN char *strstr(const char *h, const char *n)
{
	size_t nn = strlen(n);
	return memmem(h, strlen(h), n, nn);
}

/* -fstack-protector (distribution hardening flags): the canary lives in the
 * thread's TCB, which libc set up; only the failure needs a definition.
 * A smashed stack in a host process ends it as glibc would. */
HIDDEN __attribute__((noreturn)) void __stack_chk_fail(void);
HIDDEN __attribute__((noreturn)) void __stack_chk_fail(void)
{
	static const char msg[] = "*** stack smashing detected ***: terminated (libpmuguard)\n";
	pmug_sys3(SYS_write, 2, msg, sizeof(msg) - 1);
	pmug_sys3(SYS_tgkill, pmug_sys0(SYS_getpid), pmug_sys0(SYS_gettid), SIGABRT);
	for (;;)
		pmug_sys1(SYS_exit_group, 127);
}

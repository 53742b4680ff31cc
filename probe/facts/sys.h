/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Raw system calls for the shim's slow path: they return the kernel's
 * answer (-errno on failure), never touch errno, and go through no PLT
 * entry, so the loader's lazy binding (_dl_runtime_resolve saves the whole
 * vector state on the stack) never runs on a caller's small stack, and a
 * host library that interposes open() or write() is never called by us.
 */
#ifndef PMUGUARD_SYS_H
#define PMUGUARD_SYS_H

#include <sys/syscall.h>

#if defined(__x86_64__)
static inline long pmug_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline long pmug_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
#else
#error "sys.h: only x86_64 and aarch64 are supported"
#endif

#define pmug_sys0(n) pmug_sys6((n), 0, 0, 0, 0, 0, 0)
#define pmug_sys1(n, a) pmug_sys6((n), (long)(a), 0, 0, 0, 0, 0)
#define pmug_sys2(n, a, b) pmug_sys6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define pmug_sys3(n, a, b, c) pmug_sys6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define pmug_sys4(n, a, b, c, d) pmug_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* AT_FDCWD-relative open: aarch64 has no open(2). */
#define pmug_open(path, flags) pmug_sys4(SYS_openat, -100 /* AT_FDCWD */, (path), (flags), 0)
/* fstatat(2): newfstatat where the ABI names it so (x86_64, arm64). */
#ifdef SYS_newfstatat
#define PMUG_SYS_FSTATAT SYS_newfstatat
#else
#define PMUG_SYS_FSTATAT SYS_fstatat64
#endif
#define pmug_close(fd) ((void)pmug_sys1(SYS_close, (fd)))

#endif

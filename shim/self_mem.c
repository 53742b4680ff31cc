// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading this process's own memory (the caller's perf_event_attr) without
 * ever faulting, in two system calls: a descriptor of /proc/thread-self/mem
 * kept across calls, and a witness read through it after each read.
 *
 * The file holds the mm it was opened on (proc_mem_open(), fs/proc/base.c:
 * mmgrab, then mem_rw() reads that mm through access_remote_vm()): any
 * thread reads through it, also after the opening thread or the leader has
 * exited.  What the program does to its descriptors is never trusted:
 *
 *   - after each read of the attr, 8 bytes are read through the same
 *     descriptor at the address of a witness (a value of this process's in
 *     one page of ours) and compared: a descriptor the program closed
 *     (EBADF), or whose number it reused (/dev/zero, a file, a pipe: EOF,
 *     zeros, ESPIPE) never matches, and the attr read through it is
 *     dropped.  The witness is read after the attr: a descriptor replaced
 *     between the two reads fails the check too;
 *   - the page is MADV_WIPEONFORK (Linux 4.14): a fork child finds it zero,
 *     so it never reads its parent's memory through the inherited
 *     descriptor (which still names the parent's mm); it opens its own, and
 *     closes the inherited one once a read through it shows the parent's
 *     witness.  Where the kernel has no WIPEONFORK, the pid is compared at
 *     every call (one more system call);
 *   - a vfork child shares the page and the memory: the inherited
 *     descriptor reads that same memory, so it is right there; a child
 *     that must open one (it closed its descriptors) uses it for that call
 *     only (its pid is not the page's);
 *   - a descriptor that is no longer ours is forgotten, never closed (the
 *     number may be the program's now); the only descriptor closed is one
 *     this file opened, or the parent's, proven by its witness;
 *   - descriptors 0-2 are never kept (a program that closed stdio and
 *     opens /dev/null expects 0).
 *
 * Where the mem file cannot be opened for good (no /proc, a security
 * module: ENOENT, EACCES, EPERM), that is remembered, and the kernel's own
 * copy of the attr is asked at once (one perf_event_open with group -2, as
 * probe/guard/attr.c does): no openat retried at every call.  A transient
 * failure (EMFILE, ENFILE, ENOMEM) is not remembered.  Anything unusual (an
 * unmapped or device address, the page not mapped) goes to the general
 * reader, guard_read_bytes(), unchanged.
 *
 * Raw system calls only: errno is never touched.  No lock: racing threads
 * and signal handlers each open, and one compare-and-swap publishes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#include "attr.h"
#include "self_mem.h"
#include "sys.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

/* One page of ours, zero in a fork child. */
struct self_page {
	_Atomic long fd1;         /* the kept descriptor + 1; 0: none */
	_Atomic uint64_t witness; /* never 0 once set */
	_Atomic long pid;         /* the process that opened it; 0: none yet */
};

static struct self_page *_Atomic g_page;
/* 1: the page is wiped on fork; 2: it is not (pid compared at each call). */
static _Atomic int g_wipes;
/* The mem file was refused for good in this process (and its children). */
static _Atomic bool g_no_mem_file;
/* What a fork child inherits in ordinary memory: the parent's descriptor
 * and its witness, so that the child can close it once proven. */
static _Atomic long g_parent_fd1;
static _Atomic uint64_t g_parent_witness;

static struct self_page *page(void)
{
	struct self_page *pg = atomic_load_explicit(&g_page, memory_order_acquire);
	if (pg)
		return pg;
	long m = pmug_sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	if ((unsigned long)m > -4096ul)
		return NULL;
	int wipes = pmug_sys3(SYS_madvise, m, 4096, MADV_WIPEONFORK) == 0 ? 1 : 2;
	struct self_page *expect = NULL;
	if (!atomic_compare_exchange_strong_explicit(&g_page, &expect, (struct self_page *)m,
						     memory_order_acq_rel, memory_order_acquire)) {
		pmug_sys2(SYS_munmap, m, 4096);
		return expect;
	}
	atomic_store_explicit(&g_wipes, wipes, memory_order_release);
	return (struct self_page *)m;
}

long pmug_self_pid(void)
{
	struct self_page *pg = atomic_load_explicit(&g_page, memory_order_acquire);
	long pid = pg && atomic_load_explicit(&g_wipes, memory_order_acquire) == 1
			   ? atomic_load_explicit(&pg->pid, memory_order_relaxed)
			   : 0;
	return pid ? pid : pmug_sys0(SYS_getpid);
}

static long pread_all(long fd, void *buf, size_t len, uint64_t off)
{
	long r;
	do
		r = pmug_sys4(SYS_pread64, fd, buf, len, off);
	while (r == -EINTR);
	return r;
}

enum { KEPT_STALE = 1, KEPT_ASK_ALL = 2 };

/* 0, a negative errno to answer with, or KEPT_*. */
static int read_kept(struct self_page *pg, long fd, uint64_t addr, void *buf, size_t len)
{
	long r = pread_all(fd, buf, len, addr);
	uint64_t w = 0;
	long v = pread_all(fd, &w, sizeof(w), (uint64_t)(uintptr_t)&pg->witness);
	if (v != (long)sizeof(w) || w != atomic_load_explicit(&pg->witness, memory_order_relaxed))
		/* The kernel could not copy a page for it: a passing failure
		 * of a descriptor that is ours; this call fails closed. */
		return v == -ENOMEM || v == -EAGAIN ? (int)v : KEPT_STALE;
	if (r == (long)len)
		return 0;
	/* Ours, but the attr was not all read (unmapped, a device's
	 * mapping): the general reader tells which. */
	return KEPT_ASK_ALL;
}

static uint64_t new_witness(const void *pg, long pid)
{
	uint64_t t = 0;
#if defined(__x86_64__)
	unsigned lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	t = (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(t));
#endif
	uint64_t w = t ^ (uint64_t)pid << 40 ^ (uint64_t)(uintptr_t)pg ^ (uint64_t)(uintptr_t)&t;
	w *= 0x9e3779b97f4a7c15ull;
	return w ^ w >> 29 ? w ^ w >> 29 : 1;
}

/* A fork child: the descriptor it inherited names its parent's memory.
 * Closed only where a read through it shows the parent's witness. */
static void close_parents(struct self_page *pg)
{
	long fd1 = atomic_exchange_explicit(&g_parent_fd1, 0, memory_order_acq_rel);
	uint64_t want = atomic_load_explicit(&g_parent_witness, memory_order_relaxed);
	uint64_t w = 0;
	if (fd1 > 0 && want &&
	    pread_all(fd1 - 1, &w, sizeof(w), (uint64_t)(uintptr_t)&pg->witness) == sizeof(w) &&
	    w == want)
		pmug_sys1(SYS_close, fd1 - 1);
}

/* No kept descriptor (the first call, a fork child, one the program
 * closed): open one, and keep it where this is the process that may. */
static int read_cold(uint64_t addr, void *buf, size_t len)
{
	if (atomic_load_explicit(&g_no_mem_file, memory_order_acquire))
		return guard_read_self_via_kernel(addr, buf, len);
	struct self_page *pg = page();
	if (!pg)
		return guard_read_bytes(0, addr, buf, len);
	long pid = pmug_sys0(SYS_getpid),
	     was = atomic_load_explicit(&pg->pid, memory_order_acquire);
	if (was == 0) {
		/* Fresh, or wiped by a fork: ours to fill. */
		close_parents(pg);
		if (!atomic_load_explicit(&pg->witness, memory_order_relaxed)) {
			uint64_t zero = 0;
			atomic_compare_exchange_strong(&pg->witness, &zero, new_witness(pg, pid));
		}
		long none = 0;
		atomic_compare_exchange_strong(&pg->pid, &none, pid);
		was = atomic_load_explicit(&pg->pid, memory_order_acquire);
	} else if (was != pid && atomic_load_explicit(&g_wipes, memory_order_acquire) == 2) {
		/* A fork child where the kernel does not wipe: its copy of the
		 * page is its own; the inherited descriptor is forgotten. */
		atomic_store_explicit(&pg->fd1, 0, memory_order_release);
		uint64_t old = atomic_load_explicit(&pg->witness, memory_order_relaxed);
		atomic_store_explicit(&pg->witness, new_witness(pg, pid) ^ old,
				      memory_order_release);
		atomic_store_explicit(&pg->pid, pid, memory_order_release);
		was = pid;
	}
	long fd = pmug_open("/proc/thread-self/mem", O_RDONLY | O_CLOEXEC);
	if (fd == -ENOENT || fd == -EACCES || fd == -EPERM || fd == -ENOTDIR) {
		atomic_store_explicit(&g_no_mem_file, true, memory_order_release);
		return guard_read_self_via_kernel(addr, buf, len);
	}
	if (fd < 0)
		return guard_read_bytes(0, addr, buf, len);
	if (fd < 3) {
		long high = pmug_sys3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
		pmug_sys1(SYS_close, fd);
		if (high < 0)
			return guard_read_bytes(0, addr, buf, len);
		fd = high;
	}
	/* Kept only by the process the page belongs to (not a vfork child
	 * sharing it), and only if no racing thread kept one first. */
	long none = 0;
	bool kept = was == pid && atomic_compare_exchange_strong(&pg->fd1, &none, fd + 1);
	if (kept) {
		atomic_store_explicit(&g_parent_fd1, fd + 1, memory_order_relaxed);
		atomic_store_explicit(&g_parent_witness,
				      atomic_load_explicit(&pg->witness, memory_order_relaxed),
				      memory_order_release);
	}
	int rc = read_kept(pg, fd, addr, buf, len);
	if (!kept)
		pmug_sys1(SYS_close, fd);
	if (rc == 0 || rc < 0)
		return rc;
	return guard_read_bytes(0, addr, buf, len);
}

int pmug_read_self(uint64_t addr, void *buf, size_t len)
{
	if (addr == 0 || addr > (uint64_t)INT64_MAX)
		return -EFAULT;
	struct self_page *pg = atomic_load_explicit(&g_page, memory_order_acquire);
	long fd1 = pg ? atomic_load_explicit(&pg->fd1, memory_order_acquire) : 0;
	if (fd1 > 0 && atomic_load_explicit(&g_wipes, memory_order_relaxed) == 2 &&
	    pmug_sys0(SYS_getpid) != atomic_load_explicit(&pg->pid, memory_order_relaxed))
		fd1 = 0; /* a fork child on a kernel without WIPEONFORK */
	if (fd1 > 0) {
		int rc = read_kept(pg, fd1 - 1, addr, buf, len);
		if (rc <= 0)
			return rc;
		if (rc == KEPT_ASK_ALL)
			return guard_read_bytes(0, addr, buf, len);
		/* Closed or replaced by the program: no longer ours. */
		atomic_compare_exchange_strong(&pg->fd1, &fd1, 0);
	}
	return read_cold(addr, buf, len);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading this process's own memory (the caller's perf_event_attr) without
 * ever faulting, in two system calls: a descriptor of /proc/thread-self/mem
 * kept across calls, proved to be that file (fstat: its device and inode)
 * before anything is read through it.  Three (open, read, close) in a
 * process with privilege to drop, which keeps none (below).
 *
 * The file holds the mm it was opened on (proc_mem_open(), fs/proc/base.c:
 * mmgrab, then mem_rw() reads that mm through access_remote_vm()): any
 * thread reads through it, also after the opening thread or the leader has
 * exited.  What the program does to its descriptors is never trusted:
 *
 *   - before each read, fstat() of the kept number must give the device
 *     and inode the file had when it was opened: a descriptor the program
 *     closed (EBADF), or whose number it reused (a file, a pipe, /dev/kmsg,
 *     a tun device, whose read would take a record or a packet of the
 *     program's, or block), is never read, and is forgotten;
 *   - the identity lives in one page of ours, MADV_WIPEONFORK (Linux
 *     4.14): a fork child finds it zero, so it never reads its parent's
 *     memory through the inherited descriptor (which still names the
 *     parent's mm); it opens its own, and closes the inherited one where
 *     fstat proves it is the parent's file.  Where the kernel has no
 *     WIPEONFORK, the pid is compared at every call (one more system call);
 *   - a vfork child shares the page and the memory: the inherited
 *     descriptor reads that same memory, so it is right there; a child
 *     that must open one (it closed its descriptors) uses it for that call
 *     only (its pid is not the page's);
 *   - a descriptor that is no longer ours is forgotten, never closed (the
 *     number may be the program's now); the only descriptors closed are
 *     one this file opened, or the parent's, proven by fstat;
 *   - descriptors 0-2 are never kept (a program that closed stdio and
 *     opens /dev/null expects 0);
 *   - a process with privilege to drop keeps none (issue 47): the file's
 *     access check is made when it is opened, not when it is read, so a
 *     kept descriptor inherited by a fork child that dropped to another
 *     user without exec (a root daemon's worker) would read its parent's
 *     memory, which that user may not.  Privilege is judged once per
 *     process (the page is wiped on fork, so a child judges its own) from
 *     this thread's status: a uid or gid (real, effective, saved or
 *     filesystem) that is 0 or unlike the others, or any capability
 *     permitted.  There each read opens, reads and closes: one system call
 *     more, nothing inherited.  Privilege at keep time is what counts:
 *     without exec a process only loses privilege, and a descriptor kept
 *     by one without any is a window into a process no more privileged
 *     than anything that can inherit it (exec closes it: O_CLOEXEC).  A
 *     process that drops privilege after it judged keeps opening its own.
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
#include <sys/stat.h>

#include "attr.h"
#include "self_mem.h"
#include "sys.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

/* One page of ours, zero in a fork child.  The identity is written before
 * fd1 is published (release) and read after it (acquire). */
struct self_page {
	_Atomic long fd1;     /* the kept descriptor + 1; 0: none; -1: being kept */
	_Atomic uint64_t dev; /* its st_dev and st_ino when it was opened */
	_Atomic uint64_t ino;
	_Atomic long pid; /* the process that opened it; 0: none yet */
	_Atomic int keep; /* KEEP_*: may this process keep one? */
};

enum { KEEP_UNJUDGED, KEEP_YES, KEEP_NO };

static struct self_page *_Atomic g_page;
/* 1: the page is wiped on fork; 2: it is not (pid compared at each call). */
static _Atomic int g_wipes;
/* The mem file was refused for good in this process (and its children). */
static _Atomic bool g_no_mem_file;
/* What a fork child inherits in ordinary memory: the parent's descriptor
 * and its identity, so that the child can close it once proven. */
static _Atomic long g_parent_fd1;
static _Atomic uint64_t g_parent_dev, g_parent_ino;

#ifdef SYS_fstat
#define fstat_fd(fd, st) pmug_sys2(SYS_fstat, (fd), (st))
#else
#define fstat_fd(fd, st) pmug_sys4(PMUG_SYS_FSTATAT, (fd), "", (st), 0x1000 /* AT_EMPTY_PATH */)
#endif

/* Is fd the file whose device and inode these are? */
static bool same_file(long fd, uint64_t dev, uint64_t ino)
{
	struct stat st;
	return dev | ino && fstat_fd(fd, &st) == 0 && (uint64_t)st.st_dev == dev &&
	       (uint64_t)st.st_ino == ino;
}

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

/* 0 where all len bytes at addr were read through fd, else the general
 * reader's answer (an unmapped or device address: it tells which). */
static int read_through(long fd, uint64_t addr, void *buf, size_t len)
{
	long r;
	do
		r = pmug_sys4(SYS_pread64, fd, buf, len, addr);
	while (r == -EINTR);
	if (r == (long)len)
		return 0;
	if (r == -ENOMEM || r == -EAGAIN)
		return (int)r; /* the kernel could not copy a page: fail closed */
	return guard_read_bytes(0, addr, buf, len);
}

/* A fork child: the descriptor it inherited names its parent's memory.
 * Closed only where fstat proves it is the parent's file. */
static void close_parents(void)
{
	long fd1 = atomic_exchange_explicit(&g_parent_fd1, 0, memory_order_acq_rel);
	if (fd1 > 0 && same_file(fd1 - 1, atomic_load(&g_parent_dev), atomic_load(&g_parent_ino)))
		pmug_sys1(SYS_close, fd1 - 1);
}

/* One line of status: 1 (Uid:) or 2 (Gid:) where its four ids are one id
 * other than 0, 4 (CapPrm:) where nothing is permitted; 8 where one of
 * those says privilege; 0 for any other line. */
static unsigned judge_line(const char *l, unsigned n)
{
	if (n > 7 && !__builtin_memcmp(l, "CapPrm:", 7)) {
		for (unsigned i = 7; i < n; i++)
			if (l[i] != '\t' && l[i] != '0')
				return 8;
		return 4;
	}
	if (n < 5 || (__builtin_memcmp(l, "Uid:", 4) && __builtin_memcmp(l, "Gid:", 4)))
		return 0;
	uint64_t first = 0, id = 0;
	unsigned fields = 0;
	for (unsigned i = 5; i <= n; i++) {
		if (i < n && l[i] >= '0' && l[i] <= '9') {
			id = id * 10 + (unsigned)(l[i] - '0');
		} else if (l[i - 1] >= '0' && l[i - 1] <= '9') {
			if (fields++ == 0)
				first = id;
			if (id == 0 || id != first)
				return 8;
			id = 0;
		}
	}
	return fields != 4 ? 8 : l[0] == 'U' ? 1 : 2;
}

/* Has this thread privilege to drop (above)?  Its status is read in small
 * pieces, keeping a line's first bytes only: this may run on a caller's
 * small stack.  Where it cannot be read, privilege is assumed. */
static bool privileged(void)
{
	long fd = pmug_open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	char chunk[256], line[64];
	unsigned n = 0, seen = 0;
	long r;
	while (seen < 7 && (r = pmug_sys3(SYS_read, fd, chunk, sizeof(chunk))) != 0) {
		if (r == -EINTR)
			continue;
		if (r < 0)
			break;
		for (long i = 0; i < r; i++) {
			if (chunk[i] != '\n') {
				if (n < sizeof(line))
					line[n++] = chunk[i];
				continue;
			}
			seen |= judge_line(line, n);
			n = 0;
		}
	}
	pmug_sys1(SYS_close, fd);
	return seen != 7;
}

/* May the process this page belongs to keep a descriptor?  Judged once. */
static bool may_keep(struct self_page *pg)
{
	int k = atomic_load_explicit(&pg->keep, memory_order_acquire);
	if (k == KEEP_UNJUDGED) {
		k = privileged() ? KEEP_NO : KEEP_YES;
		atomic_store_explicit(&pg->keep, k, memory_order_release);
	}
	return k == KEEP_YES;
}

/* The mem file refused for good (no /proc, a security module): remembered,
 * and the kernel's own copy asked from now on. */
static bool refused_for_good(long fd)
{
	if (fd != -ENOENT && fd != -EACCES && fd != -EPERM && fd != -ENOTDIR)
		return false;
	atomic_store_explicit(&g_no_mem_file, true, memory_order_release);
	return true;
}

/* A process that keeps nothing: open, read, close. */
static int read_once(uint64_t addr, void *buf, size_t len)
{
	long fd = pmug_open("/proc/thread-self/mem", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return refused_for_good(fd) ? guard_read_self_via_kernel(addr, buf, len)
					    : guard_read_bytes(0, addr, buf, len);
	int rc = read_through(fd, addr, buf, len);
	pmug_sys1(SYS_close, fd);
	return rc;
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
	/* Known to keep nothing: no getpid either (a fork child on a kernel
	 * that does not wipe keeps its parent's answer, which is safe). */
	if (atomic_load_explicit(&pg->keep, memory_order_acquire) == KEEP_NO)
		return read_once(addr, buf, len);
	long pid = pmug_sys0(SYS_getpid),
	     was = atomic_load_explicit(&pg->pid, memory_order_acquire);
	if (was == 0) {
		/* Fresh, or wiped by a fork: ours to fill. */
		close_parents();
		long none = 0;
		atomic_compare_exchange_strong(&pg->pid, &none, pid);
		was = atomic_load_explicit(&pg->pid, memory_order_acquire);
	} else if (was != pid && atomic_load_explicit(&g_wipes, memory_order_acquire) == 2) {
		/* A fork child where the kernel does not wipe: its copy of the
		 * page is its own; the inherited descriptor is forgotten. */
		atomic_store_explicit(&pg->fd1, 0, memory_order_release);
		atomic_store_explicit(&pg->pid, pid, memory_order_release);
		was = pid;
	}
	/* Only the page's own process judges (a vfork child keeps nothing). */
	if (was == pid && !may_keep(pg))
		return read_once(addr, buf, len);
	long fd = pmug_open("/proc/thread-self/mem", O_RDONLY | O_CLOEXEC);
	if (refused_for_good(fd))
		return guard_read_self_via_kernel(addr, buf, len);
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
	 * sharing it), with its identity, and only if no racing thread kept
	 * one first. */
	struct stat st;
	bool kept = false;
	long none = 0;
	/* Claimed (-1) before the identity is written, published after: a
	 * racing thread never sees one descriptor with another's identity. */
	if (was == pid && fstat_fd(fd, &st) == 0 &&
	    atomic_compare_exchange_strong(&pg->fd1, &none, -1)) {
		atomic_store(&pg->dev, (uint64_t)st.st_dev);
		atomic_store(&pg->ino, (uint64_t)st.st_ino);
		atomic_store_explicit(&pg->fd1, fd + 1, memory_order_release);
		kept = true;
	}
	if (kept) {
		atomic_store(&g_parent_dev, (uint64_t)st.st_dev);
		atomic_store(&g_parent_ino, (uint64_t)st.st_ino);
		atomic_store_explicit(&g_parent_fd1, fd + 1, memory_order_release);
	}
	int rc = read_through(fd, addr, buf, len);
	if (!kept)
		pmug_sys1(SYS_close, fd);
	return rc;
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
		if (same_file(fd1 - 1, atomic_load(&pg->dev), atomic_load(&pg->ino)))
			return read_through(fd1 - 1, addr, buf, len);
		/* Closed or replaced by the program: no longer ours. */
		atomic_compare_exchange_strong(&pg->fd1, &fd1, 0);
	}
	return read_cold(addr, buf, len);
}

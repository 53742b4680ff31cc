// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bad input through the real shim.  This binary runs with libpmuguard.so in
 * LD_PRELOAD and PMUGUARD_SNAPSHOT pointing at the m6i fixture (see
 * meson.build), so the shim's verdict is "hazard" while the kernel below is
 * this machine's.  To tell "the shim answered" from "the kernel answered",
 * calls pass flags the kernel rejects first (EINVAL, checked before the attr
 * is read in sys_perf_event_open, kernel/events/core.c): ENOENT then can
 * only come from the shim.
 */
#include <criterion/criterion.h>

#include "attr.h"
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>


static long peo(const void *attr, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, 0, -1, -1, flags);
}


Test(setup, shim_is_preloaded_and_exports_only_syscall)
{
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, "syscall");
	cr_assert(sym && dladdr(sym, &info), "syscall not found");
	cr_assert(strstr(info.dli_fname, "libpmuguard.so"), "syscall comes from %s",
		  info.dli_fname);
	void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	cr_assert_not_null(h);
	static const char *const internal[] = {"guard_classify", "probe_gather",
					       "probe_evaluate", "pmug_perf_event_open",
					       "pmug_next_syscall", "log_emit"};
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		cr_assert_null(dlsym(h, internal[i]), "%s is exported", internal[i]);
	dlclose(h);
}

Test(deny, slots_gets_enoent_without_entering_the_kernel)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, 0x0400);
	errno = 0;
	cr_assert_eq(peo(&a, BAD_FLAGS), -1);
	cr_assert_eq(errno, ENOENT, "errno %d (%s)", errno, strerror(errno));
	a.config = 0x8300;
	cr_assert_eq(peo(&a, BAD_FLAGS), -1);
	cr_assert_eq(errno, ENOENT);
}

Test(deny, allowed_encodings_reach_the_kernel)
{
	static const uint64_t ok[] = {0x01a4, 0x0300, 0x00c0, 0x01b7};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct perf_event_attr a = attr_of(PERF_TYPE_RAW, ok[i]);
		errno = 0;
		cr_assert_eq(peo(&a, BAD_FLAGS), -1);
		cr_assert_eq(errno, EINVAL, "0x%llx: errno %d", (unsigned long long)ok[i], errno);
	}
}

Test(bad_attr, null_pointer_gets_kernel_efault)
{
	errno = 0;
	cr_assert_eq(peo(NULL, 0), -1);
	cr_assert_eq(errno, EFAULT);
}

Test(bad_attr, unmapped_pointer_gets_kernel_efault)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	errno = 0;
	cr_assert_eq(peo(p, 0), -1);
	cr_assert_eq(errno, EFAULT);
	munmap(p, (size_t)pg);
	errno = 0;
	cr_assert_eq(peo((void *)8, 0), -1);
	cr_assert_eq(errno, EFAULT);
}

Test(bad_attr, straddling_into_an_unmapped_page)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	cr_assert_eq(mprotect(p + pg, (size_t)pg, PROT_NONE), 0);
	/* type and size readable, config in the unmapped page */
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, 0x0400);
	char *at = p + pg - 8;
	memcpy(at, &a, 8);
	errno = 0;
	cr_assert_eq(peo(at, 0), -1);
	cr_assert_eq(errno, EFAULT, "errno %d", errno);
	munmap(p, 2 * (size_t)pg);
}

/* [vvar]: readable by the kernel's copy_from_user(), refused by
 * process_vm_readv() and the mem file (a VM_PFNMAP mapping, like a
 * device's).  Forwarded unjudged, the attr would reach the kernel unseen:
 * the shim fails closed instead (the kernel would have read it). */
Test(bad_attr, readable_only_to_the_kernel_fails_closed)
{
	FILE *f = fopen("/proc/self/maps", "r");
	cr_assert_not_null(f);
	char line[512];
	unsigned long vvar = 0;
	while (!vvar && fgets(line, sizeof(line), f))
		if (strstr(line, "[vvar]"))
			vvar = strtoul(line, NULL, 16);
	fclose(f);
	if (!vvar)
		cr_skip_test("no [vvar] mapping here");
	errno = 0;
	cr_assert_eq(peo((void *)vvar, BAD_FLAGS), -1);
	cr_assert_eq(errno, ENOENT, "errno %d", errno);
}

Test(bad_attr, size_zero_is_ver0_and_still_classified)
{
	/* perf_copy_attr(): size 0 means PERF_ATTR_SIZE_VER0, so a size-0 slots
	 * attr would be scheduled: it must be denied, not forwarded. */
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, 0x0400);
	a.size = 0;
	errno = 0;
	cr_assert_eq(peo(&a, BAD_FLAGS), -1);
	cr_assert_eq(errno, ENOENT);
	a.config = 0x01a4; /* harmless size-0 attr: the kernel's answer */
	cr_assert_eq(peo(&a, BAD_FLAGS), -1);
	cr_assert_eq(errno, EINVAL);
}

Test(bad_attr, oversized_and_undersized_go_to_the_kernel)
{
	/* The kernel rejects these before scheduling anything: E2BIG. */
	static char big[8192];
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, 0x0400);
	a.size = sizeof(big);
	memcpy(big, &a, sizeof(a));
	errno = 0;
	cr_assert_eq(peo(big, 0), -1);
	cr_assert_eq(errno, E2BIG, "errno %d", errno);
	a.size = 16;
	errno = 0;
	cr_assert_eq(peo(&a, 0), -1);
	cr_assert_eq(errno, E2BIG, "errno %d", errno);
}

Test(errno_contract, other_syscalls_unchanged)
{
	errno = 4242;
	cr_assert_eq(syscall(SYS_getpid), getpid());
	cr_assert_eq(errno, 4242);
	cr_assert_eq(syscall(SYS_gettid), gettid());
	cr_assert_eq(errno, 4242);
	int word = 0;
	cr_assert_eq(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
	cr_assert_eq(errno, 4242);
	cr_assert_eq(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0), -1);
	cr_assert_eq(errno, EAGAIN, "value differs: EAGAIN, as glibc gives");
	cr_assert_eq(syscall(SYS_close, -1), -1);
	cr_assert_eq(errno, EBADF);
}

Test(errno_contract, successful_perf_event_open_keeps_errno)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	errno = 4242;
	long fd = peo(&a, 0);
	if (fd < 0)
		cr_skip_test("software events unavailable here (errno %d)", errno);
	cr_assert_eq(errno, 4242);
	close((int)fd);
}

#define THREADS 64
static atomic_int go;
static atomic_int wrong;

static void *racer(void *arg)
{
	uint64_t config = (uintptr_t)arg % 2 ? 0x0400 : 0x01a4;
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, config);
	while (!atomic_load(&go))
		;
	errno = 0;
	long r = peo(&a, BAD_FLAGS);
	if (r != -1 || errno != (config == 0x0400 ? ENOENT : EINVAL))
		atomic_fetch_add(&wrong, 1);
	return NULL;
}

Test(concurrency, sixty_four_threads_race_on_the_first_call)
{
	pthread_t t[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, racer, (void *)i), 0);
	atomic_store(&go, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(atomic_load(&wrong), 0, "%d threads got a wrong answer", wrong);
}

static volatile sig_atomic_t handler_calls, handler_wrong;

static void on_alarm(int sig)
{
	(void)sig;
	int saved = errno;
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, 0x0400);
	if (peo(&a, BAD_FLAGS) != -1 || errno != ENOENT)
		handler_wrong = 1;
	handler_calls++;
	errno = saved;
}

Test(concurrency, perf_event_open_from_signal_handlers_during_the_first_probe, .timeout = 60)
{
	struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
	sigaction(SIGALRM, &sa, NULL);
	/* The first call is from a handler; then handlers keep interrupting
	 * calls (and probes) of the main thread. */
	raise(SIGALRM);
	struct itimerval it = {{0, 50}, {0, 50}};
	setitimer(ITIMER_REAL, &it, NULL);
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, 0x0400);
	for (int i = 0; i < 20000 && handler_calls < 200; i++) {
		errno = 0;
		cr_assert_eq(peo(&a, BAD_FLAGS), -1);
		cr_assert_eq(errno, ENOENT);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	cr_assert_gt(handler_calls, 0);
	cr_assert_eq(handler_wrong, 0);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * holes: a dynamic program that calls perf_event_open through glibc's
 * syscall() the hostile ways a host process may, for tests/hostile/holes.sh.
 * Run it with and without libpmuguard.so preloaded, under faultsim.
 *
 *   holes MODE [ARG]
 *
 * Each mode prints one line per call, "call NAME errno=E" (E 0 when the
 * call returned a descriptor, closed at once), and for the stack modes
 * "peak NAME BYTES": the deepest the call reached below the caller's frame.
 *
 *   tinystack   first call on a 16 KiB thread stack
 *   altstack    first call in a signal handler on an 8 KiB sigaltstack
 *   hibits      syscall(0x100000000 | nr) and syscall(0x40000000 | nr)
 *   sandbox     warm up, then forbid process_vm_readv/open/openat (EPERM)
 *               with a seccomp filter of our own, then slots
 *   sandbox-vm  the same, process_vm_readv only (the /proc/self/mem path)
 *   sandbox-mm  the same as sandbox, and mmap too
 *   sandbox-kill
 *               a filter that kills the process at process_vm_readv (as
 *               a SystemCallFilter= without it does), then an ordinary
 *               event (cpu-clock: "sandboxed-ordinary"), then slots
 *   sandbox-kill-noproc
 *               the same in a mount namespace of its own without /proc
 *               (a chroot or bubblewrap without it): no mem file to read
 *   preload-twice FIRST LAST MODE...
 *               run holes MODE... again with LD_PRELOAD twice in its
 *               environment, FIRST then LAST (the loader takes the last)
 *   emfile      slots at the fd limit, twice, then with descriptors free
 *   closeall    slots; every descriptor from 3 closed and /dev/zero put on
 *               3..63; slots and metric again
 *   kmsgreuse   the same with /dev/kmsg on 3..63: "kmsg untouched" where the
 *               shim read no record through a number the program reused
 *   fork2       slots; a fork; in the child slots from an address whose
 *               parent's bytes say cycles, "child fds kept" where the
 *               child holds no more descriptors after its call; the
 *               parent's slots again
 *   forkdrop [own]
 *               slots; a fork; the parent writes a secret after the fork,
 *               the child drops to uid and gid 65534 (and every capability)
 *               without exec, as a worker does, and preads the secret's
 *               address through each descriptor it holds that is a
 *               /proc/.../mem file: "mem descriptors N", and "secret found
 *               through fd N" for each that shows its parent's memory.
 *               With own, the parent keeps a descriptor of its mem file
 *               itself (O_CLOEXEC, as the shim did) instead of the call:
 *               the look is shown finding one
 *   threads16   16 threads released together onto their first call
 *               (slots), then each a metric
 *   fd2         close fd 2, open ARG (it becomes fd 2), then slots
 *   preinit     slots from a preinit_array function, then metric from main
 *   substitute  slots with modifier bits and flags set: "attr-unchanged yes"
 *               when the caller's attr is byte for byte what it was
 *   slots       slots, then syscall(SYS_close, -1) ("badclose": errno
 *               must be EBADF, set through libc's errno)
 *   clearenv    clearenv(), then slots three times
 *   vfork       slots, slots in a vfork child, slots again in the parent
 *   dlopen LIB  the environment moved to the heap by setenv(), then LIB
 *               loaded with dlopen() and its syscall() called: slots and
 *               badclose, as "dlopen-slots" and "dlopen-badclose"
 *   scope HOW [PLUGIN]
 *               slots through a lookup in libc's own scope, then badclose:
 *               HOW handle (dlsym on dlopen("libc.so.6", RTLD_NOLOAD)),
 *               dlvsym (the versioned lookup), deepbind / deepbind-lazy
 *               (PLUGIN, tests/hostile/plugin.c, loaded RTLD_DEEPBIND with
 *               RTLD_NOW / RTLD_LAZY, calls plain syscall()), dlmopen
 *               (PLUGIN in a new namespace, LM_ID_NEWLM: its own libc),
 *               copy (dlsym on PLUGIN, a second file of libc opened by
 *               its path into the main namespace);
 *               printed as "call scope-HOW errno=E"
 *   undelivered with /dev/log and the journal socket removed, slots (its
 *               report cannot be delivered); then this process listens on
 *               /run/systemd/journal/socket itself, and metric: its report
 *               is printed as "journal FIELD=VALUE|FIELD=VALUE|..."
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attr.h"

#define SLOTS 0x0400ull
#define METRIC 0x8000ull
#define CYCLES 0x003cull

typedef long (*syscall_fn)(long, ...);

static long open_with(syscall_fn sc, long nr, uint64_t config)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, config);
	a.exclude_hv = 1;
	return sc(nr, &a, 0, -1, -1, 0);
}

static long open_raw(long nr, uint64_t config)
{
	return open_with(syscall, nr, config);
}

static void report(const char *name, long fd)
{
	int e = fd < 0 ? errno : 0;
	if (fd >= 0)
		close((int)fd);
	printf("call %s errno=%d\n", name, e);
	fflush(stdout);
}

/* ---- stacks: paint below us, call, find the deepest byte touched -------- */

#define PAINT 0xa5
static unsigned char *g_lo;   /* lowest byte of the stack in use */
static size_t g_peak;

static __attribute__((noinline)) void measured_call(const char *name)
{
	volatile unsigned char here;
	unsigned char *sp = (unsigned char *)&here;
	/* Leave 128 bytes under our own frame unpainted for the painting. */
	size_t n = (size_t)((uintptr_t)sp - 128 - (uintptr_t)g_lo);
	memset(g_lo, PAINT, n);
	long fd = open_raw(SYS_perf_event_open, SLOTS);
	int e = errno;
	unsigned char *p = g_lo;
	while (p < sp && *p == PAINT)
		p++;
	g_peak = (size_t)(sp - p);
	errno = e;
	report(name, fd);
}

static void *thread_main(void *arg)
{
	(void)arg;
	measured_call("tinystack");
	return NULL;
}

static int tinystack(void)
{
	size_t size = 16u << 10;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		return 1;
	g_lo = stack;
	pthread_attr_t at;
	pthread_t t;
	pthread_attr_init(&at);
	pthread_attr_setstack(&at, stack, size);
	if (pthread_create(&t, &at, thread_main, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("peak tinystack %zu\n", g_peak);
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
	int e = errno;
	measured_call("altstack");
	errno = e;
}

static int altstack(void)
{
	size_t size = 8u << 10;
	void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	g_lo = mem;
	stack_t ss = {.ss_sp = mem, .ss_size = size};
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0)
		return 1;
	raise(SIGUSR1);
	printf("peak altstack %zu\n", g_peak);
	return 0;
}

/* ---- a sandbox of the process's own -------------------------------------- */

static int sandbox(int which)
{
	/* 0: process_vm_readv, open, openat; 1: process_vm_readv only;
	 * 2: as 0, and mmap; 3: process_vm_readv kills the process; 4: as 3,
	 * without /proc. */
	report("warmup", open_raw(SYS_perf_event_open, CYCLES));
	if (which == 4) {
		if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    umount2("/proc", MNT_DETACH) != 0) {
			perror("holes: a mount namespace without /proc");
			return 1;
		}
		if (access("/proc/self/mem", F_OK) == 0) {
			fprintf(stderr, "holes: /proc is still mounted\n");
			return 1;
		}
		which = 3;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, which % 2 ? -1u : SYS_openat, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, which % 2 ? -1u : SYS_open, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, which == 2 ? SYS_mmap : -1u, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K,
			 which == 3 ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("holes: seccomp");
		return 1;
	}
	if (which == 3) {
		struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		report("sandboxed-ordinary", syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
	}
	report("sandboxed-slots", open_raw(SYS_perf_event_open, SLOTS));
	return 0;
}

/* ---- descriptors --------------------------------------------------------- */

/* Every descriptor from 3 up closed, then /dev/zero on each of 3..63: a
 * descriptor the shim kept is gone, and its number reads zeros (an attr of
 * zeros is cycles, allowed).  Then slots and metric. */
static int closeall(void)
{
	report("closeall-1", open_raw(SYS_perf_event_open, SLOTS));
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int z = open("/dev/zero", O_RDONLY);
	if (z < 0)
		return 1;
	for (int fd = 3; fd < 64; fd++)
		if (fd != z && dup2(z, fd) < 0)
			return 1;
	report("closeall-2", open_raw(SYS_perf_event_open, SLOTS));
	report("closeall-3", open_raw(SYS_perf_event_open, METRIC));
	return 0;
}

/* The same, with /dev/kmsg on 3..63 (one open file description) and a
 * second /dev/kmsg above: a read through the kept number would take a
 * record of the program's.  Then slots, and the first record of each:
 * "kmsg untouched" where they are the same. */
static int kmsgreuse(void)
{
	report("kmsgreuse-1", open_raw(SYS_perf_event_open, SLOTS));
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int a = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (a < 0)
		return 77;
	for (int fd = 3; fd < 64; fd++)
		if (fd != a && dup2(a, fd) < 0)
			return 1;
	int b = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (b < 0)
		return 1;
	report("kmsgreuse-2", open_raw(SYS_perf_event_open, SLOTS));
	char ra[8192], rb[8192];
	ssize_t na = read(a, ra, sizeof(ra)), nb = read(b, rb, sizeof(rb));
	if (na > 0 && na == nb && !memcmp(ra, rb, (size_t)na))
		printf("kmsg untouched\n");
	else
		printf("kmsg record taken (%zd, %zd bytes)\n", na, nb);
	return 0;
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1; /* the directory's own */
}

/* A fork between two calls.  The parent's attr at the child's address is
 * cycles; the child's own is slots: a guard that read the parent's memory
 * (a descriptor inherited across the fork) would let the child's through. */
static struct perf_event_attr g_forked;

static int fork2(void)
{
	report("fork-parent-1", open_raw(SYS_perf_event_open, SLOTS));
	g_forked = attr_of(PERF_TYPE_RAW, CYCLES);
	g_forked.exclude_hv = 1;
	fflush(stdout);
	int pipefd[2];
	if (pipe(pipefd) < 0)
		return 1;
	pid_t p = fork();
	if (p == 0) {
		g_forked.config = SLOTS;
		int before = count_fds();
		long fd = syscall(SYS_perf_event_open, &g_forked, 0, -1, -1, 0);
		int e = errno;
		int after = count_fds();
		report("fork-child-1", fd < 0 ? (errno = e, -1) : fd);
		report("fork-child-2", open_raw(SYS_perf_event_open, SLOTS));
		printf("child fds %s\n", after <= before ? "kept" : "grew");
		fflush(stdout);
		_exit(0);
	}
	int st = 0;
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	report("fork-parent-2", open_raw(SYS_perf_event_open, SLOTS));
	return 0;
}

/* A root parent (or one holding capabilities) that made one call, then a
 * worker forked and dropped to nobody without exec (issue 47, item 3): a
 * /proc/PID/mem descriptor is checked when it is opened, not when it is
 * read, so one inherited from the parent reads the parent's memory.  The
 * secret is written after the fork: the child's own copy is zeros. */
static char g_secret[32];

static int drop_to_nobody(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct none[2];
	memset(none, 0, sizeof(none));
	/* A parent that is nobody already may not call setgroups(). */
	return (getgroups(0, NULL) != 0 && setgroups(0, NULL)) || setresgid(65534, 65534, 65534) ||
	       setresuid(65534, 65534, 65534) || syscall(SYS_capset, &h, none) || getuid() != 65534;
}

static void look_for_secret(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[64], to[256], got[sizeof(g_secret)];
		int fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t len = readlink(path, to, sizeof(to) - 1);
		if (len < 5)
			continue;
		to[len] = '\0';
		if (strncmp(to, "/proc/", 6) || strcmp(to + len - 4, "/mem"))
			continue;
		n++;
		/* Our own copy at that address is zeros: the secret is the
		 * parent's memory. */
		ssize_t r = pread(fd, got, sizeof(got), (off_t)(uintptr_t)g_secret);
		if (r == (ssize_t)sizeof(got) && !strncmp(got, "secret of pid ", 14))
			printf("secret found through fd %d (%s): %.*s\n", fd, to,
			       (int)strnlen(got, sizeof(got)), got);
	}
	if (d)
		closedir(d);
	printf("mem descriptors %d\n", n);
}

static int forkdrop(bool own)
{
	if (own && open("/proc/thread-self/mem", O_RDONLY | O_CLOEXEC) < 0)
		return 1;
	if (!own)
		report("forkdrop-parent", open_raw(SYS_perf_event_open, SLOTS));
	int go[2];
	if (pipe(go) < 0)
		return 1;
	pid_t p = fork();
	if (p == 0) {
		char c;
		close(go[1]);
		if (drop_to_nobody()) {
			perror("holes: dropping to nobody");
			_exit(1);
		}
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		look_for_secret();
		fflush(stdout);
		_exit(0);
	}
	close(go[0]);
	snprintf(g_secret, sizeof(g_secret), "secret of pid %ld", (long)getpid());
	int st = 0;
	if (p < 0 || write(go[1], "", 1) != 1 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

/* 16 threads released together onto their first call, then a second. */
#define RACERS 16
static pthread_barrier_t g_start;

static void *racer(void *arg)
{
	char name[32];
	pthread_barrier_wait(&g_start);
	long fd = open_raw(SYS_perf_event_open, SLOTS);
	snprintf(name, sizeof(name), "thread-%ld", (long)(intptr_t)arg);
	report(name, fd);
	fd = open_raw(SYS_perf_event_open, METRIC);
	snprintf(name, sizeof(name), "thread-again-%ld", (long)(intptr_t)arg);
	report(name, fd);
	return NULL;
}

static int threads16(void)
{
	pthread_t t[RACERS];
	pthread_barrier_init(&g_start, NULL, RACERS);
	for (long i = 0; i < RACERS; i++)
		if (pthread_create(&t[i], NULL, racer, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int emfile(void)
{
	int fds[4096], n = 0;
	struct rlimit rl = {64, 64};
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1;
	while (n < 4096 && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	report("emfile-first", open_raw(SYS_perf_event_open, SLOTS));
	report("emfile-again", open_raw(SYS_perf_event_open, SLOTS));
	while (n > 0)
		close(fds[--n]);
	report("fds-free", open_raw(SYS_perf_event_open, METRIC));
	return 0;
}

static int fd2(const char *path)
{
	close(STDERR_FILENO);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd != STDERR_FILENO)
		return 1;
	if (write(fd, "DATA\n", 5) != 5)
		return 1;
	report("fd2-slots", open_raw(SYS_perf_event_open, SLOTS));
	return 0;
}

static int substitute(void)
{
	struct perf_event_attr a, before;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.config = 0x2800400; /* slots, inv, cmask=2 */
	a.sample_period = 12345;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = 1;
	memcpy(&before, &a, sizeof(a));
	report("substituted-slots", syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
	printf("attr-unchanged %s\n", memcmp(&a, &before, sizeof(a)) ? "no" : "yes");
	return 0;
}

/* ---- before libc's own set-up -------------------------------------------- */

static int g_mode_preinit;
static long g_preinit_fd = -2;
static int g_preinit_errno;

static void early(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc > 1 && !strcmp(argv[1], "preinit")) {
		g_mode_preinit = 1;
		g_preinit_fd = open_raw(SYS_perf_event_open, SLOTS);
		g_preinit_errno = errno;
	}
}
__attribute__((section(".preinit_array"), used)) static void (*const preinit_fn)(int, char **,
									  char **) = early;

static void slots_and_badclose(syscall_fn sc, const char *slots, const char *badclose)
{
	report(slots, open_with(sc, SYS_perf_event_open, SLOTS));
	errno = 0;
	report(badclose, sc(SYS_close, -1));
}

/* holes MODE... again, its environment ours with LD_PRELOAD=first before
 * it and LD_PRELOAD=last after it (env(1) and execve's callers that keep a
 * table of names make no such environment; some launchers do). */
static int preload_twice(const char *first, const char *last, char **argv)
{
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = calloc(n + 3, sizeof(*envp));
	char *a = NULL, *b = NULL;
	if (!envp || asprintf(&a, "LD_PRELOAD=%s", first) < 0 ||
	    asprintf(&b, "LD_PRELOAD=%s", last) < 0)
		return 2;
	size_t k = 0;
	envp[k++] = a;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			envp[k++] = environ[i];
	envp[k++] = b;
	execve("/proc/self/exe", argv, envp);
	perror("holes: execve");
	return 2;
}

static int dlopened(const char *lib)
{
	char name[16];
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "HOLES_%d", i);
		setenv(name, "x", 1);
	}
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	syscall_fn sc = h ? (syscall_fn)dlsym(h, "syscall") : NULL;
	if (!sc) {
		fprintf(stderr, "holes: %s\n", dlerror());
		return 1;
	}
	slots_and_badclose(sc, "dlopen-slots", "dlopen-badclose");
	return 0;
}

/* ---- lookups in libc's own scope ----------------------------------------- */

#if defined(__x86_64__)
#define LIBC_SYSCALL_VERSION "GLIBC_2.2.5"
#else
#define LIBC_SYSCALL_VERSION "GLIBC_2.17"
#endif

static int libc_scope(const char *how, const char *plugin)
{
	char slots[64], badclose[64];
	snprintf(slots, sizeof(slots), "scope-%s", how);
	snprintf(badclose, sizeof(badclose), "scope-%s-badclose", how);
	if (!strcmp(how, "handle") || !strcmp(how, "dlvsym") || !strcmp(how, "copy")) {
		/* copy: PLUGIN is another file of libc, loaded by its path. */
		void *h = how[0] == 'c' ? (plugin ? dlopen(plugin, RTLD_NOW) : NULL)
					: dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		void *f = !h		      ? NULL
			  : how[0] == 'h' ? dlsym(h, "syscall")
					  : dlvsym(h, "syscall", LIBC_SYSCALL_VERSION);
		if (!f) {
			fprintf(stderr, "holes: %s\n", dlerror());
			return 1;
		}
		slots_and_badclose((syscall_fn)f, slots, badclose);
		return 0;
	}
	int flags = !strcmp(how, "deepbind")	  ? RTLD_NOW | RTLD_DEEPBIND
		    : !strcmp(how, "deepbind-lazy") ? RTLD_LAZY | RTLD_DEEPBIND
						    : RTLD_NOW;
	void *h = !plugin		    ? NULL
		  : !strcmp(how, "dlmopen") ? dlmopen(LM_ID_NEWLM, plugin, flags)
		  : flags != RTLD_NOW	    ? dlopen(plugin, flags)
					    : NULL;
	long (*fn)(uint64_t, int *) = h ? (long (*)(uint64_t, int *))dlsym(h, "holes_plugin_open")
					: NULL;
	if (!fn) {
		fprintf(stderr, "holes: scope %s: %s\n", how, plugin ? dlerror() : "no PLUGIN");
		return 1;
	}
	int e = 0;
	long fd = fn(SLOTS, &e);
	printf("call %s errno=%d\n", slots, fd < 0 ? e : 0);
	fflush(stdout);
	return 0;
}

static int undelivered(void)
{
	static const char path[] = "/run/systemd/journal/socket";
	unlink("/dev/log");
	unlink(path);
	report("undelivered-slots", open_raw(SYS_perf_event_open, SLOTS));
	mkdir("/run/systemd", 0755);
	mkdir("/run/systemd/journal", 0755);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	memcpy(a.sun_path, path, sizeof(path));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		perror("holes: journal socket");
		return 1;
	}
	report("delivered-metric", open_raw(SYS_perf_event_open, METRIC));
	char buf[4096];
	/* The shim sent before the call returned: the datagram is queued. */
	ssize_t n = recv(s, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	if (n <= 0) {
		printf("journal none\n");
		return 0;
	}
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\n')
			buf[i] = '|';
	printf("journal %s\n", buf);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	/* Bind our own syscall() PLT slot outside the measured calls. */
	syscall(SYS_getpid);
	if (!strcmp(mode, "tinystack"))
		return tinystack();
	if (!strcmp(mode, "altstack"))
		return altstack();
	if (!strcmp(mode, "hibits")) {
		report("hibits-32", open_raw(0x100000000L | SYS_perf_event_open, SLOTS));
		report("hibits-x32", open_raw(0x40000000L | SYS_perf_event_open, SLOTS));
		return 0;
	}
	if (!strcmp(mode, "sandbox"))
		return sandbox(0);
	if (!strcmp(mode, "sandbox-vm"))
		return sandbox(1);
	if (!strcmp(mode, "sandbox-mm"))
		return sandbox(2);
	if (!strcmp(mode, "sandbox-kill"))
		return sandbox(3);
	if (!strcmp(mode, "sandbox-kill-noproc"))
		return sandbox(4);
	if (!strcmp(mode, "emfile"))
		return emfile();
	if (!strcmp(mode, "closeall"))
		return closeall();
	if (!strcmp(mode, "kmsgreuse"))
		return kmsgreuse();
	if (!strcmp(mode, "fork2"))
		return fork2();
	if (!strcmp(mode, "forkdrop"))
		return forkdrop(argc > 2 && !strcmp(argv[2], "own"));
	if (!strcmp(mode, "threads16"))
		return threads16();
	if (!strcmp(mode, "substitute"))
		return substitute();
	if (!strcmp(mode, "slots")) {
		slots_and_badclose(syscall, "slots", "badclose");
		return 0;
	}
	if (!strcmp(mode, "vfork")) {
		report("parent-1", open_raw(SYS_perf_event_open, SLOTS));
		pid_t p = vfork();
		if (p == 0) {
			long fd = open_raw(SYS_perf_event_open, SLOTS);
			_exit(fd < 0 && errno == ENOENT ? 0 : 1);
		}
		int st = 0;
		if (p < 0 || waitpid(p, &st, 0) != p)
			return 1;
		printf("child %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "denied" : "not-denied");
		report("parent-2", open_raw(SYS_perf_event_open, SLOTS));
		return 0;
	}
	if (!strcmp(mode, "clearenv")) {
		clearenv();
		report("cleared-1", open_raw(SYS_perf_event_open, SLOTS));
		report("cleared-2", open_raw(SYS_perf_event_open, SLOTS));
		report("cleared-3", open_raw(SYS_perf_event_open, SLOTS));
		return 0;
	}
	if (!strcmp(mode, "dlopen") && argc > 2)
		return dlopened(argv[2]);
	if (!strcmp(mode, "undelivered"))
		return undelivered();
	if (!strcmp(mode, "scope") && argc > 2)
		return libc_scope(argv[2], argc > 3 ? argv[3] : NULL);
	if (!strcmp(mode, "fd2") && argc > 2)
		return fd2(argv[2]);
	if (!strcmp(mode, "preload-twice") && argc > 4) {
		const char *first = argv[2], *last = argv[3];
		argv[3] = argv[0]; /* the program again, then MODE... */
		return preload_twice(first, last, argv + 3);
	}
	if (!strcmp(mode, "preinit") && g_mode_preinit) {
		errno = g_preinit_errno;
		report("preinit-slots", g_preinit_fd);
		report("main-metric", open_raw(SYS_perf_event_open, METRIC));
		return 0;
	}
	fprintf(stderr, "usage: holes tinystack|altstack|hibits|sandbox|sandbox-vm|sandbox-mm|sandbox-kill|sandbox-kill-noproc|"
			"emfile|fd2 FILE|preload-twice FIRST LAST MODE...|preinit|slots|clearenv|vfork|"
			"dlopen LIB|undelivered|"
			"scope HOW [PLUGIN]\n");
	return 2;
}
